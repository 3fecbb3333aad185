"""``dudo serve``: the running companion (table, journal, camera, panel, page) behind waitress.

``dudo serve --sim`` is the embedded default a laptop can run: gpiozero's mock pins with the
virtual panel on the page, and a simulated camera that renders the dice the simulated cups
rolled. Without ``--sim`` it runs the real table: the camera and frame source of the config's
``[camera]`` table, the panel of its ``[pins]`` table on the default pin factory.

A missing camera or failing GPIO does not stop the companion: the page says so and still
works (reveals are then typed in by hand; a camera missing at start is tried again at each
call, and reads the reveals from the first call that finds it). Under systemd it says
READY=1 once its page answers, pings the watchdog while the table is healthy and says
STOPPING=1 on the way out.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import hashlib
import hmac
import logging
import os
import secrets
import signal
import socket
import sqlite3
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion import notify
from companion.config import Config, load_config
from companion.journal import (
    DATABASE_NAME,
    DamagedJournal,
    Journal,
    JournalError,
    damage,
    sqlite_reason,
    what_to_do,
)
from companion.reveal import CameraStuck, VisionReader, within
from companion.salvage import finish, mend, notice
from companion.sim import SimulatedCups
from companion.table import Table

if TYPE_CHECKING:
    from vision.calibration import CameraSettings

logger = logging.getLogger(__name__)

SSE_MAX_CLIENTS = 64
READY_TIMEOUT_S = 60.0


# The file a table holds in its data directory while it runs (its pid inside).
HOLD_NAME = "table.pid"
# How often a journal that could only be read is tried again to be written.
JOURNAL_RETRY_S = 10.0


class StartError(Exception):
    """A configuration problem that stops the companion at start, with a clear message
    (exit status 2: systemd does not start it again until the config is mended)."""

    status = 2


class HeldElsewhere(StartError):
    """Another table holds the data directory: exit status 1, so that systemd tries again
    (it may be the service's own last run, stuck ending in a camera driver or on the card;
    one started by hand beside the service lets it start once it stops)."""

    status = 1


class CannotListenYet(StartError):
    """The address or port cannot be taken now (the network not up yet, the port still held
    by the last run): exit status 1, so that systemd tries again."""

    status = 1


class CannotWriteYet(StartError):
    """No journal can be made now (the card is full, or fails to write): exit status 1, so
    that systemd tries again once space is freed."""

    status = 1


@dataclass
class Companion:
    """Everything ``dudo serve`` built, so it can be closed in order."""

    table: Table
    pin: str
    camera: Any = None
    cups: SimulatedCups | None = None
    panel: Any = None
    driver: Any = None


def serve_command(args: argparse.Namespace) -> int:
    """Run the companion until SIGTERM or Ctrl-C; 2 on a configuration error."""
    handler = logging.StreamHandler()
    handler.setFormatter(log_format(os.environ))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    logging.captureWarnings(True)  # a library's warnings (gpiozero's) as log lines, with a priority
    _few_malloc_arenas()
    try:
        config = load_config(
            args.config, host=args.host, port=args.port, pin=args.pin, data=args.data
        )
    except ValueError as err:
        print(f"dudo serve: {err}", file=sys.stderr)
        return 2
    with ExitStack() as stack:
        page = _Page(config, stack)
        try:
            companion = build(config, sim=args.sim, seed=args.seed, stack=stack,
                              listen=page.listen)
            server = page.serve(companion)
        except StartError as err:
            print(f"dudo serve: {err}", file=sys.stderr)
            return err.status

        def stop(signum: int, frame: object) -> None:
            page.close_feeds()  # else waitress waits 10 s for the threads serving them
            raise SystemExit(0)  # waitress's loop closes the server cleanly on SystemExit

        for signum in (signal.SIGTERM, signal.SIGINT):
            previous = signal.signal(signum, stop)
            stack.callback(signal.signal, signum, previous)
        stack.callback(lambda: notify.notify("STOPPING=1"))
        _announce(config, companion, sim=args.sim)
        watchdog = _Watchdog(companion.table)
        stack.callback(watchdog.stop)
        threading.Thread(
            target=_say_ready, args=(config, watchdog), name="ready", daemon=True
        ).start()
        companion.table.resume_reveal()  # resumed in the middle of a reveal: the cups are up
        logger.info("serving on %s:%d", config.host, config.port)
        server.run()  # returns on SIGTERM / Ctrl-C (waitress closes on SystemExit)
    logger.info("stopped")
    return 0


class _JournaldFormat(logging.Formatter):
    """A log line as journald reads it: its priority first (``<3>`` an error, so that
    ``journalctl -p err`` finds it), and no time (journald keeps its own)."""

    PRIORITIES = {logging.CRITICAL: 2, logging.ERROR: 3, logging.WARNING: 4, logging.INFO: 6}

    def format(self, record: logging.LogRecord) -> str:
        # journald takes each line as an entry of its own: a traceback's lines, the reason on
        # its last, each carry the priority too (else `-p warning` showed its first line only).
        prefix = f"<{self.PRIORITIES.get(record.levelno, 7)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


def log_format(environ: Mapping[str, str]) -> logging.Formatter:
    """How the table's log lines are written: for journald under systemd (which says so in
    ``JOURNAL_STREAM``), else with their time, to a terminal or a file."""
    if environ.get("JOURNAL_STREAM"):
        return _JournaldFormat("%(levelname)s %(name)s: %(message)s")
    return logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")


def _few_malloc_arenas() -> None:
    """Have glibc's malloc keep two arenas, not one per thread that reads a picture: an evening
    of sixty simulated games took the table to 443 MB with its default (eight per core), 192
    MB with two (a Pi 3 has 1 GB). Before any thread starts; nothing where the C library is
    another (musl) or says no."""
    import ctypes

    arena_max = -8  # M_ARENA_MAX, malloc.h
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").mallopt(arena_max, 2)


def build(
    config: Config, *, sim: bool, seed: int | None, stack: ExitStack,
    listen: Callable[[], object] | None = None,
) -> Companion:
    """Open the camera, journal, table, cups and panel; each is closed by ``stack``.

    Everything that can be checked is, before the data directory is made or written: every
    table of the config is read, the directory looked at for another table holding it, and
    ``listen`` (``dudo serve``'s) takes the page's address and port. A mistake in one stops
    the start with nothing created, nor the directory itself.
    """
    pin = config.pin or f"{secrets.randbelow(10_000):04d}"
    pins, gpio_fault = _read_pin_map(config)
    camera, reader, camera_fault, reopen = _open_camera(config, sim=sim, seed=seed)
    if camera is not None:
        stack.callback(camera.close)
    if reopen is not None:
        stack.callback(reopen.close)  # the camera it opens at a call, if it does
    data = Path(config.data)
    holder = _holder(data)
    if holder is not None:  # said before its port is tried: one beside it has the same config
        raise HeldElsewhere(_held_by(holder, data))
    if listen is not None:
        listen()
    _hold(data, stack)
    journal, journal_faults = _open_journal(data)
    kept = _KeptJournal(data, journal)
    stack.callback(kept.close)

    table = Table(journal=journal, camera=camera, reader=reader, reopen=reopen,
                  cups_up_s=config.table.cups_up_s)
    stack.callback(table.close)
    if "journal" in journal_faults:  # read-only: writable again once the card has room
        kept.retry(table)
    companion = Companion(table=table, pin=pin, camera=camera)
    for name, fault in journal_faults.items():
        table.set_fault(name, fault)
    if camera_fault:
        table.set_fault("camera", camera_fault)
    if sim and camera is not None:
        companion.cups = SimulatedCups(table, camera, seed=_cups_seed(data, seed))
        stack.callback(companion.cups.close)
    if pins is not None:
        panel, driver, gpio_fault = _open_panel(table, pins, sim=sim)
        if panel is not None:
            stack.callback(panel.close)
        companion.panel, companion.driver = panel, driver
    if gpio_fault:
        table.set_fault("gpio", gpio_fault)
    return companion


def _hold(data: Path, stack: ExitStack) -> None:
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
        raise HeldElsewhere(_held_by(_pid_in(data), data)) from None
    with contextlib.suppress(OSError):  # the pid only names the holder (a full card?)
        named = os.open(data / HOLD_NAME, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(named, f"{os.getpid()}\n".encode())
        finally:
            os.close(named)


def _holder(data: Path) -> str | None:
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
        return None  # a file system without locks: left to _hold
    finally:
        os.close(folder)
    return None


def _pid_in(data: Path) -> str:
    """The pid the table holding ``data`` wrote in its ``table.pid`` ("?": none)."""
    try:
        return (data / HOLD_NAME).read_text(errors="replace").strip()[:20] or "?"
    except OSError:
        return "?"


def _held_by(pid: str, data: Path) -> str:
    """Why this table does not start: the one of ``pid`` uses its data directory."""
    return (f"another dudo serve (pid {pid}) uses {data}: stop it first (sudo systemctl stop"
            " dudo-companion), or give this one another --data DIR")


def _open_journal(data: Path) -> tuple[Journal, dict[str, str]]:
    """The journal in the data directory, and the faults the page must show of it.

    A damaged journal is set aside and a new one put in its place with what can be read of
    it (:mod:`companion.salvage`; fault ``salvaged``, shown until a new game). One that can
    only be read (a read-only or full card) is opened so: the page shows the game and why
    every action is refused (fault ``journal``). StartError if neither.
    """
    path = data / DATABASE_NAME
    try:
        path.stat()
    except PermissionError as err:  # a folder the service user may not enter
        barred = _barred(path)
        todo = (f"make {data} the service user's" if barred == data.absolute() else
                f"the service user may not go through {barred}: let it (sudo chmod o+x"
                f" {barred}), or give the table another --data DIR")
        raise StartError(f"cannot look at the journal {path} ({err.strerror}): {todo}, then"
                         " start the table again") from err
    except OSError:
        pass  # none yet (a new table), or no folder: said as the journal is made below
    faults: dict[str, str] = {}
    problem = None
    try:
        if finish(path):
            logger.error("the salvage of the damaged journal %s, cut off, is finished", path)
        problem = damage(path) if path.is_file() else None
        if problem is not None:
            logger.error("the journal %s is damaged (SQLite: %s): mending it", path, problem)
            mend(path)
    except (OSError, JournalError, sqlite3.Error) as err:
        what = (f"the journal {path} is damaged ({problem}) and could not be mended now"
                if problem else f"the salvage of the damaged journal {path} could not be"
                " finished now")
        if _no_room(err):
            raise CannotWriteYet(f"{what}: {err}: free some space on the card (systemd tries"
                                 " again by itself)") from err
        if not _cannot_write(err):
            raise CannotWriteYet(f"{what}: {err} (systemd tries again by itself)") from err
        # A card the kernel made read-only (as a failing one often is): shown as it is.
        faults["salvaged"] = f"{what} ({err}): the card cannot be written"
    try:
        return _noticed(Journal.in_directory(data), path, faults)
    except DamagedJournal as err:  # damage the check above could not see: nothing to loop on
        raise StartError(f"{err}: move it aside by hand (the service stopped first)") from err
    except JournalError as err:
        why = what_to_do(err, data)
        # SQLite needs `immutable` to read a WAL database whose -shm file it cannot create.
        for query in ("mode=ro", "mode=ro&immutable=1"):
            if not path.is_file():
                break
            try:
                journal = Journal(f"{path.absolute().as_uri()}?{query}", uri=True)
            except JournalError:
                continue
            logger.error("%s; the journal is opened read-only", err)
            faults["journal"] = (f"the journal can only be read ({err}), so every action is"
                                 f" refused: {why}; the table takes actions again by itself"
                                 " once the journal can be written")
            return _noticed(journal, path, faults)
        why += ", then start the table again"
        if _no_room(err):
            raise CannotWriteYet(f"{err}: {why} (systemd tries again by itself)") from err
        raise StartError(f"{err} (use --data DIR for a writable directory)") from err


def _barred(path: Path) -> Path:
    """The first folder on the way to ``path`` that may not be gone through (its parent,
    when every one on the way may be)."""
    for folder in reversed(path.absolute().parents):
        try:
            folder.stat()
        except PermissionError:
            return folder.parent
    return path.absolute().parent


class _KeptJournal:
    """The table's journal, closed at the stop. One opened read-only (a full card, one that
    failed to write) is tried again every ``JOURNAL_RETRY_S``: once it opens to be written,
    the table takes it and its actions are taken again, with no restart."""

    def __init__(self, data: Path, journal: Journal) -> None:
        self._data, self.journal = data, journal
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def retry(self, table: Table) -> None:
        """Open the journal to be written, on a thread, until it opens or the stop."""
        self._thread = threading.Thread(target=self._retry, args=(table,), name="journal",
                                        daemon=True)
        self._thread.start()

    def _retry(self, table: Table) -> None:
        while not self._stopped.wait(JOURNAL_RETRY_S):
            try:
                journal = self._to_write(table)
            except JournalError as err:
                logger.debug("the journal cannot be written yet: %s", err)
                continue
            try:
                replaced = table.take_journal(journal)
            except JournalError as err:
                logger.warning("the journal cannot be written yet: %s", err)
                journal.close()
                continue
            self.journal = journal
            if replaced is not None:
                replaced.close()
            logger.warning("the journal can be written again: the table takes actions again")
            return

    def _to_write(self, table: Table) -> Journal:
        """The journal opened anew to be written; JournalError while it cannot be.

        SQLite keeps one index (the ``-shm`` file) for a file in a process: the read-only
        journal's, opened read-only where the card or the file could not be written, makes
        every later open in this process read-only too, after the card can be written again.
        Where the file and its folder can be written, the read-only journal is let go of for
        the moment of the open (a phone's list of games asked for meanwhile is answered with
        an error), and opened again if the journal still cannot be written."""
        try:
            return Journal.in_directory(self._data)
        except JournalError as err:
            path = self._data / DATABASE_NAME
            if not (sqlite_reason(err).startswith("SQLITE_READONLY") and self.journal.read_only
                    and all(os.access(p, os.W_OK) for p in (path, self._data))):
                raise
        read_only = self.journal.database
        self.journal.close()
        try:
            return Journal.in_directory(self._data)
        except JournalError:
            self.journal = Journal(read_only, uri=True)
            table.take_journal(self.journal)
            raise

    def close(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()
        self.journal.close()


def _noticed(
    journal: Journal, path: Path, faults: dict[str, str]
) -> tuple[Journal, dict[str, str]]:
    """The journal at ``path`` and its faults, with the notice of a salvage that made it (kept in it
    until a new game, across restarts: a power cut just after the salvage loses nothing)."""
    try:
        said = notice(path, journal)
    except JournalError as err:
        logger.warning("%s: the notice of a salvage, if any, is not shown", err)
        said = None
    if said is not None and "salvaged" not in faults:
        faults["salvaged"] = said
        logger.error("%s", said)
    return journal, faults


def _no_room(err: BaseException) -> bool:
    """Whether ``err`` says the card is full (or a write failed on it)."""
    return (isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
            ) or sqlite_reason(err).startswith(("SQLITE_FULL", "SQLITE_IOERR"))


def _cannot_write(err: BaseException) -> bool:
    """Whether ``err`` says nothing may be written there (a read-only card, a folder not
    the service's)."""
    return (isinstance(err, OSError) and err.errno in (errno.EROFS, errno.EACCES, errno.EPERM)
            ) or sqlite_reason(err).startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN",
                                                "SQLITE_PERM"))


def _open_camera(
    config: Config, *, sim: bool, seed: int | None
) -> tuple[Any, VisionReader | None, str | None, CameraOpener | None]:
    """The started camera and its reader: (camera, reader, None, None). Without one: (None,
    None, why the reveal is typed by hand, None); or, for a camera that did not start,
    (None, its reader, why, the :class:`CameraOpener` that tries it again at each call)."""
    try:
        from vision.calibration import load_calibration

        # Read with --sim too: a config checked on a laptop is one the Pi can start with.
        calibration = load_calibration(config.path)
        if sim:
            from vision.simulate import SimulatedCamera

            camera: Any = SimulatedCamera(seed=seed)
            reader = VisionReader(
                config.path, calibration=lambda: camera.calibration, seat_of=camera.seat_of,
                die_size=camera.options.die_size,
            )
        else:
            reader = VisionReader(config.path, calibration=calibration)
    except ValueError as err:  # a bad [camera], [seats], [colours] or [vision] table
        raise StartError(str(err)) from err
    except ImportError as err:
        return None, None, f"the camera cannot be used ({err}): enter the reveal by hand", None
    spec = "sim" if sim else calibration.camera.source
    if seed is not None and spec != "sim":
        raise StartError(f"--seed {seed} makes the simulated rolls repeatable: give it with"
                         f" --sim (or [camera] source = 'sim'), not for this table's camera"
                         f" ({spec})")
    if spec == "none":
        return None, None, None, None
    unreadable = _models_unreadable(config, reader)
    if unreadable:
        # The referee needs no reader: the table starts, and says so at once.
        logger.error("%s", unreadable)
        return None, None, f"{unreadable}: enter the reveal by hand", None
    if sim:
        camera.start()
        return camera, reader, None, None
    opener = CameraOpener(spec, calibration.camera, seed)
    try:
        camera, why = opener()
    except ValueError as err:
        raise StartError(f"[camera] source: {err}") from err
    if camera is None:
        return None, reader, why, opener
    return camera, reader, None, None


class CameraOpener:
    """Opens the config's camera: at start, and again at each call while the table has none
    (one missing at start, or failing as it started, its cable reseated since).

    Called, it gives the started camera, or None and why the reveal is typed by hand. A
    camera that did not start within CAMERA_START_S (hung as it opens) is not tried again
    while that start still hangs. ValueError for a source spec that names no camera. The
    camera it opened last is closed by :meth:`close`.
    """

    def __init__(self, spec: str, settings: CameraSettings, seed: int | None) -> None:
        self.spec, self.settings, self.seed = spec, settings, seed
        self.camera: Any = None
        self._hung: threading.Thread | None = None
        self._why: str | None = None

    def __call__(self) -> tuple[Any, str | None]:
        from vision.sources import open_source

        if self._hung is not None and self._hung.is_alive():
            return None, self._why
        try:
            camera = open_source(self.spec, settings=self.settings, seed=self.seed)
            within(camera.start, CAMERA_START_S, "it did not start")
        except ValueError:
            raise  # a setting the source refuses: a mistake in the config
        except Exception as err:
            if isinstance(err, CameraStuck):
                self._hung = err.thread
            logger.error("the camera %r did not start: %s", self.spec, err)
            self._why = f"no camera: {err}; enter the reveal by hand"
            return None, self._why
        self.camera = camera
        return camera, None

    def close(self) -> None:
        """Close the camera it opened, if any."""
        if self.camera is not None:
            self.camera.close()


def _models_unreadable(config: Config, reader: VisionReader) -> str | None:
    """Why the reader's models cannot be loaded (a file missing, or made for another part),
    naming the config's [vision] table; None once they are loaded. Loaded at start, a
    wrong model is said before the first reveal, which is then read without that wait."""
    try:
        reader.load()
    except ImportError as err:
        return f"the dice reader cannot be used ({err})"
    except (FileNotFoundError, ValueError) as err:
        return f"{config.path or 'the shipped models'}: [vision]: {err}"
    return None


# How long a camera may take to start: longer, and the table starts without it (a source that
# hangs when opened would otherwise keep the page from ever answering).
CAMERA_START_S = 20.0


def _read_pin_map(config: Config) -> tuple[Any, str | None]:
    """The config's pin map, or (None, why the panel cannot be used); StartError if wrong."""
    try:
        from hardware.pins import pin_map_from_config

        pins = pin_map_from_config(config.path)
        for caution in pins.cautions():
            logger.warning("pin map: %s", caution)
        return pins, None
    except ValueError as err:
        raise StartError(str(err)) from err
    except ImportError as err:
        return None, f"the table's buttons and lights cannot be used ({err})"


def _open_panel(table: Table, pins: Any, *, sim: bool) -> tuple[Any, Any, str | None]:
    """The panel (and, with ``--sim``, its mock-pin driver) and the fault of any output left
    out of it, or (None, None, the fault)."""
    from hardware.pins import PinFault

    try:
        from hardware.panel import Panel

        if sim:
            from hardware.pins import with_every_input
            from hardware.sim import MockPanelDriver, mock_pin_factory

            panel = Panel(table, with_every_input(pins), pin_factory=mock_pin_factory())
            return panel, MockPanelDriver(panel), _left_out(panel)
        panel = Panel(table, pins)
        return panel, None, _left_out(panel)
    except Exception as err:
        if isinstance(err, PinFault):  # named already (no GPIO library, a pin in use): no trace
            logger.error("the panel's GPIO did not start: %s", err)
        else:
            logger.exception("the panel's GPIO did not start")
        return (
            None,
            None,
            (f"the table's buttons and lights are not working ({err}): play from this page"),
        )


def _left_out(panel: Any) -> str | None:
    """What the page says of the panel's inputs and outputs that could not be set up, if
    any: every one of them."""
    failed = [*panel.controls.failed, *panel.signals.failed]
    if not failed:
        return None
    return (f"part of the table's panel is not working ({'; '.join(map(str, failed))}): its"
            " other buttons and lights are")


class _Page:
    """The page's server: its address and port taken before the data directory is made (a
    host name that does not resolve, a port below 1024 or one in use stops the start with
    nothing written), the web app put behind them once the table is built."""

    def __init__(self, config: Config, stack: ExitStack) -> None:
        self._config, self._stack = config, stack
        self._app: Any = None
        self._server: Any = None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        # Called by waitress only once it runs, after serve() put the app here.
        return self._app(environ, start_response)

    def listen(self) -> None:
        """Take the page's address and port (StartError if they cannot be)."""
        from companion.web import server

        self._server = _create_server(self, self._config)
        self._stack.callback(server.close, self._server)

    def serve(self, companion: Companion) -> Any:
        """The server, the web app of ``companion``'s table behind it."""
        self._app = _web_app(companion, self._config)
        return self._server

    def close_feeds(self) -> None:
        """End every phone's live feed now (the table is stopping)."""
        if self._app is not None:
            self._app.extensions["dudo"].broker.close()


def _web_app(companion: Companion, config: Config) -> Any:
    """The web app of the table (its session key and sessions kept in the data directory)."""
    from companion.web import create_app

    return create_app(
        companion.table,
        {
            "TABLE_PIN": companion.pin,
            "SECRET_KEY": _secret_key(config.data),
            "SESSIONS_FILE": Path(config.data) / "sessions.json",
            "SIM_DRIVER": companion.driver,
            "SIM_CUPS": companion.cups,
            "NEW_GAME": {
                "rules": config.table.rules,
                "options": dict(config.table.options),
                "players": list(config.table.players),
            },
            "PUBLIC_URL": lambda: join_address(config),
            "SSE_MAX_CLIENTS": SSE_MAX_CLIENTS,
        },
    )


def _create_server(app: Any, config: Config) -> Any:
    """The waitress server for ``app``, bound to its port (StartError if it cannot be)."""
    from companion.web import server

    try:
        return server.create(app, config.host, config.port)
    except PermissionError as err:  # a port below 1024: trying again will not help
        raise StartError(
            f"cannot listen on {config.host}:{config.port}: {err.strerror} (a port below 1024"
            " needs privileges the service does not have: set [server] port, e.g. 8080)"
        ) from err
    except OSError as err:
        # Tried again (the address may come up later, or the port be let go): say by whom.
        held = (" (another program holds it, `ss -ltnp` names it: stop it, or set [server]"
                " port)" if err.errno == errno.EADDRINUSE else "")
        raise CannotListenYet(
            f"cannot listen on {config.host}:{config.port}: {err.strerror}{held}"
        ) from err
    except ValueError as err:  # waitress: a host name that does not resolve
        # waitress says only "Invalid host/port specified."; the resolver's own words are
        # in the error it caught.
        why = err.__context__
        if isinstance(why, socket.gaierror) and why.errno == socket.EAI_AGAIN:
            # The name server not reached (at boot, before the network is up): not a mistake.
            raise CannotListenYet(f"cannot listen on {config.host}:{config.port}: {config.host}"
                                  f" cannot be looked up yet ({why.strerror})") from err
        said = (f"{config.host} does not resolve ({why.strerror}): set [server] host (or"
                " --host) to this machine's address or name, or 0.0.0.0 for every address"
                if isinstance(why, socket.gaierror) else str(err))
        raise StartError(f"cannot listen on {config.host}:{config.port}: {said}") from err


def _secret_key(data: Path) -> bytes:
    """The session key kept in the data directory, so phones stay signed in across restarts."""
    path = Path(data) / "session.key"
    try:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
    except OSError:
        pass
    key = secrets.token_bytes(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key)
    except OSError as err:
        logger.warning("cannot keep the session key in %s (%s): phones sign in again", path, err)
    return key


def _cups_seed(data: Path, seed: int | None) -> int:
    """The simulated cups' seed: ``--seed``, else one kept with the data directory (drawn from
    its session key), so that a table started again finds the same dice under the cups (a
    fresh one rolled them anew: a restart in the middle of a reveal changed the dice shown)."""
    if seed is not None:
        return seed
    kept = hmac.new(_secret_key(data), b"the simulated cups", hashlib.sha256).digest()
    return int.from_bytes(kept[:16], "big")


def page_addresses(config: Config) -> list[str]:
    """The addresses a phone can open, the most useful first."""
    joined = join_address(config)
    addresses = [joined] if joined else []
    if config.host in ("0.0.0.0", "::", ""):  # every interface: its names too
        addresses.append(f"http://{socket.gethostname()}.local:{config.port}/")
        addresses.append(f"http://127.0.0.1:{config.port}/")
    return addresses


def join_address(config: Config) -> str | None:
    """The address the join QR code shows: the one the page is bound to, else this machine's
    on its network; None where it has no route out (a table that is its own access point),
    and the page then shows the address the phone asked by: a ``.local`` name is not opened
    by every phone (older Androids)."""
    if config.host not in ("0.0.0.0", "::", ""):
        return f"http://{_url_host(config.host)}:{config.port}/"
    lan = _lan_address()
    return f"http://{lan}:{config.port}/" if lan else None


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _lan_address() -> str | None:
    """This machine's address on its network (no packet is sent: UDP connect only routes)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            address: str = probe.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address


def _announce(config: Config, companion: Companion, *, sim: bool) -> None:
    """Print where the page is and the PIN (the first thing a newcomer needs)."""
    mode = "the simulated table (mock pins, simulated camera)" if sim else "the table"
    lines = [f"dudo serve: {mode}; open the page and enter the PIN to play"]
    lines += [f"  page: {address}" for address in page_addresses(config)]
    # systemd's journal is read by more than root (the adm group): a PIN of the config stays
    # in the config; a random one must be told, or no phone could ever take control.
    under_systemd = bool(os.environ.get("INVOCATION_ID") or os.environ.get("NOTIFY_SOCKET"))
    if under_systemd and config.pin:
        lines.append("  PIN:  the one set in the config or with --pin (kept out of the log)")
    else:
        lines.append(f"  PIN:  {companion.pin}")
    lines.append(f"  data: {config.data}")
    for name, message in companion.table.state().get("faults", {}).items():
        lines.append(f"  fault ({name}): {message}")
    if _printed("\n".join(lines)) and sys.stdout.isatty():
        # A phone's camera opens the page from the terminal (not in systemd's journal).
        with contextlib.suppress(ImportError, OSError):
            from companion.web.qr import qr_text

            print(qr_text(page_addresses(config)[0]), flush=True)


def _printed(text: str) -> bool:
    """Whether ``text`` went to the standard output; where that takes nothing (closed, a full
    disk) it goes to the log on stderr instead, and the table is served all the same."""
    if sys.stdout is None:  # started with `>&-`
        why = "it is closed"
    else:
        try:
            print(text, flush=True)
            return True
        except OSError as err:
            why = err.strerror or str(err)
    logger.warning("the standard output takes nothing (%s):\n%s", why, text)
    return False


def _local_url(config: Config) -> str:
    host = config.host
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://{_url_host(host)}:{config.port}/api/state"


def _say_ready(config: Config, watchdog: _Watchdog) -> None:
    """READY=1 once the page answers a request, then start the watchdog's pings."""
    url = _local_url(config)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                answered = response.status == 200
        except OSError:
            answered = False
        if answered:  # said once the request's connection is closed: nothing left to do here
            notify.notify("READY=1")
            logger.info("the page answers at %s: ready", url)
            watchdog.start()
            return
        time.sleep(0.1)
    logger.error("the page did not answer at %s within %.0f s", url, READY_TIMEOUT_S)


def alive(table: Table) -> bool:
    """Whether the table is alive, for systemd's watchdog: its lock can be taken in 1 s, and
    its camera answers, or hangs only while the players type a reveal in.

    A camera hung in a capture (Picamera2's ``capture_array`` is known to wait for ever at
    times) answers again only in a new process: once the players have typed that reveal in,
    the watchdog goes unanswered and systemd restarts the table, its game kept as ever.
    """
    if not table.healthy(timeout=1.0):
        return False
    if table.camera_stuck() and table.state()["phase"] != "reveal":
        logger.error("the camera has not answered since a reveal's picture: only a restart"
                     " gets it back (systemd's watchdog restarts the table; the game is kept)")
        return False
    return True


class _Watchdog:
    """WATCHDOG=1 every ``$WATCHDOG_USEC/4`` while the table is ``alive``."""

    def __init__(self, table: Table) -> None:
        interval = notify.watchdog_interval()
        self._dog = notify.Watchdog(lambda: alive(table), interval) if interval else None

    def start(self) -> None:
        if self._dog is not None:
            self._dog.start()

    def stop(self) -> None:
        if self._dog is not None:
            self._dog.stop()
