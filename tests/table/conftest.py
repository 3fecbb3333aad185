"""Fixtures for the table tests: a journal in a temporary data directory, a table on it."""

from __future__ import annotations

import sqlite3
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


def card_full_for(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """From now on, a journal file called ``name`` cannot be made: SQLite makes the file, then
    finds the card full (SQLITE_FULL) as it writes the journal's first page."""

    class FullCard(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
            if sql.startswith("PRAGMA journal_mode"):
                full = sqlite3.OperationalError("database or disk is full")
                full.sqlite_errorcode = sqlite3.SQLITE_FULL
                full.sqlite_errorname = "SQLITE_FULL"
                raise full
            return super().execute(sql, *args)

    connect = sqlite3.connect

    def connect_on_a_full_card(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if Path(str(database)).name == name:
            kwargs["factory"] = FullCard
        return connect(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", connect_on_a_full_card)
