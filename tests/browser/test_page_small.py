"""The page on the smallest phones and with the largest text: the header keeps one row at
320 px, a seat's remove button stays beside its name in the new-game form, the seat numbers
stay inside their circles and the players' names on one line with text at twice the size,
a palifico round keeps the bid and the calls in view on a 360x640 phone, a phone on its side
shows the standing bid beside the controls (without the PIN, beside the players), and the
simulated panel stops asking for its pins while the table is out of reach. Each test sets its
game up through the API; screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

import cv2
import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from tests.browser.conftest import (
    act,
    call_api,
    dial_shown,
    finish_the_reveal,
    keep_notice,
    loaded,
    new_game,
    open_form,
    open_page,
    shot,
    shows,
    take_control,
    text_size,
    wait_out_the_hold,
)

pytestmark = pytest.mark.browser

SMALL = {"width": 320, "height": 568}

# Each seat number's text box and its circle's box, as [[left, top, right, bottom], ...].
SEAT_BOXES = """() => [...document.querySelectorAll(".player .seat")].map((seat) => {
  const text = document.createRange();
  text.selectNodeContents(seat);
  const box = (r) => [r.left, r.top, r.right, r.bottom];
  return [seat.textContent, box(text.getBoundingClientRect()), box(seat.getBoundingClientRect())];
})"""


# Whether an element is as wide as the longest word of its text (a hyphen ends a word), in its
# own font.
LONGEST_WORD_FITS = """(e) => {
  const pen = document.createElement("canvas").getContext("2d");
  const style = getComputedStyle(e);
  pen.font = style.fontWeight + " " + style.fontSize + " " + style.fontFamily;
  const longest = Math.max(...e.textContent.split(/[\\s-]+/).map((w) => pen.measureText(w).width));
  return e.getBoundingClientRect().width + 1 >= longest;
}"""


def on_the_line_of(box: dict[str, float], line: dict[str, float], slack: float = 0) -> bool:
    """Whether ``box``'s middle lies within ``line``'s height (give or take ``slack`` px)."""
    return line["y"] <= box["y"] + box["height"] / 2 <= line["y"] + line["height"] + slack


def a_palifico_round_to_declare(server: str, players: list[str]) -> dict[str, Any]:
    """A new game of three players with two dice each ("dudo" rules), after the first's bid
    was doubted and fell: a palifico round for the first, still to be declared open or
    closed."""
    new_game(server, players, rules="dudo", dice=2)
    act(server, action="bid", player=players[0], quantity=5, face=6)
    act(server, action="dudo", player=players[1])
    state = act(server, action="reveal", dice={players[0]: [2, 3], players[1]: [4, 5],
                                               players[2]: [4, 4]})
    assert state["palifico"] == players[0] and not state["bids"], state
    return state


def in_control_at_the_top(
    browser: Any, server: str, screen: dict[str, int], scheme: str, state: dict[str, Any]
) -> Any:
    """A page of ``screen`` size with the PIN, showing ``state`` settled, at its top."""
    page = open_page(browser, server, screen, scheme)
    take_control(page)
    wait_out_the_hold(page, state)
    page.evaluate("window.scrollTo(0, 0)")
    return page


def shot_players_and_close(page: Any, name: str) -> None:
    """A screenshot of the players' list, for a person to look at; then the phone goes."""
    page.locator(".players").scroll_into_view_if_needed()
    shot(page, name)
    page.context.close()


def test_the_header_keeps_one_row_on_a_320_px_phone(browser: Any, server: str) -> None:
    # Before, "Dudo", "round 1", "live" and "Control on" took 90 px at 320 px, 57 px at 400 px:
    # the button went to a second row, and the sticky header hid more of the page.
    new_game(server, ["Ana", "Ben", "Caro", "Dan"], rules="perudo")
    act(server, action="bid", player="Ana", quantity=3, face=4)
    page = open_page(browser, server, {"width": 400, "height": 640}, "dark")
    take_control(page)
    expect(page.locator("#round")).to_have_text("round 1")
    expect(page.locator("#bid-by")).to_have_text("by Ana")
    header = page.locator("header.top")
    wide = header.bounding_box()["height"]
    page.set_viewport_size({"width": 320, "height": 568})
    assert header.bounding_box()["height"] == wide
    # The round is said whole, not cut to "roun...".
    assert page.evaluate("(() => { const r = document.getElementById('round');"
                         " return r.scrollWidth <= r.clientWidth; })()")
    shot(page, "48-header-320")
    page.context.close()


@pytest.mark.parametrize("width", [320, 400])
def test_call_pass_keeps_the_calls_where_they_were_beside_the_exact_call_and_pass(
    browser: Any, server: str, width: int
) -> None:
    # After a pass the call button reads CALL PASS. Said on one line it was wider than DUDO,
    # and at 400 px it pushed EXACTOMUNDO and PASS to a second row under a finger; on two
    # lines every call stays where it was, its words whole, with text at twice the size too.
    new_game(server, ["Ana", "Ben", "Caro"], rules="payroodo", exact_call="exactomundo",
             **{"pass": True})
    state = act(server, action="bid", player="Ana", quantity=2, face=3)
    page = open_page(browser, server, {"width": width, "height": 640}, "dark")
    take_control(page)
    calls = [page.locator(b) for b in ("#call-dudo", "#call-calza", "#call-pass")]
    expect(calls[1]).to_have_text("EXACTOMUNDO")
    for zoom in ("100%", "200%"):
        # Drawn again at that size, as a page opened with it is drawn from the start.
        page.evaluate(f"document.documentElement.style.fontSize = '{zoom}'; render(page.state)")
        wait_out_the_hold(page, state)
        expect(calls[0]).to_have_text("DUDO")
        before = [b.bounding_box() for b in calls]
        state = act(server, action="pass", player="Ben")
        wait_out_the_hold(page, state)
        expect(calls[0]).to_have_text("CALL PASS")
        assert [b.bounding_box() for b in calls] == before, zoom
        for button in calls:
            assert button.evaluate("e => e.scrollWidth <= e.clientWidth"), zoom
        shot(page, f"48-call-pass-{width}-{zoom[:-1]}")
        state = act(server, action="undo", player="Ben")
    page.context.close()


def test_a_seat_s_remove_button_stays_beside_its_name_on_a_320_px_phone(
    browser: Any, server: str
) -> None:
    # Before, the colour, the name, up and down filled the row and each "x" sat alone below.
    new_game(server, ["Ana", "Ben", "Caro", "Dan"], rules="perudo")
    page = open_page(browser, server, SMALL, "light")
    take_control(page)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#another-game")
    expect(page.locator("#new-game")).to_be_visible()
    rows = page.locator("#seats .seat-row")
    expect(rows).to_have_count(4)
    for row in rows.all():
        name = row.locator("input[type=text]").bounding_box()
        remove = row.locator(".remove").bounding_box()
        assert on_the_line_of(remove, name), (name, remove)
        assert remove["x"] + remove["width"] <= SMALL["width"]
        assert name["width"] >= 60  # still room to read a name
    page.locator("#setup").scroll_into_view_if_needed()
    shot(page, "48-seats-320")
    page.context.close()


def test_a_seat_s_name_shows_whole_in_the_new_game_form_with_text_at_twice_the_size(
    browser: Any, server: str
) -> None:
    # Before, at twice the text on a 390 px phone the name field showed about seven letters
    # ("Barthol"), the up, down and remove buttons beside it (a helper's audit of the page).
    new_game(server, ["Bartholomew", "Maximiliana", "Li"], rules="perudo")
    page = open_page(browser, server, {"width": 390, "height": 844}, "dark")
    text_size(page, "200%")
    open_form(page)
    rows = page.locator("#seats .seat-row")
    expect(rows).to_have_count(3)
    for row, name in zip(rows.all(), ["Bartholomew", "Maximiliana", "Li"], strict=True):
        field = row.locator("input[type=text]")
        field.fill(name)
        assert field.evaluate("(e) => e.scrollWidth <= e.clientWidth"), name
        remove = row.locator(".remove").bounding_box()
        assert remove is not None and remove["x"] + remove["width"] <= 390
    page.locator("#setup").scroll_into_view_if_needed()
    shot(page, "48-seats-390-text-200")
    page.context.close()


@pytest.mark.parametrize("players", [4, 12], ids=["one digit", "two digits"])
def test_seat_numbers_stay_in_their_circles_with_text_at_twice_the_size(
    browser: Any, server: str, players: int
) -> None:
    # Before, the circle was 28 px whatever the text: at 200% the number stood out of it.
    names = [f"P{n}" for n in range(1, players + 1)]
    new_game(server, names, rules="dudo", dice=1)
    page = open_page(browser, server, SMALL, "dark")
    expect(page.locator(".player .seat")).to_have_count(players)
    text_size(page, "200%")
    for number, (left, top, right, bottom), circle in page.evaluate(SEAT_BOXES):
        c_left, c_top, c_right, c_bottom = circle
        assert c_left <= left and right <= c_right, (number, circle)
        assert c_top <= top and bottom <= c_bottom, (number, circle)
    shot_players_and_close(page, f"48-seats-text-200-{players}")


def test_a_player_s_name_keeps_one_line_with_text_at_twice_the_size(
    browser: Any, server: str
) -> None:
    # Before, the seat, the cup of five dice and the count left the name a letter's width at
    # 200% text on a 320 px phone: "B", "e", "n" on three lines. The cup goes below instead.
    started = new_game(server, ["Ana", "Ben", "Carol", "Dan"], rules="perudo")
    page = open_page(browser, server, SMALL, "dark")
    wait_out_the_hold(page, started)  # this game shown: no later state redraws the list
    expect(page.locator(".player .cupdie")).to_have_count(20)
    text_size(page, "200%")
    lines = page.evaluate("""() => [...document.querySelectorAll(".player .name")].map((n) => [
      n.textContent, n.getBoundingClientRect().height / parseFloat(getComputedStyle(n).fontSize),
    ])""")
    assert [name for name, _ in lines] == ["Ana", "Ben", "Carol", "Dan"]
    assert all(ems < 2 for _, ems in lines), lines  # one line each (a line is about 1.2em)
    for player in page.locator(".player").all():  # the cup and the count are on the screen
        for part in (".cup", ".count"):
            box = player.locator(part).bounding_box()
            assert box["x"] + box["width"] <= SMALL["width"], (part, box)
    shot_players_and_close(page, "48-names-text-200")


def test_the_palifico_banner_keeps_its_word_whole_with_text_at_twice_the_size(
    browser: Any, server: str
) -> None:
    # Before, "PALIFI" and "CO" on two lines of a 320 px phone at 200% text.
    new_game(server, ["Ana", "Ben"], rules="perudo", dice=2)
    act(server, action="bid", player="Ana", quantity=3, face=6)
    act(server, action="dudo", player="Ben")
    state = act(server, action="reveal", dice={"Ana": [2, 3], "Ben": [4, 5]})
    assert state["palifico"] == "Ana"
    page = open_page(browser, server, SMALL, "dark")
    text_size(page, "200%")
    word = page.locator("#palifico strong")
    expect(word).to_have_text("PALIFICO")
    lines = word.evaluate("(el) => el.getBoundingClientRect().height"
                          " / parseFloat(getComputedStyle(el).fontSize)")
    assert lines < 2, lines  # one line (about 1.2em)
    box = word.bounding_box()
    assert box is not None and box["x"] + box["width"] <= SMALL["width"]
    page.context.close()


@pytest.mark.parametrize("height", [640, 560])
def test_a_palifico_round_keeps_the_bid_and_the_calls_in_view_on_a_small_phone(
    browser: Any, server: str, height: int
) -> None:
    # Before, the banner took 200 px of a 640 px screen and pushed the Bid button and the
    # calls below it, where every other round shows them without a scroll. A 360x640 phone
    # whose browser's bars leave 560 px shows Bid whole since session 61 (it lay 23 px below),
    # and DUDO whole since session 78 (it lay 34 px below; 29 px of it showed at 640 in the
    # "dudo" rules, whose banner took three lines): the standing bid's label says the round.
    new_game(server, ["Ana", "Ben", "Caro"], rules="perudo", dice=2)
    act(server, action="bid", player="Ana", quantity=5, face=6)
    act(server, action="dudo", player="Ben")
    act(server, action="reveal", dice={"Ana": [2, 3], "Ben": [4, 5], "Caro": [4, 4]})
    state = act(server, action="bid", player="Ana", quantity=1, face=3)
    assert state["palifico"] == "Ana" and state["turn"] == "Ben", state
    screen = {"width": 360, "height": height}
    page = in_control_at_the_top(browser, server, screen, "dark", state)
    expect(page.locator("#pal-tag")).to_have_text("PALIFICO Ana")
    expect(page.locator("#palifico")).to_be_hidden()
    rules = page.locator("#palifico-rules")
    expect(rules).to_have_text("Palifico: Ana has one die: aces are not wild; the face is locked")
    shot(page, f"54-palifico-360x{height}")
    bid, dudo, undo, said = (page.locator(b).bounding_box() for b in (
        "#place-bid", "#call-dudo", "#undo", "#palifico-rules"))
    assert bid is not None and dudo is not None and undo is not None and said is not None
    assert dudo["y"] + dudo["height"] <= screen["height"], dudo
    assert said["y"] >= undo["y"] + undo["height"]  # the rules below, where a scroll finds them
    # A phone without the PIN has no controls: the banner says it all, as on a tall screen.
    watcher = open_page(browser, server, screen, "dark")
    expect(watcher.locator("#palifico")).to_contain_text("Ana has one die: aces are not wild")
    expect(watcher.locator("#palifico")).to_be_visible()
    expect(watcher.locator("#pal-tag")).to_be_hidden()
    watcher.context.close()
    page.context.close()


def test_an_open_palifico_round_keeps_its_calls_in_view_on_a_360x740_phone(
    browser: Any, server: str
) -> None:
    # Under the "dudo" rules an open palifico's banner takes five lines: on a 360x740 phone
    # (a common size) the calls lay half below the screen's foot after the palifico player
    # passed, CALL PASS among them (a helper's game-night audit). The standing bid's label
    # says the round there too, as on a smaller screen.
    new_game(server, ["Ana", "Ben", "Caro"], rules="dudo", dice=2)
    act(server, action="bid", player="Ana", quantity=5, face=6)
    act(server, action="dudo", player="Ben")
    act(server, action="reveal", dice={"Ana": [2, 3], "Ben": [4, 5], "Caro": [4, 4]})
    act(server, action="palifico", player="Ana", mode="open")
    state = act(server, action="pass", player="Ana")
    assert state["palifico"] == "Ana" and state["turn"] == "Ben", state
    # A laptop's window as short keeps the banner, its lines few: the calls are in view.
    for screen, banner in (({"width": 360, "height": 740}, False),
                           ({"width": 1440, "height": 789}, True)):
        page = in_control_at_the_top(browser, server, screen, "light", state)
        expect(page.locator("#call-dudo")).to_have_text("CALL PASS")
        expect(page.locator("#palifico")).to_be_visible(visible=banner)
        expect(page.locator("#pal-tag")).to_be_visible(visible=not banner)
        shot(page, f"59-open-palifico-{screen['width']}x{screen['height']}")
        for button in ("#place-bid", "#call-dudo", "#call-calza", "#call-pass"):
            box = page.locator(button).bounding_box()
            assert box is not None and box["y"] + box["height"] <= screen["height"], (button, box)
        page.context.close()


@pytest.mark.parametrize("width, height", [(360, 640), (360, 560), (320, 568)])
def test_a_palifico_still_to_declare_keeps_bid_where_the_declared_round_has_it(
    browser: Any, server: str, width: int, height: int
) -> None:
    # Before, the open/closed choice's row was added under the standing bid's empty lines: on
    # a 360x640 phone, with a long name in the banner, Bid lay partly below the screen's foot,
    # and it moved 60 px up once the round was declared. On a 320x568 phone it lay 6 px below
    # until session 62.
    players = ["Bartholomew Richardson", "Anne-Charlotte Dubois", "Li"]
    state = a_palifico_round_to_declare(server, players)
    screen = {"width": width, "height": height}
    page = open_page(browser, server, screen, "dark")
    take_control(page)
    wait_out_the_hold(page, state)

    def bid_below_the_banner() -> tuple[dict[str, float], float]:
        # (Since session 78 the standing bid's label says the round there, not a banner.)
        page.evaluate("window.scrollTo(0, 0)")
        bid, card = (page.locator(b).bounding_box() for b in ("#place-bid", "#bid-card"))
        assert bid is not None and card is not None
        return bid, bid["y"] - card["y"]

    expect(page.locator("#palifico-choice")).to_be_visible()
    shot(page, f"56-palifico-to-declare-{width}x{height}")
    bid, choosing = bid_below_the_banner()
    assert bid["y"] + bid["height"] <= screen["height"], bid
    state = act(server, action="palifico", player=players[0], mode="closed")
    wait_out_the_hold(page, state)
    expect(page.locator("#palifico-choice")).to_be_hidden()
    expect(page.locator("#pal-tag")).to_have_text("PALIFICO (closed) Bartholomew Richardson")
    _, declared = bid_below_the_banner()
    assert abs(choosing - declared) <= 8, (choosing, declared)
    state = act(server, action="bid", player=players[0], quantity=1, face=3)
    wait_out_the_hold(page, state)
    dudo = page.locator("#call-dudo").bounding_box()
    assert dudo is not None and dudo["y"] + dudo["height"] <= screen["height"], dudo
    page.context.close()


def test_the_open_and_closed_buttons_keep_their_words_whole_at_a_larger_text_size(
    browser: Any, server: str
) -> None:
    # Before (session 92's audit), at 1.5 times the text on a 360 px phone they read "Ope / n"
    # and "Clos / ed". They now go together to a line below "Palifico:".
    # At twice the text on a 320 px phone, one under the other, within the card.
    state = a_palifico_round_to_declare(server, ["Bartholomew Richardson", "Ben", "Li"])
    for width, size, side_by_side in ((360, "150%", True), (320, "200%", False)):
        page = in_control_at_the_top(browser, server, {"width": width, "height": 640}, "light",
                                     state)
        text_size(page, size)
        boxes = []
        for mode in ("open", "closed"):
            button = page.locator(f"#palifico-choice button[data-mode={mode}]")
            expect(button).to_be_visible()
            assert button.evaluate("(b) => b.scrollWidth <= b.clientWidth && b.clientHeight"
                                   " < 2.4 * parseFloat(getComputedStyle(b).fontSize)")
            assert button.evaluate("(b) => getComputedStyle(b).fontWeight") == "400"
            boxes.append(button.bounding_box())
        assert (boxes[0]["y"] == boxes[1]["y"]) == side_by_side, boxes
        card = page.locator("#controls").bounding_box()
        assert all(b["x"] + b["width"] <= card["x"] + card["width"] for b in boxes), boxes
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        shot(page, f"56-palifico-to-declare-{width}-{size[:-1]}")
        page.context.close()


def test_the_palifico_banner_breaks_its_line_between_words_on_a_320_px_phone(
    browser: Any, server: str
) -> None:
    # Before, its parts were written with nothing between them: the only places a line could
    # break were inside words, and a long name was cut ("Maximilia" / "no").
    players = ["Maximiliano Bartolomeo", "Li", "Sam"]
    a_palifico_round_to_declare(server, players)
    act(server, action="palifico", player=players[0], mode="closed")
    page = open_page(browser, server, {"width": 320, "height": 568}, "dark")
    banner = page.locator("#palifico")
    expect(banner).to_contain_text("(closed)")
    expect(banner).to_contain_text("Maximiliano Bartolomeo has one die")
    words = banner.evaluate("""(el) => {
      const text = [...el.querySelectorAll("span")].pop().firstChild;
      return ["Maximiliano", "Bartolomeo"].map((word) => {
        const range = document.createRange(), at = text.data.indexOf(word);
        range.setStart(text, at);
        range.setEnd(text, at + word.length);
        return [word, new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size];
      });
    }""")
    assert words == [["Maximiliano", 1], ["Bartolomeo", 1]], words
    shot(page, "58-palifico-long-name-320")
    page.context.close()


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def test_an_announcement_lies_over_the_header_never_over_the_standing_bid_and_the_calls(
    browser: Any, server: str
) -> None:
    # Before, it lay at the foot of the screen: on a 360x640 phone over Bid, DUDO and CALZA
    # after every move, and the rows beneath showed through it. Then (sessions 78-81) over
    # the standing bid's numbers, for 4 s after each move: after an undo, over the bid it
    # gave back (a helper's game-night audit).
    state = new_game(server, ["Ana", "Ben", "Caro"], rules="perudo")
    page = open_page(browser, server, {"width": 360, "height": 640}, "dark")
    take_control(page)
    wait_out_the_hold(page, state)
    page.evaluate("window.scrollTo(0, 0)")
    page.click("#place-bid")
    notice = page.locator("#notice")
    expect(notice).to_contain_text("Ana bids")
    wait_out_the_hold(page)
    act(server, action="bid", player="Ben", quantity=5, face=5)
    act(server, action="undo")
    expect(notice).to_contain_text("Undone: Ben's bid of five 5s")
    keep_notice(page)  # measured below, after a screenshot
    expect(page.locator("#bid-by")).to_have_text("by Ana")
    shot(page, "55-announcement-360x640")
    box = notice.bounding_box()
    assert box is not None and overlap(box, page.locator(".top").bounding_box())
    for shown in ("#bid", "#bid-by", "#turn", "#place-bid", "#call-dudo", "#call-calza", "#undo"):
        under = page.locator(shown)
        if under.is_visible():
            assert not overlap(box, under.bounding_box()), shown
    assert notice.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(17, 17, 17)"
    page.context.close()


def test_a_reveal_s_announcement_at_twice_the_text_leaves_the_new_turn_in_view(
    browser: Any, server: str
) -> None:
    # Before, at twice the text a reveal's announcement took the whole of a 360x640 phone for
    # 8 s, the new round's turn under it (a helper's audit of the page). Now it is 40% of the
    # screen at most, says there is more, and scrolls to its last words.
    new_game(server, ["Maximiliana", "Bartholomew", "Caro"], rules="perudo")
    page = open_page(browser, server, {"width": 360, "height": 640}, "dark")
    text_size(page, "200%")
    act(server, action="bid", player="Maximiliana", quantity=3, face=4)
    act(server, action="dudo", player="Bartholomew")
    state = finish_the_reveal(server)
    notice = page.locator("#notice")
    expect(notice).to_contain_text("Dudo by Bartholomew")
    keep_notice(page)
    shows(page, state)
    turn = page.locator("#turn")
    expect(turn).to_contain_text("to open")
    shot(page, "59-reveal-announcement-200pc-360x640")
    box, under = notice.bounding_box(), turn.bounding_box()
    assert box is not None and under is not None
    assert box["height"] <= 0.4 * 640 + 1 and not overlap(box, under), (box, under)
    expect(notice).to_have_class(re.compile(r"\bmore\b"))
    notice.evaluate("e => { e.scrollTop = e.scrollHeight; }")
    expect(notice).not_to_have_class(re.compile(r"\bmore\b"))
    last = notice.evaluate("""(e) => {
        const words = document.createRange();
        words.selectNodeContents(e);
        const rects = [...words.getClientRects()], shown = e.getBoundingClientRect();
        return rects[rects.length - 1].bottom <= shown.bottom + 1;
    }""")
    assert last, "the announcement's last line is not in view once scrolled"
    # At the usual size the same words fit: no "more".
    page.add_style_tag(content="html { font-size: 100%; }")
    page.evaluate("notice($('notice').textContent, '', 8000); clearTimeout(noticeTimer)")
    expect(notice).not_to_have_class(re.compile(r"\bmore\b"))
    page.context.close()


def test_the_bid_and_the_calls_stay_put_as_the_turn_goes_to_a_long_name_and_a_pass(
    browser: Any, server: str
) -> None:
    # Before, "Bartholomew Richardson must raise or call Anne-Charlotte Dubois's pass" took
    # three lines, and Bid, DUDO and Undo moved down 28 px a line under a finger.
    players = ["Bartholomew Richardson", "Anne-Charlotte Dubois", "Li"]
    state = new_game(server, players, rules="dudo")
    page = open_page(browser, server, {"width": 360, "height": 640}, "dark")
    take_control(page)
    def place() -> list[int]:
        return [round(page.locator(b).bounding_box()["y"]) for b in ("#place-bid", "#call-dudo")]

    places = []
    for action in ({"action": "bid", "player": players[0], "quantity": 2, "face": 3},
                   {"action": "pass", "player": players[1]},
                   {"action": "bid", "player": players[2], "quantity": 3, "face": 3}):
        wait_out_the_hold(page, state)
        page.evaluate("window.scrollTo(0, 0)")
        places.append(place())
        state = act(server, **action)
    wait_out_the_hold(page, state)
    places.append(place())
    assert len({tuple(p) for p in places}) == 1, places
    turn = page.locator("#turn")
    expect(turn).to_have_text(f"{players[0]} to raise or call")  # all of it, for a reader
    assert turn.evaluate("e => e.scrollHeight <= 1.6 * parseFloat(getComputedStyle(e).fontSize)")
    # The name is cut short, never the words after it.
    what = turn.locator(".what")
    assert what.evaluate("e => e.scrollWidth <= e.clientWidth"), what.bounding_box()
    assert turn.locator(".who").evaluate("e => e.scrollWidth > e.clientWidth")
    page.context.close()


def test_on_a_narrow_phone_a_long_name_is_not_cut_to_a_letter_the_words_are_said_shorter(
    browser: Any, server: str
) -> None:
    # Before, at 320 px, "Maximiliana Rosales must raise or call the pass" showed as
    # "I must raise or call the pass": the name cut to 5 px, its "M" read as "I".
    players = ["Ana", "Ben", "Maximiliana Rosales"]
    state = new_game(server, players, rules="dudo")
    page = open_page(browser, server, {"width": 320, "height": 568}, "light")
    state = act(server, action="bid", player="Ana", quantity=2, face=3)
    state = act(server, action="pass", player="Ben")
    wait_out_the_hold(page, state)
    turn = page.locator("#turn")
    expect(turn.locator(".what")).to_have_text(" must raise or call")
    expect(turn).to_have_attribute("title", "Maximiliana Rosales must raise or call the pass")
    expect(turn.locator(".sr-only")).to_have_text(" must raise or call the pass")  # said whole
    who = turn.locator(".who")
    assert who.evaluate("e => e.clientWidth >= 5 * parseFloat(getComputedStyle(e).fontSize)")
    assert turn.evaluate("e => e.scrollHeight <= 1.6 * parseFloat(getComputedStyle(e).fontSize)")
    shot(page, "60-long-name-320")
    # At 320 px even a short name was cut ("B… must raise or call the pass"): whole now.
    state = act(server, action="bid", player="Maximiliana Rosales", quantity=3, face=3)
    state = act(server, action="pass", player="Ana")
    wait_out_the_hold(page, state)
    expect(turn.locator(".what")).to_have_text(" must raise or call")
    expect(who).to_have_text("Ben")
    assert who.evaluate("e => e.scrollWidth <= e.clientWidth")
    # A bid with no pass standing: the whole sentence fits beside a short name.
    state = act(server, action="bid", player="Ben", quantity=4, face=3)
    wait_out_the_hold(page, state)
    expect(turn).to_have_text("Maximiliana Rosales to raise or call")
    wait_out_the_hold(page, act(server, action="bid", player="Maximiliana Rosales", quantity=5,
                                face=3))
    expect(turn).to_have_text("Ana to raise or call")
    page.context.close()


def test_a_phone_that_did_not_start_the_game_sees_what_is_played(
    browser: Any, server: str
) -> None:
    # Before, nothing on the page said the preset, the exact call, the pass or what "P" meant.
    new_game(server, ["Ana", "Ben"], rules="dudo", dice=1, loss="difference")
    watcher = open_page(browser, server, {"width": 360, "height": 640}, "light")
    expect(watcher.locator("#rules-line")).to_have_text(
        "Rules: dudo \u00b7 1 die each \u00b7 aces wild \u00b7 spot on played \u00b7 pass played"
        " \u00b7 palifico once, open or closed \u00b7 the difference is lost")
    watcher.context.close()


def test_every_phone_shows_the_bid_the_panel_s_dial_is_on(browser: Any, server: str) -> None:
    # The panel has no display: before, only the simulated panel of a phone with the PIN
    # showed the dial's bid, so no one at a real table could see what they were to push.
    new_game(server, ["Ana", "Ben", "Caro"], rules="perudo")
    watcher = open_page(browser, server, {"width": 360, "height": 640}, "light")
    expect(watcher.locator("#turn")).to_have_text("Ana to open")
    expect(watcher.locator("#dial")).to_have_text("panel: 1\u00d72")
    assert "error" not in call_api(server, "/api/sim/dial", {"steps": 3})
    expect(watcher.locator("#dial")).to_have_text("panel: 1\u00d75")
    act(server, action="bid", player="Ana", quantity=1, face=5)
    act(server, action="dudo", player="Ben")
    expect(watcher.locator("#dial")).to_be_hidden()  # no bid to push while the cups are up
    watcher.context.close()


def test_a_phone_with_the_pin_asks_for_the_bids_once_a_move_not_at_each_turn_of_the_dial(
    browser: Any, server: str
) -> None:
    # Each phone with the PIN asked the table for every legal bid at each state it heard, and
    # a turn of the panel's dial is one: a dial turned three clicks, three asks a phone, each
    # worked out anew by the table (on a Pi's pace, the push's beep came 0.2 s late).
    new_game(server, ["Ana", "Ben", "Caro"], rules="perudo")
    phone = open_page(browser, server, {"width": 360, "height": 640}, "light")
    take_control(phone)
    loaded = "page.bidsFor === position(page.state) && page.bids.length > 0"
    phone.wait_for_function(loaded)
    asks: list[str] = []
    phone.on("request", lambda r: asks.append(r.url) if "/api/bids" in r.url else None)
    for _ in range(3):
        assert "error" not in call_api(server, "/api/sim/dial", {"steps": 1})
    expect(phone.locator("#dial")).to_have_text("panel: 1\u00d75")  # every turn heard
    act(server, action="bid", player="Ana", quantity=1, face=5)
    expect(phone.locator("#bid-by")).to_have_text("by Ana")
    phone.wait_for_function(loaded)
    expect(phone.locator("#dial")).to_have_text("panel: 1\u00d76")  # the dial set anew: heard
    assert len(asks) == 1, asks  # the move's, once
    phone.context.close()


# Every change the page's DOM takes from now on, as the id of the element nearest it that
# has one ("#dial", "#players"...), but for buttons held and let go; read with MUTATED.
WATCH_MUTATIONS = """() => {
  window.mutated = [];
  const holding = ["data-held", "aria-disabled"];
  new MutationObserver((records) => records.forEach((r) => {
    if (r.type === "attributes" && holding.includes(r.attributeName)) return;
    const at = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    const owner = at && at.closest("[id]");
    window.mutated.push(owner ? "#" + owner.id : at ? at.tagName : "?");
  })).observe(document.body,
    {subtree: true, childList: true, attributes: true, characterData: true});
}"""
MUTATED = "() => [...new Set(window.mutated)]"


def test_a_turn_of_the_panel_s_dial_redraws_its_line_alone_on_every_phone(
    browser: Any, server: str
) -> None:
    # Each click of the dial is a state from the table, and so is the dial set anew after each
    # move: every phone redrew its whole page at each (a slow phone, 0.1 s of its time a click).
    new_game(server, ["Ana", "Ben", "Caro"], rules="perudo")
    act(server, action="bid", player="Ana", quantity=2, face=3)
    watcher = open_page(browser, server, {"width": 360, "height": 640}, "light")
    dial_shown(watcher, "2\u00d74")
    expect(watcher.locator("#games li").first).to_be_visible()  # asked for after the state
    loaded(watcher)
    watcher.evaluate(WATCH_MUTATIONS)
    assert "error" not in call_api(server, "/api/sim/dial", {"steps": 1})
    expect(watcher.locator("#dial")).to_have_text("panel: 2\u00d75")
    # The dial's line, and the simulated panel's own copy of it (a real table has none).
    assert set(watcher.evaluate(MUTATED)) <= {"#dial", "#sim"}, watcher.evaluate(MUTATED)
    # The next move is drawn whole, and the dial set anew with it.
    act(server, action="bid", player="Ben", quantity=3, face=3)
    expect(watcher.locator("#bid-by")).to_have_text("by Ben")
    expect(watcher.locator("#dial")).to_have_text("panel: 3\u00d74")
    assert {"#players", "#bid", "#round-bids"} <= set(watcher.evaluate(MUTATED))
    watcher.context.close()


def test_a_phone_draws_each_move_once_not_again_as_it_lets_its_buttons_go(
    browser: Any, server: str
) -> None:
    # After a move every phone holds its buttons half a second; letting them go, it drew the
    # whole page again: each move drawn twice on every phone.
    new_game(server, ["Ana", "Ben", "Caro"], rules="perudo")
    watcher = open_page(browser, server, {"width": 360, "height": 640}, "light")
    state = act(server, action="bid", player="Ana", quantity=2, face=3)
    expect(watcher.locator("#bid-by")).to_have_text("by Ana")
    expect(watcher.locator("#games li").first).to_be_visible()  # asked for after the state
    dial_shown(watcher, "2\u00d74")
    loaded(watcher)
    watcher.evaluate(WATCH_MUTATIONS)
    wait_out_the_hold(watcher, state)
    assert watcher.evaluate(MUTATED) == []
    watcher.context.close()


def test_a_turn_of_the_dial_that_takes_a_line_more_leaves_the_controls_under_the_finger(
    browser: Any, server: str
) -> None:
    # With large text, the dial's line from 9x6 to 10x2 takes the bid card a line more: the
    # controls below it, where the reader had scrolled, moved down 29 px under their finger
    # (found by a helper's audit of the dial's line redrawn alone).
    new_game(server, ["Ana", "Ben", "Caro", "Dan"], rules="perudo")
    act(server, action="bid", player="Ana", quantity=9, face=5)
    phone = open_page(browser, server, {"width": 360, "height": 640}, "light")
    take_control(phone)
    text_size(phone, "150%")
    expect(phone.locator("body")).to_have_class(re.compile("large-text"))
    expect(phone.locator("#dial")).to_have_text("panel: 9\u00d76")
    top = "() => document.getElementById('controls').getBoundingClientRect().top"
    phone.evaluate("""() => { const below = document.querySelector("header.top")
        .getBoundingClientRect().bottom; window.scrollBy(0, document.getElementById("controls")
        .getBoundingClientRect().top - below - 30); }""")
    before = phone.evaluate(top)
    height = phone.locator("#bid-card").bounding_box()["height"]
    assert "error" not in call_api(server, "/api/sim/dial", {"steps": 1})
    expect(phone.locator("#dial")).to_have_text("panel: 10\u00d72")
    assert phone.locator("#bid-card").bounding_box()["height"] > height + 10  # a line more
    assert abs(phone.evaluate(top) - before) < 1
    phone.context.close()


def test_text_made_larger_in_the_middle_of_a_game_is_fitted_at_once(
    browser: Any, server: str
) -> None:
    # The page fitted the turn's line to a larger text only at its next redraw (a move).
    new_game(server, ["Ana", "Ben", "Maximiliana Rosales"], rules="dudo")
    phone = open_page(browser, server, {"width": 320, "height": 568}, "light")
    act(server, action="bid", player="Ana", quantity=2, face=3)
    wait_out_the_hold(phone, act(server, action="pass", player="Ben"))
    assert "large-text" not in (phone.locator("body").get_attribute("class") or "")
    text_size(phone, "150%")
    expect(phone.locator("body")).to_have_class(re.compile("large-text"))
    phone.context.close()


def test_at_twice_the_text_the_turns_words_are_said_shorter_rather_than_cut(
    browser: Any, server: str
) -> None:
    # Before (session 92's audit), on a 390 px phone at twice the text they read "must raise
    # or c…": words 0.4 px too wide were not found cut, nor were they measured again at the
    # new text size.
    new_game(server, ["Ana", "Ben", "Caro"], rules="dudo")
    phone = open_page(browser, server, {"width": 390, "height": 844}, "light")
    act(server, action="bid", player="Ana", quantity=2, face=3)
    wait_out_the_hold(phone, act(server, action="pass", player="Ben"))
    what = phone.locator("#turn .what")
    expect(what).to_have_text(" must raise or call the pass")
    text_size(phone, "200%")
    expect(what).to_have_text(" to play")
    assert what.evaluate("""(el) => { const all = document.createRange();
      all.selectNodeContents(el);
      return all.getBoundingClientRect().width <= el.getBoundingClientRect().width; }""")
    expect(phone.locator("#turn .who")).to_have_text("Caro")
    phone.context.close()


def test_a_phone_turned_on_its_side_says_the_turn_whole_at_once(browser: Any, server: str) -> None:
    # On a narrow phone a long name's turn is said shorter; turned on its side, the line is
    # fitted again once it has turned, not at the next move.
    new_game(server, ["Ana", "Ben", "Maximiliana Rosales"], rules="dudo")
    phone = open_page(browser, server, {"width": 320, "height": 568}, "light")
    act(server, action="bid", player="Ana", quantity=2, face=3)
    wait_out_the_hold(phone, act(server, action="pass", player="Ben"))
    what = phone.locator("#turn .what")
    expect(what).to_have_text(" must raise or call")
    phone.set_viewport_size({"width": 568, "height": 320})
    expect(what).to_have_text(" must raise or call the pass")
    phone.context.close()


@pytest.mark.parametrize("width", [320, 360])
def test_a_long_name_breaks_between_its_words(browser: Any, server: str, width: int) -> None:
    # Before, "Bartholo / mew" and "Maximilian / o": a name was cut inside a word to keep its
    # cup beside it. Now the cup goes below a name whose words need the row.
    players = ["Bartholomew Richardson", "Anne-Charlotte Dubois", "Maximiliano Li", "Jo"]
    new_game(server, players, rules="perudo")
    act(server, action="bid", player=players[0], quantity=2, face=3)
    page = open_page(browser, server, {"width": width, "height": 640}, "light")
    names = page.locator(".player .name")
    expect(names).to_have_count(4)
    # Once the rows are laid out as the table's first answers leave them (CI, busy, once saw a
    # row measured before), every name; else the name that does not fit is said.
    fits = f"() => [...document.querySelectorAll('.player .name')].every({LONGEST_WORD_FITS})"
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(fits)
    for name in names.all():
        assert name.evaluate(LONGEST_WORD_FITS), (width, name.text_content(), name.bounding_box())
    shot_players_and_close(page, f"49-long-names-{width}")


@pytest.mark.parametrize("text", ["100%", "200%"])
def test_a_player_s_cup_count_and_badges_stay_together_at_the_right(
    browser: Any, server: str, text: str
) -> None:
    # A long name, the bidder's badge: on a 320 px phone the row may take two lines, but the
    # count and the badges never go to the left under the seat, away from the cup; and the
    # badge, before the cup, does not move that row's cup and count out of their column.
    new_game(server, ["Bartholomew Fitzgerald", "Ben", "Caro"], rules="perudo")
    act(server, action="bid", player="Bartholomew Fitzgerald", quantity=2, face=3)
    page = open_page(browser, server, SMALL, "dark")
    expect(page.locator(".player .badge")).to_have_count(1)
    text_size(page, text)
    ends = set()
    # Measured in one go: a row the live feed draws again meanwhile (the players' list is
    # redrawn whole) left a badge found, then gone, with no box (a flaky run, session 93).
    for player in page.evaluate("""() => [...document.querySelectorAll('.player')].map((p) => {
        const box = (el) => { const r = el.getBoundingClientRect();
                              return {x: r.x, y: r.y, width: r.width, height: r.height}; };
        return {row: box(p), cup: box(p.querySelector('.cup')),
                count: box(p.querySelector('.count')), holds: box(p.querySelector('.holds')),
                name: box(p.querySelector('.name')),
                badges: [...p.querySelectorAll('.badge')].map(box)};
    })"""):
        row, cup, count = player["row"], player["cup"], player["count"]
        assert on_the_line_of(count, cup, slack=8), (text, count, cup)
        assert count["x"] >= cup["x"] + cup["width"]  # after the cup, on its line
        for box in player["badges"]:
            assert on_the_line_of(box, cup, slack=8), (text, box, cup)
            assert box["x"] + box["width"] <= cup["x"]  # before the cup, on its line
        ends.add(round(cup["x"] + cup["width"]))
        holds = player["holds"]
        assert row["x"] + row["width"] - (holds["x"] + holds["width"]) <= 12  # at the right
        name = player["name"]
        if text == "100%" and name["height"] < 40:  # a short name keeps one row with its cup
            assert on_the_line_of(name, cup, slack=8), (name, cup)
    assert len(ends) == 1, ends  # the cups end in one column, the bidder's too
    shot_players_and_close(page, f"48-holds-{text[:-1]}")


def panel_asks(phone: Any, server: str) -> list[str]:
    """A game started and the panel shown on ``phone``; its asks for the pins from now on,
    as the page sends them (counted as they go)."""
    new_game(server, ["Ana", "Ben", "Caro"], rules="perudo")
    take_control(phone)
    expect(phone.locator("#sim")).to_be_visible()
    asks: list[str] = []
    phone.on("request", lambda r: asks.append(r.url) if r.url.endswith("/api/sim/pins") else None)
    return asks


def asked_again(phone: Any, asks: list[str], times: int = 2) -> None:
    """Wait (10 s at most) until the panel has asked ``times`` times: every half second, or
    less often on a busy host."""
    for _ in range(100):
        if len(asks) >= times:
            return
        phone.wait_for_timeout(100)
    raise AssertionError(f"the panel asked {len(asks)} times in 10 s")


def test_the_panel_asks_nothing_while_offline_and_asks_again_once_back(
    phone: Any, server: str
) -> None:
    # Before, it asked every half second whatever the feed said.
    asks = panel_asks(phone, server)
    asked_again(phone, asks)  # online: asked every half second
    phone.context.set_offline(True)
    expect(phone.locator("#live")).to_have_text("offline")
    asks.clear()
    phone.wait_for_timeout(3000)
    assert asks == []
    phone.context.set_offline(False)
    expect(phone.locator("#live")).to_have_text("live")
    asked_again(phone, asks)  # back: asked again


def test_the_panel_waits_longer_after_each_ask_for_the_pins_that_fails(
    phone: Any, server: str
) -> None:
    # The table out of reach before the live feed has noticed: each ask fails.
    asks = panel_asks(phone, server)
    phone.route("**/api/sim/pins", lambda route: route.abort("internetdisconnected"))
    asks.clear()  # an ask sent before the route went through
    phone.wait_for_timeout(4200)
    assert 1 <= len(asks) <= 3, asks  # 1 s, then 2 s between them (every 0.5 s: 8 or 9)
    phone.unroute("**/api/sim/pins")
    with phone.expect_response(lambda r: r.url.endswith("/api/sim/pins") and r.ok):
        pass  # the asks go on, and are answered again


def test_the_simulated_panel_s_dial_and_lights_fit_with_text_at_twice_the_size(
    browser: Any, server: str
) -> None:
    # Before, the dial's bid broke over two lines out of its circle, its "push" fell on the
    # DUDO button, and the lights' names were cut at the card's edge ("palific").
    new_game(server, ["Ana", "Ben", "Caro"], rules="perudo")
    page = open_page(browser, server, {"width": 360, "height": 640}, "light")
    take_control(page)
    text_size(page, "200%")
    expect(page.locator("#sim")).to_be_visible()
    page.locator("#sim").scroll_into_view_if_needed()
    dial, bid = page.locator("#sim .dial"), page.locator("#sim-dial-bid")
    expect(bid).not_to_have_text("\u2013")
    circle, text = dial.bounding_box(), bid.bounding_box()
    assert circle and text
    size = float(bid.evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)"))
    assert text["height"] < 2 * size, (text, size)  # one line
    assert circle["x"] <= text["x"] and text["x"] + text["width"] <= circle["x"] + circle["width"]
    assert circle["y"] <= text["y"] and text["y"] + text["height"] <= circle["y"] + circle["height"]
    push = page.locator("#sim .dial small").bounding_box()
    assert push and push["y"] + push["height"] <= circle["y"] + circle["height"], (push, circle)
    # The lights are drawn again at each look at the pins: measured all in one go.
    expect(page.locator("#sim-leds .out-pin")).not_to_have_count(0)
    card_right, lights = page.evaluate("""() => [
      document.getElementById("sim").getBoundingClientRect().right,
      [...document.querySelectorAll("#sim-leds .out-pin")].map((e) => ({
        name: e.textContent, right: e.getBoundingClientRect().right,
        width: e.getBoundingClientRect().width, whole: e.scrollWidth <= e.clientWidth}))]""")
    assert lights and card_right > 0
    for light in lights:
        assert light["width"] > 0 and light["right"] <= card_right and light["whole"], light
    page.locator("#sim .dial").scroll_into_view_if_needed()
    shot(page, "49-panel-text-200")
    page.context.close()


def test_a_phone_on_its_side_shows_bid_and_the_calls_beside_the_standing_bid(
    browser: Any, server: str
) -> None:
    # Before, a 640x360 phone on its side showed the standing bid's card across the screen
    # and Bid at 412 px, DUDO at 478: under the screen's foot, in every round. Now the card
    # stands beside the controls, and Bid and DUDO are in view under a browser's bar too
    # (about 300 px of the 360 are left). A phone without the PIN has no controls: the
    # players stand beside its card (before, across the screen under the card, the first of
    # them at 334 px of the 360).
    players = ["Bartholomew", "Anne-Charlotte", "Li", "Sam"]
    new_game(server, players, rules="perudo")
    state = act(server, action="bid", player=players[0], quantity=3, face=5)
    side = {"width": 640, "height": 360}
    watcher = open_page(browser, server, side, "dark")
    page = in_control_at_the_top(browser, server, side, "dark", state)
    expect(page.locator("#bid-by")).to_have_text("by Bartholomew")
    shot(page, "57-phone-on-its-side")
    card, controls, bid, dudo, undo = (page.locator(s).bounding_box() for s in (
        "#bid-card", "#controls", "#place-bid", "#call-dudo", "#undo"))
    assert card["x"] + card["width"] <= controls["x"], (card, controls)
    assert card["y"] == controls["y"], (card, controls)
    assert dudo["y"] + dudo["height"] <= 300, dudo
    assert bid["y"] + bid["height"] <= dudo["y"] and undo["y"] + undo["height"] <= side["height"]
    # Every control still a finger wide and high.
    for box in (bid, dudo, undo):
        assert box["height"] >= 44 and box["width"] >= 44, box
    # The name whose turn it is, whole on a line of its own in the narrower card.
    who = page.locator("#turn .who")
    expect(who).to_have_text("Anne-Charlotte")
    assert who.evaluate("(e) => e.scrollWidth <= e.clientWidth")
    # The next move's notice lies over the standing bid it tells of, not over the controls.
    act(server, action="bid", player=players[1], quantity=4, face=5)
    notice = page.locator("#notice")
    expect(notice).to_contain_text("Anne-Charlotte bids four 5s")
    box = notice.bounding_box()
    assert box["x"] >= card["x"] and box["x"] + box["width"] <= controls["x"], (box, card)
    expect(watcher.locator("#bid-by")).to_have_text("by Anne-Charlotte")
    assert watcher.locator("#controls").is_hidden()
    shot(watcher, "57-phone-on-its-side-without-the-pin")
    seen, players_card, last = (watcher.locator(s).bounding_box() for s in (
        "#bid-card", "#players-card", "#players > li:last-child"))
    assert seen["x"] + seen["width"] <= players_card["x"] and seen["y"] == players_card["y"]
    assert last["y"] + last["height"] <= side["height"], last
    # With the text at twice the size, two columns are too narrow for it: one, as upright.
    text_size(page, "200%")
    act(server, action="bid", player=players[2], quantity=5, face=5)
    expect(page.locator("#bid-by")).to_have_text("by Li")
    assert page.locator("#controls").bounding_box()["width"] >= 600
    watcher.context.close()
    page.context.close()


def test_a_phone_on_its_side_says_the_palifico_round_in_the_standing_bid_s_label(
    browser: Any, server: str
) -> None:
    # Across the screen, the banner of a palifico round still to declare pushed Bid to 296-344
    # px of a 640x360 phone on its side, under a browser's bar; since session 62 it stood over
    # the standing bid, and since session 78 the standing bid's label says the round: the
    # controls begin at the top.
    players = ["Bartholomew Richardson", "Anne-Charlotte Dubois", "Li"]
    state = a_palifico_round_to_declare(server, players)
    page = open_page(browser, server, {"width": 640, "height": 360}, "light")
    take_control(page)
    wait_out_the_hold(page, state)
    page.evaluate("window.scrollTo(0, 0)")
    expect(page.locator("#palifico-choice")).to_be_visible()
    expect(page.locator("#pal-tag")).to_have_text("PALIFICO Bartholomew Richardson")
    shot(page, "57-phone-on-its-side-palifico")
    tag, card, controls, bid = (page.locator(s).bounding_box() for s in (
        "#pal-tag", "#bid-card", "#controls", "#place-bid"))
    assert card["y"] <= tag["y"] and abs(card["y"] - controls["y"]) <= 3
    assert tag["x"] + tag["width"] <= controls["x"], (tag, controls)
    assert bid["y"] + bid["height"] <= 300, bid
    page.context.close()


def test_a_phone_on_its_side_shows_the_game_s_end_across_the_screen(
    browser: Any, server: str
) -> None:
    # The standing bid goes at the game's end: the cards beside it (Undo, the last reveal)
    # left the screen's first two fifths empty.
    state = a_game_won_by(server, "Ben", "Ana")
    page = open_page(browser, server, {"width": 640, "height": 360}, "dark")
    take_control(page)
    wait_out_the_hold(page, state)
    expect(page.locator("#winner")).to_contain_text("Ben wins!")
    for card in ("#controls", "#reveal"):
        expect(page.locator(card)).to_be_visible()
        assert page.locator(card).bounding_box()["width"] >= 600, card
    page.context.close()


def test_the_pin_dialog_fits_a_small_phone_at_twice_the_text_size(
    browser: Any, server: str
) -> None:
    # Before session 78, its margins and padding grew with the text: after a wrong PIN's
    # five lines, Cancel lay below the dialog's foot, reached only by a scroll inside it.
    page = open_page(browser, server, {"width": 360, "height": 640}, "light")
    text_size(page, "200%")
    page.click("#lock")
    page.fill("#pin", "9")
    page.click("#pin-form button[type=submit]")
    expect(page.locator("#pin-error")).to_contain_text("wrong table PIN")
    dialog, cancel = (page.locator(s).bounding_box() for s in ("#pin-dialog", "#pin-cancel"))
    assert dialog is not None and cancel is not None
    assert cancel["y"] + cancel["height"] <= dialog["y"] + dialog["height"] <= 640, (cancel, dialog)
    shot(page, "78-pin-dialog-text-200")
    page.context.close()


@pytest.mark.parametrize("width, height", [(360, 640), (844, 390)])
def test_each_game_in_the_list_is_a_finger_high(
    browser: Any, server: str, width: int, height: int
) -> None:
    # Before session 78 each was 36 px high: an inline link's padding made it no taller.
    new_game(server, ["Ana", "Ben"], rules="perudo")
    new_game(server, ["Anastasia", "Benedetta", "Caro", "Dan"], rules="perudo")
    page = open_page(browser, server, {"width": width, "height": height}, "light")
    links = page.locator("#games a")
    expect(links.nth(1)).to_be_visible()
    for n in range(links.count()):
        box = links.nth(n).bounding_box()
        assert box is not None and box["height"] >= 44, box
    # Each game's bullet lies beside its first line: until session 82 (an inline block) a
    # game of two lines had it beside its last, under a gap as tall as a line.
    for n in range(links.count()):
        link = links.nth(n)
        link.scroll_into_view_if_needed()
        first = link.evaluate("""a => { const r = document.createRange(); r.selectNodeContents(a);
            const line = r.getClientRects()[0]; return {y: line.top, height: line.height}; }""")
        item = page.locator("#games li").nth(n).bounding_box()
        assert item is not None
        gutter = page.screenshot(clip={"x": item["x"] - 18, "y": item["y"], "width": 16,
                                       "height": item["height"]})
        grey = cv2.imdecode(np.frombuffer(gutter, np.uint8), cv2.IMREAD_GRAYSCALE)
        rows = np.nonzero((grey < 128).any(axis=1))[0]
        assert rows.size, "no bullet"
        bullet = item["y"] + rows.mean() / 2  # the page drawn at twice its pixels
        assert first["y"] <= bullet <= first["y"] + first["height"], (n, first, bullet)
    if width == 360:
        shot(page, "60-games-360")
    page.context.close()


def a_game_won_by(server: str, winner: str, other: str) -> dict[str, Any]:
    """A game of one die each that ``winner`` wins at the first call: the state at its end."""
    new_game(server, [winner, other], rules="perudo", dice=1)
    act(server, action="bid", player=winner, quantity=2, face=6)
    act(server, action="dudo", player=other)
    state = act(server, action="reveal", dice={winner: [6], other: [6]})
    assert state["winner"] == winner, state
    return state


# Each word of the winner's banner and the lines it was drawn on (2 or more: broken inside).
WINNER_WORDS = """() => {
  const text = document.querySelector("#winner strong").firstChild;
  const words = [];
  for (const match of text.data.matchAll(/\\S+/g)) {
    const range = document.createRange();
    range.setStart(text, match.index);
    range.setEnd(text, match.index + match[0].length);
    words.push([match[0], range.getClientRects().length]);
  }
  return words;
}"""


@pytest.mark.parametrize("viewport", [{"width": 360, "height": 640}, SMALL])
def test_the_winner_s_name_breaks_only_between_its_words_at_twice_the_text_size(
    browser: Any, server: str, viewport: dict[str, int]
) -> None:
    # Before, at twice the text the banner's 2rem split a name: "Maximi / liana / Rosale / s".
    a_game_won_by(server, "Maximiliana Rosales", "Ben")
    page = open_page(browser, server, viewport, "light")
    text_size(page, "200%")
    expect(page.locator("#winner")).to_contain_text("Maximiliana Rosales wins!")
    assert page.evaluate(WINNER_WORDS) == [["Maximiliana", 1], ["Rosales", 1], ["wins!", 1]]
    shot(page, f"90-winner-{viewport['width']}-200")
    page.context.close()
