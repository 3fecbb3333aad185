"""The journal ``dudo serve`` keeps: opened at start whatever the card did to it, and made
writable again without a restart.

A damaged journal is mended (:mod:`companion.salvage`); one on a card that can only be read
(full, or made read-only by the kernel) is opened to be read, the page saying why every action
is refused, and tried again until it can be written. What cannot be opened at all stops the
start with a :class:`~companion.start_errors.StartError` that says what to do.
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
from contextlib import closing, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from companion.journal import (
    DATABASE_NAME,
    DamagedJournal,
    Journal,
    JournalError,
    damage,
    sqlite_reason,
    what_to_do,
)
from companion.salvage import finish, mend, notice
from companion.start_errors import CannotWriteYet, StartError

if TYPE_CHECKING:
    from companion.table import Table

logger = logging.getLogger(__name__)

# How often a journal that could only be read is tried again to be written.
JOURNAL_RETRY_S = 10.0


def open_journal(data: Path) -> tuple[Journal, dict[str, str]]:
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
        try:
            journal = _to_read(path) if path.is_file() else None
        except (OSError, sqlite3.Error, JournalError) as unread:
            # Not a mistake to stop for (exit status 2): memory fills and empties, a card
            # fails for a while.
            raise CannotWriteYet(
                f"{err}; nor can the newest moves, in its WAL, be read from a copy ({unread}):"
                f" {why}, or free room in /dev/shm (systemd tries again by itself)") from unread
        if journal is not None:
            logger.error("%s; the journal is opened read-only", err)
            faults["journal"] = (f"the journal can only be read ({err}), so every action is"
                                 f" refused: {why}; the table takes actions again by itself"
                                 " once the journal can be written")
            return _noticed(journal, path, faults)
        why += ", then start the table again"
        if _no_room(err):
            raise CannotWriteYet(f"{err}: {why} (systemd tries again by itself)") from err
        raise StartError(f"{err} (use --data DIR for a writable directory)") from err


def _to_read(path: Path) -> Journal | None:
    """The journal at ``path`` opened to be read only, its WAL's moves with it (None: it
    cannot be; OSError, sqlite3.Error or JournalError: its WAL cannot be read).

    SQLite reads a WAL through its index (the ``-shm`` file), which it cannot make on a card
    it may not write; opened ``immutable`` it reads the file alone, as it stood before the
    moves still in its WAL (the page showed an older game, and once the card could be written
    again every action was refused until a restart). There, the file and its WAL are read
    from a copy in memory."""
    uri = f"{path.absolute().as_uri()}?mode=ro"
    with suppress(JournalError):
        return Journal(uri, uri=True)
    wal = path.with_name(path.name + "-wal")
    try:
        if not (wal.is_file() and wal.stat().st_size > 0):
            return Journal(f"{uri}&immutable=1", uri=True)  # the file holds every move
    except (OSError, JournalError) as err:
        logger.error("the journal %s cannot be read (%s)", path, err)
        return None
    copy = _copied_in_memory(path, wal)
    return Journal(f"{copy.absolute().as_uri()}?mode=ro&immutable=1", uri=True)


def copy_folder(path: Path) -> Path:
    """The folder of the copy :func:`_to_read` reads of the journal at ``path``: in memory
    (``/dev/shm``, else the temporary folder), one name for each journal, so that a copy a
    killed run left is replaced, not added to."""
    shm = Path("/dev/shm")
    base = shm if os.access(shm, os.W_OK) else Path(tempfile.gettempdir())
    name = hashlib.sha256(str(path.absolute()).encode()).hexdigest()[:16]
    return base / f"dudo-journal-{os.getuid()}-{name}"


def _copied_in_memory(path: Path, wal: Path) -> Path:
    """A copy of the journal at ``path`` with the moves of its ``wal`` folded in
    (:func:`copy_folder`), removed when the table stops, or takes the journal again to be
    written, or the copy fails."""
    folder = copy_folder(path)
    shutil.rmtree(folder, ignore_errors=True)
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:  # something of another user's in the way: a name of its own
        logger.warning("%s is in the way: the journal's copy is made beside it", folder)
        folder = Path(tempfile.mkdtemp(prefix=f"{folder.name}-", dir=folder.parent))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    try:
        copy = folder / path.name
        shutil.copyfile(path, copy)
        shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        with closing(sqlite3.connect(copy)) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return copy


def _barred(path: Path) -> Path:
    """The first folder on the way to ``path`` that may not be gone through (its parent,
    when every one on the way may be)."""
    for folder in reversed(path.absolute().parents):
        try:
            folder.stat()
        except PermissionError:
            return folder.parent
    return path.absolute().parent


class KeptJournal:
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
            shutil.rmtree(copy_folder(self._data / DATABASE_NAME), ignore_errors=True)
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
        """Stop trying the journal again, and close it."""
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
