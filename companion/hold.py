"""One table to a data directory: ``dudo serve`` holds its directory while it runs.

A second ``dudo serve`` on the same directory (one started by hand beside the service) would
write the same journal; it is told which table holds the directory and stops.
"""

from __future__ import annotations

import contextlib
import logging
import os
from contextlib import ExitStack
from pathlib import Path

from companion.start_errors import HeldElsewhere

logger = logging.getLogger(__name__)

# The file a table holds in its data directory while it runs (its pid inside).
HOLD_NAME = "table.pid"


def hold(data: Path, stack: ExitStack) -> None:
    """Hold the data directory for this table alone, until ``stack`` closes: a second
    ``dudo serve`` on it (one started by hand beside the service) would write the same
    journal, and set it aside as damaged while the other writes it. The directory itself is
    locked, not its ``table.pid`` (which only names the holder): a pid file removed as stale
    lets no second table in. Where the directory cannot be made or written, nothing is held:
    opening the journal says why."""
    import fcntl  # Unix only, as the table is

    try:
        data.mkdir(parents=True, exist_ok=True)
        folder = os.open(data, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    stack.callback(os.close, folder)  # the kernel lets go of it too when the process dies
    try:
        fcntl.flock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise HeldElsewhere(held_by(_pid_in(data), data)) from None
    except OSError as err:  # before, a traceback and exit status 1, tried again for ever
        logger.warning("%s cannot be held (its file system takes no locks: %s): a second"
                       " table started on it would not be kept out", data, err.strerror)
        return
    with contextlib.suppress(OSError):  # the pid only names the holder (a full card?)
        named = os.open(data / HOLD_NAME, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(named, f"{os.getpid()}\n".encode())
        finally:
            os.close(named)


def holder(data: Path) -> str | None:
    """The pid of another ``dudo serve`` holding the data directory, or None; looked at
    without making or writing anything (no directory, no hold: no other table)."""
    import fcntl

    try:
        folder = os.open(data, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        fcntl.flock(folder, fcntl.LOCK_SH | fcntl.LOCK_NB)  # let go of as it is closed
    except BlockingIOError:
        return _pid_in(data)
    except OSError:
        return None  # a file system without locks: left to hold
    finally:
        os.close(folder)
    return None


def _pid_in(data: Path) -> str:
    """The pid the table holding ``data`` wrote in its ``table.pid`` ("?": none)."""
    try:
        return (data / HOLD_NAME).read_text(errors="replace").strip()[:20] or "?"
    except OSError:
        return "?"


def held_by(pid: str, data: Path) -> str:
    """Why this table does not start: the one of ``pid`` uses its data directory."""
    return (f"another dudo serve (pid {pid}) uses {data}: stop it first (sudo systemctl stop"
            " dudo-companion), or give this one another --data DIR")
