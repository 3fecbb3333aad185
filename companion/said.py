"""What has been said in a round, in order: its bids, calls, passes, declarations and leavings.

Kept as a chain that shares its past: saying one thing more leaves the chain before it as it
was, so the undo snapshot taken before each action holds the round's past once, not a copy of
it of its own (a round of 20,000 bids in a record typed by hand took 1.9 GB so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


# Equal only to itself, shown without its past: comparing or showing a chain of thousands
# of links link by link would go deeper than Python's recursion allows.
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Said:
    """The last thing said (``entry``, as ``("bid", seat, quantity, face)``) and all before it."""

    before: Said | None
    entry: tuple[Any, ...]

    def __repr__(self) -> str:
        return f"Said({self.entry!r}, after {len(in_order(self.before))} more)"


def in_order(last: Said | None) -> list[tuple[Any, ...]]:
    """Every entry of the chain that ends at ``last``, the first said first."""
    entries = []
    while last is not None:
        entries.append(last.entry)
        last = last.before
    entries.reverse()
    return entries
