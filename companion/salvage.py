"""A damaged journal set aside, and a new one put in its place with what can be read of it.

A card that fails, or a file cut short or written over, leaves a journal SQLite calls
damaged: the table could neither resume from it nor write to it for long. At start (see
:func:`companion.journal.damage`) every game whose rows can still be read is copied into a
new file beside it, ``journal.sqlite3.salvaging``, each game up to its first row that
cannot be, renamed ``journal.sqlite3.salvaged`` once complete; only then is the damaged file
renamed ``journal.sqlite3.damaged-STAMP`` with its WAL, kept as it was for whoever mends it by
hand, and the new file takes its name. That name is chosen first, never one already taken,
and kept in the new journal: its notice names that file, whatever the clock said since. Cut
off at any moment (a power cut, systemd's start timeout), the next start finds either no
complete new journal (and salvages the damaged one again) or a complete one (and puts it in
place, the damaged one set aside under the name it keeps). The resume then checks every
row's checksum as always.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.journal import Journal, JournalError

# A WAL and its index belong to their database by name: they move with it.
_BESIDE = ("-wal", "-shm")
# Where the table's last row id cannot be read: the ids looked at one by one past a damaged
# stretch, at most, and in a row without finding one.
_MOST_IDS = 1_000_000
_MOST_MISSES = 10_000
# Rows read a query while no damage is met.
_CHUNK = 256

# The journal's notice of a salvage, kept in the new journal (:meth:`Journal.notice`), and
# the name the damaged one was set aside under, beside it.
NOTICE = "salvaged"
KEPT = "salvaged: kept as"

_GAMES = "SELECT id, started, header, checksum, finished, winner FROM games"
_ACTIONS = "SELECT game_id, seq, body, checksum FROM actions"


@dataclass(frozen=True)
class Salvaged:
    """What a salvage took: ``games`` copied, ``cut`` of them stopped at a row that could not
    be read (rows lost at a game's end cannot be told from none), and ``headless``: games
    whose first line could not be read (their actions are set aside)."""

    games: int = 0
    cut: int = 0
    headless: int = 0

    def __str__(self) -> str:
        left = (f"; {self.headless} game{'' if self.headless == 1 else 's'} whose first line"
                " could not be read") if self.headless else ""
        if not self.games:
            return "no game: none could be read from it" + left
        cut = (f" ({self.cut} stop at a damaged row; the rows read past it are kept aside in"
               " the new journal)") if self.cut else ""
        return (f"the {self.games} game{'' if self.games == 1 else 's'} read from it, each up"
                f" to its first damaged row{cut}{left}")


def mend(path: Path) -> None:
    """Put in place of the damaged journal at ``path`` a new one holding what can be read
    of it, the damaged one kept beside it; the new one keeps the players' notice of it
    (:func:`notice`) until a new game. OSError, JournalError or sqlite3.Error when that
    cannot be done now (the card full): nothing is renamed then.
    """
    # Named now, to be kept in the new journal: a Pi without a clock of its own starts at an
    # old time until the network sets it, and a name found later by its stamp could be another.
    kept = _free_name(path)
    new = _salvaging(path)
    _remove(new)  # a salvage cut off before it was complete
    journal = Journal(new)
    try:
        salvaged = salvage(path, journal)
        journal.set_notice(KEPT, kept.name)  # both complete with the file
        journal.set_notice(NOTICE, f"a new one holds {salvaged}")
    except BaseException:
        journal.close()
        _remove(new)  # never taken for complete at the next start
        raise
    journal.close()  # a clean close folds the WAL in: one file
    if any(new.with_name(new.name + e).exists() for e in _BESIDE):
        raise OSError(f"{new}: its WAL could not be folded into it (the card full?)")
    new.replace(_salvaged(path))  # complete: the next start finishes from here
    _put_in_place(path)


def finish(path: Path) -> bool:
    """Finish a salvage cut off once its new journal was complete, before that took the
    damaged one's place; whether there was one (one cut off before it was complete is done
    again, as the journal is still found damaged)."""
    if not _salvaged(path).is_file():
        return False
    _put_in_place(path)
    return True


def notice(path: Path, journal: Journal) -> str | None:
    """What the players are told of the salvage that made ``journal``, the one at ``path``
    (None: no salvage since its last new game): where the damaged one is kept, and what the
    new one holds. JournalError if it cannot be read."""
    held = journal.notice(NOTICE)
    if held is None:
        return None
    name = journal.notice(KEPT)
    if name is not None:
        kept: Path | None = path.with_name(name)
    else:  # salvaged before the name was kept (up to session 52): the last by name
        kept = max((p for p in path.parent.glob(f"{path.name}.damaged-*")
                    if not p.name.endswith(_BESIDE)), key=lambda p: p.name, default=None)
    # Set aside before the new one took its place, it is gone only if moved since.
    where = (f"it is kept as {kept}" if kept is not None and kept.exists() else
             f"it was kept beside it as {name or f'{path.name}.damaged-...'}, moved or"
             " removed since")
    return f"the journal was damaged (the card?): {where}; {held}"


def _salvaging(path: Path) -> Path:
    """Where a salvage writes its new journal."""
    return path.with_name(path.name + ".salvaging")


def _salvaged(path: Path) -> Path:
    """The new journal once complete, until it takes the damaged one's place."""
    return path.with_name(path.name + ".salvaged")


def _remove(new: Path) -> None:
    for part in (new, *(new.with_name(new.name + e) for e in _BESIDE)):
        part.unlink(missing_ok=True)


def _put_in_place(path: Path) -> None:
    """Set aside what of the damaged journal is still at ``path`` (none: set aside already,
    by the salvage cut off) under the name the complete new one keeps, and put that one
    there."""
    if path.exists():
        set_aside(path, _kept_as(path))
    _salvaged(path).replace(path)


def _kept_as(path: Path) -> Path | None:
    """The name the complete new journal of ``path`` keeps for the damaged one (None: made
    before the name was kept, or unreadable)."""
    uri = f"{_salvaged(path).absolute().as_uri()}?mode=ro&immutable=1"  # nothing made beside
    try:
        journal = Journal(uri, uri=True)
    except JournalError:
        return None
    try:
        name = journal.notice(KEPT)
    except JournalError:
        return None
    finally:
        journal.close()
    return None if name is None else path.with_name(name)


def set_aside(path: Path, kept: Path | None = None) -> Path:
    """Rename the journal at ``path`` and its WAL to ``kept`` (None: ``NAME.damaged-STAMP``,
    a name not taken); the new name.

    The WAL moves first: a WAL left behind a fresh database would be read into it.
    """
    # A WAL moved by a set-aside cut off before its file: the file joins it under its name.
    orphans = [p.with_name(p.name.removesuffix("-wal"))
               for p in path.parent.glob(f"{path.name}.damaged-*-wal")]
    if kept is not None and kept.exists():
        kept = None  # taken since it was chosen (by hand?): never written over
    kept = kept or next((p for p in orphans if not p.exists()), None) or _free_name(path)
    for ending in _BESIDE:
        beside = path.with_name(path.name + ending)
        if beside.exists():
            beside.rename(kept.with_name(kept.name + ending))
    path.rename(kept)
    return kept


def _free_name(path: Path) -> Path:
    """``NAME.damaged-STAMP`` (``-2``, ``-3``... after it if taken), its WAL's name free too."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    kept, n = path.with_name(f"{path.name}.damaged-{stamp}"), 1
    while any(kept.with_name(kept.name + e).exists() for e in ("", *_BESIDE)):
        n += 1
        kept = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    return kept


def salvage(damaged: Path, into: Journal) -> Salvaged:
    """Copy into ``into``, in one transaction, each game of the ``damaged`` journal whose
    first line can be read, its actions up to the first that cannot (a game cut there is as
    it stood then); every other row that can be read (past a game's damaged row, of a game
    whose first line cannot be read, set aside before) goes to its set-aside rows.

    Each table is read row by row in the order it is stored, every row on its own (a read
    that met the damage would lose the row before it), on past each damaged stretch.
    """
    try:
        if damaged.stat().st_size == 0:
            # Nothing to read, and SQLite opening an empty file deletes the WAL beside it, even
            # read-only (session 93's audit): kept as it was, for whoever mends it by hand.
            return Salvaged()
        source = sqlite3.connect(f"{damaged.absolute().as_uri()}?mode=ro", uri=True)
        # A file cut short (a card's last writes lost) has its tables' or indexes' pages
        # past its end, and SQLite then finds its schema malformed and reads no row at all:
        # so told, it reads every row on the pages left.
        source.execute("PRAGMA writable_schema = ON")
    except (OSError, sqlite3.Error):
        return Salvaged()
    with closing(source):
        games = {row[0]: row for row in _rows(source, "games", _GAMES, _games_whole)}
        actions = {(row[0], row[1]): row
                   for row in _rows(source, "actions", _ACTIONS, _rows_whole)}
        before = _rows(source, "dropped", _DROPPED, _rows_whole)
        # What the players were told and not yet done with (actions a resume set aside):
        # told still, if its game still has the moves it was told at.
        notices = _rows(source, "notices", _NOTICES) if _has(source, "notices") else []
    now = datetime.now(UTC).isoformat(timespec="seconds")
    kept: list[tuple[Any, ...]] = []
    set_aside_now: list[tuple[Any, ...]] = []
    for game_id in games:
        seq = 1
        while (game_id, seq) in actions:
            kept.append(actions.pop((game_id, seq)))
            seq += 1
    # What is left are rows past a game's damaged row, and those of games without a header.
    left = {game_id for game_id, _ in actions}
    cut = len(left & games.keys())
    for (game_id, _), row in sorted(actions.items()):
        why = (_PAST_DAMAGE if game_id in games else _NO_FIRST_LINE)
        set_aside_now.append((*row, why, now))
    into.copy_rows(list(games.values()), kept, before + set_aside_now, notices)
    return Salvaged(len(games), cut, len(left - games.keys()))


# Why a salvage set a readable row aside (the journal's ``dropped`` table keeps it).
_PAST_DAMAGE = "salvage: after a row of its game that could not be read"
_NO_FIRST_LINE = "salvage: its game's first line could not be read"
_DROPPED = "SELECT game_id, seq, body, checksum, reason, dropped FROM dropped"
_NOTICES = "SELECT name, message FROM notices"


def _has(source: sqlite3.Connection, table: str) -> bool:
    """Whether ``source`` has ``table`` (a journal from before it was made: none)."""
    try:
        return source.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                              (table,)).fetchone() is not None
    except sqlite3.Error:
        return False


def _rows(
    source: sqlite3.Connection, table: str, select: str,
    whole: Callable[[tuple[Any, ...]], bool] = lambda row: None not in row,
) -> list[tuple[Any, ...]]:
    """Every row of ``table`` that can be read, in the order it is stored, and is ``whole``.

    Read a few hundred rows a query; where one meets the damage, one row a query up to it
    (Python's sqlite3 reads a row ahead: a read that meets the damage loses the row before
    it); past the row id where the damage starts, each next id on its own, until the rows
    go on or the table's last row id is passed.
    """
    try:
        (last,) = source.execute(f"SELECT max(rowid) FROM {table}").fetchone()
    except sqlite3.Error:
        last = None
    known = last is not None
    last = _MOST_IDS if last is None else int(last)
    rows: list[tuple[Any, ...]] = []
    after = misses = 0
    numbered = f"{select.replace('SELECT ', 'SELECT rowid, ', 1)} NOT INDEXED WHERE rowid"
    ahead = f"{numbered} > ?"
    while after < last and (known or misses < _MOST_MISSES):
        with suppress(sqlite3.Error):
            many = source.execute(f"{ahead} ORDER BY rowid LIMIT {_CHUNK}", (after,)).fetchall()
            # Read past a file's end where its last pages were lost, SQLite gives rows of id 0
            # and nothing in them: no row, and no step back (before, session 93's audit, the
            # table was read again and again until the memory ran out).
            onward = _onward(many, after)
            if onward is None:
                break
            rows.extend(tuple(row[1:]) for row in many if row[0] and whole(row[1:]))
            after, misses = onward, 0
            continue
        try:
            found = source.execute(f"{ahead} ORDER BY rowid LIMIT 1", (after,)).fetchone()
        except sqlite3.Error:
            after += 1  # the damage lies ahead: that id alone, then the next
            misses += 1
            with suppress(sqlite3.Error):
                found = source.execute(f"{numbered} = ?", (after,)).fetchone()
                if found is not None and whole(found[1:]):
                    rows.append(tuple(found[1:]))
            continue
        if found is None:
            break
        onward = _onward([found], after)
        if onward is None:  # out of order or empty: the damage, stepped past
            after += 1
            misses += 1
            continue
        after, misses = onward, 0
        if whole(found[1:]):
            rows.append(tuple(found[1:]))
    return rows


def _onward(rows: list[Any], after: int) -> int | None:
    """The row id to read on from after these rows (each its row id first): the last one's,
    or where a damaged page put it out of order, the largest; None where none lies past
    ``after``. Past a file's end SQLite gives rows of id 0 holding nothing: before, session
    93's audit, the salvage went back to the table's start for them, again and again, until
    the memory ran out."""
    ids = [row[0] for row in rows if type(row[0]) is int]
    if ids and ids[-1] > after:
        return int(ids[-1])
    return max((i for i in ids if i > after), default=None)


def _games_whole(row: tuple[Any, ...]) -> bool:
    """Whether a row read from ``games`` can be a game's first line: its id a whole number,
    and nothing missing that the journal must hold (the winner may be)."""
    return type(row[0]) is int and row[0] >= 1 and None not in row[:5]


def _rows_whole(row: tuple[Any, ...]) -> bool:
    """Whether a row read from ``actions`` or ``dropped`` can be kept: its game and place
    whole numbers, and nothing missing (random bytes on a page read as text, or null: before,
    session 93's audit, one such row stopped every start with a traceback); ids from 1 (a file
    cut short reads rows of zeros)."""
    return (type(row[0]) is int and type(row[1]) is int and row[0] >= 1 and row[1] >= 1
            and None not in row)
