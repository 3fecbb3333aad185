"""The phone page in a real headless Chromium against ``dudo serve --sim`` in a subprocess.

A whole four-player game with two dice each is played from the page's virtual panel: the
PIN is entered, the game started, bids pushed on the dial, DUDO pressed, each reveal read by
the simulated camera, through a palifico to the winner. At each reveal the players take the
path the page offers: a confident reading that matches the dice each player must show is
applied at once; any other reading waits on the page, where the players correct a die by
tapping it and confirm, take the picture again, or type the dice in. The test cannot see the
simulated cups (the server is another process), so it plays the players' part from what the
page shows; whatever the reader's accuracy, the confirm-and-correct path, the retake and the
typed reveal are each played at least once (a reading applied at once is taken back with
UNDO, as players would to check it). Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import (
    PHONE,
    WAIT_MS,
    get_state,
    picture_in,
    shot,
    shows,
    take_control,
    wait_out_the_hold,
)

pytestmark = pytest.mark.browser

PLAYERS = ["Ana", "Ben", "Caro", "Dan"]


def progress(state: dict[str, Any]) -> str:
    """The part of the state that moves with the game (not the dial's display, not the clock)."""
    return json.dumps(
        {k: v for k, v in state.items() if k not in ("version", "display")}, sort_keys=True
    )


def wait_for_progress(base: str, before: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
    """The table's state once the game has moved on from ``before`` and no picture is read."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = get_state(base)
        if progress(state) != progress(before) and not state.get("capturing"):
            return state
        time.sleep(0.05)
    raise AssertionError(f"the table did not move on from version {before['version']}")


def last_reveal(base: str) -> list[int]:
    """The faces of the last reveal in the game's record, sorted."""
    with urllib.request.urlopen(base + "/api/record", timeout=5) as answer:
        actions = [json.loads(line) for line in answer.read().decode().splitlines()[1:]]
    reveal = [a for a in actions if a["action"] == "reveal"][-1]
    faces = reveal.get("faces") or [f for dice in reveal["dice"].values() for f in dice]
    return sorted(faces)


def must_show(state: dict[str, Any]) -> int:
    reading = state.get("reading")
    if reading:
        return sum(reading["expected"].values())
    return sum(p["dice"] for p in state["players"] if not p["out"])


def counts_of(faces: list[int]) -> dict[str, int]:
    return {str(f): faces.count(f) for f in range(1, 7)}


def see_the_picture_and_counts(page: Any, counts: dict[str, int]) -> None:
    """The reveal card shows the camera's picture (loaded) and the count of each face."""
    picture_in(page)
    for face, n in counts.items():
        shown = page.locator(f"#counts .count-face[data-face='{face}'] b")
        expect(shown).to_have_text(f"\u00d7{n}")


def see_the_reading_to_check(page: Any, reading: dict[str, Any]) -> None:
    """A pending reading: its picture, each die to tap, the doubtful ones marked, the counts."""
    expect(page.locator("#reading-check")).to_be_visible()
    expect(page.locator("#reading-why")).to_contain_text("Check the reading")
    expect(page.locator("#reading-dice .reading-die")).to_have_count(len(reading["dice"]))
    doubtful = page.locator("#reading-dice .reading-die.doubt select")
    expect(doubtful).to_have_count(len(reading["doubtful"]))
    for k, index in enumerate(reading["doubtful"]):
        expect(doubtful.nth(k)).to_have_attribute("data-index", str(index))
    # Boxes of one width in columns, whatever each die's owner is called (they were ragged).
    boxes = page.eval_on_selector_all("#reading-dice .reading-die", "els => els.map(e => {"
                                      " const r = e.getBoundingClientRect();"
                                      " return [Math.round(r.left), Math.round(r.width)]; })")
    assert len({width for _, width in boxes}) == 1, boxes
    assert len({left for left, _ in boxes}) == min(2, len(boxes)), boxes  # two to a row here
    see_the_picture_and_counts(page, reading["counts"])


def tap_a_die(page: Any, reading: dict[str, Any]) -> tuple[int, int]:
    """Set another face on the first doubtful die (else the first die), as a player who sees
    it differently would; the page marks it and counts it at once. Returns (index, face)."""
    index = reading["doubtful"][0] if reading["doubtful"] else 0
    read_as = reading["dice"][index]["face"]
    face = read_as % 6 + 1
    page.locator(f"#reading-dice select[data-index='{index}']").select_option(str(face))
    corrected = page.locator("#reading-dice .reading-die.corrected select")
    expect(corrected).to_have_count(1)
    expect(corrected).to_have_attribute("data-index", str(index))
    faces = [d["face"] for d in reading["dice"]]
    faces[index] = face
    see_the_picture_and_counts(page, counts_of(faces))
    return index, face


def type_the_dice(page: Any, state: dict[str, Any]) -> None:
    """Count the dice into the manual form: the reading's faces, as many as must show."""
    shows(page, state)
    total = must_show(state)
    read = [d["face"] for d in state["reading"]["dice"]] if state.get("reading") else []
    faces = (read + [6] * total)[:total]
    form = page.locator("#manual")
    expect(form).to_be_visible()
    expect(page.locator("#manual-expected")).to_have_text(str(total))
    # The counts start from the camera's reading (a die it missed is one number to change),
    # and the form adds them up as they are typed.
    started = counts_of(read)
    for face in range(1, 7):
        field = page.locator(f"#manual-faces input[data-face='{face}']")
        expect(field).to_have_value(str(started[str(face)]))
    expect(page.locator("#manual-total")).to_have_text(str(len(read)))
    typed = counts_of(faces)
    for face in range(1, 7):
        page.fill(f"#manual-faces input[data-face='{face}']", str(typed[str(face)]))
    expect(page.locator("#manual-total")).to_have_text(str(total))
    form.scroll_into_view_if_needed()
    shot(page, "04-manual-reveal")
    page.click("#manual button[type=submit]")


def see_a_palifico(page: Any, state: dict[str, Any]) -> bool:
    """Whether a palifico round is on; if so the page announces it in a banner."""
    if not state["palifico"] or state["phase"] == "over":
        return False
    banner = page.locator("#palifico")
    # PALIFICO, the open or closed choice where the rules have one, who has one die: no more.
    expect(banner).to_have_text(re.compile(
        r"^PALIFICO (\(\w[\w ]*\) )?" + re.escape(state["palifico"]) + " has one die: "))
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "02-palifico")
    return True


def test_a_watcher_without_the_pin_sees_the_table_but_no_controls(phone: Any) -> None:
    expect(phone.locator("#live")).to_have_class("live on")
    expect(phone.locator("#controls")).to_be_hidden()
    expect(phone.locator("#setup")).to_be_hidden()
    expect(phone.locator("#sim")).to_be_hidden()
    phone.click("#lock")
    phone.fill("#pin", "0000")
    phone.click("#pin-form button[type=submit]")
    # The answer comes back asynchronously: wait for it rather than read at once.
    expect(phone.locator("#pin-error")).to_contain_text("wrong table PIN")
    # The wrong PIN goes, the keyboard in the field for the next (since session 78).
    expect(phone.locator("#pin")).to_have_value("")
    expect(phone.locator("#pin")).to_be_focused()
    expect(phone.locator("#lock")).not_to_have_class("lock on")
    expect(phone.locator("#controls")).to_be_hidden()


def test_a_whole_game_from_the_virtual_panel_to_a_palifico_and_a_winner(
    phone: Any, browser: Any, server: str
) -> None:
    take_control(phone)
    expect(phone.locator("#setup")).to_be_visible()
    phone.select_option("#preset", "perudo")
    phone.fill("#dice-each", "2")
    shot(phone, "01-new-game", full=True)
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#players li .name")).to_have_text(PLAYERS)
    expect(phone.locator("#dice-totals")).to_have_text("8 dice in play \u00b7 0 lost")

    # A second phone, without the PIN, follows live.
    watcher = browser.new_context(viewport=PHONE, color_scheme="dark").new_page()
    watcher.set_default_timeout(WAIT_MS)
    watcher.goto(server)
    expect(watcher.locator("#live")).to_have_class("live on")

    state = get_state(server)
    seen: set[str] = set()  # the reveal paths played
    retaken_in_round = 0
    saw_palifico = saw_bid_on_watcher = False
    for _ in range(100):
        if state["phase"] == "over":
            break
        before = state
        reading = state.get("reading")
        if state["phase"] == "bidding":
            # The panel's buttons are held a moment after each move (a press made for the
            # state before is dropped, as at a real table): pressed once it has let go.
            wait_out_the_hold(phone, state)
        if state["phase"] == "bidding" and state["bid"] is None:
            phone.click("#sim button.dial")  # the lowest opening bid, for whoever opens
        elif state["phase"] == "bidding":
            if not saw_bid_on_watcher:
                bid = state["bid"]
                expect(watcher.locator("#bid-by")).to_have_text(f"by {bid['player']}")
                expect(watcher.locator("#bid .qty")).to_have_text(str(bid["quantity"]))
                expect(watcher.locator("#controls")).to_be_hidden()
                shot(watcher, "00-watcher-bid")
                phone.evaluate("window.scrollTo(0, 0)")
                shot(phone, "00-control-bid")
                saw_bid_on_watcher = True
            phone.click("#sim [data-button=dudo]")
            state = wait_for_progress(server, before)
            reading = state.get("reading")
            if reading and reading["applied"]:
                # Confident and matching: applied at once, the picture and counts shown.
                assert reading["matched"] and not reading["confirmed"], reading
                assert not reading["doubtful"] and reading["total"] == must_show(state)
                assert last_reveal(server) == sorted(d["face"] for d in reading["dice"])
                see_the_picture_and_counts(phone, reading["counts"])
                expect(phone.locator("#reading-check")).to_be_hidden()
                expect(phone.locator("#result")).to_contain_text(re.compile("counted", re.I))
                seen.add("applied")
                if state["phase"] == "bidding" and not {"corrected", "typed"} <= seen:
                    # The players want a look after all: UNDO takes the reveal back and
                    # the reading waits on the page for them.
                    before = state
                    shows(phone, state)
                    phone.click("#undo")
                    state = wait_for_progress(server, before)
                    assert state["phase"] == "reveal" and not state["reading"]["applied"]
                    seen.add("undone")
        elif reading and not reading["applied"]:
            see_the_reading_to_check(phone, reading)
            expect(watcher.locator("#reading-check")).to_be_visible()
            expect(watcher.locator("#reading-dice select").first).to_be_disabled()
            # and looks it, in the dark theme too (it looked as live as the PIN holder's)
            assert watcher.locator("#reading-dice select").first.evaluate(
                "e => getComputedStyle(e).opacity") == "0.6"
            wrong_count = reading["total"] != must_show(state)
            retake = wrong_count or ("corrected" in seen and "retake" not in seen)
            if retake and retaken_in_round != state["round"]:
                retaken_in_round = state["round"]
                if state["undone_into_reveal"]:
                    # Back at the reveal by an undo: the page asks whether the dice show again.
                    phone.once("dialog", lambda dialog: dialog.accept())
                phone.click("#retake")
                seen.add("retake")
            elif wrong_count or ("corrected" in seen and "typed" not in seen):
                if "corrected" not in seen and "refused" not in seen:
                    # A die short or too many: Confirm cannot work, and the page says what can.
                    tap_a_die(phone, reading)
                    expect(phone.locator("#confirm-reading")).to_be_disabled()
                    expect(phone.locator("#reading-count")).to_contain_text(
                        f"camera saw {reading['total']} dice, {must_show(state)} must show"
                    )
                    seen.add("refused")
                type_the_dice(phone, state)
                seen.add("typed")
            else:
                index, face = (-1, 0)
                if "corrected" not in seen:
                    index, face = tap_a_die(phone, reading)
                    phone.evaluate("document.getElementById('reveal').scrollIntoView()")
                    shot(phone, "03-reading-check")
                phone.click("#confirm-reading")
                state = wait_for_progress(server, before)
                confirmed = state["reading"]
                assert confirmed["applied"] and confirmed["confirmed"], confirmed
                faces = [d["face"] for d in reading["dice"]]
                if index >= 0:
                    assert confirmed["corrections"] == {str(index): face}
                    faces[index] = face
                    seen.add("corrected")
                assert confirmed["counts"] == counts_of(faces)
                assert last_reveal(server) == sorted(faces)
                expect(phone.locator("#reading-check")).to_be_hidden()
                saw_palifico = saw_palifico or see_a_palifico(phone, state)
                continue
        elif state["phase"] == "reveal":
            # No reading at all (the camera failed): the players type the dice in.
            type_the_dice(phone, state)
            seen.add("typed")
        state = wait_for_progress(server, before)
        saw_palifico = saw_palifico or see_a_palifico(phone, state)
    assert state["phase"] == "over", state
    assert saw_palifico and saw_bid_on_watcher
    assert {"corrected", "retake", "typed"} <= seen or {"refused", "retake", "typed"} <= seen, seen

    winner = state["winner"]
    expect(phone.locator("#winner")).to_contain_text(f"{winner} wins!")
    expect(watcher.locator("#winner")).to_contain_text(f"{winner} wins!")
    outs = [n for n in PLAYERS if n != winner]
    expect(phone.locator("#players li.out .name")).to_have_text(outs)
    history = phone.locator("#history li").all_inner_texts()
    assert any("Palifico" in line or "palifico" in line for line in history)
    expect(phone.locator("#games li").first).to_contain_text(winner)
    phone.evaluate("window.scrollTo(0, 0)")
    shot(phone, "05-winner")
    shot(phone, "06-winner-full", full=True)
    # The next step is offered where the players look: the form, its heading in sight.
    expect(watcher.locator("#to-new-game")).to_have_count(0)  # no PIN, no new game
    # Only the winner and the rounds on a phone without the PIN (it read "null" there).
    expect(watcher.locator("#winner")).to_have_text(
        f"{winner} wins!Game over after {state['round']} rounds")
    phone.click("#to-new-game")
    expect(phone.locator("#seats input[type=text]").first).to_be_focused()
    expect(phone.locator("#setup h2")).to_be_in_viewport()
    assert phone.locator("#setup h2").bounding_box()["y"] >= phone.locator(
        "header.top").bounding_box()["height"]  # not under the sticky header
    watcher.context.close()
