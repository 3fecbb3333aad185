"""``dudo serve`` as a real process: the address and PIN, systemd's messages, faults, restarts."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.cli import build_parser, main
from companion.config import load_config
from companion.crashtest import free_port
from companion.kept_journal import JOURNAL_RETRY_S, open_journal
from companion.serve import _web_app, build, serve_command
from companion.start_errors import CannotWriteYet, StartError
from companion.web.server import within_limit_per_address as _within_limit_per_address
from tests.table.conftest import card_full_for, write_over
from tests.web.conftest import run_in_a_thread
from vision.calibration import load_calibration

PIN = "1357"
# This run's environment, as a shell's (a CI job run by systemd has its marks).
OUTSIDE_SYSTEMD = {
    k: v for k, v in os.environ.items() if k not in ("INVOCATION_ID", "NOTIFY_SOCKET")
}


class Served:
    """A running ``dudo serve`` on 127.0.0.1 with everything it printed."""

    def __init__(self, args: list[str], data: Path, env: dict[str, str] | None = None,
                 stdout: str = "log", preexec: Callable[[], None] | None = None) -> None:
        """``stdout``: "log" (with stderr, into the log), "full" (/dev/full) or "closed";
        ``preexec``: run in the process before it starts (not with "closed")."""
        self.port = free_port()
        self.log = data.parent / f"serve-{self.port}.log"
        command = [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1",
                   "--port", str(self.port), "--data", str(data), *args]
        with self.log.open("wb") as log, open("/dev/full", "wb") as full:
            self.process = subprocess.Popen(
                command, stdout={"log": log, "full": full}.get(stdout, subprocess.DEVNULL),
                stderr=log,
                env={**OUTSIDE_SYSTEMD, **(env or {})},
                preexec_fn=(lambda: os.close(1)) if stdout == "closed" else preexec,
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def request(self, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", data=data,
            headers={"Content-Type": "application/json", "X-Table-Pin": PIN},
        )
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.output()
            try:
                if self.request("/api/state")[0] == 200:
                    return
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"no answer in {timeout} s:\n{self.output()}")

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(60)
    yield sock
    sock.close()


def messages_until(sock: socket.socket, wanted: bytes) -> list[bytes]:
    """Every datagram received up to and including ``wanted``."""
    seen: list[bytes] = []
    while wanted not in seen:
        seen.append(sock.recv(256))
    return seen


@pytest.mark.parametrize("stdout", ["full", "closed"])
def test_a_table_whose_output_takes_nothing_is_served_and_its_pin_goes_to_the_log(
    tmp_path: Path, stdout: str
) -> None:
    # Before, `dudo serve --sim >&-` stopped at start (no standard output to ask isatty of)
    # and `> /dev/full` with a traceback: the table never served.
    served = Served(["--sim", "--pin", PIN], tmp_path / "data", stdout=stdout)
    try:
        served.wait_ready()
        assert served.request("/api/state")[0] == 200
        logged = served.output()
        assert "the standard output takes nothing" in logged
        assert f"PIN:  {PIN}" in logged and f"http://127.0.0.1:{served.port}/" in logged
    finally:
        code = served.stop()
    assert code == 0, served.output()


def test_the_start_names_the_camera_and_a_simulator_left_in_the_config(tmp_path: Path) -> None:
    # A `source = "sim"` left from trying calibration read an empty glass at every reveal of
    # the real table, and nothing said which camera it was.
    config = tmp_path / "table.toml"
    config.write_text("[camera]\nsource = 'sim'\n")
    for args, said in ((["--sim"], "\n  camera: sim\n"),
                       (["--config", str(config)], "\n  camera: sim, the simulator ([camera]"
                                                   " source): it shows no real dice\n")):
        served = Served(["--pin", PIN, *args], tmp_path / f"data{len(args)}")
        try:
            served.wait_ready()
            assert said in served.output()
        finally:
            assert served.stop() == 0, served.output()


def test_a_table_with_phones_open_stops_at_once(tmp_path: Path) -> None:
    # systemd's stop and restart (an update, `systemctl restart`) send SIGTERM. Before, with
    # a phone's live page open, the table took 10 s to stop: waitress waited for the thread
    # serving its feed, asleep until the feed's next beat.
    served = Served(["--sim", "--pin", PIN], tmp_path / "data")
    phones: list[socket.socket] = []
    try:
        served.wait_ready()
        for _ in range(2):
            phone = socket.create_connection(("127.0.0.1", served.port), timeout=30)
            phone.sendall(b"GET /api/events HTTP/1.1\r\nHost: table\r\n\r\n")
            phones.append(phone)
            heard = b""
            while b"event: state" not in heard:  # the headers, then the state
                heard += phone.recv(65536)
        started = time.monotonic()
        assert served.stop() == 0, served.output()
        assert time.monotonic() - started < 5, "the phones' feeds held the stop"
        for phone in phones:  # each feed was ended, not cut: the browser opens it again
            rest = b""
            while chunk := phone.recv(65536):
                rest += chunk
            assert rest.endswith(b"0\r\n\r\n"), rest
    finally:
        for phone in phones:
            phone.close()
        served.stop()


@pytest.mark.slow
def test_a_simulated_table_starts_tells_systemd_and_resumes_its_game_after_a_restart(
    tmp_path: Path, notify_socket: socket.socket
) -> None:
    data = tmp_path / "data"
    env = {"NOTIFY_SOCKET": notify_socket.getsockname(), "WATCHDOG_USEC": "400000"}
    served = Served(["--sim", "--pin", PIN, "--seed", "7"], data, env)
    try:
        seen = messages_until(notify_socket, b"READY=1")
        assert seen == [b"READY=1"]  # nothing before the page answers
        assert served.request("/api/state")[0] == 200
        assert messages_until(notify_socket, b"WATCHDOG=1")[-1] == b"WATCHDOG=1"
        printed = served.output()
        assert f"http://127.0.0.1:{served.port}/" in printed
        # Under systemd the PIN given stays out of the journal (a random one is shown). (The
        # port and the data folder are taken out first: port 41357 holds "1357".)
        rest = printed.replace(str(served.port), "").replace(str(data), "")
        assert PIN not in rest and "PIN:  the one set in the config or with --pin" in printed

        header = {"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"]}
        assert served.request("/api/game", header)[0] == 201
        bid = {"action": "bid", "player": "Ana", "quantity": 2, "face": 5}
        assert served.request("/api/actions", bid)[0] == 200
    finally:
        code = served.stop()
    assert code == 0, served.output()
    assert b"STOPPING=1" in messages_until(notify_socket, b"STOPPING=1")

    again = Served(["--sim", "--pin", PIN], data)
    try:
        again.wait_ready()
        assert f"PIN:  {PIN}" in again.output()  # not under systemd: told
        status, state = again.request("/api/state")
        assert state["turn"] == "Ben"
        assert (state["bid"]["player"], state["bid"]["quantity"], state["bid"]["face"]) == (
            "Ana", 2, 5)
    finally:
        again.stop()


@pytest.mark.slow
def test_twenty_phones_opening_the_page_together_leave_the_table_answering(
    tmp_path: Path,
) -> None:
    # Each phone keeps about six connections open for its next requests. Before, at
    # waitress's limit of 100 the table answered nobody until the idle ones were closed,
    # two minutes later.
    served = Served(["--sim", "--pin", PIN], tmp_path / "data")
    kept: list[socket.socket] = []
    try:
        served.wait_ready()
        for phone in range(20):  # each at its own address, as on the Wi-Fi
            for _ in range(6):
                kept.append(socket.create_connection(("127.0.0.1", served.port), timeout=5,
                                                     source_address=(f"127.0.1.{phone + 1}", 0)))
        started = time.monotonic()
        request = urllib.request.Request(f"http://127.0.0.1:{served.port}/api/state")
        with urllib.request.urlopen(request, timeout=20) as response:
            assert response.status == 200
        assert time.monotonic() - started < 10
    finally:
        for connection in kept:
            connection.close()
        served.stop()


@pytest.mark.slow
def test_a_phone_that_stops_reading_the_live_page_is_let_go(tmp_path: Path) -> None:
    # A phone asleep in a pocket keeps its live page open and reads nothing. Before, waitress
    # held everything the table said to it (to 16 MB each, past 1 MB in /tmp), and the live
    # page's own limit, which lets such a phone go, was never reached.
    served = Served(["--sim", "--pin", PIN], tmp_path / "data")
    asleep: list[socket.socket] = []
    try:
        served.wait_ready()
        for _ in range(4):
            phone = socket.socket()
            phone.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            phone.connect(("127.0.0.1", served.port))
            phone.sendall(b"GET /api/events HTTP/1.1\r\nHost: table\r\n\r\n")
            asleep.append(phone)
        header = {"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"]}
        assert served.request("/api/game", header)[0] == 201
        bid = {"action": "bid", "player": "Ana", "quantity": 2, "face": 5}
        deadline = time.monotonic() + 30  # before: after about a minute, at 16 MB each
        while served.output().count("dropped a phone") < len(asleep):
            assert time.monotonic() < deadline, "the phones that read nothing were kept"
            for action in (bid, {"action": "undo"}) * 25:
                assert served.request("/api/actions", action)[0] == 200
    finally:
        for phone in asleep:
            phone.close()
        served.stop()


@pytest.mark.slow
@pytest.mark.parametrize("factory", [None, "lgpio"], ids=["any pin library", "as the unit asks"])
def test_without_camera_or_gpio_the_page_says_so_and_a_reveal_is_typed_in(
    tmp_path: Path, factory: str | None
) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[camera]\nsource = "picamera2"\n')
    # The systemd unit names lgpio (GPIOZERO_PIN_FACTORY): its absence is said as plainly.
    env = {"GPIOZERO_PIN_FACTORY": factory} if factory else {}
    served = Served(["--pin", PIN, "--config", str(config)], tmp_path / "data", env=env)
    try:
        served.wait_ready()
        status, state = served.request("/api/state")
        assert "no camera" in state["faults"]["camera"] and not state["camera"]
        assert "buttons and lights are not working" in state["faults"]["gpio"]
        # The log says it in one line, as the page does: a fault named, no traceback.
        assert "the panel's GPIO did not start: no GPIO library" in served.output()
        assert "Traceback" not in served.output()
        header = {"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"],
                  "options": {"dice": 1}}
        assert served.request("/api/game", header)[0] == 201
        for action in (
            {"action": "bid", "player": "Ana", "quantity": 1, "face": 6},
            {"action": "dudo", "player": "Ben"},
            {"action": "reveal", "dice": {"Ana": [6], "Ben": [2]}},
        ):
            status, body = served.request("/api/actions", action)
            assert status == 200, body
        assert served.request("/api/state")[1]["winner"] == "Ana"
    finally:
        assert served.stop() == 0


def run_serve(argv: list[str]) -> int:
    args: argparse.Namespace = build_parser().parse_args(["serve", *argv])
    return serve_command(args)


@pytest.mark.parametrize(
    ("argv", "config", "message"),
    [
        (["--pin", "12ab"], None, "--pin '12ab': a table PIN is 4 to 12 digits"),
        (["--port", "70000"], None, "--port 70000: a port is 1-65535"),
        (["--config", "{missing}"], None, "no such config file"),
        ([], "[server]\nport = 8080\ncolour = 'red'\n", "unknown key(s) in [server]: colour"),
        ([], "[server\n", "not valid TOML"),
        ([], "[seats]\ncount = 3\n", "[seats] count = 3 needs centre"),
        ([], "[pins]\ndudo = 99\n", "pin map"),
        ([], "[camera]\nsource = 'webcam'\n", "table.toml: [camera] source = 'webcam': use"
                                                " picamera2, device:N (or device:PATH), folder:DIR,"
                                                " sim or none"),
        ([], "[camera]\nwidth = 99999999\n", "[camera] width = 99999999: must be a whole number"
                                             " from 1 to 16,384"),
        ([], "[seats]\ncount = 3\ncentre = [1, 2]\nfirst_angle = nan\n",
         "[seats] first_angle = nan: must be a number"),
        (["--sim"], "[camera]\nsourc = 'none'\n", "unknown key(s) in [camera]: sourc"),
        (["--sim"], "[colours]\nAna = 'rouge'\n", "[colours] Ana = 'rouge'"),
        (["--seed", "5"], "[camera]\nsource = 'none'\n", "--seed 5 makes the simulated rolls"
                                                        " repeatable: give it with --sim"),
    ],
    ids=["bad pin", "bad port", "missing config", "unknown key", "bad TOML", "bad seats",
         "bad pin map", "unknown camera", "huge frame", "no angle", "sim: camera typo",
         "sim: colour", "seed: no sim"],
)
def test_a_bad_setting_stops_serve_at_once_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], config: str | None,
    message: str,
) -> None:
    argv = [a.replace("{missing}", str(tmp_path / "none.toml")) for a in argv]
    if config is not None:
        path = tmp_path / "table.toml"
        path.write_text(config)
        argv += ["--config", str(path)]
    argv += ["--data", str(tmp_path / "data"), "--host", "127.0.0.1", "--port",
             str(free_port())] if "--port" not in argv else ["--data", str(tmp_path / "data")]
    assert run_serve(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("dudo serve: ")
    assert message in err
    # Nothing was started: no data directory was made, nor a journal or session key in it.
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("sim", [True, False], ids=["simulated table", "a camera device"])
def test_a_missing_reader_model_is_said_at_start_and_the_reveal_is_typed_in(
    tmp_path: Path, sim: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")  # this machine's pins are no Pi's
    config = tmp_path / "table.toml"
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "empty.png"), np.zeros((48, 64, 3), np.uint8))
    config.write_text(f"[camera]\nsource = 'folder:{frames}'\n"
                      "[vision]\nmodel_path = 'nope.onnx'\n")
    loaded = load_config(config, data=tmp_path / "data")
    with ExitStack() as stack:
        companion = build(loaded, sim=sim, seed=1 if sim else None, stack=stack)
        fault = companion.table.state()["faults"]["camera"]
        assert fault.startswith(f"{config}: [vision]: dice reader model missing: ")
        assert fault.endswith("nope.onnx: enter the reveal by hand")
        assert companion.camera is None  # nothing will look; the players type the dice in


def test_a_port_in_use_is_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = run_serve(["--sim", "--host", "127.0.0.1", "--port", str(port), "--data",
                          str(tmp_path / "data")])
    assert code == 1  # not a config mistake: systemd tries again (the last run may hold it)
    # Who holds it, and what to do, are said (before, only the system's words).
    assert (f"dudo serve: cannot listen on 127.0.0.1:{port}: Address already in use (another"
            " program holds it, `ss -ltnp` names it: stop it, or set [server] port)"
            in capsys.readouterr().err)
    assert not (tmp_path / "data").exists()  # the port is taken before anything is made


def test_a_second_table_on_the_same_port_too_is_named_not_taken_for_a_port_in_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The port is now taken before the data directory: a second `dudo serve` beside the
    # service (the same config: its port too) still names the one that holds the directory.
    data = tmp_path / "data"
    with ExitStack() as first, socket.socket() as taken:
        built(data, first)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = run_serve(["--sim", "--host", "127.0.0.1", "--port", str(port), "--pin", PIN,
                          "--data", str(data)])
    assert code == 1  # systemd tries again: the other may be its own last run, still ending
    assert (f"dudo serve: another dudo serve (pid {os.getpid()}) uses {data}: stop it first"
            in capsys.readouterr().err)


@pytest.mark.parametrize(
    ("host", "code", "said"),
    [
        # The Pi's address on the Wi-Fi, at boot before the Wi-Fi is up: systemd tries again.
        ("192.0.2.77", 1, "Cannot assign requested address"),
        # No address at all: a config mistake, not tried again.
        ("nosuch.invalid", 2, "nosuch.invalid does not resolve ("),
    ],
)
def test_a_host_that_cannot_be_listened_on_is_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], host: str, code: int, said: str
) -> None:
    # Before, the data directory, a journal, the session key and the hold were made first.
    port = free_port()
    assert run_serve(["--sim", "--host", host, "--port", str(port), "--data",
                      str(tmp_path / "data")]) == code
    err = capsys.readouterr().err
    assert f"dudo serve: cannot listen on {host}:{port}: {said}" in err
    assert "Traceback" not in err
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(("seed", "said"), [
    ("-1", "argument --seed: -1: a seed is a whole number from 0"),
    ("seven", "argument --seed: 'seven' is not a whole number"),
])
def test_a_seed_that_is_no_seed_is_named(
    capsys: pytest.CaptureFixture[str], seed: str, said: str
) -> None:
    # Before, -1 got numpy's "expected non-negative integer", naming no option.
    assert main(["serve", "--sim", "--seed", seed]) == 2
    assert said in capsys.readouterr().err


def test_a_host_name_that_cannot_be_looked_up_yet_is_tried_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # At boot the name server may not be reached yet: exit 1, so that systemd tries again
    # (a name that does not exist is a mistake in the config: exit 2, above).
    def no_name_server_yet(*args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", no_name_server_yet)
    port = free_port()
    assert run_serve(["--sim", "--host", "dudo-table.lan", "--port", str(port), "--data",
                      str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err
    assert (f"dudo serve: cannot listen on dudo-table.lan:{port}: dudo-table.lan cannot be"
            " looked up yet (Temporary failure in name resolution)") in err
    assert not (tmp_path / "data").exists()


def test_a_start_that_fails_leaves_the_data_directory_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, a damaged journal was mended, and a hold and a session key made, and only then
    # was the host found not to resolve.
    data = tmp_path / "data"
    a_game_in(data)
    garble(data / "journal.sqlite3", "sqlite_autoindex_actions_1")
    before = {p.name: p.read_bytes() for p in data.iterdir()}
    assert run_serve(["--sim", "--host", "nosuch.invalid", "--port", str(free_port()),
                      "--pin", PIN, "--data", str(data)]) == 2
    assert "nosuch.invalid does not resolve" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in data.iterdir()} == before


def test_a_data_directory_that_cannot_be_made_stops_serve_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "card").write_text("a file, not a directory")
    code = run_serve(["--sim", "--host", "127.0.0.1", "--port", str(free_port()), "--data",
                      str(tmp_path / "card" / "data")])
    assert code == 2
    err = capsys.readouterr().err
    assert "cannot create the data directory" in err and "use --data DIR" in err


def test_a_data_directory_that_is_a_file_is_named_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "card").write_text("a file, not a directory")
    code = run_serve(["--sim", "--host", "127.0.0.1", "--port", str(free_port()), "--data",
                      str(tmp_path / "card")])
    assert code == 2
    assert "it is a file, not a folder" in capsys.readouterr().err


@pytest.mark.parametrize("barred", ["data", "its parent"])
def test_a_data_directory_the_service_user_may_not_enter_is_named_so(
    tmp_path: Path, barred: str
) -> None:
    # Before, a traceback (exit status 1, so systemd tried again and again); and until
    # session 58 a parent folder that may not be gone through was named as the data folder.
    data = tmp_path / "parent" / "data"
    data.mkdir(parents=True)
    (data / "journal.sqlite3").write_bytes(b"")
    folder = data if barred == "data" else data.parent
    folder.chmod(0o000)
    # Root enters any folder: run as root without that power, as the service user would be.
    as_user = (["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]
               if os.geteuid() == 0 else [])
    try:
        result = subprocess.run(
            [*as_user, sys.executable, "-m", "companion.cli", "serve", "--sim", "--host",
             "127.0.0.1", "--port", str(free_port()), "--pin", PIN, "--data", str(data)],
            capture_output=True, text=True, env=OUTSIDE_SYSTEMD, timeout=120, check=False,
        )
    finally:
        folder.chmod(0o755)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    mend = (f"make {data} the service user's" if barred == "data" else
            f"the service user may not go through {folder}: let it (sudo chmod o+x {folder}),"
            " or give the table another --data DIR")
    assert result.stderr.strip().splitlines()[-1] == (
        f"dudo serve: cannot look at the journal {data / 'journal.sqlite3'} (Permission"
        f" denied): {mend}, then start the table again")


def test_a_port_below_1024_without_the_privilege_stops_the_start_for_good(
    tmp_path: Path,
) -> None:
    # Exit status 2, which systemd does not retry (1 had it try every 2 s for ever).
    config = tmp_path / "table.toml"
    config.write_text("[server]\nport = 81\n")
    as_user = (["setpriv", "--bounding-set=-net_bind_service"] if os.geteuid() == 0 else [])
    result = subprocess.run(
        [*as_user, sys.executable, "-m", "companion.cli", "serve", "--sim", "--host",
         "127.0.0.1", "--pin", PIN, "--data", str(tmp_path / "data"), "--config", str(config)],
        capture_output=True, text=True, env=OUTSIDE_SYSTEMD, timeout=120, check=False,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        "dudo serve: cannot listen on 127.0.0.1:81: Permission denied (a port below 1024 needs"
        " privileges the service does not have: set [server] port, e.g. 8080)")
    assert not (tmp_path / "data").exists()


def test_every_ipv6_address_is_said_to_be_ipv6_only_and_its_addresses_answer(
    tmp_path: Path,
) -> None:
    # waitress takes IPv6 alone on "::": before, the addresses printed were IPv4's
    # (127.0.0.1, the LAN's), none of them answering (a helper's audit).
    served = Served(["--sim", "--pin", PIN, "--host", "::"], tmp_path / "data")
    try:
        deadline = time.monotonic() + 60
        while "  PIN:" not in served.output():
            assert served.process.poll() is None and time.monotonic() < deadline, served.output()
            time.sleep(0.1)
        pages = re.findall(r"  page: (\S+)", served.output())
        assert pages == [f"http://{socket.gethostname()}.local:{served.port}/",
                         f"http://[::1]:{served.port}/"], served.output()
        assert 'note: [server] host "::" takes IPv6 addresses only' in served.output()
        with urllib.request.urlopen(pages[-1] + "api/state", timeout=20) as answer:
            assert answer.status == 200
    finally:
        assert served.stop() == 0, served.output()


def test_a_host_that_is_no_address_of_this_machine_is_tried_again_and_said(
    tmp_path: Path,
) -> None:
    # Exit status 1, as at boot before a fixed address is up; before, it said only "Cannot
    # assign requested address", systemd trying again for ever (a helper's audit).
    result = subprocess.run(
        [sys.executable, "-m", "companion.cli", "serve", "--sim", "--pin", PIN, "--host",
         "192.0.2.77", "--port", str(free_port()), "--data", str(tmp_path / "data")],
        capture_output=True, text=True, env=OUTSIDE_SYSTEMD, timeout=120, check=False,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert ("192.0.2.77 is no address of this machine, not yet at least: if it is not to be,"
            " set [server] host to one of its addresses, or 0.0.0.0 for every one") in (
        result.stderr)


def test_a_data_directory_on_a_file_system_without_locks_is_played_on_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Before, such a file system (flock: ENOLCK) ended the start with a traceback and exit
    # status 1, tried again for ever (a helper's audit); "is another table on it?" was
    # already left to the hold there.
    import errno
    import fcntl

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    data = tmp_path / "data"
    with ExitStack() as stack:
        table = built(data, stack).table
        assert table.new_game({"game": "dudo-record/1", "rules": "perudo",
                               "players": ["Ana", "Ben"]}).ok
    assert f"{data} cannot be held (its file system takes no locks: No locks available)" in (
        caplog.text)


def test_a_camera_that_hangs_as_it_starts_leaves_the_table_to_start_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A device source on a pipe no one writes to: OpenCV waits in its open for ever, as a
    # camera that hangs at start would; the table starts with the reveal typed by hand.
    from companion import camera as opening
    from companion.config import load_config

    fifo = tmp_path / "camera.fifo"
    os.mkfifo(fifo)
    config = tmp_path / "table.toml"
    config.write_text(f'[camera]\nsource = "device:{fifo}"\n')
    monkeypatch.setattr(opening, "CAMERA_START_S", 1.0)
    started = time.monotonic()
    try:
        camera, _, why, reopen = opening.open_camera(load_config(config), sim=False, seed=None)
        assert camera is None and reopen is not None
        assert why == "no camera: it did not start within 1 s; enter the reveal by hand"
        assert time.monotonic() - started < 10
        # At a call, while that start still hangs, it is not tried again (nor waited on).
        assert reopen() == (None, why) and time.monotonic() - started < 10
    finally:
        with open(fifo, "wb"):  # a writer at last: the hung open ends, and its thread
            pass


def test_a_camera_that_starts_late_is_taken_at_the_next_call_not_left_holding_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, a camera whose start ended after CAMERA_START_S was left open and unused: a
    # Pi camera so held (Picamera2 keeps every camera it opened) made each later open find
    # it busy, every reveal typed by hand until a restart (a helper's audit). A folder of
    # frames stands for it, its start made slow.
    from companion import camera as opening
    from companion.config import load_config
    from vision.sources import FolderSource

    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "1.png").write_bytes(cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1])
    config = tmp_path / "table.toml"
    config.write_text(f"[camera]\nsource = 'folder:{frames}'\n")
    begun = threading.Event()
    slow_start, opened = FolderSource.start, []

    def start(self: FolderSource) -> None:
        opened.append(self)
        begun.wait(10)  # until the table has gone on without it
        slow_start(self)

    monkeypatch.setattr(FolderSource, "start", start)
    monkeypatch.setattr(opening, "CAMERA_START_S", 0.5)
    camera, _, why, reopen = opening.open_camera(load_config(config), sim=False, seed=None)
    assert camera is None and reopen is not None
    assert why == "no camera: it did not start within 0.5 s; enter the reveal by hand"
    assert reopen() == (None, why)  # still starting: not opened again
    begun.set()
    deadline = time.monotonic() + 10
    while reopen.camera is None:
        assert time.monotonic() < deadline, "the camera that started late was not taken"
        camera, said = reopen()
        time.sleep(0.05)
    assert len(opened) == 1 and reopen.camera is opened[0] and said is None
    reopen.close()


def test_a_panel_output_that_cannot_start_is_said_and_the_buttons_still_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # gpiozero's mock pins as a Pi's pin library with no PWM: the default map's tonal buzzer
    # cannot start. Before, it took every button down with it: the whole panel was off.
    from hardware.sim import MockPanelDriver

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    config = tmp_path / "table.toml"
    config.write_text(f"[camera]\nsource = 'folder:{tmp_path / 'frames'}'\n")  # none there
    with ExitStack() as stack:
        companion = build(load_config(config, data=tmp_path / "data"), sim=False, seed=None,
                          stack=stack)
        table = companion.table
        assert table.state()["faults"]["gpio"] == (
            "part of the table's panel is not working (buzzer (GPIO18): PinPWMUnsupported):"
            " its other buttons and lights are")
        header = {"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"]}
        assert table.new_game(header).ok
        MockPanelDriver(companion.panel).press("dial")
        assert table.state()["bid"]["player"] == "Ana"


def test_a_camera_missing_at_start_is_opened_at_the_next_call_and_reads_its_reveal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, a camera missing at start was never tried again: every reveal was typed in by
    # hand, the page showing the camera's fault, until the service was restarted.
    from companion.web import create_app
    from vision.simulate import SimulatedCamera

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")  # this machine's pins are no Pi's
    frames = tmp_path / "frames"  # the camera: not there as the table starts
    config = tmp_path / "table.toml"
    config.write_text(f"[camera]\nsource = 'folder:{frames}'\n")
    with ExitStack() as stack:
        table = build(load_config(config, data=tmp_path / "data"), sim=False, seed=None,
                      stack=stack).table
        page = create_app(table, {"TABLE_PIN": PIN, "TESTING": True}).test_client()
        pin = {"X-Table-Pin": PIN}

        def state() -> Any:
            return page.get("/api/state").get_json()

        assert state()["faults"]["camera"] == (
            f"no camera: folder:{frames}: no such folder; enter the reveal by hand")
        frames.mkdir()  # plugged in: a picture of the glass, Ana's ace and Ben's six on it
        glass = SimulatedCamera(seed=1)
        glass.start()
        glass.set_dice({"Ana": [1], "Ben": [6]})
        cv2.imwrite(str(frames / "glass.png"), glass.capture())
        header = {"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"],
                  "options": {"dice": 1}}
        assert page.post("/api/game", json=header, headers=pin).status_code == 201
        bid = {"action": "bid", "player": "Ana", "quantity": 2, "face": 6}
        assert page.post("/api/actions", json=bid, headers=pin).status_code == 200
        assert table.wait_idle(5)
        assert "camera" in state()["faults"] and not state()["camera"]  # not opened before
        dudo = {"action": "dudo", "player": "Ben"}
        assert page.post("/api/actions", json=dudo, headers=pin).status_code == 200
        assert table.wait_idle(60)
        after = state()
        assert "camera" not in after["faults"] and after["camera"]
        assert after["reading"]["applied"] and after["reading"]["total"] == 2
        assert after["winner"] == "Ana"  # one ace and one six: two sixes, the bid stood


def test_the_simulated_camera_is_read_at_its_own_die_size_not_the_real_camera_s(
    tmp_path: Path,
) -> None:
    # A config calibrated on the Pi's camera (2592x1944, dice 60 px): `dudo serve --sim` with
    # it reads the simulated 1280x960 frames at their own 48 px, not at 60 px scaled to 30.
    from companion.camera import open_camera

    config = tmp_path / "table.toml"
    config.write_text("[camera]\nsource = 'picamera2'\nwidth = 2592\nheight = 1944\n"
                      "[vision]\ndie_size = 60.0\nmarks = [[640.0, 480.0]]\n")
    camera, reader, why, _ = open_camera(load_config(config), sim=True, seed=1)
    assert why is None and reader is not None
    try:
        for seed in range(4):
            dice = {"Ana": [(seed + k) % 6 + 1 for k in range(5)], "Ben": [6, 2, 1, 5, 3]}
            camera.set_dice(dice)
            reading = reader.read(camera.capture(), {"Ana": 5, "Ben": 5})
            assert sorted(d.face for d in reading.dice) == sorted(dice["Ana"] + dice["Ben"])
    finally:
        camera.close()


def test_a_camera_above_the_table_is_read_as_seen_from_above(tmp_path: Path) -> None:
    # The README offered [seats] clockwise = true for a camera above the table, but every
    # reveal was read as from under the glass: each face as 7 minus it, applied where every
    # player's count matched. The simulated camera looks from where the config says.
    from companion.camera import open_camera

    config = tmp_path / "table.toml"
    config.write_text("[camera]\nsource = 'sim'\nview = 'above'\nwidth = 1280\nheight = 960\n")
    camera, reader, why, _ = open_camera(load_config(config), sim=False, seed=1)
    assert why is None and reader is not None
    try:
        dice = {"Ana": [1, 1, 2, 4, 6], "Ben": [6, 6, 5, 3, 3]}
        camera.set_dice(dice)
        frame = camera.capture()
        assert camera.last_scene.view == "above"
        reading = reader.read(frame, {"Ana": 5, "Ben": 5})
        assert sorted(d.face for d in reading.dice) == sorted(dice["Ana"] + dice["Ben"])
    finally:
        camera.close()
    config.write_text("[camera]\nview = 'sideways'\n")
    with pytest.raises(ValueError, match=r"\[camera\] view = 'sideways': must be \"below\""
                                         r" \(under the glass\) or \"above\""):
        load_calibration(config)


def built(data: Path, stack: ExitStack) -> Any:
    """The companion ``dudo serve --sim`` builds on the data directory ``data``."""
    config = load_config(None, host="127.0.0.1", port=free_port(), pin=PIN, data=str(data))
    return build(config, sim=True, seed=1, stack=stack)


def test_a_simulated_table_started_again_finds_the_same_dice_under_the_cups(
    tmp_path: Path,
) -> None:
    # Before, with no --seed the cups rolled anew at each start: a table stopped in the middle
    # of a reveal (before its picture) showed other dice once started again.
    data = tmp_path / "data"
    config = load_config(None, host="127.0.0.1", port=free_port(), pin=PIN, data=str(data))
    header = {"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben", "Caro"]}
    with ExitStack() as stack:
        first = build(config, sim=True, seed=None, stack=stack)
        assert first.table.new_game(header).ok
        assert first.table.submit({"action": "bid", "player": "Ana", "quantity": 2, "face": 3}).ok
        under = first.cups.dice()
    assert sorted(under) == ["Ana", "Ben", "Caro"] and all(len(d) == 5 for d in under.values())
    with ExitStack() as stack:
        assert build(config, sim=True, seed=None, stack=stack).cups.dice() == under
    # Another table (another data directory) rolls its own.
    other = load_config(None, host="127.0.0.1", port=free_port(), pin=PIN,
                        data=str(tmp_path / "other"))
    with ExitStack() as stack:
        again = build(other, sim=True, seed=None, stack=stack)
        assert again.table.new_game(header).ok
        assert again.cups.dice() != under


def a_game_in(data: Path) -> dict[str, Any]:
    """A journal holding a game of three bids, as a table left it; that game's state."""
    from companion.journal import Journal
    from companion.table import Table

    journal = Journal.in_directory(data)
    table = Table(journal=journal)
    table.new_game({"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"]})
    for player, quantity in (("Ana", 2), ("Ben", 3), ("Ana", 4)):
        assert table.submit({"action": "bid", "player": player, "quantity": quantity,
                             "face": 5}).ok
    state = table.state()
    table.close()
    journal.close()
    return state


def garble(journal: Path, table: str) -> None:
    """Write over the first page of ``table`` (or index) in the journal file, as a failing
    card does."""
    import sqlite3

    with closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as db:
        (page,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                             (table,)).fetchone()
    write_over(journal, page)


def kept_journal(data: Path) -> Path:
    (kept,) = (p for p in data.glob("journal.sqlite3.damaged-*")
               if not p.name.endswith(("-wal", "-shm")))
    return kept


def test_a_journal_whose_index_is_damaged_is_set_aside_and_its_game_taken_up_whole(
    tmp_path: Path,
) -> None:
    # Before, `dudo serve` stopped with exit status 2 ("database disk image is malformed"),
    # which systemd does not retry: the table stayed down until someone mended the card.
    data = tmp_path / "data"
    before = a_game_in(data)
    garble(data / "journal.sqlite3", "sqlite_autoindex_actions_1")
    damaged = (data / "journal.sqlite3").read_bytes()
    with ExitStack() as stack:
        table = built(data, stack).table
        state = table.state()
        kept = kept_journal(data)
        assert state["faults"]["salvaged"] == (
            f"the journal was damaged (the card?): it is kept as {kept}; a new one holds the 1"
            " game read from it, each up to its first damaged row")
        assert kept.read_bytes() == damaged  # kept whole, for whoever mends it by hand
        assert state["bids"] == before["bids"] and state["turn"] == "Ben"
        assert table.submit({"action": "dudo", "player": "Ben"}).ok  # a journal that writes
        assert "salvaged" in table.state()["faults"]  # said until a new game
        assert table.new_game({"game": "dudo-record/1", "players": ["Ana", "Ben"]}).ok
        assert "salvaged" not in table.state()["faults"]
    assert not list(data.glob("*.salvaging*"))


def test_a_salvage_is_said_after_a_restart_too_until_a_new_game(tmp_path: Path) -> None:
    # Before, the notice lived in memory only: a power cut (or any restart) right after the
    # salvage and nobody was ever told that the journal had been damaged.
    data = tmp_path / "data"
    a_game_in(data)
    garble(data / "journal.sqlite3", "sqlite_autoindex_actions_1")
    with ExitStack() as stack:
        said = built(data, stack).table.state()["faults"]["salvaged"]
    assert said.startswith("the journal was damaged (the card?): it is kept as ")
    with ExitStack() as stack:  # restarted: nothing more to mend, the notice still stands
        table = built(data, stack).table
        assert table.state()["faults"]["salvaged"] == said
    kept = kept_journal(data)
    kept.rename(tmp_path / "sent-to-be-mended.sqlite3")  # someone took it away to mend it
    with ExitStack() as stack:
        table = built(data, stack).table
        assert table.state()["faults"]["salvaged"].startswith(
            f"the journal was damaged (the card?): it was kept beside it as {kept.name}, moved"
            " or removed since; a new one holds the 1 game")
        assert table.new_game({"game": "dudo-record/1", "players": ["Ana", "Ben"]}).ok
    with ExitStack() as stack:
        assert "salvaged" not in built(data, stack).table.state()["faults"]
    assert said.endswith(f"it is kept as {kept}; a new one holds the 1 game read"
                         " from it, each up to its first damaged row")  # one kept, once


def test_a_power_cut_s_journal_is_kept_as_it_was_and_its_wal_salvaged_too(
    tmp_path: Path,
) -> None:
    # The actions after the last checkpoint are only in the WAL: a connection that may write
    # would fold it into the damaged file as it closed, and the file kept would not be it.
    from companion.journal import Journal

    table_dir, data = tmp_path / "table", tmp_path / "data"
    a_game_in(table_dir)
    journal = Journal.in_directory(table_dir)
    journal.append(1, 4, {"action": "dudo", "player": "Ben"})
    data.mkdir()
    for name in ("journal.sqlite3", "journal.sqlite3-wal"):  # the card, as the power went
        (data / name).write_bytes((table_dir / name).read_bytes())
    journal.close()
    garble(data / "journal.sqlite3", "dropped")  # a table the WAL does not hold
    damaged = {n: (data / n).read_bytes() for n in ("journal.sqlite3", "journal.sqlite3-wal")}
    assert damaged["journal.sqlite3-wal"]
    with ExitStack() as stack:
        state = built(data, stack).table.state()
        kept = kept_journal(data)
        assert kept.read_bytes() == damaged["journal.sqlite3"]
        assert (data / f"{kept.name}-wal").read_bytes() == damaged["journal.sqlite3-wal"]
        assert state["phase"] == "reveal" and state["call"]["caller"] == "Ben"  # the WAL's row


def test_a_salvage_cut_off_is_done_again_or_finished_at_the_next_start(
    tmp_path: Path,
) -> None:
    from companion.salvage import finish, mend

    data = tmp_path / "data"
    before = a_game_in(data)
    garble(data / "journal.sqlite3", "sqlite_autoindex_actions_1")
    # Cut off while copying: a part of a new journal beside the damaged one, still in place.
    (data / "journal.sqlite3.salvaging").write_bytes(b"half a journal")
    (data / "journal.sqlite3.salvaging-wal").write_bytes(b"and its WAL")
    with ExitStack() as stack:
        assert built(data, stack).table.state()["bids"] == before["bids"]
    # Cut off between setting the damaged one aside and putting the new one in its place.
    garble(data / "journal.sqlite3", "sqlite_autoindex_actions_1")
    mend(data / "journal.sqlite3")
    (data / "journal.sqlite3").rename(data / "journal.sqlite3.salvaged")
    with ExitStack() as stack:
        state = built(data, stack).table.state()
        assert state["bids"] == before["bids"]
        assert "it is kept as " in state["faults"]["salvaged"]
    assert not finish(data / "journal.sqlite3")  # nothing left to finish
    assert not list(data.glob("*.salvag*"))


def test_a_journal_written_over_starts_a_new_one_and_says_nothing_could_be_read(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    a_game_in(data)
    (data / "journal.sqlite3").write_text("not a database at all\n" * 300)
    with ExitStack() as stack:
        table = built(data, stack).table
        fault = table.state()["faults"]["salvaged"]
        assert fault.endswith("; a new one holds no game: none could be read from it")
        assert table.state()["phase"] == "setup"
        assert table.new_game({"game": "dudo-record/1", "players": ["Ana", "Ben"]}).ok


def test_a_second_table_on_the_same_data_directory_is_refused_while_the_first_runs(
    tmp_path: Path,
) -> None:
    # Before, both started: the second's writes failed with "UNIQUE constraint failed".
    data = tmp_path / "data"
    with ExitStack() as first:
        built(data, first)
        with pytest.raises(StartError, match=f"another dudo serve \\(pid {os.getpid()}\\)"
                                             f" uses {data}: stop it first"), ExitStack() as second:
            built(data, second)
    with ExitStack() as again:  # the first gone, the folder is free
        assert built(data, again).table.state()["faults"] == {}


def test_a_pid_file_removed_as_stale_lets_no_second_table_on_the_data_directory(
    tmp_path: Path,
) -> None:
    # Before, the lock was the pid file's: removed, a second table started on the same
    # journal, and its actions failed with "UNIQUE constraint failed".
    data = tmp_path / "data"
    with ExitStack() as first:
        built(data, first)
        (data / "table.pid").unlink()
        with pytest.raises(StartError, match=f"another dudo serve \\(pid \\?\\) uses {data}"
                           ), ExitStack() as second:
            built(data, second)


def test_a_journal_cut_to_nothing_is_set_aside_and_said_not_taken_for_a_new_one(
    tmp_path: Path,
) -> None:
    # Before, SQLite took the empty file for a new journal: every game gone, nothing said.
    data = tmp_path / "data"
    a_game_in(data)
    (data / "journal.sqlite3").write_bytes(b"")
    with ExitStack() as stack:
        fault = built(data, stack).table.state()["faults"]["salvaged"]
        kept = sorted(p.name for p in data.glob("journal.sqlite3.damaged-*"))
        assert len(kept) == 1 and (data / kept[0]).stat().st_size == 0
        assert f"it is kept as {data / kept[0]}" in fault


def test_a_journal_that_can_only_be_read_is_said_on_the_page_from_the_start(
    tmp_path: Path,
) -> None:
    # Before, nothing showed until the first tap was refused.
    data = tmp_path / "data"
    a_game_in(data)
    (data / "journal.sqlite3-wal").mkdir()  # SQLite cannot open its WAL: it opens read-only
    with ExitStack() as stack:
        table = built(data, stack).table
        state = table.state()
        assert state["faults"]["journal"].startswith("the journal can only be read (cannot open")
        assert state["faults"]["journal"].endswith(
            f"so every action is refused: {data} cannot be written: make it the service user's,"
            " on a card that is not read-only; the table takes actions again by itself once the"
            " journal can be written")
        assert state["turn"] == "Ben"
        refused = table.submit({"action": "dudo", "player": "Ben"})
        assert not refused.ok
        # The refusal says why as the page does; the page keeps saying what to do.
        assert refused.error == f"cannot save the game: {state['faults']['journal']}"
        assert table.state()["faults"]["journal"] == state["faults"]["journal"]


def _mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a card needs root (CI runs as root)")
@pytest.mark.parametrize("index", ["kept", "lost", "lost, no room to copy"])
def test_a_card_made_read_only_after_a_power_cut_is_written_again_once_it_can_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: str
) -> None:
    # Before, SQLite opened the journal to be read without a word (no fault on the page), and
    # once the card could be written again the table still refused every action until a
    # restart: the read-only journal's index (-shm), shared in the process, kept every new
    # open read-only.
    import shutil

    from companion import kept_journal
    from companion.journal import Journal
    from companion.start_errors import StartError
    from companion.table import Table

    monkeypatch.setattr("companion.kept_journal.JOURNAL_RETRY_S", 0.2)
    card = tmp_path / "card"
    card.mkdir()
    if not _mount("-t", "tmpfs", "-o", "size=16m", "tmpfs", str(card)):
        # Root without the right to mount (a container): the journal's own tests above
        # still show the read-only card refused and said.
        pytest.skip("root here may not mount a file system")
    try:
        data, played = card / "data", tmp_path / "played"
        journal = Journal.in_directory(played)
        table = Table(journal=journal)
        table.new_game({"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"]})
        assert table.submit({"action": "bid", "player": "Ana", "quantity": 2, "face": 5}).ok
        # The files as a power cut leaves them: the WAL holds the game, not yet folded back.
        shutil.copytree(played, data)
        journal.close()
        assert (data / "journal.sqlite3-wal").stat().st_size > 0
        if index.startswith("lost"):
            # No WAL index either: SQLite cannot read the WAL on a card it may not write.
            # Before, the file was read alone: the game as it stood before the WAL's moves,
            # and every action refused once the card could be written, until a restart. It
            # is read from a copy in memory.
            (data / "journal.sqlite3-shm").unlink()
        copy = kept_journal.copy_folder(data / "journal.sqlite3")
        if index == "lost, no room to copy":
            # /dev/shm full: before, the start ended with status 2, which systemd never
            # tries again, the card mended or not (a helper's audit of session 90's mends).
            memory = tmp_path / "shm"
            memory.mkdir()
            assert _mount("-t", "tmpfs", "-o", "size=8k", "tmpfs", str(memory))
            copy = memory / "dudo-journal"
            monkeypatch.setattr(kept_journal, "copy_folder", lambda path: copy)
        assert _mount("-o", "remount,ro", str(card))
        if index == "lost, no room to copy":
            try:
                with ExitStack() as stack, pytest.raises(StartError) as refused:
                    built(data, stack)
                assert refused.value.status == 1, refused.value  # systemd tries again
                assert "nor can the newest moves, in its WAL, be read from a copy" in str(
                    refused.value) and "free room in /dev/shm" in str(refused.value)
                assert not copy.exists()  # the part copied is not left in memory
            finally:
                subprocess.run(["umount", str(memory)], capture_output=True)
            return
        with ExitStack() as stack:
            table = built(data, stack).table
            state = table.state()
            assert state["faults"]["journal"].startswith("the journal can only be read")
            assert state["turn"] == "Ben"
            assert copy.is_dir() == (index == "lost")
            bid = {"action": "bid", "player": "Ben", "quantity": 3, "face": 5}
            assert not table.submit(bid).ok
            assert _mount("-o", "remount,rw", str(card))
            deadline = time.monotonic() + 10
            while "journal" in table.state()["faults"]:
                assert time.monotonic() < deadline, "the journal was not taken up again"
                time.sleep(0.05)
            assert table.submit(bid).ok
            # The copy goes once the journal is taken again (before, at the stop only: a
            # killed run left it in memory, each restart adding one).
            deadline = time.monotonic() + 10
            while copy.exists():
                assert time.monotonic() < deadline, "the copy in memory was left"
                time.sleep(0.05)
        with ExitStack() as again:  # kept on the card
            assert len(built(data, again).table.state()["bids"]) == 2
    finally:
        subprocess.run(["umount", str(card)], capture_output=True)


def test_the_journal_s_copy_in_memory_is_made_beside_whatever_is_in_its_way(
    tmp_path: Path,
) -> None:
    # The copy has one name a journal: before, a file or another user's folder there (the
    # sticky /dev/shm) failed every start, for ever (a helper's audit of session 91's mend).
    from companion import kept_journal
    from companion.journal import Journal
    from companion.table import Table

    played = tmp_path / "played"
    journal = Journal.in_directory(played)
    table = Table(journal=journal)
    table.new_game({"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"]})
    path = played / "journal.sqlite3"
    in_the_way = kept_journal.copy_folder(path)
    in_the_way.write_text("another user's\n")
    try:
        copy = kept_journal._copied_in_memory(path, path.with_name(path.name + "-wal"))
        assert copy.parent != in_the_way and copy.parent.parent == in_the_way.parent
        assert len(Journal(f"{copy.as_uri()}?mode=ro", uri=True).games()) == 1
        shutil.rmtree(copy.parent)
    finally:
        in_the_way.unlink()
        journal.close()


def no_room() -> None:
    """Every write of the process fails, as on a card that is full or failing (files are
    still made, empty)."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def test_a_full_card_at_start_shows_the_game_and_takes_actions_once_there_is_room(
    tmp_path: Path,
) -> None:
    # Before, the journal stayed read-only until someone restarted the table by hand.
    import resource

    data = tmp_path / "data"
    a_game_in(data)
    served = Served(["--sim", "--pin", PIN], data, preexec=no_room_for_now)
    try:
        served.wait_ready()
        state = served.request("/api/state")[1]
        assert state["turn"] == "Ben" and state["bid"]["quantity"] == 4
        assert state["faults"]["journal"].startswith("the journal can only be read")
        assert state["faults"]["journal"].endswith(
            "the table takes actions again by itself once the journal can be written")
        bid = {"action": "bid", "player": "Ben", "quantity": 5, "face": 5}
        assert served.request("/api/actions", bid)[0] == 422
        room = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
        resource.prlimit(served.process.pid, resource.RLIMIT_FSIZE, room)  # space freed
        deadline = time.monotonic() + 3 * JOURNAL_RETRY_S
        while "journal" in served.request("/api/state")[1]["faults"]:
            assert time.monotonic() < deadline, "the journal was not taken up again"
            time.sleep(0.2)
        status, answer = served.request("/api/actions", bid)
        assert status == 200, answer
        status, listed = served.request("/api/games")  # from the journal now written
        assert status == 200 and len(listed["games"]) == 1, listed
    finally:
        assert served.stop() == 0, served.output()
    again = Served(["--sim", "--pin", PIN], data)  # the bid was kept on the card
    try:
        again.wait_ready()
        state = again.request("/api/state")[1]
        assert state["faults"] == {} and state["bid"]["quantity"] == 5
    finally:
        again.stop()


def no_room_for_now() -> None:
    """As ``no_room``, until the limit is lifted from outside (``resource.prlimit``)."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))


def serve_on_a_full_card(data: Path) -> subprocess.CompletedProcess[str]:
    """``dudo serve --sim`` on ``data``, every write failing: as it ended."""
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", "serve", "--sim", "--host", "127.0.0.1",
         "--port", str(free_port()), "--pin", PIN, "--data", str(data)],
        capture_output=True, text=True, preexec_fn=no_room, env=OUTSIDE_SYSTEMD, timeout=120,
        check=False,
    )


def test_a_card_that_takes_no_write_at_start_is_retried_by_systemd_not_given_up(
    tmp_path: Path,
) -> None:
    # Exit status 2 (a mistake in the config) is never retried: a full card was one.
    data = tmp_path / "data"
    result = serve_on_a_full_card(data)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"dudo serve: cannot open the journal {data / 'journal.sqlite3'}: disk I/O error: the"
        " card fails to write (full, or failing): free some space on it, or put in another,"
        " then start the table again (systemd tries again by itself)")


def test_a_new_table_on_a_full_card_leaves_no_journal_and_starts_new_once_there_is_room(
    tmp_path: Path,
) -> None:
    # Before, the first start left an empty journal, the next ones a salvage's empty file too,
    # and once there was room the empty journal was set aside as damaged, the page saying so.
    data = tmp_path / "data"
    for _ in range(2):  # systemd tries again while the card is still full
        result = serve_on_a_full_card(data)
        assert result.returncode == 1 and "cannot open the journal" in result.stderr
        assert sorted(p.name for p in data.iterdir()) == ["table.pid"]
    with ExitStack() as stack:  # space freed: a new table, nothing said
        state = built(data, stack).table.state()
        assert state["faults"] == {} and state["phase"] == "setup"
    assert sorted(p.name for p in data.glob("journal.sqlite3*")) == ["journal.sqlite3"]


@pytest.mark.parametrize("there", [[], ["journal.sqlite3"], ["journal.sqlite3-wal"]],
                         ids=["a new journal", "an empty one", "a WAL alone"])
def test_a_journal_the_card_cannot_hold_leaves_no_file_it_made_and_every_one_there_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, there: list[str]
) -> None:
    from companion.journal import Journal, JournalError

    tmp_path.joinpath("data").mkdir()
    for name in there:
        (tmp_path / "data" / name).write_bytes(b"there before")
    with monkeypatch.context() as full:
        card_full_for(full, "journal.sqlite3")
        with pytest.raises(JournalError, match="database or disk is full"):
            Journal.in_directory(tmp_path / "data")
    assert {p.name: p.read_bytes() for p in (tmp_path / "data").iterdir()} == dict.fromkeys(
        there, b"there before")


def test_a_damaged_journal_on_a_full_card_is_kept_and_no_part_of_its_salvage_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, the salvage's new journal was left behind, empty, at each try.
    data = tmp_path / "data"
    a_game_in(data)
    garble(data / "journal.sqlite3", "sqlite_autoindex_actions_1")
    damaged = (data / "journal.sqlite3").read_bytes()
    with monkeypatch.context() as full:
        card_full_for(full, "journal.sqlite3.salvaging")
        for _ in range(2):  # systemd tries again while the card is still full
            with pytest.raises(CannotWriteYet, match="could not be mended now"):
                open_journal(data)
            assert not list(data.glob("*.salvag*")) and not list(data.glob("*.damaged-*"))
    assert (data / "journal.sqlite3").read_bytes() == damaged  # never removed
    with ExitStack() as stack:  # mended once there is room
        assert "salvaged" in built(data, stack).table.state()["faults"]


def test_a_damaged_journal_that_cannot_be_mended_now_is_left_as_it_was_and_retried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    a_game_in(data)
    garble(data / "journal.sqlite3", "sqlite_autoindex_actions_1")
    damaged = (data / "journal.sqlite3").read_bytes()
    blocked = data / "journal.sqlite3.salvaging-wal"
    blocked.mkdir()  # where the new journal's WAL must go: nothing can be written there
    assert run_serve(["--sim", "--host", "127.0.0.1", "--port", str(free_port()),
                      "--pin", PIN, "--data", str(data)]) == 1  # systemd tries again
    assert "could not be mended now" in capsys.readouterr().err
    assert (data / "journal.sqlite3").read_bytes() == damaged
    assert not list(data.glob("*.damaged-*")) and not list(data.glob("*.salvaged"))
    blocked.rmdir()
    with ExitStack() as stack:  # mended at the next start
        assert "salvaged" in built(data, stack).table.state()["faults"]


def test_the_join_qr_code_of_a_table_that_is_its_own_access_point_is_the_address_asked_by(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With no route out there is no network address to find; before, the QR code showed the
    # Pi's .local name, which older Android phones cannot open.
    import companion.addresses

    config = load_config(None, host="0.0.0.0", port=8080, pin=PIN, data=str(tmp_path / "d"))
    with ExitStack() as stack:
        phone = _web_app(build(config, sim=True, seed=1, stack=stack), config).test_client()
        monkeypatch.setattr(companion.addresses, "_lan_address", lambda: None)
        page = phone.get("/", base_url="http://10.42.0.1:8080/").get_data(as_text=True)
        assert "http://10.42.0.1:8080/" in page and ".local" not in page
        monkeypatch.setattr(companion.addresses, "_lan_address", lambda: "192.168.1.20")
        page = phone.get("/", base_url="http://10.42.0.1:8080/").get_data(as_text=True)
        assert "http://192.168.1.20:8080/" in page  # on a network: the Pi's address there


def test_a_table_the_watchdog_kills_first_logs_where_each_thread_was(tmp_path: Path) -> None:
    # systemd's watchdog kills a hung table with SIGABRT: with the unit's environment, Python
    # first prints every thread's stack to the journal, where the camera or the card hung.
    unit = (Path(__file__).resolve().parents[2] / "systemd" / "dudo-companion.service")
    (line,) = [x for x in unit.read_text().splitlines() if x.startswith("Environment=")]
    env = dict(item.split("=", 1) for item in line.removeprefix("Environment=").split())
    served = Served(["--sim", "--pin", PIN], tmp_path / "data", env)
    try:
        served.wait_ready()
        # The watchdog starts once the table has said READY, after its own request to the page:
        # killed while that request still ran, Python's dump of the threads read a thread that
        # was changing and died of SIGSEGV half-way (4 of 25 runs on the Pi's libraries); killed
        # while its connection closed, after "ready" was logged, 1 in about 25 runs here before
        # session 85 (ready is now said once the connection is closed).
        deadline = time.monotonic() + 30
        while ": ready" not in served.output() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # the threads of that request done with (a watchdog waits 30 s)
        served.process.send_signal(signal.SIGABRT)
        assert served.process.wait(timeout=30) == -signal.SIGABRT
    finally:
        served.stop()
    printed = served.output()
    assert "Fatal Python error: Aborted" in printed
    # (Up to 100 threads, newest first: a camera's or the panel's among them.)
    assert re.search(r'File ".*/(companion|hardware|vision)/\w+\.py", line \d+', printed)


def test_one_address_holding_its_share_of_connections_leaves_the_others_answered() -> None:
    # Before session 78 one laptop's requests it never finished (a "slowloris") took all 500
    # of waitress's connections: no phone was answered while it went on.
    from waitress import create_server

    def hello(environ: Any, start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"the table"]

    server = _within_limit_per_address(create_server(hello, host="127.0.0.1", port=0), 3)
    port = server.effective_port
    stop = run_in_a_thread(server)
    held = []
    try:
        for _ in range(3):  # requests it never finishes
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            held.append(sock)
        time.sleep(0.3)  # each taken by the server
        one_more = socket.create_connection(("127.0.0.1", port), timeout=5)
        held.append(one_more)
        one_more.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        answered = b""
        with contextlib.suppress(ConnectionResetError):  # a reset: the request unread
            answered = one_more.recv(100)
        assert answered == b""  # closed at once, unanswered
        phone = socket.create_connection(("127.0.0.1", port), timeout=5,
                                         source_address=("127.0.0.2", 0))
        held.append(phone)
        phone.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := phone.recv(4096):
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 200 OK") and answer.endswith(b"the table")
    finally:
        for sock in held:
            sock.close()
        stop()
