"""Fixtures of the web tests: a real Table (journal in a temp dir), the app, its client."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.table import Table
from companion.web import create_app

PIN = "2468"
PLAYERS = ["Ana", "Ben", "Caro", "Dan"]
HEADER: dict[str, Any] = {
    "game": "dudo-record/1",
    "rules": "perudo",
    "options": {"exact_call": "calza"},
    "players": PLAYERS,
    "first": "Ana",
}


@pytest.fixture
def app(table: Table) -> Flask:
    return create_app(table, {"TABLE_PIN": PIN, "TESTING": True})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def pin() -> dict[str, str]:
    """The header that gives control without a cookie session."""
    return {"X-Table-Pin": PIN}


@pytest.fixture
def game(client: FlaskClient, pin: dict[str, str]) -> dict[str, Any]:
    """A started four-player game; returns the state after it started."""
    response = client.post("/api/game", json=HEADER, headers=pin)
    assert response.status_code == 201, response.get_json()
    state: dict[str, Any] = response.get_json()["state"]
    return state
