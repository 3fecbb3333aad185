"""The live feed: every phone hears every change, a slow phone never slows the table."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from typing import Any

from flask.testing import FlaskClient

from companion.table import Table
from companion.web import create_app
from companion.web.events import Broker
from tests.web.conftest import HEADER, PIN

BID = {"action": "bid", "player": "Ana", "quantity": 3, "face": 4}


def messages(chunks: Iterator[bytes]) -> Iterator[tuple[str, Any]]:
    """The (event, data) pairs of an SSE byte stream; comments come as ("comment", text)."""
    buffer = b""
    for chunk in chunks:
        buffer += chunk
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            kind, data = "message", None
            for line in block.decode().splitlines():
                if line.startswith(":"):
                    yield "comment", line[1:].strip()
                elif line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    data = json.loads(line[6:])
            if data is not None:
                yield kind, data


def open_stream(client: FlaskClient) -> Iterator[tuple[str, Any]]:
    response = client.get("/api/events", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    return messages(iter(response.response))


def test_a_phone_hears_the_state_at_once_then_every_bid_with_its_announcement(
    client: FlaskClient, table: Table, game: dict[str, Any]
) -> None:
    stream = open_stream(client)
    kind, first = next(stream)
    assert kind == "state" and first["state"]["turn"] == "Ana"
    assert table.submit(BID).ok
    kind, update = next(stream)
    assert kind == "state"
    bid = update["state"]["bid"]
    assert (bid["player"], bid["quantity"], bid["face"]) == ("Ana", 3, 4)
    assert update["state"]["odds"]["chance"] > 0.9
    assert update["announcements"][0]["kind"] == "bid"
    assert "Ana" in update["announcements"][0]["text"]


def test_an_idle_stream_says_it_is_alive_as_an_event_the_page_hears(table: Table) -> None:
    client = create_app(table, {"TESTING": True, "SSE_KEEPALIVE_S": 0.05}).test_client()
    stream = open_stream(client)
    assert next(stream)[0] == "state"
    assert next(stream) == ("alive", {})
    assert 'data-alive-s="0.05"' in client.get("/").get_data(as_text=True)


def test_a_table_full_of_phones_refuses_one_more_with_503(table: Table) -> None:
    client = create_app(table, {"TESTING": True, "SSE_MAX_CLIENTS": 1}).test_client()
    stream = open_stream(client)
    next(stream)
    refused = client.get("/api/events")
    assert refused.status_code == 503
    assert "too many phones" in refused.get_json()["error"]
    assert refused.headers["Retry-After"]


def test_one_address_follows_the_table_a_few_times_at_most_and_never_locks_out_the_others(
    table: Table, game: dict[str, Any]
) -> None:
    # A script (or a page reloaded again and again) at one address would otherwise take
    # every place: here it keeps 3, and other phones still find theirs at a table of 5.
    app = create_app(table, {"TESTING": True, "SSE_MAX_CLIENTS": 5, "SSE_MAX_PER_ADDRESS": 3,
                             "SSE_KEEPALIVE_S": 30.0})
    reloading = app.test_client()
    reloading.environ_base["REMOTE_ADDR"] = "192.168.1.23"
    streams = [open_stream(reloading) for _ in range(3)]
    for stream in streams:
        assert next(stream)[0] == "state"
    refused = reloading.get("/api/events")
    assert refused.status_code == 503 and refused.headers["Retry-After"]
    assert refused.get_json()["error"] == (
        "this address already follows the table 3 times: close a page, or try again soon")
    for stream in streams:  # woken as it was refused: a page gone would show itself gone
        assert next(stream) == ("alive", {})
    others = []
    for n in (31, 32):
        other = app.test_client()
        other.environ_base["REMOTE_ADDR"] = f"192.168.1.{n}"
        others.append(open_stream(other))
        assert next(others[-1])[0] == "state"
    assert table.submit(BID).ok
    for stream in streams + others:  # nobody's feed was ended
        kind, update = next(stream)
        assert kind == "state" and update["state"]["bid"]["quantity"] == 3


def test_a_table_that_stops_ends_every_phone_s_feed_at_once_and_takes_no_new_one(
    table: Table, game: dict[str, Any]
) -> None:
    # Before, each feed waited up to its beat (15 s) for the next event, and the server
    # waited for the threads serving them: a restart with phones open took 10 s.
    app = create_app(table, {"TESTING": True, "SSE_KEEPALIVE_S": 30.0})
    client = app.test_client()
    streams = [open_stream(client) for _ in range(2)]
    for stream in streams:
        assert next(stream)[0] == "state"
    app.extensions["dudo"].broker.close()
    for stream in streams:
        assert list(stream) == []  # ended, with no wait for the beat
    refused = client.get("/api/events")
    assert refused.status_code == 503 and refused.headers["Retry-After"]
    assert "the table is stopping" in refused.get_json()["error"]


def test_a_head_request_takes_no_place_among_the_phones(table: Table) -> None:
    client = create_app(table, {"TESTING": True, "SSE_MAX_CLIENTS": 1}).test_client()
    for _ in range(3):  # `curl -I`: the body is never read, so no stream would ever end
        head = client.head("/api/events")
        assert head.status_code == 200 and head.mimetype == "text/event-stream"
        head.close()
    stream = open_stream(client)
    assert next(stream)[0] == "state"  # a phone still finds its place


def test_a_slow_phone_is_dropped_and_never_blocks_the_table(table: Table) -> None:
    broker = Broker(lambda event: {"state": event.state}, queue_size=3, max_listeners=10)
    table.subscribe(broker.publish)
    slow = broker.connect()
    keen = broker.connect()
    assert slow is not None and keen is not None
    received: queue.Queue[bytes] = queue.Queue()

    def follow() -> None:
        for message in broker.stream(keen, b""):
            received.put(message)

    threading.Thread(target=follow, daemon=True).start()
    assert table.new_game(HEADER).ok
    started = time.perf_counter()
    actions = [
        {"action": "bid", "player": p, "quantity": q, "face": 4}
        for q, p in enumerate(["Ana", "Ben", "Caro", "Dan", "Ana", "Ben"], start=2)
    ]
    for action in actions:
        assert table.submit(action).ok
        time.sleep(0.02)  # players' pace: the keen phone keeps up, even on a busy machine
    assert time.perf_counter() - started < 10.0  # nobody waited for the slow phone
    assert slow.dropped and broker.dropped == 1
    assert broker.listeners == 1
    got = [received.get(timeout=10) for _ in range(1 + 1 + len(actions))]
    assert b"retry:" in got[0]
    assert all(b"event: state" in m for m in got[1:])


def test_each_sse_message_has_an_increasing_id(
    client: FlaskClient, pin: dict[str, str], table: Table, game: dict[str, Any]
) -> None:
    response = client.get("/api/events", buffered=False)
    chunks = iter(response.response)
    next(chunks)
    table.submit(BID)
    table.submit({"action": "dudo", "player": "Ben"})
    ids = [int(next(chunks).split(b"\n", 1)[0].split(b": ")[1]) for _ in range(2)]
    assert ids[0] < ids[1]


def test_actions_posted_by_one_phone_reach_another_phones_stream(
    client: FlaskClient, table: Table, game: dict[str, Any]
) -> None:
    watcher = client.application.test_client()
    stream = open_stream(watcher)
    next(stream)
    client.post("/api/actions", json=BID, headers={"X-Table-Pin": PIN})
    kind, data = next(stream)
    assert data["state"]["turn"] == "Ben"
