"""The journal: every game and every accepted action, kept in SQLite before it is acknowledged.

One database file in the data directory holds every game the table has played: a header row
per game and one row per accepted action, each with its sequence number and a checksum. The
journal runs in WAL mode with ``synchronous=FULL``, so an action is on the card once
:meth:`Journal.append` returns. The journal knows nothing of the rules: the table replays the
rows through the engine to resume a game (see :mod:`companion.table`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from companion.wal import wal_damage

logger = logging.getLogger(__name__)

DATABASE_NAME = "journal.sqlite3"
# What :meth:`SavedGame.whole` says of a row whose number is past the next: rows are missing.
MISSING = "missing"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    started TEXT NOT NULL,
    header TEXT NOT NULL,
    checksum TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    winner TEXT
);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    checksum TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS dropped (
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    checksum TEXT NOT NULL,
    reason TEXT NOT NULL,
    dropped TEXT NOT NULL
);
"""
# What the players are told across restarts (since session 47: made when first needed).
_NOTICES = "CREATE TABLE IF NOT EXISTS notices (name TEXT PRIMARY KEY, message TEXT NOT NULL)"
# The last reveal the camera read: its reading and picture, one row written over at each
# (since session 52: made when first needed).
_LAST_REVEAL = """CREATE TABLE IF NOT EXISTS last_reveal (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    game_id INTEGER NOT NULL,
    moves INTEGER NOT NULL,
    reading TEXT NOT NULL,
    picture BLOB NOT NULL
)"""


class JournalError(Exception):
    """The journal could not read or write; the message says what and why."""


class JournalGone(JournalError):
    """The journal's file is no longer the one the table opened (moved or removed)."""


class DamagedJournal(JournalError):
    """The journal's file is damaged: SQLite finds it malformed, or no database at all (a
    card that failed, a file cut short or written over)."""


def _has_table(db: sqlite3.Connection, name: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                      (name,)).fetchone() is not None


def sqlite_reason(err: BaseException) -> str:
    """SQLite's name for why ``err`` (or the error it was raised from) failed:
    ``SQLITE_FULL``, ``SQLITE_READONLY``, ``SQLITE_CORRUPT``...; "" when it does not say."""
    cause = err if isinstance(err, sqlite3.Error) else err.__cause__
    return str(getattr(cause, "sqlite_errorname", "") or "")


def _damage(err: sqlite3.Error) -> bool:
    return sqlite_reason(err).startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))


def damage(path: Path) -> str | None:
    """What SQLite finds damaged in the journal file at ``path`` (its WAL read too), or None
    when nothing is, or the file cannot be read at all (the caller's open says why).

    Looked at read-only: a connection that may write folds the WAL into the file as it
    closes, which would change the damaged file before it is set aside. A WAL damaged before
    a commit is damage too (:func:`companion.wal.wal_damage`): SQLite would drop the commits
    after it without a word.

    An empty file is damaged too: SQLite would take it for a new journal, every game gone
    without a word, and the journal is never empty once made (its first page is written as
    it is opened) but for the moment before.
    """
    try:
        if path.stat().st_size == 0:
            return "the file is empty: cut to nothing"
    except OSError:
        return None  # the caller's open says why
    try:
        db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        rows = db.execute("PRAGMA quick_check").fetchall()
    except sqlite3.Error as err:
        return str(err) if _damage(err) else None
    finally:
        db.close()
    said = [str(row[0]) for row in rows]
    if said != ["ok"]:
        return "; ".join(said[:3]).replace("\n", " ")
    # SQLite reads its WAL up to the first bad frame and drops the rest without a word.
    return wal_damage(path.with_name(path.name + "-wal"))


def _file_id(database: str) -> tuple[int, int] | None:
    """The device and inode of the journal's file (None: none there, or in memory)."""
    try:
        found = os.stat(database)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


def what_to_do(err: BaseException, directory: Path) -> str:
    """What the engineer does about a journal that could not be written, by SQLite's reason."""
    reason = sqlite_reason(err)
    if reason == "SQLITE_FULL":
        return "the card is full: free some space on it"
    if reason.startswith("SQLITE_IOERR"):
        return ("the card fails to write (full, or failing): free some space on it, or put in"
                " another")
    if reason.startswith("SQLITE_BUSY") or reason.startswith("SQLITE_LOCKED"):
        # Another program writing the journal (a copy of it opened by hand, say): nothing
        # is wrong with the card (before, session 93's audit, it was said to be).
        return (f"another program holds the journal in {directory}: close it (another dudo,"
                " a database tool), then act again")
    return (f"{directory} cannot be written: make it the service user's, on a card that is"
            " not read-only")


def _with_wal(path: Path) -> tuple[Path, ...]:
    """The journal file at ``path`` and the files SQLite keeps beside it (WAL, index)."""
    return (path, *(path.with_name(path.name + ending) for ending in ("-wal", "-shm")))


def _remove(paths: list[Path]) -> None:
    """Remove the files (those that are there): what cannot be removed is left, and the
    error being raised says why the journal could not be made."""
    for path in paths:
        with suppress(OSError):
            path.unlink(missing_ok=True)


def checksum(game_id: int, seq: int, body: str) -> str:
    """The checksum kept beside a row: it ties the text to its game and its place."""
    return hashlib.sha256(f"{game_id}:{seq}:{body}".encode()).hexdigest()[:16]


def encode(obj: dict[str, object]) -> str:
    """The one-line JSON text of a header or an action, as the record file has it.

    ValueError when it holds text that cannot be saved (half a character: a lone surrogate).
    """
    text = json.dumps(obj, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        bad = err.object[err.start : err.end]
        raise ValueError(f"{bad!r} is half a character (a lone surrogate), not text") from None
    return text


@dataclass(frozen=True)
class GameSummary:
    """One game of the journal, as the page lists it."""

    id: int
    started: str
    players: list[str]
    rules: str
    finished: bool
    winner: str | None


@dataclass(frozen=True)
class Row:
    """One stored action row; :meth:`problem` says what is wrong with it, if anything."""

    game_id: int
    seq: int
    body: str
    checksum: str

    def problem(self) -> str | None:
        """Why this row cannot be trusted (a bad checksum or JSON), or None when it is sound."""
        if checksum(self.game_id, self.seq, self.body) != self.checksum:
            return "its checksum does not match its text"
        try:
            action = json.loads(self.body)
        except ValueError:
            return "its text is not valid JSON"
        if not isinstance(action, dict):
            return "its text is not a JSON object"
        return None

    def action(self) -> dict[str, object]:
        """The action this row holds (call :meth:`problem` first)."""
        action = json.loads(self.body)
        assert isinstance(action, dict)
        return action


@dataclass(frozen=True)
class KeptReveal:
    """The last reveal the camera read: its game, the game's actions once it was applied
    (``moves``), the reading (JSON text) and its annotated picture (JPEG)."""

    game_id: int
    moves: int
    reading: str
    picture: bytes


@dataclass(frozen=True)
class SavedGame:
    """A game read back from the journal: its header and its action rows in order."""

    id: int
    header: dict[str, object]
    rows: list[Row]
    finished: bool

    def whole(self) -> tuple[int, str | None]:
        """How many rows from the first are sound and in order, and what is wrong with the
        next (:data:`MISSING`: one or more rows before it are), or None when all are."""
        for kept, row in enumerate(self.rows):
            problem = row.problem()
            if problem is None and row.seq != kept + 1:
                problem = MISSING
            if problem is not None:
                return kept, problem
        return len(self.rows), None


class Journal:
    """The SQLite journal of every game.

    ``database`` is a file path, or an SQLite URI when ``uri`` is true (``file:...?mode=ro``
    opens a journal that refuses every write, as a read-only card does). Every method is
    safe to call from any thread. Failures of SQLite are raised as :class:`JournalError`.
    A new journal that cannot be made (a full card) leaves no file behind, for the next start
    to find a new table, not an empty journal it would take for a damaged one; a journal that
    was there is never removed.
    """

    def __init__(self, database: str | Path, *, uri: bool = False) -> None:
        self.database = str(database)
        self._lock = threading.Lock()
        # The files this open makes (a new journal, its WAL and index), removed if it fails:
        # a journal left half made (by a full card) would be taken for a damaged one.
        made = [] if uri or self.database in ("", ":memory:") else [
            path for path in _with_wal(Path(self.database)) if not os.path.lexists(path)]
        try:
            self._db = sqlite3.connect(
                self.database, uri=uri, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as err:
            _remove(made)
            raise JournalError(f"cannot open the journal {self.database}: {err}") from err
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: the WAL is synced at every commit, so an acknowledged action survives
            # a power cut (NORMAL could lose the last commits in WAL mode).
            self._db.execute("PRAGMA synchronous=FULL")
            if not self._has_schema():
                self._db.executescript(_SCHEMA)
            if not uri:
                # SQLite opens a file it may not write (another user's, or on a card made
                # read-only after a power cut) to be read, without a word: a first write
                # says so now, not at the first action.
                (version,) = self._db.execute("PRAGMA user_version").fetchone()
                self._db.execute(f"PRAGMA user_version = {int(version)}")
        except sqlite3.Error as err:
            self._db.close()
            _remove(made)
            kind = DamagedJournal if _damage(err) else JournalError
            raise kind(f"cannot open the journal {self.database}: {err}") from err
        self._file = _file_id(self.database) if not uri else None

    @classmethod
    def in_directory(cls, data_dir: str | Path) -> Journal:
        """Open (or create) the journal in a data directory, creating the directory too."""
        directory = Path(data_dir)
        if directory.exists() and not directory.is_dir():
            raise JournalError(f"cannot create the data directory {directory}: it is a file,"
                               " not a folder")
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise JournalError(f"cannot create the data directory {directory}: {err}") from err
        return cls(directory / DATABASE_NAME)

    def _has_schema(self) -> bool:
        names = {
            row[0]
            for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        return {"games", "actions", "dropped"} <= names

    @property
    def path(self) -> Path:
        """The journal's file (for an SQLite URI, the file it names)."""
        if self.database.startswith("file:"):
            return Path(unquote(urlsplit(self.database).path))
        return Path(self.database)

    @property
    def read_only(self) -> bool:
        """Whether this journal was opened to be read only (``mode=ro``)."""
        return self.database.startswith("file:") and "mode=ro" in self.database

    @contextmanager
    def _write(self, doing: str) -> Iterator[sqlite3.Connection]:
        """:meth:`_guard`, for a write: refused where the journal's file is no longer the
        one opened (its folder removed or moved while the table ran): SQLite would write to
        the file it has open, and what it wrote would be lost at the next start."""
        if self._file is not None and _file_id(self.database) != self._file:
            raise JournalGone(
                f"{doing}: the journal {self.database} was moved or removed while the table"
                " ran: put it back, or start the table again (a new journal, without the"
                " games that were in it)")
        with self._guard(doing) as db:
            yield db

    @contextmanager
    def _guard(self, doing: str) -> Iterator[sqlite3.Connection]:
        """Hold the journal's lock and turn SQLite failures into JournalError."""
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as err:
                # (A journal closed meanwhile, replaced by one that can be written: asking
                # it of its transaction fails too, and the page got a 500, not the reason.)
                with suppress(sqlite3.Error):
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                raise JournalError(f"{doing}: {err}") from err
            except BaseException:
                # Whatever failed, the next write must not find this one's transaction open.
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def start_game(self, header: dict[str, object]) -> int:
        """Store a new game's header; returns the new game's id. The notices kept for the
        players (:meth:`notice`) are said no more, in the same transaction."""
        body = encode(header)
        started = datetime.now(UTC).isoformat(timespec="seconds")
        with self._write("cannot save the new game") as db:
            db.execute("BEGIN IMMEDIATE")
            (game_id,) = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM games").fetchone()
            db.execute(
                "INSERT INTO games (id, started, header, checksum) VALUES (?, ?, ?, ?)",
                (game_id, started, body, checksum(game_id, 0, body)),
            )
            if self._has_notices(db):
                db.execute("DELETE FROM notices")
            db.execute("COMMIT")
        return int(game_id)

    def append(self, game_id: int, seq: int, action: dict[str, object]) -> None:
        """Store one accepted action as row ``seq`` (from 1) of a game, synced to disk."""
        body = encode(action)
        with self._write(f"cannot save action {seq} of game {game_id}") as db:
            db.execute(
                "INSERT INTO actions (game_id, seq, body, checksum) VALUES (?, ?, ?, ?)",
                (game_id, seq, body, checksum(game_id, seq, body)),
            )

    def set_finished(self, game_id: int, winner: str | None) -> None:
        """Mark a game finished with its winner, or unfinished again (winner None, an undo)."""
        with self._write(f"cannot mark game {game_id} finished") as db:
            db.execute(
                "UPDATE games SET finished = ?, winner = ? WHERE id = ?",
                (winner is not None, winner, game_id),
            )

    def latest(self) -> SavedGame | None:
        """The most recent game with all its rows, or None when the journal is empty.

        Raises JournalError when that game's header row is damaged.
        """
        with self._guard("cannot read the journal") as db:
            row = db.execute(
                "SELECT id, header, checksum, finished FROM games ORDER BY id DESC LIMIT 1"
            ).fetchone()
        if row is None:
            return None
        return self._saved_game(*row)

    def game(self, game_id: int) -> SavedGame:
        """One game with all its rows; JournalError if there is no such game."""
        with self._guard("cannot read the journal") as db:
            row = db.execute(
                "SELECT id, header, checksum, finished FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        if row is None:
            raise JournalError(f"no game {game_id} in the journal")
        return self._saved_game(*row)

    def _saved_game(self, game_id: int, body: str, check: str, finished: int) -> SavedGame:
        if checksum(game_id, 0, body) != check:
            raise JournalError(f"the header of game {game_id} is damaged (checksum)")
        try:
            header = json.loads(body)
        except ValueError as err:
            raise JournalError(f"the header of game {game_id} is damaged (JSON)") from err
        with self._guard("cannot read the journal") as db:
            rows = [
                Row(game_id, seq, text, check)
                for seq, text, check in db.execute(
                    "SELECT seq, body, checksum FROM actions WHERE game_id = ? ORDER BY seq",
                    (game_id,),
                )
            ]
        return SavedGame(game_id, header, rows, bool(finished))

    def copy_rows(self, games: list[tuple[Any, ...]], actions: list[tuple[Any, ...]],
                  dropped: list[tuple[Any, ...]], notices: Sequence[tuple[Any, ...]] = ()
                  ) -> None:
        """Store rows as another journal holds them, in one transaction (see
        :mod:`companion.salvage`): ``games`` (id, started, header, checksum, finished,
        winner), ``actions`` (game_id, seq, body, checksum), ``dropped`` (game_id, seq,
        body, checksum, reason, dropped) and ``notices`` (name, message)."""
        with self._write("cannot copy the games") as db:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT OR IGNORE INTO games (id, started, header, checksum,"
                           " finished, winner) VALUES (?, ?, ?, ?, ?, ?)", games)
            db.executemany("INSERT OR IGNORE INTO actions (game_id, seq, body, checksum)"
                           " VALUES (?, ?, ?, ?)", actions)
            db.executemany("INSERT INTO dropped (game_id, seq, body, checksum, reason,"
                           " dropped) VALUES (?, ?, ?, ?, ?, ?)", dropped)
            if notices:
                db.execute(_NOTICES)
                db.executemany("INSERT OR REPLACE INTO notices (name, message) VALUES (?, ?)",
                               notices)
            db.execute("COMMIT")

    def notice(self, name: str) -> str | None:
        """The notice kept under ``name`` for the players (``salvaged``), or None."""
        with self._guard("cannot read the journal") as db:
            if not self._has_notices(db):
                return None
            row = db.execute("SELECT message FROM notices WHERE name = ?", (name,)).fetchone()
        return None if row is None else str(row[0])

    def set_notice(self, name: str, message: str) -> None:
        """Keep a notice for the players under ``name`` across restarts, until a new game."""
        with self._write(f"cannot keep the notice {name!r}") as db:
            db.execute(_NOTICES)
            db.execute("INSERT OR REPLACE INTO notices (name, message) VALUES (?, ?)",
                       (name, message))

    @staticmethod
    def _has_notices(db: sqlite3.Connection) -> bool:
        # A journal from before session 47, or read-only, may have no such table.
        return _has_table(db, "notices")

    def keep_reveal(self, reveal: KeptReveal) -> None:
        """Keep the last reveal the camera read across restarts, in place of the one before."""
        with self._write("cannot keep the reveal's picture") as db:
            db.execute(_LAST_REVEAL)
            db.execute("INSERT OR REPLACE INTO last_reveal (one, game_id, moves, reading, picture)"
                       " VALUES (1, ?, ?, ?, ?)",
                       (reveal.game_id, reveal.moves, reveal.reading, reveal.picture))

    def kept_reveal(self) -> KeptReveal | None:
        """The last reveal kept by :meth:`keep_reveal`, or None."""
        with self._guard("cannot read the journal") as db:
            if not _has_table(db, "last_reveal"):  # a journal from before session 52
                return None
            row = db.execute("SELECT game_id, moves, reading, picture FROM last_reveal"
                             ).fetchone()
        return None if row is None else KeptReveal(int(row[0]), int(row[1]), str(row[2]),
                                                   bytes(row[3]))

    def drop(self, row: Row, reason: str) -> None:
        """Move a row out of its game into the ``dropped`` table (kept there, not lost)."""
        self.set_aside([(row, reason)])

    def set_aside(self, rows: list[tuple[Row, str]], notice: tuple[str, str] | None = None
                  ) -> None:
        """Move rows out of their game into the ``dropped`` table, each with its reason, with
        the reveal kept of one of them (:meth:`keep_reveal`), and keep ``notice`` (name,
        message: see :meth:`notice`), in one transaction: a power cut keeps all or none."""
        for row, reason in rows:
            logger.warning("journal: row %d of game %d moved aside (%s): %r",
                           row.seq, row.game_id, reason, row.body[:200])
        dropped = datetime.now(UTC).isoformat(timespec="seconds")
        first = rows[0][0]
        with self._write(f"cannot set aside row {first.seq} of game {first.game_id}") as db:
            db.execute("BEGIN IMMEDIATE")
            for row, reason in rows:
                db.execute(
                    "INSERT INTO dropped (game_id, seq, body, checksum, reason, dropped)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (row.game_id, row.seq, row.body, row.checksum, reason, dropped),
                )
                db.execute("DELETE FROM actions WHERE game_id = ? AND seq = ?",
                           (row.game_id, row.seq))
            if _has_table(db, "last_reveal"):
                # A reveal kept of a move set aside, or missing (before, session 92's audit, a
                # missing reveal's came back once the players had entered it again), is none
                # of the game's: kept of a move beyond those the game still has.
                db.execute("DELETE FROM last_reveal WHERE game_id = ? AND moves > (SELECT"
                           " COALESCE(MAX(seq), 0) FROM actions WHERE game_id = ?)",
                           (first.game_id, first.game_id))
            if notice is not None:
                db.execute(_NOTICES)
                db.execute("INSERT OR REPLACE INTO notices (name, message) VALUES (?, ?)", notice)
            db.execute("COMMIT")

    def games(self, limit: int | None = None, before: int | None = None) -> list[GameSummary]:
        """The games, newest first: every one, or at most ``limit`` of those whose id is
        below ``before``."""
        query = "SELECT id, started, header, finished, winner FROM games"
        params: list[int] = []
        if before is not None:
            query += " WHERE id < ?"
            params.append(before)
        query += " ORDER BY id DESC"
        if limit is not None:
            query += " LIMIT ?"
            params.append(limit)
        with self._guard("cannot read the journal") as db:
            rows = db.execute(query, params).fetchall()
        summaries = []
        for game_id, started, body, finished, winner in rows:
            try:
                header = json.loads(body)
            except ValueError:
                header = {}
            summaries.append(
                GameSummary(
                    id=game_id,
                    started=started,
                    players=[str(p) for p in header.get("players", [])],
                    rules=str(header.get("rules", "perudo")),
                    finished=bool(finished),
                    winner=winner,
                )
            )
        return summaries

    def record(self, game_id: int) -> str:
        """The game's record: JSON Lines, the header then each action, as `dudo replay` reads.

        Raises JournalError for an unknown game, or one with a damaged or missing row (its
        record would not replay, or would replay another game).
        """
        saved = self.game(game_id)
        whole, problem = saved.whole()
        if problem is not None:
            what = (f"row {whole + 1} is missing" if problem == MISSING else
                    f"row {saved.rows[whole].seq} of {len(saved.rows)} is damaged ({problem})")
            raise JournalError(f"game {game_id}'s record cannot be given: {what}; the journal is"
                               " kept as it is")
        lines = [encode(saved.header)] + [row.body for row in saved.rows]
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        """Close the database (a clean close also folds the WAL back into the file)."""
        with self._lock:
            self._db.close()
