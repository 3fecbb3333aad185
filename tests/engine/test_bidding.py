"""Raises, opening bids and the list of legal bids the dial walks through."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from companion.announcement import Announcement
from companion.bid import Bid
from companion.errors import IllegalAction
from companion.game import Game
from companion.rules import make_rules

Script = Callable[[Game, str], list[Announcement]]
SIX = ["Ana", "Ben", "Caro", "Dan", "Eve", "Fay"]


def verdict(game: Game, text: str) -> str:
    """Empty when the bid is legal for the player to act, else the IllegalAction message."""
    b = Bid.parse(text)
    try:
        game.check({"action": "bid", "player": game.turn, **b.to_dict()})
    except IllegalAction as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize(
    ("preset", "options", "standing", "bid", "reason"),
    [
        ("perudo", {}, "5x3", "6x2", ""),
        ("perudo", {}, "5x3", "5x4", ""),
        ("perudo", {}, "5x3", "5x3", "illegal bid 5x3 over 5x3: same quantity needs a higher face"),
        ("perudo", {}, "5x3", "4x6", "illegal bid 4x6 over 5x3: quantity must rise"),
        ("perudo", {}, "5x3", "5x2", "same quantity needs a higher face"),
        ("perudo", {}, "5x3", "3x1", ""),
        ("perudo", {}, "5x3", "2x1", "going to aces needs at least 3x1"),
        ("perudo", {}, "6x3", "3x1", ""),
        ("payroodo", {}, "6x3", "3x1", "going to aces needs at least 4x1"),
        ("perudo", {"raise": "quantity"}, "5x3", "5x6", "quantity must rise"),
        ("jinto", {}, "5x3", "6x2", ""),
        ("perudo", {"wild_aces": False}, "5x3", "6x1", ""),
        ("perudo", {"wild_aces": False}, "5x3", "3x1", "quantity must rise"),
        # Without wild aces the ace is the lowest face (a round still may not open on it).
        ("perudo", {"wild_aces": False}, "4x3; Ben 5x1", "5x2", ""),
        ("perudo", {"wild_aces": False}, "4x3; Ben 5x1", "4x6", "quantity must rise"),
    ],
)
def test_a_raise_follows_the_tables_raise_rule(
    preset: str, options: dict[str, Any], standing: str, bid: str, reason: str, play: Script
) -> None:
    game = Game(make_rules(preset, options), SIX)
    play(game, f"Ana {standing}")
    found = verdict(game, bid)
    assert (found == "") if not reason else (reason in found), found


@pytest.mark.parametrize(
    ("standing", "after_aces", "legal"),
    [("3x1", "4x1", True), ("3x1", "3x1", False), ("3x1", "7x2", True), ("3x1", "6x6", False)],
)
def test_from_aces_stay_on_aces_higher_or_leave_with_double_plus_one(
    standing: str, after_aces: str, legal: bool, play: Script
) -> None:
    game = Game(make_rules("perudo"), SIX)
    play(game, f"Ana 6x5; Ben {standing}")
    assert (verdict(game, after_aces) == "") is legal


@pytest.mark.parametrize(
    ("preset", "options", "opener_dice", "allowed"),
    [
        ("perudo", {}, 5, False),
        ("payroodo", {}, 5, False),
        ("jinto", {}, 3, False),
        ("dudo", {}, 5, False),
        ("dudo", {"dice": 1}, 1, True),
        ("perudo", {"open_on_aces": "one_die", "dice": 1}, 1, True),
    ],
)
def test_a_round_opens_on_aces_only_where_the_table_allows_it(
    preset: str, options: dict[str, Any], opener_dice: int, allowed: bool
) -> None:
    game = Game(make_rules(preset, options), ["Ana", "Ben", "Caro"])
    assert game.dice("Ana") == opener_dice
    reason = verdict(game, "1x1")
    assert (reason == "") is allowed
    if not allowed:
        assert "illegal bid 1x1: a round may" in reason


def test_a_bid_above_the_dice_in_play_is_legal_but_not_offered(play: Script) -> None:
    game = Game(make_rules("perudo"), ["Ana", "Ben"])
    assert verdict(game, "11x6") == ""
    assert max(b.quantity for b in game.legal_bids()) == 10


def test_the_list_of_legal_bids_starts_at_the_lowest_raise_with_aces_in_rank(
    play: Script,
) -> None:
    game = Game(make_rules("perudo"), SIX)
    play(game, "Ana 2x5")
    # One ace beats any face bid of two dice (ceil_half) and loses to three of anything.
    assert [str(b) for b in game.legal_bids()[:5]] == ["2x6", "1x1", "3x2", "3x3", "3x4"]


def test_from_aces_the_list_offers_one_ace_more_and_double_plus_one_of_a_face(
    play: Script,
) -> None:
    # Example 3: from three aces, seven 4s (or any face), or four aces. The list of legal
    # bids is the page's picker and the panel's dial; until session 88 no test would have
    # seen it offer five aces first (a mutant of the engine, found by mutation testing).
    game = Game(make_rules("perudo"), SIX)
    play(game, "Ana 6x5; Ben 3x1")
    bids = [str(b) for b in game.legal_bids()]
    assert bids[:5] == ["7x2", "7x3", "7x4", "7x5", "7x6"]
    assert [b for b in bids if b.endswith("x1")][:2] == ["4x1", "5x1"]
    assert "6x6" not in bids and "3x1" not in bids


def test_under_half_plus_one_aces_rank_above_the_highest_face_bid_they_beat(
    play: Script,
) -> None:
    game = Game(make_rules("payroodo"), SIX)
    play(game, "Ana 3x5")
    assert [str(b) for b in game.legal_bids()[:4]] == ["3x6", "2x1", "4x2", "4x3"]


def test_an_opening_list_has_no_aces_and_every_quantity_up_to_the_dice_in_play() -> None:
    game = Game(make_rules("perudo"), ["Ana", "Ben"])
    bids = game.legal_bids()
    assert [str(b) for b in bids[:6]] == ["1x2", "1x3", "1x4", "1x5", "1x6", "2x2"]
    assert len(bids) == 10 * 5
    assert all(b.face != 1 for b in bids)


def test_the_house_raise_offers_every_face_at_a_higher_quantity(play: Script) -> None:
    game = Game(make_rules("jinto"), ["Ana", "Ben", "Caro"])
    play(game, "Ana 3x5")
    assert [str(b) for b in game.legal_bids()[:7]] == [
        "4x2",
        "4x3",
        "4x4",
        "4x5",
        "4x6",
        "2x1",
        "5x2",
    ]


def test_nobody_acts_out_of_turn_with_a_bid(play: Script) -> None:
    game = Game(make_rules("perudo"), ["Ana", "Ben", "Caro"])
    with pytest.raises(IllegalAction, match="not Caro's turn: Ana acts"):
        game.check({"action": "bid", "player": "Caro", "quantity": 1, "face": 2})
