"""The state JSON, the one-line notation, and what the referee announces."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from companion.announcement import KINDS, Announcement
from companion.game import Game
from companion.rules import make_rules

Script = Callable[[Game, str], list[Announcement]]
THREE = ["Ana", "Ben", "Caro"]
# Ana loses one (6 threes bid, 5 counted), then Caro loses four (2 twos bid, 6 counted):
# round 3 is Caro's palifico.
TO_ROUND_3 = (
    "Ana 6x3; Ben dudo; reveal Ana:33312 Ben:22222 Caro:36666; "
    "Ana 1x2; Ben 2x2; Caro dudo; reveal Ana:2222 Ben:22666 Caro:66666; "
    "Caro 4x3; Ana 5x3"
)


def test_the_notation_is_one_line_of_rules_round_dice_turn_bid_and_palifico(
    play: Script,
) -> None:
    game = Game(make_rules("perudo", {"loss": "difference"}), THREE)
    play(game, TO_ROUND_3)
    assert game.notation() == "perudo r3 Ana:4 Ben:5* Caro:1 bid=5x3 palifico=Caro"
    play(game, "Ben dudo")
    assert game.notation() == "perudo r3 Ana:4 Ben:5 Caro:1 bid=5x3 palifico=Caro call=dudo:Ben"


def test_the_state_has_every_field_of_the_design(play: Script) -> None:
    game = Game(make_rules("perudo", {"loss": "difference"}), THREE)
    play(game, TO_ROUND_3)
    state = json.loads(json.dumps(game.state()))
    assert {k: state[k] for k in ("rules", "phase", "round", "turn", "palifico", "winner")} == {
        "rules": "perudo", "phase": "bidding", "round": 3, "turn": "Ben", "palifico": "Caro",
        "winner": None,
    }  # fmt: skip
    assert state["players"] == [
        {"name": "Ana", "seat": 1, "dice": 4, "out": False, "left": False, "palifico_used": False},
        {"name": "Ben", "seat": 2, "dice": 5, "out": False, "left": False, "palifico_used": False},
        {"name": "Caro", "seat": 3, "dice": 1, "out": False, "left": False, "palifico_used": True},
    ]
    assert (state["dice_in_play"], state["dice_lost"], state["dice_start"]) == (10, 5, 15)
    assert state["bid"] == {"player": "Ana", "quantity": 5, "face": 3, "text": "5x3"}
    assert state["bids"] == [
        {"action": "bid", "player": "Caro", "quantity": 4, "face": 3},
        {"action": "bid", "player": "Ana", "quantity": 5, "face": 3},
    ]
    assert state["options"]["loss"] == "difference" and len(state["options"]) == 15
    assert (state["direction"], state["palifico_mode"], state["aces_wild"]) == (
        "clockwise", "closed", False,
    )  # fmt: skip
    assert state["can_call"] == {"dudo": ["Ben"], "calza": [], "pass": []}


def test_the_last_result_tells_the_call_the_count_and_who_lost(play: Script) -> None:
    game = Game(make_rules("perudo", {"loss": "difference"}), THREE)
    play(game, TO_ROUND_3)
    result = game.state()["last_result"]
    assert result == {
        "round": 2,
        "call": "dudo",
        "name": "Dudo",
        "caller": "Caro",
        "bidder": "Ben",
        "bid": {"quantity": 2, "face": 2},
        "cruzado": False,
        "count": 6,
        "faces_counted": [2, 1],
        "aces_wild": True,
        "success": False,
        "losers": {"Caro": 4},
        "gainers": {},
        "out": [],
        "void": False,
        "text": "Dudo by Caro on Ben's two 2s: 6 counted (aces wild), the bid stands. "
        "Caro loses 4 dice.",
        "dice": {"Ana": [2, 2, 2, 2], "Ben": [2, 2, 6, 6, 6], "Caro": [6, 6, 6, 6, 6]},
    }


def test_the_state_never_shows_a_die_before_it_is_revealed(play: Script) -> None:
    game = Game(make_rules("perudo"), THREE)
    play(game, "Ana 2x3; Ben dudo")
    state = game.state()
    assert state["last_result"] is None
    assert state["expected_dice"] == {"Ana": 5, "Ben": 5, "Caro": 5}
    assert state["call"] == {"call": "dudo", "caller": "Ben", "bidder": "Ana", "cruzado": False,
                             "cups_in_turn": None}
    play(game, "reveal 123456123456123")
    # The reveal's faces are public now, and they are the only faces in the state.
    assert game.state()["last_result"]["faces"] == [1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3]
    assert "dice" not in game.state()["last_result"]


@pytest.mark.parametrize(
    ("preset", "options", "calls", "in_turn"),
    [
        ("payroodo", {}, "Ana 2x3; Ben dudo", ["Caro", "Ana", "Ben"]),
        ("payroodo", {}, "Ana 2x3; Ben 3x3; Caro dudo", ["Ana", "Ben", "Caro"]),
        ("payroodo", {"loss": "difference"}, "Ana 2x3; Ben dudo", None),  # the whole count
        ("payroodo", {"exact_call": "exactomundo"}, "Ana 2x3; Caro calza", None),
        ("perudo", {}, "Ana 2x3; Ben dudo", None),  # every cup comes up
    ],
)  # fmt: skip
def test_a_doubt_under_the_boxed_edition_names_the_cups_to_lift_in_turn(
    play: Script, preset: str, options: dict[str, object], calls: str, in_turn: list[str] | None
) -> None:
    game = Game(make_rules(preset, options), THREE)
    play(game, calls)
    assert game.state()["call"]["cups_in_turn"] == in_turn


def test_a_table_that_hides_the_lost_dice_shows_no_counts(play: Script) -> None:
    game = Game(make_rules("perudo", {"lost_dice_visible": False}), THREE)
    play(game, "Ana 2x3; Ben dudo; reveal 666666666666666")
    state = game.state()
    assert [p["dice"] for p in state["players"]] == [None, None, None]
    assert (state["dice_in_play"], state["dice_lost"], state["notation"]) == (None, None, None)
    assert [p["out"] for p in state["players"]] == [False, False, False]


def test_a_copy_plays_on_without_touching_the_original(play: Script) -> None:
    game = Game(make_rules("perudo"), THREE)
    play(game, "Ana 2x3")
    other = game.copy()
    play(other, "Ben dudo; reveal 666666666666666")
    assert game.phase == "bidding" and len(game.actions) == 1
    assert other.round == 2 and len(other.actions) == 3


@pytest.mark.parametrize("preset", ["perudo", "dudo", "payroodo", "jinto"])
def test_every_announcement_is_a_known_kind_with_a_short_sentence(
    preset: str, play: Script
) -> None:
    game = Game(make_rules(preset, {"dice": 1}), THREE)
    said = play(game, "Ana 1x2; Ben dudo; reveal Ana:6 Ben:6 Caro:6; Ben 1x3; Caro dudo; undo")
    said += play(game, "Caro dudo; reveal Ben:3 Caro:3; undo")
    assert {a.kind for a in said} <= KINDS
    assert all(0 < len(a.text) <= 80 for a in said)
    assert said[0] == Announcement("bid", "Ana", "Ana bids one 2")
