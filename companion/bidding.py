"""Which bids may follow which: small named predicates and the generator of legal bids.

Everything here works on plain ints (quantity, face) so the engine can validate a bid
without building objects; ``Game`` composes these into its checks.

Order of bids (``rank``): bids are listed the way the rules rank them. When aces are not
wild (palifico, or ``wild_aces`` off) the ace is simply the lowest face: ``(q, f)`` ranks
by quantity, then face. When aces are wild, ``q`` aces ranks just above the highest face
bid it beats: above ``2q x 6`` under ``ceil_half`` (``q`` aces beats any face bid of up
to ``2q`` dice) and above ``(2q-1) x 6`` under ``half_plus_one``; ``2q+1`` of any face
beats it. Under ``ceil_half`` with ``quantity_or_face`` raises this is a total order and
the legal raises are exactly the bids that rank higher.
"""

from __future__ import annotations

from companion.bid import MAX_QUANTITY, Bid, faces_word
from companion.errors import said_bid
from companion.rules import Rules


def aces_needed(rules: Rules, quantity: int) -> int:
    """Least quantity of aces that may follow a face bid of ``quantity`` (aces wild)."""
    if rules.to_aces == "ceil_half":
        return (quantity + 1) // 2
    return quantity // 2 + 1


def leave_aces_needed(quantity: int) -> int:
    """Least quantity of a face that may follow a bid of ``quantity`` aces (aces wild)."""
    return 2 * quantity + 1


def opening_problem(rules: Rules, face: int, *, palifico_round: bool, opener_dice: int) -> str:
    """Why a round may not open on this face ("" when it may).

    Only aces are ever refused, outside palifico, by ``open_on_aces``.
    """
    if face != 1 or palifico_round:
        return ""
    if rules.open_on_aces == "one_die":
        if opener_dice == 1:
            return ""
        return "a round may open on aces only by a player with one die"
    return "a round may not open on aces"


def raise_problem(
    rules: Rules, prev_q: int, prev_f: int, q: int, f: int, *, wild: bool, locked_face: int
) -> str:
    """Why ``q x f`` does not raise ``prev_q x prev_f`` ("" when it does).

    ``wild``: aces are wild this round. ``locked_face``: in palifico, the face a bidder who
    may not change it must keep (0: free to change).
    """
    if locked_face:
        if f != locked_face:
            return f"the face is locked to {faces_word(locked_face)} in palifico"
        return "" if q > prev_q else "quantity must rise (the face is locked in palifico)"
    if wild:
        if prev_f == 1:
            if f == 1:
                return "" if q > prev_q else "quantity of aces must rise"
            need = leave_aces_needed(prev_q)
            return "" if q >= need else f"leaving aces needs at least {said_bid(need, f)}"
        if f == 1:
            need = aces_needed(rules, prev_q)
            return "" if q >= need else f"going to aces needs at least {said_bid(need, 1)}"
    # Plain comparison, the ace being the lowest face.
    if q > prev_q:
        return ""
    if q < prev_q or rules.raise_ == "quantity":
        return "quantity must rise"
    if f > prev_f:
        return ""
    lowest = " (the ace is the lowest face here)" if f == 1 and not wild else ""
    return f"same quantity needs a higher face{lowest}"


def lowest_raise(
    rules: Rules, prev_q: int, prev_f: int, face: int, *, wild: bool, locked_face: int
) -> int:
    """The least quantity of ``face`` that raises ``prev_q x prev_f`` (0: no quantity does)."""
    if locked_face:
        return prev_q + 1 if face == locked_face else 0
    if wild:
        if prev_f == 1:
            return prev_q + 1 if face == 1 else leave_aces_needed(prev_q)
        if face == 1:
            return aces_needed(rules, prev_q)
    if rules.raise_ == "quantity" or face <= prev_f:
        return prev_q + 1
    return prev_q


def rank(rules: Rules, quantity: int, face: int, *, wild: bool) -> tuple[int, int]:
    """Sort key of a bid in the rules' ascending order (see the module docstring)."""
    if wild and face == 1:
        top = 2 * quantity if rules.to_aces == "ceil_half" else 2 * quantity - 1
        return (top, 7)
    return (quantity, face)


def generate(
    rules: Rules,
    prev: tuple[int, int] | None,
    *,
    dice_in_play: int,
    wild: bool,
    locked_face: int,
    palifico_round: bool,
    opener_dice: int,
    must_bid: bool,
) -> list[Bid]:
    """Every legal next bid with a quantity up to ``dice_in_play``, in ascending order.

    ``prev`` is the standing bid, or None when the bid opens the round. A standing bid may
    already be above the dice in play: then no raise fits, and a player who may doubt it is
    offered none. A player who ``must_bid`` (who may not doubt the standing bid) is offered
    each face's lowest legal raise instead: their list is never empty.
    """
    found: list[tuple[int, int]] = []
    lowest: list[tuple[int, int]] = []
    for face in range(1, 7):
        if prev is None:
            if opening_problem(rules, face, palifico_round=palifico_round, opener_dice=opener_dice):
                continue
            low = 1
        else:
            low = lowest_raise(rules, prev[0], prev[1], face, wild=wild, locked_face=locked_face)
            if not low:
                continue
        found.extend((q, face) for q in range(max(low, 1), dice_in_play + 1))
        lowest.append((low, face))
    if not found and must_bid:
        found = [(q, f) for q, f in lowest if q <= MAX_QUANTITY]  # past it, none to offer
    found.sort(key=lambda qf: rank(rules, qf[0], qf[1], wild=wild))
    return [Bid(q, f) for q, f in found]
