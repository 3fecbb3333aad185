"""The virtual panel of --sim: the page presses gpiozero's mock pins, the real panel acts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.table import Table
from companion.web import create_app
from hardware.panel import Panel
from hardware.sim import MockPanelDriver, mock_pin_factory
from tests.web.conftest import HEADER, PIN


@pytest.fixture
def panel(table: Table) -> Iterator[Panel]:
    panel = Panel(table, pin_factory=mock_pin_factory())
    yield panel
    panel.close()


@pytest.fixture
def sim_client(table: Table, panel: Panel) -> FlaskClient:
    app: Flask = create_app(
        table, {"TABLE_PIN": PIN, "TESTING": True, "SIM_DRIVER": MockPanelDriver(panel)}
    )
    client = app.test_client()
    client.environ_base["HTTP_X_TABLE_PIN"] = PIN
    assert client.post("/api/game", json=HEADER).status_code == 201
    assert panel.settle()
    return client


def test_pushing_the_dial_bids_the_lowest_raise_for_the_player_to_act(
    sim_client: FlaskClient, table: Table, panel: Panel
) -> None:
    assert table.state()["display"]["dial"] == "1x2"
    assert sim_client.post("/api/sim/dial", json={"steps": 3}).status_code == 200
    assert panel.settle()
    dialed = table.state()["display"]["dial"]
    assert sim_client.post("/api/sim/press", json={"button": "dial"}).status_code == 200
    assert panel.settle()
    state = table.state()
    assert f"{state['bid']['quantity']}x{state['bid']['face']}" == dialed
    assert state["bid"]["player"] == "Ana" and state["turn"] == "Ben"


def test_a_seat_button_names_who_calls_dudo_out_of_turn(
    sim_client: FlaskClient, table: Table, panel: Panel
) -> None:
    sim_client.post("/api/sim/press", json={"button": "dial"})
    assert panel.settle()
    answer = sim_client.post("/api/sim/press", json={"button": "calza", "seat": 3})
    assert answer.status_code == 200
    assert panel.settle()
    assert table.state()["phase"] == "reveal"
    assert table.record().splitlines()[-1] == '{"action": "calza", "player": "Caro"}'


def test_the_seat_leds_show_whose_turn_it_is(
    sim_client: FlaskClient, panel: Panel
) -> None:
    outputs = sim_client.get("/api/sim/pins").get_json()["outputs"]
    assert outputs["seat1_led"] == "on"
    assert outputs["seat2_led"] == "off"
    assert outputs["palifico_led"] == "off"


def test_holding_undo_takes_the_bid_back(
    sim_client: FlaskClient, table: Table, panel: Panel
) -> None:
    sim_client.post("/api/sim/press", json={"button": "dial"})
    assert panel.settle()
    assert table.state()["bid"] is not None
    # Held 1.5 s, as the page's UNDO (hold) does: gpiozero's hold thread counts its 1 s
    # from when it is woken, and a busy machine wakes it late (held 1.2 s, it missed it).
    held = sim_client.post("/api/sim/press", json={"button": "undo", "hold_s": 1.5})
    assert held.status_code == 200
    assert panel.settle()
    assert table.state()["bid"] is None


def test_the_push_held_after_the_game_plays_again_with_the_same_players(
    sim_client: FlaskClient, table: Table, panel: Panel
) -> None:
    one_die = {**HEADER, "players": ["Ana", "Ben"], "options": {"dice": 1}}
    assert sim_client.post("/api/game", json=one_die).status_code == 201
    for action in ({"action": "bid", "player": "Ana", "quantity": 1, "face": 3},
                   {"action": "dudo", "player": "Ben"},
                   {"action": "reveal", "dice": {"Ana": [2], "Ben": [4]}}):
        assert sim_client.post("/api/actions", json=action).status_code == 200
    over = table.state()
    assert over["phase"] == "over"
    # The page's "Play again (hold)": Ben's seat chosen, the push held past 2 s.
    held = sim_client.post("/api/sim/press", json={"button": "dial", "seat": 2, "hold_s": 2.5})
    assert held.status_code == 200
    assert panel.settle()
    state = table.state()
    assert state["game_id"] != over["game_id"] and state["phase"] == "bidding"
    assert [p["name"] for p in state["players"]] == ["Ana", "Ben"] and state["turn"] == "Ben"
    assert b'data-button="dial" data-hold="2.5"' in sim_client.get("/").data


def test_the_one_die_players_seat_held_plays_the_palifico_round_open(
    sim_client: FlaskClient, table: Table, panel: Panel
) -> None:
    options = {"dice": 2, "palifico_choice": True}
    two_dice = {**HEADER, "players": ["Ana", "Ben"], "options": options}
    assert sim_client.post("/api/game", json=two_dice).status_code == 201
    for action in ({"action": "bid", "player": "Ana", "quantity": 1, "face": 3},
                   {"action": "dudo", "player": "Ben"},
                   {"action": "reveal", "dice": {"Ana": [2, 5], "Ben": [4, 4]}}):
        assert sim_client.post("/api/actions", json=action).status_code == 200
    assert table.state()["palifico"] == "Ana"
    # The page's "Palifico open (hold seat)": the one-die player's seat held past 2 s.
    held = sim_client.post("/api/sim/press", json={"button": "seat1", "hold_s": 2.5})
    assert held.status_code == 200
    assert panel.settle()
    assert table.state()["palifico_mode"] == "open"
    assert sim_client.get("/api/sim/pins").get_json()["outputs"]["palifico_led"] == "blink"
    assert b'data-button="seat" data-hold="2.5"' in sim_client.get("/").data


@pytest.mark.parametrize(
    ("path", "body", "reason"),
    [
        ("/api/sim/press", {"button": "big red"}, "unknown button"),
        # Not the buttons a panel may have: this one's (6 seats).
        ("/api/sim/press", {"button": "seat9"}, "unknown button 'seat9'; this panel's buttons are"
         " dial, dudo, calza, pass, undo, seat1, seat2, seat3, seat4, seat5, seat6"),
        ("/api/sim/press", {"button": "dudo", "seat": 9}, "seat 9: this panel's seats are 1-"),
        ("/api/sim/press", {"button": "dudo", "seat": "2"}, "seat '2': this panel's seats are"),
        ("/api/sim/press", {"button": "dudo", "seat": True}, "seat true: this panel's seats"),
        ("/api/sim/press", {"button": None}, "button null: a button's name"),
        ("/api/sim/press", {"button": "undo", "hold_s": "1"}, "from 0 to 3, got '1'"),
        ("/api/sim/press", {"button": "undo", "hold_s": None}, "from 0 to 3, got null"),
        ("/api/sim/press", {"button": "undo", "hold_s": 60}, "hold_s must be seconds from 0 to 3,"),
        ("/api/sim/press", {"button": "undo", "hold_s": -1}, "hold_s must be seconds from 0 to 3,"),
        ("/api/sim/press", {"button": "dudo", "force": True}, "force"),
        ("/api/sim/dial", {"steps": 0}, "steps"),
        ("/api/sim/dial", {"steps": 1.5}, "steps"),
        ("/api/sim/dial", {"turns": 2}, "steps"),
        ("/api/sim/dial", {"steps": True}, "steps true:"),
        ("/api/sim/press", {"seat": 2}, "send the button to press"),
    ],
)
def test_a_bad_press_is_refused_and_presses_nothing(
    sim_client: FlaskClient, table: Table, panel: Panel,
    path: str, body: dict[str, Any], reason: str,
) -> None:
    before = table.record()
    answer = sim_client.post(path, json=body)
    assert answer.status_code == 400
    assert reason in answer.get_json()["error"]
    assert panel.settle()
    assert table.record() == before


def test_the_virtual_panel_needs_the_pin(sim_client: FlaskClient, table: Table) -> None:
    del sim_client.environ_base["HTTP_X_TABLE_PIN"]
    assert sim_client.post("/api/sim/press", json={"button": "dial"}).status_code == 401
    assert sim_client.post("/api/sim/dial", json={"steps": 1}).status_code == 401
    assert table.state()["bid"] is None


def test_without_sim_there_is_no_virtual_panel(client: FlaskClient, pin: dict[str, str]) -> None:
    answer = client.post("/api/sim/press", json={"button": "dudo"}, headers=pin)
    assert answer.status_code == 404
    assert b'data-sim="no"' in client.get("/").data
