"""A simulated camera under the glass: renders dice of given faces and colours as it sees them.

The camera looks up through the glass, so it sees the face resting on the glass (the
face opposite the one that counts: ``7 - face`` pips) and sees it mirrored. Each frame has
the rounded, darker edges of the dice, pips of white, black or red, a soft reflection of
the lamp on the glass (glare), sensor noise, a slight blur, random positions and
rotations, and touching pairs. It serves the tests and ``dudo serve --sim``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from vision.calibration import Calibration, CameraSettings, SeatZones, sector_zones
from vision.render import (
    ACE_SYMBOLS,
    ACES,
    BACKGROUNDS,
    DEFAULT_PIPS,
    DIE_COLOURS,
    PACOS,
    PIP_COLOURS,
    PlacedDie,
    RenderOptions,
    draw_frame,
    nearest_die_colour,
)

__all__ = [
    "ACE_SYMBOLS",
    "ACES",
    "BACKGROUNDS",
    "DIE_COLOURS",
    "PACOS",
    "PIP_COLOURS",
    "SEAT_COLOURS",
    "PlacedDie",
    "RenderOptions",
    "Scene",
    "SimulatedCamera",
    "render_dice",
]

# Colours given to the seats in order when the players' colours are not given.
SEAT_COLOURS = ("red", "blue", "green", "yellow", "white", "purple", "orange", "black")


@dataclass(frozen=True)
class Scene:
    """A rendered frame (BGR) and the dice in it, the truth a test compares a reading with."""

    image: np.ndarray
    dice: tuple[PlacedDie, ...]
    view: str

    @property
    def counts(self) -> dict[int, int]:
        """How many dice show each face that counts, faces 1..6."""
        counts = dict.fromkeys(range(1, 7), 0)
        for die in self.dice:
            counts[die.face] += 1
        return counts


def render_dice(
    faces: Sequence[int],
    *,
    colours: str | Sequence[str] = "white",
    pip_colours: str | Sequence[str] | None = None,
    seed: int = 0,
    touching_pairs: int = 0,
    options: RenderOptions | None = None,
    **option_values: Any,
) -> Scene:
    """Render dice showing ``faces`` (the values that count) at random places on the glass.

    ``colours``/``pip_colours``: one name for every die or one per die. ``touching_pairs``
    pairs of dice are laid side by side, touching. Options are a RenderOptions or its
    fields as keywords (``render_dice([1, 6], background="light", exposure=0.3)``).
    """
    opts = replace(options or RenderOptions(), **option_values)
    rng = np.random.default_rng(seed)
    bodies = _per_die(colours, len(faces), "colours")
    pips = _per_die(pip_colours, len(faces), "pip_colours") if pip_colours else None
    looks = [
        (_check_face(face), body, pips[i] if pips else None)
        for i, (face, body) in enumerate(zip(faces, bodies, strict=True))
    ]
    region = _Region(opts.width, opts.height, None, 0)
    placed = _place([(look, region, None) for look in looks], opts, rng, touching_pairs)
    return Scene(draw_frame(placed, opts, rng), tuple(placed), opts.view)


class SimulatedCamera:
    """A frame source that renders the dice last given to ``set_dice`` (the simulated cups).

    Each player sits at a seat (in the order of ``seats_order``, or of the first dice set that
    names a player not seated yet: a new game) and their dice lie in that seat's sector of
    the glass, in their colour. ``calibration``
    gives the matching seat zones and colours; ``last_scene`` the truth of the last frame.
    """

    name = "sim"

    def __init__(
        self,
        seed: int | None = None,
        *,
        options: RenderOptions | None = None,
        seats: int = 6,
        touching: float = 0.25,
        seats_order: Sequence[str] = (),
    ) -> None:
        self.options = options or RenderOptions()
        self.seats = seats
        self.touching = touching
        self.last_scene: Scene | None = None
        self._rng = np.random.default_rng(seed)
        self._order: list[str] = list(seats_order)
        self._dice: dict[str, list[int]] = {}
        self._colours: dict[str, str] = {}

    def start(self) -> None:
        """Nothing to open: a simulated camera is always ready."""

    def close(self) -> None:
        """Nothing to release."""

    def set_dice(
        self, dice_by_player: Mapping[str, Sequence[int]], colours: Mapping[str, str] | None = None,
        seated: Sequence[str] | None = None,
    ) -> None:
        """Put these dice (faces that count, per player) under the lifted cups.

        ``colours`` gives a player's dice colour (default: their seat's colour): a die
        colour's name, or a ``"#rrggbb"`` (the player's colour on the page) for the die colour
        nearest it. ``seated``: every player of the game, in seat order, those out of dice
        too (default: as before, or the players of these dice if one of them is new). A face
        out of 1..6, an unknown colour or a player of these dice not seated is a ValueError
        and changes nothing.
        """
        dice = {p: [_check_face(f, p) for f in faces] for p, faces in dice_by_player.items()}
        unseated = [p for p in dice if seated is not None and p not in seated]
        if unseated:
            raise ValueError(f"{unseated[0]}: has dice but no seat (seated: {list(seated or [])})")
        colours = dict(colours or {})
        for player, colour in colours.items():
            if colour.startswith("#"):
                colours[player] = nearest_die_colour(colour)
            elif colour not in DIE_COLOURS:
                raise ValueError(
                    f"{player}: colour {colour!r} unknown (known: {', '.join(DIE_COLOURS)})"
                )
        if seated is not None:
            # The game's own seats: a smaller game after a big one is not laid in its sectors.
            self._order = list(seated)
        elif any(player not in self._order for player in dice):
            # Someone new at the glass: a new game, its players seated in its own order (the
            # players of earlier games leave their seats: a long run would need dozens).
            self._order = list(dice)
        self._dice = dice
        self._colours.update(colours)

    def colour_of(self, player: str) -> str:
        """The colour of a player's dice."""
        if player in self._colours:
            return self._colours[player]
        seat = self._order.index(player) if player in self._order else 0
        return SEAT_COLOURS[seat % len(SEAT_COLOURS)]

    @property
    def zones(self) -> SeatZones:
        """The seat sectors the dice are laid in, seat 1 at the bottom of the frame, the next
        seat anticlockwise in a frame from under the glass (clockwise in one from above)."""
        count = max(self.seats, len(self._order), 1)
        return sector_zones(count, self.options.width, self.options.height,
                            clockwise=self.options.view == "above")

    @property
    def calibration(self) -> Calibration:
        """A calibration matching this camera: its frame size, seat zones and colours."""
        opts = self.options
        return Calibration(
            camera=CameraSettings(source="sim", width=opts.width, height=opts.height),
            seats=self.zones,
            colours={p: self.colour_of(p) for p in self._order},
        )

    def seat_of(self) -> dict[str, int]:
        """Each player's seat number (from 1), in the order they sit."""
        return {p: i for i, p in enumerate(self._order, start=1)}

    def capture(self) -> np.ndarray:
        """Render the dice last set, at new random places; the truth goes to ``last_scene``."""
        zones = self.zones
        items = []
        for player, faces in self._dice.items():
            seat = self._order.index(player) + 1
            region = _Region(self.options.width, self.options.height, zones, seat)
            items += [((face, self.colour_of(player), None), region, player) for face in faces]
        pairs = sum(int(self._rng.random() < self.touching) for _ in range(len(items) // 2))
        placed = _place(items, self.options, self._rng, pairs)
        image = draw_frame(placed, self.options, self._rng)
        self.last_scene = Scene(image, tuple(placed), self.options.view)
        return self.last_scene.image


# -- placement -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Region:
    width: int
    height: int
    zones: SeatZones | None
    seat: int

    def sample(
        self, rng: np.random.Generator, size: float, wide: bool = False
    ) -> tuple[float, float]:
        """A place for a die of ``size`` in the region. ``wide``: anywhere in its sector out
        to the frame's corners, each die kept clear of the sector's borders at its own
        distance from the centre (a dozen seats' thin sectors hold five dice no other way)."""
        edge = size * 1.2
        if self.zones is None:
            return (
                float(rng.uniform(edge, self.width - edge)),
                float(rng.uniform(edge, self.height - edge)),
            )
        span = 360.0 / self.zones.count
        centre_angle = self.zones.sector_angle(self.seat)
        reach = min(self.width, self.height) / 2
        cx, cy = self.zones.centre
        if wide:
            radius = rng.uniform(reach * 0.3, math.hypot(self.width, self.height) / 2 - edge)
            half = max(0.0, math.radians(span / 2) - math.atan2(size * 0.9, radius))
            angle = math.radians(centre_angle) + rng.uniform(-half, half)
            return (cx + radius * math.cos(angle), cy + radius * math.sin(angle))
        # Stay clear of the sector's borders so a die never straddles two seats.
        half = math.radians(span / 2) - math.atan2(size * 0.9, min(self.width, self.height) * 0.3)
        angle = math.radians(centre_angle) + rng.uniform(-half, half)
        radius = rng.uniform(reach * 0.3, reach - edge)
        return (cx + radius * math.cos(angle), cy + radius * math.sin(angle))

    def holds(self, x: float, y: float, size: float) -> bool:
        edge = size * 0.75
        inside = edge <= x <= self.width - edge and edge <= y <= self.height - edge
        return inside and (self.zones is None or self.zones.seat_at(x, y) == self.seat)


_Look = tuple[int, str, str | None]
# How far apart two dice lie, centre to centre, in their sizes: as thrown, and crowded (no
# closer than two dice turned any way can lie: their diagonals).
_APART = 1.5
_CROWDED = 1.42
_THROWS = 5


def _place(
    items: Sequence[tuple[_Look, _Region, str | None]],
    opts: RenderOptions,
    rng: np.random.Generator,
    touching_pairs: int,
) -> list[PlacedDie]:
    """Random, non-overlapping places; the first dice of each touching pair side by side.
    Where the last dice of a crowded glass find no room, the dice are thrown again; where
    they never do (a dozen seats or more), over the whole of each sector."""
    for wide in (False, True):
        for _ in range(_THROWS):
            try:
                return _place_once(items, opts, rng, touching_pairs, wide)
            except ValueError as err:
                error = err  # thrown again
    raise error  # the last throw's


def _place_once(
    items: Sequence[tuple[_Look, _Region, str | None]],
    opts: RenderOptions,
    rng: np.random.Generator,
    touching_pairs: int,
    wide: bool = False,
) -> list[PlacedDie]:
    placed: list[PlacedDie] = []
    index = 0
    pairs_left = touching_pairs
    while index < len(items):
        pair = pairs_left > 0 and index + 1 < len(items) and items[index][1] == items[index + 1][1]
        count = 2 if pair else 1
        # Half a die's gap between dice, or on a crowded glass (sixty dice), less.
        for attempt in range(3000):
            apart = _APART if attempt < 400 else _CROWDED
            size = opts.die_size * float(rng.uniform(0.95, 1.05))
            x, y = items[index][1].sample(rng, size, wide)
            angle = float(rng.uniform(0, 90))
            spots = [(x, y, angle)]
            if pair:
                # Touching: same heading, one side's width apart, with a hair of a gap.
                heading = math.radians(angle + 90 * int(rng.integers(0, 4)))
                gap = size * float(rng.uniform(1.0, 1.04))
                spots.append(
                    (
                        x + gap * math.cos(heading),
                        y + gap * math.sin(heading),
                        angle + rng.uniform(-3, 3),
                    )
                )
            if all(items[index][1].holds(sx, sy, size) for sx, sy, _ in spots) and all(
                math.hypot(sx - d.x, sy - d.y) > apart * max(size, d.size)
                for sx, sy, _ in spots
                for d in placed
            ):
                break
        else:
            raise ValueError(
                f"cannot lay {len(items)} dice of {opts.die_size:.0f} px on a "
                f"{opts.width}x{opts.height} frame without overlap: fewer or smaller dice"
            )
        for offset, (sx, sy, sangle) in enumerate(spots):
            (face, body, pip), _, player = items[index + offset]
            pips = 7 - face if opts.view == "below" else face
            pip_colour = pip or DEFAULT_PIPS.get(body, "white")
            placed.append(PlacedDie(face, pips, sx, sy, size, sangle, body, pip_colour, player))
        pairs_left -= int(pair)
        index += count
    return placed


def _check_face(face: object, player: str | None = None) -> int:
    if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
        who = f"{player}: " if player else ""
        raise ValueError(f"{who}face {face!r} is not a die face (1..6)")
    return face


def _per_die(value: str | Sequence[str], count: int, what: str) -> list[str]:
    names = [value] * count if isinstance(value, str) else list(value)
    if len(names) != count:
        raise ValueError(f"{what}: {len(names)} given for {count} dice")
    known = DIE_COLOURS if what == "colours" else PIP_COLOURS
    for name in names:
        if name not in known:
            raise ValueError(f"{what}: {name!r} unknown (known: {', '.join(known)})")
    return names


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m vision.simulate``: time the rendering of a full table, save one frame."""
    parser = argparse.ArgumentParser(prog="python -m vision.simulate", description=main.__doc__)
    parser.add_argument("--frames", type=int, default=30, help="frames to render (default 30)")
    parser.add_argument("--players", type=int, default=6, help="players, 5 dice each")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", metavar="FILE", help="write the last frame to FILE")
    args = parser.parse_args(argv)
    camera = SimulatedCamera(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    times = []
    for _ in range(max(1, args.frames)):
        rolls = {f"P{i + 1}": [int(f) for f in rng.integers(1, 7, 5)] for i in range(args.players)}
        camera.set_dice(rolls)
        start = time.perf_counter()
        frame = camera.capture()
        times.append((time.perf_counter() - start) * 1000)
    size = f"{frame.shape[1]}x{frame.shape[0]}"
    print(
        f"rendered {len(times)} frames of {args.players * 5} dice at {size}: "
        f"median {statistics.median(times):.1f} ms, max {max(times):.1f} ms"
    )
    if args.out:
        import cv2

        cv2.imwrite(args.out, frame)
        print(f"last frame written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
