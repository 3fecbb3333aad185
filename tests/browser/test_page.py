"""The phone page in a real headless Chromium against ``dudo serve --sim`` in a subprocess.

A whole four-player game with two dice each is played from the page's virtual panel: the
PIN is entered, the game started, bids pushed on the dial, DUDO pressed, each reveal read
(or, when the camera cannot read it, typed in), through a palifico to the winner.
Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

PIN = "7319"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def get_state(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(base + "/api/state", timeout=5) as answer:
        state: dict[str, Any] = json.load(answer)
        return state


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("data")
    port = free_port()
    command = [sys.executable, "-m", "companion.cli", "serve", "--sim", "--pin", PIN,
               "--host", "127.0.0.1", "--port", str(port), "--data", str(data), "--seed", "5"]
    log = (data / "serve.log").open("w")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            get_state(base)
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError((data / "serve.log").read_text()) from None
            time.sleep(0.2)
    yield base
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def phone(browser: Any, server: str) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, color_scheme="dark")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(server)
    yield page
    context.close()
    assert not errors, errors


def shot(page: Any, name: str, full: bool = False) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full)
    return path


def wait_for_change(base: str, version: int, timeout: float = 15.0) -> dict[str, Any]:
    """The table's state once it has moved past ``version`` and no picture is being read."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = get_state(base)
        if state["version"] > version and not state.get("capturing"):
            return state
        time.sleep(0.05)
    raise AssertionError(f"the table did not move past version {version}")


def take_control(page: Any) -> None:
    page.click("#lock")
    page.fill("#pin", PIN)
    page.click("#pin-form button[type=submit]")
    page.wait_for_selector("#lock.on")


def test_a_watcher_without_the_pin_sees_the_table_but_no_controls(phone: Any) -> None:
    phone.locator("#live.on").wait_for(timeout=5000)
    assert phone.locator("#controls").is_hidden()
    assert phone.locator("#setup").is_hidden()
    assert phone.locator("#sim").is_hidden()
    phone.click("#lock")
    phone.fill("#pin", "0000")
    phone.click("#pin-form button[type=submit]")
    assert "wrong table PIN" in phone.locator("#pin-error").inner_text()


def test_a_whole_game_from_the_virtual_panel_to_a_palifico_and_a_winner(
    phone: Any, browser: Any, server: str
) -> None:
    take_control(phone)
    phone.locator("#setup").wait_for()
    phone.select_option("#preset", "perudo")
    phone.fill("#dice-each", "2")
    shot(phone, "01-new-game", full=True)
    phone.click("#new-game button[type=submit]")
    phone.locator("#players li").nth(3).wait_for()
    assert phone.locator("#players li .name").all_inner_texts() == ["Ana", "Ben", "Caro", "Dan"]
    assert phone.locator("#dice-totals").inner_text() == "8 dice in play \u00b7 0 lost"

    # A second phone, without the PIN, follows live.
    watcher = browser.new_context(viewport=PHONE, color_scheme="dark").new_page()
    watcher.goto(server)
    watcher.locator("#live.on").wait_for()

    state = get_state(server)
    saw_palifico = saw_bid_on_watcher = False
    for _ in range(60):
        if state["phase"] == "over":
            break
        version = state["version"]
        if state["phase"] == "bidding" and state["bid"] is None:
            phone.click("#sim [data-button=dial]")  # the lowest opening bid, for whoever opens
        elif state["phase"] == "bidding":
            if not saw_bid_on_watcher:
                bid = state["bid"]
                watcher.locator("#bid-by").filter(has_text=bid["player"]).wait_for()
                assert watcher.locator("#bid .qty").inner_text() == str(bid["quantity"])
                assert watcher.locator("#controls").is_hidden()
                shot(watcher, "00-watcher-bid")
                phone.evaluate("window.scrollTo(0, 0)")
                shot(phone, "00-control-bid")
                saw_bid_on_watcher = True
            phone.click("#sim [data-button=dudo]")
        elif phone.locator("#confirm-reading").is_visible():
            phone.click("#confirm-reading")
        elif state["phase"] == "reveal" and "reading" not in state:
            # The camera could not read the cups: the players type the dice in.
            phone.locator("#manual").wait_for()
            expected = sum(p["dice"] for p in state["players"] if not p["out"])
            phone.fill("#manual-faces input[data-face='6']", str(expected))
            shot(phone, "03-manual-reveal")
            phone.click("#manual button[type=submit]")
        state = wait_for_change(server, version)
        if state["palifico"] and not saw_palifico:
            banner = phone.locator("#palifico")
            banner.wait_for()
            assert "PALIFICO" in banner.inner_text()
            assert state["palifico"] in banner.inner_text()
            phone.evaluate("window.scrollTo(0, 0)")
            shot(phone, "02-palifico")
            saw_palifico = True
    assert state["phase"] == "over", state
    assert saw_palifico and saw_bid_on_watcher

    winner = state["winner"]
    phone.locator("#winner").wait_for()
    assert phone.locator("#winner").inner_text().startswith(f"{winner} wins!")
    watcher.locator("#winner").filter(has_text=f"{winner} wins!").wait_for()
    outs = phone.locator("#players li.out .name").all_inner_texts()
    assert sorted(outs) == sorted(n for n in ["Ana", "Ben", "Caro", "Dan"] if n != winner)
    history = phone.locator("#history li").all_inner_texts()
    assert any("Palifico" in line or "palifico" in line for line in history)
    phone.locator("#games li").first.wait_for()
    assert winner in phone.locator("#games li").first.inner_text()
    phone.evaluate("window.scrollTo(0, 0)")
    shot(phone, "04-winner")
    shot(phone, "05-winner-full", full=True)
