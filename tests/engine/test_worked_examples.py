"""Every worked example of RULES.md ("Worked examples from the texts"), one test each."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from companion.announcement import Announcement
from companion.errors import IllegalAction
from companion.game import Game
from companion.rules import make_rules

Script = Callable[[Game, str], list[Announcement]]  # the ``play`` fixture
SIX = ["Ana", "Ben", "Caro", "Dan", "Eve", "Fay"]


def bid(game: Game, quantity: int, face: int) -> dict[str, object]:
    return {"action": "bid", "player": game.turn, "quantity": quantity, "face": face}


def is_legal(game: Game, quantity: int, face: int) -> bool:
    try:
        game.check(bid(game, quantity, face))
    except IllegalAction:
        return False
    return True


def after(preset: str, script: str, play: Script) -> Game:
    game = Game(make_rules(preset), SIX)
    play(game, script)
    return game


@pytest.mark.parametrize("preset", ["perudo", "payroodo"])
def test_example_1_nine_4s_to_aces_needs_five_aces(preset: str, play: Script) -> None:
    game = after(preset, "Ana 9x4", play)
    assert is_legal(game, 5, 1)
    assert not is_legal(game, 4, 1)


def test_example_2_five_3s_to_aces_needs_three_aces(play: Script) -> None:
    game = after("dudo", "Ana 5x3", play)
    assert is_legal(game, 3, 1)
    assert not is_legal(game, 2, 1)


@pytest.mark.parametrize(("preset", "least"), [("perudo", 4), ("payroodo", 5)])
def test_example_2_eight_4s_to_aces_under_ceil_and_half_plus_one(
    preset: str, least: int, play: Script
) -> None:
    game = after(preset, "Ana 8x4", play)
    assert is_legal(game, least, 1)
    assert not is_legal(game, least - 1, 1)


def test_example_3_from_three_aces_to_fours_needs_seven(play: Script) -> None:
    game = after("perudo", "Ana 6x4; Ben 3x1", play)
    assert is_legal(game, 7, 4)
    assert not is_legal(game, 6, 4)


@pytest.mark.parametrize("face", [2, 3, 4, 5, 6])
def test_example_3_from_five_aces_eleven_of_any_face(face: int, play: Script) -> None:
    game = after("payroodo", "Ana 9x6; Ben 5x1", play)
    assert is_legal(game, 11, face)
    assert not is_legal(game, 10, face)


def test_example_3_from_four_ones_the_house_needs_nine_of_something(play: Script) -> None:
    game = after("jinto", "Ana 7x5; Ben 4x1", play)
    assert is_legal(game, 9, 2)
    assert not is_legal(game, 8, 6)


@pytest.mark.parametrize(
    ("quantity", "loser"),
    [(4, "Ben"), (6, "Ana")],
    ids=["four 5s stands, the caller loses", "six 5s is false, the bidder loses"],
)
def test_example_4_three_5s_and_two_aces_count_five(
    quantity: int, loser: str, play: Script
) -> None:
    game = Game(make_rules("perudo"), ["Ana", "Ben"])
    play(game, f"Ana {quantity}x5; Ben dudo; reveal Ana:55523 Ben:11466")
    assert game.state()["last_result"]["count"] == 5
    assert game.dice(loser) == 4
    assert game.dice("Ana" if loser == "Ben" else "Ben") == 5


def test_example_5_house_raise_must_raise_the_quantity(play: Script) -> None:
    game = after("jinto", "Ana 4x3", play)
    assert is_legal(game, 5, 6)
    assert not is_legal(game, 4, 6)


def test_example_6_boxed_edition_palifico_single_die_players_switch_faces(play: Script) -> None:
    game = Game(make_rules("payroodo", {"dice": 2}), ["P1", "P2", "P3", "P4"])
    # P3 goes down to one die (their palifico round), then P1 does in that round.
    play(game, "P1 1x2; P2 2x2; P3 dudo; reveal P1:22 P2:22 P3:66 P4:66")
    play(game, "P3 1x5; P4 2x5; P1 dudo; reveal P1:55 P2:66 P3:6 P4:66")
    assert game.state()["palifico"] == "P1"
    assert not game.aces_wild
    play(game, "P1 1x2")
    assert not is_legal(game, 2, 3), "P2 (two dice) may not switch face"
    play(game, "P2 2x2; P3 2x3")
    assert not is_legal(game, 3, 4), "P4 (two dice) may not switch face"
    play(game, "P4 3x3; P1 3x4; P2 4x4")
    assert game.state()["bid"] == {"player": "P2", "quantity": 4, "face": 4, "text": "4x4"}


def test_example_7_cut_to_aces_from_five_6s_is_three_ones(play: Script) -> None:
    game = after("jinto", "Ana 5x6", play)
    assert is_legal(game, 3, 1)
    assert not is_legal(game, 2, 1)


@pytest.mark.parametrize(("players", "dice"), [(6, 30), (4, 20)])
def test_example_8_six_players_have_30_dice_and_four_have_20(players: int, dice: int) -> None:
    game = Game(make_rules("perudo"), SIX[:players])
    state = game.state()
    assert state["dice_start"] == dice
    assert state["dice_in_play"] == dice
    assert game.dice_in_play == dice
