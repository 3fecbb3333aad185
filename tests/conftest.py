"""Fixtures shared by the table and web tests: a real journal in a temporary data directory
and the real Table over it; and the environment every test's commands run in."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.journal import Journal
from companion.table import Table

# The commands the tests run see a player's machine: their output buffered, as Python's
# default (a CI machine may set PYTHONUNBUFFERED, under which an output that cannot be written
# fails sooner, and a failure at exit never shows).
os.environ.pop("PYTHONUNBUFFERED", None)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--reverse", action="store_true",
                     help="run the tests in reverse order (a test that passes only after "
                          "others, on what they left, then fails)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--reverse"):
        items.reverse()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def journal(data_dir: Path) -> Iterator[Journal]:
    journal = Journal.in_directory(data_dir)
    yield journal
    journal.close()


@pytest.fixture
def table(journal: Journal) -> Iterator[Table]:
    table = Table(journal=journal)
    yield table
    table.close()
