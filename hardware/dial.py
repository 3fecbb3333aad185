"""The bid being dialed: a position in the table's list of legal next bids.

The list comes from the referee (``table.legal_bids()``, ascending, the first being the
lowest legal raise); the dial only walks it. Turning steps through the list, clamped at
both ends, so the dial can never show a bid below the lowest legal raise. Tables without
an encoder use the quantity/face +/- buttons instead: they move a (quantity, face) pair
that starts at the same lowest raise, and the referee judges it when BID is pressed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

# The faces of a die, which the +/- buttons stay within.
FACES = range(1, 7)


class BidLike(Protocol):
    """Anything with a quantity and a face, such as the engine's ``Bid``."""

    @property
    def quantity(self) -> int: ...

    @property
    def face(self) -> int: ...


class DialBid(NamedTuple):
    """The bid shown on the dial, written as the record writes bids (``4x5``)."""

    quantity: int
    face: int

    def __str__(self) -> str:
        return f"{self.quantity}x{self.face}"


class BidDial:
    """The bid a player is about to make, chosen by turning or by +/- buttons."""

    def __init__(self) -> None:
        self._bids: list[DialBid] = []
        self._index = 0
        self._adjusted: DialBid | None = None

    def reset(self, bids: Sequence[BidLike], *, keep: bool = False) -> DialBid | None:
        """Start again from the lowest legal raise of a new list of legal bids; with
        ``keep``, stay on the bid dialed (or set by the +/- buttons) if the list holds it."""
        kept = self.current if keep else None
        self._bids = [DialBid(b.quantity, b.face) for b in bids]
        self._index = self._bids.index(kept) if kept in self._bids else 0
        self._adjusted = None
        return self.current

    @property
    def current(self) -> DialBid | None:
        """The bid shown, or None when there is no bid to make (no list, or empty)."""
        if self._adjusted is not None:
            return self._adjusted
        return self._bids[self._index] if self._bids else None

    @property
    def bids(self) -> list[DialBid]:
        return list(self._bids)

    def turn(self, steps: int) -> DialBid | None:
        """Move ``steps`` bids up the list (negative: down), stopping at either end."""
        if not self._bids:
            return None
        if self._adjusted is not None:
            # Turning after the +/- buttons continues from the adjusted bid when the list
            # holds it, else from where the dial last was.
            if self._adjusted in self._bids:
                self._index = self._bids.index(self._adjusted)
            self._adjusted = None
        self._index = min(max(self._index + steps, 0), len(self._bids) - 1)
        return self.current

    def adjust(self, quantity: int = 0, face: int = 0) -> DialBid | None:
        """Change the quantity and/or face by the given amounts (the +/- buttons).

        The quantity stays between 1 and the highest quantity the list offers and the
        face between 1 and 6; whether the result is a legal bid is the referee's call.
        """
        start = self.current
        if start is None:
            return None
        highest = max(b.quantity for b in self._bids)
        self._adjusted = DialBid(
            min(max(start.quantity + quantity, 1), highest),
            min(max(start.face + face, FACES.start), FACES.stop - 1),
        )
        return self._adjusted
