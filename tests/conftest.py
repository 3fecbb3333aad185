"""Fixtures shared by the table and web tests: a real journal in a temporary data directory
and the real Table over it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.journal import Journal
from companion.table import Table


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
