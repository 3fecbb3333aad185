"""Dudo, loss by difference, the four exact calls, pass and dudo cruzado."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from companion.announcement import Announcement
from companion.errors import IllegalAction
from companion.game import Game
from companion.rules import make_rules

Script = Callable[[Game, str], list[Announcement]]
DiceOf = Callable[[Game], dict[str, int]]
THREE = ["Ana", "Ben", "Caro"]
# 4s counted with wild aces: Ana 3 (1, 4, 4), Ben 0, Caro 2 (1, 1): five in all.
FIVE_4S = "reveal Ana:14456 Ben:23366 Caro:11256"


def game_of(preset: str, players: list[str] = THREE, **options: Any) -> Game:
    return Game(make_rules(preset, options), players)


@pytest.mark.parametrize(
    ("bid", "dice", "opener"),
    [
        ("3x4", {"Ana": 5, "Ben": 4, "Caro": 5}, "Ben"),
        ("5x4", {"Ana": 5, "Ben": 4, "Caro": 5}, "Ben"),
        ("6x4", {"Ana": 4, "Ben": 5, "Caro": 5}, "Ana"),
    ],
    ids=[
        "a true bid costs the caller",
        "an exact count still stands",
        "a false bid costs the bidder",
    ],
)
def test_dudo_costs_the_caller_when_the_bid_stands_and_the_bidder_otherwise(
    bid: str, dice: dict[str, int], opener: str, play: Script, dice_of: DiceOf
) -> None:
    game = game_of("perudo")
    said = play(game, f"Ana {bid}; Ben dudo; {FIVE_4S}")
    assert dice_of(game) == dice
    assert game.turn == opener
    assert game.round == 2
    assert [a.kind for a in said] == ["bid", "dudo", "reveal", "lose", "round"]
    assert game.dice_lost == 1


def test_a_bid_on_aces_counts_the_aces_alone_and_says_no_aces_wild(play: Script) -> None:
    # Aces are wild for the other faces; a bid on aces counts them once, and the verdict
    # says nothing of wild aces (until session 88 no test would have seen it otherwise).
    game = game_of("perudo")
    said = play(game, "Ana 2x3; Ben 1x1; Caro dudo; reveal Ana:12345 Ben:22334 Caro:66666")
    assert said[3].text == "Dudo by Caro on Ben's one ace: 1 counted, the bid stands"
    result = game.state()["last_result"]
    assert (result["count"], result["faces_counted"], result["aces_wild"]) == (1, [1], True)


@pytest.mark.parametrize(
    ("bid", "loser", "lost"),
    [("8x4", "Ana", 3), ("2x4", "Ben", 3), ("5x4", "Ben", 1), ("9x6", "Ana", 2), ("5x6", "Ben", 2)],
)
def test_losing_the_difference_costs_the_gap_between_count_and_bid_at_least_one(
    bid: str, loser: str, lost: int, play: Script
) -> None:
    game = game_of("perudo", loss="difference")
    play(game, f"Ana {bid}; Ben dudo; {FIVE_4S}")
    assert game.dice(loser) == 5 - lost
    assert game.dice_lost == lost
    assert game.state()["last_result"]["losers"] == {loser: lost}


def test_difference_loss_never_takes_more_dice_than_a_player_holds(play: Script) -> None:
    game = game_of("perudo", ["Ana", "Ben"], loss="difference", dice=2)
    play(game, "Ana 4x6; Ben dudo; reveal Ana:23 Ben:45")
    assert game.phase == "over"
    assert game.winner == "Ben"
    assert game.dice_lost == 2


class TestCalza:
    """Asmodée's calza: anyone but the bidder; exact gives a die back (never above the start)."""

    LOSE_CARO = "Ana 1x2; Ben 2x2; Caro dudo; reveal Ana:22333 Ben:44444 Caro:55555"

    def test_an_exact_calza_gives_a_lost_die_back_and_its_caller_opens(
        self, play: Script, dice_of: DiceOf
    ) -> None:
        game = game_of("perudo", exact_call="calza")
        play(game, self.LOSE_CARO)
        assert dice_of(game) == {"Ana": 5, "Ben": 5, "Caro": 4}
        play(game, "Caro 2x4; Ana 5x4; Caro calza; reveal Ana:14456 Ben:23366 Caro:1125")
        assert dice_of(game) == {"Ana": 5, "Ben": 5, "Caro": 5}
        assert game.turn == "Caro"
        assert game.dice_regained == 1
        assert game.state()["last_result"]["gainers"] == {"Caro": 1}
        assert game.dice_held_by_others() == []  # out of the bag: nobody's die was taken

    def test_an_exact_calza_at_the_starting_dice_gains_nothing(
        self, play: Script, dice_of: DiceOf
    ) -> None:
        game = game_of("perudo", exact_call="calza")
        play(game, f"Ana 5x4; Caro calza; {FIVE_4S}")
        assert dice_of(game) == {"Ana": 5, "Ben": 5, "Caro": 5}
        assert game.turn == "Caro"
        assert game.dice_regained == 0
        # Said, so that nobody wonders where the die went (it said "exact." alone).
        assert game.state()["last_result"]["text"] == (
            "Calza by Caro on Ana's five 4s: 5 counted (aces wild), exact (no die back: Caro"
            " has all 5).")

    def test_an_exact_call_by_a_player_above_the_starting_dice_says_they_have_more(
        self, play: Script, dice_of: DiceOf
    ) -> None:
        # Won above the start by dudo cruzado: "has all 5" said of six dice was wrong.
        game = game_of("payroodo", ["Ana", "Ben", "Caro", "Dan"], exact_call="exactomundo",
                       cruzado=True)
        play(game, "Ana 9x3; Caro dudo;"
                   " reveal Ana:22222 Ben:22222 Caro:22222 Dan:22222")
        assert dice_of(game) == {"Ana": 4, "Ben": 5, "Caro": 6, "Dan": 5}
        play(game, "Ana 2x2; Caro calza; reveal Ana:2333 Ben:23333 Caro:333333 Dan:33333")
        assert dice_of(game)["Caro"] == 6
        assert game.state()["last_result"]["text"].endswith(
            "exact (no die back: Caro has 6, and dice come back only up to 5).")

    def test_spot_on_is_announced_as_said_at_the_table(self, play: Script) -> None:
        game = game_of("dudo")
        said = play(game, "Ana 2x3; Ben calza")
        assert "Ben calls Ana's two 3s spot on" in [a.text for a in said]

    def test_at_a_table_that_hides_the_counts_the_calza_says_no_count(
        self, play: Script
    ) -> None:
        game = game_of("perudo", exact_call="calza", lost_dice_visible=False)
        play(game, f"Ana 5x4; Caro calza; {FIVE_4S}")
        assert game.state()["last_result"]["text"] == (
            "Calza by Caro on Ana's five 4s: 5 counted (aces wild), exact.")

    def test_a_wrong_calza_costs_its_caller_a_die_and_they_open(
        self, play: Script, dice_of: DiceOf
    ) -> None:
        game = game_of("perudo", exact_call="calza")
        play(game, f"Ana 4x4; Ben calza; {FIVE_4S}")
        assert dice_of(game) == {"Ana": 5, "Ben": 4, "Caro": 5}
        assert game.turn == "Ben"

    def test_the_bidder_may_not_calza_their_own_bid(self, play: Script) -> None:
        game = game_of("perudo", exact_call="calza")
        play(game, "Ana 4x4")
        with pytest.raises(IllegalAction, match="Ana may not call calza on their own bid"):
            game.apply({"action": "calza", "player": "Ana"})

    def test_calza_at_a_table_without_exact_calls_names_the_option(self, play: Script) -> None:
        game = game_of("perudo")
        play(game, "Ana 4x4")
        with pytest.raises(IllegalAction,
                           match=r"no exact call at this table: its rules have none"):
            game.apply({"action": "calza", "player": "Ben"})


class TestSpotOn:
    """The encyclopedia's spot on: the next player only, while more than half the dice play."""

    def test_a_right_spot_on_recovers_a_die_and_the_bidder_never_loses(
        self, play: Script, dice_of: DiceOf
    ) -> None:
        game = game_of("dudo")
        play(game, "Ana 1x2; Ben 2x2; Caro dudo; reveal Ana:22333 Ben:44444 Caro:55555")
        play(game, "Caro 5x4; Ana calza; reveal Ana:14456 Ben:23366 Caro:1125")
        assert dice_of(game) == {"Ana": 5, "Ben": 5, "Caro": 4}
        play(game, "Ana 3x6; Ben 5x4; Caro calza; reveal Ana:14456 Ben:23366 Caro:1125")
        assert dice_of(game) == {"Ana": 5, "Ben": 5, "Caro": 5}
        assert game.turn == "Caro"

    def test_a_wrong_spot_on_costs_only_the_caller(self, play: Script, dice_of: DiceOf) -> None:
        game = game_of("dudo")
        play(game, f"Ana 6x4; Ben calza; {FIVE_4S}")
        assert dice_of(game) == {"Ana": 5, "Ben": 4, "Caro": 5}

    def test_spot_on_is_for_the_next_player_only(self, play: Script) -> None:
        game = game_of("dudo")
        play(game, "Ana 6x4")
        with pytest.raises(IllegalAction, match="only the next player may call spot on: Ben acts"):
            game.apply({"action": "calza", "player": "Caro"})

    def test_spot_on_needs_more_than_half_the_starting_dice_in_play(self, play: Script) -> None:
        game = game_of("dudo", ["Ana", "Ben", "Caro", "Dan"], dice=2)
        play(game, "Caro leave; Dan leave; Ana 1x2")
        with pytest.raises(IllegalAction, match=r"more than half .* \(4 of 8 left\)"):
            game.apply({"action": "calza", "player": "Ben"})
        # No one may call it: the state says why, for the page to tell the players.
        assert game.state()["exact_call_refused"] == (
            "spot on needs more than half the starting dice in play (4 of 8 left)")

    def test_the_state_says_why_only_where_no_one_may_call_spot_on(self, play: Script) -> None:
        game = game_of("dudo")
        assert game.state()["exact_call_refused"] is None  # no bid to call yet
        play(game, "Ana 3x4")
        assert game.state()["exact_call_refused"] is None  # Ben may
        play(game, "Ben pass")
        assert game.state()["exact_call_refused"] == (
            "after Ben's pass only a raise or a call on the pass")
        play(game, "Caro 4x4")
        assert game.state()["exact_call_refused"] is None
        assert game_of("perudo").state()["exact_call_refused"] is None  # no exact call


class TestExactomundo:
    """The boxed edition's exactomundo: anyone but the next player (and, decided, the bidder)."""

    @pytest.mark.parametrize(
        ("caller", "reason"),
        [
            ("Ben", "Ben is next to act and may not call exactomundo"),
            ("Ana", "Ana may not call exactomundo on their own bid"),
            ("Caro", ""),
        ],
    )
    def test_who_may_call_exactomundo(self, caller: str, reason: str, play: Script) -> None:
        game = game_of("payroodo", exact_call="exactomundo")
        play(game, "Ana 4x4")
        action = {"action": "calza", "player": caller}
        if reason:
            with pytest.raises(IllegalAction, match=reason):
                game.check(action)
        else:
            game.check(action)

    def test_heads_up_no_one_may_call_exactomundo_and_the_state_names_both(
        self, play: Script
    ) -> None:
        game = game_of("payroodo", exact_call="exactomundo")
        play(game, "Ana 3x4")
        assert game.state()["exact_call_refused"] is None  # Caro may
        play(game, "Caro leave")
        assert game.can_call()["calza"] == []
        assert game.state()["exact_call_refused"] == (
            "exactomundo is neither Ana's on their own bid nor Ben's, next to act: "
            "no one's with two players")

    def test_exactomundo_may_come_at_any_moment_of_the_round(
        self, play: Script, dice_of: DiceOf
    ) -> None:
        game = game_of("payroodo", exact_call="exactomundo")
        play(game, f"Ana 3x4; Ben 4x4; Ana calza; {FIVE_4S}")
        assert dice_of(game) == {"Ana": 4, "Ben": 5, "Caro": 5}
        assert game.turn == "Ana"


class TestJinto:
    """The house's jinto: the next player; exact takes a die from the bidder, no cap."""

    def test_an_exact_jinto_moves_a_die_from_the_bidder_to_the_caller(
        self, play: Script, dice_of: DiceOf
    ) -> None:
        game = game_of("jinto")
        said = play(game, "Ana 3x4; Ben calza; reveal Ana:144 Ben:236 Caro:256")
        assert dice_of(game) == {"Ana": 2, "Ben": 4, "Caro": 3}
        assert game.dice_lost == 0 and game.dice_regained == 0
        assert "Ben takes a die from Ana" in [a.text for a in said]
        assert game.turn == "Ben", "the winner of the round starts"
        assert game.dice_held_by_others() == ["Ana"]  # a die of hers is in Ben's cup

    def test_a_wrong_jinto_costs_the_caller_and_the_bidder_starts(
        self, play: Script, dice_of: DiceOf
    ) -> None:
        game = game_of("jinto")
        play(game, "Ana 2x4; Ben calza; reveal Ana:144 Ben:236 Caro:256")
        assert dice_of(game) == {"Ana": 3, "Ben": 2, "Caro": 3}
        assert game.turn == "Ana"
        assert game.dice_held_by_others() == []


class TestPass:
    """The encyclopedia's pass, and calling it."""

    @pytest.mark.parametrize(
        ("hand", "loser", "opener"),
        [
            ("22333", "Caro", "Caro"),
            ("44444", "Caro", "Caro"),
            ("15234", "Caro", "Caro"),
            ("11234", "Ben", "Ben"),
        ],
        ids=["full house", "five of a kind", "five different", "a bluff"],
    )
    def test_a_called_pass_is_settled_on_the_passers_dice(
        self, hand: str, loser: str, opener: str, play: Script
    ) -> None:
        game = game_of("dudo")
        play(game, f"Ana 3x4; Ben pass; Caro dudo; reveal Ben:{hand}")
        assert game.dice(loser) == 4
        assert game.turn == opener
        result = game.state()["last_result"]
        assert result["call"] == "pass"
        assert result["success"] is (loser == "Ben")  # the call was right: the pass a bluff
        assert (result["bid"], result["count"], result["faces_counted"]) == (None, None, [])

    def test_a_called_pass_may_be_revealed_as_one_flat_list(self, play: Script) -> None:
        game = game_of("dudo")
        play(game, "Ana 3x4; Ben pass; Caro dudo")
        assert game.expected_dice() == {"Ben": 5}
        play(game, "reveal 22333")
        assert game.dice("Caro") == 4

    def test_after_a_pass_the_next_player_raises_the_standing_bid(self, play: Script) -> None:
        game = game_of("dudo")
        play(game, "Ana 3x4; Ben pass")
        assert game.state()["can_call"] == {"dudo": ["Caro"], "calza": [], "pass": []}
        with pytest.raises(IllegalAction, match="over 3x4"):
            game.check({"action": "bid", "player": "Caro", "quantity": 2, "face": 4})
        play(game, "Caro 4x4")
        assert game.turn == "Ana"

    @pytest.mark.parametrize(
        ("script", "reason"),
        [
            ("Ana pass; Ben pass", "two passes in a row are not allowed"),
            ("Ana 3x4; Ben pass; Caro pass", "two passes in a row are not allowed"),
            ("Ana 3x4; Ben pass; Caro 4x4; Ana 5x4; Ben pass", "Ben has already passed"),
            (
                "Ana 3x4; Ben pass; Caro calza",
                "after Ben's pass only a raise or a call on the pass",
            ),
            ("Ana 3x4; Ben pass; Ana dudo", "after Ben's pass only Caro may call it"),
        ],
    )
    def test_the_limits_of_pass(self, script: str, reason: str, play: Script) -> None:
        game = game_of("dudo")
        *before, last = script.split("; ")
        play(game, "; ".join(before))
        with pytest.raises(IllegalAction, match=reason):
            play(game, last)

    def test_a_table_without_pass_says_so(self, play: Script) -> None:
        game = game_of("perudo")
        play(game, "Ana 3x4")
        with pytest.raises(IllegalAction, match=r"no pass at this table: its rules have none"):
            play(game, "Ben pass")


class TestCruzado:
    """Dudo cruzado: anyone may doubt out of turn; right takes the bluffer's die."""

    def test_a_right_doubt_out_of_turn_takes_the_die_the_bluffer_loses(
        self, play: Script, dice_of: DiceOf
    ) -> None:
        game = game_of("perudo", cruzado=True)
        said = play(game, f"Ana 6x4; Caro dudo; {FIVE_4S}")
        assert dice_of(game) == {"Ana": 4, "Ben": 5, "Caro": 6}
        assert game.dice_lost == 0
        assert "Caro takes a die from Ana" in [a.text for a in said]
        assert game.state()["last_result"]["cruzado"] is True

    def test_the_player_whose_die_was_taken_is_known_until_that_reveal_is_undone(
        self, play: Script
    ) -> None:
        # The die keeps its colour in the taker's cup (companion.reveal tells it by seat).
        game = game_of("perudo", cruzado=True)
        play(game, f"Ana 2x4; Caro dudo; {FIVE_4S}")  # wrong: Caro's die goes out of sight
        assert game.dice_held_by_others() == []
        # Right, in turn: Caro's die goes in the bag.
        play(game, "Caro 9x4; Ana dudo; reveal Ana:23456 Ben:23456 Caro:2356")
        assert game.dice_held_by_others() == []
        # Right, out of turn: Ben takes Caro's die.
        play(game, "Caro 8x4; Ben dudo; reveal Ana:23456 Ben:23456 Caro:235")
        assert game.dice("Ben") == 6
        assert game.dice_held_by_others() == ["Caro"]
        play(game, "undo")
        assert game.dice_held_by_others() == []

    def test_a_wrong_doubt_out_of_turn_costs_one_die(self, play: Script, dice_of: DiceOf) -> None:
        game = game_of("perudo", cruzado=True, loss="difference")
        play(game, f"Ana 2x4; Caro dudo; {FIVE_4S}")
        assert dice_of(game) == {"Ana": 5, "Ben": 5, "Caro": 4}

    def test_without_cruzado_only_the_next_player_doubts(self, play: Script) -> None:
        game = game_of("perudo")
        play(game, "Ana 2x4")
        with pytest.raises(IllegalAction, match="not Caro's turn: Ben acts"):
            play(game, "Caro dudo")

    def test_nobody_doubts_their_own_bid(self, play: Script) -> None:
        game = game_of("perudo", cruzado=True)
        play(game, "Ana 2x4")
        with pytest.raises(IllegalAction, match="Ana may not doubt their own bid"):
            play(game, "Ana dudo")

    def test_between_a_pass_and_the_next_bid_nobody_doubts_out_of_turn_and_is_told_why(
        self, play: Script
    ) -> None:
        # DESIGN.md's dudo right after a pass calls the pass: only the next player's (a
        # decision, README "Rules and records"). Once the bid is raised, anyone may again.
        game = game_of("dudo", ["Ana", "Ben", "Caro", "Dan"], cruzado=True)
        play(game, "Ana 3x4; Ben pass")
        with pytest.raises(IllegalAction, match=(
                "^after Ben's pass only Caro may call it: a dudo now calls the pass, so no one"
                " doubts Ana's bid out of turn until the next bid$")):
            play(game, "Dan dudo")
        with pytest.raises(IllegalAction, match="^after Ben's pass only Caro may call it$"):
            play(game, "Ana dudo")  # the bidder never doubts their own bid anyway
        play(game, "Caro 4x4; Ana dudo")  # out of turn, on Caro's bid
        assert game.phase == "reveal"
