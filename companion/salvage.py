"""A damaged journal set aside, and a new one put in its place with what can be read of it.

A card that fails, or a file cut short or written over, leaves a journal SQLite calls
damaged: the table could neither resume from it nor write to it for long. At start (see
:func:`companion.journal.damage`) every game whose rows can still be read is copied into a
new file beside it, ``journal.sqlite3.salvaging``, each game up to its first row that
cannot be, renamed ``journal.sqlite3.salvaged`` once complete; only then is the damaged file
renamed ``journal.sqlite3.damaged-STAMP`` with its WAL, kept as it was for whoever mends it by
hand, and the new file takes its name. Cut off at any moment (a power cut, systemd's start
timeout), the next start finds either no complete new journal (and salvages the damaged one
again) or a complete one (and puts it in place). The resume then checks every row's
checksum as always.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.journal import Journal

# A WAL and its index belong to their database by name: they move with it.
_BESIDE = ("-wal", "-shm")
# Tries to read on past a damaged stretch of rows, a stride twice the last each time.
_SKIPS = 40

_GAMES = "SELECT id, started, header, checksum, finished, winner FROM games"
_ACTIONS = "SELECT game_id, seq, body, checksum FROM actions"


@dataclass(frozen=True)
class Salvaged:
    """What a salvage took: ``games`` copied, ``cut`` of them stopped at a row that could not
    be read (rows lost at a game's end cannot be told from none), and ``headless``: games
    whose actions were read but not their header, left in the damaged file."""

    games: int = 0
    cut: int = 0
    headless: int = 0

    def __str__(self) -> str:
        left = (f"; {self.headless} game{'' if self.headless == 1 else 's'} whose first line"
                " could not be read stay in it") if self.headless else ""
        if not self.games:
            return "no game: none could be read from it" + left
        cut = f" ({self.cut} stop at a damaged row)" if self.cut else ""
        return (f"the {self.games} game{'' if self.games == 1 else 's'} read from it, as much"
                f" of each as could be read{cut}{left}")


def mend(path: Path) -> str:
    """Put in place of the damaged journal at ``path`` a new one holding what can be read
    of it, the damaged one kept beside it; what to tell the players. OSError, JournalError
    or sqlite3.Error when that cannot be done now (the card full): nothing is renamed then.
    """
    new = _salvaging(path)
    _remove(new)  # a salvage cut off before it was complete
    journal = Journal(new)
    try:
        salvaged = salvage(path, journal)
    except BaseException:
        journal.close()
        _remove(new)  # never taken for complete at the next start
        raise
    journal.close()  # a clean close folds the WAL in: one file
    if any(new.with_name(new.name + e).exists() for e in _BESIDE):
        raise OSError(f"{new}: its WAL could not be folded into it (the card full?)")
    new.replace(_salvaged(path))  # complete: the next start finishes from here
    return (f"the journal was damaged (the card?): {_put_in_place(path)}; a new one"
            f" holds {salvaged}")


def finish(path: Path) -> str | None:
    """A salvage cut off once its new journal was complete, before that took the damaged
    one's place: finished now; what to tell the players (None: there was none; one cut off
    before it was complete is done again, as the journal is still found damaged)."""
    if not _salvaged(path).is_file():
        return None
    return (f"the journal was damaged (the card?): {_put_in_place(path)}; a new one holds"
            " what could be read of it")


def _salvaging(path: Path) -> Path:
    """Where a salvage writes its new journal."""
    return path.with_name(path.name + ".salvaging")


def _salvaged(path: Path) -> Path:
    """The new journal once complete, until it takes the damaged one's place."""
    return path.with_name(path.name + ".salvaged")


def _remove(new: Path) -> None:
    for part in (new, *(new.with_name(new.name + e) for e in _BESIDE)):
        part.unlink(missing_ok=True)


def _put_in_place(path: Path) -> str:
    """Set aside what of the damaged journal is still at ``path`` and put the complete new
    one there; where the damaged one is kept."""
    if path.exists():
        kept: Path | None = set_aside(path)
    else:  # set aside already, by the salvage cut off
        kept = max((p for p in path.parent.glob(f"{path.name}.damaged-*")
                    if not p.name.endswith(_BESIDE)), key=lambda p: p.stat().st_mtime,
                   default=None)
    _salvaged(path).replace(path)
    return f"it is kept as {kept}" if kept else "it could not be found to keep"


def set_aside(path: Path) -> Path:
    """Rename the journal at ``path`` and its WAL to ``NAME.damaged-STAMP``; the new name.

    The WAL moves first: a WAL left behind a fresh database would be read into it.
    """
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    kept = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while kept.exists():
        n += 1
        kept = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    for ending in _BESIDE:
        beside = path.with_name(path.name + ending)
        if beside.exists():
            beside.rename(kept.with_name(kept.name + ending))
    path.rename(kept)
    return kept


def salvage(damaged: Path, into: Journal) -> Salvaged:
    """Copy into ``into``, in one transaction, each game of the ``damaged`` journal whose
    header can be read, its actions up to the first that cannot (a game cut there is as it
    stood then), and the rows it had set aside.

    Each table is read from both ends, on past damaged stretches, and the actions through
    their index too: a damaged page of rows or of an index loses only what lies there.
    """
    games: dict[int, tuple[Any, ...]] = {}
    actions: dict[tuple[int, int], tuple[Any, ...]] = {}
    dropped: dict[int, tuple[Any, ...]] = {}
    try:
        source = sqlite3.connect(f"file:{damaged}?mode=ro", uri=True)
    except sqlite3.Error:
        return Salvaged()
    with closing(source):
        by_id: Callable[[tuple[Any, ...]], Any] = lambda row: int(row[0])  # noqa: E731
        by_seq: Callable[[tuple[Any, ...]], Any] = lambda row: (int(row[0]), int(row[1]))  # noqa: E731
        _read(source, f"{_GAMES} ORDER BY id DESC", games, by_id)
        _scan(source, _GAMES, games, by_id)
        _read(source, f"{_ACTIONS} ORDER BY game_id, seq", actions, by_seq)
        _read(source, f"{_ACTIONS} NOT INDEXED ORDER BY rowid DESC", actions, by_seq)
        _scan(source, _ACTIONS, actions, by_seq)
        _scan(source, "SELECT rowid, game_id, seq, body, checksum, reason, dropped"
              " FROM dropped", dropped, by_id, rowid_first=True)
    last: dict[int, int] = {}
    for game_id, seq in actions:
        last[game_id] = max(seq, last.get(game_id, 0))
    kept_rows: list[tuple[Any, ...]] = []
    cut = 0
    for game_id in games:
        seq = 1
        while (game_id, seq) in actions:
            kept_rows.append(actions[game_id, seq])
            seq += 1
        cut += last.get(game_id, 0) >= seq
    into.copy_rows(list(games.values()), kept_rows, [row[1:] for row in dropped.values()])
    return Salvaged(len(games), cut, len(last.keys() - games.keys()))


def _read(source: sqlite3.Connection, query: str, into: dict[Any, tuple[Any, ...]],
          key: Callable[[tuple[Any, ...]], Any]) -> None:
    """The rows ``query`` gives until SQLite meets the damage (or to the end)."""
    try:
        for row in source.execute(query):
            into.setdefault(key(row), row)
    except (sqlite3.Error, ValueError, TypeError):
        pass


def _scan(source: sqlite3.Connection, query: str,
          into: dict[Any, tuple[Any, ...]], key: Callable[[tuple[Any, ...]], Any],
          *, rowid_first: bool = False) -> None:
    """``query``'s rows (of one table) in the order they are stored, read on past each
    damaged stretch: from a row id a little further each time the last read failed."""
    select = query if rowid_first else query.replace("SELECT ", "SELECT rowid, ", 1)
    after, stride = -1, 1
    for _ in range(_SKIPS):
        try:
            for row in source.execute(f"{select} NOT INDEXED WHERE rowid > ? ORDER BY rowid",
                                      (after,)):
                after, stride = int(row[0]), 1
                into.setdefault(key(row if rowid_first else row[1:]), row if rowid_first
                                else row[1:])
            return
        except (sqlite3.Error, ValueError, TypeError):
            after, stride = after + stride, stride * 2
