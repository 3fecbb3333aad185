"""The phone page as a review at a 390 px phone and a 1366 px laptop found it, each
situation set up through the HTTP API: what a phone without the PIN is told before any game,
the new-game form in the players' words, the calls and the panel's seat names on one line,
Undo after the end of a game, a table out of reach, the laptop's layout. The tests share one
table, each setting up what it needs; the first two need a table where no game was ever
played, and have one of their own. Screenshots go to tests/artifacts/, light and dark.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    act,
    finish_the_reveal,
    free_port,
    get_state,
    keep_notice,
    new_game,
    open_page,
    phone_on,
    settled,
    shot,
    start_serve,
    stop_serve,
    take_control,
    text_size,
    wait_out_the_hold,
    wait_until_held,
)

pytestmark = pytest.mark.browser

UNREACHABLE = "The table cannot be reached: check the Wi-Fi; the page reconnects by itself."
LONG_NAMES = ["Ana", "Maximiliano-Bartholomew", "Caro", "Wilhelmina Featherstonehaugh"]

# Each visible call button: its label, how many lines its text takes and its top edge.
CALLS = """() => [...document.querySelectorAll("#calls .call")].filter((b) => !b.hidden)
.map((b) => {
  const range = document.createRange(); range.selectNodeContents(b);
  const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  return {label: b.textContent, lines, top: Math.round(b.getBoundingClientRect().top)};
})"""

# The turn line's parts: each one's words, whether they are cut short, and its top edge.
TURN_PARTS = """() => [...document.querySelectorAll("#turn span")].map((s) => ({
  text: s.textContent, cut: s.scrollWidth > s.clientWidth + 1,
  top: Math.round(s.getBoundingClientRect().top)}))"""

# Whether the page scrolls sideways (something wider than the screen).
OVERFLOW = "() => document.documentElement.scrollWidth > window.innerWidth"
# What sticks out past the screen's right edge (to name it when OVERFLOW fails).
WIDE = """() => [...document.querySelectorAll("main *, header *")]
    .filter((el) => el.offsetParent && el.getBoundingClientRect().right > innerWidth + 0.5)
    .map((el) => el.id || el.className || el.tagName)"""


@pytest.fixture
def new_table(tmp_path: Path) -> Iterator[str]:
    """A table of its own, on which no game was ever started: the module's table has games
    once its first tests have run."""
    port = free_port()
    process = start_serve(tmp_path, port)
    yield f"http://127.0.0.1:{port}"
    stop_serve(process)


@pytest.fixture
def phone_at_a_new_table(browser: Any, new_table: str) -> Iterator[Any]:
    with phone_on(browser, new_table) as page:
        yield page


def test_a_phone_without_the_pin_is_told_who_starts_a_game_and_offered_no_record(
    phone_at_a_new_table: Any, new_table: str
) -> None:
    phone, server = phone_at_a_new_table, new_table
    assert get_state(server)["phase"] == "setup"
    expect(phone.locator("#turn")).to_have_text("Whoever has the table PIN starts a game")
    expect(phone.locator("#bid")).to_have_text("no game yet")
    expect(phone.locator("#lock")).to_have_text("Enter PIN")
    # No game, no counts or rules under an empty list (it said "0 dice in play · 0 lost").
    expect(phone.locator("#dice-totals")).to_have_text("")
    expect(phone.locator("#rules-line")).to_be_hidden()
    # No game, no record: the link would lead to an error.
    expect(phone.locator("#record-link")).to_be_hidden()
    shot(phone, "20-spectator-no-game")
    light = open_page(phone.context.browser, server, PHONE, "light")
    expect(light.locator("#turn")).to_have_text("Whoever has the table PIN starts a game")
    shot(light, "20-spectator-no-game-light")
    light.context.close()

    take_control(phone)
    expect(phone.locator("#turn")).to_have_text("Start a game below")
    expect(phone.locator("#setup")).to_be_visible()
    # Taken to the form, which lay screens below ("Start a game below" pointed at it).
    phone.wait_for_function("document.getElementById('setup').getBoundingClientRect().top"
                            " < 200", timeout=5000)
    expect(phone.locator("#record-link")).to_be_hidden()


def selects_too_narrow(page: Any, scope: str) -> list[str]:
    """The selects shown under ``scope`` with an option whose text is wider than the select
    (18 px kept for the arrow)."""
    return list(
        page.evaluate(
            """(scope) => {
      const ctx = document.createElement("canvas").getContext("2d");
      const shown = [...document.querySelectorAll(scope + " select")].filter((s) => s.offsetParent);
      return shown.flatMap((s) => {
        const cs = getComputedStyle(s);
        ctx.font = cs.font;
        const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 18;
        return [...s.options].filter((o) => ctx.measureText(o.text).width > room)
          .map((o) => (s.id || s.dataset.option) + ": " + o.text);
      });
    }""",
            scope,
        )
    )


def test_the_new_game_form_speaks_the_players_words_and_its_checkboxes_can_be_tapped(
    phone_at_a_new_table: Any, new_table: str
) -> None:
    phone, server = phone_at_a_new_table, new_table
    take_control(phone)
    expect(phone.locator("#setup")).to_be_visible()
    # The rules picker names the preset; its description is written out below it.
    expect(phone.locator("#preset option")).to_have_text(["perudo", "dudo", "payroodo", "jinto"])
    expect(phone.locator("#preset-title")).to_have_text(
        "the Asmod\u00e9e edition as an online table plays it (default) \u00b7 2-6 players"
    )
    phone.select_option("#preset", "dudo")
    expect(phone.locator("#preset-title")).to_contain_text("the encyclopedia's Dudo")
    phone.click("#setup summary")
    options = phone.locator("#options")
    expect(options).to_be_visible()
    expect(options).to_contain_text("Aces are wild")
    expect(options).to_contain_text("A raise must increase")
    # No raw option name or value is shown (their names stay in the form's values).
    assert "_" not in options.inner_text(), options.inner_text()
    raise_ = phone.locator("#options select[data-option=raise]")
    expect(raise_).to_have_value("quantity_or_face")
    expect(raise_.locator("option:checked")).to_have_text("quantity or face")
    assert selects_too_narrow(phone, "#setup") == []
    boxes = phone.locator("#options input[type=checkbox]")
    expect(boxes).to_have_count(5)
    for k in range(5):
        box = boxes.nth(k).bounding_box()
        assert box and box["width"] >= 24 and box["height"] >= 24, box
    phone.locator("#setup").scroll_into_view_if_needed()
    shot(phone, "21-new-game-options", full=True)

    # A tap on the words toggles the box; a value picked by its words reaches the table.
    phone.get_by_text("Aces are wild").click()
    expect(phone.locator("#options input[data-option=wild_aces]")).not_to_be_checked()
    phone.select_option("#options select[data-option=to_aces]", label="half down + 1")
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#players li .name")).to_have_text(["Ana", "Ben", "Caro", "Dan"])
    options_now = get_state(server)["options"]
    assert options_now["wild_aces"] is False and options_now["to_aces"] == "half_plus_one"
    assert options_now["exact_call"] == "spot_on"  # the dudo preset's own, untouched
    # A game now: its record can be downloaded.
    link = phone.locator("#record-link")
    expect(link).to_be_visible()
    assert phone.request.get(server + link.get_attribute("href")).status == 200


def test_on_a_phone_the_calls_and_the_panels_seat_names_each_fit_on_one_line(
    phone: Any, server: str
) -> None:
    new_game(server, LONG_NAMES, dice=2)
    take_control(phone)
    expect(phone.locator("#call-calza")).to_have_text("SPOT ON")
    calls = phone.evaluate(CALLS)
    assert [c["label"] for c in calls] == ["DUDO", "SPOT ON", "PASS"], calls
    assert all(c["lines"] == 1 for c in calls) and len({c["top"] for c in calls}) == 1, calls

    # A long name on a seat button ends in an ellipsis, inside its button; the whole name
    # is its tooltip.
    seats = phone.locator("#sim-seats .seat-btn")
    expect(seats).to_have_count(4)
    names = phone.locator("#sim-seats .seat-name")
    expect(names).to_have_text(LONG_NAMES)
    cut = phone.evaluate(
        """() => [...document.querySelectorAll("#sim-seats .seat-name")].map((n) => {
      const b = n.closest("button").getBoundingClientRect(), r = n.getBoundingClientRect();
      return {cut: n.scrollWidth > n.clientWidth, ellipsis: getComputedStyle(n).textOverflow,
              inside: r.right <= b.right, title: n.title};
    })"""
    )
    assert [c["cut"] for c in cut] == [False, True, False, True], cut
    assert all(c["ellipsis"] == "ellipsis" and c["inside"] for c in cut), cut
    assert [c["title"] for c in cut] == LONG_NAMES
    assert not phone.evaluate(OVERFLOW)
    shot(phone, "22-phone-calls-spot-on")
    phone.locator("#sim").scroll_into_view_if_needed()
    shot(phone, "23-phone-panel-long-names")

    # The longest exact call, with PASS: still one row of one-line buttons.
    new_game(server, LONG_NAMES[:3], dice=2, exact_call="exactomundo")
    expect(phone.locator("#call-calza")).to_have_text("EXACTOMUNDO")
    expect(phone.locator("#sim-seats .seat-name")).to_have_text(LONG_NAMES[:3])
    calls = phone.evaluate(CALLS)
    assert [c["label"] for c in calls] == ["DUDO", "EXACTOMUNDO", "PASS"], calls
    assert all(c["lines"] == 1 for c in calls) and len({c["top"] for c in calls}) == 1, calls
    light = open_page(phone.context.browser, server, PHONE, "light")
    take_control(light)
    expect(light.locator("#call-calza")).to_have_text("EXACTOMUNDO")
    light.locator("#controls").scroll_into_view_if_needed()
    shot(light, "24-phone-calls-exactomundo-light")
    light.context.close()


def test_a_new_round_says_that_undo_takes_back_its_reveal_until_its_first_bid(
    phone: Any, server: str
) -> None:
    # Before, nothing said it: a tap on Undo at the start of a round took back the reveal
    # (the die lost with it) where a player meant to take back a bid.
    new_game(server, ["Ana", "Ben", "Caro"], rules="perudo")
    act(server, action="bid", player="Ana", quantity=2, face=6)
    act(server, action="dudo", player="Ben")
    state = act(server, action="reveal", dice={"Ana": [1, 2, 3, 4, 5], "Ben": [2, 2, 3, 3, 4],
                                               "Caro": [2, 3, 4, 5, 5]})
    assert state["round"] == 2 and state["undo_takes_back"] == "reveal", state
    take_control(phone)
    wait_out_the_hold(phone, state)
    hint = phone.locator("#call-hint")
    expect(hint).to_have_text("Undo now takes back the reveal of round 1")
    undo = phone.locator("#undo").bounding_box()
    assert undo is not None and hint.bounding_box()["y"] >= undo["y"] + undo["height"]
    shot(phone, "27-undo-takes-back-the-reveal")
    state = act(server, action="bid", player=state["turn"], quantity=1, face=3)
    assert state["undo_takes_back"] == "bid", state
    wait_out_the_hold(phone, state)
    expect(hint).to_be_hidden()
    phone.click("#undo")  # the bid, not the reveal
    expect(hint).to_have_text("Undo now takes back the reveal of round 1")
    assert get_state(server)["round"] == 2


def test_a_game_won_as_the_others_left_says_undo_brings_them_back(
    phone: Any, server: str
) -> None:
    # Before (session 92's audit), it said the last reveal or call would be taken back.
    new_game(server, ["Ana", "Ben", "Caro"], rules="perudo")
    act(server, action="bid", player="Ana", quantity=2, face=6)
    act(server, action="leave", player="Ben")
    state = act(server, action="leave", player="Caro")
    assert state["phase"] == "over" and state["undo_takes_back"] == "leave"
    take_control(phone)
    expect(phone.locator("#undo-hint")).to_have_text(
        "A player left by mistake? Undo brings them back and the game goes on.")
    phone.click("#undo")
    expect(phone.locator("#winner")).to_be_hidden()
    assert [p["name"] for p in get_state(server)["players"] if not p["left"]] == ["Ana", "Caro"]


def test_undo_after_the_end_takes_back_the_reveal_that_ended_the_game(
    phone: Any, server: str
) -> None:
    new_game(server, ["Ana", "Ben"], rules="perudo", dice=1)
    act(server, action="bid", player="Ana", quantity=2, face=6)
    act(server, action="dudo", player="Ben")
    state = finish_the_reveal(server)
    assert state["phase"] == "over", state
    spectator = open_page(phone.context.browser, server, PHONE, "light")
    take_control(phone)
    expect(phone.locator("#winner")).to_contain_text(f"{state['winner']} wins!")
    expect(phone.locator("#winner")).to_contain_text("Game over after 1 round")
    expect(phone.locator("#undo-hint")).to_have_text(
        "The last reveal or call was a mistake? Undo takes it back and the game goes on."
    )
    expect(phone.locator("#undo")).to_be_visible()
    expect(phone.locator("#undo")).to_be_enabled()
    expect(phone.locator("#picker")).to_be_hidden()
    expect(phone.locator("#calls")).to_be_hidden()
    expect(spectator.locator("#winner")).to_be_visible()
    expect(spectator.locator("#controls")).to_be_hidden()
    shot(phone, "25-phone-over-undo")
    shot(spectator, "25-spectator-over-light")

    phone.click("#undo")
    expect(phone.locator("#winner")).to_be_hidden()
    expect(spectator.locator("#winner")).to_be_hidden()
    expect(phone.locator("#undo-hint")).to_have_text(
        "A call pressed by mistake? Undo takes it back, though every die has been seen."
    )
    back = get_state(server)
    assert back["phase"] == "reveal" and back["winner"] is None, back
    # Said as other undos are: which reveal, and what it did (it said "Undone: reveal").
    expect(phone.locator("#history li").first).to_have_text(
        f"Undone: the reveal of round 1 that won {state['winner']} the game")
    shot(phone, "26-phone-after-undo-of-the-end")
    spectator.context.close()


def test_undo_is_out_of_use_with_nothing_to_take_back_and_in_use_once_there_is(
    phone: Any, server: str
) -> None:
    # Before, Undo at a game's start, or after its only bid was undone, was a tap the table
    # refused in red ("nothing to undo: no action yet"; found by a monkey tapping the page).
    started = new_game(server, ["Ana", "Ben", "Caro"], dice=2)
    take_control(phone)
    wait_out_the_hold(phone, started)
    undo = phone.locator("#undo")
    expect(undo).to_be_visible()
    assert undo.evaluate("b => b.disabled")  # out of use, not only held a moment
    sent: list[str] = []
    phone.on("request", lambda r: sent.append(r.post_data or "")
             if r.method == "POST" and r.url.endswith("/api/actions") else None)
    undo.click(force=True)  # a finger on it anyway
    bid = act(server, action="bid", player="Ana", quantity=1, face=3)
    wait_out_the_hold(phone, bid)
    expect(undo).to_be_enabled()
    assert sent == []  # the tap on Undo out of use sent nothing
    undo.click()
    expect(phone.locator("#bid")).to_contain_text("no bid")
    undone = get_state(server)
    assert undone["bid"] is None and undone["undo_takes_back"] is None, undone
    wait_out_the_hold(phone, undone)
    assert undo.evaluate("b => b.disabled")
    expect(phone.locator("#notice")).not_to_have_class(re.compile("error"))
    assert len(sent) == 1, sent


def test_a_phone_that_loses_the_table_says_to_check_the_wifi_and_waits_for_it(
    phone: Any, server: str
) -> None:
    started = new_game(server, ["Ana", "Ben", "Caro"], dice=2)
    take_control(phone)
    wait_out_the_hold(phone, started)  # the bid below is pressed in this game, not held
    expect(phone.locator("#place-bid")).to_be_enabled()
    phone.set_viewport_size({"width": 360, "height": 780})  # a narrow phone
    header = phone.locator("header.top").bounding_box()

    # The Wi-Fi drops as a bid is pressed: the page says what to do, not the browser's words.
    phone.route("**/api/actions", lambda route: route.abort("internetdisconnected"))
    phone.click("#place-bid")
    expect(phone.locator("#notice")).to_have_text(UNREACHABLE)
    phone.unroute("**/api/actions")
    assert get_state(server)["bid"] is None

    # The live feed is down: nothing can be sent until it is back.
    phone.route("**/api/events", lambda route: route.abort("internetdisconnected"))
    phone.reload()
    expect(phone.locator("#live")).to_have_text("reconnecting")
    expect(phone.locator("#offline")).to_have_text(UNREACHABLE)
    expect(phone.locator("#turn")).to_have_text("Ana to open")
    # (Undo is out of use already: nothing has been done in this game to take back.)
    senders = ["#place-bid", "#call-pass", "#faces .face-btn >> nth=2"]
    senders += ["#sim [data-button=dudo]", "#sim button.dial", "#sim [data-button=dial][data-hold]"]
    for sender in senders:
        expect(phone.locator(sender)).to_be_disabled()
    # The header keeps its height (the word "reconnecting" pushed its button to a second row,
    # and the whole page down); the banner says it.
    assert phone.locator("header.top").bounding_box()["height"] == header["height"]
    phone.evaluate("window.scrollTo(0, 0)")
    shot(phone, "27-phone-feed-down")

    phone.unroute("**/api/events")
    expect(phone.locator("#live")).to_have_text("live")
    expect(phone.locator("#offline")).to_be_hidden()
    for sender in senders:
        expect(phone.locator(sender)).to_be_enabled()
    # What the game forbids stays forbidden: no bid stands to call yet.
    expect(phone.locator("#call-dudo")).to_be_disabled()
    phone.click("#place-bid")
    expect(phone.locator("#bid-by")).to_have_text("by Ana")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_laptop_the_page_is_one_centred_column_without_sideways_scrolling(
    browser: Any, server: str, scheme: str
) -> None:
    state = get_state(server)
    if state["phase"] != "bidding":
        new_game(server, ["Ana", "Ben", "Caro"], dice=2)
    laptop = open_page(browser, server, DESKTOP, scheme)
    take_control(laptop)
    expect(laptop.locator("#controls")).to_be_visible()
    box = laptop.locator("main").bounding_box()
    assert box and box["width"] == 640 and abs(box["x"] * 2 + 640 - DESKTOP["width"]) <= 1, box
    assert not laptop.evaluate(OVERFLOW)
    calls = laptop.evaluate(CALLS)
    assert all(c["lines"] == 1 for c in calls) and len({c["top"] for c in calls}) == 1, calls
    assert selects_too_narrow(laptop, "main") == []
    shot(laptop, f"28-laptop-{scheme}", full=True)
    laptop.context.close()


def test_a_table_that_played_many_games_lists_the_newest_and_shows_older_on_request(
    phone: Any, server: str
) -> None:
    with urllib.request.urlopen(server + "/api/games?limit=500", timeout=5) as answer:
        played = len(json.load(answer)["games"])
    for n in range(max(0, 23 - played)):
        new_game(server, [f"Player{n}", "Ben"], dice=1)
    phone.reload()
    games = phone.locator("#games li")
    expect(games).to_have_count(20)
    expect(games.first).to_contain_text(f"#{max(played, 23)}")
    older = phone.locator("#older-games")
    expect(older).to_be_visible()
    older.click()
    expect(games).to_have_count(max(played, 23))
    expect(games.last).to_contain_text("#1 ")
    expect(older).to_be_hidden()
    shot(phone, "29-many-games", full=True)


def test_the_games_list_gives_each_game_s_start_in_the_phone_s_own_time(
    browser: Any, server: str
) -> None:
    # The table keeps UTC: before, a phone in Lima read a game started at 21:00 there as
    # started at 02:00 the next day, and the game being played was "(unfinished)".
    new_game(server, ["Ana", "Ben"], dice=1)
    with urllib.request.urlopen(server + "/api/games?limit=1", timeout=5) as answer:
        (game,) = json.load(answer)["games"]
    lima = timezone(timedelta(hours=-5))  # all year: Peru keeps no summer time
    started = datetime.fromisoformat(game["started"]).astimezone(lima)
    context = browser.new_context(viewport=PHONE, timezone_id="America/Lima")
    phone = context.new_page()
    phone.goto(server)
    listed = phone.locator("#games li").first
    expect(listed).to_contain_text(f"#{game['id']} ")
    expect(listed).to_contain_text(started.strftime("%Y-%m-%d %H:%M") + " (being played)")
    context.close()


def test_a_phone_open_across_a_restart_of_the_table_shows_the_game_as_it_goes_on(
    browser: Any, tmp_path: Path
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = start_serve(tmp_path, port)
    try:
        new_game(base, ["Ana", "Ben", "Caro"], dice=2)
        for player, quantity in (("Ana", 1), ("Ben", 2), ("Caro", 3)):
            act(base, action="bid", player=player, quantity=quantity, face=4)
        phone = open_page(browser, base, PHONE, "dark")
        expect(phone.locator("#turn")).to_have_text("Ana to raise or call")
        stop_serve(process)
        expect(phone.locator("#live")).to_have_text("reconnecting")
        # The restarted table counts its versions from the start again.
        process = start_serve(tmp_path, port)
        expect(phone.locator("#live")).to_have_text("live", timeout=20_000)
        act(base, action="bid", player="Ana", quantity=5, face=4)
        expect(phone.locator("#bid-by")).to_have_text("by Ana")
        expect(phone.locator("#turn")).to_have_text("Ben to raise or call")
        phone.context.close()
    finally:
        stop_serve(process)


def test_a_small_phone_with_its_text_at_twice_the_size_still_fits_the_screen(
    browser: Any, server: str
) -> None:
    new_game(server, ["Ana", "Maximiliano Fernández", "Zoë"], dice=5)
    for player, quantity in (("Ana", 3), ("Maximiliano Fernández", 12)):
        act(server, action="bid", player=player, quantity=quantity, face=6)
    small = open_page(browser, server, {"width": 360, "height": 640}, "light")
    take_control(small)
    # The phone's larger-text setting: the page's text is sized from it, in rem.
    text_size(small, "200%")
    assert small.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") == 34
    assert not small.evaluate(OVERFLOW), small.evaluate(WIDE)
    # Whose turn: the name on a line of its own, whole (before, "to raise or call" left it a
    # letter or none). A phone's setting is there before the page draws: drawn again here.
    small.evaluate("() => render({...page.state})")
    parts = small.evaluate(TURN_PARTS)
    assert [(p["text"].strip(), p["cut"]) for p in parts] == [
        ("Zoë", False), ("to raise or call", False)], parts
    assert parts[0]["top"] < parts[1]["top"], parts  # two lines
    small.set_viewport_size({"width": 320, "height": 568})  # the smallest phones
    assert not small.evaluate(OVERFLOW), small.evaluate(WIDE)
    small.set_viewport_size({"width": 360, "height": 640})
    for part in ("#lock", "#bid", "#turn", "#call-dudo", "#place-bid"):
        box = small.locator(part).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360, (part, box)
    small.evaluate("window.scrollTo(0, 0)")
    shot(small, "30-phone-text-200")
    # The reveal's counts, and the next round's odds under each face, fit too.
    act(server, action="dudo", player="Zoë")
    settled(server)
    expect(small.locator("#counts .count-face")).to_have_count(6)
    assert not small.evaluate(OVERFLOW), small.evaluate(WIDE)
    small.locator(".reading-die.doubt, #counts").first.scroll_into_view_if_needed()
    shot(small, "31-phone-text-200-reveal")
    finish_the_reveal(server)
    expect(small.locator("#faces small", has_text="%").first).to_be_visible()
    assert not small.evaluate(OVERFLOW), small.evaluate(WIDE)
    expect(small.locator("#place-bid")).to_be_enabled()  # the picker drawn and settled
    # Each face's odds inside its button (read at once: the picker may be drawn again).
    faces = small.evaluate("""() => [...document.querySelectorAll("#faces .face-btn")].map(
        (b) => { const r = b.getBoundingClientRect(), o = b.querySelector("small");
                 const s = o.getBoundingClientRect();
                 return {text: o.textContent, left: r.left, right: r.right,
                         oddsLeft: s.left, oddsRight: s.right}; })""")
    assert [f for f in faces if f["text"]], faces
    for face in faces:
        if face["text"]:  # a face no bid may take has no odds
            assert face["oddsLeft"] >= face["left"] - 0.5, face
            assert face["oddsRight"] <= face["right"] + 0.5, face
    small.locator("#faces").scroll_into_view_if_needed()
    shot(small, "32-phone-text-200-next-round")
    small.context.close()


def test_a_face_chosen_with_the_keyboard_keeps_the_focus(phone: Any, server: str) -> None:
    started = new_game(server, ["Ana", "Ben", "Caro"], dice=2)
    take_control(phone)
    wait_out_the_hold(phone, started)  # a key press does not wait for a held button
    face = phone.locator("#faces [aria-label='face 3']")
    # The legal bids come after control is taken: until then no face can be chosen (nor
    # focused, as a disabled button).
    expect(face).to_be_enabled()
    face.focus()
    phone.keyboard.press("Enter")
    expect(phone.locator("#place-bid")).to_have_text(re.compile(r"Bid \d+ × 3"))
    # The faces were drawn again; the focus is on the face chosen, not sent back to the top.
    assert phone.evaluate("document.activeElement.getAttribute('aria-label')") == "face 3"
    phone.keyboard.press("Tab")
    assert phone.evaluate("document.activeElement.getAttribute('aria-label')") == "face 4"


def test_control_is_given_up_only_when_the_phone_confirms_it(phone: Any, server: str) -> None:
    take_control(phone)
    asked: list[str] = []

    def answer(accept: bool) -> None:
        def reply(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        phone.once("dialog", reply)

    answer(False)
    phone.click("#lock")  # a tap by mistake
    expect(phone.locator("#lock")).to_have_text("Control on")
    assert asked and "table PIN" in asked[0]
    answer(True)
    phone.click("#lock")
    expect(phone.locator("#lock")).to_have_text("Enter PIN")
    expect(phone.locator("#controls")).to_be_hidden()


def test_the_keyboard_s_focus_comes_back_to_a_button_once_its_action_is_answered(
    phone: Any, server: str
) -> None:
    new_game(server, ["Ana", "Ben", "Caro"], dice=2)
    act(server, action="bid", player="Ana", quantity=1, face=3)
    bid = act(server, action="bid", player="Ben", quantity=2, face=3)
    take_control(phone)
    wait_out_the_hold(phone, bid)  # a key press does not wait for a held button
    undo = phone.locator("#undo")
    expect(undo).to_be_enabled()
    sent: list[Any] = []
    phone.route("**/api/actions", lambda route: sent.append(route))  # sent when let go
    undo.focus()
    phone.keyboard.press("Enter")
    # Held while it is sent and just after: it keeps the keyboard's focus then (a disabled
    # button lost it, and a screen reader went with it to the page's top), and a second
    # press in that time does nothing.
    wait_until_held(phone, sent)
    assert phone.evaluate(
        "[document.activeElement.id, document.activeElement.getAttribute('aria-disabled'),"
        " (document.activeElement.click(), document.activeElement.id),"
        " getComputedStyle(document.activeElement).opacity,"
        " getComputedStyle(document.activeElement).outlineStyle]"
    ) == ["undo", "true", "undo", "0.6", "solid"]  # its ring less faded than the held buttons
    expect(undo).to_be_disabled()  # to Playwright and to a screen reader
    assert len(sent) == 1  # the press while held sent nothing
    sent[0].continue_()
    phone.unroute("**/api/actions")
    expect(phone.locator("#round-bids li")).to_have_count(1)  # Ben's bid taken back
    expect(undo).to_be_enabled()  # released
    expect(undo).to_be_focused()
    assert get_state(server)["bid"]["player"] == "Ana"
    phone.keyboard.press("Enter")  # the focus is back: a second undo from the keyboard
    expect(phone.locator("#bid")).to_contain_text("no bid")
    assert get_state(server)["bid"] is None


def test_the_keyboard_s_focus_goes_to_undo_when_dudo_gives_way_to_the_reveal(
    phone: Any, server: str
) -> None:
    # Before, DUDO pressed from the keyboard sent the focus to the page's top (the calls
    # hide as the cups come up), where it stayed through the reveal: Undo, the one thing to
    # do then, was a long way off.
    new_game(server, ["Ana", "Ben", "Caro"], dice=2)
    bid = act(server, action="bid", player="Ana", quantity=1, face=3)
    take_control(phone)
    wait_out_the_hold(phone, bid)
    dudo = phone.locator("#call-dudo")
    expect(dudo).to_be_enabled()
    dudo.focus()
    phone.keyboard.press("Enter")
    expect(phone.locator("#calls")).to_be_hidden()
    expect(phone.locator("#undo")).to_be_focused()
    phone.keyboard.press("Enter")  # a call pressed by mistake: taken back from the keyboard
    expect(phone.locator("#calls")).to_be_visible()
    assert get_state(server)["phase"] == "bidding"


def test_a_toast_over_the_buttons_goes_at_the_next_touch(phone: Any, server: str) -> None:
    new_game(server, ["Ana", "Ben", "Caro"], dice=2)
    expect(phone.locator("#live")).to_have_text("live")  # following the table: it hears the bid
    expect(phone.locator("#turn")).to_contain_text("Ana")
    act(server, action="bid", player="Ana", quantity=1, face=3)
    toast = phone.locator("#notice")
    expect(toast).to_contain_text("Ana bids one 3")
    phone.mouse.click(5, 300)  # anywhere on the page
    expect(toast).to_be_hidden(timeout=1500)  # at once, not after its 4 s
    assert get_state(server)["bid"]["text"] == "1x3"  # the touch changed nothing


def test_a_refusal_s_toast_stays_to_be_read_then_goes_at_the_next_touch(
    phone: Any, server: str
) -> None:
    # It lies over the standing bid it often asks to look at ("the game moved on: look
    # again"): before session 78 it stayed its 6 s whatever the player touched.
    new_game(server, ["Ana", "Ben", "Caro"], dice=2)
    take_control(phone)
    toast = phone.locator("#notice")
    phone.evaluate("notice('the game moved on since this phone showed it: look again', 'error')")
    phone.mouse.click(5, 300)  # at once: not yet read
    expect(toast).to_be_visible()
    phone.wait_for_timeout(1600)
    phone.mouse.click(5, 300)
    expect(toast).to_be_hidden(timeout=1000)  # well before its 6 s


def test_a_screen_reader_hears_whose_turn_it_is_their_dice_and_the_chosen_face(
    phone: Any, server: str
) -> None:
    new_game(server, ["Ana", "Ben", "Caro"], dice=2)
    act(server, action="bid", player="Ana", quantity=1, face=3)
    take_control(phone)
    # Each line read as the page shows it: seat, name, whose turn, dice, badge.
    expect(phone.locator("#players")).to_match_aria_snapshot(
        "- list:\n"
        "  - listitem:\n    - text: 1 Ana bid\n    - img \"2 dice\"\n"
        "  - listitem:\n    - text: 2 Ben (to act)\n    - img \"2 dice\"\n"
        "  - listitem:\n    - text: 3 Caro\n    - img \"2 dice\"\n"
    )
    expect(phone.locator("#turn")).to_have_attribute("aria-live", "polite")
    face = phone.locator("#faces [aria-label='face 4']")
    face.click()
    expect(face).to_have_attribute("aria-pressed", "true")
    assert "likely true" in (face.get_attribute("title") or "")
    # Said with it, as its description (a screen reader reads the title so).
    expect(face).to_have_accessible_description(re.compile(r"^(<1|>99|\d+)% likely true$"))


# Each live region's writes, counted as a screen reader hears them (one per change).
COUNT_WRITES = """() => {
  window.writes = {};
  for (const id of ["turn", "palifico", "undo-hint", "winner", "said"]) {
    window.writes[id] = 0;
    new MutationObserver(() => { window.writes[id] += 1; }).observe(document.getElementById(id),
      {childList: true, characterData: true, subtree: true});
  }
}"""


def test_a_screen_reader_hears_each_move_once_and_every_toast_from_a_region_always_there(
    phone: Any, server: str
) -> None:
    # Before, each move wrote the turn line, the palifico alert and Undo's hint two or three
    # times over (the feed's event, the answer, the hold's end): a screen reader said each
    # again, the palifico alert at every bid of its round, over the reveal's result. And the
    # toast, the only region that said announcements and refusals, was not on the page
    # (display: none) until shown with its words, which a screen reader may not say.
    new_game(server, ["Ana", "Ben"], rules="perudo", dice=2)
    act(server, action="bid", player="Ana", quantity=1, face=3)
    act(server, action="dudo", player="Ben")
    state = act(server, action="reveal", dice={"Ana": [2, 5], "Ben": [4, 6]})  # Ana loses one
    assert state["palifico"] == "Ana"
    take_control(phone)
    wait_out_the_hold(phone, state)
    expect(phone.locator("#palifico")).to_be_visible()
    phone.evaluate(COUNT_WRITES)
    bid = act(server, action="bid", player="Ana", quantity=1, face=4)
    wait_out_the_hold(phone, bid)
    keep_notice(phone)  # its bid's notice, tapped away below
    phone.wait_for_timeout(300)
    phone.evaluate("() => render({...page.state})")  # another redraw of the same state
    writes = phone.evaluate("() => window.writes")
    assert writes["turn"] == 1 and writes["palifico"] == 0, writes  # "Ben to raise or call"
    expect(phone.locator("#turn")).to_have_text("Ben to raise or call")
    # The toast's words are said from a region always on the page, the toast itself silent.
    said = phone.locator("#said")
    expect(said).to_have_text(phone.locator("#notice").inner_text())
    assert said.get_attribute("aria-live") == "polite" and said.get_attribute("role") == "status"
    assert phone.locator("#notice").get_attribute("aria-live") is None
    phone.locator("#notice").click()
    expect(phone.locator("#notice")).to_be_hidden()
    assert phone.evaluate("getComputedStyle(document.getElementById('said')).display") != "none"
    # The end of the game: said once, and its New game button kept (the keyboard's focus on
    # it stayed no longer than the next redraw).
    act(server, action="dudo", player="Ben")
    over = act(server, action="reveal", dice={"Ana": [3], "Ben": [6, 6]})  # no 4: Ana out
    assert over["winner"] == "Ben"
    wait_out_the_hold(phone, over)
    expect(phone.locator("#winner")).to_contain_text("Ben wins!")
    phone.locator("#to-new-game").focus()
    phone.evaluate("() => { window.writes.winner = 0; render({...page.state}); }")
    assert phone.evaluate("() => window.writes.winner") == 0
    expect(phone.locator("#to-new-game")).to_be_focused()
    # A wrong PIN is said, not only shown.
    expect(phone.locator("#pin-error")).to_have_attribute("role", "alert")


def test_a_refusal_stays_its_time_though_the_player_touches_the_page(
    phone: Any, server: str
) -> None:
    started = new_game(server, ["Ana", "Ben", "Caro"], dice=2)
    take_control(phone)
    wait_out_the_hold(phone, started)  # the new game's announcement shown before, not after
    phone.evaluate("notice('DUDO by Ana: no bid to doubt yet', 'error')")  # as a refusal shows
    phone.mouse.click(5, 300)
    phone.wait_for_timeout(500)
    expect(phone.locator("#notice")).to_be_visible()
    expect(phone.locator("#notice")).to_have_text("DUDO by Ana: no bid to doubt yet")
    phone.locator("#notice").click()  # read: a tap on it clears it
    expect(phone.locator("#notice")).to_be_hidden(timeout=1500)


def test_a_table_that_hides_the_dice_counts_says_so_and_offers_no_record_it_would_refuse(
    browser: Any, server: str
) -> None:
    # Before session 78, every player read "?" with nothing to say why, and a phone without
    # the PIN was offered the game's record, which downloaded a refusal (403).
    state = new_game(server, ["Ana", "Ben", "Caro"], rules="perudo", lost_dice_visible=False)
    # The state comes late, after the list of games (as on a busy host, where CI found the
    # list offering the record): asked for together, the list was drawn without it.
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, color_scheme="light")
    watcher = context.new_page()
    watcher.route(re.compile(r".*/api/(state|events)$"),
                  lambda route: (time.sleep(0.4), route.continue_()))
    watcher.goto(server)
    wait_out_the_hold(watcher, state)
    expect(watcher.locator("#rules-line")).to_contain_text(
        "?: how many dice each holds is not shown (these rules)")
    listed = watcher.locator("#games li").first
    expect(listed).to_contain_text("(being played) \u00b7 its record once it ends")
    expect(listed.locator("a")).to_have_count(0)
    shot(watcher, "78-hidden-counts-watcher", full=True)
    take_control(watcher)  # the PIN's phone may have it
    expect(watcher.locator("#games li").first.locator("a")).to_have_count(1)
    watcher.context.close()
