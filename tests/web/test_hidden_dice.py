"""Before a reveal nothing the page serves may depend on the dice under the cups.

The simulated cups know every hidden die. Two tables play the same actions with different
seeds (so different dice under the cups): every response before the call is the same on
both, and no player's dice appear in any of them. After the call the picture and the
reading are served.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from companion.config import load_config
from companion.serve import Companion, build
from companion.web import create_app
from tests.web.conftest import HEADER, PIN

BIDS = [
    {"action": "bid", "player": "Ana", "quantity": 3, "face": 4},
    {"action": "bid", "player": "Ben", "quantity": 4, "face": 4},
    {"action": "bid", "player": "Caro", "quantity": 4, "face": 6},
]
PUBLIC_GETS = ["/", "/api/state", "/api/bids", "/api/record", "/api/history", "/api/games",
               "/api/session", "/api/rules"]


@pytest.fixture
def sim_tables(tmp_path: Path) -> Iterator[list[Companion]]:
    with ExitStack() as stack:
        tables = [
            build(load_config(data=tmp_path / f"seed{seed}"), sim=True, seed=seed, stack=stack)
            for seed in (1, 2)
        ]
        yield tables


def normalise(body: str) -> str:
    # Per-session and per-clock values differ between any two tables, dice or not.
    body = re.sub(r'content="[A-Za-z0-9_-]{20,}"', 'content="TOKEN"', body)
    body = re.sub(r'"csrf": ?"[^"]+"', '"csrf": "TOKEN"', body)
    return re.sub(r'"started": ?"[^"]+"', '"started": "TIME"', body)


def play_until_the_call(companion: Companion) -> tuple[list[str], dict[str, list[int]]]:
    """Every public response while the cups are down, and the dice that were under them."""
    app = create_app(companion.table, {"TABLE_PIN": PIN, "TESTING": True,
                                       "SIM_CUPS": companion.cups, "SIM_DRIVER": companion.driver})
    client = app.test_client()
    stream = client.get("/api/events", buffered=False)
    chunks = iter(stream.response)
    bodies = [next(chunks).decode()]
    assert client.post("/api/game", json=HEADER, headers={"X-Table-Pin": PIN}).status_code == 201
    assert companion.panel.settle()
    for action in BIDS:
        answer = client.post("/api/actions", json=action, headers={"X-Table-Pin": PIN})
        assert answer.status_code == 200
        bodies.append(answer.get_data(as_text=True))
        assert companion.panel.settle()
        bodies += [client.get(path).get_data(as_text=True) for path in PUBLIC_GETS]
        assert client.get("/api/reveal.jpg").status_code == 404
    while True:  # every event the stream carried so far (the panel's dial among them)
        bodies.append(next(chunks).decode())
        if '"bid":{"player":"Caro"' in bodies[-1] and '"dial":' in bodies[-1]:
            break
    assert companion.cups is not None
    return [normalise(b) for b in bodies], companion.cups.dice()


def test_no_response_before_the_reveal_shows_or_depends_on_a_hidden_die(
    sim_tables: list[Companion],
) -> None:
    (seen1, dice1), (seen2, dice2) = (play_until_the_call(c) for c in sim_tables)
    assert dice1 != dice2  # the two seeds really put different dice under the cups
    assert seen1 == seen2
    for bodies, dice in ((seen1, dice1), (seen2, dice2)):
        text = "\n".join(bodies)
        for faces in dice.values():
            for written in (json.dumps(faces), json.dumps(faces, separators=(",", ":")),
                            json.dumps(sorted(faces))):
                assert written not in text
        assert "\"reading\"" not in text


def test_after_the_call_the_page_gets_the_reading_and_its_picture(
    sim_tables: list[Companion],
) -> None:
    companion = sim_tables[0]
    play_until_the_call(companion)
    hidden = companion.cups.dice() if companion.cups else {}
    client = create_app(companion.table, {"TABLE_PIN": PIN, "TESTING": True}).test_client()
    answer = client.post("/api/actions", json={"action": "dudo", "player": "Dan"},
                         headers={"X-Table-Pin": PIN})
    assert answer.status_code == 200
    assert companion.table.wait_idle(30)
    state: dict[str, Any] = client.get("/api/state").get_json()
    assert "reading" in state
    counts = {str(f): sum(faces.count(f) for faces in hidden.values()) for f in range(1, 7)}
    assert state["reading"]["counts"] == counts
    picture = client.get("/api/reveal.jpg")
    assert picture.status_code == 200 and picture.mimetype == "image/jpeg"
    assert picture.data[:2] == b"\xff\xd8"
