"""Palifico: its trigger, its opener, aces not wild, the locked face, open or closed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from companion.announcement import Announcement
from companion.errors import IllegalAction
from companion.game import Game
from companion.rules import make_rules

Script = Callable[[Game, str], list[Announcement]]
THREE = ["Ana", "Ben", "Caro"]
ANA_DOWN_TO_ONE = "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66"


def game_of(preset: str, **options: Any) -> Game:
    return Game(make_rules(preset, {"dice": 2, **options}), THREE)


@pytest.mark.parametrize("preset", ["perudo", "dudo", "payroodo", "jinto"])
def test_a_player_down_to_one_die_opens_a_palifico_round(preset: str, play: Script) -> None:
    game = game_of(preset)
    said = play(game, ANA_DOWN_TO_ONE)
    assert said[-1] == Announcement("palifico", "Ana", "Palifico! Ana opens the round")
    state = game.state()
    assert state["palifico"] == "Ana"
    assert state["players"][0]["palifico_used"] is True
    assert state["aces_wild"] is False
    # The house's winner would start (Ben), but the palifico player opens anyway.
    assert game.turn == "Ana"


def test_aces_are_not_wild_in_palifico_and_may_open_it(play: Script) -> None:
    game = game_of("perudo")
    play(game, ANA_DOWN_TO_ONE)
    game.check({"action": "bid", "player": "Ana", "quantity": 1, "face": 1})
    # Two 3s and three aces: five 3s with wild aces, two without.
    play(game, "Ana 3x3; Ben dudo; reveal Ana:1 Ben:33 Caro:11")
    result = game.state()["last_result"]
    assert (result["count"], result["faces_counted"], result["aces_wild"]) == (2, [3], False)
    assert game.dice("Ana") == 0


def test_the_palifico_lasts_one_round(play: Script) -> None:
    game = game_of("perudo", dice=3)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:666 Ben:666 Caro:666")
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:666 Caro:666")
    assert game.state()["palifico"] == "Ana"
    play(game, "Ana 1x3; Ben dudo; reveal Ana:3 Ben:445 Caro:556")
    assert game.dice("Ana") == 1
    assert game.state()["palifico"] is None
    assert game.aces_wild
    assert game.turn == "Ben"


@pytest.mark.parametrize(("trigger", "again"), [("once", False), ("every_time", True)])
def test_a_second_fall_to_one_die_is_a_palifico_only_every_time(
    trigger: str, again: bool, play: Script
) -> None:
    game = game_of("perudo", exact_call="jinto", palifico=trigger)
    play(game, ANA_DOWN_TO_ONE)
    # Ana's exact jinto takes a die from Caro (3 threes, aces not wild); Caro's palifico
    # follows, she loses her last die, Ana opens and loses her die again. (An exact calza
    # would not do: a calza lifting its caller off one die triggers no second palifico.)
    play(game, "Ana 1x3; Ben 2x3; Caro 3x3; Ana calza; reveal Ana:3 Ben:33 Caro:66")
    assert game.dice("Ana") == 2
    play(game, "Caro 1x4; Ana dudo; reveal Ana:66 Ben:66 Caro:6")
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66")
    assert game.dice("Ana") == 1
    assert (game.state()["palifico"] == "Ana") is again


def test_a_game_started_with_one_die_has_no_palifico_until_a_die_is_regained_and_lost(
    play: Script,
) -> None:
    game = Game(make_rules("jinto", {"dice": 1}), THREE)
    play(game, "Ana 1x2; Ben calza; reveal Ana:2 Ben:5 Caro:6")
    assert (game.dice("Ana"), game.dice("Ben")) == (0, 2)
    assert game.state()["palifico"] is None
    play(game, "Ben 1x2; Caro dudo; reveal Ben:66 Caro:6")
    assert game.state()["palifico"] == "Ben"


def test_losing_the_difference_from_three_dice_to_one_triggers_palifico(play: Script) -> None:
    game = Game(make_rules("perudo", {"dice": 3, "loss": "difference"}), THREE)
    play(game, "Ana 2x2; Ben dudo; reveal Ana:666 Ben:666 Caro:666")
    assert game.dice("Ana") == 1
    assert game.state()["palifico"] == "Ana"


def test_without_palifico_a_player_on_one_die_plays_a_normal_round(play: Script) -> None:
    game = game_of("perudo", palifico="none")
    play(game, ANA_DOWN_TO_ONE)
    assert game.state()["palifico"] is None
    assert game.aces_wild


@pytest.mark.parametrize(("preset", "may_change"), [("perudo", False), ("payroodo", True)])
def test_who_may_change_the_face_in_palifico(preset: str, may_change: bool, play: Script) -> None:
    game = game_of(preset)
    play(game, ANA_DOWN_TO_ONE)
    play(game, "Ana 1x3; Ben 2x3; Caro 3x3")
    action = {"action": "bid", "player": "Ana", "quantity": 3, "face": 4}
    if may_change:
        game.check(action)
    else:
        with pytest.raises(IllegalAction, match="the face is locked to 3s in palifico"):
            game.check(action)
    assert [str(b) for b in game.legal_bids()[:2]] == (
        ["3x4", "3x5"] if may_change else ["4x3", "5x3"]
    )


def test_the_locked_face_still_needs_a_higher_quantity(play: Script) -> None:
    game = game_of("perudo")
    play(game, ANA_DOWN_TO_ONE)
    play(game, "Ana 2x3")
    with pytest.raises(IllegalAction, match="illegal bid 2x3 over 2x3: quantity must rise"):
        play(game, "Ben 2x3")


class TestOpenOrClosed:
    """The encyclopedia's open or closed palifico round (``palifico_choice``)."""

    def test_the_palifico_player_declares_an_open_round_before_the_first_bid(
        self, play: Script
    ) -> None:
        game = game_of("dudo")
        play(game, ANA_DOWN_TO_ONE)
        assert game.state()["palifico_mode"] == "closed"
        said = play(game, "Ana open")
        assert said[0].kind == "palifico_choice"
        assert game.state()["palifico_mode"] == "open"
        assert game.actions[-1] == {"action": "palifico", "player": "Ana", "mode": "open"}
        assert game.turn == "Ana", "declaring is not a turn"
        # The round's history on the page says it too.
        assert game.state()["bids"] == [{"action": "palifico", "player": "Ana", "mode": "open"}]

    @pytest.mark.parametrize(
        ("script", "reason"),
        [
            ("Ben open", "only Ana declares this palifico round"),
            ("Ana 1x3; Ana closed", "too late: the palifico round's first bid is made"),
            ("Ana open; Ana closed", "Ana has already declared the round open"),
        ],
    )
    def test_the_limits_of_the_declaration(self, script: str, reason: str, play: Script) -> None:
        game = game_of("dudo")
        play(game, ANA_DOWN_TO_ONE)
        *before, last = script.split("; ")
        play(game, "; ".join(before))
        with pytest.raises(IllegalAction, match=reason):
            play(game, last)

    def test_bidding_never_waits_for_a_declaration(self, play: Script) -> None:
        game = game_of("dudo")
        play(game, ANA_DOWN_TO_ONE)
        play(game, "Ana 1x3; Ben 2x3")
        assert game.state()["palifico_mode"] == "closed"

    def test_no_declaration_outside_a_palifico_round_or_at_a_table_without_it(
        self, play: Script
    ) -> None:
        with pytest.raises(IllegalAction, match="this round is not a palifico round"):
            play(game_of("dudo"), "Ana open")
        game = game_of("perudo")
        play(game, ANA_DOWN_TO_ONE)
        with pytest.raises(IllegalAction,
                           match=r"no open or closed palifico at this table: its rules have none"):
            play(game, "Ana open")
