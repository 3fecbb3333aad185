"""Fixtures for the table tests: a journal in a temporary data directory, a table on it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.table import Table, TableEvent

HEADER: dict[str, Any] = {
    "game": "dudo-record/1",
    "rules": "perudo",
    "players": ["Ana", "Ben", "Caro"],
}
# A short game: Ana bids, Ben doubts, the dice show the bid stands.
OPENING = [
    {"action": "bid", "player": "Ana", "quantity": 3, "face": 4},
    {"action": "dudo", "player": "Ben"},
    {
        "action": "reveal",
        "dice": {"Ana": [1, 4, 4, 5, 6], "Ben": [2, 3, 3, 6, 6], "Caro": [1, 1, 2, 5, 6]},
    },
]


@pytest.fixture
def header() -> dict[str, Any]:
    """A fresh copy of the three-player perudo header."""
    return {**HEADER, "players": list(HEADER["players"])}


@pytest.fixture
def opening() -> list[dict[str, Any]]:
    """A fresh copy of the first round: bid, dudo, reveal."""
    return [dict(action) for action in OPENING]


class Heard:
    """Every event a table subscriber heard, in order."""

    def __init__(self, table: Table) -> None:
        self.events: list[TableEvent] = []
        table.subscribe(self.events.append)

    @property
    def kinds(self) -> list[str]:
        return [event.kind for event in self.events]


@pytest.fixture
def heard(table: Table) -> Heard:
    """What the table's subscribers hear from now on."""
    return Heard(table)


def _play(table: Table, actions: list[dict[str, Any]]) -> None:
    for action in actions:
        outcome = table.submit(action)
        assert outcome.ok, f"{action}: {outcome.error}"


@pytest.fixture
def play() -> Any:
    """``play(table, actions)``: submit actions that must all be accepted."""
    return _play


def write_over(journal: Path, page: int) -> None:
    """Write over one page of a journal file (4 KiB, counted from 1), as a failing card does."""
    with journal.open("r+b") as f:
        f.seek((page - 1) * 4096)
        f.write(b"\x5a" * 4096)
