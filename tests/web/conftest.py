"""Fixtures of the web tests: a real Table (journal in a temp dir), the app, its client."""

from __future__ import annotations

import threading
from collections.abc import Callable
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


def run_in_a_thread(page: Any) -> Callable[[], None]:
    """Run waitress's loop for ``page`` in a thread of its own, round by round as
    ``page.run()`` does; the function returned stops it there and lets go of the port and
    the threads. The loop's sockets and its trigger's pipe are closed once the loop has
    ended, not from the loop: closed from another thread while it runs, its select met a
    closed socket (CI saw "Bad file descriptor" in the thread); closed by the loop as it saw
    the stop, the pipe could be gone before the stop pulled the trigger to wake it (CI once
    saw that "Bad file descriptor", as a test ended)."""
    from companion.web import server

    stopping = threading.Event()

    def run() -> None:
        while page._map and not stopping.is_set():
            poll = page.asyncore.poll2 if page.adj.asyncore_use_poll else page.asyncore.poll
            poll(page.adj.asyncore_loop_timeout, page._map)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def stop() -> None:
        stopping.set()
        page.trigger.pull_trigger()  # woken at once, not at the end of its round
        thread.join(5)
        # Closed while the loop still ran, its select would meet closed sockets.
        assert not thread.is_alive(), "waitress's loop did not stop within 5 s"
        page.asyncore.close_all(page._map)
        server.close(page)

    return stop
