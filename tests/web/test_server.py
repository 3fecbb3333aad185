"""The page's server as ``dudo serve`` runs it: waitress, resting while it sends the phones
what changed, and sending a phone that reads slowly all it was written."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from waitress import wasyncore

from companion.table import Table
from companion.web import create_app, server
from tests.web.conftest import PIN, PLAYERS, run_in_a_thread

PHONES = 20
BIDS = 10


def serving(app: Any) -> Iterator[int]:
    """Serve ``app`` as the table does on a free port of 127.0.0.1; yield the port."""
    page = server.create(app, "127.0.0.1", 0)
    stop = run_in_a_thread(page)
    try:
        yield page.effective_port
    finally:
        stop()


class Phone:
    """A phone following the table's live page over a socket of its own."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: table\r\n\r\n")
        self.heard = b""

    def states(self) -> int:
        return self.heard.count(b"event: state\n")

    def hear(self, states: int) -> None:
        """Read until ``states`` states have come (the first is the state on connecting)."""
        while self.states() < states:
            chunk = self.sock.recv(65536)
            assert chunk, f"the stream ended after {self.states()} states"
            self.heard += chunk


def test_the_server_rests_while_twenty_phones_hear_each_bid(
    table: Table, game: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # waitress's main loop went round again at once while a phone's thread sent it a state:
    # 60 to 1,000 rounds a bid with twenty phones, at a whole core, holding back the very
    # threads sending (the last phone heard a bid 100-300 ms late with fifty).
    rounds = []
    poll = wasyncore.poll

    def counted(timeout: float = 0.0, map: Any = None) -> None:  # noqa: A002 (waitress's name)
        rounds.append(timeout)
        poll(timeout, map)

    monkeypatch.setattr(wasyncore, "poll", counted)
    app = create_app(table, {"TABLE_PIN": PIN, "SSE_MAX_PER_ADDRESS": PHONES})
    port = next(pages := serving(app))
    phones = [Phone(port) for _ in range(PHONES)]
    controller = http.client.HTTPConnection("127.0.0.1", port, timeout=10)  # the PIN's phone
    try:
        for phone in phones:
            phone.hear(1)
        before = len(rounds)
        for n in range(BIDS):
            bid = {"action": "bid", "player": PLAYERS[n % len(PLAYERS)],
                   "quantity": 3 + n, "face": 4}
            controller.request("POST", "/api/actions", json.dumps(bid),
                               {"Content-Type": "application/json", "X-Table-Pin": PIN})
            answer = controller.getresponse()
            assert answer.status == 200, answer.read()
            answer.read()
            for phone in phones:
                phone.hear(2 + n)
        per_bid = (len(rounds) - before) / BIDS
        assert per_bid < 20, f"waitress's loop went round {per_bid:.0f} times a bid"
        assert all(f"\"quantity\":{2 + BIDS}".encode() in phone.heard for phone in phones)
    finally:
        controller.close()
        for phone in phones:
            phone.sock.close()
        app.extensions["dudo"].broker.close()
        pages.close()


def test_a_phone_reading_slowly_gets_all_it_was_written_while_its_thread_waits() -> None:
    # What a phone's socket cannot take at once is left for waitress's loop to send, as the
    # phone reads, while the thread that wrote it waits for the table's next event.
    written, finish = threading.Event(), threading.Event()
    size = 8 * 1024 * 1024

    def streaming(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterator[bytes]:
        start_response("200 OK", [("Content-Type", "application/octet-stream"),
                                  ("Content-Length", str(size + 3))])
        yield b"x" * size
        written.set()
        finish.wait(20)
        yield b"end"

    port = next(pages := serving(streaming))
    phone = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        phone.sendall(b"GET / HTTP/1.1\r\nHost: table\r\n\r\n")
        assert written.wait(10)
        heard = b""
        while heard.count(b"x") < size:
            chunk = phone.recv(1 << 20)
            assert chunk, "the stream ended early"
            heard += chunk
        assert not finish.is_set() and heard.endswith(b"x")
        finish.set()
        while not heard.endswith(b"end"):
            heard += phone.recv(1 << 20)
    finally:
        finish.set()
        phone.close()
        pages.close()
