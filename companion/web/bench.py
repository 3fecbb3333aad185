"""``python -m companion.web.bench``: how fast a submitted action reaches every phone.

Serves the real app with the server ``dudo serve`` runs (``companion.web.server``) on
127.0.0.1 (a free port), connects ``--clients`` Server-Sent Events streams, then submits
``--actions`` actions of seeded random games over HTTP (``POST /api/actions`` with the PIN
header), one at a time. For every action and every client it measures the delay from just
before the POST to the moment that client has read the event, and prints the median and the
99th percentile.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PIN = "24680"
NAMES = ["Ana", "Ben", "Caro", "Dan"]


class Follower(threading.Thread):
    """One phone: reads its event stream and notes when each state event arrived."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.arrivals: list[float] = []
        self.ready = threading.Event()
        self.count = threading.Condition()
        self.failure: str | None = None
        self._conn: http.client.HTTPConnection | None = None

    def run(self) -> None:
        try:
            self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            self._conn.request("GET", "/api/events")
            response = self._conn.getresponse()
            if response.status != 200:
                self.failure = f"stream refused: {response.status} {response.read()[:200]!r}"
                self.ready.set()
                return
            first = True
            kind = ""
            while True:
                line = response.fp.readline()
                if not line:
                    return
                if line.startswith(b"event: "):
                    kind = line[7:].strip().decode()
                elif line == b"\n" and kind:
                    if first:  # the state at connection time, not an answer to an action
                        first = False
                        self.ready.set()
                    elif kind == "state":
                        now = time.perf_counter()
                        with self.count:
                            self.arrivals.append(now)
                            self.count.notify_all()
                    kind = ""
        except OSError as err:
            self.failure = str(err)
            self.ready.set()

    def wait_for(self, n: int, timeout: float) -> bool:
        """Block until ``n`` state events have arrived (False on timeout)."""
        with self.count:
            return self.count.wait_for(lambda: len(self.arrivals) >= n, timeout)

    def close(self) -> None:
        if self._conn is not None and self._conn.sock is not None:
            self._conn.sock.close()


def random_actions(rng: random.Random, count: int) -> list[tuple[str, dict[str, Any]]]:
    """``count`` requests of seeded random games: new games, bids, calls and reveals."""
    from companion.game import Game
    from companion.rules import make_rules

    requests: list[tuple[str, dict[str, Any]]] = []
    game: Game | None = None
    while len(requests) < count:
        if game is None or game.phase == "over":
            header = {
                "game": "dudo-record/1",
                "rules": "perudo",
                "options": {},
                "players": NAMES,
                "first": NAMES[0],
            }
            game = Game(make_rules("perudo"), NAMES, first=NAMES[0])
            requests.append(("/api/game", header))
            continue
        action: dict[str, Any]
        if game.phase == "reveal":
            dice = {
                name: [rng.randint(1, 6) for _ in range(n)]
                for name, n in game.expected_dice().items()
            }
            action = {"action": "reveal", "dice": dice}
        else:
            bids = game.legal_bids()
            if game.state().get("bid") and (rng.random() < 0.3 or not bids):
                action = {"action": "dudo", "player": game.turn}
            else:
                bid = bids[min(len(bids) - 1, int(rng.expovariate(0.4)))]
                action = {
                    "action": "bid",
                    "player": game.turn,
                    "quantity": bid.quantity,
                    "face": bid.face,
                }
        game.apply(action)
        requests.append(("/api/actions", action))
    return requests


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, by the nearest rank."""
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, int(round(q * len(ordered) + 0.5)) - 1))
    return ordered[index]


def run(clients: int, actions: int, seed: int, journal_dir: Path | None) -> dict[str, Any]:
    """Serve, connect, submit, measure; returns the figures."""
    from companion.journal import Journal
    from companion.table import Table
    from companion.web import create_app, server

    journal = Journal.in_directory(journal_dir) if journal_dir else None
    table = Table(journal=journal)
    # Every phone of the bench is at this machine's address.
    app = create_app(table, {"TABLE_PIN": PIN, "SSE_MAX_CLIENTS": clients,
                             "SSE_MAX_PER_ADDRESS": clients})
    # The server ``dudo serve`` runs, with a thread for each phone and the poster.
    page = server.create(app, "127.0.0.1", 0, threads=max(server.SERVER_THREADS, clients + 8),
                         most=max(server.CONNECTIONS_PER_ADDRESS, clients + 1))
    port = page.effective_port
    threading.Thread(target=page.run, daemon=True).start()

    followers = [Follower(port) for _ in range(clients)]
    for f in followers:
        f.start()
    for f in followers:
        f.ready.wait(30)
        if f.failure:
            raise SystemExit(f"bench: a client could not follow the table: {f.failure}")

    requests = random_actions(random.Random(seed), actions)
    poster = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    submitted: list[float] = []
    posts: list[float] = []
    for n, (path, body) in enumerate(requests, start=1):
        t0 = time.perf_counter()
        poster.request(
            "POST", path, json.dumps(body), {"Content-Type": "application/json", "X-Table-Pin": PIN}
        )
        answer = poster.getresponse()
        answer.read()
        posts.append(time.perf_counter() - t0)
        if answer.status >= 300:
            raise SystemExit(f"bench: {path} {body} refused: {answer.status}")
        submitted.append(t0)
        for f in followers:
            if not f.wait_for(n, 10):
                raise SystemExit(f"bench: a client missed event {n} (waited 10 s)")

    delays = [(f.arrivals[i] - t0) * 1000 for f in followers for i, t0 in enumerate(submitted)]
    for f in followers:
        f.close()
    # The server is left to end with the process: closing its socket under waitress's
    # select loop (another thread) only makes that loop fail noisily.
    if journal is not None:
        journal.close()
    return {
        "clients": clients,
        "actions": len(requests),
        "events": len(delays),
        "median_ms": statistics.median(delays),
        "p99_ms": percentile(delays, 0.99),
        "max_ms": max(delays),
        "post_median_ms": statistics.median(posts) * 1000,
        "post_p99_ms": percentile(posts, 0.99) * 1000,
        "dropped": app.extensions["dudo"].broker.dropped,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.web.bench", description=__doc__)
    parser.add_argument("--clients", type=int, default=50, help="SSE clients (default 50)")
    parser.add_argument("--actions", type=int, default=200, help="actions to submit (200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--no-journal",
        action="store_true",
        help="no SQLite journal (by default one in a temp dir, synced)",
    )
    args = parser.parse_args(argv)
    if args.clients < 1 or args.actions < 1:
        parser.error("--clients and --actions must be at least 1")
    with tempfile.TemporaryDirectory(prefix="dudo-bench-") as tmp:
        figures = run(args.clients, args.actions, args.seed, None if args.no_journal else Path(tmp))
    print(
        f"{figures['clients']} SSE clients, {figures['actions']} actions "
        f"({figures['events']} deliveries): submit -> client event "
        f"median {figures['median_ms']:.1f} ms, p99 {figures['p99_ms']:.1f} ms, "
        f"max {figures['max_ms']:.1f} ms; POST answered in {figures['post_median_ms']:.1f} ms "
        f"(median; p99 {figures['post_p99_ms']:.1f} ms); clients dropped: {figures['dropped']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
