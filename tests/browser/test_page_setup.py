"""The new-game form as a player setting up a real table uses it: a long name, a double tap
on "Start the game", Enter in a name, the form starting from the game on the table, the
first player following their seat, colours, and the keyboard's focus. Each test opens the
form on a phone in Chromium; screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import itertools
import json
import math
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import (
    PHONE,
    act,
    free_port,
    get_state,
    new_game,
    open_form,
    open_page,
    shot,
    shows,
    start_serve,
    stop_serve,
    take_control,
    text_size,
    wait_out_the_hold,
)

pytestmark = pytest.mark.browser


def games(base: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(base + "/api/games?limit=500", timeout=5) as answer:
        return list(json.load(answer)["games"])


def names(phone: Any) -> list[str]:
    return [i.input_value() for i in phone.locator("#seats input[type=text]").all()]


def test_a_long_name_without_a_space_stays_within_the_phone(phone: Any, server: str) -> None:
    new_game(server, ["W" * 24, "Ben"], rules="perudo")
    phone.reload()
    expect(phone.locator("#games li").first).to_contain_text("W" * 24)
    expect(phone.locator("#bid-card")).to_contain_text("to open")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, "17-long-name", full=True)
    take_control(phone)  # the PIN dialog is within reach of a thumb
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_double_tap_on_start_starts_one_game(phone: Any, server: str) -> None:
    open_form(phone)
    # The table takes 0.8 s to answer (a slow Wi-Fi): the second tap lands before the answer.
    phone.evaluate("""() => {
      const real = window.fetch;
      window.asked = window.answered = 0;
      window.fetch = (url, init) => {
        if (!String(url).endsWith("/api/game")) return real(url, init);
        window.asked += 1;
        return new Promise((done) => setTimeout(() => done(real(url, init)), 800))
          .finally(() => { window.answered += 1; });
      };
    }""")
    before = len(games(server))
    phone.evaluate("""() => {
      const start = document.querySelector("#new-game button[type=submit]");
      start.click();
      setTimeout(() => { start.click(); window.tappedTwice = true; }, 300);
    }""")
    # Both taps made, and every start the page sent answered.
    phone.wait_for_function(
        "() => window.tappedTwice && window.answered >= 1 && window.answered === window.asked")
    assert len(games(server)) == before + 1


def test_enter_in_a_name_goes_to_the_next_name_and_starts_nothing(
    phone: Any, server: str
) -> None:
    open_form(phone)
    started = get_state(server).get("game_id")
    first = phone.locator("#seats input[type=text]").first
    first.fill("Zoe")
    first.press("Enter")
    phone.wait_for_timeout(500)
    assert get_state(server).get("game_id") == started
    assert phone.evaluate("document.activeElement.getAttribute('aria-label')") == "seat 2 name"
    assert phone.evaluate(
        "document.activeElement === document.querySelectorAll('#seats input[type=text]')[1]")


def test_the_form_starts_from_the_game_on_the_table(phone: Any, server: str) -> None:
    new_game(server, ["Xia", "Yann", "Zed"], rules="jinto", dice=4, cruzado=True)
    phone.reload()
    open_form(phone)
    assert names(phone) == ["Xia", "Yann", "Zed"]
    expect(phone.locator("#preset")).to_have_value("jinto")
    expect(phone.locator("#dice-each")).to_have_value("4")
    expect(phone.locator("#options [data-option=cruzado]")).to_be_checked()
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#new-game")).to_be_hidden()
    state = get_state(server)
    assert state["rules"] == "jinto" and state["options"]["dice"] == 4
    assert state["options"]["cruzado"] is True


def test_the_form_leaves_out_the_players_who_left_the_table_and_keeps_the_others_seats(
    phone: Any, server: str
) -> None:
    # As the panel's play-again does. Before (session 92's audit), the form seated them again;
    # then (session 93's audit) the players after them were moved a seat down: Caro's seat
    # button named Dan, and the camera's zone 3 gave him her dice. A player added after Ana
    # takes the chair Ben left; two players changing chairs keep the chairs where they are
    # (before, the one moved down was put past the table's last seat).
    new_game(server, ["Ana", "Ben", "Caro", "Dan"], rules="perudo")
    act(server, action="leave", player="Ben")
    phone.reload()
    open_form(phone)
    assert names(phone) == ["Ana", "Caro", "Dan"]
    phone.click("#add-player")
    phone.locator("#seats input[type=text]").last.fill("Gus")
    for row in (3, 2):  # Gus up to sit after Ana
        phone.locator("#seats .seat-row").nth(row).locator(".move-up").click()
    phone.locator("#seats .seat-row").nth(3).locator(".move-up").click()  # Dan above Caro
    assert names(phone) == ["Ana", "Gus", "Dan", "Caro"]
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#new-game")).to_be_hidden()
    assert [(p["name"], p["seat"]) for p in get_state(server)["players"]] == [
        ("Ana", 1), ("Gus", 2), ("Dan", 3), ("Caro", 4)]


def test_the_form_starts_from_a_game_another_phone_started_since_the_page_opened(
    phone: Any, server: str
) -> None:
    # Before, the form was filled once, as the page opened: at the end of a game another
    # phone had started, it offered the game before's players and rules.
    new_game(server, ["Ana", "Ben", "Caro", "Dan"], rules="perudo")
    phone.reload()
    take_control(phone)
    new_game(server, ["Eve", "Finn"], rules="dudo", dice=1)  # another phone's game
    act(server, action="bid", player="Eve", quantity=1, face=2)
    act(server, action="dudo", player="Finn")
    over = act(server, action="reveal", dice={"Eve": [3], "Finn": [4]})
    assert over["winner"] == "Finn"
    wait_out_the_hold(phone, over)
    expect(phone.locator("#new-game")).to_be_visible()
    assert names(phone) == ["Eve", "Finn"]
    expect(phone.locator("#preset")).to_have_value("dudo")
    expect(phone.locator("#dice-each")).to_have_value("1")
    # Filled once for that game: a name typed in stays, the reveal taken back and made again.
    phone.locator("#seats input[type=text]").first.fill("Eva")
    act(server, action="undo")
    again = act(server, action="reveal", dice={"Eve": [3], "Finn": [4]})
    wait_out_the_hold(phone, again)
    expect(phone.locator("#new-game")).to_be_visible()
    assert names(phone) == ["Eva", "Finn"]


def test_a_form_closed_by_a_game_another_phone_started_takes_its_phone_to_the_top(
    phone: Any, server: str
) -> None:
    # Before, the phone stayed where its form had been, at the list of players: the new game's
    # bid and buttons were out of view.
    open_form(phone)
    phone.locator("#seats input[type=text]").last.scroll_into_view_if_needed()
    assert phone.evaluate("window.scrollY") > 300
    state = new_game(server, ["Ana", "Ben", "Caro"], rules="perudo")  # another phone's
    wait_out_the_hold(phone, state)
    expect(phone.locator("#new-game")).to_be_hidden()
    assert phone.evaluate("window.scrollY") == 0
    expect(phone.locator("#place-bid")).to_be_in_viewport()


def test_a_name_cut_at_the_field_s_limit_is_said_so(phone: Any, server: str) -> None:
    # Before, a longer name typed or pasted was cut at 24 characters without a word.
    open_form(phone)
    hint = phone.locator("#name-hint")
    expect(hint).to_be_hidden()
    name = phone.locator("#seats input[type=text]").first
    name.fill("Maria Fernanda de los Angeles")  # 29 characters
    expect(name).to_have_value("Maria Fernanda de los An")
    expect(hint).to_be_visible()
    expect(hint).to_have_text("A name is 24 characters at most: the rest is not taken.")
    name.fill("Maria")
    expect(hint).to_be_hidden()


def test_the_first_player_follows_their_seat_when_the_name_is_corrected(
    phone: Any, server: str
) -> None:
    shows(phone, new_game(server, ["Ana", "Ben", "Caro"], rules="perudo"))  # the form starts here
    open_form(phone)
    phone.select_option("#preset", "perudo")  # a roll-off's winner opens (not at jinto)
    rows = phone.locator("#seats .seat-row")
    last = rows.nth(rows.count() - 1)
    phone.select_option("#first", label=last.locator("input[type=text]").input_value())
    last.locator("input[type=text]").fill("Eva")
    expect(phone.locator("#first option:checked")).to_have_text("Eva")
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#new-game")).to_be_hidden()
    assert get_state(server)["turn"] == "Eva"


def test_a_jinto_table_asks_for_no_roll_off_winner_and_its_first_seat_opens(
    phone: Any, server: str
) -> None:
    # RULES.md: at jinto "player 1" opens, where the other presets roll off. Before, the form
    # offered "First" there too, and the game then opened with the player picked.
    shows(phone, new_game(server, ["Ana", "Ben", "Caro"], rules="perudo"))  # the form starts here
    open_form(phone)
    seated = names(phone)
    phone.select_option("#first", label=seated[-1])
    phone.select_option("#preset", "jinto")
    expect(phone.locator("#first")).to_be_hidden()
    expect(phone.locator("#preset-title")).to_contain_text("the first seat opens")
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#new-game")).to_be_hidden()
    state = get_state(server)
    assert state["rules"] == "jinto" and state["turn"] == seated[0]


def test_colours_added_are_free_and_two_alike_are_refused_with_a_reason(
    phone: Any, server: str
) -> None:
    shows(phone, new_game(server, ["Ana", "Ben", "Caro"], rules="perudo"))  # the form starts here
    open_form(phone)
    colours = phone.locator("#seats input[type=color]")
    phone.locator("#seats .seat-row").first.locator(".remove").click()
    phone.click("#add-player")
    phone.locator("#seats input[type=text]").last.fill("Zoe")  # a seat without a name is none
    taken = [c.input_value() for c in colours.all()]
    assert len(set(taken)) == len(taken), taken
    before = len(games(server))
    colours.nth(1).evaluate("(el, c) => { el.value = c; }", taken[0])
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#notice")).to_contain_text("have the same colour")
    assert len(games(server)) == before
    # The colour to change is marked and has the focus; changed, its mark goes.
    expect(colours.nth(1)).to_have_attribute("aria-invalid", "true")
    expect(colours.nth(1)).to_be_focused()
    expect(colours.nth(0)).not_to_have_attribute("aria-invalid", "true")
    colours.nth(1).fill("#123456")
    expect(colours.nth(1)).not_to_have_attribute("aria-invalid", "true")


def test_two_seats_with_one_name_are_refused_at_the_second_name(
    phone: Any, server: str
) -> None:
    open_form(phone)
    fields = phone.locator("#seats input[type=text]")
    first = fields.first.input_value()
    fields.nth(2).fill("  " + first.lower() + " ")  # one name said: "Ana" and "ana"
    before = len(games(server))
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#notice")).to_contain_text("differs only in capitals")
    expect(fields.nth(2)).to_have_attribute("aria-invalid", "true")
    expect(fields.nth(2)).to_be_focused()
    shot(phone, "61-two-seats-one-name")
    assert len(games(server)) == before
    fields.nth(2).fill("Zoe")
    expect(fields.nth(2)).not_to_have_attribute("aria-invalid", "true")
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#new-game")).to_be_hidden()
    assert get_state(server)["players"][2]["name"] == "Zoe"


def test_a_seat_left_without_a_name_is_asked_about_not_dropped(
    phone: Any, server: str
) -> None:
    # Before, the game started without that seat, and the players after it each sat a seat
    # up: the panel's seat buttons and the camera's zones gave their dice to others.
    open_form(phone)
    fields = phone.locator("#seats input[type=text]")
    count = fields.count()
    fields.nth(1).fill("  ")
    before = len(games(server))
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#notice")).to_have_text(
        "Seat 2 has no name: type one, or remove the seat with \u00d7")
    expect(fields.nth(1)).to_have_attribute("aria-invalid", "true")
    expect(fields.nth(1)).to_be_focused()
    assert len(games(server)) == before
    phone.locator("#seats .seat-row").nth(1).locator(".remove").click()  # as the notice says
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#new-game")).to_be_hidden()
    assert len(get_state(server)["players"]) == count - 1


def colour_gap(a: str, b: str) -> float:
    """How far apart two "#rrggbb" colours look ("redmean", a weighted RGB distance)."""
    (r1, g1, b1), (r2, g2, b2) = ([int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in (a, b))
    mean = (r1 + r2) / 2
    return math.sqrt((2 + mean / 256) * (r1 - r2) ** 2 + 4 * (g1 - g2) ** 2
                     + (2 + (255 - mean) / 256) * (b1 - b2) ** 2)


def test_a_jinto_table_of_twenty_gets_twenty_colours_and_starts(
    phone: Any, server: str
) -> None:
    open_form(phone)
    phone.select_option("#preset", "jinto")
    rows = phone.locator("#seats .seat-row")
    while rows.count() < 20:
        phone.click("#add-player")
        rows.last.locator("input[type=text]").fill(f"Player {rows.count()}")
    colours = [c.input_value() for c in phone.locator("#seats input[type=color]").all()]
    assert len(set(colours)) == 20, colours
    # Told apart at a glance: no two nearer than about a red and an orange (before, the
    # eleventh seat's orange-red was 34 from the first seat's red; #dd3333 to #ff8800: 178).
    nearest = min(colour_gap(a, b) for a, b in itertools.combinations(colours, 2))
    assert nearest >= 90, (nearest, colours)
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#new-game")).to_be_hidden()
    assert len(set(get_state(server)["colours"].values())) == 20


def test_moving_a_seat_up_or_removing_one_keeps_the_keyboard_where_it_was(
    phone: Any, server: str
) -> None:
    open_form(phone)
    rows = phone.locator("#seats .seat-row")
    third = rows.nth(2).locator("input[type=text]").input_value()
    rows.nth(2).locator(".move-up").focus()
    phone.keyboard.press("Enter")
    assert names(phone)[1] == third
    phone.keyboard.press("Enter")  # again: the same seat goes up once more
    assert names(phone)[0] == third
    first = phone.locator("#seats .seat-row").first
    gone = first.locator("input[type=text]").input_value()
    first.locator(".remove").focus()
    phone.keyboard.press("Enter")
    # On the next seat's remove, named by its player (every row's was "remove" alike).
    now_first = names(phone)[0]
    assert gone != now_first
    assert phone.evaluate("document.activeElement.getAttribute('aria-label')") == (
        f"remove {now_first}")


def test_moving_a_seat_down_seats_the_game_so_and_keeps_the_keyboard_on_it(
    phone: Any, server: str
) -> None:
    open_form(phone)
    before = names(phone)
    phone.locator("#seats .seat-row").first.locator(".move-down").focus()
    phone.keyboard.press("Enter")
    phone.keyboard.press("Enter")  # again: the same seat goes down once more
    seated = before[1:3] + before[:1] + before[3:]
    assert names(phone) == seated
    assert phone.evaluate("document.activeElement.getAttribute('aria-label')") == (
        f"move {before[0]} down")
    phone.locator("#seats .seat-row").last.locator(".move-down").click()
    assert names(phone) == seated  # the last seat stays last
    phone.click("#new-game button[type=submit]")
    expect(phone.locator("#new-game")).to_be_hidden()
    assert [p["name"] for p in get_state(server)["players"]] == seated


def test_the_form_fits_a_small_phone_with_its_text_at_twice_the_size(
    browser: Any, server: str
) -> None:
    small = open_page(browser, server, {"width": 360, "height": 640}, "light")
    open_form(small)
    text_size(small, "200%")
    small.click("#new-game summary")  # the options too
    assert small.evaluate("document.documentElement.scrollWidth") <= 360
    for part in small.locator("#new-game select, #new-game input, #new-game button,"
                              " #new-game label > span").all():
        if not part.is_visible():
            continue  # "First", at a jinto table
        box = part.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360, box
    # A name keeps room to be read (the seat's buttons go below it).
    for name in small.locator("#seats input[type=text]").all():
        assert name.bounding_box()["width"] > 150, name.input_value()
    # Each option's words stay whole words: none is broken a letter a line.
    for words in small.locator("#options .option > span").all():
        assert words.bounding_box()["width"] > 100, words.inner_text()
    small.locator("#options").scroll_into_view_if_needed()
    shot(small, "18-new-game-text-200")
    small.context.close()


def test_a_fresh_table_s_form_starts_from_the_config_and_its_options(
    browser: Any, tmp_path: Path
) -> None:
    config = tmp_path / "dudo.toml"
    config.write_text('[table]\nrules = "dudo"\nplayers = ["Ines", "Joao"]\n'
                      'options = {exact_call = "calza", dice = 4, cruzado = true}\n')
    port = free_port()
    process = start_serve(tmp_path, port, config)
    try:
        fresh = open_page(browser, f"http://127.0.0.1:{port}", PHONE, "dark")
        take_control(fresh)
        expect(fresh.locator("#preset")).to_have_value("dudo")
        assert names(fresh) == ["Ines", "Joao"]
        expect(fresh.locator("#dice-each")).to_have_value("4")
        expect(fresh.locator("#options [data-option=exact_call]")).to_have_value("calza")
        expect(fresh.locator("#options [data-option=cruzado]")).to_be_checked()
        fresh.click("#new-game button[type=submit]")
        expect(fresh.locator("#new-game")).to_be_hidden()
        options = get_state(f"http://127.0.0.1:{port}")["options"]
        assert (options["exact_call"], options["dice"], options["cruzado"]) == ("calza", 4, True)
        fresh.context.close()
    finally:
        stop_serve(process)
