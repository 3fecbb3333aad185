"""A damaged journal set aside, and what can still be read of it taken into a new one.

A card that fails, or a file cut short or written over, leaves a journal SQLite calls
malformed: the table could neither resume from it nor write to it. At start the damaged file
(and its WAL) is renamed ``journal.sqlite3.damaged-STAMP``, kept whole for whoever mends it by
hand, and every game whose rows can still be read is copied into a new journal, each up to
its first row that cannot be; the resume then checks every row's checksum as always.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable
from contextlib import closing, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.journal import Journal

# A WAL and its index belong to their database by name: they move with it.
_BESIDE = ("-wal", "-shm")


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


def salvage(kept: Path, into: Journal) -> Salvaged:
    """Copy into ``into`` each game of the damaged journal ``kept`` that can still be read,
    its actions up to the first that cannot (a game cut there is as it stood then).

    Each table is read from both ends, and the actions through their index and past it, so
    that a damaged page of rows or of the index loses only what lies there.
    """
    games: dict[int, tuple[Any, ...]] = {}
    actions: dict[tuple[int, int], tuple[Any, ...]] = {}
    try:
        source = sqlite3.connect(f"file:{kept}?mode=ro", uri=True)
    except sqlite3.Error:
        return Salvaged()
    with closing(source):
        for query in ("SELECT id, started, header, checksum, finished, winner FROM games"
                      " ORDER BY id",
                      "SELECT id, started, header, checksum, finished, winner FROM games"
                      " ORDER BY id DESC"):
            _read(source, query, games, lambda row: int(row[0]))
        for query in ("SELECT game_id, seq, body, checksum FROM actions ORDER BY game_id, seq",
                      "SELECT game_id, seq, body, checksum FROM actions NOT INDEXED"
                      " ORDER BY rowid",
                      "SELECT game_id, seq, body, checksum FROM actions NOT INDEXED"
                      " ORDER BY rowid DESC"):
            _read(source, query, actions, lambda row: (int(row[0]), int(row[1])))
    cut = 0
    for game_id, game in sorted(games.items()):
        rows = []
        for seq in itertools.count(1):
            row = actions.get((game_id, seq))
            if row is None:
                break
            rows.append(row)
        into.copy_game(game, rows)
        cut += any(g == game_id and seq > len(rows) for g, seq in actions)
    return Salvaged(len(games), cut)


@dataclass(frozen=True)
class Salvaged:
    """What a salvage took: ``games`` copied, ``cut`` of them stopped at a row that could not
    be read (rows lost at a game's end cannot be told from none)."""

    games: int = 0
    cut: int = 0

    def __str__(self) -> str:
        if not self.games:
            return "no game, none could be read from it"
        cut = f" ({self.cut} stop at a damaged row)" if self.cut else ""
        return (f"the {self.games} game{'' if self.games == 1 else 's'} read from it, as much"
                f" of each as could be read{cut}")


def _read(source: sqlite3.Connection, query: str, into: dict[Any, tuple[Any, ...]],
          key: Callable[[tuple[Any, ...]], Any]) -> None:
    """The rows ``query`` gives until SQLite meets the damage (or to the end)."""
    with suppress(sqlite3.Error, ValueError, TypeError):
        for row in source.execute(query):
            into.setdefault(key(row), row)
