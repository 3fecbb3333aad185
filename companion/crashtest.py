"""The crash test: play games against ``dudo serve --sim`` and SIGKILL it at random moments.

``python -m companion.crashtest [--kills 100] [--seed N]`` starts the companion as a
subprocess on 127.0.0.1 with a fresh data directory, plays scripted games through its HTTP
API (new games, bids, calls, undos; the simulated camera reads the reveals, a reading that
waits is answered by a typed-in reveal), and kills it with SIGKILL at random moments, many
of them in the middle of a request. After each restart it checks that the game the
companion resumed is exactly every action that was acknowledged (a 2xx answer), in order:
none lost, none doubled, nothing extra but the one request in flight when it died and the
reveals the table's own camera applied. It also checks that the state the page serves is
the state of replaying that record. It prints the count and exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.game import Game

PIN = "2468"
# Keys of the engine's state that must be equal after a restart.
COMPARED = (
    "rules",
    "phase",
    "round",
    "players",
    "dice_in_play",
    "dice_lost",
    "turn",
    "bid",
    "palifico",
    "winner",
)
PRESETS = ("perudo", "dudo", "payroodo", "jinto")
NAMES = ("Ana", "Ben", "Caro", "Dani", "Eli")


class Mismatch(Exception):
    """The resumed game is not the game of the acknowledged actions."""


class ServerGone(Exception):
    """The companion stopped answering (it was killed)."""


@dataclass
class Tracked:
    """What the client knows for sure: the current game, as acknowledged or seen."""

    game_id: int | None = None
    header: dict[str, Any] | None = None
    actions: list[dict[str, Any]] = field(default_factory=list)
    # The one request whose answer never came: ("game", header) or ("action", action).
    inflight: tuple[str, dict[str, Any]] | None = None
    # Counted by reconcile: requests saved though their answer never came; camera reveals.
    inflight_saved: int = 0
    inflight_unsaved: int = 0
    camera_reveals: int = 0

    def replica(self) -> Game | None:
        """The game replayed from the tracked header and actions."""
        if self.header is None:
            return None
        game = Game.from_header(self.header)
        for action in self.actions:
            game.apply(action)
        return game


class Client:
    """The HTTP API of one companion, with the PIN; ServerGone when it does not answer."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"

    def get(self, path: str) -> tuple[int, bytes]:
        return self._request(urllib.request.Request(self.base + path))

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-Table-Pin": PIN},
            method="POST",
        )
        return self._request(request)

    def _request(self, request: urllib.request.Request) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()
        except (OSError, http.client.HTTPException) as err:
            raise ServerGone(str(err)) from err

    def state(self) -> dict[str, Any]:
        status, body = self.get("/api/state")
        if status != 200:
            raise Mismatch(f"GET /api/state answered {status}: {body[:200]!r}")
        state: dict[str, Any] = json.loads(body)
        return state

    def record(self) -> list[dict[str, Any]]:
        status, body = self.get("/api/record")
        if status == 404:
            return []
        if status != 200:
            raise Mismatch(f"GET /api/record answered {status}: {body[:200]!r}")
        return [json.loads(line) for line in body.decode().splitlines() if line.strip()]


class Companion:
    """``dudo serve --sim`` as a subprocess on a free port of 127.0.0.1."""

    def __init__(self, data: Path, seed: int, log: Path) -> None:
        self.data, self.seed, self.log = data, seed, log
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> Client:
        # A short cups-up wait: kills land in it too, and the games do not crawl.
        config = self.log.with_name("table.toml")
        config.write_text("[table]\ncups_up_s = 0.2\n")
        command = [
            sys.executable,
            "-m",
            "companion.cli",
            "serve",
            "--sim",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--data",
            str(self.data),
            "--pin",
            PIN,
            "--seed",
            str(self.seed),
            "--config",
            str(config),
        ]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        client = Client(self.port)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"dudo serve exited with {self.process.returncode}: see {self.log}"
                )
            try:
                if client.get("/api/state")[0] == 200:
                    return client
            except ServerGone:
                time.sleep(0.05)
        raise RuntimeError(f"dudo serve did not answer within {timeout:.0f} s: see {self.log}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)

    def wait(self) -> None:
        if self.process is not None:
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Player:
    """Plays random legal actions, tracking what the companion acknowledged."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tracked = Tracked()
        self.acknowledged = 0
        self.games = 0

    def new_header(self) -> dict[str, Any]:
        players = list(NAMES[: self.rng.randint(2, 4)])
        return {
            "game": "dudo-record/1",
            "rules": self.rng.choice(PRESETS),
            "options": {"dice": self.rng.randint(1, 3)},
            "players": players,
        }

    def next_action(self, game: Game) -> dict[str, Any]:
        if game.phase == "reveal":
            expected = game.expected_dice()
            dice = {p: [self.rng.randint(1, 6) for _ in range(n)] for p, n in expected.items()}
            return {"action": "reveal", "dice": dice}
        turn = game.turn
        calls = game.can_call()
        roll = self.rng.random()
        if roll < 0.06 and _legal(game, {"action": "undo"}):
            return {"action": "undo"}
        bids = game.legal_bids()[:6]
        if turn in calls["dudo"] and (roll < 0.45 or not bids):
            return {"action": "dudo", "player": turn}
        if not bids:
            raise Mismatch(f"no legal bid and no call for {turn}: {game.notation()}")
        bid = self.rng.choice(bids)
        return {"action": "bid", "player": turn, "quantity": bid.quantity, "face": bid.face}

    def step(self, client: Client) -> None:
        """One request: a new game, an action, or waiting for the camera's reveal."""
        tracked = self.tracked
        game = tracked.replica()
        if game is None or game.phase == "over":
            header = self.new_header()
            tracked.inflight = ("game", header)
            status, body = client.post("/api/game", header)
            if status >= 300:
                raise Mismatch(f"POST /api/game answered {status}: {body[:200]!r}")
            state = json.loads(body)["state"]
            tracked.inflight = None
            tracked.game_id, tracked.header, tracked.actions = state["game_id"], header, []
            self.acknowledged += 1
            self.games += 1
            return
        if game.phase == "reveal" and self.camera_reveal(client):
            return
        action = self.next_action(game)
        tracked.inflight = ("action", action)
        status, body = client.post("/api/actions", action)
        if status >= 300:
            raise Mismatch(f"{action} refused ({status}): {body[:300]!r}")
        game.apply(action)
        tracked.actions.append(game.actions[-1])
        tracked.inflight = None
        self.acknowledged += 1

    def camera_reveal(self, client: Client) -> bool:
        """Wait for the camera's reading; True if the table applied it itself."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            state = client.state()
            if not state.get("capturing"):
                break
            time.sleep(0.02)
        record = client.record()
        reconcile(self.tracked, record, state.get("game_id"))
        game = self.tracked.replica()
        return game is not None and game.phase != "reveal"


def reconcile(tracked: Tracked, record: list[dict[str, Any]], game_id: int | None) -> int:
    """Check the companion's record against what was acknowledged; adopt it. Returns the
    number of actions it holds that were not acknowledged (in flight, or the camera's)."""
    inflight = tracked.inflight
    if game_id != tracked.game_id:
        if inflight is None or inflight[0] != "game" or game_id != (tracked.game_id or 0) + 1:
            raise Mismatch(
                f"the companion is on game {game_id}, the client on game "
                f"{tracked.game_id} (in flight: {inflight})"
            )
        if not record or record[0] != Game.from_header(inflight[1]).header:
            raise Mismatch(f"game {game_id} has header {record[:1]}, sent {inflight[1]}")
        tracked.game_id, tracked.header, tracked.actions = game_id, inflight[1], []
        tracked.inflight = inflight = None
        tracked.inflight_saved += 1
    if tracked.header is None:
        if record:
            raise Mismatch(f"a game the client never started: {record[0]}")
        return 0
    header = Game.from_header(tracked.header).header
    if not record or record[0] != header:
        raise Mismatch(f"the header changed: {record[:1]} for {header}")
    actions = record[1:]
    known = tracked.actions
    if actions[: len(known)] != known:
        for i, (mine, theirs) in enumerate(zip(known, actions, strict=False)):
            if mine != theirs:
                raise Mismatch(f"action {i + 1} differs: acknowledged {mine}, resumed {theirs}")
        raise Mismatch(
            f"{len(known) - len(actions)} acknowledged action(s) lost: {known[len(actions) :]}"
        )
    extra = actions[len(known) :]
    replica = tracked.replica()
    assert replica is not None
    for action in extra:
        if inflight is not None and inflight[0] == "action" and _same(replica, inflight[1], action):
            # The request in flight when the companion died was saved: fine, once.
            inflight = None
            replica.apply(action)
            tracked.actions.append(action)
            tracked.inflight_saved += 1
            continue
        if action.get("action") == "reveal" and replica.phase == "reveal":
            replica.apply(action)  # the table's camera applied this reveal itself
            tracked.actions.append(action)
            tracked.camera_reveals += 1
            continue
        raise Mismatch(f"an action nobody acknowledged appeared (or was doubled): {action}")
    if inflight is not None:
        tracked.inflight_unsaved += 1  # killed before it was saved: it never happened
    tracked.inflight = None
    return len(extra)


def _legal(game: Game, action: dict[str, Any]) -> bool:
    """Whether the engine accepts ``action`` now (the client only sends legal actions)."""
    try:
        game.check(action)
    except ValueError:
        return False
    return True


def _same(game: Game, sent: dict[str, Any], stored: dict[str, Any]) -> bool:
    """Whether ``stored`` is the record form of the action ``sent`` in this position."""
    trial = game.copy()
    try:
        trial.apply(sent)
    except ValueError:
        return False
    return trial.actions[-1] == stored


def check_state(tracked: Tracked, state: dict[str, Any]) -> None:
    """The served state must be the state of replaying the tracked record."""
    replica = tracked.replica()
    if replica is None:
        if state.get("phase") != "setup":
            raise Mismatch(f"no game was started, the companion shows {state.get('phase')}")
        return
    mine = json.loads(json.dumps(replica.state()))
    for key in COMPARED:
        if mine.get(key) != state.get(key):
            raise Mismatch(
                f"state {key}: replay gives {mine.get(key)!r}, "
                f"the companion shows {state.get(key)!r}"
            )


def resume_check(client: Client, tracked: Tracked) -> int:
    """After a restart: reconcile the record and compare the state (retried while the
    camera's reveal lands between the two reads). Returns the unacknowledged actions kept."""
    for _ in range(50):
        state = client.state()
        record = client.record()
        again = client.state()
        if state.get("version") == again.get("version") and not again.get("capturing"):
            extra = reconcile(tracked, record, state.get("game_id"))
            check_state(tracked, state)
            return extra
        time.sleep(0.05)
    raise Mismatch("the companion's state never settled after the restart")


def run(kills: int, seed: int, data: Path | None = None, *, verbose: bool = True) -> int:
    """Play and kill ``kills`` times; returns the number of mismatches (0: all good)."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="dudo-crash-") as tmp:
        data_dir = data or Path(tmp) / "data"
        log = Path(tmp) / "serve.log"
        companion = Companion(data_dir, seed, log)
        player = Player(rng)
        mismatches = done = 0
        try:
            client = companion.start()
            for kill in range(1, kills + 1):
                killer = threading.Timer(rng.uniform(0.05, 1.2), companion.kill)
                killer.start()
                try:
                    while True:
                        player.step(client)
                except ServerGone:
                    pass
                except Mismatch as err:
                    print(f"kill {kill}: MISMATCH before the kill: {err}", flush=True)
                    mismatches += 1
                    killer.cancel()
                    companion.kill()
                killer.join()
                companion.wait()
                done = kill
                client = companion.start()
                try:
                    resume_check(client, player.tracked)
                except Mismatch as err:
                    print(f"kill {kill}: MISMATCH after the restart: {err}", flush=True)
                    mismatches += 1
                    break
                if verbose and (kill % 10 == 0 or kill == kills):
                    print(
                        f"  {kill} kills: {player.acknowledged} acknowledged, {player.games} games",
                        flush=True,
                    )
        finally:
            companion.stop()
        tracked = player.tracked
        verdict = ("every one found after its restart, none doubled" if not mismatches
                   else f"{mismatches} MISMATCHES")
        print(
            f"crash test: {done} SIGKILLs, {player.acknowledged} acknowledged requests "
            f"({player.games} games started): {verdict}; "
            f"of the requests killed in flight {tracked.inflight_saved} were saved (kept once) "
            f"and {tracked.inflight_unsaved} were not (never applied), "
            f"{tracked.camera_reveals} reveals applied by the camera itself",
            flush=True,
        )
        if mismatches:
            print(f"the companion's log: {log}", file=sys.stderr)
            if data is None:
                print((log.read_text(errors="replace"))[-3000:], file=sys.stderr)
        return mismatches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m companion.crashtest", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--kills", type=int, default=100, help="how many SIGKILLs (100)")
    parser.add_argument("--seed", type=int, default=1, help="the random seed (1)")
    parser.add_argument("--data", type=Path, default=None, help="keep the data directory here")
    args = parser.parse_args(argv)
    if args.kills < 1:
        parser.error("--kills must be 1 or more")
    return 1 if run(args.kills, args.seed, args.data) else 0


if __name__ == "__main__":
    sys.exit(main())
