"""``Game``: the pure rules engine of the referee (no I/O, no threads, no hardware).

A game is driven by the record's action dicts: ``game.check(action)`` says why an action
is refused (MalformedAction / IllegalAction) without changing anything, and
``game.apply(action)`` checks it, applies it and returns what to announce.

The position is a handful of small immutable values (tuples, frozensets, ints) held in
slots, so a snapshot is one tuple of references: every accepted action pushes the
snapshot from before it, and ``undo`` pops it back. No inverse operations, no deep copies.

Leaving: RULES.md's "the round goes on". The bid of a player who left stays the bid to
beat, and a call on it, or a call whose caller or called player leaves during the reveal,
is settled as any other; the leaver has no die to lose. A pass, settled on the passer's
dice alone, cannot be once they left: a call on it is void (nobody loses a die).
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from companion import bidding, notation, rounds
from companion.actions import (
    CHECKS,
    KEYS,
    Checked,
    check_undo,
    dudo_call,
    exact_call_problem,
    locked_face,
    pass_problem,
)
from companion.announcement import Announcement
from companion.bid import Bid
from companion.calls import Call
from companion.errors import MalformedAction, check_keys, shown, unknown_player
from companion.rules import Rules, make_rules
from companion.said import Said

_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
# Characters that do not show by themselves but are part of a name as written: the joiners of
# emoji sequences (👩‍🚀) and of Persian and Indic words (مه‌ناز).
_JOINERS = frozenset("\u200c\u200d")
_TAGS = frozenset(map(chr, range(0xE0020, 0xE0080)))  # 🏴 + "gbeng" + cancel: England's flag
# Variation selectors: after a symbol or a digit (❤️, 1️⃣) or an ideograph, they choose how it
# is drawn; after anything else they show nothing.
_SELECTORS = frozenset([*map(chr, range(0xFE00, 0xFE10)), *map(chr, range(0xE0100, 0xE01F0))])
_UNSEEN = dict.fromkeys(map(ord, _JOINERS | _TAGS | _SELECTORS))  # left out when compared
# Cyrillic and Greek letters drawn as a Latin letter is: "Аna" with a Cyrillic А shows as
# "Ana" (compared as their Latin twins; since session 92, "Joһn" and "Luϲy" too).
_TWINS = str.maketrans(
    "АВЕКМНОРСТХаеорсухіјѕІЈЅΑΒΕΖΗΙΚΜΝΟΡΤΥΧο\u04bb\u0501\u04cf\u03f2\u04af\u051b\u051d\u03f3",
    "ABEKMHOPCTXaeopcyxijsIJSABEZHIKMNOPTYXohdlcyqwj",
)
# Characters Python counts as printable that show as nothing, or as a blank: a combining
# grapheme joiner, Hangul and Khmer fillers, Mongolian selectors, the blank braille cell.
_BLANK = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0")

# Two players' colours closer than this (in RGB, 0-255 a channel) are one colour on a phone:
# #dd3333 and #dd3335 both red. The page's own colours lie 81 apart or more.
_ALIKE = 40.0

RECORD_FORMAT = "dudo-record/1"
# The keys a record's header may carry (``seats``: each player's seat number, where one
# before them left the table); another is checked as an action's is (``errors.check_keys``).
HEADER_KEYS = ("game", "rules", "options", "players", "first", "colours", "seats")
ACTIONS = ("bid", "dudo", "calza", "pass", "reveal", "palifico", "undo", "leave")

# The position's slots, in snapshot order (see _snapshot/_restore).
_POSITION = (
    "_dice", "_left", "_palifico_used", "phase", "round", "_turn", "_direction",
    "_bid_q", "_bid_f", "_bidder", "_bids", "_passed", "_passer", "_palifico",
    "_palifico_mode", "_call", "_winner", "_last_result", "_dice_lost", "_dice_regained",
    "_dice_left", "_wild", "_lifted", "_given", "began",
)  # fmt: skip


class Game:
    """One game at the table: players in seat order, the rules, and the position."""

    __slots__ = ("rules", "_names", "_seat", "_n", "header", "actions", "_history", "reopened",
                 *_POSITION)

    rules: Rules
    _names: tuple[str, ...]
    _seat: dict[str, int]
    _n: int
    header: dict[str, Any]
    actions: list[dict[str, Any]]
    _history: list[tuple[tuple[Any, ...], dict[str, Any]]]
    # The rounds an undo took back the end of (a reveal, a void call, the game won): their
    # dice may have been rolled again since. Not part of the position: an undo adds to it.
    reopened: frozenset[int]
    _dice: tuple[int, ...]
    _left: frozenset[int]
    _palifico_used: frozenset[int]
    phase: str
    round: int
    _turn: int | None
    _direction: int
    _bid_q: int
    _bid_f: int  # 0: no bid yet this round
    _bidder: int | None
    _bids: Said | None  # what has been said this round, the last first (companion.said)
    _passed: frozenset[int]
    _passer: int | None  # set while the last act of the round is a pass
    _palifico: int | None
    _palifico_mode: str | None
    _call: Call | None
    _winner: int | None
    _last_result: rounds.Result | None
    _dice_lost: int
    _dice_regained: int
    _dice_left: int
    _wild: bool
    _lifted: frozenset[int]  # lifted off one die by a calza: no palifico at their next fall
    _given: frozenset[int]  # a die of theirs went into another player's cup (dice_held_by_others)
    # Where this round began: the index in ``actions`` of the action that ended the last one
    # (-1 in the first round). A round played again after an undo took its start back began
    # elsewhere: its dice were rolled afresh.
    began: int

    def __init__(self, rules: Rules | str, players: Iterable[str], first: str | None = None):
        if isinstance(rules, str):
            rules = make_rules(rules)
        names = _check_players(rules, players)
        if first is None:
            first = names[0]
        elif first not in names:
            raise MalformedAction(f"{unknown_player(first, names)} named first")
        self.rules = rules
        self._names = names
        self._seat = {name: i for i, name in enumerate(names)}
        self._n = len(names)
        self.header = {
            "game": RECORD_FORMAT,
            "rules": rules.preset,
            "options": rules.overrides(),
            "players": list(names),
            "first": first,
        }
        self.actions = []
        self._history = []
        self.reopened = frozenset()
        self._dice = (rules.dice,) * self._n
        self._left = self._palifico_used = self._lifted = self._given = frozenset()
        self.began = -1
        self.phase = "bidding"
        self.round = 1
        self._turn = self._seat[first]
        self._direction = 1
        self._bid_q = self._bid_f = 0
        self._bidder = self._passer = self._palifico = self._winner = None
        self._bids = None
        self._passed = frozenset()
        self._palifico_mode = None
        self._call = None
        self._last_result = None
        self._dice_lost = self._dice_regained = self._dice_left = 0
        self._wild = rules.wild_aces

    @classmethod
    def from_header(cls, header: Mapping[str, Any]) -> Game:
        """A new game from a record header line (``{"game": "dudo-record/1", ...}``)."""
        if not isinstance(header, Mapping):
            raise MalformedAction("the header must be a JSON object")
        # A key given null is a key not given, as in an action ("rules": null plays perudo).
        header = {key: value for key, value in header.items() if value is not None}
        if "game" not in header:
            raise MalformedAction(
                f"not a dudo record: the header has no 'game' (expected {RECORD_FORMAT!r})"
            )
        version = header["game"]
        if isinstance(version, str) and version.startswith("dudo-record/") and (
                version != RECORD_FORMAT):
            raise MalformedAction(
                f"a dudo record of another version: header 'game' is {shown(version)};"
                f" this dudo reads {RECORD_FORMAT!r}: replay it with the dudo that wrote it"
            )
        if version != RECORD_FORMAT:
            raise MalformedAction(
                f"not a dudo record: header 'game' is {shown(header['game'])}, "
                f"expected {RECORD_FORMAT!r}"
            )
        check_keys(header, HEADER_KEYS, "the header")
        if "players" not in header:
            raise MalformedAction("the header needs 'players'")
        rules = make_rules(header.get("rules", "perudo"), header.get("options"))
        game = cls(rules, header["players"], header.get("first"))
        if "colours" in header:
            game.header["colours"] = _colours(header["colours"], game.players)
        if "seats" in header:
            game.header["seats"] = _seats(header["seats"], game.players)
        return game

    # -- reading the position -------------------------------------------------------------

    @property
    def players(self) -> list[str]:
        """The players' names in seat order."""
        return list(self._names)

    @property
    def seats(self) -> list[int]:
        """Each player's seat number at the table (the panel's seat button), in seat order:
        the header's ``seats``, else 1, 2, 3... (another game of the same table keeps a
        player's seat when one before them has left)."""
        return list(self.header.get("seats") or range(1, len(self._names) + 1))

    @property
    def leavers(self) -> list[str]:
        """The players who left the table during the game, in seat order."""
        return [self._names[seat] for seat in sorted(self._left)]

    @property
    def settled_round(self) -> int | None:
        """The round the last reveal settled (its result's, in the state's ``last_result``),
        or None before the first."""
        return None if self._last_result is None else self._last_result.round

    @property
    def turn(self) -> str | None:
        """Who acts next, or None during a reveal and once the game is over."""
        return None if self._turn is None else self._names[self._turn]

    @property
    def winner(self) -> str | None:
        """The last player with dice, once the game is over."""
        return None if self._winner is None else self._names[self._winner]

    @property
    def bid(self) -> Bid | None:
        """The standing bid of this round, if any."""
        return Bid(self._bid_q, self._bid_f) if self._bid_f else None

    def dice(self, player: str) -> int:
        """How many dice ``player`` holds now (0 once out)."""
        seat = self._seat.get(player)
        if seat is None:
            raise MalformedAction(unknown_player(player, self._seat))
        return self._dice[seat]

    def dice_held_by_others(self) -> list[str]:
        """The players a die of whose went into another player's cup (a right dudo cruzado,
        a jinto), in seat order: the die keeps its colour, so at a table whose dice have their
        players' colours, that colour no longer tells whose die it is."""
        return [self._names[seat] for seat in sorted(self._given)]

    @property
    def dice_in_play(self) -> int:
        """Dice under the cups of the players still in the game."""
        return sum(self._dice)

    @property
    def dice_lost(self) -> int:
        """Dice out of sight now, in the bag or lid: lost and not won back by an exact call
        (with the dice in play and those taken by leavers, they make the starting dice)."""
        return self._dice_lost

    @property
    def dice_regained(self) -> int:
        """Dice won back from out of sight by exact calls."""
        return self._dice_regained

    @property
    def dice_left_with_players(self) -> int:
        """Dice taken out of play by players who left the table (not counted as lost)."""
        return self._dice_left

    @property
    def aces_wild(self) -> bool:
        """Whether aces count for every face in this round."""
        return self._wild

    def expected_dice(self) -> dict[str, int]:
        """How many dice each player must show at this reveal (a called pass: the passer)."""
        call = self._call
        if self.phase != "reveal" or call is None:
            return {}
        if call.kind == "pass":
            return {self._names[call.target]: self._dice[call.target]}
        return {self._names[i]: d for i, d in enumerate(self._dice) if d}

    def legal_bids(self, up_to: int | None = None) -> list[Bid]:
        """Every legal next bid of the player to act, ascending, quantities up to ``up_to``
        (default: the dice in play; see :mod:`companion.bidding` for the order)."""
        seat = self._turn
        if self.phase != "bidding" or seat is None:
            return []
        return bidding.generate(
            self.rules,
            (self._bid_q, self._bid_f) if self._bid_f else None,
            dice_in_play=sum(self._dice) if up_to is None else up_to,
            wild=self._wild,
            locked_face=locked_face(self, seat),
            palifico_round=self._palifico is not None,
            opener_dice=self._dice[seat],
            must_bid=not isinstance(dudo_call(self, seat), Call),
        )

    def can_call(self) -> dict[str, list[str]]:
        """Who may make each call now: ``{"dudo": [...], "calza": [...], "pass": [...]}``."""
        found: dict[str, list[str]] = {"dudo": [], "calza": [], "pass": []}
        if self.phase != "bidding":
            return found
        for seat, name in enumerate(self._names):
            if not self._dice[seat]:
                continue
            if isinstance(dudo_call(self, seat), Call):
                found["dudo"].append(name)
            if not exact_call_problem(self, seat):
                found["calza"].append(name)
            if not pass_problem(self, seat):
                found["pass"].append(name)
        return found

    def exact_call_refused(self) -> str | None:
        """Why no one may make the table's exact call on the standing bid now, as the player
        to act is told (spot on with half the dice gone, a pass standing), or None: someone
        may, the table has no exact call, or no bid stands."""
        if (self.phase != "bidding" or self.rules.exact_call == "none" or self._bidder is None
                or self._turn is None or self.can_call()["calza"]):
            return None
        if self.rules.exact_call == "exactomundo" and self._passer is None:
            # Two players left: one made the bid, the other acts next; neither may call it.
            return (f"exactomundo is neither {self._names[self._bidder]}'s on their own bid "
                    f"nor {self._names[self._turn]}'s, next to act: no one's with two players")
        return exact_call_problem(self, self._turn)

    def undoable(self) -> str | None:
        """The kind of action an undo would take back now (its record's ``action``), or None."""
        return self._history[-1][1]["action"] if self._history else None

    def state(self, *, referee: bool = False) -> dict[str, Any]:
        """The state JSON of DESIGN.md: public information only (``referee``: with the dice
        counts even when ``lost_dice_visible`` hides them from the table)."""
        return notation.state(self, referee=referee)

    def notation(self) -> str:
        """One line: ``"perudo r3 Ana:4 Ben:5* Caro:1 bid=5x3 palifico=Caro"``."""
        return notation.notation(self)

    def copy(self) -> Game:
        """An independent copy (its own record and undo stack)."""
        other = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(other, name, getattr(self, name))
        other.actions = list(self.actions)
        other._history = list(self._history)
        other.header = dict(self.header)
        return other

    def __repr__(self) -> str:
        return f"<Game {self.notation()}>"

    # -- acting ---------------------------------------------------------------------------

    def check(self, action: Mapping[str, Any]) -> dict[str, Any]:
        """Raise MalformedAction or IllegalAction if ``action`` may not be applied now; else
        the action as the record keeps it (only the keys it needs)."""
        record: dict[str, Any] = _checker(action)(self, action)[2]
        return record

    def apply(self, action: Mapping[str, Any]) -> list[Announcement]:
        """Check ``action``, apply it, keep it in ``actions``; return what to announce."""
        check = _checker(action)
        effect, args, record = check(self, action)
        if check is check_undo:  # an undo pops the stack, it pushes nothing
            self.actions.append(record)
            return effect(*args)
        self._history.append((self._snapshot(), record))
        self.actions.append(record)
        round_before = self.round
        said = effect(*args)
        if self.round > round_before:
            # A new round, its dice rolled afresh: where it began, and no round from it on
            # is one an undo reopened (an undo back to it reopens it again).
            self.began = len(self.actions) - 1
            if self.reopened:
                self.reopened = frozenset(r for r in self.reopened if r < self.round)
        return said

    def _next_active(self, seat: int, step: int) -> int:
        """The next seat with dice after ``seat`` going ``step`` (+1 clockwise)."""
        n, dice = self._n, self._dice
        i = (seat + step) % n
        while not dice[i]:
            i = (i + step) % n
        return i

    def _snapshot(self) -> tuple[Any, ...]:
        return (
            self._dice, self._left, self._palifico_used, self.phase, self.round, self._turn,
            self._direction, self._bid_q, self._bid_f, self._bidder, self._bids, self._passed,
            self._passer, self._palifico, self._palifico_mode, self._call, self._winner,
            self._last_result, self._dice_lost, self._dice_regained, self._dice_left,
            self._wild, self._lifted, self._given, self.began,
        )  # fmt: skip

    def _restore(self, snapshot: tuple[Any, ...]) -> None:
        (
            self._dice, self._left, self._palifico_used, self.phase, self.round, self._turn,
            self._direction, self._bid_q, self._bid_f, self._bidder, self._bids, self._passed,
            self._passer, self._palifico, self._palifico_mode, self._call, self._winner,
            self._last_result, self._dice_lost, self._dice_regained, self._dice_left,
            self._wild, self._lifted, self._given, self.began,
        ) = snapshot  # fmt: skip


def _checker(action: object) -> Callable[[Game, Mapping[str, Any]], Checked]:
    """The check for ``action``'s kind, or MalformedAction saying why there is none, or
    naming a key it carries misspelt."""
    if type(action) is dict:  # the hot path: a dict naming a known action, its keys only
        kind = action.get("action")
        if type(kind) is str and kind in CHECKS and action.keys() <= KEYS[kind]:
            return CHECKS[kind]
    if not isinstance(action, Mapping):
        raise MalformedAction(f"an action must be a JSON object, not {shown(action)}")
    kind = action.get("action")
    if not isinstance(kind, str) or kind not in CHECKS:
        if kind is None:
            raise MalformedAction("missing field 'action'")
        raise MalformedAction(f"unknown action {shown(kind)} (actions: {', '.join(ACTIONS)})")
    check_keys(action, KEYS[kind], f"the {kind}")
    return CHECKS[kind]


def _check_players(rules: Rules, players: Iterable[str]) -> tuple[str, ...]:
    if not isinstance(players, (list, tuple)):
        raise MalformedAction(f"players must be a list of names, not {shown(players)}")
    names = tuple(players)
    listed: set[str] = set()
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise MalformedAction(f"a player's name must be a non-empty text, not {shown(name)}")
        if not all(c.isprintable() or c in _JOINERS or c in _TAGS for c in name):
            # A line break would split the one-line messages that name players; half a
            # character (a lone surrogate) cannot be saved at all.
            raise MalformedAction(f"player name {shown(name)}: only printable characters",
                                  player=name, field="name")
        if name in listed:
            raise MalformedAction(f"player {shown(name)} is listed twice", player=name,
                                  field="name")
        listed.add(name)
    low, high = rules.min_players, rules.max_players
    if len(names) < low or (high is not None and len(names) > high):
        raise MalformedAction(
            f"{len(names)} player{'' if len(names) == 1 else 's'}: {rules.preset} seats"
            f" {rules.players_text()} players"
        )
    return names


NAME_MAX = 40  # characters of a new game's player name (the page's field takes 24)


def check_new_game(game: Game) -> None:
    """MalformedAction unless a new game may start as its header says: its names and colours
    (:func:`check_new_players`), and where the preset's first starter is player 1 (jinto),
    no other player named ``first``. (Records of earlier versions replay as written.)"""
    check_new_players(game.players, game.header.get("colours"))
    first, players = game.header["first"], game.players
    if game.rules.first_starter == "player 1" and first != players[0]:
        raise MalformedAction(
            f"at a {game.rules.preset} table player 1 opens the game: 'first' names"
            f" {shown(first)}, player 1 is {shown(players[0])} (the first of 'players')"
        )


def check_new_players(names: Sequence[str], colours: Mapping[str, str] | None = None) -> None:
    """MalformedAction unless a new game's names can be told apart on a phone: no spaces at
    either end, no character that does not show (but the joiners of emoji and of Persian and
    Indic words, between two that do, and the tags of flag emoji), no two that look the
    same, none longer than NAME_MAX; and no two players of one colour on the page.
    (Records and journals of earlier versions keep their names: only a new game is held to
    this.)"""
    looks: dict[str, tuple[str, str]] = {}  # each name as compared: the name, its look
    for name in names:
        if len(name) > NAME_MAX:
            # Its start, to know it by, and its length once: shown() adds a long text's.
            raise MalformedAction(f"player name {name[:20]!r}…: {len(name):,} characters, at"
                                  f" most {NAME_MAX}", player=name, field="name")
        if name != name.strip():
            raise MalformedAction(f"player name {shown(name)}: spaces at its start or end",
                                  player=name, field="name")
        for i, c in enumerate(name):
            joins = c in _JOINERS and 0 < i < len(name) - 1 and name[i + 1] not in _JOINERS
            selects = c in _SELECTORS and i > 0 and _selectable(name[i - 1])
            shows = c.isprintable() and c not in _BLANK and c not in _SELECTORS
            if not (shows or joins or selects or c in _TAGS):
                raise MalformedAction(f"player name {shown(name)}: it holds U+{ord(c):04X}, a"
                                      " character that does not show: type the name again",
                                      player=name, field="name")
        # "Zoë" typed on two phones may be two strings (ë as one character, or e and a
        # diaeresis), and a page shows two spaces as one: names that look the same are one;
        # so are names that differ only in capitals ("Ana" and "ana" are one player said).
        look = " ".join(unicodedata.normalize("NFC", name).translate(_UNSEEN).split())
        look = look.translate(_TWINS)
        if look.casefold() in looks:
            seen, seen_look = looks[look.casefold()]
            how = "looks the same as" if look == seen_look else "differs only in capitals from"
            raise MalformedAction(f"player {ascii(name)} {how} {ascii(seen)}:"
                                  " give each player a name of their own", player=name,
                                  field="name")
        looks[look.casefold()] = name, look
    holders: dict[str, str] = {}
    for name, colour in (colours or {}).items():
        for held, holder in holders.items():
            if math.dist(_rgb(held), _rgb(colour)) < _ALIKE:
                how = (f"the same colour ({held})" if held == colour.lower() else
                       f"colours too alike to tell apart ({held}, {colour.lower()})")
                raise MalformedAction(f"{holder} and {name} have {how}: give each player a"
                                      " colour of their own", player=name, field="colour")
        holders[colour.lower()] = name


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _selectable(c: str) -> bool:
    """Whether a variation selector after ``c`` changes how it is drawn: after a symbol or
    a digit (an emoji's colour, a keycap), or an ideograph."""
    kind = unicodedata.category(c)
    return kind[0] in "SN" or c in "#*" or (kind == "Lo" and "IDEOGRAPH" in unicodedata.name(c, ""))


def _seats(seats: object, players: list[str]) -> list[int]:
    """The header's ``seats`` (each player's seat number, in the players' order), checked:
    whole numbers from 1, rising, one a player."""
    if not isinstance(seats, list) or len(seats) != len(players) or not all(
            type(n) is int for n in seats):
        raise MalformedAction(f"header 'seats' must give each of the {len(players)} players a"
                              f" seat number, in their order, not {shown(seats)}")
    if seats[0] < 1 or any(b <= a for a, b in itertools.pairwise(seats)):
        raise MalformedAction(f"header 'seats' {shown(seats)}: seat numbers rise from 1 in"
                              " the players' order (the order of play)")
    return list(seats)


def _colours(colours: object, players: list[str]) -> dict[str, str]:
    """The header's ``colours`` (each player's colour on the page, ``"#rrggbb"``), checked."""
    if not isinstance(colours, Mapping):
        raise MalformedAction(f"header 'colours' must map players to colours, not {shown(colours)}")
    for player, colour in colours.items():
        if player not in players:
            raise MalformedAction(f"header 'colours': {shown(player)} is not a player")
        if not isinstance(colour, str) or not _COLOUR.match(colour):
            raise MalformedAction(
                f"header 'colours': {player}'s colour {shown(colour)} is not a #rrggbb colour"
            )
    return dict(colours)
