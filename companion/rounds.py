"""How a round ends: reading a reveal, settling the call, losing and gaining dice,
palifico, elimination, the winner, and the opening of the next round; also leaving.

These functions work on a ``Game``'s position for it (``Game`` validates, then calls them);
they are kept here so that the engine's module stays about acting, not about settling.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from companion.announcement import Announcement
from companion.bid import bid_words
from companion.calls import Call, Settlement, call_name, count_matching, settle
from companion.errors import IllegalAction, MalformedAction, shown, unknown_player
from companion.said import Said

if TYPE_CHECKING:
    from companion.game import Game
    from companion.rules import Rules


@dataclass(slots=True)
class Shown:
    """The dice of a reveal action: per seat (``dice``) or one flat list (``faces``), and the
    dice the players corrected in the camera's reading before it counted (``corrected``: the
    record's entries, each ``{"player"?, "read", "face"}``)."""

    by_seat: dict[int, list[int]] | None
    faces: list[int] | None
    record: dict[str, Any]
    corrected: list[dict[str, Any]] = field(default_factory=list)


def dice_text(n: int) -> str:
    """``"1 die"``, ``"4 dice"``."""
    return "1 die" if n == 1 else f"{n} dice"


_FACES = frozenset(range(1, 7))
_INT = frozenset({int})


def _faces_problem(value: object, what: str) -> str:
    """Why ``value`` is not a list of faces ("" when it is)."""
    if type(value) is not list and type(value) is not tuple:
        return f"reveal: {what} must be a list of faces, not {shown(value)}"
    for face in value:
        # bool and float are refused: a die shows a whole number.
        if type(face) is not int or not 1 <= face <= 6:
            return f"reveal: {what}: face {shown(face)} (faces are 1-6)"
    return ""


def _all_faces(value: list[int]) -> bool:
    # Two set checks in C rather than a loop over every die (this runs at every reveal):
    # the values, then their types (True == 1 and 1.0 == 1 pass the first).
    try:
        return _FACES.issuperset(value) and _INT.issuperset(map(type, value))
    except TypeError:  # a list or an object among them, which a set cannot hold
        return False


def parse_reveal(
    action: Mapping[str, Any], seats: Mapping[str, int], names: Sequence[str]
) -> Shown:
    """Read a reveal action's ``dice`` or ``faces``; MalformedAction if it is not well-formed."""
    # A null is no value, as for every other key of an action (a writer may give both keys).
    has_dice, has_faces = action.get("dice") is not None, action.get("faces") is not None
    if has_dice == has_faces:
        raise MalformedAction(
            "reveal needs either 'dice' (each player's faces) or 'faces' (one list), not "
            + ("both" if has_dice else "neither")
        )
    if has_faces:
        raw_faces = action["faces"]
        reason = _faces_problem(raw_faces, "faces")
        if reason:
            raise MalformedAction(reason)
        faces = list(raw_faces)
        return _with_corrections(Shown(None, faces, {"action": "reveal", "faces": faces}),
                                 action.get("corrected"), seats)
    raw = action["dice"]
    if type(raw) is not dict and not isinstance(raw, Mapping):
        raise MalformedAction(f"reveal: dice must map each player to their faces, not {shown(raw)}")
    by_seat: dict[int, list[int]] = {}
    listed: dict[str, list[int]] = {}
    every: list[int] = []
    in_order, last = True, -1
    for name, faces in raw.items():
        seat = seats.get(name) if type(name) is str else None
        if seat is None:
            raise MalformedAction(f"reveal: {unknown_player(name, seats)}")
        if type(faces) is not list and type(faces) is not tuple:
            raise MalformedAction(_faces_problem(faces, f"{name}'s dice"))
        copied = by_seat[seat] = listed[name] = list(faces)  # the record keeps its own lists
        every += copied
        if seat < last:
            in_order = False
        last = seat
    if not _all_faces(every):
        for name, faces in raw.items():
            reason = _faces_problem(faces, f"{name}'s dice")
            if reason:
                raise MalformedAction(reason)
    if not in_order:  # the record lists players in seat order
        listed = {names[s]: by_seat[s] for s in sorted(by_seat)}
    record = {"action": "reveal", "dice": listed}
    return _with_corrections(Shown(by_seat, None, record), action.get("corrected"), seats)


def _with_corrections(shown_dice: Shown, raw: object, seats: Mapping[str, int]) -> Shown:
    """``shown_dice`` with the reveal's ``corrected`` entries read (None or absent: none);
    MalformedAction naming what is wrong. Each entry is a die of the camera's reading the
    players corrected before it counted: ``read`` the face the camera gave, ``face`` the one
    it shows (among the dice revealed: its player's, where it names one and they are listed)."""
    if raw is None:
        return shown_dice
    if type(raw) is not list:
        raise MalformedAction(f"reveal: corrected must be a list of dice, not {shown(raw)}")
    entries: list[dict[str, Any]] = []
    for entry in raw:
        if type(entry) is not dict:
            raise MalformedAction("reveal: a corrected die is an object with 'read' and"
                                  f" 'face', not {shown(entry)}")
        read, face, player = entry.get("read"), entry.get("face"), entry.get("player")
        for key, value in (("read", read), ("face", face)):
            if value is None:
                raise MalformedAction(f"reveal: a corrected die needs its '{key}' (the face"
                                      f" {'the camera read' if key == 'read' else 'it shows'})")
            if type(value) is not int or not 1 <= value <= 6:
                raise MalformedAction(
                    f"reveal: corrected die's {key} {shown(value)} (faces are 1-6)")
        if read == face:
            raise MalformedAction(f"reveal: a corrected die read as {read} and shown as {face}"
                                  " was not corrected")
        if player is not None and (type(player) is not str or player not in seats):
            raise MalformedAction(f"reveal: corrected die: {unknown_player(player, seats)}")
        entries.append({"player": player, "read": read, "face": face} if player is not None
                       else {"read": read, "face": face})
    if not entries:
        return shown_dice
    every = shown_dice.faces or [f for d in (shown_dice.by_seat or {}).values() for f in d]
    wanted = Counter(e["face"] for e in entries)
    over = wanted - Counter(every)
    if over:
        face = min(over)
        raise MalformedAction(f"reveal: {dice_text(wanted[face])} corrected to {face}, the"
                              f" reveal shows {every.count(face)}")
    for name in dict.fromkeys(e["player"] for e in entries if "player" in e):
        if shown_dice.by_seat is None:
            break  # one flat list: whose die is whose is not said
        theirs = shown_dice.by_seat.get(seats[name], [])
        asked = Counter(e["face"] for e in entries if e.get("player") == name)
        over = asked - Counter(theirs)
        if over:
            face = min(over)
            raise MalformedAction(f"reveal: {asked[face]} of {name}'s dice corrected to {face},"
                                  f" {name}'s dice show {theirs.count(face)}")
    shown_dice.corrected = entries
    shown_dice.record["corrected"] = entries
    return shown_dice


def corrected_text(corrected: Sequence[Mapping[str, Any]]) -> str:
    """``The players corrected the camera: Ben's die read as 4 is a 6; a die read as 2 is a
    3``."""
    dice = [(f"{e['player']}'s die" if "player" in e else "a die")
            + f" read as {e['read']} is a {e['face']}" for e in corrected]
    return "The players corrected the camera: " + "; ".join(dice)


def cups_in_turn(rules: Rules, call: Call, dice: Sequence[int]) -> list[int] | None:
    """The seats whose cups the boxed edition lifts one by one after a doubt, in turn,
    clockwise from the caller's left, until the bid is reached; None where every cup comes up
    (``every_cup``)."""
    if every_cup(rules, call) is not None:
        return None
    seats = [(call.caller + step) % len(dice) for step in range(1, len(dice) + 1)]
    return [seat for seat in seats if dice[seat]]


def every_cup(rules: Rules, call: Call) -> str | None:
    """Why every cup comes up for ``call``, said when a cup is missing from a reveal: "" at
    the tables whose cups all come up anyway (the other presets; a called pass shows the
    passer's), a reason where the boxed edition's would be lifted in turn but for the call
    (an exact call) or the count (``loss = difference`` needs every die); None where they are
    lifted in turn (a doubt)."""
    if rules.preset != "payroodo" or call.kind == "pass":
        return ""
    if call.kind != "dudo":
        return "every cup comes up for an exact call"
    if rules.loss != "one":
        return "every cup comes up under loss = difference, which counts every die"
    return None


def check_counts(
    shown: Shown,
    call: Call,
    dice: Sequence[int],
    names: Sequence[str],
    *,
    in_turn: Sequence[int] | None = None,
    wild: bool = True,
    every: str = "",
    left: frozenset[int] = frozenset(),
) -> list[int]:
    """The faces that count for ``call``, once the reveal shows every die it must.

    ``in_turn``: the boxed edition's reveal of a doubt (``cups_in_turn``), cups lifted one
    by one from the caller's left until the bid is reached; the players still under their
    cups then need not show (``wild``: whether aces count toward the bid). IllegalAction
    names who differs from the tracked counts, or whose cup must come up before the ones
    shown (``every``: why every cup must, where a doubt's need not; see ``every_cup``).
    ``left``: the seats of players who left the table (a die shown for one is named so).
    """
    if call.kind == "pass":
        expected = {call.target: dice[call.target]}
    else:
        expected = {seat: n for seat, n in enumerate(dice) if n}
    if shown.by_seat is None:
        faces = shown.faces or []
        total = sum(expected.values())
        if len(faces) != total:
            if call.kind == "pass":
                passer = names[call.target]
                raise IllegalAction(
                    f"reveal shows {dice_text(len(faces))}, but a called pass is settled on"
                    f" {passer}'s {total} alone: show those as faces, or everyone's by player"
                    " as dice"
                )
            # Cups lifted in turn may leave some down: only dice given by player say which.
            turn = (": to show only the cups lifted in turn, give the dice by player"
                    if in_turn is not None else "")
            raise IllegalAction(
                f"reveal shows {dice_text(len(faces))}, but {total} must show{turn}")
        return faces
    by_seat = shown.by_seat
    for lifted, got in by_seat.items():  # a cup shown with a die too few is said first
        if lifted in expected and len(got) != expected[lifted]:
            raise IllegalAction(f"reveal shows {dice_text(len(got))} for {names[lifted]}, who"
                                f" has {expected[lifted]}")
    if in_turn is not None and not expected.keys() <= by_seat.keys():
        seat = _cup_still_needed(by_seat, in_turn, call, wild)
        if seat is None:
            expected = {seat: n for seat, n in expected.items() if seat in by_seat}
        elif later := [s for s in in_turn[in_turn.index(seat) + 1:] if s in by_seat]:
            raise IllegalAction(
                f"reveal shows no dice for {names[seat]}, who has {dice[seat]}: the cups are"
                f" lifted one by one from {names[call.caller]}'s left, {names[seat]}'s before"
                f" {names[later[0]]}'s"
            )
        else:
            raise IllegalAction(
                f"reveal shows no dice for {names[seat]}, who has {dice[seat]}: the dice shown"
                f" do not reach the bid, so more cups must be lifted"
            )
    for seat, n in expected.items():
        if seat not in by_seat:
            why = f": {every}" if every else ""
            raise IllegalAction(f"reveal shows no dice for {names[seat]}, who has {n}{why}")
    for seat, got in by_seat.items():
        if seat not in expected and len(got) != dice[seat]:
            who = (f"who has {dice[seat]}" if dice[seat]
                   else "who has left the table" if seat in left else "who is out")
            raise IllegalAction(f"reveal shows {dice_text(len(got))} for {names[seat]}, {who}")
    if call.kind == "pass":
        return by_seat[call.target]
    counted: list[int] = []
    for seat in expected:
        counted += by_seat[seat]
    return counted


def _cup_still_needed(
    by_seat: Mapping[int, list[int]], in_turn: Sequence[int], call: Call, wild: bool
) -> int | None:
    """The first cup in turn that must still come up before the count reaches the bid, or
    None when the cups shown in that order reach it."""
    count = 0
    for seat in in_turn:
        if seat not in by_seat:
            return seat
        count += count_matching(by_seat[seat], call.face, wild=wild)
        if count >= call.quantity:
            return None
    return None


def apply_reveal(game: Game, shown: Shown, counted: list[int]) -> list[Announcement]:
    """Settle the pending call on the revealed dice and open the next round (or end)."""
    rules, names, call = game.rules, game._names, game._call
    assert call is not None  # check_reveal made sure a call waits
    old = game._dice
    s = settle(rules, call, old, counted, wild=game._wild, names=names,
               out_of_sight=game._dice_lost)
    new = list(old)
    for seat, delta in s.changes.items():
        new[seat] += delta
    game._dice = tuple(new)
    if not s.dice_regained and any(delta > 0 for delta in s.changes.values()):
        # A die gained that did not come out of the bag came from the loser's cup.
        game._given = game._given | {seat for seat, delta in s.changes.items() if delta < 0}
    # dice_lost counts the dice out of sight now: a die won back leaves the bag.
    game._dice_lost += s.dice_lost - s.dice_regained
    game._dice_regained += s.dice_regained

    cups = _cups_lifted(names, shown, cups_in_turn(rules, call, old))
    summary = _reveal_text(game, call, s, cups)
    changes = _dice_changes(names, call, s, new)
    said = [Announcement("corrected", None, corrected_text(shown.corrected))] \
        if shown.corrected else []
    said += [Announcement("reveal", None, summary), *changes]

    palifico = None
    if rules.palifico != "none":
        for seat, delta in s.changes.items():
            if delta < 0 and old[seat] >= 2 and new[seat] == 1:
                if seat in game._lifted:
                    # RULES.md: a calza that lifted them off one die does not trigger a
                    # second palifico when they fall back to one, whatever the trigger.
                    game._lifted = game._lifted - {seat}
                elif rules.palifico == "every_time" or (
                    # `once`: the first time on one die; a game started on one die had it.
                    rules.dice > 1 and seat not in game._palifico_used
                ):
                    palifico = seat
    if palifico is not None:
        game._palifico_used = game._palifico_used | {palifico}
    if s.dice_regained and rules.exact_call == "calza" and old[call.caller] == 1:
        game._lifted = game._lifted | {call.caller}

    game._last_result = Result(game.round, call, s, shown, game._wild, summary, changes)
    if new.count(0) == len(new) - 1:
        return said + _end(game)
    if palifico is not None:
        opener = palifico
    else:
        base: int | None
        if call.kind == "calza" and rules.exact_call != "jinto":
            # RULES.md: the exact caller opens, right or wrong, whoever else would.
            base = call.caller
        elif rules.starter == "winner" or call.kind == "calza":
            base = s.winner  # jinto's exact call: the winner starts next, as its text says
        else:
            base = s.loser
        if base is None:
            base = call.caller
        # A player knocked out is replaced by the one on their left.
        opener = base if new[base] else game._next_active(base, 1)
    return said + start_round(game, opener, palifico)


def _reveal_text(game: Game, call: Call, s: Settlement, cups: str = "") -> str:
    names = game._names
    name = call_name(game.rules, call)
    if call.kind == "pass":
        return f"{name}: {s.verdict}"
    aces = " (aces wild)" if game._wild and call.face != 1 else ""
    bid = bid_words(call.quantity, call.face)
    return (
        f"{name} by {names[call.caller]} on {names[call.target]}'s {bid}: "
        f"{s.count} counted{aces}{cups}, {s.verdict}"
    )


def _dice_changes(
    names: Sequence[str], call: Call, s: Settlement, new: Sequence[int]
) -> list[Announcement]:
    said: list[Announcement] = []
    for seat, delta in s.changes.items():
        name = names[seat]
        if delta > 0:
            # A gain is a die regained (calza, spot on, exactomundo) or one taken from the
            # called player (jinto, dudo cruzado).
            if s.dice_regained:
                said.append(Announcement("gain", name, f"{name} gets a die back"))
            else:
                taken = names[call.target]
                said.append(Announcement("gain", name, f"{name} takes a die from {taken}"))
        elif delta < 0:
            said.append(Announcement("lose", name, f"{name} loses {_a_die(-delta)}"))
            if not new[seat]:
                said.append(Announcement("out", name, f"{name} is out"))
    return said


def _cups_lifted(names: Sequence[str], shown: Shown, in_turn: Sequence[int] | None) -> str:
    """Where the boxed edition's cups came up in turn and some stayed down, the cups counted
    and the others: ``" in Ben's and Caro's cups (Dan's and Ana's not lifted)"``; else ""."""
    by_seat = shown.by_seat
    if not in_turn or by_seat is None or all(seat in by_seat for seat in in_turn):
        return ""
    lifted = [names[seat] + "'s" for seat in in_turn if seat in by_seat]
    down = [names[seat] + "'s" for seat in in_turn if seat not in by_seat]
    return f" in {_and(lifted)} cup{'s' if len(lifted) > 1 else ''} ({_and(down)} not lifted)"


def _and(words: Sequence[str]) -> str:
    """``"Ana"``, ``"Ana and Ben"``, ``"Ana, Ben and Caro"``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _a_die(n: int) -> str:
    return "a die" if n == 1 else f"{n} dice"


class Result:
    """The last reveal's outcome, kept compact; ``to_dict`` makes the state's
    ``last_result`` (only the state needs the dict, so it is built only then)."""

    __slots__ = ("round", "call", "settlement", "shown", "wild", "summary", "said")

    def __init__(
        self,
        round_: int,
        call: Call,
        settlement: Settlement | None,
        shown: Shown | None,
        wild: bool,
        summary: str,
        said: Sequence[Announcement],
    ):
        self.round, self.call, self.settlement, self.shown = round_, call, settlement, shown
        self.wild, self.summary, self.said = wild, summary, said

    def to_dict(self, game: Game) -> dict[str, Any]:
        """``{call, caller, bidder, bid, count, faces_counted, losers, gainers, text, ...}``."""
        names, call, s = game._names, self.call, self.settlement
        changes = s.changes if s is not None else {}
        if call.kind == "pass" or s is None:
            counted: list[int] = []
        else:
            counted = [call.face, 1] if self.wild and call.face != 1 else [call.face]
        result: dict[str, Any] = {
            "round": self.round,
            "call": call.kind,
            "name": call_name(game.rules, call),
            "caller": names[call.caller],
            "bidder": names[call.target],
            "bid": None if call.kind == "pass" else {"quantity": call.quantity, "face": call.face},
            "cruzado": call.cruzado,
            "count": s.count if s is not None else None,
            "faces_counted": counted,
            "aces_wild": self.wild,
            "success": s.success if s is not None else None,
            "losers": {names[i]: -d for i, d in changes.items() if d < 0},
            "gainers": {names[i]: d for i, d in changes.items() if d > 0},
            "out": [a.player for a in self.said if a.kind == "out"],
            "void": s is None,
            "text": " ".join([self.summary + "."] + [a.text + "." for a in self.said]),
        }
        shown = self.shown
        if shown is not None and shown.by_seat is not None:
            result["dice"] = {names[seat]: list(f) for seat, f in sorted(shown.by_seat.items())}
        elif shown is not None:
            result["faces"] = list(shown.faces or [])
        return result


def start_round(game: Game, opener: int, palifico: int | None) -> list[Announcement]:
    """Open the next round: ``opener`` bids first; ``palifico`` names its palifico player."""
    rules = game.rules
    game.round += 1
    if rules.direction == "alternating":
        game._direction = -game._direction
    game._bid_q = game._bid_f = 0
    game._bidder = game._passer = game._call = None
    game._bids = None
    game._passed = frozenset()
    game._palifico = palifico
    game._palifico_mode = None if palifico is None else "closed"
    game._wild = rules.wild_aces and palifico is None
    game.phase = "bidding"
    game._turn = opener
    name = game._names[opener]
    if palifico is not None:
        return [Announcement("palifico", name, f"Palifico! {name} opens the round")]
    return opening(game)


def opening(game: Game) -> list[Announcement]:
    """Who opens the round under way (the first round's is said when the game starts)."""
    assert game._turn is not None
    name = game._names[game._turn]
    way = (
        ""
        if game.rules.direction == "clockwise"
        else (" (clockwise)" if game._direction == 1 else " (anticlockwise)")
    )
    return [Announcement("round", name, f"Round {game.round}: {name} opens{way}")]


def _end(game: Game) -> list[Announcement]:
    winner = next(i for i, n in enumerate(game._dice) if n)
    game.phase = "over"
    game._winner = winner
    game._turn = None
    game._call = None
    game._bid_q = game._bid_f = 0
    game._bidder = game._passer = game._palifico = game._palifico_mode = None
    game._wild = game.rules.wild_aces
    name = game._names[winner]
    return [Announcement("winner", name, f"{name} wins the game")]


def apply_leave(game: Game, seat: int) -> list[Announcement]:
    """``seat`` leaves: out at once, their dice leave play uncounted as lost."""
    names = game._names
    name = names[seat]
    dice = list(game._dice)
    game._dice_left += dice[seat]
    dice[seat] = 0
    game._dice = tuple(dice)
    game._left = game._left | {seat}
    said = [Announcement("leave", name, f"{name} leaves the table")]
    if sum(1 for n in dice if n) == 1:
        return said + _end(game)
    call = game._call
    if game.phase == "bidding":
        game._bids = Said(game._bids, ("leave", seat))
        if game._turn == seat:
            game._turn = game._next_active(seat, game._direction)
    elif call is not None and call.kind == "pass" and seat == call.target:
        said += void_call(game, call, seat)
    # Any other call waiting goes on to its reveal, the leaver's dice out of it (RULES.md:
    # "the round goes on"); a caller or called player who left has no die to lose.
    return said


def void_call(game: Game, call: Call, gone: int) -> list[Announcement]:
    """The call on a pass is void, the passer ``gone`` (their dice, which settle it, left
    the table with them): nobody loses a die, and the caller opens the next round (the
    player on their left, if they left the table too)."""
    other = call.caller if game._dice[call.caller] else game._next_active(call.caller, 1)
    text = f"{game._names[gone]} left: the call is void, nobody loses a die"
    game._last_result = Result(game.round, call, None, None, game._wild, text, ())
    return [Announcement("reveal", None, text), *start_round(game, other, None)]
