"""The reveal on the page when every reading waits for the players (a table whose doubt
threshold is 1): a picture taken again is a new picture, whatever it reads, and the form to
type the dice in says whose dice to count at a called pass.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import (
    PHONE,
    act,
    call_api,
    free_port,
    get_state,
    new_game,
    open_page,
    picture_in,
    settled,
    shot,
    shows,
    start_serve,
    stop_serve,
    take_control,
    text_size,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def waiting_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A simulated table whose every reading waits for the players to confirm it."""
    data = tmp_path_factory.mktemp("waiting")
    config = data / "dudo.toml"
    config.write_text("[vision]\ndoubt_threshold = 1.0\n")
    port = free_port()
    process = start_serve(Path(data), port, config)
    yield f"http://127.0.0.1:{port}"
    stop_serve(process)


@pytest.fixture
def player(browser: Any, waiting_table: str) -> Iterator[Any]:
    page = open_page(browser, waiting_table, PHONE, "dark")
    take_control(page)
    yield page
    page.context.close()


def a_reading_waiting(table: str, phone: Any | None = None) -> dict[str, Any]:
    """A new game of Ana and Ben, Ana's bid doubted: the camera's reading, waiting (and shown
    on ``phone``, given one)."""
    new_game(table, ["Ana", "Ben"], rules="perudo")
    act(table, action="bid", player="Ana", quantity=2, face=3)
    act(table, action="dudo", player="Ben")
    state = settled(table)
    if phone is not None:
        shows(phone, state)
    return dict(state["reading"])


def test_a_picture_taken_again_is_a_new_picture_even_when_it_reads_alike(
    player: Any, waiting_table: str
) -> None:
    assert a_reading_waiting(waiting_table, player)["applied"] is False
    image = player.locator("#reveal-img")
    expect(image).to_be_visible()
    # The picture shows each die's bottom face: a die showing six pips is written "1", which
    # a player counting the pips took for a misreading (a helper's game-night audit).
    expect(player.locator("#reveal-caption")).to_have_text(
        "Seen from under the glass: the number by each die is its top face, the one that counts.")
    first = image.get_attribute("src")
    # A tap opens the picture full size (its numbers were too small to read on a phone).
    link = player.locator("#reveal-link")
    assert (link.get_attribute("href"), link.get_attribute("target")) == (first, "_blank")
    # The next picture may read as many dice, as fast: it is still another picture, and
    # the faces set on the first do not carry over to it.
    player.evaluate("""() => {
      const s = page.state;
      render({...s, reading: {...s.reading, picture: s.reading.picture + 1}});
    }""")
    assert image.get_attribute("src") != first
    assert link.get_attribute("href") == image.get_attribute("src")


def test_a_die_being_corrected_is_left_alone_by_a_redraw_that_changes_none_of_the_dice(
    player: Any, waiting_table: str
) -> None:
    # Before, every event built every die's row again: a list a player had open to correct
    # a die was taken from under the finger, and a big table's redraw took a tenth of a second.
    reading = a_reading_waiting(waiting_table, player)
    first = player.locator('#reading-dice select[data-index="0"]')
    first.focus()
    player.evaluate("() => { window.kept = document.querySelector('#reading-dice select'); }")
    player.evaluate("() => render({...page.state, version: page.state.version})")  # an event
    assert player.evaluate("() => window.kept === document.querySelector('#reading-dice select')")
    assert player.evaluate("() => document.activeElement === window.kept")
    other = 6 if reading["dice"][0]["face"] != 6 else 5
    first.select_option(str(other))  # a correction is a change: shown at once
    expect(player.locator("#reading-dice .reading-die.corrected")).to_have_count(1)
    expect(first).to_be_focused()


def test_a_correction_another_phone_confirmed_without_is_said_on_the_phone_that_made_it(
    player: Any, waiting_table: str
) -> None:
    # No phone sees another's corrections until they are sent. Before, one confirmed on
    # another phone without them went by without a word, the die as the camera read it.
    reading = a_reading_waiting(waiting_table, player)
    first = reading["dice"][0]
    other = 6 if first["face"] != 6 else 5
    die = player.locator('#reading-dice select[data-index="0"]')
    die.select_option(str(other))
    answer = call_api(waiting_table, "/api/reading", {"confirm": True,
                                                      "picture": reading["picture"]})
    assert answer["state"]["round"] == 2
    expect(player.locator("#notice")).to_have_text(
        f"Confirmed on another phone without this phone's correction (die {first['index'] + 1}"
        f" to {other}): if the dice show it, tap Undo and correct the reading again")
    # Corrections this phone confirmed itself are not said to be lost.
    player.evaluate("() => { document.getElementById('notice').hidden = true; }")
    act(waiting_table, action="undo")
    expect(player.locator("#reading-check")).to_be_visible()
    die.select_option(str(other))
    player.click("#confirm-reading")
    expect(player.locator("#round")).to_have_text("round 2")
    assert get_state(waiting_table)["reading"]["dice"][0]["face"] == other
    expect(player.locator("#notice")).to_be_hidden()


def test_the_dice_corrected_are_said_under_the_picture_on_every_phone(
    player: Any, browser: Any, waiting_table: str
) -> None:
    # Before, nothing said a die had been corrected: the picture kept the camera's number on
    # it, and the counts under it did not match what it showed.
    reading = a_reading_waiting(waiting_table, player)
    first = reading["dice"][0]
    other = 6 if first["face"] != 6 else 5
    owner = f" ({first['owner']})" if first.get("owner") else ""
    said = (f"Corrected before it counted (the picture shows the camera's reading): die 1{owner}"
            f" as {other}.")
    note = player.locator("#reading-corrected")
    expect(player.locator("#reading-check")).to_be_visible()
    expect(note).to_be_hidden()
    player.locator('#reading-dice select[data-index="0"]').select_option(str(other))
    player.click("#confirm-reading")
    expect(player.locator("#round")).to_have_text("round 2")
    expect(note).to_have_text(said)
    watcher = open_page(browser, waiting_table, PHONE, "light")
    expect(watcher.locator("#reading-corrected")).to_have_text(said)
    watcher.locator("#reveal").scroll_into_view_if_needed()
    shot(watcher, "57-reveal-corrected")
    # The game's history says it too, on the phone that confirmed it (from the live feed) and
    # on one opened after (from the record), where the picture no longer shows: since
    # session 61 (the history said only what was counted).
    whose = f"{first['owner']}'s die" if first.get("owner") else "a die"
    told = f"The players corrected the camera: {whose} read as {first['face']} is a {other}"
    for phone in (player, watcher):
        expect(phone.locator("#history li.a-corrected")).to_have_text([told])
    watcher.context.close()
    # A reading confirmed as the camera read it says nothing of the kind.
    a_reading_waiting(waiting_table, player)
    expect(player.locator("#reading-check")).to_be_visible()
    player.click("#confirm-reading")
    expect(player.locator("#reading-check")).to_be_hidden()
    expect(player.locator("#round")).to_have_text("round 2")
    expect(player.locator("#reveal-title")).to_have_text("Last reveal (round 1)")
    expect(note).to_be_hidden()
    # The next round's first bid takes the picture away, not the counts, and the camera's
    # reading is not said to be typed in (since session 90: every camera reveal was).
    counted = player.locator("#counts .count-face")
    expect(counted.first).to_be_visible()
    before = counted.all_inner_texts()
    act(waiting_table, action="bid", player=get_state(waiting_table)["turn"], quantity=1, face=2)
    expect(player.locator("#reveal-img")).to_be_hidden()
    expect(player.locator("#reveal-title")).to_have_text("Last reveal (round 1)")
    assert counted.all_inner_texts() == before
    expect(note).to_be_hidden()


def test_while_the_camera_looks_again_the_picture_before_keeps_the_card_s_place(
    player: Any, waiting_table: str
) -> None:
    # Before, Take again hid the whole reveal card until the new picture was read: the page
    # below moved up under the players' fingers, and the card came back a moment later.
    reading = a_reading_waiting(waiting_table, player)
    expect(player.locator("#reading-check")).to_be_visible()
    picture_in(player)
    player.locator("#players").scroll_into_view_if_needed()
    where = "() => [document.querySelector('#reveal').offsetHeight," \
            " document.querySelector('#players').getBoundingClientRect().top]"
    before = player.evaluate(where)
    # The table's state while it looks again (held here: a simulated picture is read at once).
    looking = "() => render({...page.state, reading: null, capturing: true})"
    player.evaluate(looking)
    assert player.evaluate(where) == pytest.approx(before, abs=0.5)
    image = player.locator("#reveal-img")
    expect(image).to_be_visible()
    expect(image).to_have_class("again")  # dimmed: the picture before
    expect(player.locator("#reading-again")).to_have_text(
        "The camera looks again: this is the picture before.")
    # Its counts and its link go: the new picture may read otherwise, and the table has no
    # picture to give until then.
    expect(player.locator("#counts")).to_be_empty()
    assert player.get_attribute("#reveal-link", "href") is None
    expect(player.locator("#turn")).to_have_text("Cups up: the camera looks again")
    expect(player.locator("#undo-hint")).to_contain_text("every die has been seen")
    # The call taken back, then made again in this round: its picture is not this phone's to
    # show (the table shows none after an undo of a call) until the camera has looked.
    player.evaluate("() => render({...page.state, phase: 'bidding', capturing: false})")
    player.evaluate("() => render({...page.state, phase: 'reveal', capturing: true})")
    expect(player.locator("#reveal")).to_be_hidden()
    expect(player.locator("#turn")).to_have_text("Cups up: the camera looks")
    # A real Take again: the new picture, undimmed once it has come.
    player.reload()
    expect(player.locator("#reading-check")).to_be_visible()
    player.click("#retake")
    player.wait_for_function("(p) => page.state.reading && page.state.reading.picture !== p"
                             " && !page.state.capturing", arg=reading["picture"])
    expect(image).not_to_have_class("again")
    expect(player.locator("#reading-again")).to_be_hidden()
    assert player.get_attribute("#reveal-link", "href") == image.get_attribute("src")


def test_take_again_after_an_undo_into_the_reveal_asks_first_whether_the_dice_show_again(
    player: Any, waiting_table: str
) -> None:
    # Before, Take again took the picture at once: the dice of the reveal undone may have been
    # rolled for the next round, under the cups, and the camera would show them to every phone.
    asked: list[str] = []

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss() if len(asked) == 1 else dialog.accept()

    player.on("dialog", answer)
    reading = a_reading_waiting(waiting_table, player)
    assert get_state(waiting_table)["undone_into_reveal"] is False
    new_picture = ("(p) => page.state.reading && page.state.reading.picture !== p"
                   " && !page.state.capturing")
    player.click("#retake")  # the cups are still up on the call's dice: no question
    player.wait_for_function(new_picture, arg=reading["picture"])
    reading = dict(settled(waiting_table)["reading"])
    assert asked == []
    call_api(waiting_table, "/api/reading", {"confirm": True, "picture": reading["picture"]})
    act(waiting_table, action="undo")
    undone = get_state(waiting_table)
    assert undone["undone_into_reveal"] is True
    shows(player, undone)  # else a tap acts on the reading before the confirm: no question
    expect(player.locator("#reading-check")).to_be_visible()
    expect(player.locator("#retake")).to_be_enabled()
    player.click("#retake")
    player.wait_for_timeout(500)
    assert len(asked) == 1 and "rolled for the next round" in asked[0], asked
    state = get_state(waiting_table)
    assert not state["capturing"] and state["reading"]["picture"] == reading["picture"]
    expect(player.locator("#retake")).to_be_enabled()
    player.click("#retake")  # yes: the cups are up on this round's dice again
    player.wait_for_function(new_picture, arg=reading["picture"])
    assert len(asked) == 2


def test_the_form_for_a_called_pass_says_whose_dice_to_count(
    player: Any, waiting_table: str
) -> None:
    new_game(waiting_table, ["Ana", "Ben", "Caro"], rules="dudo")
    act(waiting_table, action="bid", player="Ana", quantity=3, face=2)
    act(waiting_table, action="pass", player="Ben")
    act(waiting_table, action="dudo", player="Caro")  # Caro calls Ben's pass
    settled(waiting_table)
    expect(player.locator("#manual-lead")).to_have_text("Or count Ben's dice")
    expect(player.locator("#manual-expected")).to_have_text("5")
    # The round's list says what the dudo did: it called the pass.
    expect(player.locator("#round-bids")).to_contain_text("Caro calls Ben's pass!")
    # Filled in from Ben's dice on the picture alone (before, all 15 on the table, which the
    # table then refused): sent as it is, it settles the pass.
    expect(player.locator("#manual-total")).to_have_text("5")
    shot(player, "19-called-pass-count", full=True)
    # The picture tells whose each die is: it can be confirmed. Where it cannot (no owners),
    # the table would refuse it: Confirm is out of use, and the form named (before, it was
    # offered, and refused at every tap).
    expect(player.locator("#confirm-reading")).to_be_enabled()
    player.evaluate("""() => { const r = page.state.reading;
      render({...page.state, version: undefined,
              reading: {...r, dice: r.dice.map((d) => ({...d, owner: null}))}}); }""")
    expect(player.locator("#confirm-reading")).to_be_disabled()
    expect(player.locator("#reading-why")).to_contain_text("Count them in the form below.")
    player.click("#manual button[type=submit]")
    expect(player.locator("#round")).to_have_text("round 2")
    expect(player.locator("#notice")).to_be_hidden()


def a_boxed_edition_doubt(table: str) -> None:
    """Ana's two 3s doubted by Ben at a boxed-edition table: its cups lifted in turn."""
    new_game(table, ["Ana", "Ben", "Caro"], rules="payroodo")
    act(table, action="bid", player="Ana", quantity=2, face=3)
    act(table, action="dudo", player="Ben")
    settled(table)


def test_the_boxed_edition_s_cups_are_typed_in_turn_until_the_bid_is_reached(
    player: Any, waiting_table: str
) -> None:
    a_boxed_edition_doubt(waiting_table)
    rows = player.locator("#cups-rows input")
    expect(player.locator("#cups-lead")).to_contain_text(
        "from Ben's left until the bid (2 \u00d7 3)")
    assert [r.get_attribute("data-player") for r in rows.all()] == ["Caro", "Ana", "Ben"]
    # A mistyped face is named on the page before anything is sent.
    player.fill("#cups-rows input[data-player=Caro]", "3 7 1 2 5")
    player.click("#cups button[type=submit]")
    expect(player.locator("#notice")).to_contain_text("Caro's dice: type each die's face, 1 to 6")
    # A cup lifted out of turn is refused, naming the cup that comes first; nothing changes.
    player.fill("#cups-rows input[data-player=Caro]", "")
    player.fill("#cups-rows input[data-player=Ana]", "3 3 1 2 5")
    player.click("#cups button[type=submit]")
    expect(player.locator("#notice")).to_contain_text("reveal shows no dice for Caro")
    assert get_state(waiting_table)["phase"] == "reveal"
    # Caro's cup reaches two 3s (an ace is wild): the bid stands, the doubter loses a die;
    # typed at once, the tap waits for the button the refusal held (it is not lost).
    player.fill("#cups-rows input[data-player=Ana]", "")
    player.fill("#cups-rows input[data-player=Caro]", "3 6 1 2 5")
    shot(player, "33-boxed-edition-cups-in-turn", full=True)
    player.click("#cups button[type=submit]")
    expect(player.locator("#cups")).to_be_hidden()
    state = get_state(waiting_table)
    assert state["phase"] == "bidding"
    assert {p["name"]: p["dice"] for p in state["players"]} == {"Ana": 5, "Ben": 4, "Caro": 5}


def test_after_a_player_leaves_at_the_reveal_the_undo_hint_says_undo_takes_that_back(
    player: Any, waiting_table: str
) -> None:
    # Before (session 92's audit), it said the call would be taken back: the first Undo
    # brought Caro back, the call standing, and the camera looked again meanwhile.
    new_game(waiting_table, ["Ana", "Ben", "Caro", "Dan"], rules="perudo")
    act(waiting_table, action="bid", player="Ana", quantity=2, face=3)
    act(waiting_table, action="dudo", player="Ben")
    state = act(waiting_table, action="leave", player="Caro")
    assert state["phase"] == "reveal" and state["undo_takes_back"] == "leave"
    expect(player.locator("#undo-hint")).to_have_text(
        "Undo now takes back the last player leaving, not the call.")


def test_the_boxed_edition_s_cups_form_fits_the_phone_at_twice_the_text(
    player: Any, waiting_table: str
) -> None:
    # Before (session 92's audit), each cup's field took the page 79 px past a 390 px phone.
    a_boxed_edition_doubt(waiting_table)
    expect(player.locator("#cups-rows input")).to_have_count(3)
    text_size(player, "200%")
    card = player.locator("#reveal").bounding_box()
    for field in player.locator("#cups-rows input").all():
        box = field.bounding_box()
        assert box["x"] + box["width"] <= card["x"] + card["width"], (box, card)
    assert player.evaluate("document.documentElement.scrollWidth <= innerWidth")
    text_size(player, "100%")


def test_a_phone_without_the_pin_says_whom_a_table_without_a_camera_waits_for(
    browser: Any, tmp_path: Path
) -> None:
    # A table whose reader cannot start (its model missing) types every reveal in: a
    # spectator's card said nothing while the cups were up.
    config = tmp_path / "dudo.toml"
    config.write_text('[vision]\nmodel_path = "no-such-model.onnx"\n')
    port = free_port()
    process = start_serve(tmp_path, port, config)
    base = f"http://127.0.0.1:{port}"
    try:
        new_game(base, ["Ana", "Ben"], rules="perudo")
        act(base, action="bid", player="Ana", quantity=2, face=3)
        act(base, action="dudo", player="Ben")
        assert not get_state(base)["camera"]
        watcher = open_page(browser, base, PHONE, "dark")
        expect(watcher.locator("#reveal")).to_be_visible()
        expect(watcher.locator("#result")).to_have_text(
            "Waiting for the dice: whoever has the PIN types them in.")
        holder = open_page(browser, base, PHONE, "dark")
        take_control(holder)
        expect(holder.locator("#manual")).to_be_visible()
        expect(holder.locator("#result")).to_have_text("")  # the form is what to do
        for page in (watcher, holder):
            page.context.close()
    finally:
        stop_serve(process)


def test_dice_typed_in_by_hand_show_their_counts_as_a_picture_s_do(
    player: Any, waiting_table: str
) -> None:
    # Before, a reveal typed in showed only the result's sentence: no count of each face.
    a_reading_waiting(waiting_table, player)
    typed = {"1": 2, "2": 0, "3": 3, "4": 1, "5": 4, "6": 0}
    send = player.locator("#manual button[type=submit]")
    for face in typed:
        player.fill(f"#manual-faces input[data-face='{face}']", "0")
    # No die counted of the 10 that must show: nothing to send yet, and the button says so.
    expect(send).to_be_disabled()
    expect(send).to_have_text("0 of 10 counted")
    for face, n in typed.items():
        player.fill(f"#manual-faces input[data-face='{face}']", str(n))
    expect(send).to_have_text("Reveal")
    send.click()
    expect(player.locator("#round")).to_have_text("round 2")
    assert "reading" not in get_state(waiting_table)
    expect(player.locator("#reveal-img")).to_be_hidden()
    for face, n in typed.items():
        shown = player.locator(f"#counts .count-face[data-face='{face}'] b")
        expect(shown).to_have_text(f"\u00d7{n}")
    expect(player.locator("#result")).to_contain_text("5 counted")
    # Said as a picture's corrections are (since session 78: the picture went, unexplained).
    expect(player.locator("#reading-corrected")).to_have_text(
        "Typed in by hand, in place of the camera's reading.")
    player.evaluate("document.getElementById('reveal').scrollIntoView()")
    shot(player, "20-typed-reveal-counts")


def test_confirm_stays_on_the_screen_while_thirty_dice_at_twice_the_text_are_checked(
    browser: Any, waiting_table: str
) -> None:
    # Before, Confirm came five screens below the first die to check.
    small = open_page(browser, waiting_table, {"width": 360, "height": 640}, "light")
    take_control(small)
    text_size(small, "200%")
    new_game(waiting_table, ["Ana", "Ben", "Caro", "Dan", "Eve", "Fay"], rules="perudo")
    act(waiting_table, action="bid", player="Ana", quantity=2, face=3)
    act(waiting_table, action="dudo", player="Ben")
    assert len(settled(waiting_table)["reading"]["dice"]) == 30
    dice = small.locator("#reading-dice .reading-die")
    expect(dice).to_have_count(30)
    confirm = small.locator("#confirm-reading")
    for die in (dice.first, dice.nth(14)):
        die.scroll_into_view_if_needed()
        box = confirm.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 640, box
    shot(small, "21-thirty-dice-text-200-confirm")
    confirm.click()
    expect(small.locator("#round")).to_have_text("round 2")
    small.context.close()


def test_the_form_to_type_the_dice_in_follows_the_corrections_until_a_count_is_typed(
    player: Any, waiting_table: str
) -> None:
    # Before, it kept the camera's counts while the dice were corrected above it.
    reading = a_reading_waiting(waiting_table, player)
    first = reading["dice"][0]["face"]
    other = 6 if first != 6 else 5
    box = player.locator("#manual-faces")
    before = {f: int(box.locator(f"input[data-face='{f}']").input_value()) for f in (first, other)}
    player.locator('#reading-dice select[data-index="0"]').select_option(str(other))
    expect(box.locator(f"input[data-face='{first}']")).to_have_value(str(before[first] - 1))
    expect(box.locator(f"input[data-face='{other}']")).to_have_value(str(before[other] + 1))
    # A count typed by a player stays, whatever is corrected after it.
    box.locator("input[data-face='1']").fill("9")
    player.locator('#reading-dice select[data-index="1"]').select_option("1")
    expect(box.locator("input[data-face='1']")).to_have_value("9")
    expect(box.locator(f"input[data-face='{other}']")).to_have_value(str(before[other] + 1))


def test_the_exact_call_is_named_as_the_table_calls_it_and_its_hint_goes_at_the_call(
    player: Any, waiting_table: str
) -> None:
    new_game(waiting_table, ["Ana", "Ben", "Caro"], rules="payroodo", exact_call="exactomundo")
    act(waiting_table, action="bid", player="Ana", quantity=2, face=3)
    act(waiting_table, action="bid", player="Ben", quantity=3, face=3)
    hint = player.locator("#call-hint")
    expect(hint).to_have_text("EXACTOMUNDO: Ana may call it: pick the caller above")
    act(waiting_table, action="dudo", player="Caro")
    expect(player.locator("#reading-check")).to_be_visible()
    expect(hint).to_be_hidden()  # before, it stayed through the reveal, the call out of reach
    act(waiting_table, action="undo")
    act(waiting_table, action="calza", player="Ana")
    expect(player.locator("#round-bids")).to_contain_text("Ana calls exactomundo!")


def test_confirm_s_bar_hides_the_doubtful_dice_scrolling_under_it(
    browser: Any, waiting_table: str
) -> None:
    # Before, the bar spanned the card's inside only: a doubtful die's "?", which stands out
    # of its box to the right, showed beside Confirm as the dice scrolled under it.
    reading = a_reading_waiting(waiting_table)
    assert reading["doubtful"]
    small = open_page(browser, waiting_table, {"width": 360, "height": 560}, "dark")
    take_control(small)
    expect(small.locator("#reading-check")).to_be_visible()
    bar = small.locator("#reading-actions").bounding_box()
    assert bar is not None
    for die in small.locator("#reading-dice .reading-die.doubt").all():
        box = die.bounding_box()
        mark = die.evaluate("(el) => { const s = getComputedStyle(el, '::after');"
                            " return [s.content, parseFloat(s.right)]; }")
        assert box is not None and mark[0] == '"?"'
        # The "?" reaches -right px past the die's box: the bar covers it there.
        assert bar["x"] <= box["x"] and box["x"] + box["width"] - mark[1] <= bar["x"] + bar["width"]
    small.locator("#reading-actions").scroll_into_view_if_needed()
    shot(small, "59-reading-check-360x560")
    small.context.close()


def test_a_reading_to_check_on_a_phone_on_its_side_has_the_screen_s_width(
    browser: Any, waiting_table: str
) -> None:
    # A phone on its side shows the standing bid beside the controls, but a reading to check
    # has the page's one column, as upright, to see its dice by: its picture had 341 px of
    # 640 beside the standing bid, then 940 of 1280 (Confirm far down) across two columns.
    a_reading_waiting(waiting_table)
    page = open_page(browser, waiting_table, {"width": 640, "height": 360}, "dark")
    take_control(page)
    expect(page.locator("#reading-check")).to_be_visible()
    for width in (640, 1280):
        page.set_viewport_size({"width": width, "height": 360})
        card, controls, reveal = (page.locator(s).bounding_box() for s in (
            "#bid-card", "#controls", "#reveal"))
        assert card["width"] == controls["width"] == reveal["width"] == 620, (card, reveal)
        assert page.locator("#reveal-img").bounding_box()["width"] >= 560
    page.context.close()
