"""The chance that a bid is true, and the expected count, by exact binomial sums.

From public information only (the dice in play, whether aces are wild this round) or, when
a player's own dice are given, from what that player knows: their dice are counted as they
are and only the others' dice are unknown. Each unknown die shows a face with chance 1/6,
or 2/6 when aces are wild and the face is not the ace.

Every chance is computed as an exact fraction (``fractions.Fraction``) and returned as a
float; ``chance_fraction`` gives the fraction itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.game import Game


def _sixths(face: int, wild_aces: bool) -> int:
    """How many of a die's six faces count for ``face``."""
    if not 1 <= face <= 6:
        raise ValueError(f"face {face} (faces are 1-6)")
    return 2 if wild_aces and face != 1 else 1


def _split(
    face: int, dice_in_play: int, wild_aces: bool, own: Sequence[int] | None
) -> tuple[int, int]:
    """(dice that already count from ``own``, dice still unknown)."""
    if dice_in_play < 0:
        raise ValueError(f"dice in play {dice_in_play} (cannot be negative)")
    own = own or ()
    if isinstance(own, (str, bytes)) or any(
            type(d) is not int or not 1 <= d <= 6 for d in own):
        raise ValueError(f"own dice {own!r}: a list of faces 1-6")
    if len(own) > dice_in_play:
        raise ValueError(f"{len(own)} own dice but only {dice_in_play} in play")
    known = sum(1 for d in own if d == face or (wild_aces and face != 1 and d == 1))
    return known, dice_in_play - len(own)


@lru_cache(maxsize=64)
def _tails(n: int, sixths: int) -> tuple[int, ...]:
    """For each k from 0 to n: in how many of the 6**n throws of n dice at least k count,
    each die counting on ``sixths`` of its faces (one pass for every k: whole numbers, with
    no fraction reduced at each term, so hundreds of dice take milliseconds)."""
    ways = [comb(n, i) * sixths**i * (6 - sixths) ** (n - i) for i in range(n + 1)]
    tails = [0] * (n + 2)
    for i in range(n, -1, -1):
        tails[i] = tails[i + 1] + ways[i]
    return tuple(tails[: n + 1])


@lru_cache(maxsize=4096)
def _at_least(n: int, k: int, sixths: int) -> Fraction:
    """P(at least k of n dice count), each counting with chance sixths/6."""
    if k <= 0:
        return Fraction(1)
    if k > n:
        return Fraction(0)
    return Fraction(_tails(n, sixths)[k], 6**n)


def chance_fraction(
    quantity: int,
    face: int,
    dice_in_play: int,
    *,
    wild_aces: bool = True,
    own: Sequence[int] | None = None,
) -> Fraction:
    """The exact chance that at least ``quantity`` dice count for ``face``."""
    known, unknown = _split(face, dice_in_play, wild_aces, own)
    return _at_least(unknown, quantity - known, _sixths(face, wild_aces))


def chance(
    quantity: int,
    face: int,
    dice_in_play: int,
    *,
    wild_aces: bool = True,
    own: Sequence[int] | None = None,
) -> float:
    """The chance that the bid ``quantity`` x ``face`` is true (at least that many count)."""
    return float(chance_fraction(quantity, face, dice_in_play, wild_aces=wild_aces, own=own))


def chance_exact(
    quantity: int,
    face: int,
    dice_in_play: int,
    *,
    wild_aces: bool = True,
    own: Sequence[int] | None = None,
) -> float:
    """The chance that exactly ``quantity`` dice count (what an exact call bets on)."""
    known, unknown = _split(face, dice_in_play, wild_aces, own)
    sixths = _sixths(face, wild_aces)
    need = quantity - known
    return float(_at_least(unknown, need, sixths) - _at_least(unknown, need + 1, sixths))


def expected(
    face: int,
    dice_in_play: int,
    *,
    wild_aces: bool = True,
    own: Sequence[int] | None = None,
) -> float:
    """The expected number of dice that count for ``face``."""
    known, unknown = _split(face, dice_in_play, wild_aces, own)
    return known + unknown * _sixths(face, wild_aces) / 6


@dataclass(frozen=True, slots=True)
class BidOdds:
    """The odds of one bid at the table."""

    quantity: int
    face: int
    chance: float  # the bid is true
    chance_exact: float  # exactly that many
    expected: float  # dice expected to count for the face


def bid_odds(
    game: Game,
    quantity: int | None = None,
    face: int | None = None,
    *,
    own: Sequence[int] | None = None,
) -> BidOdds | None:
    """The odds of a bid (default: the standing bid) in ``game``'s current round.

    Uses the dice in play and whether aces are wild this round (not in palifico); ``own``
    is one player's own dice when that player asks. None when there is no bid to judge.
    """
    if quantity is None or face is None:
        bid = game.bid
        if bid is None:
            return None
        quantity, face = bid.quantity, bid.face
    dice, wild = game.dice_in_play, game.aces_wild
    return BidOdds(
        quantity,
        face,
        chance(quantity, face, dice, wild_aces=wild, own=own),
        chance_exact(quantity, face, dice, wild_aces=wild, own=own),
        expected(face, dice, wild_aces=wild, own=own),
    )
