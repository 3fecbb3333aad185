"""Whose die is it: by the colour of the die or by the seat zone it lies in.

The referee knows how many dice each player must show at a reveal; every difference
between that and what the camera saw is written out in words, never hidden.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from vision.calibration import Calibration, SeatZones
from vision.reading import COLOUR_SPELLINGS, Die, Reading

# How far from its centre a die reaches, in its size read: about half its side.
_REACH = 0.4


@dataclass(frozen=True)
class Ownership:
    """The dice of a reading shared out among the players, and what disagrees.

    ``by`` says how owners were told apart: ``colour``, ``seat``, ``colour+seat`` (colour
    first, the seat zone for a die whose colour is nobody's) or ``none`` (neither is
    calibrated: only the total is checked). ``unowned`` are dice nobody could be given.
    ``seats``: the seat each player was taken to sit at, where seat zones are calibrated.
    ``ringed``: the dice (by ``id``) given out by the colour round their middle, not their
    middle's (a set's ace symbol filled it): ``colour`` names them so.
    """

    dice: Mapping[str, tuple[Die, ...]]
    unowned: tuple[Die, ...]
    disagreements: list[str]
    by: str
    seats: Mapping[str, int] = field(default_factory=dict)
    ringed: frozenset[int] = frozenset()

    @property
    def agrees(self) -> bool:
        """Whether every player shows exactly the dice expected and no die is left over."""
        return not self.disagreements

    def faces(self) -> dict[str, list[int]]:
        """Each player's faces that count, as the record's ``reveal`` action lists them."""
        return {player: sorted(d.face for d in dice) for player, dice in self.dice.items()}

    def seat_names(self) -> dict[int, str]:
        """Each seat zone's player, by seat number (empty where no zones are calibrated)."""
        return {seat: player for player, seat in self.seats.items()}

    def colour(self, die: Die) -> str:
        """The die's colour as its owner was told by it: round its middle where a set's ace
        symbol filled the middle with another player's colour, else its middle's."""
        return _shown_colour(die, self.ringed)

    def owners(self, reading: Reading) -> list[str | None]:
        """The owner of each die of ``reading``, in the reading's order (None: nobody's)."""
        owner = {id(die): player for player, dice in self.dice.items() for die in dice}
        return [owner.get(id(die)) for die in reading.dice]


def assign_owners(
    reading: Reading,
    calibration: Calibration,
    expected: Mapping[str, int],
    seat_of: Mapping[str, int] | None = None,
) -> Ownership:
    """Give each die of ``reading`` to a player and compare with the ``expected`` counts.

    A die belongs to the player whose colour (``calibration.colours``) it has, when exactly
    one expected player has that colour; otherwise to the player whose seat zone holds it,
    when seat zones are calibrated. A die of one player's colour in another player's zone
    (the first having a zone) is a disagreement. A die seen with one pip whose ring round
    the middle names another player's colour is weighed between the two (a set's ace symbol
    may fill its middle: :func:`_weigh_two_colours`). ``seat_of`` maps each player to a seat
    number from 1 (default: the order of ``expected``, the seat order the engine gives).
    """
    by_colour = _players_by_colour(calibration.colours, expected)
    zones = calibration.seats
    if not by_colour and zones.seats == 0:
        return Ownership({}, reading.dice, _colours_unused(calibration.colours, expected)
                         + _shared_colours(calibration.colours, expected, zones)
                         + _compare_total(reading, expected), "none")
    seats = dict(seat_of) if seat_of is not None else _seats_in_order(expected)
    player_at = {seat: player for player, seat in seats.items()}

    owned: dict[str, list[Die]] = {player: [] for player in expected}
    unowned: list[Die] = []
    astray: list[str] = []  # dice whose colour names one player and whose zone another
    # Dice whose zone alone tells whose they are, lying on its line to other players' zones:
    # (die, owner, those players).
    on_lines: list[tuple[Die, str, set[str]]] = []
    weighed = _weigh_two_colours(reading.dice, by_colour, zones, player_at, expected)
    ringed = frozenset(key for key, (_, by_ring) in weighed.items() if by_ring)
    for die in reading.dice:
        owner = weighed[id(die)][0] if id(die) in weighed else by_colour.get(_normal(die.colour))
        colour = _shown_colour(die, ringed)
        seat = zones.seat_at(die.x, die.y) if zones.seats > 0 else None
        in_zone_of = player_at.get(seat) if seat is not None else None
        reached = _seats_reached(zones, die) if zones.seats > 0 else set()
        if owner is None:
            owner = in_zone_of
            neighbours = {player_at[s] for s in reached - {seat} if s in player_at}
            if owner is not None and neighbours:
                on_lines.append((die, owner, neighbours))
        elif (in_zone_of not in (None, owner) and 0 < seats.get(owner, 0) <= zones.seats
              and seats[owner] not in reached):
            # A colour misread as another player's, or a stale [colours] table: said, so that
            # the reading waits for the players rather than settling on the wrong dice. (A
            # player seated past the zones has none: their colour alone tells their dice; a
            # die of the owner's colour lying across the line to the owner's zone is theirs.)
            astray.append(f"{owner}'s {colour} die at ({die.x}, {die.y}) lies in"
                          f" {in_zone_of}'s seat zone")
        if owner is None:
            unowned.append(die)
        else:
            owned.setdefault(owner, []).append(die)
    by = "colour+seat" if by_colour and zones.seats else "colour" if by_colour else "seat"
    return Ownership(
        dice={player: tuple(dice) for player, dice in owned.items()},
        unowned=tuple(unowned),
        disagreements=(_no_zone(seats, zones, by_colour, expected)
                       + _shared_colours(calibration.colours, expected, zones)
                       + _compare(owned, unowned, expected) + astray + _swapped(on_lines)),
        by=by,
        seats=seats if zones.seats else {},
        ringed=ringed,
    )


def _shown_colour(die: Die, ringed: frozenset[int]) -> str:
    return die.colour_round if id(die) in ringed and die.colour_round else die.colour


def _weigh_two_colours(
    dice: tuple[Die, ...],
    by_colour: Mapping[str, str],
    zones: SeatZones,
    player_at: Mapping[int, str],
    expected: Mapping[str, int],
) -> dict[int, tuple[str, bool]]:
    """The owners of the dice seen with one pip whose ring round the middle names another
    player's colour than the middle, by ``id`` of the die, each with whether the ring named
    them: a set's ace symbol fills the middle with its own colour (a red die's white paco),
    so either may be the body's.

    The die's seat zone decides where it is one of the two players', or where the middle
    names nobody (as for any die); else the one of them who still lacks a die, the other
    dice given out. Where that does not tell (both lack one, or neither), the middle's, as
    for any die. Every die weighed shows the same face, so that which of them goes to which
    player changes no player's faces.
    """
    two: dict[int, tuple[str | None, str]] = {}  # the middle's player and the ring's
    weighed: dict[int, tuple[str, bool]] = {}
    for die in dice:
        if die.colour_round is None:
            continue
        middle = by_colour.get(_normal(die.colour))
        ring = by_colour.get(_normal(die.colour_round))
        in_zone_of = _zone_player(die, zones, player_at)
        if ring is None or ring == middle or (middle is None and in_zone_of is not None):
            continue
        if in_zone_of is not None and in_zone_of in (middle, ring):
            weighed[id(die)] = (in_zone_of, in_zone_of == ring)
        else:
            two[id(die)] = (middle, ring)
    lacking = dict(expected)
    for die in dice:
        if id(die) in two:
            continue
        owner = weighed[id(die)][0] if id(die) in weighed else by_colour.get(_normal(die.colour))
        if owner is None:  # as assign_owners gives it: by its colour, else by its zone
            owner = _zone_player(die, zones, player_at)
        if owner is not None and owner in lacking:
            lacking[owner] -= 1
    while True:
        # One die at a time, each given to the one of its players who lacks a die: a die
        # given out may settle the next.
        settled = [(key, short[0]) for key, players in two.items() if key not in weighed
                   for short in [[p for p in players if p is not None and lacking.get(p, 0) > 0]]
                   if len(short) == 1]
        if not settled:
            return weighed
        key, owner = settled[0]
        weighed[key] = (owner, owner == two[key][1])
        lacking[owner] -= 1


def _zone_player(die: Die, zones: SeatZones, player_at: Mapping[int, str]) -> str | None:
    """The player whose seat zone holds the die's centre (None: no zones, or nobody's)."""
    seat = zones.seat_at(die.x, die.y) if zones.seats > 0 else None
    return player_at.get(seat) if seat is not None else None


def _swapped(on_lines: list[tuple[Die, str, set[str]]]) -> list[str]:
    """The dice that may have been swapped across a line between two players' zones: a die
    of one lying on the line to the other's zone, and one of the other's on the line back.
    A die pushed over the line, one each way, swapped two players' dice and matched every
    count; one die alone on a line changes a count, which is said, and dice merely near a
    line are each player's as their zones say."""
    notes = []
    for die, owner, neighbours in on_lines:
        back = sorted(n for n in neighbours
                      if any(o == n and owner in across for _, o, across in on_lines))
        if back:
            zones_of = [f"{name}'s" for name in (owner, *back)]
            notes.append(f"the {die.colour} die at ({die.x}, {die.y}) lies on the line between"
                         f" {', '.join(zones_of[:-1])} and {zones_of[-1]} seat zones")
    return notes


def size_mismatch(width: int, height: int, calibration: Calibration) -> tuple[str, ...]:
    """Why whose die is whose cannot be trusted: seat zones, in pixels, calibrated on
    pictures of another size than this ``width`` x ``height`` one (the camera or its
    resolution changed)."""
    if not calibration.seats.seats:
        return ()
    camera = calibration.camera
    if (width, height) == (camera.width, camera.height):
        return ()
    return (f"the picture is {width}x{height}, the seat zones were calibrated on"
            f" {camera.width}x{camera.height} pictures: calibrate again (dudo calibrate)",)


def _no_zone(
    seats: Mapping[str, int], zones: SeatZones, by_colour: Mapping[str, str],
    expected: Mapping[str, int],
) -> list[str]:
    """Why a player's dice are seen for no one: their seat has no zone (more players than the
    zones were calibrated for), and no colour of their own tells their dice."""
    if zones.seats == 0:
        return []
    coloured = set(by_colour.values())
    without = sorted((seat, player) for player, seat in seats.items()
                     if seat > zones.seats and player not in coloured
                     and expected.get(player, 0) > 0)
    if not without:
        return []
    named = ", ".join(f"{seat} ({player})" for seat, player in without)
    return [f"no seat zone for seat{'s' if len(without) > 1 else ''} {named}: the glass is"
            f" calibrated for {zones.seats} seats (dudo calibrate --seats"
            f" {max(seat for seat, _ in without)})"]


def _seats_reached(zones: SeatZones, die: Die) -> set[int]:
    """The seats whose zones the die reaches: at its centre, or about half its side from it
    (the size read is its upright box, about 1.2 times its side as dice lie)."""
    reach = _REACH * die.size
    points = [(die.x, die.y)] + [
        (die.x + reach * math.cos(k * math.pi / 4), die.y + reach * math.sin(k * math.pi / 4))
        for k in range(8)]
    return {seat for seat in (zones.seat_at(x, y) for x, y in points) if seat is not None}


def _normal(colour: str) -> str:
    colour = colour.strip().lower()
    return COLOUR_SPELLINGS.get(colour, colour)


def _seats_in_order(expected: Mapping[str, int]) -> dict[str, int]:
    return {player: number for number, player in enumerate(expected, start=1)}


def _holders(colours: Mapping[str, str], expected: Mapping[str, int]) -> dict[str, list[str]]:
    """Colour -> the expected players of that colour. A player is found in ``colours``
    whatever the capitals (``ana = "red"`` is Ana's: a game has no two names that differ only
    in capitals; it was nobody's, without a word)."""
    folded = {player.casefold(): colour for player, colour in colours.items()}
    holders: dict[str, list[str]] = {}
    for player in expected:
        colour = colours.get(player, folded.get(player.casefold()))
        if colour is not None:
            holders.setdefault(_normal(colour), []).append(player)
    return holders


def _players_by_colour(colours: Mapping[str, str], expected: Mapping[str, int]) -> dict[str, str]:
    """Colour -> player, for the colours that exactly one expected player has."""
    # Two players with the same colour cannot be told apart by colour: leave it to the seats.
    return {colour: players[0] for colour, players in _holders(colours, expected).items()
            if len(players) == 1}


def _colours_unused(colours: Mapping[str, str], expected: Mapping[str, int]) -> list[str]:
    """Why ``colours`` tells no die's owner, where it names none of the players."""
    if not colours or _holders(colours, expected) or len(expected) < 2:
        return []
    return [f"[colours] names none of this game's players ({', '.join(expected)}): whose die is"
            " whose is not known; only the total is compared"]


def _shared_colours(colours: Mapping[str, str], expected: Mapping[str, int],
                    zones: SeatZones) -> list[str]:
    """Why the dice of players of one colour are seen for no one, where no seat zones tell
    them apart (before, only that they were nobody's)."""
    if zones.seats:
        return []
    return [f"{', '.join(players[:-1])} and {players[-1]}"
            f" {'both' if len(players) == 2 else 'all'} have {colour} dice in [colours]: the"
            " camera cannot tell their dice apart (give each a colour of their own, or"
            " calibrate seat zones: dudo calibrate --seats N)"
            for colour, players in _holders(colours, expected).items() if len(players) > 1]


def _dice(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"


def _compare(
    owned: Mapping[str, list[Die]],
    unowned: list[Die],
    expected: Mapping[str, int],
) -> list[str]:
    notes = []
    for player, dice in owned.items():
        should = expected.get(player, 0)
        if len(dice) != should:
            notes.append(f"{player} should show {_dice(should)}, {len(dice)} seen")
    if unowned:
        where = ", ".join(f"{d.colour} at ({d.x}, {d.y})" for d in unowned)
        verb = "belongs" if len(unowned) == 1 else "belong"
        notes.append(f"{_dice(len(unowned))} {verb} to no player: {where}")
    return notes


def _compare_total(reading: Reading, expected: Mapping[str, int]) -> list[str]:
    should = sum(expected.values())
    if reading.total == should:
        return []
    return [f"the table should show {_dice(should)}, {reading.total} seen"]
