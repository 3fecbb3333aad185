"""Fixtures of the browser tests: ``dudo serve --sim`` in a subprocess (one per test module,
so each module starts from a fresh table), Debian's headless Chromium, a phone-sized page;
and the helpers every browser test uses."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

PIN = "7319"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
WAIT_MS = 30_000  # the machine may be busy (a model training next door): be patient


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def get_state(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(base + "/api/state", timeout=5) as answer:
        state: dict[str, Any] = json.load(answer)
        return state


def call_api(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST ``body`` to the table with the PIN, as a script would; the JSON answer (an error
    answer too: ``{"error": ...}``)."""
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-Table-Pin": PIN},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            data: dict[str, Any] = json.load(answer)
    except urllib.error.HTTPError as err:
        data = json.load(err)
    return data


def settled(base: str, timeout: float = 30.0) -> dict[str, Any]:
    """The table's state once no picture is being taken or read."""
    deadline = time.monotonic() + timeout
    while True:
        state = get_state(base)
        if not state.get("capturing") or time.monotonic() > deadline:
            return state
        time.sleep(0.05)


def new_game(base: str, players: list[str], rules: str = "dudo", **options: Any) -> dict[str, Any]:
    """A new game, by default of the encyclopedia's Dudo (pass, spot on, open or closed
    palifico), started through the API with the PIN."""
    header = {"game": "dudo-record/1", "rules": rules, "options": options, "players": players}
    answer = call_api(base, "/api/game", header)
    assert "state" in answer, answer
    return dict(answer["state"])


def act(base: str, **action: Any) -> dict[str, Any]:
    answer = call_api(base, "/api/actions", action)
    assert "state" in answer, answer
    return dict(answer["state"])


def finish_the_reveal(base: str) -> dict[str, Any]:
    """Once the camera has looked: the reading as it stands (applied when it matched), else
    the dice typed in, so the round is settled whatever the reader saw."""
    state = settled(base)
    if state["phase"] == "reveal":
        must = sum(state["expected_dice"].values())
        act(base, action="reveal", faces=[2] * must)
        state = settled(base)
    assert state["phase"] != "reveal", state
    return state


def start_serve(
    data: Path, port: int, config: Path | None = None, pin: str = PIN
) -> subprocess.Popen[bytes]:
    """``dudo serve --sim`` on ``port`` with its journal in ``data`` (and the ``config`` file
    given), once its page answers."""
    command = [sys.executable, "-m", "companion.cli", "serve", "--sim", "--pin", pin,
               "--host", "127.0.0.1", "--port", str(port), "--data", str(data), "--seed", "5",
               *(["--config", str(config)] if config else [])]
    log = (data / "serve.log").open("a")
    process = subprocess.Popen(
        command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"}
    )
    log.close()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            get_state(base)
            return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError((data / "serve.log").read_text()) from None
            time.sleep(0.2)


def stop_serve(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    process = start_serve(tmp_path_factory.mktemp("data"), port)
    yield f"http://127.0.0.1:{port}"
    stop_serve(process)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@contextlib.contextmanager
def phone_on(browser: Any, base: str) -> Iterator[Any]:
    """A phone-sized page on the table at ``base``; no error thrown in it, once closed."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, color_scheme="dark")
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(base)
    yield page
    context.close()
    assert not errors, errors


@pytest.fixture
def phone(browser: Any, server: str) -> Iterator[Any]:
    with phone_on(browser, server) as page:
        yield page


def open_page(browser: Any, server: str, viewport: dict[str, int], scheme: str) -> Any:
    """Another page on the table (another phone, a laptop), in its own context: no PIN yet."""
    context = browser.new_context(viewport=viewport, device_scale_factor=2, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(server)
    expect(page.locator("#live")).to_have_class("live on")
    return page


def text_size(page: Any, size: str) -> None:
    """Make ``page``'s text ``size`` ("200%"), as a phone's own setting does, and wait until
    the page has drawn itself again at that size."""
    page.add_style_tag(content=f"html {{ font-size: {size}; }}")
    page.wait_for_function("""() => !page.state || page.textFitted
        === parseFloat(getComputedStyle(document.documentElement).fontSize)""")


def shot(page: Any, name: str, full: bool = False) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full)
    return path


def wait_out_the_hold(page: Any, state: dict[str, Any] | None = None) -> None:
    """Wait until ``page`` shows ``state`` (its game and moves; without one, any state) and
    has let go of its buttons. After the game moves (a new game, another phone, the panel)
    the page holds every button that sends for a moment (app.js: ``held()``, the buttons
    marked ``data-held``), so that a tap meant for what was shown is not taken for the next
    state. Playwright's click waits for a disabled button, but a key press does not, and a
    tap before the page shows the move is made for the state before. The simulated panel takes
    no press for as long after another hand moved the turn; once the page has held and let
    go for that move, so has the panel (its moment began first), provided the page showed a
    state before the move (the first state a page shows is not held)."""
    page.wait_for_function(
        """(seen) => page.state && !held() && !document.querySelector("[data-held]")
            && (!seen || (page.state.game_id === seen[0] && page.state.moves === seen[1]))""",
        arg=None if state is None else [state["game_id"], state["moves"]],
    )


def shows(page: Any, state: dict[str, Any]) -> None:
    """Wait until ``page`` shows the table as ``state`` has it, or later: what a player acts
    on. The table's answer comes before its live feed has told the phone (on a busy host,
    long before): a test that pokes the page, or taps, at once acts on the state before."""
    page.wait_for_function(
        "([run, version]) => page.state && page.state.run === run && page.state.version >= version",
        arg=[state["run"], state["version"]],
    )


def dial_shown(page: Any, bid: str = "1\u00d72") -> None:
    """Wait until ``page`` shows the panel's dial on ``bid``. After a move or a new game the
    panel sets its dial anew, a state of its own that comes after the move's (on a busy host,
    well after): a test that puts a state of its own on the page, or watches it for changes,
    waits for it first."""
    expect(page.locator("#dial")).to_have_text(f"panel: {bid}")


def loaded(page: Any) -> None:
    """Wait until ``page`` has the game's history and the rules it asked for as it opened:
    either, answered late, redraws part of the page (the history list, the new-game form)."""
    page.wait_for_function("() => page.rules && page.historyHas")


def keep_notice(page: Any) -> None:
    """Keep the notice ``page`` shows up until it is tapped or another comes: it hides itself
    after 4 s, which a busy host can spend between showing it and a test's measuring or
    tapping it."""
    page.evaluate("clearTimeout(noticeTimer)")


def picture_in(page: Any) -> None:
    """Wait until the reveal card's picture has loaded: until then the card is shorter by
    the picture's height."""
    expect(page.locator("#reveal-img")).to_be_visible()
    page.wait_for_function(
        "() => { const i = document.getElementById('reveal-img');"
        " return i.complete && i.naturalWidth > 0; }"
    )


def take_control(page: Any) -> None:
    page.click("#lock")
    page.fill("#pin", PIN)
    page.click("#pin-form button[type=submit]")
    expect(page.locator("#lock")).to_have_class("lock on")


def open_form(phone: Any) -> None:
    """The new-game form, with the PIN, whether or not a game is on."""
    take_control(phone)
    if phone.locator("#another-game").is_visible():
        phone.once("dialog", lambda dialog: dialog.accept())
        phone.click("#another-game")
    expect(phone.locator("#new-game")).to_be_visible()
    expect(phone.locator("#seats .seat-row")).not_to_have_count(0)  # filled once the rules come


def wait_until_held(phone: Any, held: list[Any]) -> None:
    """Wait until the one request held by a route (its handler keeps the route in ``held``)
    has reached the test: the page may have sent it before Playwright hands its route over,
    which it does only while the test waits on it (seen in CI: the list still empty)."""
    for _ in range(500):
        if held:
            break
        phone.wait_for_timeout(20)
    assert len(held) == 1
