"""Settling a call once the dice are revealed: dudo, the exact calls, a called pass.

``settle`` is pure: given the rules, the pending call, each player's dice count and the
revealed faces, it says who loses or gains how many dice and who won the round. ``Game``
applies the result (palifico, elimination, the next round).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from companion.bid import bid_words
from companion.rules import Rules

EXACT_CALL_NAMES = {
    "calza": "Calza",
    "spot_on": "Spot on",
    "exactomundo": "Exactomundo",
    "jinto": "Jinto",
    "none": "Exact call",
}


class Call(NamedTuple):
    """A call waiting for its reveal.

    ``kind`` is the record action: ``dudo``, ``calza`` (the table's exact call) or ``pass``
    (a called pass). ``target`` is the bidder, or the passer for a called pass; ``quantity``
    and ``face`` the bid called (0 for a pass). ``cruzado``: a doubt made out of turn.
    """

    kind: str
    caller: int
    target: int
    quantity: int
    face: int
    cruzado: bool = False


class Settlement:
    """What a reveal decides. Seats are indexes into the game's players.

    ``changes``: seat -> dice gained (negative: lost); ``dice_lost``: dice that went out of
    sight; ``dice_regained``: dice that came back from out of sight; ``success``: the call
    was right.
    """

    __slots__ = ("count", "success", "changes", "dice_lost", "dice_regained", "loser",
                 "winner", "verdict")  # fmt: skip

    def __init__(self, count: int | None, success: bool):
        self.count, self.success = count, success
        self.changes: dict[int, int] = {}
        self.dice_lost = self.dice_regained = 0
        self.loser: int | None = None
        self.winner: int | None = None
        self.verdict = ""


def count_matching(faces: Sequence[int], face: int, *, wild: bool) -> int:
    """How many of ``faces`` count for a bid on ``face`` (aces too when wild)."""
    # list.count runs in C: this is on the referee's hot path, once per reveal.
    faces = faces if isinstance(faces, list) else list(faces)
    if wild and face != 1:
        return faces.count(face) + faces.count(1)
    return faces.count(face)


def is_pass_hand(faces: Sequence[int]) -> bool:
    """A hand that may pass: five dice making a full house, five of a kind, or all different.

    **Decision**: faces as shown, aces not wild, and exactly five dice (a player with fewer
    dice can only bluff a pass).
    """
    if len(faces) != 5:
        return False
    shape = sorted(Counter(faces).values())
    return shape in ([5], [2, 3], [1, 1, 1, 1, 1])


def call_name(rules: Rules, call: Call) -> str:
    """The call as the table says it: ``Dudo``, ``Dudo cruzado``, ``Spot on``, ``Called pass``."""
    if call.kind == "dudo":
        return "Dudo cruzado" if call.cruzado else "Dudo"
    if call.kind == "pass":
        return "Called pass"
    return EXACT_CALL_NAMES[rules.exact_call]


def settle(
    rules: Rules,
    call: Call,
    dice: Sequence[int],
    faces: Sequence[int],
    *,
    wild: bool,
    names: Sequence[str],
    out_of_sight: int,
) -> Settlement:
    """Decide a call: ``dice`` is each seat's count, ``faces`` the dice that count for it
    (every die shown for a bid, the passer's for a called pass), ``out_of_sight`` the dice
    lost so far and not won back (the only dice an exact call can give back)."""
    s = _settle(rules, call, dice, faces, wild=wild, names=names, out_of_sight=out_of_sight)
    if s.loser is not None and not dice[s.loser]:
        # RULES.md: a player who leaves is out, and the round goes on: a call on their bid,
        # or their own call, is settled all the same; they have no die left to lose.
        s.verdict += f" ({names[s.loser]} has left the table: no die to lose)"
    return s


def _settle(
    rules: Rules,
    call: Call,
    dice: Sequence[int],
    faces: Sequence[int],
    *,
    wild: bool,
    names: Sequence[str],
    out_of_sight: int,
) -> Settlement:
    caller, target = call.caller, call.target
    if call.kind == "pass":
        honest = is_pass_hand(faces)
        s = Settlement(count=None, success=not honest)
        if honest:
            _lose(s, dice, caller, 1)
            s.winner = target
            s.verdict = f"{names[target]}'s pass was real"
        else:
            _lose(s, dice, target, 1)
            s.winner = caller
            s.verdict = f"{names[target]}'s pass was a bluff"
        return s

    q = call.quantity
    count = count_matching(faces, call.face, wild=wild)
    if call.kind == "dudo":
        true = count >= q
        s = Settlement(count=count, success=not true)
        if true:
            # RULES.md: a wrong cruzado doubt costs one die whatever the loss option.
            amount = 1 if call.cruzado or rules.loss == "one" else max(1, count - q)
            _lose(s, dice, caller, amount)
            s.winner = target
            s.verdict = "the bid stands"
        else:
            amount = 1 if rules.loss == "one" else q - count
            _lose(s, dice, target, amount)
            s.winner = caller
            s.verdict = "the bid was false"
            if call.cruzado and s.dice_lost and dice[caller]:
                # The out-of-turn doubter takes one of the dice the bluffer loses (none if
                # they left the table: it goes out of sight).
                s.changes[caller] = 1
                s.dice_lost -= 1
            elif call.cruzado and s.dice_lost:
                s.verdict += f" ({names[caller]} has left the table: no die to take)"
        return s

    # An exact call: calza, spot on, exactomundo or jinto. Always one die either way.
    exact = count == q
    s = Settlement(count=count, success=exact)
    if not exact:
        _lose(s, dice, caller, 1)
        s.winner = target
        s.verdict = "not exact"
        return s
    s.winner = caller
    s.verdict = "exact"
    gone = next((seat for seat in (caller, target) if not dice[seat]), None)
    if gone is not None and (gone == caller or rules.exact_call == "jinto"):
        # No die comes back to a caller who left, and none is taken from a bidder who did.
        what = "to take" if rules.exact_call == "jinto" else "back"
        s.verdict = f"exact (no die {what}: {names[gone]} has left the table)"
    elif rules.exact_call == "jinto":
        # Jinto moves a die from the bidder to the caller: no cap, none created.
        s.changes[target] = -1
        s.changes[caller] = 1
        s.loser = target
    elif dice[caller] < rules.dice and out_of_sight:
        # RULES.md: the caller "gets one lost die back". Under dudo cruzado a player can be
        # under N with no die lost: the dice went to the doubters, and none is out of sight.
        s.changes[caller] = 1
        s.dice_regained = 1
    elif rules.lost_dice_visible:  # else the reason would tell the table the dice in play
        if dice[caller] == rules.dice:
            why = f"{names[caller]} has all {rules.dice}"
        elif dice[caller] > rules.dice:  # won above the start by dudo cruzado
            why = f"{names[caller]} has {dice[caller]}, and dice come back only up to {rules.dice}"
        else:
            why = "no die is out of sight"
        s.verdict = f"exact (no die back: {why})"
    return s


def _lose(s: Settlement, dice: Sequence[int], seat: int, amount: int) -> None:
    # Nobody loses more dice than they hold (a player who left holds none).
    lost = min(amount, dice[seat])
    if lost:
        s.changes[seat] = -lost
    s.dice_lost += lost
    s.loser = seat


def describe_call(rules: Rules, call: Call, names: Sequence[str]) -> str:
    """One sentence announcing a call: ``"Ben calls dudo on Ana's five 3s"``."""
    caller, target = names[call.caller], names[call.target]
    if call.kind == "pass":
        return f"{caller} calls {target}'s pass"
    bid = bid_words(call.quantity, call.face)
    if call.kind == "dudo":
        how = "dudo cruzado" if call.cruzado else "dudo"
        return f"{caller} calls {how} on {target}'s {bid}"
    if rules.exact_call == "spot_on":
        return f"{caller} calls {target}'s {bid} spot on"
    return f"{caller} calls {EXACT_CALL_NAMES[rules.exact_call].lower()} on {target}'s {bid}"
