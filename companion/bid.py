"""A bid: "at least ``quantity`` dice on the whole table show ``face``".

``Bid`` is a small frozen value with a text form both ways: ``Bid.parse("5x3")`` and
``str(Bid(5, 3)) == "5x3"``. Whether one bid beats another depends on the table's rules,
so ordering lives in :mod:`companion.bidding`, not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from companion.errors import MalformedAction, said, shown

# Bids have no upper bound in the rules (RULES.md), and a record replays any; the table takes
# a new one up to the largest whole number a phone's page counts exactly (JavaScript's
# Number.MAX_SAFE_INTEGER), far past any table's dice, and offers none above it.
MAX_QUANTITY = 2**53 - 1
_TEXT = re.compile(r"\s*(\d+)\s*[xX]\s*(\d+)\s*")
_NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
)  # fmt: skip


def check_bid_fields(quantity: object, face: object) -> tuple[int, int]:
    """Return ``(quantity, face)`` as ints, or raise MalformedAction naming what is wrong."""
    # bool is an int subclass: ``true`` in a record is not a quantity.
    if type(quantity) is not int:
        raise MalformedAction(f"malformed bid: quantity {shown(quantity)} is not a whole number")
    if type(face) is not int:
        raise MalformedAction(f"malformed bid: face {shown(face)} is not a whole number")
    if not 1 <= face <= 6:
        raise MalformedAction(f"malformed bid: face {said(face)} (faces are 1-6)")
    if quantity < 1:
        raise MalformedAction(f"malformed bid: quantity {said(quantity)} (quantities start at 1)")
    return quantity, face


@lru_cache(maxsize=1024)
def bid_words(quantity: int, face: int) -> str:
    """``quantity`` dice of ``face`` as a player says it: ``"five 3s"``, ``"one ace"``."""
    amount = _NUMBER_WORDS[quantity] if quantity < len(_NUMBER_WORDS) else str(quantity)
    if quantity == 1:
        return f"{amount} ace" if face == 1 else f"{amount} {face}"
    return f"{amount} {faces_word(face)}"


def faces_word(face: int) -> str:
    """Dice of ``face`` as a player says it: ``"aces"``, ``"3s"``."""
    return "aces" if face == 1 else f"{face}s"


@dataclass(frozen=True, slots=True)
class Bid:
    """A bid of ``quantity`` dice showing ``face`` (1 is the ace)."""

    quantity: int
    face: int

    def __post_init__(self) -> None:
        check_bid_fields(self.quantity, self.face)

    @classmethod
    def parse(cls, text: str) -> Bid:
        """Read a bid written ``QxF`` (``"5x3"``: five 3s)."""
        match = _TEXT.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise MalformedAction(f"malformed bid: {shown(text)} (write quantity x face, like 5x3)")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.quantity}x{self.face}"

    def words(self) -> str:
        """The bid as a player says it: ``"five 3s"``, ``"one ace"``, ``"three aces"``."""
        return bid_words(self.quantity, self.face)

    def to_dict(self) -> dict[str, int]:
        """The bid's fields as in a record's ``bid`` action."""
        return {"quantity": self.quantity, "face": self.face}
