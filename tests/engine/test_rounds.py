"""Rounds: who opens, the direction of play, elimination, the winner, leaving and undo."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from companion.announcement import Announcement
from companion.errors import IllegalAction
from companion.game import Game
from companion.rules import make_rules
from tests.engine.conftest import refused

Script = Callable[[Game, str], list[Announcement]]
DiceOf = Callable[[Game], dict[str, int]]
THREE = ["Ana", "Ben", "Caro"]
FOUR = ["Ana", "Ben", "Caro", "Dan"]


def game_of(preset: str, players: list[str] = THREE, **options: Any) -> Game:
    return Game(make_rules(preset, options), players)


def test_rounds_count_from_one_and_end_at_their_reveal(play: Script) -> None:
    game = game_of("perudo")
    assert game.round == 1
    play(game, "Ana 2x3; Ben dudo")
    assert (game.round, game.phase, game.turn) == (1, "reveal", None)
    play(game, "reveal Ana:22222 Ben:22222 Caro:22222")
    assert (game.round, game.phase) == (2, "bidding")


def test_the_first_player_named_in_the_header_opens() -> None:
    assert Game(make_rules("perudo"), THREE, first="Caro").turn == "Caro"
    assert Game(make_rules("jinto"), THREE).turn == "Ana"


@pytest.mark.parametrize(
    ("script", "opener"),
    [
        ("Ana 1x2; Ben dudo; reveal Ana:6 Ben:6 Caro:6", "Ben"),
        ("Ana 1x2; Ben 1x3; Caro dudo; reveal Ana:6 Ben:6 Caro:6", "Caro"),
        ("Ana 1x2; Ben 1x3; Caro dudo; reveal Ana:3 Ben:6 Caro:6", "Ana"),
    ],
    ids=["Ana out: Ben on her left", "Ben out: Caro", "Caro out: Ana on her left"],
)
def test_a_loser_knocked_out_is_replaced_by_the_player_on_their_left(
    script: str, opener: str, play: Script
) -> None:
    game = game_of("perudo", dice=1)
    said = play(game, script)
    assert game.turn == opener
    assert [a.kind for a in said][-3:] == ["lose", "out", "round"]


def test_the_house_winner_opens_the_next_round(play: Script) -> None:
    game = game_of("jinto")
    play(game, "Ana 5x2; Ben dudo; reveal Ana:666 Ben:666 Caro:666")
    assert game.dice("Ana") == 2
    assert game.turn == "Ben"


def test_alternating_direction_reverses_play_each_round(play: Script) -> None:
    game = game_of("perudo", FOUR, direction="alternating")
    play(game, "Ana 1x2")
    assert game.turn == "Ben"
    play(game, "Ben dudo; reveal Ana:66666 Ben:66666 Caro:66666 Dan:66666")
    state = game.state()
    assert (state["turn"], state["direction"]) == ("Ana", "anticlockwise")
    assert "dir=ccw" in game.notation()
    play(game, "Ana 1x2")
    assert game.turn == "Dan"
    play(game, "Dan dudo; reveal Ana:6666 Ben:66666 Caro:66666 Dan:66666")
    assert game.state()["direction"] == "clockwise"
    play(game, "Ana 1x2")
    assert game.turn == "Ben"


def test_the_last_player_with_dice_wins_and_the_game_accepts_nothing_but_undo(
    play: Script,
) -> None:
    game = game_of("perudo", ["Ana", "Ben"], dice=1)
    said = play(game, "Ana 1x2; Ben dudo; reveal Ana:6 Ben:6")
    assert [a.kind for a in said][-3:] == ["lose", "out", "winner"]
    assert said[-1].text == "Ben wins the game"
    state = game.state()
    assert (state["phase"], state["winner"], state["turn"], state["bid"]) == (
        "over",
        "Ben",
        None,
        None,
    )
    with pytest.raises(IllegalAction, match="the game is over: Ben won"):
        play(game, "Ben 1x3")
    play(game, "undo")
    assert game.phase == "reveal"
    assert game.winner is None


def test_dice_in_play_and_lost_are_kept_per_player_and_in_all(play: Script) -> None:
    game = game_of("perudo")
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66666 Ben:66666 Caro:66666")
    play(game, "Ana 1x2; Ben dudo; reveal Ana:6666 Ben:66666 Caro:66666")
    state = game.state()
    assert [p["dice"] for p in state["players"]] == [3, 5, 5]
    assert (state["dice_in_play"], state["dice_lost"], state["dice_start"]) == (13, 2, 15)


class TestLeave:
    """A player who leaves is out at once; their dice leave play, not counted as lost."""

    def test_a_player_leaving_on_their_turn_passes_it_on(self, play: Script) -> None:
        game = game_of("perudo", FOUR)
        play(game, "Ana 2x3; Ben leave")
        state = game.state()
        assert (state["turn"], state["dice_in_play"], state["dice_lost"]) == ("Caro", 15, 0)
        assert state["players"][1] == {
            "name": "Ben", "dice": 0, "out": True, "left": True, "palifico_used": False,
        }  # fmt: skip
        assert game.dice_left_with_players == 5

    def test_a_bid_whose_bidder_left_stands_and_may_be_raised(self, play: Script) -> None:
        game = game_of("perudo", FOUR)
        play(game, "Ana 2x3; Ana leave")
        assert game.state()["bid"]["player"] == "Ana"
        play(game, "Ben 2x4; Caro dudo")
        assert game.phase == "reveal"

    @pytest.mark.parametrize(
        ("options", "script", "call"),
        [({}, "Ana 30x6; Ana leave", "Ben dudo"),
         ({"cruzado": True}, "Ana 30x6; Ana leave", "Ben dudo"),
         ({"pass": True}, "Ana 2x3; Ben pass; Ben leave", "Caro dudo")],
        ids=["dudo", "at a cruzado table", "a called pass"],
    )  # fmt: skip
    def test_a_call_on_a_player_who_left_is_void_and_the_caller_opens(
        self, play: Script, options: dict[str, Any], script: str, call: str
    ) -> None:
        # No one is held to raise a bid nobody may doubt (thirty 6s, with 15 dice in play):
        # the call is void, as when the player called leaves after it.
        game = game_of("perudo", FOUR, **options)
        play(game, script)
        caller, gone = call.split()[0], script.split("; ")[-1].split()[0]
        assert game.state()["can_call"]["dudo"] == [caller]  # the next player alone
        said = play(game, call)
        assert [a.text for a in said][1:] == [
            f"{gone} left: the call is void, nobody loses a die", f"Round 2: {caller} opens"]
        state = game.state()
        assert (state["phase"], state["turn"], state["dice_lost"]) == ("bidding", caller, 0)
        assert state["last_result"]["void"] is True
        play(game, "undo")  # the call taken back: the round goes on as it was
        assert (game.phase, game.round, game.state()["bid"]["player"]) == ("bidding", 1, "Ana")

    @pytest.mark.parametrize(
        ("options", "call", "reason"),
        [({"cruzado": True}, "Dan dudo",
          "Ana has left the table: only Ben may call the bid (a void call) or raise it"),
         ({"exact_call": "calza"}, "Ben calza",
          "Ana has left the table: no calza on their bid; Ben raises it or calls dudo"),
         ({"exact_call": "exactomundo"}, "Caro calza", "no exactomundo on their bid")],
        ids=["a cruzado doubt", "calza", "exactomundo"],
    )  # fmt: skip
    def test_nobody_but_the_next_player_ends_the_round_on_a_bid_that_left(
        self, play: Script, options: dict[str, Any], call: str, reason: str
    ) -> None:
        game = game_of("payroodo" if "exactomundo" in str(options) else "perudo", FOUR,
                       **options)
        play(game, "Ana 30x6; Ana leave")
        with pytest.raises(IllegalAction, match=re.escape(reason)):
            play(game, call)
        assert (game.phase, game.round, game.turn) == ("bidding", 1, "Ben")

    def test_a_bid_that_left_and_tops_the_dice_is_doubted_not_raised(
        self, play: Script
    ) -> None:
        game = game_of("perudo", dice=1)
        play(game, "Ana 5x6; Ana leave")
        # Two dice left: no raise of five 6s fits, and Ben may doubt it (a void call), as
        # any bid no raise fits under the dice in play.
        assert game.legal_bids() == []
        assert game.state()["can_call"]["dudo"] == ["Ben"]

    def test_leaving_during_a_reveal_takes_the_leaver_out_of_the_count(self, play: Script) -> None:
        game = game_of("perudo", FOUR)
        play(game, "Ana 2x3; Ben dudo; Dan leave")
        assert game.expected_dice() == {"Ana": 5, "Ben": 5, "Caro": 5}
        play(game, "reveal Ana:33666 Ben:66666 Caro:66666")
        assert game.dice("Ben") == 4

    def test_the_caller_or_bidder_leaving_during_a_reveal_voids_the_call(
        self, play: Script, dice_of: DiceOf
    ) -> None:
        game = game_of("perudo", FOUR)
        play(game, "Ana 2x3; Ben dudo; Ana leave")
        assert dice_of(game) == {"Ana": 0, "Ben": 5, "Caro": 5, "Dan": 5}
        assert (game.phase, game.round, game.turn) == ("bidding", 2, "Ben")
        assert game.state()["last_result"]["void"] is True
        assert game.dice_lost == 0

    def test_the_last_player_left_at_the_table_wins(self, play: Script) -> None:
        game = game_of("perudo")
        said = play(game, "Ana leave; Caro leave")
        assert game.winner == "Ben"
        assert [a.kind for a in said] == ["leave", "leave", "winner"]

    def test_a_player_who_is_out_cannot_leave_again(self, play: Script) -> None:
        game = game_of("perudo")
        play(game, "Ana leave")
        with pytest.raises(IllegalAction, match="Ana has left the table"):
            play(game, "Ana leave")


class TestUndo:
    """Undo takes back the last accepted action still standing, and is kept in the record."""

    def test_several_undos_walk_back_and_are_kept_in_the_record(self, play: Script) -> None:
        game = game_of("perudo")
        play(game, "Ana 2x3")
        start = game.state()
        said = play(game, "Ben 3x3; Caro 4x3; undo; undo")
        assert game.state() == start
        assert said[-1] == Announcement("undo", "Ben", "Undone: Ben's bid of three 3s")
        assert [a["action"] for a in game.actions] == ["bid", "bid", "bid", "undo", "undo"]
        play(game, "undo")
        assert game.state() == Game(make_rules("perudo"), THREE).state()

    def test_undo_at_the_start_of_the_game_is_refused(self) -> None:
        with pytest.raises(IllegalAction, match="nothing to undo"):
            game_of("perudo").apply({"action": "undo"})

    def test_undoing_a_reveal_gives_the_dice_back_and_waits_for_the_reveal_again(
        self, play: Script
    ) -> None:
        game = game_of("perudo")
        play(game, "Ana 2x3; Ben dudo")
        before = game.state()
        play(game, "reveal Ana:66666 Ben:66666 Caro:66666; undo")
        assert game.state() == before
        assert game.expected_dice() == {"Ana": 5, "Ben": 5, "Caro": 5}


# -- the boxed edition's partial reveal ------------------------------------------------------
# PayRoodo: after a doubt the cups are lifted one by one from the caller's left, and once the
# bid is reached the players still under their cups need not show.


def test_payroodo_cups_lifted_until_the_bid_is_reached_settle_the_doubt(
    play: Script, dice_of: DiceOf
) -> None:
    game = game_of("payroodo")
    play(game, "Ana 3x5; Ben dudo; reveal Caro:55234 Ana:14236")
    assert dice_of(game) == {"Ana": 5, "Ben": 4, "Caro": 5}
    assert (game.round, game.turn) == (2, "Ben")
    assert game.actions[-1] == {
        "action": "reveal", "dice": {"Ana": [1, 4, 2, 3, 6], "Caro": [5, 5, 2, 3, 4]},
    }  # fmt: skip
    result = game.state()["last_result"]
    assert result["count"] == 3
    assert result["dice"] == {"Ana": [1, 4, 2, 3, 6], "Caro": [5, 5, 2, 3, 4]}


@pytest.mark.parametrize(
    ("preset", "options", "script", "reason"),
    [
        ("payroodo", {}, "Ana 4x5; Ben dudo",
         "reveal shows no dice for Ben, who has 5: the dice shown do not reach the bid"),
        ("payroodo", {"loss": "difference"}, "Ana 3x5; Ben dudo",
         "reveal shows no dice for Ben, who has 5$"),
        ("payroodo", {"exact_call": "exactomundo"}, "Ana 3x5; Caro calza",
         "reveal shows no dice for Ben, who has 5$"),
        ("perudo", {}, "Ana 3x5; Ben dudo", "reveal shows no dice for Ben, who has 5$"),
    ],
    ids=["bid not reached", "loss by the difference", "exact call", "perudo"],
)
def test_a_partial_reveal_is_refused_where_every_cup_must_come_up(
    preset: str, options: dict[str, Any], script: str, reason: str, play: Script
) -> None:
    game = game_of(preset, **options)
    play(game, script)
    refused(game, {"action": "reveal", "dice": {"Caro": [5, 5, 2, 3, 4], "Ana": [1, 4, 2, 3, 6]}},
            reason)
