"""The picture the players check: every die outlined, the face that counts written on it.

A doubtful die (confidence below the threshold) is drawn differently, in orange with a
dashed outline and a question mark, so the eye goes to it first. A band at the top gives
the counts the referee would apply (at the bottom where dice lie under the top; no label is
written under it). Numbered, each die also carries its number in the
reading (from 1), so that a list of the dice can point at it. Given the seat zones, their
borders are drawn thin and each zone carries the name of the player the referee takes to sit
there. Dice too small for their labels (a photograph of a few hundred pixels) are drawn on a
copy enlarged by a whole number.
"""

from __future__ import annotations

import math
import statistics
import unicodedata
from collections.abc import Mapping
from dataclasses import replace

import cv2
import numpy as np

from vision.calibration import SeatZones
from vision.reading import Die, Reading

_SURE = (60, 200, 40)  # BGR green
_DOUBT = (0, 140, 255)  # BGR orange
_INK = (255, 255, 255)
_NUMBER = (40, 40, 40)
_ZONE = (200, 200, 200)  # the seat zones' borders, light grey and thin: the dice come first
_FONT = cv2.FONT_HERSHEY_SIMPLEX
# A picture whose dice measure less than this (their median, px) is drawn enlarged by the
# whole number that brings them to it, each pixel a square (a label is at least about 12 px
# tall: on dice of 8 px it hid them and their neighbours), as long as its longer side stays
# within _MOST_ENLARGED.
_LEGIBLE_DIE = 30
_MOST_ENLARGED = 2048
# The banner's letters shrink to fit a narrow picture down to this scale (about 9 px tall).
_SMALLEST_BANNER = 0.3


def annotate(
    image: np.ndarray,
    reading: Reading,
    doubtful_threshold: float | None = None,
    numbered: bool = False,
    seats: SeatZones | None = None,
    names: Mapping[int, str] | None = None,
) -> np.ndarray:
    """A copy of ``image`` with every die of ``reading`` outlined and its face written on it.

    ``doubtful_threshold``: dice below it are marked doubtful (default: the reading's own
    threshold). ``numbered``: each die also shows its place in ``reading.dice``, from 1.
    ``seats``: the seat zones (in the image's pixels), their borders drawn, and in each the
    name ``names`` gives its seat number: players seated otherwise than the zones were
    taken for see their names in the wrong places, from the first picture.
    The image is not changed; the copy is enlarged where the dice are small in it.
    """
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    out, reading = _enlarged(out, reading)
    threshold = reading.doubt_threshold if doubtful_threshold is None else doubtful_threshold
    doubtful = [d for d in reading.dice if d.confidence < threshold]
    # Sure dice first, so a doubtful die's mark is never hidden under a neighbour's.
    order = sorted(range(len(reading.dice)), key=lambda i: reading.dice[i].confidence < threshold)
    banner = _Banner(out, reading, len(doubtful))
    if seats is not None and seats.seats:
        times = out.shape[1] / image.shape[1]
        _zones(out, seats.scaled(times, times), names or {}, reading.dice, banner.box)
    for i in order:
        die = reading.dice[i]
        _mark(out, die, die.confidence < threshold, i + 1 if numbered else None, banner.box)
    banner.draw(out)
    return out


def _enlarged(image: np.ndarray, reading: Reading) -> tuple[np.ndarray, Reading]:
    """The picture and its reading enlarged so that the dice measure ``_LEGIBLE_DIE``."""
    if not reading.dice:
        return image, reading
    size = statistics.median(d.size for d in reading.dice)
    times = min(math.ceil(_LEGIBLE_DIE / max(size, 1)), _MOST_ENLARGED // max(image.shape[:2]))
    if times <= 1:
        return image, reading
    big = cv2.resize(image, None, fx=times, fy=times, interpolation=cv2.INTER_NEAREST)
    middle = times // 2  # a pixel's middle, enlarged
    dice = tuple(replace(d, x=d.x * times + middle, y=d.y * times + middle, size=d.size * times)
                 for d in reading.dice)
    return big, replace(reading, dice=dice, width=big.shape[1], height=big.shape[0])


Box = tuple[int, int, int, int]  # x0, y0, x1, y1


def _zones(out: np.ndarray, zones: SeatZones, names: Mapping[int, str], dice: tuple[Die, ...],
           band: Box) -> None:
    """The zones' borders, and each seat's name in its zone, on no die where there is room."""
    height, width = out.shape[:2]
    thick = max(1, round(width / 900))
    reach = math.hypot(width, height)

    def point(x: float, y: float) -> tuple[int, int]:  # a zone far off the picture: no overflow
        return (round(min(max(x, -reach), 2 * reach)), round(min(max(y, -reach), 2 * reach)))

    if zones.polygons:
        for polygon in zones.polygons:
            points = np.array([point(x, y) for x, y in polygon], np.int32)
            cv2.polylines(out, [points], True, _ZONE, thick, cv2.LINE_AA)
    else:
        cx, cy = zones.centre
        for seat in range(1, zones.count + 1):  # each sector's border on one side
            angle = math.radians(zones.sector_angle(seat) + 180.0 / zones.count)
            end = point(cx + reach * math.cos(angle), cy + reach * math.sin(angle))
            cv2.line(out, point(cx, cy), end, _ZONE, thick, cv2.LINE_AA)
    # Taken up: the dice's outlines (and their labels above them), the banner, names written.
    taken = [(round(d.x - 0.6 * d.size) - 2, round(d.y - 1.1 * d.size) - 2,
              round(d.x + 0.6 * d.size) + 2, round(d.y + 0.6 * d.size) + 2) for d in dice]
    taken.append(band)
    for seat, name in sorted(names.items()):
        if not 1 <= seat <= zones.seats:
            continue
        text = _drawn_name(seat, name)
        largest = max(0.5, width / 1100)
        (tw, _), _ = cv2.getTextSize(text, _FONT, largest, 1)
        largest = max(0.4, min(largest, largest * width / 5 / tw))  # a long name: at most a fifth
        # Smaller letters where the name fits wholly in a narrow zone only so, on no die.
        placed = []
        for scale in (largest, largest * 0.75, largest * 0.55):
            weight = max(1, round(scale * 1.8))
            (tw, th), base = cv2.getTextSize(text, _FONT, scale, weight)
            found = _place(zones, seat, (tw + 8, th + base + 8), (width, height), taken)
            if found is not None:
                placed.append((found[0], -scale, found[1], scale, weight, base))
                if found[0] == (False, 0, 0):
                    break
        if not placed:
            continue
        _, _, box, scale, weight, base = min(placed)
        taken.append(box)
        x0, y0, x1, y1 = box
        patch = out[y0:y1, x0:x1]
        patch[:] = (patch * 0.35).astype(np.uint8)
        cv2.putText(out, text, (x0 + 4, y1 - base - 4), _FONT, scale, _ZONE, weight, cv2.LINE_AA)


def _drawn_name(seat: int, name: str) -> str:
    """A seat's name as the picture's font can write it, with the seat's number (the page
    shows each player's): accents dropped ("Zoe (3)" for Zoë); a name of letters the font
    has none of (Chinese, emoji), the number alone ("seat 3"), never question marks."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    folded = " ".join("".join(c for c in folded if c.isprintable()).split())
    return f"{folded} ({seat})" if any(c.isalnum() for c in folded) else f"seat {seat}"


def _place(zones: SeatZones, seat: int, size: tuple[int, int], picture: tuple[int, int],
           taken: list[Box]) -> tuple[tuple[bool, int, float], Box] | None:
    """Where a seat's name goes: a box of ``size`` in its zone on nothing ``taken``, wholly in
    the zone where it can be (by nine points of it: a concave zone written by hand may still
    reach round it); else on as little as can be. Looked for from the picture's
    edge inwards along its sector (near the player), or from the polygon's middle outwards.
    With how well it fits: (on something taken, how many of nine points of it lie outside
    the zone, the pixels taken it covers). None: the zone has no room in the picture."""
    (bw, bh), (width, height) = size, picture
    if bw > width or bh > height:
        return None
    step = max(4, bh // 2)
    if zones.polygons:
        corners = zones.polygons[seat - 1]
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        middle = (sum(xs) / len(xs), sum(ys) / len(ys))
        # Within the picture only: a zone written by hand may reach far beyond it.
        spots = [(x, y) for y in np.arange(max(0, min(ys)), min(height, max(ys)) + 1, step)
                 for x in np.arange(max(0, min(xs)), min(width, max(xs)) + 1, step)]
        spots.sort(key=lambda p: math.hypot(p[0] - middle[0], p[1] - middle[1]))
    else:
        cx, cy = zones.centre
        span = 360.0 / zones.count
        # From the picture's farthest corner to its nearest point (a centre off the picture),
        # in steps of half a name's height, at most 400 a ray.
        far = max(math.hypot(x - cx, y - cy) for x in (0, width) for y in (0, height))
        near = math.hypot(max(-cx, 0, cx - width), max(-cy, 0, cy - height))
        radii = np.linspace(far, near, min(400, int((far - near) / step) + 2))
        spots = [(cx + r * math.cos(a), cy + r * math.sin(a))
                 for a in (math.radians(zones.sector_angle(seat) + f * span)
                           for f in (0.0, -0.15, 0.15, -0.3, 0.3))
                 for r in radii]
        spots.sort(key=lambda p: -math.hypot(p[0] - cx, p[1] - cy))
    best: tuple[tuple[bool, int, float], Box] | None = None
    for x, y in spots:
        if not (0 <= x < width and 0 <= y < height) or zones.seat_at(x, y) != seat:
            continue
        x0 = int(min(max(0, x - bw / 2), width - bw))
        y0 = int(min(max(0, y - bh / 2), height - bh))
        box = (x0, y0, x0 + bw, y0 + bh)
        # How much of it lies outside the zone: of its corners, the middles of its sides and
        # its middle, those in another zone (a name across the picture's middle lay in four).
        outside = sum(zones.seat_at(px, py) != seat
                      for px in (box[0], (box[0] + box[2]) / 2, box[2])
                      for py in (box[1], (box[1] + box[3]) / 2, box[3]))
        covered = sum(_area(box, t) for t in taken)
        key = (covered > 0, outside, covered)
        if best is None or key < best[0]:
            best = (key, box)
            if key == (False, 0, 0):
                break
    return best


def _area(a: Box, b: Box) -> float:
    """How much of ``a`` ``b`` covers, in pixels."""
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


def _overlap(a: Box, b: Box) -> bool:
    return _area(a, b) > 0


def _mark(out: np.ndarray, die: Die, doubtful: bool, number: int | None, band: Box) -> None:
    colour = _DOUBT if doubtful else _SURE
    half = max(4, int(round(die.size * 0.6)))
    thick = max(2, int(round(die.size / 22)))
    top_left, bottom_right = (die.x - half, die.y - half), (die.x + half, die.y + half)
    if doubtful:
        _dashed_rectangle(out, top_left, bottom_right, colour, thick, dash=max(4, half // 3))
    else:
        cv2.rectangle(out, top_left, bottom_right, colour, thick, cv2.LINE_AA)
    text = f"{die.face}?" if doubtful else str(die.face)
    # Small labels: in a crowd of touching dice a big one would hide the neighbour's pips,
    # and on a die filling the picture, its own.
    scale = min(max(0.4, die.size / 75), 1.6)
    weight = max(1, int(round(scale * 1.8)))
    (tw, th), base = cv2.getTextSize(text, _FONT, scale, weight)
    # The label sits on the box's top-left corner, so the die's own pips stay visible; where
    # the picture ends there, or the banner lies, under the box; where neither has room (a
    # die filling the picture), inside its corner, or under the banner in the box.
    tall = th + base + 4
    # Within the picture's sides: a die its left edge cuts had its label drawn off it.
    x0 = min(max(0, die.x - half), out.shape[1] - tw - 4)
    top = die.y - half
    corner = (min(max(0, die.x - half + thick), out.shape[1] - tw - 4), max(0, top + thick))
    places = [(x0, top - tall), (x0, die.y + half), corner, (corner[0], band[3] + 2)]

    def fits(x: int, y: int) -> bool:
        inside = y >= 0 and y + tall <= out.shape[0]
        return inside and not _overlap((x, y, x + tw + 4, y + tall), band)

    x0, y0 = next((place for place in places if fits(*place)), corner)
    y1 = y0 + tall
    cv2.rectangle(out, (x0, y0), (x0 + tw + 4, y1), colour, -1)
    cv2.putText(out, text, (x0 + 2, y1 - base - 2), _FONT, scale, _INK, weight, cv2.LINE_AA)
    if number is not None:
        # The number under the box's bottom-right corner, smaller and dark: the face first.
        small = scale * 0.8
        (nw, nh), nbase = cv2.getTextSize(str(number), _FONT, small, weight)
        x1, top = die.x + half, die.y + half
        cv2.rectangle(out, (x1 - nw - 4, top), (x1, top + nh + nbase + 4), _NUMBER, -1)
        cv2.putText(
            out, str(number), (x1 - nw - 2, top + nh + 2), _FONT, small, _INK, weight, cv2.LINE_AA
        )


def _dashed_rectangle(
    out: np.ndarray,
    top_left: tuple[int, int],
    bottom_right: tuple[int, int],
    colour: tuple[int, int, int],
    thick: int,
    dash: int,
) -> None:
    (x0, y0), (x1, y1) = top_left, bottom_right
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
    for (ax, ay), (bx, by) in zip(corners, corners[1:], strict=False):
        length = math.hypot(bx - ax, by - ay)
        steps = max(1, int(length // dash))
        for i in range(0, steps, 2):
            t0, t1 = i / steps, min(1.0, (i + 1) / steps)
            p = (int(ax + (bx - ax) * t0), int(ay + (by - ay) * t0))
            q = (int(ax + (bx - ax) * t1), int(ay + (by - ay) * t1))
            cv2.line(out, p, q, colour, thick, cv2.LINE_AA)


class _Banner:
    """The counts written across the top of the picture, or across its bottom where fewer
    dice lie there (a die under the banner would be darkened, its face hidden)."""

    def __init__(self, out: np.ndarray, reading: Reading, doubtful: int) -> None:
        counts = "  ".join(f"{face}:{n}" for face, n in reading.counts.items())
        noun = "die" if reading.total == 1 else "dice"
        said = f"{reading.total} {noun}   {counts}"
        if doubtful:
            said += f"   {doubtful} doubtful"
        pleas = [plea for plea, why in (
            ("too dark: take it again", reading.too_dark),
            ("burnt out: take it again", reading.burnt_out),
            ("out of focus: take it again", reading.out_of_focus),
            ("smeared: take it again", reading.smeared),
            ("dice too small: take it closer", reading.too_small),
            ("squashed: take it square, unstretched" if reading.squashed
             else "slantwise: take it square", reading.slanted),
            ("most dice hard to read: take it again", reading.hard_to_read),
        ) if why]
        self.lines = ["   ".join([said, *pleas])]
        self.ink = _DOUBT if doubtful else _INK
        height, width = out.shape[:2]
        tw, th = self._fit(max(0.45, width / 1400), width)
        for lines in ([said, "   ".join(pleas)], [said, *pleas]):
            if tw + 12 <= width or not pleas:
                break
            # Cut off even at the smallest letters: the pleas on a line of their own, then
            # each on its own (before, a narrow picture's ended "7 doubtful   out of": a
            # helper's audit).
            self.lines = lines
            tw, th = self._fit(max(0.45, width / 1400), width)
        self.step = th + self.base + 6  # one line's height
        tall = self.step * len(self.lines) + 4
        right = min(width, tw + 12)
        top, bottom = (0, 0, right, tall), (0, height - tall, right, height)

        def under(box: Box) -> int:  # dice the band would cover, with room for their labels
            reach = [
                (d.x - d.size, d.y - d.size - tall, d.x + d.size, d.y + d.size + tall)
                for d in reading.dice
            ]
            return sum(_overlap(box, r) for r in reach)

        self.box = bottom if under(bottom) < under(top) else top

    def draw(self, out: np.ndarray) -> None:
        x0, y0, x1, y1 = self.box
        # Darken the band rather than paint it, so the table under it is still visible.
        band = out[y0:y1, x0:x1]
        band[:] = (band * 0.3).astype(np.uint8)
        for n, line in enumerate(reversed(self.lines)):
            at = (6, y1 - self.base - 5 - n * self.step)
            cv2.putText(out, line, at, _FONT, self.scale, self.ink, self.weight, cv2.LINE_AA)

    def _fit(self, scale: float, width: int) -> tuple[int, int]:
        """Set the letters' size: ``scale``, or smaller where the widest line would be cut
        off (no smaller than _SMALLEST_BANNER); the widest line's width and the height."""
        self.scale = scale
        for _ in range(2):
            self.weight = max(1, int(round(self.scale * 1.6)))
            sizes = [cv2.getTextSize(line, _FONT, self.scale, self.weight) for line in self.lines]
            tw, th = max(w for (w, _), _ in sizes), max(h for (_, h), _ in sizes)
            self.base = max(base for _, base in sizes)
            if tw + 12 <= width or self.scale <= _SMALLEST_BANNER:
                break  # a narrow picture: smaller letters, rather than the words cut off
            self.scale = max(_SMALLEST_BANNER, self.scale * (width - 12) / tw)
        return tw, th
