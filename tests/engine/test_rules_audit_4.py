"""A fifth audit of the referee against RULES.md: how the options and presets interact.

Each test quotes the RULES.md lines it checks; the expected outcomes are worked out by hand
from RULES.md, never copied from the engine. Scripts use the notation of ``conftest.py``.

Left untested on purpose, because RULES.md does not settle them (the engine's behaviour is
kept): a wrong dudo cruzado under `loss = difference` (cruzado says "they lose one", the
variant "a failed doubt costs |count - quantity|"); whether the dice of a player who left
still count among "the starting dice" for spot on; exactomundo's "max 5" at a table with
another `dice`; a dudo cruzado by someone other than the next player while a pass stands (the
record's `dudo` right after a `pass` calls the pass); halving and doubling with
`wild_aces = false` outside palifico.
"""

from __future__ import annotations

from typing import Any

import pytest

from companion.game import Game
from companion.table import Table
from tests.engine.conftest import Script, dice_counts, refused
from tests.engine.test_rules_audit import FOUR, THREE, act, bid, game_of

ANA_DOWN_TO_ONE = "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66"


def declare(player: str, mode: str = "open") -> dict[str, Any]:
    return {"action": "palifico", "player": player, "mode": mode}


def refused_and_unrecorded(game: Game, action: dict[str, Any], match: str) -> None:
    """Refused with a reason naming ``match``; the state, the record and undo untouched."""
    actions, notation = list(game.actions), game.notation()
    refused(game, action, match)
    assert (game.actions, game.notation()) == (actions, notation)


# -- RULES.md, Variants: "Lose the difference: a failed bid or failed doubt costs
# |count - quantity| dice (at least 1)", beside each exact call ------------------------------
#
# Ben first loses one die on a doubt of five 2s with exactly five on the table (the difference
# is 0, "at least 1"), so that he has a die to win back; he opens round 2 as the loser.
BEN_DOWN_TO_FOUR = "Ana 5x2; Ben dudo; reveal Ana:22222 Ben:33333 Caro:44444"
# exact call: (preset, options, bids, then Ben's call, the bidder, the quantity of 5s bid)
EXACT_BY_BEN: dict[str, tuple[str, dict[str, Any], str, str, int]] = {
    "calza": ("perudo", {"exact_call": "calza"}, "Ben 1x5; Caro 2x5", "Caro", 2),
    "spot_on": ("dudo", {}, "Ben 1x5; Caro 2x5; Ana 3x5", "Ana", 3),
    "exactomundo": ("payroodo", {"exact_call": "exactomundo"}, "Ben 1x5; Caro 2x5", "Caro", 2),
    "jinto": ("perudo", {"exact_call": "jinto"}, "Ben 1x5; Caro 2x5; Ana 3x5", "Ana", 3),
}  # fmt: skip


@pytest.mark.parametrize("exact_call", list(EXACT_BY_BEN))
@pytest.mark.parametrize("right", [True, False], ids=["exact", "three or two short"])
def test_losing_the_difference_an_exact_call_still_moves_one_die(
    exact_call: str, right: bool, play: Script
) -> None:
    """RULES.md, Exact calls: "Wrong: caller loses a die" / "loses one"; jinto "Exact: the
    caller takes one die from the bidder"; "the caller opens the next round, whether right or
    wrong (jinto: the winner ...)". The difference is for "a failed bid or failed doubt"."""
    preset, options, bids, bidder, quantity = EXACT_BY_BEN[exact_call]
    game = game_of(preset, loss="difference", **options)
    play(game, BEN_DOWN_TO_FOUR)
    assert (dice_counts(game), game.turn) == ({"Ana": 5, "Ben": 4, "Caro": 5}, "Ben")
    play(game, f"{bids}; Ben calza")
    fives = "5" * quantity + "6" * (5 - quantity)
    shown = f"Ana:{fives} Ben:6666 Caro:66666" if right else "Ana:66666 Ben:6666 Caro:66666"
    play(game, f"reveal {shown}")
    expected = {"Ana": 5, "Ben": 5 if right else 3, "Caro": 5}
    if right and exact_call == "jinto":
        expected[bidder] = 4
    assert dice_counts(game) == expected
    assert game.dice_lost == 15 - sum(expected.values())
    opener = bidder if exact_call == "jinto" and not right else "Ben"
    assert game.turn == opener


def test_losing_the_difference_a_right_cruzado_takes_the_bluffer_from_three_dice_to_one(
    play: Script,
) -> None:
    """RULES.md, Variants: cruzado "right: they take the die the bluffer loses" (one: "the
    die"); the difference "costs |count - quantity| dice"; Palifico: "Only losing a die down
    to one triggers it" and "If the one-die player is not the one who would open the next
    round, they open it anyway"."""
    game = game_of("perudo", dice=3, loss="difference", cruzado=True)
    # Three 4s bid, one on the table (no ace): Ana loses two, Caro (out of turn) takes one.
    play(game, "Ana 3x4; Caro dudo; reveal Ana:466 Ben:666 Caro:666")
    assert dice_counts(game) == {"Ana": 1, "Ben": 3, "Caro": 4}
    assert game.dice_lost == 1
    state = game.state()
    assert (state["palifico"], game.turn, state["aces_wild"]) == ("Ana", "Ana", False)


def test_losing_the_difference_a_real_pass_called_costs_the_caller_one_die(
    play: Script,
) -> None:
    """RULES.md, Pass: "a real qualifying hand costs the caller a die"."""
    game = game_of("dudo", loss="difference")
    play(game, "Ana 3x4; Ben pass; Caro dudo; reveal Ben:22333")
    assert dice_counts(game) == {"Ana": 5, "Ben": 5, "Caro": 4}
    assert game.turn == "Caro"


def test_losing_the_difference_in_palifico_counts_aces_as_aces(play: Script) -> None:
    """RULES.md, Palifico: "Aces are not wild"; Variants: the difference is |count - quantity|."""
    game = game_of("perudo", dice=3, loss="difference")
    play(game, "Ana 3x2; Ben dudo; reveal Ana:666 Ben:666 Caro:166")  # one 2 (the ace): 3 -> 1
    assert (game.state()["palifico"], game.turn) == ("Ana", "Ana")
    # Four 4s doubted: two 4s count; with wild aces the four aces would make six.
    play(game, "Ana 1x4; Ben 4x4; Caro dudo; reveal Ana:4 Ben:114 Caro:116")
    assert game.state()["last_result"]["count"] == 2
    assert dice_counts(game) == {"Ana": 1, "Ben": 1, "Caro": 3}
    assert (game.state()["palifico"], game.turn) == ("Ben", "Ben")


def test_losing_the_difference_under_the_house_every_fall_to_one_is_a_palifico(
    play: Script,
) -> None:
    """RULES.md, options table (jinto): palifico "every time a player goes 2 -> 1", opener
    "the one-die player, even though winners normally start"; Palifico: "Only losing a die
    down to one triggers it"."""
    game = game_of("jinto", loss="difference")
    play(game, "Ana 3x2; Ben dudo; reveal Ana:666 Ben:666 Caro:166")  # one 2: Ana 3 -> 1
    assert dice_counts(game) == {"Ana": 1, "Ben": 3, "Caro": 3}
    state = game.state()
    assert (state["palifico"], game.turn, state["aces_wild"]) == ("Ana", "Ana", False)


# -- RULES.md, Variants: "Dudo cruzado: anyone may doubt any bid out of turn; right: they take
# the die the bluffer loses; wrong: they lose one." ------------------------------------------


def test_dudo_cruzado_inside_a_palifico_round_counts_aces_as_aces(play: Script) -> None:
    """RULES.md, Palifico: "Aces are not wild"; a bluffer falling to one opens their own."""
    game = game_of("perudo", FOUR, dice=2, cruzado=True)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66 Dan:66")  # Ana's palifico
    # Caro is to act; Dan doubts two 3s out of turn: one 3 (Ben's aces are not 3s now).
    play(game, "Ana 1x3; Ben 2x3; Dan dudo; reveal Ana:3 Ben:11 Caro:66 Dan:66")
    result = game.state()["last_result"]
    assert (result["cruzado"], result["count"], result["success"]) == (True, 1, True)
    assert dice_counts(game) == {"Ana": 1, "Ben": 1, "Caro": 2, "Dan": 3}
    assert game.dice_lost == 1
    assert (game.state()["palifico"], game.turn) == ("Ben", "Ben")


def test_dudo_cruzado_doubts_the_standing_bid_and_the_next_player_s_doubt_takes_no_die(
    play: Script,
) -> None:
    """RULES.md, Dudo cruzado: "anyone may doubt any bid out of turn; right: they take the
    die the bluffer loses". A bid raised over no longer stands: Dan's doubt is on Ben's ten
    5s, not Ana's nine. The next player doubting is the common core's dudo, in turn."""
    game = game_of("perudo", FOUR, cruzado=True)
    play(game, "Ana 9x5; Ben 10x5; Dan dudo")
    bid = game.state()["bid"]
    assert (bid["player"], bid["quantity"], bid["face"]) == ("Ben", 10, 5)
    play(game, "reveal Ana:55555 Ben:66666 Caro:66666 Dan:66666")  # five 5s: false
    assert dice_counts(game) == {"Ana": 5, "Ben": 4, "Caro": 5, "Dan": 6}
    assert game.state()["last_result"]["cruzado"] is True
    play(game, "Ben 9x5; Caro dudo; reveal Ana:66666 Ben:6666 Caro:66666 Dan:666666")
    assert game.state()["last_result"]["cruzado"] is False
    assert dice_counts(game) == {"Ana": 5, "Ben": 3, "Caro": 5, "Dan": 6}
    assert game.dice_lost == 1


def test_after_an_opener_s_pass_the_first_bidder_s_dice_decide_an_opening_on_aces(
    play: Script,
) -> None:
    """RULES.md, `open_on_aces`: "whether an opening bid may be on aces outside palifico
    (`one_die`: only by a player with one die)"; Pass: "A player may pass instead of
    bidding". After the opener's pass, the opening bid is the next player's."""
    game = game_of("dudo", dice=2, palifico="none")
    play(game, "Ana 1x6; Ben dudo; reveal Ana:66 Ben:66 Caro:66")  # Ben 2 -> 1, he opens
    play(game, "Ben pass")
    refused(game, bid("Caro", 1, 1), "aces")  # Caro has two dice
    play(game, "Caro 1x2; Ana dudo; reveal Ana:66 Ben:6 Caro:66")  # Caro 2 -> 1
    play(game, "Caro 9x6; Ana dudo; reveal Ana:66 Ben:6 Caro:6")  # Caro out: Ana opens
    assert (dice_counts(game), game.turn) == ({"Ana": 2, "Ben": 1, "Caro": 0}, "Ana")
    refused(game, bid("Ana", 1, 1), "aces")
    play(game, "Ana pass; Ben 1x1")  # Ben has one die
    bid_now = game.state()["bid"]
    assert (bid_now["player"], bid_now["quantity"], bid_now["face"]) == ("Ben", 1, 1)


@pytest.mark.parametrize(("starter", "opener"), [("loser", "Dan"), ("winner", "Ana")])
def test_dudo_cruzado_a_wrong_doubter_with_one_die_is_out(
    starter: str, opener: str, play: Script
) -> None:
    """RULES.md, cruzado "wrong: they lose one"; next round "loser of the die (or left of them
    if out)", or the "winner of the round (the one of caller and bidder who lost nothing)"."""
    game = game_of("perudo", FOUR, dice=1, cruzado=True, starter=starter)
    play(game, "Ana 1x2; Caro dudo; reveal Ana:2 Ben:3 Caro:4 Dan:5")  # one 2: it stands
    assert dice_counts(game) == {"Ana": 1, "Ben": 1, "Caro": 0, "Dan": 1}
    assert game.turn == opener


@pytest.mark.parametrize(("starter", "opener"), [("loser", "Ana"), ("winner", "Caro")])
def test_dudo_cruzado_under_either_starter(starter: str, opener: str, play: Script) -> None:
    """RULES.md, options table: "next round starts with" the loser, or the winner "(the one of
    caller and bidder who lost nothing)": the doubter who was right."""
    game = game_of("perudo", FOUR, cruzado=True, starter=starter)
    play(game, "Ana 6x4; Caro dudo; reveal Ana:14456 Ben:23366 Caro:11256 Dan:22222")  # five
    assert dice_counts(game) == {"Ana": 4, "Ben": 5, "Caro": 6, "Dan": 5}
    assert game.turn == opener


# Bids of round 2 after which Ana may make each exact call on exactly two or three 3s: calza
# "anyone but the bidder", spot on "the next player only", exactomundo "anyone except the
# player whose turn is next".
ANA_MAY_CALL = {
    "calza": ("perudo", "Ana 1x3; Ben 2x3", 2),
    "spot_on": ("dudo", "Ana 1x3; Ben 2x3; Caro 3x3", 3),
    "exactomundo": ("payroodo", "Ana 1x3; Ben 2x3", 2),
}


@pytest.mark.parametrize("exact_call", list(ANA_MAY_CALL))
def test_an_exact_call_gives_back_only_a_die_out_of_sight_not_one_a_cruzado_doubter_took(
    exact_call: str, play: Script
) -> None:
    """RULES.md, calza: "Exact: caller gets one lost die back"; spot on: "caller recovers a
    die"; exactomundo: "caller gets a die back"; Dudo cruzado: "right: they take the die the
    bluffer loses"; "Dice that are lost go out of sight (bag or lid) ... Tracking them is the
    referee's job". A die a doubter took is in play: there is no lost die to give back."""
    preset, bids, threes = ANA_MAY_CALL[exact_call]
    game = game_of(preset, cruzado=True, exact_call=exact_call)
    # Caro doubts out of turn (Ben is next) and takes the die Ana's false bid loses.
    play(game, "Ana 9x3; Caro dudo; reveal Ana:66666 Ben:66666 Caro:66666")
    assert (dice_counts(game), game.dice_lost, game.turn) == (
        {"Ana": 4, "Ben": 5, "Caro": 6}, 0, "Ana")
    exactly = "3" * threes + "6" * (5 - threes)
    play(game, f"{bids}; Ana calza; reveal Ana:6666 Ben:{exactly} Caro:666666")
    assert (dice_counts(game), game.dice_lost) == ({"Ana": 4, "Ben": 5, "Caro": 6}, 0)
    assert "no die back" in game.state()["last_result"]["text"]
    assert game.turn == "Ana"  # "the caller opens the next round, whether right or wrong"
    # Once a die is out of sight, the same exact call gives it back.
    play(game, "Ana 9x2; Ben dudo; reveal Ana:6666 Ben:66666 Caro:666666")
    assert (game.dice("Ana"), game.dice_lost, game.turn) == (3, 1, "Ana")
    play(game, f"{bids}; Ana calza; reveal Ana:666 Ben:{exactly} Caro:666666")
    assert (dice_counts(game), game.dice_lost) == ({"Ana": 4, "Ben": 5, "Caro": 6}, 0)


@pytest.mark.parametrize(("trigger", "palifico"), [("once", None), ("every_time", "Ana")])
def test_a_die_won_by_dudo_cruzado_after_a_calza_lift_is_lost_to_a_new_palifico_every_time(
    trigger: str, palifico: str | None, play: Script
) -> None:
    """RULES.md, calza: "if that lifts them off one die, does not trigger a second palifico";
    options table: palifico "first time" (`once`) or "every time a player goes 2 -> 1"; a die
    taken by a right dudo cruzado is no calza."""
    game = game_of("perudo", FOUR, dice=3, exact_call="calza", cruzado=True, palifico=trigger)
    play(game, "Ana 9x2; Ben dudo; reveal Ana:666 Ben:666 Caro:666 Dan:666")  # Ana 3 -> 2
    play(game, "Ana 9x2; Ben dudo; reveal Ana:66 Ben:666 Caro:666 Dan:666")  # Ana 2 -> 1
    assert game.state()["palifico"] == "Ana"
    # Two 3s exactly (aces not wild): Ana's calza lifts her off one die.
    play(game, "Ana 1x3; Ben 2x3; Ana calza; reveal Ana:3 Ben:366 Caro:666 Dan:666")
    assert (game.dice("Ana"), game.turn, game.state()["palifico"]) == (2, "Ana", None)
    play(game, "Ana 9x2; Ben dudo; reveal Ana:66 Ben:666 Caro:666 Dan:666")  # Ana 2 -> 1
    assert (game.dice("Ana"), game.state()["palifico"], game.aces_wild) == (1, None, True)
    # Caro is to act; Ana doubts nine 3s out of turn and takes the die Ben loses.
    play(game, "Ana 1x3; Ben 9x3; Ana dudo; reveal Ana:6 Ben:666 Caro:666 Dan:666")
    assert dice_counts(game) == {"Ana": 2, "Ben": 2, "Caro": 3, "Dan": 3}
    assert (game.turn, game.state()["palifico"]) == ("Ben", None)
    play(game, "Ben 1x2; Caro 2x2; Dan 3x2; Ana 9x2; Ben dudo")
    play(game, "reveal Ana:66 Ben:66 Caro:666 Dan:666")  # Ana 2 -> 1 again
    assert dice_counts(game) == {"Ana": 1, "Ben": 2, "Caro": 3, "Dan": 3}
    assert game.dice_lost == 3
    assert (game.state()["palifico"], game.turn) == (palifico, "Ana")
    assert game.aces_wild is (palifico is None)


# -- RULES.md, jinto: "Wrong: the caller loses one. The winner starts next." -----------------


def test_a_wrong_jinto_taking_the_caller_to_one_die_makes_the_next_round_theirs(
    play: Script,
) -> None:
    """RULES.md, options table (jinto): palifico "every time a player goes 2 -> 1", opener
    "the one-die player, even though winners normally start"."""
    game = game_of("jinto", dice=2)
    play(game, "Ana 1x2; Ben calza; reveal Ana:66 Ben:66 Caro:66")  # no 2: not exact
    assert dice_counts(game) == {"Ana": 2, "Ben": 1, "Caro": 2}
    state = game.state()
    assert (state["palifico"], game.turn, state["aces_wild"]) == ("Ben", "Ben", False)


# -- RULES.md, exactomundo: "anyone except the player whose turn is next" --------------------


def test_exactomundo_when_the_next_player_leaves_the_one_after_becomes_next(
    play: Script,
) -> None:
    """RULES.md, Leaving the table: "if it was their turn the next player acts"."""
    game = game_of("payroodo", FOUR, exact_call="exactomundo")
    play(game, "Ana 2x3")
    assert game.can_call()["calza"] == ["Caro", "Dan"]
    play(game, "Ben leave")
    assert game.turn == "Caro"
    assert game.can_call()["calza"] == ["Dan"]
    refused_and_unrecorded(game, act("calza", "Caro"), "Caro is next to act")
    refused_and_unrecorded(game, act("calza", "Ben"), "Ben has left the table")
    play(game, "Dan calza; reveal Ana:33666 Caro:66666 Dan:66666")  # two 3s: exact
    assert dice_counts(game) == {"Ana": 5, "Ben": 0, "Caro": 5, "Dan": 5}
    assert (game.dice_lost, game.dice_left_with_players, game.turn) == (0, 5, "Dan")


# -- RULES.md, Leaving the table: "their dice leave play (they are not counted as lost)";
# Variants: "Lost dice visible (Asmodée online option): whether the table is shown how many
# dice remain" ---------------------------------------------------------------------------------


def test_a_table_hiding_the_lost_dice_still_keeps_the_account_of_moves_and_leavers(
    play: Script,
) -> None:
    """RULES.md, Common core: "the table cannot see how many remain. Tracking them is the
    referee's job"; cruzado "right: they take the die the bluffer loses"."""
    game = game_of("perudo", FOUR, lost_dice_visible=False, cruzado=True)
    play(game, "Ana 6x4; Caro dudo; reveal Ana:14456 Ben:23366 Caro:11256 Dan:22222")
    play(game, "Dan leave")
    shown = game.state()
    assert [p["dice"] for p in shown["players"]] == [None] * 4
    counts = ("dice_in_play", "dice_lost", "dice_regained", "dice_left_with_players")
    assert [shown[k] for k in counts] == [None] * 4
    assert [(p["out"], p["left"]) for p in shown["players"]][3] == (True, True)
    kept = game.state(referee=True)
    assert [p["dice"] for p in kept["players"]] == [4, 5, 6, 0]
    assert [kept[k] for k in counts] == [15, 0, 0, 5]
    assert kept["dice_in_play"] + kept["dice_lost"] + kept["dice_left_with_players"] == 20


# -- RULES.md, Leaving the table, beside palifico and its declaration -------------------------


def test_the_palifico_player_leaving_before_the_first_bid_leaves_a_closed_palifico_round(
    play: Script,
) -> None:
    """RULES.md, Leaving: "the round goes on, and if it was their turn the next player acts";
    Palifico: "without a declaration the round is closed"; "aces may be bid like any face,
    also as the opening bid"; the face is locked for players with more than one die."""
    game = game_of("dudo", dice=2)
    play(game, ANA_DOWN_TO_ONE)
    play(game, "Ana leave")
    state = game.state()
    assert (game.turn, state["palifico"], state["palifico_mode"]) == ("Ben", "Ana", "closed")
    refused_and_unrecorded(game, declare("Ana"), "Ana has left the table")
    refused_and_unrecorded(game, declare("Ben"), "only Ana declares")
    play(game, "Ben 1x1")
    refused_and_unrecorded(game, bid("Caro", 2, 2), "the face is locked to aces")
    play(game, "Caro 2x1; Ben dudo; reveal Ben:11 Caro:66")  # two aces: the bid stands
    assert dice_counts(game) == {"Ana": 0, "Ben": 1, "Caro": 2}
    assert game.dice_left_with_players == 1 and game.dice_lost == 2


def test_a_palifico_round_the_one_die_player_opens_with_a_pass(play: Script) -> None:
    """RULES.md, Pass: "A player may pass instead of bidding"; Palifico: the declaration comes
    "before the round's first bid"; "aces may be bid like any face, also as the opening bid";
    the one-die player "raises by the normal raise rule, with the ace as the lowest face"."""
    game = game_of("dudo", dice=2)
    play(game, ANA_DOWN_TO_ONE)
    play(game, "Ana pass")
    said = game.apply(declare("Ana"))  # a pass is no bid: not too late
    assert said[0].kind == "palifico_choice"
    play(game, "Ben 1x1; Caro 2x1")
    refused_and_unrecorded(game, declare("Ana", "closed"), "already declared the round open")
    refused_and_unrecorded(game, act("pass", "Ana"), "Ana has already passed this round")
    refused_and_unrecorded(game, bid("Ana", 1, 6), "quantity must rise")
    play(game, "Ana 2x2")  # same quantity, a face above the ace
    assert game.state()["palifico_mode"] == "open"
    refused_and_unrecorded(game, bid("Ben", 3, 1), "the face is locked to 2s")


def test_a_one_die_opener_outside_palifico_may_open_on_aces_but_declares_nothing(
    play: Script,
) -> None:
    """RULES.md, options table (dudo): open on aces "no, unless the opener has one die";
    palifico "first time (2 -> 1)"; the declaration is for a palifico round."""
    game = game_of("dudo", dice=2)
    play(game, ANA_DOWN_TO_ONE)
    # Ana's spot on (three 3s exactly, aces not wild) wins her die back; she falls again.
    play(game, "Ana 1x3; Ben 2x3; Caro 3x3; Ana calza; reveal Ana:3 Ben:33 Caro:66")
    play(game, "Ana 9x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")
    state = game.state()
    assert (game.dice("Ana"), game.turn, state["palifico"]) == (1, "Ana", None)
    refused_and_unrecorded(game, declare("Ana"), "this round is not a palifico round")
    game.check(bid("Ana", 1, 1))
    # The first bid is what may not be on aces: Ben, with two dice, opens after Ana's pass.
    play(game, "Ana pass")
    refused_and_unrecorded(game, bid("Ben", 1, 1), "only by a player with one die")


# -- RULES.md, Pass: "Two passes in a row are not allowed" and who opens after it ---------


def test_a_passer_knocked_out_by_a_called_bluff_hands_the_opening_to_their_left(
    play: Script,
) -> None:
    """RULES.md, Pass: "a bluff costs the passer a die"; next round "loser of the die (or left
    of them if out)"; a game started with one die each has no palifico."""
    game = game_of("dudo", FOUR, dice=1)
    play(game, "Ana 1x2; Ben pass; Caro dudo; reveal Ben:3")  # one die: never a real pass
    assert dice_counts(game) == {"Ana": 1, "Ben": 0, "Caro": 1, "Dan": 1}
    assert (game.turn, game.state()["palifico"]) == ("Caro", None)


def test_a_pass_still_stands_when_the_next_player_leaves(play: Script) -> None:
    """RULES.md, Pass: "Two passes in a row are not allowed ... The next player cannot doubt
    the standing bid then"; Leaving: "if it was their turn the next player acts"."""
    game = game_of("dudo", FOUR)
    play(game, "Ana 3x4; Ben pass; Caro leave")
    assert game.turn == "Dan"
    refused_and_unrecorded(game, act("pass", "Dan"), "two passes in a row")
    refused_and_unrecorded(game, act("calza", "Dan"), "only a raise or a call on the pass")
    play(game, "Dan dudo")
    assert game.expected_dice() == {"Ben": 5}  # the pass is called, not the bid


# -- RULES.md, Bids have no upper bound, in a palifico round ---------------------------------


def test_a_palifico_bid_above_the_dice_in_play_whose_bidder_leaves_may_be_doubted_or_raised(
    play: Script,
) -> None:
    """RULES.md: "A bid above the dice in play is legal"; "The generator of legal next bids
    ... offer quantities up to the dice in play"; the face is locked in palifico."""
    game = game_of("perudo", dice=2)
    play(game, ANA_DOWN_TO_ONE)
    play(game, "Ana 9x3")  # 5 dice in play
    assert game.legal_bids() == []  # Ben may doubt: no raise fits under 5 dice
    game.check(bid("Ben", 10, 3))
    refused_and_unrecorded(game, bid("Ben", 10, 4), "the face is locked to 3s")
    play(game, "Ana leave")
    # Ben may doubt the bid of a player who left (settled as any other) or raise it, above
    # the dice in play: no raise is offered, as for any bid no raise fits under them.
    assert game.state()["can_call"]["dudo"] == ["Ben"] and game.legal_bids() == []
    play(game, "Ben 10x3; Caro dudo; reveal Ben:33 Caro:11")  # two 3s: Ben 2 -> 1
    assert dice_counts(game) == {"Ana": 0, "Ben": 1, "Caro": 2}
    assert (game.state()["palifico"], game.turn) == ("Ben", "Ben")


# -- RULES.md, options: `raise = quantity` with `to_aces = half_plus_one` ---------------------


@pytest.mark.parametrize(
    ("bids", "legal", "illegal"),
    [("Ana 8x4", ["5x1", "9x2"], ["4x1", "8x6"]),
     ("Ana 7x4", ["4x1"], ["3x1"]),
     ("Ana 8x4; Ben 5x1", ["6x1", "11x2", "11x6"], ["5x1", "10x6"])],
    ids=["half plus one of eight", "half plus one of seven", "leaving aces"],
)  # fmt: skip
def test_the_house_raise_with_half_plus_one_to_aces(
    bids: str, legal: list[str], illegal: list[str], play: Script
) -> None:
    """RULES.md, options: `raise` `quantity` ("quantity must go up; face free"), `to_aces`
    `half_plus_one` ("floor(q/2)+1"), leave aces ">= 2q+1 of any face"."""
    game = game_of("jinto", to_aces="half_plus_one")
    play(game, bids)
    player = game.turn or ""
    for text in legal:
        q, f = map(int, text.split("x"))
        game.check(bid(player, q, f))
    for text in illegal:
        q, f = map(int, text.split("x"))
        refused_and_unrecorded(game, bid(player, q, f), f"^illegal bid {q}x{f} over ")


# -- DESIGN.md: "A rejected action changes nothing and returns a clear reason" -----------------


@pytest.mark.parametrize(
    ("preset", "options", "script", "action", "reason"),
    [("payroodo", {"exact_call": "exactomundo"}, "", act("calza", "Ben"),
      "no bid yet: exactomundo is called on a standing bid"),
     ("perudo", {"exact_call": "jinto"}, "Ana 2x3", act("calza", "Caro"),
      "only the next player may call jinto: Ben acts"),
     ("perudo", {"exact_call": "calza", "pass": True}, "Ana 3x4; Ben pass", act("calza", "Ana"),
      "Ana may not call calza on their own bid"),
     ("dudo", {}, "Ana 3x4; Ben pass", act("dudo", "Ana"),
      "after Ben's pass only Caro may call it"),
     ("dudo", {"dice": 2}, ANA_DOWN_TO_ONE, declare("Ben"),
      "only Ana declares this palifico round"),
     ("perudo", {"exact_call": "calza"}, "Ana 2x3; Ben dudo", act("calza", "Caro"),
      "no exact call during the reveal")],
    ids=["exactomundo before any bid", "jinto out of turn", "calza on your own bid",
         "a cruzado doubt after a pass", "another player declares the palifico",
         "calza after dudo"],
)  # fmt: skip
def test_a_refusal_names_its_reason_and_changes_nothing(
    preset: str,
    options: dict[str, Any],
    script: str,
    action: dict[str, Any],
    reason: str,
    play: Script,
) -> None:
    game = game_of(preset, **options)
    play(game, script)
    refused_and_unrecorded(game, action, f"^{reason}")


def test_a_refusal_through_the_table_changes_nothing(table: Table) -> None:
    """DESIGN.md: "Every change of the game ... goes through Table.submit(action) ... A rejected
    action changes nothing and returns a clear reason"."""
    header = {"game": "dudo-record/1", "rules": "dudo", "players": THREE, "options": {"dice": 2}}
    assert table.new_game(header).ok
    for step in ("Ana 1x2", "Ben dudo"):
        name, what = step.split()
        action = act(what, name) if what == "dudo" else bid(name, 1, 2)
        assert table.submit(action).ok
    assert table.submit({"action": "reveal", "dice": {n: [6, 6] for n in THREE}}).ok
    before = table.state()
    outcome = table.submit(declare("Caro"))
    assert not outcome.ok
    assert outcome.error == "only Ana declares this palifico round"
    assert table.state() == before


# -- Two points RULES.md leaves open, as the README's decisions settle them -------------------


def test_losing_the_difference_a_wrong_cruzado_costs_its_caller_one_die(play: Script) -> None:
    """RULES.md, Variants: cruzado "wrong: they lose one", beside the difference for "a failed
    doubt" (README, decisions: one die)."""
    game = game_of("perudo", dice=3, loss="difference", cruzado=True)
    # One 4 bid, six on the table: Caro's out-of-turn doubt fails by five, and costs one.
    play(game, "Ana 1x4; Caro dudo; reveal Ana:444 Ben:444 Caro:666")
    assert dice_counts(game) == {"Ana": 3, "Ben": 3, "Caro": 2}


def test_spot_on_counts_a_leaver_s_dice_among_the_starting_dice(play: Script) -> None:
    """RULES.md, spot on: "only while more than half of the starting dice are still on the
    table"; Leaving: "their dice leave play" (README, decisions: they still count among the
    dice at the start). Four players of two dice: 8 at the start, Dan leaves with 2."""
    game = game_of("dudo", FOUR, dice=2)
    play(game, "Dan leave")
    play(game, "Ana 1x5; Ben dudo; reveal Ana:66 Ben:66 Caro:66")  # Ana loses one: 5 in play
    play(game, "Ana 1x5; Ben dudo; reveal Ana:6 Ben:66 Caro:66")  # Ana is out: 4 in play
    assert dice_counts(game) == {"Ana": 0, "Ben": 2, "Caro": 2, "Dan": 0}
    # 4 of 8 is not more than half (of the 6 the three players started with, it would be).
    opener = game.turn
    assert opener == "Ben"
    play(game, "Ben 1x5")
    refused(game, {"action": "calza", "player": "Caro"}, "half")
