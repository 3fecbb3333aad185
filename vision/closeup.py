"""Stage 2c: a close view, where the locator took each pip of a large die for an ace.

In a photograph taken close, a die fills much of the frame; shrunk for the locator, its
pips are the size of the dice it knows, and the face reader, shown one pip, sees an ace.
The die itself is seen whole by one more pass of the locator over the photograph scaled so
that a die 3.5 times a pip's size (then 2.5 times, then 6 times, while none is found) is
seen at the locator's size; where nothing at all is read surely, dice 25%, then 45%, then
70% of the photograph's side, until a look finds a die other than an ace (an ace may be a
larger die's pip). A pass that coarse shows the photograph a few dozen pixels across: it is
set in a margin of its own edge's colour, as a die on a wider table. Where that die has an
outline all round it and is read surely, the aces inside it are no more than its pips, and
nothing else inside is read surely, they were its pips: the die replaces them. Not every
pip of a close die is seen as an ace (of a 3, perhaps its middle and one corner), and two
small dice far apart on a plain table, each read as an ace or as nothing sure, are not the
pips of a die the colour of the table: the outline tells them apart, not where the aces
lie. A die the first pass already read surely, twice the aces' size or more, takes the aces
lying as pips within half its size for its own (seen this close, its size comes out short).
On the dev photographs and their 17 degradations this changes no reading; on close views
of them it turns most misreadings into the right die (README, "Close views and wide
views"; docs/dice-reader-log.md).
"""

from __future__ import annotations

import math
import statistics

import cv2
import numpy as np

from vision.classify import FaceRead, read_faces
from vision.config import ReaderConfig
from vision.locate import Candidate, locate_dice
from vision.nets import CROP_DIE_PX, DETECT_DIE_PX, Nets
from vision.sure import SURE, read_surely

# A die is 2.4-6 times the size the locator gives one of its pips: six where the pips are
# large enough to be seen as they are, less where they are small (the locator gives pips
# of a few pixels a size of 12-19 px). Looked at as a die 3.5 times a pip, the
# die is seen at 12-27 px, where the locator sees it whole; where that finds nothing, 2.5
# times (pips seen at more than twice their size: dice a third of the side, first seen
# by a look as coarse as vision.locate's first); then 6 times (a die half the photograph's
# side or more, its pips seen at their size by the first pass: the die 6-8 times that).
_DIE_PER_PIP = (3.5, 2.5, 6.0)
# The pips of a die lie within 0.35 of its side from its centre...
_INSIDE = 0.42
# ...and those of a 2 to a 6 reach from corner to corner, at least 0.4 of its side apart
# (0.33 of the size the locator gives it): aces inside a die already read, spread less, are
# dice beside it.
_SPREAD = 0.33
# A die already read, its size seen short this close: its pips lie within this share of it.
_READ_INSIDE = 0.5
# A die less than this many times an ace's size is of the ace's kind.
_LIKE = 2.0
# Where nothing is read surely: dice these shares of the photograph's side, the smallest
# first (a larger look may take a die for a pip of a larger one, and read it as an ace).
_NOTHING_SURE_DIE = (0.25, 0.45, 0.7)
# The pass shows the locator a table at least this many pixels across (at least three
# dice): a photograph smaller than that at the pass's scale is set in a margin first.
_SMALLEST_SIDE_PX = 48
# An outline is looked for along this many rays, the die seen this many pixels across; the
# median ray's strongest edge at least this share of the strongest: the two dice far apart
# taken for one die's pips came out at 0.03, dice found whole in close views at 0.1 or more.
_OUTLINE_RAYS = 32
_OUTLINE_PX = 64.0
_OUTLINE = 0.05
# A die looked for larger than this (a die filling a big photograph) is looked for in the
# photograph shrunk to make it this size first (a die size a config can name).
_LOOKED_AT_PX = 512.0


def see_close_dice(
    image: np.ndarray, candidates: list[Candidate], faces: list[FaceRead], nets: Nets
) -> tuple[list[Candidate], list[FaceRead]]:
    """The candidates and their faces, with the pips of each large die made that die.

    Looked for where two or more candidates are read as aces, and where nothing at all is
    read surely as a die (then the pips may not even have been seen: dice a quarter of the
    photograph's side across are looked for, and found only where read surely). Aces lying
    as pips do inside a die already read surely, twice their size or more, are its pips.
    """
    dice = [i for i, f in enumerate(faces) if f.die_probability >= 0.5]
    aces = [i for i in dice if faces[i].pips == 1]
    nothing_sure = not any(faces[i].probability >= SURE for i in dice)
    pip = statistics.median([candidates[i].size for i in aces]) if aces else 0.0
    if len(aces) >= 2:
        # Dice of the aces' size read surely as other faces: the aces are dice like them.
        if any(faces[i].probability >= SURE and faces[i].pips != 1
               and candidates[i].size < _LIKE * pip for i in dice):
            return candidates, faces
        # A die already read surely, twice the aces' size or more, with aces inside it:
        # its pips (its size, seen this close, may come out short: within half of it).
        gone: set[int] = set()
        for k in dice:
            big, read = candidates[k], faces[k]
            if big.size < _LIKE * pip or not read_surely(read) or read.pips == 1:
                continue
            inside = [i for i in aces if i not in gone and math.hypot(
                candidates[i].x - big.x, candidates[i].y - big.y) < _READ_INSIDE * big.size]
            if 2 <= len(inside) <= read.pips and _spread(candidates, inside) >= _SPREAD * big.size:
                gone.update(inside)
        if gone:
            return _without(candidates, faces, gone, [])
        sizes = [ratio * pip for ratio in _DIE_PER_PIP]
    elif nothing_sure:
        sizes = [max(image.shape[:2]) * share for share in _NOTHING_SURE_DIE]
    else:
        return candidates, faces
    aces_found: tuple[set[int], list[tuple[Candidate, FaceRead]]] | None = None
    for die in sizes:
        found, gone = _dice_seen_whole(image, candidates, faces, nets, dice, die, nothing_sure)
        # Where nothing was sure, a look that finds only aces may have found a large die's
        # pip: a coarser look may find the die itself.
        if found and (not nothing_sure or any(read.pips != 1 for _, read in found)):
            return _without(candidates, faces, gone, found)
        if found and aces_found is None:
            aces_found = gone, found
    if aces_found is not None:
        return _without(candidates, faces, *aces_found)
    return candidates, faces


def _without(
    candidates: list[Candidate],
    faces: list[FaceRead],
    gone: set[int],
    found: list[tuple[Candidate, FaceRead]],
) -> tuple[list[Candidate], list[FaceRead]]:
    """The candidates and their faces but those ``gone``, and the large dice ``found``."""
    kept = [pair for i, pair in enumerate(zip(candidates, faces, strict=True)) if i not in gone]
    kept += found
    return [c for c, _ in kept], [f for _, f in kept]


def _dice_seen_whole(
    image: np.ndarray,
    candidates: list[Candidate],
    faces: list[FaceRead],
    nets: Nets,
    dice: list[int],
    die: float,
    nothing_sure: bool,
) -> tuple[list[tuple[Candidate, FaceRead]], set[int]]:
    """The large dice a look for dice of size ``die`` finds, outlined all round, and reads
    surely, and the candidates inside them (their pips; ``dice``: the candidates read as
    dice): none where the look would be no coarser than the first pass."""
    found: list[tuple[Candidate, FaceRead]] = []
    gone: set[int] = set()
    if die <= DETECT_DIE_PX:
        return found, gone
    # The pass shrinks the photograph far more than this anyway.
    shrink = min(1.0, _LOOKED_AT_PX / die)
    small = image if shrink == 1.0 else cv2.resize(
        image, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
    margin = math.ceil(
        max(0.0, _SMALLEST_SIDE_PX * die * shrink / DETECT_DIE_PX - max(small.shape[:2])) / 2)
    for seen in locate_dice(_in_a_margin(small, margin), ReaderConfig(die_size=die * shrink),
                            nets):
        big = Candidate((seen.x - margin) / shrink, (seen.y - margin) / shrink,
                        seen.size / shrink, seen.score)
        if big.score < 0.5:
            continue
        inside = [i for i in dice if i not in gone and math.hypot(
            candidates[i].x - big.x, candidates[i].y - big.y) < _INSIDE * big.size]
        pips = [i for i in inside if faces[i].pips == 1]
        # A die read surely inside, other than an ace, is a die: these are small dice.
        if (len(pips) < 2 and not nothing_sure) or any(
                faces[i].probability >= SURE for i in inside if i not in pips):
            continue
        # A die has an outline all round it; two dice far apart on a plain table, each read
        # as an ace or as nothing sure, have bare table between them.
        if not _outlined(image, big):
            continue
        read = _read_large(image, big, nets)
        # No more of its pips seen as aces than it has.
        if read_surely(read) and len(pips) <= read.pips:
            found.append((big, read))
            gone.update(inside)
    # The look may see a die and, beside it, its pips as aces: no die lies inside another.
    return [(c, read) for c, read in found if not _a_pip_of(c, read, found)], gone


def _outlined(image: np.ndarray, die: Candidate) -> bool:
    """Whether an outline surrounds ``die``: on most rays from its middle, the strongest edge
    between 0.3 and 0.8 of its size (its sides and corners, whatever its size and turn) is at
    least ``_OUTLINE`` of the strongest edge on any ray. Two dice far apart on a plain table,
    taken for the pips of one die, leave most rays crossing bare table."""
    scale = _OUTLINE_PX / die.size
    half = 0.9 * die.size
    x0, y0 = max(0, int(die.x - half)), max(0, int(die.y - half))
    x1 = min(image.shape[1], int(die.x + half))
    y1 = min(image.shape[0], int(die.y + half))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return False
    window = cv2.resize(image[y0:y1, x0:x1], None, fx=scale, fy=scale,
                        interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    grey = cv2.GaussianBlur(cv2.cvtColor(window, cv2.COLOR_BGR2GRAY), (0, 0), 1.0)
    edges = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    angles = np.linspace(0, 2 * np.pi, _OUTLINE_RAYS, endpoint=False)[:, None]
    reach = np.linspace(0.3, 0.8, 24)[None, :] * _OUTLINE_PX
    xs = np.rint((die.x - x0) * scale + reach * np.cos(angles)).astype(int)
    ys = np.rint((die.y - y0) * scale + reach * np.sin(angles)).astype(int)
    seen = (xs >= 0) & (xs < edges.shape[1]) & (ys >= 0) & (ys < edges.shape[0])
    strongest = np.where(seen, edges[np.clip(ys, 0, edges.shape[0] - 1),
                                     np.clip(xs, 0, edges.shape[1] - 1)], -1.0).max(axis=1)
    rays = strongest[strongest >= 0]
    return rays.size > 0 and float(np.median(rays)) >= _OUTLINE * float(rays.max())


def _a_pip_of(c: Candidate, read: FaceRead, found: list[tuple[Candidate, FaceRead]]) -> bool:
    """Whether an ace lies as a pip inside a die of ``found`` other than an ace, at least
    twice its size (within half that die's size of its middle)."""
    return read.pips == 1 and any(
        other.pips != 1 and big.size >= _LIKE * c.size
        and math.hypot(c.x - big.x, c.y - big.y) < _READ_INSIDE * big.size
        for big, other in found)


def _read_large(image: np.ndarray, die: Candidate, nets: Nets) -> FaceRead:
    """The face of a large die, cut out of the photograph shrunk by area first (scaled down
    by far in one step, its pips would break into the pixels that happen to be sampled)."""
    shrink = min(1.0, 1.25 * CROP_DIE_PX / die.size)
    small = image if shrink == 1.0 else cv2.resize(
        image, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
    seen = Candidate(die.x * shrink, die.y * shrink, die.size * shrink, die.score)
    return read_faces(small, [seen], nets)[0]


def _in_a_margin(image: np.ndarray, margin: int) -> np.ndarray:
    """The photograph in a margin ``margin`` pixels wide of its edge's colour (the median
    of its outermost pixels): the table around it, without stretching a die at the edge."""
    if margin <= 0:
        return image
    edge = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    colour = [float(v) for v in np.median(edge, axis=0)]
    return cv2.copyMakeBorder(image, margin, margin, margin, margin, cv2.BORDER_CONSTANT,
                              value=colour)


def _spread(candidates: list[Candidate], pips: list[int]) -> float:
    """How far apart the furthest two of ``pips`` lie."""
    return max((math.hypot(candidates[i].x - candidates[j].x, candidates[i].y - candidates[j].y)
                for i in pips for j in pips), default=0.0)
