"""The phone page when taps, answers and the network misbehave as they do at a real table: a
double tap, answers for the legal bids that fail or come late, a phone that goes offline, and
a long game's history. Each sets its game up through the HTTP API, then taps or checks the
page in Chromium.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import (
    PHONE,
    act,
    finish_the_reveal,
    free_port,
    get_state,
    new_game,
    open_page,
    shot,
    shows,
    start_serve,
    stop_serve,
    take_control,
    wait_until_held,
)

pytestmark = pytest.mark.browser

# Two taps of one thumb, as the page gets them: the second lands after the first's answer.
DOUBLE_TAP = """([selector, gap]) => {
  const button = document.querySelector(selector);
  button.click();
  setTimeout(() => document.querySelector(selector).click(), gap);
}"""


def legal_bids(base: str) -> list[str]:
    """The legal bids the table offers now, lowest first, as the page's button says them."""
    with urllib.request.urlopen(base + "/api/bids", timeout=5) as answer:
        return [f"Bid {b['quantity']} \u00d7 {b['face']}" for b in json.load(answer)["bids"]]


def ready_to_bid(phone: Any, server: str) -> None:
    expect(phone.locator("#place-bid")).to_have_text(legal_bids(server)[0])
    expect(phone.locator("#place-bid")).to_be_enabled()


def test_a_double_tap_on_bid_or_undo_acts_once(phone: Any, server: str) -> None:
    new_game(server, ["Ana", "Ben", "Caro"], rules="perudo")
    take_control(phone)
    ready_to_bid(phone, server)
    sent: list[str] = []
    phone.on("request", lambda r: sent.append(r.post_data or "")
             if r.method == "POST" and r.url.endswith("/api/actions") else None)
    phone.evaluate(DOUBLE_TAP, ["#place-bid", 300])
    expect(phone.locator("#bid-by")).to_have_text("by Ana")  # the first tap's answer came
    phone.wait_for_timeout(600)  # and the second tap has been made
    state = get_state(server)
    assert [b["player"] for b in state["bids"]] == ["Ana"], state["bids"]  # not Ben's too
    assert len(sent) == 1, sent  # the second tap sent nothing (not refused by the table)
    act(server, action="bid", player="Ben", quantity=5, face=3)
    # The phone shows Ben's bid (its buttons held a moment as it comes), then Undo is free.
    phone.wait_for_function("page.state && page.state.bids && page.state.bids.length === 2")
    expect(phone.locator("#undo")).to_be_enabled()
    phone.evaluate(DOUBLE_TAP, ["#undo", 300])
    phone.wait_for_function("page.state.bids.length === 1")  # the first tap's answer came
    phone.wait_for_timeout(600)  # and the second tap has been made
    assert [b["player"] for b in get_state(server)["bids"]] == ["Ana"]  # Ben's bid alone undone
    assert len(sent) == 2, sent
    expect(phone.locator("#place-bid")).to_be_enabled()  # the buttons are back after a moment


def test_the_bid_picker_recovers_when_the_table_could_not_give_the_bids(
    phone: Any, server: str
) -> None:
    new_game(server, ["Ana", "Ben"], rules="perudo")
    asked: list[str] = []

    def fails_once(route: Any) -> None:
        asked.append(route.request.url)
        if len(asked) == 1:
            route.abort()  # the Wi-Fi drops this one answer
        else:
            route.continue_()

    phone.route("**/api/bids", fails_once)
    take_control(phone)
    ready_to_bid(phone, server)
    assert len(asked) >= 2


def test_an_answer_for_the_bids_that_comes_late_does_not_take_the_picker_back(
    phone: Any, server: str
) -> None:
    new_game(server, ["Ana", "Ben"], rules="perudo")
    take_control(phone)
    ready_to_bid(phone, server)
    # The next answer for the bids takes 1.5 s; the table moves on meanwhile, and the answer
    # for the newer game comes first.
    phone.evaluate("""() => {
      const real = window.fetch;
      let slow = true;
      window.fetch = (url, init) => {
        const answer = real(url, init);
        if (!slow || !String(url).includes("/api/bids")) return answer;
        slow = false;
        window.slowAsked = true;
        return answer.then((r) => new Promise((done) => setTimeout(() => {
          window.slowGiven = true;
          done(r);
        }, 1500)));
      };
    }""")
    act(server, action="bid", player="Ana", quantity=3, face=5)
    phone.wait_for_function("window.slowAsked === true")  # 3x5's raises are on their way
    state = act(server, action="bid", player="Ben", quantity=3, face=6)
    shows(phone, state)
    phone.wait_for_function("window.slowGiven === true")  # the old answer came after the new
    phone.wait_for_timeout(100)  # and the page has taken it (or not)
    # The bids for Ben's 3x6 are in (else the picker is held, and stepping down does nothing).
    phone.wait_for_function("page.bidsFor === position(page.state) && page.bids.length > 0")
    # Stepped down as far as the picker goes, the bid offered is one the table takes.
    while phone.locator("#qty-down").is_enabled():
        phone.click("#qty-down")
    offered = phone.locator("#place-bid").inner_text()
    assert offered in legal_bids(server), offered


def test_a_phone_that_goes_offline_says_so_holds_its_buttons_and_comes_back(
    phone: Any, server: str
) -> None:
    new_game(server, ["Ana", "Ben"], rules="perudo")
    take_control(phone)
    ready_to_bid(phone, server)
    phone.select_option("#leaver", "Ben")
    expect(phone.locator("#leave")).to_be_enabled()
    phone.context.set_offline(True)
    expect(phone.locator("#live")).to_have_text("offline")
    expect(phone.locator("#place-bid")).to_be_disabled()
    expect(phone.locator("#leave")).to_be_disabled()  # held as every button that sends
    expect(phone.locator("#offline")).to_be_visible()
    shot(phone, "16-offline")
    act(server, action="bid", player="Ana", quantity=2, face=4)  # another phone bids meanwhile
    phone.context.set_offline(False)
    expect(phone.locator("#live")).to_have_text("live")
    expect(phone.locator("#bid-by")).to_have_text("by Ana")  # the bid made while it was away
    ready_to_bid(phone, server)


def test_a_reveal_made_while_a_phone_was_away_is_told_when_it_comes_back(
    phone: Any, server: str
) -> None:
    # Before, a phone whose feed was down for a reveal (offline, or the table started again in
    # the middle of one, which settles it as it starts) went from "Cups up" to the next round
    # silently: who lost a die was in the history alone.
    # The new game shown first: a bid that reached the page with the game's first state
    # would come without its word (CI: the notice never showed).
    shows(phone, new_game(server, ["Ana", "Ben"], rules="perudo"))
    act(server, action="bid", player="Ana", quantity=9, face=4)
    expect(phone.locator("#bid-by")).to_have_text("by Ana")
    notice = phone.locator("#notice")
    expect(notice).to_contain_text("Ana bids nine 4s")
    phone.context.set_offline(True)
    expect(phone.locator("#live")).to_have_text("offline")
    # The bid's notice no longer lies over the banner saying the table cannot be reached.
    expect(phone.locator("#offline")).to_be_visible()
    assert notice.is_hidden()  # at once, not once its time is up
    act(server, action="dudo", player="Ben")
    state = finish_the_reveal(server)
    assert state["round"] == 2
    with urllib.request.urlopen(server + "/api/history", timeout=5) as answer:
        said = json.load(answer)["announcements"]
    reveal = [a["text"] for a in said if a["kind"] == "reveal"][-1]
    lost = [a["text"] for a in said if a["kind"] == "lose"][-1]
    phone.context.set_offline(False)
    expect(phone.locator("#live")).to_have_text("live")
    expect(notice).to_contain_text(reveal)
    expect(notice).to_contain_text(lost)
    # Back for a bid only: nothing is told again.
    phone.evaluate("document.getElementById('notice').hidden = true")
    phone.context.set_offline(True)
    expect(phone.locator("#live")).to_have_text("offline")
    act(server, action="bid", player=state["turn"], quantity=1, face=6)
    phone.context.set_offline(False)
    expect(phone.locator("#live")).to_have_text("live")
    expect(phone.locator("#bid-by")).to_have_text(f"by {state['turn']}")
    phone.wait_for_timeout(500)  # the history's answer comes after the feed's state
    assert phone.locator("#notice").is_hidden()


def test_a_table_started_again_in_the_middle_of_a_reveal_tells_the_phones_how_it_ended(
    browser: Any, tmp_path: Any
) -> None:
    # The table settles a reveal it was stopped in as it starts, before the phones are back.
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = start_serve(tmp_path, port)
    phone = open_page(browser, base, PHONE, "light")
    try:
        new_game(base, ["Ana", "Ben"], rules="perudo", dice=1)
        act(base, action="bid", player="Ana", quantity=2, face=6)
        act(base, action="dudo", player="Ben")  # the cups up: the camera looks in 3 s
        expect(phone.locator("#turn")).to_have_text("Cups up: the camera looks")
        stop_serve(process)
        process = start_serve(tmp_path, port)
        expect(phone.locator("#live")).to_have_text("live", timeout=20_000)
        state = finish_the_reveal(base)
        assert state["phase"] == "over"
        expect(phone.locator("#notice")).to_contain_text(f"{state['winner']} wins")
    finally:
        phone.context.close()
        stop_serve(process)


def test_a_long_games_page_shows_the_same_newest_history_opened_or_followed(
    phone: Any, server: str
) -> None:
    new_game(server, ["Ana", "Ben"], rules="perudo")
    take_control(phone)
    for quantity in range(1, 321):
        act(server, action="bid", player="Ana" if quantity % 2 else "Ben", quantity=quantity,
            face=4)
    # 320 actions in a few seconds, no table's pace: a phone on a busy machine (both cores
    # taken) was seen 19 s behind them, drawing each.
    expect(phone.locator("#history li").first).to_contain_text("320", timeout=90_000)
    assert phone.locator("#history li").count() == 300
    # Each line keeps its number in the game's history (before, the newest was line 300).
    with urllib.request.urlopen(f"{server}/api/history", timeout=10) as answer:
        lines = len(json.load(answer)["announcements"])
    assert lines > 320
    newest_number = "document.getElementById('history').start"
    assert phone.evaluate(newest_number) == lines
    phone.reload()
    expect(phone.locator("#history li").first).to_contain_text("320")
    assert phone.locator("#history li").count() == 300
    assert phone.evaluate(newest_number) == lines
    phone.locator("#history").scroll_into_view_if_needed()
    shot(phone, "history-numbered")


def test_a_move_the_history_was_read_with_is_not_put_in_it_again_when_the_feed_brings_it(
    phone: Any, server: str
) -> None:
    # Seen in CI on a busy host: the live feed brought a bid after the page had read the
    # history with it, and the bid was in the history twice, every line numbered one too high.
    new_game(server, ["Ana", "Ben"], rules="perudo")
    act(server, action="bid", player="Ana", quantity=2, face=4)
    expect(phone.locator("#history li").first).to_have_text("Ana bids two 4s")
    # Every line of the history so far is in (on a busy host the history the new game asked
    # for came after the count below, which was of the feed's lines alone: 1 where it holds 2).
    with urllib.request.urlopen(server + "/api/history", timeout=5) as answer:
        said = len(json.load(answer)["announcements"])
    expect(phone.locator("#history li")).to_have_count(said)
    lines = ("[document.getElementById('history').start,"
             " document.querySelectorAll('#history li').length]")
    before = phone.evaluate(lines)
    # The history read anew, and any read the page itself asked for since answered (a read it
    # retries 300 ms later leaves this one unanswered: CI saw the line put in before it came).
    after = phone.evaluate("""async () => { await loadHistory();
        while (page.historyAnswered !== page.historyAsked) {
          await new Promise((r) => setTimeout(r, 20));
        }
        announce([{kind: "bid", player: "Ana", text: "Ana bids two 4s"}], page.state);
        return """ + lines + "; }")
    assert after == before
    # The next move's lines come as ever.
    act(server, action="bid", player="Ben", quantity=3, face=4)
    expect(phone.locator("#history li").first).to_have_text("Ben bids three 4s")
    assert phone.evaluate(lines) == [before[0] + 1, before[1] + 1]


def test_a_live_feed_silent_past_the_tables_beat_is_taken_for_gone_and_opened_again(
    phone: Any, server: str
) -> None:
    new_game(server, ["Ana", "Ben"], rules="perudo")
    expect(phone.locator("#live")).to_have_text("live")
    # The new game's word has come (on a busy host it came after the silence below was made,
    # and the page rightly took it for the table speaking: CI saw no new feed).
    expect(phone.locator("#turn")).to_have_text("Ana to open")
    feeds: list[str] = []
    phone.on("request", lambda r: feeds.append(r.url) if r.url.endswith("/api/events") else None)
    # As if the last word from the table came a minute ago (a Wi-Fi gone without a word), and
    # nothing since on this feed: said again until the page gives it up, as a word that was
    # still on its way (a late state, the beat) would be taken for the table speaking (CI).
    phone.evaluate("() => { window.silent = page.feed; }")
    silence = "() => { if (page.feed === window.silent) page.heard = performance.now() - 60000; }"
    for _ in range(500):  # the page looks once a second (less often on a busy host: CI)
        phone.evaluate(silence)
        if feeds:
            break
        phone.wait_for_timeout(20)
    phone.wait_for_timeout(1500)
    assert len(feeds) == 1  # a new feed opened once the old one was given up, and one only
    expect(phone.locator("#live")).to_have_text("live")
    act(server, action="bid", player="Ana", quantity=2, face=4)
    expect(phone.locator("#bid-by")).to_have_text("by Ana")  # and it follows the table again


def test_an_answer_that_never_comes_gives_the_buttons_back_with_a_reason(
    phone: Any, server: str
) -> None:
    new_game(server, ["Ana", "Ben"], rules="perudo")
    take_control(phone)
    ready_to_bid(phone, server)
    lost: list[Any] = []
    phone.route("**/api/actions", lambda route: lost.append(route))  # the Wi-Fi drops it
    phone.click("#place-bid")
    expect(phone.locator("#place-bid")).to_be_disabled()
    # Ten seconds on, the phone gives the request up and says why: the table may yet take it
    # (a slow table), so the player looks before tapping again.
    expect(phone.locator("#notice")).to_have_text(
        "No answer from the table yet: it may still take this; look at the game before tapping"
        " again.", timeout=15_000)
    expect(phone.locator("#place-bid")).to_be_enabled()
    assert len(lost) == 1 and get_state(server)["bids"] == []


def test_a_table_started_again_with_another_pin_ends_the_phone_s_control_in_its_words(
    browser: Any, tmp_path: Any
) -> None:
    # Before, the page showed "Control on" and live buttons until a tap was refused with
    # "send the X-Table-Pin header".
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = start_serve(tmp_path, port)
    phone = open_page(browser, base, PHONE, "dark")
    try:
        take_control(phone)
        new_game(base, ["Ana", "Ben"])
        stop_serve(process)
        process = start_serve(tmp_path, port, pin="8642")
        expect(phone.locator("#lock")).to_have_text("Enter PIN", timeout=20_000)
        expect(phone.locator("#notice")).to_have_text(
            "This phone's control has ended (a new PIN, a restart, or signed out elsewhere):"
            " tap \u201cEnter PIN\u201d to take it again.")
        expect(phone.locator("#controls")).to_be_hidden()
        assert get_state(base)["players"][0]["name"] == "Ana"  # the game goes on
    finally:
        phone.context.close()
        stop_serve(process)


def test_bids_given_before_another_phone_bid_are_not_offered_while_the_new_ones_come(
    phone: Any, server: str
) -> None:
    # Slow Wi-Fi: the answer for the bids takes 2 s. Ben bids from another phone; until the
    # bids over his come, the picker offers none (Ana's old "Bid 1 x 2" would be refused).
    new_game(server, ["Ana", "Ben"], rules="perudo")
    act(server, action="bid", player="Ana", quantity=1, face=2)
    take_control(phone)
    ready_to_bid(phone, server)
    phone.evaluate("""() => {
      const real = window.fetch;
      window.fetch = (url, init) => {
        const answer = real(url, init);
        if (!String(url).includes("/api/bids")) return answer;
        return answer.then((r) => new Promise((done) => setTimeout(() => done(r), 2000)));
      };
    }""")
    act(server, action="bid", player="Ben", quantity=2, face=2)
    phone.wait_for_function("page.state && page.state.moves === 2")
    expect(phone.locator("#place-bid")).to_be_disabled()
    expect(phone.locator("#place-bid")).to_have_text("Asking the table for the bids\u2026")
    ready_to_bid(phone, server)  # the new bids, over Ben's
    assert phone.locator("#place-bid").inner_text() != "Bid 1 \u00d7 2"


def the_pin_entered_the_first_ask_for_the_bids_held(phone: Any, server: str) -> list[Any]:
    """A new game of Ana and Ben shown on ``phone``, the PIN entered there, and the phone's
    first ask for the bids held by the test (its route in the list returned)."""
    shows(phone, new_game(server, ["Ana", "Ben"], rules="perudo"))
    held: list[Any] = []
    phone.route("**/api/bids", lambda route: route.continue_() if held else held.append(route))
    take_control(phone)
    wait_until_held(phone, held)
    return held


def test_the_pin_just_entered_the_bid_button_says_it_asks_for_the_bids_until_they_come(
    phone: Any, server: str
) -> None:
    # Before, it said "No bid up to the dice in play" (the bids of a phone without the PIN,
    # none, taken for the table's answer) until the first answer came.
    held = the_pin_entered_the_first_ask_for_the_bids_held(phone, server)
    expect(phone.locator("#place-bid")).to_have_text("Asking the table for the bids\u2026")
    expect(phone.locator("#place-bid")).to_be_disabled()
    held[0].continue_()
    ready_to_bid(phone, server)


def test_an_ask_for_the_bids_never_answered_is_given_up_and_asked_again(
    phone: Any, server: str
) -> None:
    # A connection gone silently (the Wi-Fi dropped mid-request): before (session 92's
    # audit), the picker said "Asking the table for the bids" until the game moved.
    the_pin_entered_the_first_ask_for_the_bids_held(phone, server)  # and never answered
    expect(phone.locator("#place-bid")).to_have_text("Asking the table for the bids\u2026")
    ready_to_bid(phone, server)  # given up after 10 s, asked again
    assert get_state(server)["moves"] == 0


def a_phone_holding_the_first(browser: Any, server: str, path: str) -> tuple[Any, list[Any]]:
    """A phone opened on the table with a game and a bid on it (the game before), whose first
    request for ``path`` is held: its route and the table's answer to it, fetched now, are
    in the list, to be given late (``route.fulfill(response=answer)``) or let through."""
    new_game(server, ["Ana", "Ben"], rules="perudo")
    act(server, action="bid", player="Ana", quantity=2, face=4)
    held: list[Any] = []

    def hold_the_first(route: Any) -> None:
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch() if path.endswith("history") else None))

    phone = browser.new_context(viewport=PHONE).new_page()
    phone.route(f"**{path}", hold_the_first)
    phone.goto(server)
    return phone, held


def the_history(server: str) -> list[str]:
    """The lines of the game's history, as the table gives them, oldest first."""
    with urllib.request.urlopen(f"{server}/api/history", timeout=10) as got:
        return [a["text"] for a in json.load(got)["announcements"]]


def test_a_history_answer_that_comes_after_a_newer_one_is_not_shown(
    browser: Any, server: str
) -> None:
    # Seen in CI on a busy host: the history asked for as the page opened (of the game before)
    # came after the one asked for at the new game, and took its place; every later line of
    # the new game was then added on top of the old game's, numbered from them.
    phone, held = a_phone_holding_the_first(browser, server, "/api/history")
    phone.wait_for_function("document.getElementById('turn').textContent.length > 0")
    wait_until_held(phone, held)
    new_game(server, ["Caro", "Dan"], rules="perudo")
    act(server, action="bid", player="Caro", quantity=3, face=5)
    newest = phone.locator("#history li").first
    expect(newest).to_have_text("Caro bids three 5s")
    route, answer = held[0]
    route.fulfill(response=answer)  # the game before's history, answered late
    phone.wait_for_timeout(700)
    expect(newest).to_have_text("Caro bids three 5s")
    lines = the_history(server)
    assert phone.locator("#history li").all_text_contents() == lines[::-1]
    assert phone.evaluate("document.getElementById('history').start") == len(lines)
    phone.context.close()


def test_a_history_answered_after_a_later_move_is_asked_for_again(
    browser: Any, server: str
) -> None:
    # Seen in CI on a busy host: the new game's history, asked for as its first state came,
    # was answered after the live feed had added the next move's line; the answer took the
    # list's place, and that line was gone for good.
    new_game(server, ["Ana", "Ben"], rules="perudo")
    act(server, action="bid", player="Ana", quantity=2, face=4)
    phone = browser.new_context(viewport=PHONE).new_page()
    phone.goto(server)
    expect(phone.locator("#history li").first).to_have_text("Ana bids two 4s")
    held: list[Any] = []

    def hold_the_first(route: Any) -> None:
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))  # the table's answer now, given late

    phone.route("**/api/history", hold_the_first)
    new_game(server, ["Caro", "Dan"], rules="perudo")
    phone.wait_for_function("page.historyAsked > page.historyAnswered")
    wait_until_held(phone, held)
    act(server, action="bid", player="Caro", quantity=3, face=5)
    newest = phone.locator("#history li").first
    expect(newest).to_have_text("Caro bids three 5s")  # the feed's line
    route, answer = held[0]
    route.fulfill(response=answer)  # the history as it stood before that bid
    phone.wait_for_function("page.historyAsked === page.historyAnswered")
    lines = the_history(server)
    expect(phone.locator("#history li")).to_have_text(lines[::-1])
    # Numbered as the whole history (waited for: a run on a busy host read the number 0 just
    # after the lines were there; why is not known, the number settled right in every other run).
    phone.wait_for_function(f"document.getElementById('history').start === {len(lines)}")
    phone.context.close()


def test_a_history_of_the_game_before_is_asked_for_again_not_added_to(
    browser: Any, server: str
) -> None:
    # The page read the history of the game on the table, and its live feed opened only once
    # a new game had begun: the new game's lines were added under the old game's.
    phone, held = a_phone_holding_the_first(browser, server, "/api/events")
    expect(phone.locator("#history li").first).to_have_text("Ana bids two 4s")
    new_game(server, ["Caro", "Dan"], rules="perudo")
    act(server, action="bid", player="Caro", quantity=3, face=5)
    wait_until_held(phone, held)
    held[0][0].continue_()  # the feed opens: the new game's state comes first
    expect(phone.locator("#turn")).to_have_text("Dan to raise or call")
    act(server, action="bid", player="Dan", quantity=4, face=5)
    expect(phone.locator("#history li").first).to_have_text("Dan bids four 5s")
    lines = the_history(server)
    expect(phone.locator("#history li")).to_have_text(lines[::-1])
    assert phone.evaluate("document.getElementById('history').start") == len(lines)
    phone.context.close()


# Each change of the picker's quantity and of Bid's words, as the phone shows them.
WATCH_PICKER = """() => {
  window.picker = [];
  const seen = () => window.picker.push([document.getElementById("qty").value,
                                         document.getElementById("place-bid").textContent]);
  for (const id of ["qty", "place-bid"]) {
    new MutationObserver(seen).observe(document.getElementById(id),
      {subtree: true, childList: true, characterData: true, attributes: true});
  }
}"""


def test_the_bid_picker_does_not_go_blank_at_each_move_on_a_slow_network(
    phone: Any, server: str
) -> None:
    # Before session 78, on a network of 200 ms each way the picker went blank at every move
    # ("–" and "Asking the table for the bids…", two lines) until the new bids came back.
    new_game(server, ["Ana", "Ben", "Caro"], rules="perudo")
    take_control(phone)
    expect(phone.locator("#place-bid")).to_have_text("Bid 1 × 2")
    network = phone.context.new_cdp_session(phone)
    network.send("Network.enable")
    network.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": 200, "downloadThroughput": -1, "uploadThroughput": -1})
    phone.evaluate(WATCH_PICKER)
    act(server, action="bid", player="Ana", quantity=3, face=4)
    expect(phone.locator("#place-bid")).to_have_text("Bid 3 × 5")
    shown = phone.evaluate("window.picker")
    assert shown, "the picker never changed"
    assert all(quantity != "–" and not bid.startswith("Asking") for quantity, bid in shown), shown
    network.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
