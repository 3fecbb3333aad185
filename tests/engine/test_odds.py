"""The chance that a bid is true: exact sums, checked against every roll of a few dice."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction

import pytest

from companion import odds
from companion.announcement import Announcement
from companion.game import Game
from companion.rules import make_rules

Script = Callable[[Game, str], list[Announcement]]


def enumerate_chance(quantity: int, face: int, dice: int, wild: bool, own: tuple[int, ...] = ()):
    """(P(at least), P(exactly), expected) by rolling every possible set of unknown dice."""
    at_least = exactly = total = 0
    rolls = list(itertools.product(range(1, 7), repeat=dice - len(own)))
    for roll in rolls:
        count = sum(1 for d in roll + own if d == face or (wild and face != 1 and d == 1))
        at_least += count >= quantity
        exactly += count == quantity
        total += count
    n = len(rolls)
    return Fraction(at_least, n), Fraction(exactly, n), Fraction(total, n)


@pytest.mark.parametrize("dice", [1, 2, 4])
@pytest.mark.parametrize("wild", [True, False])
@pytest.mark.parametrize(("quantity", "face"), [(1, 3), (2, 3), (2, 1), (3, 6), (5, 2)])
def test_the_chances_are_exact_sums_over_every_roll(
    dice: int, wild: bool, quantity: int, face: int
) -> None:
    at_least, exactly, mean = enumerate_chance(quantity, face, dice, wild)
    assert odds.chance_fraction(quantity, face, dice, wild_aces=wild) == at_least
    assert odds.chance(quantity, face, dice, wild_aces=wild) == pytest.approx(float(at_least))
    assert odds.chance_exact(quantity, face, dice, wild_aces=wild) == pytest.approx(float(exactly))
    assert odds.expected(face, dice, wild_aces=wild) == pytest.approx(float(mean))


@pytest.mark.parametrize("face", [1, 2, 3, 6])
@pytest.mark.parametrize("own", [(1, 3), (3, 3, 5), (2,), (6, 1), (1, 2, 6)])
def test_a_players_own_dice_count_as_they_are(own: tuple[int, ...], face: int) -> None:
    at_least, exactly, mean = enumerate_chance(3, face, 5, True, own)
    assert odds.chance_fraction(3, face, 5, own=own) == at_least
    assert odds.chance_exact(3, face, 5, own=own) == pytest.approx(float(exactly))
    assert odds.expected(face, 5, own=own) == pytest.approx(float(mean))


def test_a_bid_above_the_dice_in_play_is_surely_false_and_one_of_nothing_surely_true() -> None:
    assert odds.chance(31, 4, 30) == 0.0
    assert odds.chance(2, 4, 30, own=[4, 1]) == 1.0


def test_the_odds_of_the_standing_bid_follow_the_round_palifico_turns_off_wild_aces(
    play: Script,
) -> None:
    game = Game(make_rules("perudo", {"dice": 2}), ["Ana", "Ben", "Caro"])
    play(game, "Ana 2x4")
    normal = odds.bid_odds(game)
    assert normal is not None
    assert normal.expected == pytest.approx(6 * 2 / 6)
    play(game, "Ben dudo; reveal Ana:66 Ben:66 Caro:66; Ana 2x4")
    palifico = odds.bid_odds(game, own=[4])
    assert palifico is not None and not game.aces_wild
    assert palifico.chance == pytest.approx(float(odds.chance_fraction(1, 4, 4, wild_aces=False)))
    assert odds.bid_odds(Game(make_rules("perudo"), ["Ana", "Ben"])) is None


def test_bad_odds_questions_are_value_errors() -> None:
    for face in (0, 7):
        with pytest.raises(ValueError, match=f"face {face} "):
            odds.chance(1, face, 10)
    with pytest.raises(ValueError, match="dice in play -1"):
        odds.chance(1, 3, -1)
    assert odds.chance(0, 3, 0) == 1.0  # no dice in play: a question, not an error
    assert odds.chance(2, 3, 2, own=[3, 1]) == 1.0  # every die in play one's own
    with pytest.raises(ValueError, match="3 own dice but only 2 in play"):
        odds.chance(1, 3, 2, own=[1, 2, 3])
    # Before, a die that is no face counted for none, and the chance was quietly wrong.
    for own in ([7], [0], "3", [True], [3.0]):
        with pytest.raises(ValueError, match="a list of faces 1-6"):
            odds.chance(1, 3, 2, own=own)  # type: ignore[arg-type]
