"""A second audit of the referee against RULES.md: the corners the engine tests leave open.

Every expectation below is worked out by hand from RULES.md (the authority, its
**Decision**s included), never copied from the engine. Games are built from a record header
and driven with record actions (``dudo replay``'s path), a few through ``Table.submit``.
Each test names the RULES.md passage it checks.

Script notation (one record action per ``;``): ``NAME QxF`` bid, ``NAME dudo|calza|pass|leave``,
``reveal NAME:FACES NAME:FACES ...``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from companion.errors import MalformedAction
from companion.game import Game
from companion.record import dumps, replay
from companion.table import Table
from tests.engine.conftest import dice_counts, refused

THREE = ["Ana", "Ben", "Caro"]
FOUR = ["Ana", "Ben", "Caro", "Dan"]


def header(preset: str, players: list[str], options: dict[str, Any] | None) -> dict[str, Any]:
    head: dict[str, Any] = {"game": "dudo-record/1", "rules": preset, "players": players}
    if options:
        head["options"] = options
    return head


def new(preset: str = "perudo", players: list[str] = THREE, **options: Any) -> Game:
    """A game started the way ``dudo replay`` starts one: from a record header line.

    ``pass_`` stands for the option ``pass`` (a Python keyword)."""
    if "pass_" in options:
        options["pass"] = options.pop("pass_")
    return replay([json.dumps(header(preset, players, options))])


def actions(script: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for step in filter(None, (s.strip() for s in script.split(";"))):
        words = step.split()
        if words[0] == "reveal":
            dice = {}
            for part in words[1:]:
                name, faces = part.split(":")
                dice[name] = [int(c) for c in faces]
            found.append({"action": "reveal", "dice": dice})
        elif "x" in words[1]:
            q, f = words[1].split("x")
            found.append({"action": "bid", "player": words[0], "quantity": int(q),
                          "face": int(f)})  # fmt: skip
        else:
            found.append({"action": words[1], "player": words[0]})
    return found


def play(game: Game, script: str) -> Game:
    for action in actions(script):
        game.apply(action)
    # Whatever was played must replay to the same position (the record is the truth).
    assert replay(dumps(game).splitlines()).state() == game.state()
    return game


def bid(player: str, quantity: int, face: int) -> dict[str, Any]:
    return {"action": "bid", "player": player, "quantity": quantity, "face": face}


def act(kind: str, player: str) -> dict[str, Any]:
    return {"action": kind, "player": player}




# -- Exact calls: "the caller opens the next round, whether right or wrong" ---------------------
#
# RULES.md, Exact calls: "**Decision**, for every exact call: the caller opens the next round,
# whether right or wrong (jinto: the winner, as its preset says; ...)". Only jinto is excepted:
# a table that plays calza, spot on or exactomundo with ``starter: winner`` still hands the
# next round to the caller, also when the caller was wrong (and the bidder "won").

# preset, options, bids, caller: the caller is wrong (three 3s on the table, two bid).
WRONG_EXACT = {
    "calza": ("perudo", {"exact_call": "calza"}, "Ana 2x3", "Caro"),
    "spot_on": ("dudo", {}, "Ana 2x3", "Ben"),
    "exactomundo": ("payroodo", {"exact_call": "exactomundo"}, "Ana 2x3", "Caro"),
}
THREE_3S = "reveal Ana:33366 Ben:66666 Caro:66666"
TWO_3S = "reveal Ana:33666 Ben:66666 Caro:66666"


@pytest.mark.parametrize("exact_call", list(WRONG_EXACT))
@pytest.mark.parametrize("right", [False, True], ids=["wrong", "right"])
def test_exact_call_under_starter_winner_the_caller_still_opens_the_next_round(
    exact_call: str, right: bool
) -> None:
    preset, options, bids, caller = WRONG_EXACT[exact_call]
    game = new(preset, **options, starter="winner")
    play(game, f"{bids}; {caller} calza; {TWO_3S if right else THREE_3S}")
    assert game.dice(caller) == (5 if right else 4)
    assert game.dice("Ana") == 5  # the bidder never loses a die to these calls
    assert game.turn == caller


def test_exact_call_jinto_preset_wrong_call_the_winner_bidder_opens() -> None:
    # The one exception of the Decision: the house's winner (the bidder) opens.
    game = new("jinto")
    play(game, "Ana 2x3; Ben calza; reveal Ana:333 Ben:666 Caro:666")
    assert dice_counts(game) == {"Ana": 3, "Ben": 2, "Caro": 3}
    assert game.turn == "Ana"


@pytest.mark.parametrize(
    ("reveal", "dice", "opener"),
    [(THREE_3S, {"Ana": 5, "Ben": 4, "Caro": 5}, "Ana"),
     (TWO_3S, {"Ana": 4, "Ben": 6, "Caro": 5}, "Ben")],
    ids=["wrong: the bidder", "right: the caller"],
)  # fmt: skip
def test_jinto_exact_call_at_a_loser_starts_table_the_winner_opens(
    reveal: str, dice: dict[str, int], opener: str
) -> None:
    # RULES.md: jinto "... The winner starts next", and the Decision's "(jinto: the winner)":
    # the call's own rule, whatever the table's `starter` option says of other rounds.
    game = new("perudo", exact_call="jinto")
    play(game, f"Ana 2x3; Ben calza; {reveal}")
    assert dice_counts(game) == dice
    assert game.turn == opener


@pytest.mark.parametrize(
    ("caller", "opener"),
    [("Ben", "Caro"), ("Caro", "Ana")],
    ids=["next player out: left of them", "a later player out: left of them"],
)
def test_a_wrong_calza_knocking_out_its_caller_hands_the_opening_to_their_left(
    caller: str, opener: str
) -> None:
    # RULES.md: the caller opens; a player knocked out is replaced by the one on their left.
    game = new("perudo", exact_call="calza", dice=1)
    play(game, f"Ana 1x2; {caller} calza; reveal Ana:3 Ben:4 Caro:5")
    assert game.dice(caller) == 0
    assert game.turn == opener
    assert game.state()["palifico"] is None


def test_exact_calls_with_two_players_left() -> None:
    # exactomundo: "anyone except the player whose turn is next", never the bidder: nobody.
    game = play(new("payroodo", ["Ana", "Ben"], exact_call="exactomundo"), "Ana 2x3")
    assert game.can_call()["calza"] == []
    refused(game, act("calza", "Ben"), "next to act")
    refused(game, act("calza", "Ana"), "own bid")
    # calza: anyone but the bidder: the other player.
    game = play(new("perudo", ["Ana", "Ben"], exact_call="calza"), "Ana 2x3")
    assert game.can_call()["calza"] == ["Ben"]


def test_a_wrong_exact_call_costs_one_die_even_when_losing_the_difference() -> None:
    # RULES.md: calza "Wrong: caller loses a die"; the difference is for a failed bid or doubt.
    game = new("perudo", exact_call="calza", loss="difference")
    play(game, "Ana 2x4; Caro calza; reveal Ana:44444 Ben:11111 Caro:66666")  # ten 4s
    assert dice_counts(game) == {"Ana": 5, "Ben": 5, "Caro": 4}


# -- Palifico ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trigger", "palifico"), [("every_time", "Ben"), ("once", None)], ids=["every_time", "once"]
)
def test_palifico_a_game_started_with_one_die_gets_one_only_under_every_time(
    trigger: str, palifico: str | None
) -> None:
    # RULES.md, Palifico: "a game started with one die each has no palifico until someone
    # regains a die and loses it again (`every_time`)"; options table: `once` is "first time
    # a player is on one die", and every player was on one die from the start.
    game = new("perudo", FOUR, dice=1, exact_call="jinto", palifico=trigger)
    # An exact jinto (no calza: nothing about a second palifico): Ben takes Ana's die.
    play(game, "Ana 1x2; Ben calza; reveal Ana:2 Ben:5 Caro:6 Dan:6")
    assert dice_counts(game) == {"Ana": 0, "Ben": 2, "Caro": 1, "Dan": 1}
    assert game.turn == "Ben"
    play(game, "Ben 3x3; Caro dudo; reveal Ben:44 Caro:4 Dan:4")  # Ben falls 2 -> 1
    assert game.dice("Ben") == 1
    assert game.state()["palifico"] == palifico
    assert game.aces_wild is (palifico is None)


def test_palifico_player_knocked_out_in_their_round_the_house_winner_opens_a_normal_round() -> None:
    game = new("jinto", dice=2)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")  # Ana 2 -> 1
    assert (game.state()["palifico"], game.turn) == ("Ana", "Ana")
    play(game, "Ana 1x4; Ben dudo; reveal Ana:5 Ben:66 Caro:66")  # no 4: Ana is out
    state = game.state()
    assert game.dice("Ana") == 0
    assert (state["palifico"], state["aces_wild"], game.turn) == (None, True, "Ben")


def test_palifico_player_knocked_out_by_their_own_wrong_calza_left_of_them_opens() -> None:
    game = new("perudo", dice=2, exact_call="calza")
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")
    play(game, "Ana 1x3; Ben 2x3; Ana calza; reveal Ana:3 Ben:66 Caro:11")  # one 3, aces not wild
    assert dice_counts(game) == {"Ana": 0, "Ben": 2, "Caro": 2}
    state = game.state()
    assert (game.turn, state["palifico"], state["aces_wild"]) == ("Ben", None, True)


def test_palifico_with_two_players_left_opens_on_aces_and_locks_the_face() -> None:
    game = new("perudo", ["Ana", "Ben"], dice=2)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66")
    assert (game.state()["palifico"], game.turn) == ("Ana", "Ana")
    play(game, "Ana 1x1")
    refused(game, bid("Ben", 2, 2), "the face is locked to aces")
    play(game, "Ben 2x1; Ana dudo; reveal Ana:1 Ben:16")  # two aces: the bid stands
    assert (game.phase, game.winner) == ("over", "Ben")


def test_palifico_face_change_with_quantity_raises_still_needs_more_dice() -> None:
    # RULES.md: "a player allowed to change the face raises by the normal raise rule": under
    # `raise: quantity` that means a higher quantity, the ace being the lowest face.
    game = new("jinto", dice=2, palifico_face_change="one_die")
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")
    assert (game.state()["palifico"], game.turn) == ("Ana", "Ana")
    play(game, "Ana 1x3; Ben 2x3")
    refused(game, bid("Caro", 3, 4), "the face is locked to 3s")  # two dice: locked
    play(game, "Caro 3x3")
    refused(game, bid("Ana", 3, 4), "quantity must rise")
    game.check(bid("Ana", 4, 1))
    play(game, "Ana 4x4")
    refused(game, bid("Ben", 5, 5), "the face is locked to 4s")


def test_palifico_losing_the_difference_from_two_dice_to_none_skips_the_palifico() -> None:
    # RULES.md: "Only losing a die down to one triggers it"; lose-the-difference can skip one.
    game = new("perudo", dice=2, loss="difference")
    play(game, "Ana 1x4; Ben dudo; reveal Ana:44 Ben:44 Caro:44")  # six 4s: Ben owes 5, has 2
    assert dice_counts(game) == {"Ana": 2, "Ben": 0, "Caro": 2}
    assert game.state()["palifico"] is None
    assert game.turn == "Caro"  # Ben is out: the player on his left opens
    assert game.dice_lost == 2


# -- Who opens when the loser is out ---------------------------------------------------------------


def test_the_left_neighbour_of_a_knocked_out_loser_who_left_the_table_is_skipped() -> None:
    game = new("perudo", FOUR, dice=1)
    play(game, "Dan leave; Ana 1x2; Ben 2x2; Caro dudo; reveal Ana:2 Ben:2 Caro:3")
    assert dice_counts(game) == {"Ana": 1, "Ben": 1, "Caro": 0, "Dan": 0}
    assert game.turn == "Ana"


def test_a_right_dudo_cruzado_knocking_out_the_bidder_left_of_the_bidder_opens() -> None:
    game = new("perudo", FOUR, dice=1, cruzado=True)
    play(game, "Ana 1x2; Caro dudo; reveal Ana:3 Ben:3 Caro:3 Dan:3")
    assert dice_counts(game) == {"Ana": 0, "Ben": 1, "Caro": 2, "Dan": 1}
    assert game.turn == "Ben"
    assert game.dice_lost == 0  # Caro took the die Ana lost


def test_alternating_direction_a_knocked_out_loser_is_replaced_by_their_left_neighbour() -> None:
    # RULES.md: "loser of the die (or left of them if out)"; the round then runs anticlockwise.
    game = new("payroodo", FOUR, dice=1, direction="alternating")
    play(game, "Ana 1x2; Ben dudo; reveal Ana:3 Ben:3 Caro:3 Dan:3")  # Ana is out
    assert game.turn == "Ben"
    play(game, "Ben 1x3")
    assert game.turn == "Dan"  # anticlockwise, past the empty seat of Ana


# -- Losing the difference and dudo cruzado --------------------------------------------------------


def test_losing_the_difference_knocks_out_the_bidder_and_their_left_neighbour_opens() -> None:
    game = new("perudo", dice=2, loss="difference")
    play(game, "Ana 6x4; Ben dudo; reveal Ana:44 Ben:23 Caro:56")  # two 4s: four short
    assert dice_counts(game) == {"Ana": 0, "Ben": 2, "Caro": 2}
    assert (game.turn, game.state()["palifico"], game.dice_lost) == ("Ben", None, 2)


def test_a_right_dudo_cruzado_losing_the_difference_the_doubter_takes_one_of_the_dice() -> None:
    game = new("perudo", cruzado=True, loss="difference")
    # Five 4s with wild aces; eight bid: Ana loses three, Caro takes one of them.
    play(game, "Ana 8x4; Caro dudo; reveal Ana:14456 Ben:23366 Caro:11256")
    assert dice_counts(game) == {"Ana": 2, "Ben": 5, "Caro": 6}
    assert (game.dice_lost, game.turn) == (2, "Ana")


# -- Pass ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "loser", "opener"),
    [("22333", "Caro", "Ben"), ("12245", "Ben", "Caro")],
    ids=["real pass: the passer won", "bluff: the caller won"],
)
def test_pass_called_under_starter_winner_the_winner_opens(
    hand: str, loser: str, opener: str
) -> None:
    game = new("dudo", starter="winner")
    play(game, f"Ana 3x4; Ben pass; Caro dudo; reveal Ben:{hand}")
    assert dice_counts(game) == {n: 4 if n == loser else 5 for n in THREE}
    assert game.turn == opener


def test_pass_a_called_bluff_costs_one_die_even_when_losing_the_difference() -> None:
    game = new("dudo", loss="difference")
    play(game, "Ana 3x4; Ben pass; Caro dudo; reveal Ana:66666 Ben:12245 Caro:66666")
    assert dice_counts(game) == {"Ana": 5, "Ben": 4, "Caro": 5}


def test_pass_in_a_palifico_round_the_next_player_raises_on_the_locked_face() -> None:
    game = new("dudo", dice=2)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")  # Ana's palifico
    play(game, "Ana 1x3; Ben pass")
    refused(game, act("dudo", "Ana"), "only Caro may call it")
    refused(game, bid("Caro", 2, 4), "the face is locked to 3s")
    play(game, "Caro dudo; reveal Ben:36")  # a two-dice hand is never a qualifying pass
    assert dice_counts(game) == {"Ana": 1, "Ben": 1, "Caro": 2}


# -- Leaving the table ---------------------------------------------------------------------------


def test_leaving_the_opener_leaves_before_bidding_the_next_player_opens_without_aces() -> None:
    game = play(new("perudo"), "Ana leave")
    assert game.turn == "Ben"
    refused(game, bid("Ben", 1, 1), "may not open on aces")
    play(game, "Ben 1x2")
    assert game.turn == "Caro"


def test_leaving_during_the_reveal_the_leavers_dice_are_not_counted() -> None:
    game = new("perudo")
    play(game, "Ana 3x4; Ben dudo; Caro leave; reveal Ana:44111 Ben:23456")  # six 4s
    assert dice_counts(game) == {"Ana": 5, "Ben": 4, "Caro": 0}
    assert (game.dice_in_play, game.dice_lost, game.dice_left_with_players) == (9, 1, 5)
    assert game.turn == "Ben"


def test_leaving_the_palifico_player_leaves_and_the_palifico_round_goes_on() -> None:
    # RULES.md: "the round goes on, and if it was their turn the next player acts".
    game = new("perudo", dice=2)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")
    play(game, "Ana leave")
    assert game.turn == "Ben"
    assert game.aces_wild is False
    # One 3 and one ace: two 3s are false while aces are not wild.
    play(game, "Ben 2x3; Caro dudo; reveal Ben:13 Caro:66")
    assert dice_counts(game) == {"Ana": 0, "Ben": 1, "Caro": 2}
    assert (game.state()["palifico"], game.turn) == ("Ben", "Ben")


def test_leaving_through_the_table_hands_the_turn_on_and_the_last_player_wins(
    table: Table,
) -> None:
    assert table.new_game(header("jinto", THREE, None)).ok
    assert table.submit(bid("Ana", 2, 3)).ok
    outcome = table.submit(act("leave", "Ben"))
    assert outcome.ok and outcome.state["turn"] == "Caro"
    assert outcome.state["dice_lost"] == 0
    outcome = table.submit(act("dudo", "Caro"))
    assert outcome.ok and outcome.state["phase"] == "reveal"
    outcome = table.submit(act("leave", "Caro"))
    assert outcome.ok
    assert (outcome.state["phase"], outcome.state["winner"]) == ("over", "Ana")


# -- Raises, through the table ---------------------------------------------------------------------


def test_worked_example_5_through_the_table_the_refusal_names_the_reason(table: Table) -> None:
    assert table.new_game(header("jinto", FOUR, None)).ok
    assert table.submit(bid("Ana", 4, 3)).ok
    before = table.state()
    outcome = table.submit(bid("Ben", 4, 6))
    assert not outcome.ok
    assert outcome.error == "illegal bid 4x6 over 4x3: quantity must rise"
    assert table.state()["version"] == before["version"]
    assert table.submit(bid("Ben", 5, 6)).ok


def test_worked_example_4_through_the_table_the_caller_loses_and_opens(table: Table) -> None:
    assert table.new_game(header("perudo", THREE, None)).ok
    for action in actions("Ana 4x5; Ben dudo; reveal Ana:55516 Ben:12346 Caro:23462"):
        assert table.submit(action).ok
    state = table.state()
    assert [p["dice"] for p in state["players"]] == [5, 4, 5]
    assert (state["turn"], state["last_result"]["count"]) == ("Ben", 5)


# -- Bids have no upper bound: what the generator offers ------------------------------------------


def test_the_generator_offers_no_quantity_above_the_dice_in_play() -> None:
    # RULES.md: "The generator of legal next bids, the bid dial and the page's picker offer
    # quantities up to the dice in play." Ben may doubt the bid, so nothing forces a raise.
    game = play(new("perudo"), "Ana 31x6")
    assert "Ben" in game.can_call()["dudo"]
    assert [b for b in game.legal_bids() if b.quantity > game.dice_in_play] == []


# -- Option names: clear errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [({"pass": "true"}, "option pass: unknown value 'true'"),
     ({"dice": 5.0}, "option dice: unknown value 5.0"),
     ({"starter": "Winner"}, "option starter: unknown value 'Winner'"),
     ({"direction": "anticlockwise"}, "option direction: unknown value 'anticlockwise'"),
     ({"to_aces": "floor_half"}, "option to_aces: unknown value 'floor_half'")],
)  # fmt: skip
def test_option_values_of_the_wrong_spelling_or_type_are_refused(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(MalformedAction, match=message):
        replay([json.dumps(header("perudo", THREE, options))])


# -- Options a table may change on any preset ----------------------------------------------------


def test_open_on_aces_one_die_on_the_default_preset_outside_palifico() -> None:
    # `open_on_aces: one_die`: "only by a player with one die" (here no palifico at all).
    game = new("perudo", dice=2, palifico="none", open_on_aces="one_die")
    refused(game, bid("Ana", 1, 1), "only by a player with one die")
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")  # Ana 2 -> 1
    assert (game.turn, game.state()["palifico"], game.aces_wild) == ("Ana", None, True)
    play(game, "Ana 1x1")
    refused(game, bid("Ben", 1, 2), "leaving aces needs at least 3x2")  # aces still wild


def test_wild_aces_off_an_ace_counts_only_for_aces() -> None:
    game = new("perudo", wild_aces=False)
    play(game, "Ana 2x3; Ben dudo; reveal Ana:31111 Ben:66666 Caro:66666")  # one 3
    assert game.state()["last_result"]["count"] == 1
    assert dice_counts(game) == {"Ana": 4, "Ben": 5, "Caro": 5}
