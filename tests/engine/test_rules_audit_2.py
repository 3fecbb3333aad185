"""A third audit of the referee against RULES.md: corners the earlier audits leave open.

Each test quotes the RULES.md line it checks; the expected outcomes are worked out by hand
from RULES.md, never copied from the engine. Scripts use the notation of ``conftest.py``.
"""

from __future__ import annotations

import pytest

from tests.engine.conftest import Script, dice_counts, refused
from tests.engine.test_rules_audit import FOUR, act, bid, game_of

ANA_DOWN_TO_ONE = "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66"

# Ana, on one die in her palifico round, makes an exact call on two or three 3s (aces not
# wild) and is lifted back to two dice; she opens, bids nine 2s and is doubted: down to one.
REGAIN_AND_FALL = {
    "spot_on": ("dudo", "Ana 1x3; Ben 2x3; Caro 3x3; Ana calza; reveal Ana:3 Ben:33 Caro:66"),
    "exactomundo": ("payroodo", "Ana 1x3; Ben 2x3; Ana calza; reveal Ana:3 Ben:36 Caro:66"),
}


@pytest.mark.parametrize("exact_call", list(REGAIN_AND_FALL))
@pytest.mark.parametrize(("trigger", "again"), [("once", False), ("every_time", True)])
def test_a_die_regained_by_spot_on_or_exactomundo_and_lost_again_is_a_palifico_every_time(
    exact_call: str, trigger: str, again: bool, play: Script
) -> None:
    """RULES.md, options table: palifico trigger "first time (2 -> 1)" / "every time a player
    goes 2 -> 1"; only calza carries "if that lifts them off one die, does not trigger a
    second palifico"."""
    preset, regain = REGAIN_AND_FALL[exact_call]
    game = game_of(preset, dice=2, exact_call=exact_call, palifico=trigger)
    play(game, ANA_DOWN_TO_ONE)
    assert game.state()["palifico"] == "Ana"
    play(game, regain)
    assert (game.dice("Ana"), game.turn, game.state()["palifico"]) == (2, "Ana", None)
    play(game, "Ana 9x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")
    assert game.dice("Ana") == 1
    assert (game.state()["palifico"] == "Ana") is again
    assert game.aces_wild is not again
    assert game.turn == "Ana"  # the loser opens either way


def test_a_right_calza_in_a_game_started_with_one_die_gives_nothing_back(play: Script) -> None:
    """RULES.md, calza: "Exact: caller gets one lost die back (never above the starting N)"."""
    game = game_of("perudo", dice=1, exact_call="calza")
    play(game, "Ana 1x2; Caro calza; reveal Ana:2 Ben:5 Caro:6")
    assert dice_counts(game) == {"Ana": 1, "Ben": 1, "Caro": 1}
    assert (game.dice_lost, game.dice_regained) == (0, 0)
    assert game.state()["last_result"]["success"] is True
    assert game.turn == "Caro"  # the caller opens, right or wrong


def test_a_wrong_spot_on_taking_its_caller_down_to_one_die_starts_their_palifico(
    play: Script,
) -> None:
    """RULES.md, spot on: "Wrong: caller loses one"; Palifico: "Triggered by the trigger
    rule above, for the round right after the die was lost"."""
    game = game_of("dudo", dice=2)
    play(game, "Ana 1x3; Ben calza; reveal Ana:66 Ben:66 Caro:66")  # no 3, no ace
    assert dice_counts(game) == {"Ana": 2, "Ben": 1, "Caro": 2}
    state = game.state()
    assert (state["palifico"], game.turn, state["aces_wild"]) == ("Ben", "Ben", False)


# Caro then Dan fall to one die: Dan's palifico round has two one-die players (Caro, Dan).
TWO_ON_ONE_DIE = (
    "Ana 1x2; Ben 2x2; Caro dudo; reveal Ana:22 Ben:22 Caro:22 Dan:22; "
    "Caro 1x3; Dan dudo; reveal Ana:33 Ben:33 Caro:3 Dan:33"
)


@pytest.mark.parametrize(
    ("quantity", "face", "legal"),
    [(3, 3, False), (3, 1, False), (3, 2, False), (3, 4, True), (4, 1, True), (4, 2, True),
     (4, 3, True)],
    ids=["keep the face, same quantity", "aces are the lowest face", "a lower face",
         "a higher face", "more aces", "more of a lower face", "keep the face, more"],
)  # fmt: skip
def test_palifico_a_one_die_player_who_may_change_the_face_raises_by_the_normal_rule(
    quantity: int, face: int, legal: bool, play: Script
) -> None:
    """RULES.md, Palifico: "a player who keeps the face must raise the quantity; a player
    allowed to change the face raises by the normal raise rule, with the ace as the lowest
    face"."""
    game = game_of("payroodo", FOUR, dice=2)
    play(game, TWO_ON_ONE_DIE)
    assert (game.state()["palifico"], game.turn) == ("Dan", "Dan")
    play(game, "Dan 1x3; Ana 2x3; Ben 3x3")
    assert game.dice("Caro") == 1
    if legal:
        game.check(bid("Caro", quantity, face))
    else:
        refused(game, bid("Caro", quantity, face))


def test_leaving_on_your_turn_in_an_anticlockwise_round_hands_it_on_anticlockwise(
    play: Script,
) -> None:
    """RULES.md, Leaving the table: "if it was their turn the next player acts"; Variants:
    "Alternating direction: each round reverses the direction of play"."""
    game = game_of("perudo", FOUR, dice=3, direction="alternating")
    play(game, "Ana 1x2; Ben dudo; reveal Ana:222 Ben:333 Caro:444 Dan:555")  # Ben loses
    assert game.turn == "Ben"
    play(game, "Ben 2x3")
    assert game.turn == "Ana"  # round 2 runs anticlockwise
    play(game, "Ana leave")
    assert game.turn == "Dan"
    assert game.dice_left_with_players == 3 and game.dice_lost == 1
    game.check(act("dudo", "Dan"))
    refused(game, act("dudo", "Caro"))
