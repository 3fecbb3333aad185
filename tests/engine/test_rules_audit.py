"""An audit of the referee against RULES.md, sentence by sentence.

Each test names the RULES.md section it checks (``RULES.md, <section>``); the expected
outcomes are worked out by hand from RULES.md, never copied from the engine. Scripts use
the notation of ``conftest.py`` (``"Ana 3x4; Ben dudo; reveal Ana:14456 ..."``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.announcement import Announcement
from companion.cli import main
from companion.errors import MalformedAction
from companion.game import Game
from companion.record import replay
from companion.rules import OPTIONS, make_rules
from tests.engine.conftest import dice_counts, refused

Script = Callable[[Game, str], list[Announcement]]
THREE = ["Ana", "Ben", "Caro"]
FOUR = ["Ana", "Ben", "Caro", "Dan"]


def game_of(preset: str, players: list[str] = THREE, **options: Any) -> Game:
    return Game(make_rules(preset, options), players)


def bid(player: str, quantity: int, face: int) -> dict[str, Any]:
    return {"action": "bid", "player": player, "quantity": quantity, "face": face}


def act(kind: str, player: str) -> dict[str, Any]:
    return {"action": kind, "player": player}




# -- RULES.md, Common core -----------------------------------------------------------------


@pytest.mark.parametrize(("preset", "dice"), [("perudo", 5), ("dudo", 5), ("payroodo", 5),
                                              ("jinto", 3)])  # fmt: skip
def test_common_core_each_player_starts_with_n_dice_five_or_the_houses_three(
    preset: str, dice: int
) -> None:
    state = game_of(preset).state()
    assert [p["dice"] for p in state["players"]] == [dice] * 3
    assert state["dice_in_play"] == 3 * dice


def test_common_core_turn_passes_to_the_left_clockwise(play: Script) -> None:
    game = game_of("perudo", FOUR)
    turns = [game.turn]
    for step in ("Ana 1x2", "Ben 2x2", "Caro 3x2", "Dan 4x2"):
        play(game, step)
        turns.append(game.turn)
    assert turns == ["Ana", "Ben", "Caro", "Dan", "Ana"]


@pytest.mark.parametrize(
    "action",
    [bid("Caro", 3, 3), act("dudo", "Caro"), act("dudo", "Ana"), bid("Ana", 3, 3)],
    ids=["a later player bids", "a later player doubts", "the bidder doubts",
         "the bidder raises"],
)  # fmt: skip
def test_common_core_only_the_player_after_the_bidder_raises_or_calls_dudo(
    action: dict[str, Any], play: Script
) -> None:
    game = game_of("perudo")
    play(game, "Ana 2x3")
    refused(game, action)
    game.check(bid("Ben", 3, 3))
    game.check(act("dudo", "Ben"))


@pytest.mark.parametrize(
    ("quantity", "loser"),
    [(4, "Ben"), (5, "Ben"), (6, "Ana")],
    ids=["count above the bid", "count equal to the bid", "count below the bid"],
)
def test_common_core_dudo_costs_the_caller_if_count_reaches_quantity_else_the_bidder(
    quantity: int, loser: str, play: Script
) -> None:
    game = game_of("perudo")
    # Fives with wild aces: Ana 2 (5, 1), Ben 1, Caro 2 (1, 1): five.
    play(game, f"Ana {quantity}x5; Ben dudo; reveal Ana:15234 Ben:52346 Caro:11234")
    assert dice_counts(game) == {name: 4 if name == loser else 5 for name in THREE}
    assert game.dice_lost == 1


def test_common_core_a_player_with_no_dice_is_out_and_the_last_with_dice_wins(
    play: Script,
) -> None:
    game = game_of("perudo", dice=1)
    play(game, "Ana 2x3; Ben dudo; reveal Ana:3 Ben:4 Caro:5")
    state = game.state()
    assert [p["out"] for p in state["players"]] == [True, False, False]
    assert state["phase"] == "bidding"
    play(game, "Ben 1x6; Caro dudo; reveal Ben:2 Caro:3")
    state = game.state()
    assert (state["phase"], state["winner"], state["turn"]) == ("over", "Caro", None)


# -- RULES.md, Options, and which preset sets what ------------------------------------------


@pytest.mark.parametrize(
    ("preset", "players", "seated"),
    [("perudo", 6, True), ("perudo", 7, False), ("dudo", 12, True), ("payroodo", 6, True),
     ("payroodo", 7, False), ("jinto", 20, True), ("jinto", 21, False), ("perudo", 1, False),
     ("dudo", 1, False), ("jinto", 1, False)],
)  # fmt: skip
def test_options_table_each_preset_seats_its_number_of_players(
    preset: str, players: int, seated: bool
) -> None:
    names = [f"P{i}" for i in range(1, players + 1)]
    if seated:
        assert Game(make_rules(preset), names).players == names
    else:
        said = f"{players} player{'' if players == 1 else 's'}:"
        with pytest.raises(MalformedAction, match=said):
            Game(make_rules(preset), names)


@pytest.mark.parametrize("preset", ["perudo", "dudo", "payroodo", "jinto"])
def test_options_table_the_roll_off_winner_named_first_opens_else_player_1(preset: str) -> None:
    header = {"game": "dudo-record/1", "rules": preset, "players": THREE}
    assert replay([json.dumps(header)]).turn == "Ana"
    # A record replays as written, a jinto one naming another than player 1 too (the page
    # let a table pick one until session 47); a new jinto game may not (test_errors.py).
    assert replay([json.dumps({**header, "first": "Caro"})]).turn == "Caro"


@pytest.mark.parametrize(
    ("preset", "legal", "illegal"),
    [("perudo", [(5, 4), (6, 2)], [(5, 2), (4, 6)]),
     ("dudo", [(5, 4), (6, 2)], [(5, 2), (4, 6)]),
     ("payroodo", [(5, 4), (6, 2)], [(5, 2), (4, 6)]),
     ("jinto", [(6, 2), (6, 3)], [(5, 4), (5, 6)])],
)  # fmt: skip
def test_options_table_raise_quantity_or_face_but_the_house_only_by_quantity(
    preset: str, legal: list[tuple[int, int]], illegal: list[tuple[int, int]], play: Script
) -> None:
    game = game_of(preset)
    play(game, "Ana 5x3")
    for q, f in legal:
        game.check(bid("Ben", q, f))
    for q, f in illegal:
        refused(game, bid("Ben", q, f))


@pytest.mark.parametrize(
    ("preset", "over", "least"),
    [("perudo", 8, 4), ("dudo", 8, 4), ("payroodo", 8, 5), ("jinto", 8, 4),
     ("perudo", 9, 5), ("dudo", 9, 5), ("payroodo", 9, 5), ("jinto", 9, 5)],
)  # fmt: skip
def test_options_table_bid_aces_from_a_face_bid_ceil_half_or_half_plus_one(
    preset: str, over: int, least: int, play: Script
) -> None:
    game = game_of(preset)
    play(game, f"Ana {over}x4")
    game.check(bid("Ben", least, 1))
    refused(game, bid("Ben", least - 1, 1), f"going to aces needs at least {least}x1")


@pytest.mark.parametrize("preset", ["perudo", "dudo", "payroodo", "jinto"])
def test_options_table_leave_aces_with_twice_plus_one_of_any_face(
    preset: str, play: Script
) -> None:
    game = game_of(preset)
    play(game, "Ana 3x2; Ben 3x1")
    for face in range(2, 7):
        game.check(bid("Caro", 7, face))
        refused(game, bid("Caro", 6, face))
    game.check(bid("Caro", 4, 1))


@pytest.mark.parametrize(
    ("preset", "opener_dice", "may_open_on_aces"),
    [("perudo", 5, False), ("perudo", 1, False), ("dudo", 5, False), ("dudo", 1, True),
     ("payroodo", 5, False), ("payroodo", 1, False), ("jinto", 3, False), ("jinto", 1, False)],
)  # fmt: skip
def test_options_table_open_a_round_on_aces_only_by_a_one_die_opener_in_dudo(
    preset: str, opener_dice: int, may_open_on_aces: bool
) -> None:
    # A game started with one die each has no palifico: this round is a normal round.
    game = game_of(preset, dice=opener_dice)
    assert game.state()["palifico"] is None
    if may_open_on_aces:
        game.check(bid("Ana", 1, 1))
    else:
        refused(game, bid("Ana", 1, 1), "open on aces")
    game.check(bid("Ana", 1, 2))


@pytest.mark.parametrize(
    ("preset", "exact_call", "has_pass"),
    [("perudo", "none", False), ("dudo", "spot_on", True), ("payroodo", "none", False),
     ("jinto", "jinto", False)],
)  # fmt: skip
def test_options_table_each_presets_exact_call_and_pass(
    preset: str, exact_call: str, has_pass: bool, play: Script
) -> None:
    game = game_of(preset)
    play(game, "Ana 1x2")
    can = game.can_call()
    assert (can["calza"] == ["Ben"]) is (exact_call in ("spot_on", "jinto"))
    assert (can["pass"] == ["Ben"]) is has_pass
    if exact_call == "none":
        refused(game, act("calza", "Ben"), "no exact call at this table")
    if not has_pass:
        refused(game, act("pass", "Ben"), "no pass at this table")


@pytest.mark.parametrize(
    ("preset", "opener"),
    [("perudo", "Ben"), ("dudo", "Ben"), ("payroodo", "Ben"), ("jinto", "Ana"),
     ("perudo", "Caro"), ("jinto", "Ana")],
    ids=["perudo loser", "dudo loser", "payroodo loser", "jinto winner",
         "perudo loser out: left of them", "jinto winner though the loser is out"],
)  # fmt: skip
def test_options_table_next_round_starts_with_the_loser_or_the_houses_winner(
    preset: str, opener: str, play: Script, request: pytest.FixtureRequest
) -> None:
    out = "out" in request.node.callspec.id
    game = game_of(preset, dice=1 if out else 3)
    dice = "Ana:2 Ben:3 Caro:4" if out else "Ana:222 Ben:333 Caro:444"
    play(game, f"Ana 1x2; Ben dudo; reveal {dice}")  # the bid stands: Ben loses
    assert game.turn == opener


@pytest.mark.parametrize(
    ("preset", "first_fall", "second_fall"),
    [("perudo", True, False), ("dudo", True, False), ("payroodo", True, False),
     ("jinto", True, True)],
)  # fmt: skip
def test_options_table_palifico_trigger_first_time_or_every_time(
    preset: str, first_fall: bool, second_fall: bool, play: Script
) -> None:
    game = game_of(preset, dice=2, exact_call="jinto", starter="loser", palifico_choice=False)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")  # Ana 2 -> 1
    assert (game.state()["palifico"] == "Ana") is first_fall
    # Palifico (aces not wild): Ana takes a die from Caro with an exact jinto, 1 -> 2.
    play(game, "Ana 1x3; Ben 2x3; Caro 3x3; Ana calza; reveal Ana:3 Ben:33 Caro:66")
    assert dice_counts(game) == {"Ana": 2, "Ben": 2, "Caro": 1}
    play(game, "Caro 1x4; Ana dudo; reveal Ana:66 Ben:66 Caro:6")  # Caro is out
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66")  # Ana 2 -> 1 again
    assert game.dice("Ana") == 1
    assert (game.state()["palifico"] == "Ana") is second_fall


# Caro then Dan fall to one die: Dan's palifico round has two one-die players (Caro, Dan).
TWO_ON_ONE_DIE = (
    "Ana 1x2; Ben 2x2; Caro dudo; reveal Ana:22 Ben:22 Caro:22 Dan:22; "
    "Caro 1x3; Dan dudo; reveal Ana:33 Ben:33 Caro:3 Dan:33"
)


@pytest.mark.parametrize(
    ("preset", "one_die_may_change"),
    [("perudo", False), ("dudo", True), ("payroodo", True), ("jinto", False)],
)
def test_options_table_in_palifico_only_one_die_players_change_face_where_the_preset_says(
    preset: str, one_die_may_change: bool, play: Script
) -> None:
    game = game_of(preset, FOUR, dice=2)
    play(game, TWO_ON_ONE_DIE)
    assert (game.state()["palifico"], game.turn) == ("Dan", "Dan")
    play(game, "Dan 1x3")
    refused(game, bid("Ana", 2, 4), "the face is locked to 3s")  # two dice: locked
    play(game, "Ana 2x3; Ben 3x3")
    if one_die_may_change:
        play(game, "Caro 4x4; Dan 5x4")  # the others follow the new face
        refused(game, bid("Ana", 6, 5), "the face is locked to 4s")
    else:
        refused(game, bid("Caro", 4, 4), "the face is locked to 3s")


@pytest.mark.parametrize(
    ("preset", "choice"), [("perudo", False), ("dudo", True), ("payroodo", False), ("jinto", False)]
)
def test_options_table_only_the_encyclopedia_declares_an_open_or_closed_palifico(
    preset: str, choice: bool, play: Script
) -> None:
    game = game_of(preset, dice=2)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")
    declare = {"action": "palifico", "player": "Ana", "mode": "open"}
    if choice:
        said = game.apply(declare)
        assert said[0].kind == "palifico_choice" and "open" in said[0].text
        assert game.state()["palifico_mode"] == "open"
        assert game.actions[-1] == declare
    else:
        refused(game, declare, "no open or closed palifico at this table: its rules have none")


# -- RULES.md, Option names ------------------------------------------------------------------

OPTION_VALUES = {
    "dice": list(range(1, 11)),
    "wild_aces": [True, False],
    "raise": ["quantity_or_face", "quantity"],
    "to_aces": ["ceil_half", "half_plus_one"],
    "open_on_aces": ["never", "one_die"],
    "exact_call": ["none", "calza", "spot_on", "exactomundo", "jinto"],
    "pass": [True, False],
    "starter": ["loser", "winner"],
    "palifico": ["none", "once", "every_time"],
    "palifico_face_change": ["nobody", "one_die"],
    "palifico_choice": [True, False],
    "loss": ["one", "difference"],
    "cruzado": [True, False],
    "direction": ["clockwise", "alternating"],
    "lost_dice_visible": [True, False],
}


def test_option_names_are_exactly_the_fifteen_of_rules_md() -> None:
    assert list(OPTIONS) == list(OPTION_VALUES)


@pytest.mark.parametrize(
    ("name", "value"), [(n, v) for n, values in OPTION_VALUES.items() for v in values]
)
def test_option_names_every_value_of_every_option_is_accepted_in_a_header(
    name: str, value: object
) -> None:
    header = {"game": "dudo-record/1", "rules": "perudo", "options": {name: value},
              "players": THREE}  # fmt: skip
    game = replay([json.dumps(header)])
    assert game.state()["options"][name] == value


@pytest.mark.parametrize(
    ("options", "message"),
    [({"dice": 0}, "option dice: unknown value 0 (values: 1-10)"),
     ({"dice": 11}, "option dice: unknown value 11"),
     ({"dice": True}, "option dice: unknown value true"),
     ({"dice": "5"}, "option dice: unknown value '5'"),
     ({"wild_aces": 1}, "option wild_aces: unknown value 1 (values: true, false)"),
     ({"exact_call": "calzo"}, "option exact_call: unknown value 'calzo'"),
     ({"palifico": "twice"}, "option palifico: unknown value 'twice'"),
     ({"speed": 2}, "unknown option 'speed'"),
     ({"Dice": 5}, "unknown option 'Dice'")],
)  # fmt: skip
def test_option_names_unknown_names_or_values_are_a_clear_error(
    options: dict[str, object], message: str
) -> None:
    header = {"game": "dudo-record/1", "rules": "perudo", "options": options, "players": THREE}
    with pytest.raises(MalformedAction, match=f"^line 1: {re.escape(message)}"):
        replay([json.dumps(header)])


def test_option_names_perudo_with_exact_call_calza_is_the_asmodee_edition_with_calza(
    play: Script,
) -> None:
    header = {"game": "dudo-record/1", "rules": "perudo", "options": {"exact_call": "calza"},
              "players": THREE}  # fmt: skip
    game = replay([json.dumps(header)])
    play(game, "Ana 2x3")
    assert game.can_call()["calza"] == ["Ben", "Caro"]


def test_design_md_record_example_with_options_calza_true_replays() -> None:
    # DESIGN.md's own example header spells the option {"calza": true}.
    lines = [
        '{"game": "dudo-record/1", "rules": "perudo", "options": {"calza": true}, '
        '"players": ["Ana", "Ben", "Caro"], "first": "Ana"}',
        '{"action": "bid", "player": "Ana", "quantity": 3, "face": 4}',
        '{"action": "dudo", "player": "Ben"}',
        '{"action": "reveal", "dice": {"Ana": [1, 4, 4, 5, 6], "Ben": [2, 3, 3, 6, 6], '
        '"Caro": [1, 1, 2, 5, 6]}}',
    ]
    game = replay(lines)
    assert game.rules.exact_call == "calza"
    # Five 4s with aces: the bid stands, Ben loses a die and opens.
    assert (dice_counts(game), game.turn) == ({"Ana": 5, "Ben": 4, "Caro": 5}, "Ben")


# -- RULES.md, Exact calls, side by side -----------------------------------------------------


@pytest.mark.parametrize(
    ("exact_call", "callers"),
    [("calza", ["Ben", "Caro", "Dan"]), ("spot_on", ["Ben"]), ("exactomundo", ["Caro", "Dan"]),
     ("jinto", ["Ben"])],
)  # fmt: skip
def test_exact_calls_who_may_call_on_anas_bid_with_ben_to_act(
    exact_call: str, callers: list[str], play: Script
) -> None:
    game = game_of("perudo", FOUR, exact_call=exact_call)
    play(game, "Ana 2x3")
    for name in FOUR:
        if name in callers:
            game.check(act("calza", name))
        else:
            refused(game, act("calza", name))
    assert game.can_call()["calza"] == callers


@pytest.mark.parametrize("exact_call", ["calza", "spot_on", "exactomundo", "jinto"])
def test_exact_calls_come_before_the_next_bid_or_dudo_never_during_the_reveal(
    exact_call: str, play: Script
) -> None:
    game = game_of("perudo", FOUR, exact_call=exact_call)
    play(game, "Ana 2x3; Ben dudo")
    for name in FOUR:
        refused(game, act("calza", name), "during the reveal")


def test_exact_calls_exactomundo_may_come_at_any_moment_of_the_round(play: Script) -> None:
    game = game_of("payroodo", FOUR, exact_call="exactomundo")
    play(game, "Ana 2x3; Ben 3x3; Caro 4x3")
    # Dan is next; Ana and Ben, earlier in the round, may still call it on Caro's bid.
    assert game.can_call()["calza"] == ["Ana", "Ben"]


# Ana loses a die (six 2s doubted, none), then calls the exact call on 3x3 (or, for
# exactomundo, where the next player may not call, on 2x3 with Caro to act).
ANA_DOWN_TO_FOUR = "Ana 6x2; Ben dudo; reveal Ana:33333 Ben:33333 Caro:33333"
EXACT_CALLS = {
    # exact call: (preset, bids before the call, reveal with an exact count, one too many)
    "calza": ("perudo", "Ana 1x3; Ben 2x3; Caro 3x3", "Ana:3444 Ben:31666 Caro:66666",
              "Ana:3444 Ben:31666 Caro:66663"),
    "spot_on": ("dudo", "Ana 1x3; Ben 2x3; Caro 3x3", "Ana:3444 Ben:31666 Caro:66666",
                "Ana:3444 Ben:31666 Caro:66663"),
    "exactomundo": ("payroodo", "Ana 1x3; Ben 2x3", "Ana:3444 Ben:16666 Caro:66666",
                    "Ana:3444 Ben:16666 Caro:66663"),
    # The house's winner (Ben) opens after Ana's loss: Ana is next after Caro's 2x3.
    "jinto": ("jinto", "Ben 1x3; Caro 2x3", "Ana:3444 Ben:16666 Caro:66666",
              "Ana:3444 Ben:16666 Caro:66663"),
}  # fmt: skip


@pytest.mark.parametrize(
    ("exact_call", "right", "dice", "opener"),
    [("calza", True, {"Ana": 5, "Ben": 5, "Caro": 5}, "Ana"),
     ("calza", False, {"Ana": 3, "Ben": 5, "Caro": 5}, "Ana"),
     ("spot_on", True, {"Ana": 5, "Ben": 5, "Caro": 5}, "Ana"),
     ("spot_on", False, {"Ana": 3, "Ben": 5, "Caro": 5}, "Ana"),
     ("exactomundo", True, {"Ana": 5, "Ben": 5, "Caro": 5}, "Ana"),
     ("exactomundo", False, {"Ana": 3, "Ben": 5, "Caro": 5}, "Ana"),
     ("jinto", True, {"Ana": 5, "Ben": 5, "Caro": 4}, "Ana"),
     ("jinto", False, {"Ana": 3, "Ben": 5, "Caro": 5}, "Caro")],
)  # fmt: skip
def test_exact_calls_right_and_wrong_who_gains_who_loses_and_who_opens(
    exact_call: str, right: bool, dice: dict[str, int], opener: str, play: Script
) -> None:
    preset, bids, exact, over = EXACT_CALLS[exact_call]
    game = game_of(preset, dice=5, exact_call=exact_call)
    play(game, ANA_DOWN_TO_FOUR)
    play(game, f"{bids}; Ana calza; reveal {exact if right else over}")
    assert (dice_counts(game), game.turn) == (dice, opener)
    result = game.state()["last_result"]
    assert result["success"] is right
    # Nobody but the caller loses, except the bidder to an exact jinto.
    losers = {"Caro": 1} if right and exact_call == "jinto" else {} if right else {"Ana": 1}
    assert result["losers"] == losers
    # Dice in play and out of sight always add up to the dice at the start.
    assert game.dice_in_play + game.dice_lost == 15


@pytest.mark.parametrize(
    ("exact_call", "caller_after"),
    [("calza", 5), ("spot_on", 5), ("exactomundo", 5), ("jinto", 6)],
    ids=["calza never above N", "spot on recovers a lost die only",
         "exactomundo max 5", "jinto has no cap"],
)  # fmt: skip
def test_exact_calls_an_exact_call_by_a_player_at_the_starting_dice(
    exact_call: str, caller_after: int, play: Script
) -> None:
    preset, _, _, _ = EXACT_CALLS[exact_call]
    game = game_of(preset, dice=5, exact_call=exact_call)
    bids = "Ana 2x3" if exact_call == "exactomundo" else "Ana 1x3; Ben 2x3; Caro 3x3"
    caller = "Caro" if exact_call == "exactomundo" else "Ana"
    count = (
        "Ana:33666 Ben:66666 Caro:66666"
        if exact_call == "exactomundo"
        else ("Ana:33366 Ben:66666 Caro:66666")
    )
    play(game, f"{bids}; {caller} calza; reveal {count}")
    assert game.dice(caller) == caller_after
    assert game.dice_lost == 0


def test_exact_calls_the_bidder_never_loses_a_die_to_spot_on(play: Script) -> None:
    game = game_of("dudo")
    play(game, "Ana 3x3; Ben calza; reveal Ana:66666 Ben:66666 Caro:66666")
    assert dice_counts(game) == {"Ana": 5, "Ben": 4, "Caro": 5}


@pytest.mark.parametrize(
    ("in_play", "allowed"),
    [(3, True), (2, False)],
    ids=["3 of 4: more than half", "2 of 4: only half"],
)
def test_exact_calls_spot_on_only_while_more_than_half_the_starting_dice_are_in_play(
    in_play: int, allowed: bool, play: Script
) -> None:
    game = game_of("dudo", ["Ana", "Ben"], dice=2)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:33 Ben:33")  # Ana 2 -> 1: 3 dice in play
    if in_play == 2:
        play(game, "Ana 1x3; Ben dudo; reveal Ana:3 Ben:44")  # Ben 2 -> 1
        assert game.dice_in_play == 2
    play(game, f"{game.turn} 1x5")
    other = "Ben" if game.turn == "Ben" else "Ana"
    if allowed:
        game.check(act("calza", other))
    else:
        refused(
            game, act("calza", other), r"more than half the starting dice in play \(2 of 4 left\)"
        )


@pytest.mark.parametrize("trigger", ["once", "every_time"])
def test_exact_calls_a_calza_lifting_its_caller_off_one_die_does_not_trigger_a_second_palifico(
    trigger: str, play: Script
) -> None:
    game = game_of("perudo", dice=2, exact_call="calza", palifico=trigger)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")
    assert game.state()["palifico"] == "Ana"
    # Palifico, aces not wild: two 3s exactly; Ana's calza lifts her off one die.
    play(game, "Ana 1x3; Ben 2x3; Ana calza; reveal Ana:3 Ben:36 Caro:66")
    assert (game.dice("Ana"), game.turn, game.state()["palifico"]) == (2, "Ana", None)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")
    assert game.dice("Ana") == 1
    assert game.state()["palifico"] is None
    assert game.aces_wild


def test_exact_calls_a_palifico_player_still_opens_their_round(play: Script) -> None:
    # An exact jinto takes Ana's die (2 -> 1): Ben the caller would open, Ana's palifico does.
    game = game_of("perudo", dice=2, exact_call="jinto")
    play(game, "Ana 1x2; Ben calza; reveal Ana:26 Ben:66 Caro:66")
    assert dice_counts(game) == {"Ana": 1, "Ben": 3, "Caro": 2}
    assert (game.turn, game.state()["palifico"]) == ("Ana", "Ana")


def test_exact_calls_jinto_may_take_the_bidders_last_die(play: Script) -> None:
    game = game_of("jinto", dice=1)
    play(game, "Ana 1x2; Ben calza; reveal Ana:2 Ben:5 Caro:6")
    assert dice_counts(game) == {"Ana": 0, "Ben": 2, "Caro": 1}
    assert game.turn == "Ben"  # the winner of the round opens
    assert game.dice_lost == 0


# -- RULES.md, Palifico --------------------------------------------------------------------

ANA_DOWN_TO_ONE = "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66"


@pytest.mark.parametrize("preset", ["perudo", "dudo", "payroodo", "jinto"])
def test_palifico_is_the_round_right_after_the_die_was_lost_and_lasts_one_round(
    preset: str, play: Script
) -> None:
    game = game_of(preset, dice=2)
    play(game, ANA_DOWN_TO_ONE)
    state = game.state()
    assert (state["round"], state["palifico"], state["aces_wild"]) == (2, "Ana", False)
    play(game, "Ana 1x4; Ben dudo")
    assert game.state()["palifico"] == "Ana"  # its reveal is still the palifico round
    play(game, "reveal Ana:4 Ben:56 Caro:66")  # the bid stands: Ben loses
    state = game.state()
    assert (state["round"], state["palifico"], state["aces_wild"]) == (3, "Ben", False)
    play(game, "Ben 1x5; Caro dudo; reveal Ana:3 Ben:5 Caro:66")  # Caro loses
    state = game.state()
    assert (state["round"], state["palifico"], state["aces_wild"]) == (4, "Caro", False)
    play(game, "Caro 2x2; Ana dudo; reveal Ana:3 Ben:5 Caro:2")  # Caro loses her last die
    state = game.state()
    # Ana (one die) now opens a normal round: the palifico lasted one round.
    assert (state["round"], state["palifico"], state["aces_wild"]) == (5, None, True)
    # Jinto's winner opens (Ana); elsewhere the player left of the knocked-out Caro (Ana).
    assert game.turn == "Ana"


@pytest.mark.parametrize(
    ("preset", "options", "script", "palifico"),
    [("perudo", {"dice": 1}, "", None),
     ("jinto", {"dice": 1}, "", None),
     ("perudo", {"dice": 2}, ANA_DOWN_TO_ONE, "Ana"),
     ("perudo", {"dice": 3, "loss": "difference"},
      "Ana 3x2; Ben dudo; reveal Ana:666 Ben:666 Caro:166", "Ana"),
     ("perudo", {"dice": 3}, "Ana 1x2; Ben dudo; reveal Ana:666 Ben:666 Caro:666", None),
     ("jinto", {"dice": 1}, "Ana 1x2; Ben calza; reveal Ana:2 Ben:5 Caro:6", None)],
    ids=["a game started with one die", "the house started with one die", "2 -> 1",
         "3 -> 1 losing the difference", "3 -> 2", "a die gained 1 -> 2"],
)  # fmt: skip
def test_palifico_only_losing_a_die_down_to_one_triggers_it(
    preset: str, options: dict[str, Any], script: str, palifico: str | None, play: Script
) -> None:
    game = Game(make_rules(preset, options), THREE)
    play(game, script)
    assert game.state()["palifico"] == palifico
    assert game.aces_wild is (palifico is None)


@pytest.mark.parametrize(
    ("options", "would_open"),
    [({"starter": "winner"}, "Ben"), ({"cruzado": True}, "Caro")],
    ids=["the winner would open", "the right cruzado doubter takes nothing from the order"],
)
def test_palifico_the_one_die_player_opens_even_when_another_would(
    options: dict[str, Any], would_open: str, play: Script
) -> None:
    game = game_of("perudo", dice=2, **options)
    if options.get("cruzado"):
        play(game, "Ana 3x2; Caro dudo; reveal Ana:66 Ben:66 Caro:66")  # out of turn, right
        assert dice_counts(game) == {"Ana": 1, "Ben": 2, "Caro": 3}
    else:
        play(game, ANA_DOWN_TO_ONE)
    assert (game.turn, game.state()["palifico"]) == ("Ana", "Ana")


@pytest.mark.parametrize("preset", ["perudo", "dudo", "payroodo", "jinto"])
def test_palifico_aces_are_not_wild_and_may_open_the_round(preset: str, play: Script) -> None:
    game = game_of(preset, dice=2)
    play(game, ANA_DOWN_TO_ONE)
    game.check(bid("Ana", 1, 1))
    # Two 3s doubted: Ana's 3 and Ben's two aces would make three with wild aces; one counts.
    play(game, "Ana 2x3; Ben dudo; reveal Ana:3 Ben:11 Caro:66")
    assert game.state()["last_result"]["count"] == 1
    assert game.dice("Ana") == 0


@pytest.mark.parametrize(
    ("quantity", "face", "legal"),
    [(2, 1, False), (4, 1, False), (5, 1, True), (4, 5, True), (4, 3, False), (5, 2, True)],
    ids=[
        "no halving to aces",
        "aces are below 4s",
        "more aces",
        "a higher face",
        "a lower face",
        "more of a lower face",
    ],
)
def test_palifico_a_one_die_player_changing_face_raises_normally_with_the_ace_lowest(
    quantity: int, face: int, legal: bool, play: Script
) -> None:
    game = game_of("payroodo", FOUR, dice=2)
    play(game, TWO_ON_ONE_DIE)
    play(game, "Dan 2x4; Ana 3x4; Ben 4x4")  # Caro (one die) to act
    if legal:
        game.check(bid("Caro", quantity, face))
    else:
        refused(game, bid("Caro", quantity, face))


def test_palifico_leaving_aces_needs_no_doubling(play: Script) -> None:
    game = game_of("payroodo", FOUR, dice=2)
    play(game, TWO_ON_ONE_DIE)
    play(game, "Dan 2x1; Ana 3x1; Ben 4x1")
    game.check(bid("Caro", 4, 2))  # one die: same quantity, a higher face than the ace


def test_palifico_without_a_declaration_the_round_is_closed_and_bidding_never_waits(
    play: Script,
) -> None:
    game = game_of("dudo", dice=2)
    play(game, ANA_DOWN_TO_ONE)
    assert game.state()["palifico_mode"] == "closed"
    play(game, "Ana 1x3")
    refused(game, {"action": "palifico", "player": "Ana", "mode": "open"}, "too late")
    refused(game, {"action": "palifico", "player": "Ben", "mode": "open"})


# -- RULES.md, Leaving the table -----------------------------------------------------------


def test_leaving_takes_the_players_dice_out_of_play_uncounted_and_the_round_goes_on(
    play: Script,
) -> None:
    game = game_of("perudo")
    play(game, "Ana 2x3; Caro leave")
    state = game.state()
    assert (state["dice_in_play"], state["dice_lost"], state["turn"]) == (10, 0, "Ben")
    assert state["players"][2]["out"] is True
    assert state["bid"]["quantity"] == 2
    play(game, "Ben dudo; reveal Ana:33333 Ben:44444")  # only the two left show dice
    assert dice_counts(game) == {"Ana": 5, "Ben": 4, "Caro": 0}
    refused(game, bid("Caro", 1, 2), "Caro has left the table")


@pytest.mark.parametrize(
    ("direction", "script", "after"),
    [("clockwise", "Ana 2x3; Ben leave", "Caro"),
     ("alternating", f"Ana 9x2; Ben dudo; reveal {'3' * 15}; Ana 2x3; Caro leave", "Ben")],
    ids=["clockwise", "a round played anticlockwise"],
)  # fmt: skip
def test_leaving_on_your_turn_hands_it_to_the_next_player(
    direction: str, script: str, after: str, play: Script
) -> None:
    game = game_of("perudo", direction=direction)
    play(game, script)
    assert game.turn == after
    game.check(act("dudo", after))


def test_leaving_with_one_player_remaining_makes_them_the_winner(play: Script) -> None:
    game = game_of("perudo", ["Ana", "Ben"])
    play(game, "Ana 2x3; Ben dudo; Ana leave")
    state = game.state()
    assert (state["phase"], state["winner"], state["turn"]) == ("over", "Ben", None)


# -- RULES.md, Bids have no upper bound ----------------------------------------------------


@pytest.mark.parametrize(("quantity", "face"), [(16, 2), (40, 6), (99, 1)])
def test_a_bid_above_the_dice_in_play_is_legal_and_surely_false(
    quantity: int, face: int, play: Script
) -> None:
    game = game_of("perudo")
    play(game, f"Ana 2x2; Ben {quantity}x{face}; Caro dudo; reveal {'1' * 15}")
    assert dice_counts(game) == {"Ana": 5, "Ben": 4, "Caro": 5}


def test_the_legal_bids_offered_go_up_to_the_dice_in_play() -> None:
    game = game_of("perudo")
    bids = game.legal_bids()
    assert max(b.quantity for b in bids) == 15
    assert len(bids) == 15 * 5  # no aces to open


# -- RULES.md, Pass (encyclopedia, optional) -----------------------------------------------


@pytest.mark.parametrize(
    ("hand", "real"),
    [("22333", True), ("66655", True), ("11222", True), ("44444", True), ("11111", True),
     ("12345", True), ("23456", True), ("13456", True), ("22334", False), ("11234", False),
     ("22223", False), ("12346", True), ("12245", False)],
)  # fmt: skip
def test_pass_a_called_pass_costs_the_caller_on_a_real_hand_and_the_passer_on_a_bluff(
    hand: str, real: bool, play: Script
) -> None:
    game = game_of("dudo")
    play(game, f"Ana 3x4; Ben pass; Caro dudo; reveal Ben:{hand}")
    loser = "Caro" if real else "Ben"
    assert dice_counts(game) == {name: 4 if name == loser else 5 for name in THREE}
    assert game.turn == loser


def test_pass_a_called_pass_may_be_revealed_with_everyones_dice(play: Script) -> None:
    game = game_of("dudo")
    # Everyone's 4s would beat three 4s; only Ben's hand decides (a bluff).
    play(game, "Ana 3x4; Ben pass; Caro dudo; reveal Ana:44444 Ben:12245 Caro:44444")
    assert dice_counts(game) == {"Ana": 5, "Ben": 4, "Caro": 5}


@pytest.mark.parametrize(
    ("script", "action", "reason"),
    [("Ana 3x4; Ben pass", act("pass", "Caro"), "two passes in a row"),
     ("Ana 3x4; Ben pass; Caro 4x4; Ana 5x4", act("pass", "Ben"), "already passed"),
     ("Ana 3x4; Ben pass", act("calza", "Caro"), "only a raise or a call on the pass"),
     ("Ana 3x4; Ben pass", bid("Caro", 3, 4), "over 3x4"),
     ("Ana 3x4; Ben pass", act("dudo", "Ana"), "only Caro may call it"),
     ("Ana pass", act("pass", "Ben"), "two passes in a row")],
)  # fmt: skip
def test_pass_the_limits_of_a_pass(
    script: str, action: dict[str, Any], reason: str, play: Script
) -> None:
    game = game_of("dudo")
    play(game, script)
    refused(game, action, reason)


def test_pass_after_a_pass_the_next_player_raises_the_standing_bid(play: Script) -> None:
    game = game_of("dudo")
    play(game, "Ana 3x4; Ben pass; Caro 4x4")
    assert game.turn == "Ana"
    game.check(act("dudo", "Ana"))  # Caro's bid, not the pass, is doubted now
    play(game, "Ana 5x4; Ben 6x4; Caro pass")  # a pass again, not two in a row
    assert game.turn == "Ana"


def test_pass_the_opener_may_pass_instead_of_bidding(play: Script) -> None:
    # RULES.md: "a player may pass instead of bidding"; the next opens or calls the pass.
    game = game_of("dudo")
    play(game, "Ana pass")
    assert game.turn == "Ben"
    game.check(bid("Ben", 1, 2))
    refused(game, bid("Ben", 1, 1), "open on aces")
    play(game, "Ben dudo; reveal Ana:12345")
    assert (dice_counts(game), game.turn) == ({"Ana": 5, "Ben": 4, "Caro": 5}, "Ben")


def test_pass_other_players_keep_their_exact_call_on_the_standing_bid(play: Script) -> None:
    game = game_of("perudo", exact_call="calza", **{"pass": True})
    play(game, "Ana 3x4; Ben pass")
    assert game.can_call()["calza"] == ["Ben"]  # not Ana (her bid), not Caro (to act)
    play(game, "Ben calza; reveal Ana:44466 Ben:66666 Caro:66666")
    assert (dice_counts(game), game.turn) == ({"Ana": 5, "Ben": 5, "Caro": 5}, "Ben")


# -- RULES.md, Variants seen in the texts --------------------------------------------------

FIVE_4S = "reveal Ana:14456 Ben:23366 Caro:11256"  # with wild aces: 3 + 0 + 2 fours


@pytest.mark.parametrize(
    ("quantity", "loser", "lost"),
    [(2, "Ben", 3), (4, "Ben", 1), (5, "Ben", 1), (7, "Ana", 2), (9, "Ana", 4),
     (15, "Ana", 5)],
    ids=["doubt 3 short", "doubt 1 short", "exact: at least one", "bid 2 over",
         "bid 4 over", "never more than they hold"],
)  # fmt: skip
def test_variants_losing_the_difference_costs_count_minus_quantity_at_least_one(
    quantity: int, loser: str, lost: int, play: Script
) -> None:
    game = game_of("dudo", loss="difference")
    play(game, f"Ana {quantity}x4; Ben dudo; {FIVE_4S}")
    assert game.dice(loser) == 5 - lost
    assert game.dice_lost == lost


@pytest.mark.parametrize(
    ("quantity", "dice", "opener"),
    [(6, {"Ana": 4, "Ben": 5, "Caro": 6}, "Ana"), (5, {"Ana": 5, "Ben": 5, "Caro": 4}, "Caro")],
    ids=["right: takes the bluffer's die", "wrong: loses one"],
)
def test_variants_dudo_cruzado_anyone_may_doubt_out_of_turn(
    quantity: int, dice: dict[str, int], opener: str, play: Script
) -> None:
    game = game_of("perudo", cruzado=True)
    play(game, f"Ana {quantity}x4; Caro dudo; {FIVE_4S}")
    assert (dice_counts(game), game.turn) == (dice, opener)
    assert game.dice_in_play + game.dice_lost == 15


def test_variants_alternating_direction_reverses_play_each_round(play: Script) -> None:
    game = game_of("payroodo", FOUR, direction="alternating")
    play(game, "Ana 1x2")
    assert game.turn == "Ben"  # round 1 clockwise
    play(game, "Ben 9x2; Caro dudo; reveal Ana:33333 Ben:33333 Caro:33333 Dan:33333")
    play(game, "Ben 1x2")
    assert game.turn == "Ana"  # round 2 anticlockwise
    play(game, "Ana 2x2; Dan 3x2; Caro 9x2; Ben dudo")
    play(game, "reveal Ana:33333 Ben:3333 Caro:33333 Dan:33333")
    play(game, "Caro 1x2")
    assert game.turn == "Dan"  # round 3 clockwise again


# -- RULES.md, Worked examples from the texts ------------------------------------------------


def check_raises(game: Game, player: str, legal: list[str], illegal: list[str]) -> None:
    for text in legal:
        q, f = map(int, text.split("x"))
        game.check(bid(player, q, f))
    for text in illegal:
        q, f = map(int, text.split("x"))
        refused(game, bid(player, q, f))


@pytest.mark.parametrize(
    ("example", "preset", "bids", "legal", "illegal"),
    [("1", "payroodo", "Ana 9x4", ["5x1"], ["4x1"]),
     ("1", "perudo", "Ana 9x4", ["5x1"], ["4x1"]),
     ("2", "dudo", "Ana 5x3", ["3x1"], ["2x1"]),
     ("2", "perudo", "Ana 8x4", ["4x1"], ["3x1"]),
     ("2", "payroodo", "Ana 8x4", ["5x1"], ["4x1"]),
     ("3", "perudo", "Ana 5x2; Ben 3x1", ["7x4"], ["6x4"]),
     ("3", "payroodo", "Ana 9x2; Ben 5x1", ["11x2", "11x3", "11x4", "11x5", "11x6", "6x1"],
      ["10x2", "10x6", "5x1"]),
     ("3", "jinto", "Ana 7x2; Ben 4x1", ["9x2", "9x6"], ["8x6"]),
     ("5", "jinto", "Ana 4x3", ["5x6"], ["4x6"]),
     ("7", "jinto", "Ana 5x6", ["3x1"], ["2x1"])],
)  # fmt: skip
def test_worked_examples_on_raising(
    example: str, preset: str, bids: str, legal: list[str], illegal: list[str], play: Script
) -> None:
    game = game_of(preset)
    play(game, bids)
    check_raises(game, game.turn or "", legal, illegal)


@pytest.mark.parametrize(("quantity", "loser"), [(4, "Ben"), (6, "Ana")])
def test_worked_example_4_three_5s_and_two_aces(quantity: int, loser: str, play: Script) -> None:
    game = game_of("perudo")
    play(game, f"Ana {quantity}x5; Ben dudo; reveal Ana:55516 Ben:12346 Caro:23462")
    assert game.state()["last_result"]["count"] == 5
    assert game.dice(loser) == 4


def test_worked_example_6_boxed_edition_palifico_sequence(play: Script) -> None:
    game = game_of("payroodo", ["P1", "P2", "P3", "P4"], dice=2)
    play(game, "P1 1x2; P2 2x2; P3 dudo; reveal P1:22 P2:22 P3:22 P4:22")  # P3 -> 1
    play(game, "P3 1x3; P4 2x3; P1 dudo; reveal P1:33 P2:66 P3:3 P4:66")  # P1 -> 1
    assert (game.state()["palifico"], game.turn) == ("P1", "P1")
    steps = [("P1", 1, 2), ("P2", 2, 2), ("P3", 2, 3), ("P4", 3, 3), ("P1", 3, 4),
             ("P2", 4, 4)]  # fmt: skip
    switches = {"P2": [(3, 3), (2, 3)], "P4": [(4, 4), (3, 4)]}
    for player, q, f in steps:
        for sq, sf in switches.pop(player, []):
            refused(game, bid(player, sq, sf), "the face is locked")
        game.apply(bid(player, q, f))
    assert game.bid is not None and str(game.bid) == "4x4"


@pytest.mark.parametrize(("players", "dice"), [(6, 30), (4, 20), (2, 10)])
def test_worked_example_8_dice_at_the_start(players: int, dice: int) -> None:
    game = game_of("perudo", [f"P{i}" for i in range(players)])
    assert game.state()["dice_in_play"] == dice == game.state()["dice_start"]


# -- DESIGN.md, the state JSON ---------------------------------------------------------------


def test_state_phase_round_turn_palifico_and_winner_through_a_game(play: Script) -> None:
    game = game_of("perudo", ["Ana", "Ben"], dice=2)
    seen = []

    def look() -> None:
        s = game.state()
        seen.append((s["phase"], s["round"], s["turn"], s["palifico"], s["winner"]))

    look()
    play(game, "Ana 1x2")
    look()
    play(game, "Ben dudo")
    look()
    play(game, "reveal Ana:22 Ben:33")  # Ben 2 -> 1: his palifico
    look()
    play(game, "Ben 1x3; Ana dudo")
    look()
    play(game, "reveal Ana:44 Ben:5")  # Ben is out
    look()
    assert seen == [
        ("bidding", 1, "Ana", None, None),
        ("bidding", 1, "Ben", None, None),
        ("reveal", 1, None, None, None),
        ("bidding", 2, "Ben", "Ben", None),
        ("reveal", 2, None, "Ben", None),
        ("over", 2, None, None, "Ana"),
    ]
    state = game.state()
    assert state["players"] == [
        {"name": "Ana", "seat": 1, "dice": 2, "out": False, "left": False,
         "palifico_used": False},
        {"name": "Ben", "seat": 2, "dice": 0, "out": True, "left": False, "palifico_used": True},
    ]
    assert (state["dice_in_play"], state["dice_lost"], state["bid"]) == (2, 2, None)


@pytest.mark.parametrize(
    "action",
    [bid("Ana", 9, 2), act("dudo", "Ana"), act("calza", "Ana"), act("pass", "Ana"),
     {"action": "reveal", "dice": {"Ana": [2, 2]}}, act("leave", "Ana"),
     {"action": "palifico", "player": "Ana", "mode": "open"}],
    ids=lambda a: a["action"],
)  # fmt: skip
def test_state_after_the_game_is_over_nothing_but_undo_is_accepted(
    action: dict[str, Any], play: Script
) -> None:
    game = game_of("dudo", ["Ana", "Ben"], dice=1, exact_call="exactomundo")
    play(game, "Ana 1x2; Ben dudo; reveal Ana:2 Ben:3")
    assert game.phase == "over"
    refused(game, action, "the game is over: Ana won")
    play(game, "undo")
    assert game.phase == "reveal"


def test_state_turn_always_names_a_player_with_dice_in_seeded_random_games() -> None:
    rnd = random.Random(7)
    for preset in ("perudo", "dudo", "payroodo", "jinto"):
        for _ in range(15):
            game = game_of(preset, FOUR, dice=2, cruzado=rnd.random() < 0.5)
            while game.phase != "over":
                turn = game.turn
                if game.phase == "reveal":
                    assert turn is None
                    shown = {n: [rnd.randint(1, 6) for _ in range(game.dice(n))]
                             for n in game.players if game.dice(n)}  # fmt: skip
                    game.apply({"action": "reveal", "dice": shown})
                    continue
                assert turn is not None and game.dice(turn) > 0
                choice, can = rnd.random(), game.can_call()
                if choice < 0.35 and can["dudo"]:
                    game.apply(act("dudo", rnd.choice(can["dudo"])))
                elif choice < 0.4 and can["pass"]:
                    game.apply(act("pass", turn))
                elif choice < 0.45 and can["calza"]:
                    game.apply(act("calza", rnd.choice(can["calza"])))
                elif choice < 0.47:
                    game.apply(act("leave", rnd.choice([n for n in FOUR if game.dice(n)])))
                elif legal := game.legal_bids()[:6]:
                    game.apply({"action": "bid", "player": turn,
                                **rnd.choice(legal).to_dict()})  # fmt: skip
                else:
                    # No raise fits under the dice in play: the one to act may always doubt.
                    assert turn in can["dudo"]
                    game.apply(act("dudo", turn))
            assert game.turn is None and game.winner is not None


# -- DESIGN.md, dudo replay: the error contract ----------------------------------------------

HEADER = '{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben", "Caro"]}'
BID_5X3 = '{"action": "bid", "player": "Ana", "quantity": 5, "face": 3}'


@pytest.mark.parametrize(
    ("lines", "message"),
    [([HEADER, BID_5X3, '{"action": "bid", "player": "Ben", "quantity": 4, "face": 3}'],
      "line 3: illegal bid 4x3 over 5x3: quantity must rise"),
     ([HEADER, BID_5X3, "", "", "", "",
       '{"action": "bid", "player": "Ben", "quantity": 4, "face": 3}'],
      "line 7: illegal bid 4x3 over 5x3: quantity must rise"),
     ([HEADER, "{oops"], "line 2: bad JSON: "),
     (["not json"], "line 1: bad JSON: "),
     ([HEADER, '{"player": "Ana"}'], "line 2: missing field 'action'"),
     ([HEADER, '{"action": "bid", "player": "Ana", "face": 3}'],
      "line 2: bid needs a 'quantity'"),
     ([HEADER, '{"action": "dudo"}'], "line 2: dudo needs a 'player'"),
     ([HEADER, '{"action": "shout", "player": "Ana"}'], "line 2: unknown action 'shout'"),
     ([HEADER, '{"action": "bid", "player": "Ana", "quantity": 3, "face": 7}'],
      "line 2: malformed bid: face 7 (faces are 1-6)"),
     ([HEADER, '{"action": "bid", "player": "Ana", "quantity": 0, "face": 3}'],
      "line 2: malformed bid: quantity 0 (quantities start at 1)"),
     ([HEADER, '{"action": "bid", "player": "Zed", "quantity": 1, "face": 3}'],
      "line 2: unknown player 'Zed'"),
     ([HEADER, BID_5X3, '{"action": "dudo", "player": "Ben"}',
       '{"action": "reveal", "dice": {"Ana": [1, 2, 3, 4, 5], "Zed": [1]}}'],
      "line 4: reveal: unknown player 'Zed'"),
     ([HEADER, BID_5X3, '{"action": "dudo", "player": "Ben"}',
       '{"action": "reveal", "faces": [1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 1, 2]}'],
      "line 4: reveal: faces: face 7 (faces are 1-6)"),
     (['{"game": "dudo-record/1", "rules": "poker", "players": ["Ana", "Ben"]}'],
      "line 1: unknown preset 'poker'"),
     (['{"game": "dudo-record/1", "options": {"bluff": 1}, "players": ["Ana", "Ben"]}'],
      "line 1: unknown option 'bluff'"),
     (['{"game": "dudo-record/1", "options": {"loss": "two"}, "players": ["Ana", "Ben"]}'],
      "line 1: option loss: unknown value 'two' (values: one, difference)"),
     (['{"game": "dudo-record/1", "rules": "perudo"}'], "line 1: the header needs 'players'"),
     ([HEADER, BID_5X3, '{"action": "dudo", "player": "Ben"}',
       '{"action": "reveal", "dice": {"Ana": [2], "Ben": [2], "Caro": [2]}}'],
      "line 4: reveal shows 1 die for Ana, who has 5")],
)  # fmt: skip
def test_replay_a_bad_record_exits_2_with_one_line_naming_the_line_and_reason(
    lines: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "game.jsonl"
    record.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(record), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith(message)
