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
from flask.testing import FlaskClient

from companion.config import load_config
from companion.serve import Companion, build
from companion.web import create_app
from tests.web.conftest import HEADER, PIN

BIDS = [
    {"action": "bid", "player": "Ana", "quantity": 3, "face": 4},
    {"action": "bid", "player": "Ben", "quantity": 4, "face": 4},
    {"action": "bid", "player": "Caro", "quantity": 4, "face": 6},
]
PUBLIC_GETS = [
    "/",
    "/api/state",
    "/api/bids",
    "/api/record",
    "/api/history",
    "/api/games",
    "/api/session",
    "/api/rules",
]


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
    body = re.sub(r'"run": ?"[0-9a-f]+"', '"run": "RUN"', body)  # each table's own name
    return re.sub(r'"started": ?"[^"]+"', '"started": "TIME"', body)


def play_until_the_call(companion: Companion) -> tuple[list[str], dict[str, list[int]]]:
    """Every public response while the cups are down, and the dice that were under them."""
    app = create_app(
        companion.table,
        {
            "TABLE_PIN": PIN,
            "TESTING": True,
            "SIM_CUPS": companion.cups,
            "SIM_DRIVER": companion.driver,
        },
    )
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
            for written in (
                json.dumps(faces),
                json.dumps(faces, separators=(",", ":")),
                json.dumps(sorted(faces)),
            ):
                assert written not in text
        assert '"reading"' not in text


def call_and_read(companion: Companion) -> tuple[FlaskClient, dict[str, Any]]:
    """Dan calls dudo on the simulated table; the client and the state once the camera read."""
    play_until_the_call(companion)
    client = create_app(companion.table, {"TABLE_PIN": PIN, "TESTING": True}).test_client()
    answer = client.post(
        "/api/actions", json={"action": "dudo", "player": "Dan"}, headers={"X-Table-Pin": PIN}
    )
    assert answer.status_code == 200
    assert companion.table.wait_idle(30)
    state: dict[str, Any] = client.get("/api/state").get_json()
    return client, state


def reveals(client: FlaskClient) -> list[list[int]]:
    """The faces of every reveal in the current game's record, each sorted."""
    lines = client.get("/api/record").get_data(as_text=True).splitlines()[1:]
    found = []
    for action in map(json.loads, lines):
        if action["action"] == "reveal":
            faces = action.get("faces") or [f for d in action["dice"].values() for f in d]
            found.append(sorted(faces))
    return found


# Whether the reader reads the simulated dice right is the reader's own business
# (tests/vision/test_reader_sim.py); here: what the table does with whatever it read.
def test_after_the_call_the_page_gets_the_reading_and_its_picture(
    sim_tables: list[Companion],
) -> None:
    client, state = call_and_read(sim_tables[0])
    reading = state["reading"]
    assert reading["expected"] == {"Ana": 5, "Ben": 5, "Caro": 5, "Dan": 5}
    assert sum(reading["counts"].values()) == len(reading["dice"]) == reading["total"]
    assert set(reading["counts"]) == {"1", "2", "3", "4", "5", "6"}
    for die in reading["dice"]:
        assert die["face"] in range(1, 7) and 0.0 <= die["confidence"] <= 1.0
    assert not reading["confirmed"]
    picture = client.get("/api/reveal.jpg")
    assert picture.status_code == 200 and picture.mimetype == "image/jpeg"
    assert picture.data[:2] == b"\xff\xd8"
    faces = sorted(d["face"] for d in reading["dice"])
    if reading["applied"]:
        # Applied at once only when every die was confident and all 20 dice were seen.
        assert reading["matched"] and not reading["doubtful"] and not reading["disagreements"]
        assert reading["total"] == 20
        assert state["phase"] == "bidding" and reveals(client) == [faces]
    else:
        # Anything else waits for the players, with the reason, and changes no die count.
        assert not reading["matched"] and reading["disagreements"]
        assert state["phase"] == "reveal" and reveals(client) == []
        assert [p["dice"] for p in state["players"]] == [5, 5, 5, 5]


def test_the_players_correct_a_die_of_the_reading_and_confirm_it(
    sim_tables: list[Companion],
) -> None:
    client, state = call_and_read(sim_tables[0])
    pin = {"X-Table-Pin": PIN}
    if state["reading"]["applied"]:
        # The players take the reveal back to check it: the reading waits for them again.
        answer = client.post("/api/actions", json={"action": "undo"}, headers=pin)
        assert answer.status_code == 200
        state = client.get("/api/state").get_json()
    reading = state["reading"]
    assert state["phase"] == "reveal" and not reading["applied"]
    assert client.get("/api/reveal.jpg").status_code == 200
    faces = [d["face"] for d in reading["dice"]]
    if len(faces) != 20:
        # A die missed (or one too many): confirming is refused with the reason, no change.
        answer = client.post("/api/reading", json={"confirm": True}, headers=pin)
        assert answer.status_code == 422 and "must show" in answer.get_json()["error"]
        assert client.get("/api/state").get_json()["phase"] == "reveal"
        return
    # A face no die has: refused, the die named as the picture numbers it (from 1).
    wrong = client.post("/api/reading", json={"confirm": True, "corrections": {"3": 9}},
                        headers=pin)
    assert (wrong.status_code, wrong.get_json()["error"]) == (422, (
        "correction of die index 3 (die 4 on the picture) to face 9: faces are 1-6"))
    assert client.get("/api/state").get_json()["reading"] == reading
    faces[0] = faces[0] % 6 + 1
    answer = client.post(
        "/api/reading", json={"confirm": True, "corrections": {"0": faces[0]}}, headers=pin
    )
    assert answer.status_code == 200, answer.get_json()
    confirmed = answer.get_json()["state"]["reading"]
    assert confirmed["confirmed"] and confirmed["applied"]
    assert confirmed["corrections"] == {"0": faces[0]}
    assert confirmed["counts"] == {str(f): faces.count(f) for f in range(1, 7)}
    assert reveals(client)[-1] == sorted(faces)
