"""Stage 1: find every die in a photograph, its centre and its size, at any scale."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.config import ReaderConfig
from vision.nets import DETECT_DIE_PX, STRIDE, Nets, normalise

# The locator was trained on dice 9..30 px across but misses some below about 13 px:
# seen at 13.5-24 px one pass is enough, else the photograph is scaled again to bring the
# dice to DETECT_DIE_PX (a wide view of dice 11-13 px across is looked at closer). Any
# speck far smaller than that the locator takes for a die of at least 11-13 px, so in a big
# frame shrunk for a first look, dice seen smaller than _TRUSTED_PX may be much smaller
# than they seem: the next pass looks closer.
_SMALLEST_SEEN_PX = 13.5
_LARGEST_SEEN_PX = 24.0
_TRUSTED_PX = 15.0
# Dice seen by a pass at _SMALLEST_SEEN_PX..DETECT_DIE_PX (the middle of the sizes the
# locator learned) may be foreshortened: a camera at a slant sees their short side at 0.7
# of it, where touching dice are missed. The search looks again with them at this size,
# where the face reader reads one of them surely as a face other than an ace (it reads the
# pips of a die seen close, which a pass sees at that size too, as aces if surely at all).
_FORESHORTENED_AT_PX = 20.0
_FIRST_PASS_SIDE = 320
# Dice larger than about 36 px the locator does not see whole: it takes each pip for a die
# and gives sizes of 12-16 px, which a pass would trust, so a first pass at
# _FIRST_PASS_SIDE reads the pips of dice more than a ninth of the photograph's side
# (36/320). A coarser look first sees dice of 11-28% of the side whole (13.5-36 px of
# 128). The search starts from it where it sees at least _SEEN_WHOLE dice surely at a size
# it reads well, and most of its sure dice so; else from _FIRST_PASS_SIDE. (Dice larger
# still are vision.closeup's.)
_COARSE_SIDE = 128
_SEEN_WHOLE = 2
_MAX_SIDE = 1600
# A shrunk photograph's pass sure of dice seen at most this size (the largest it reads well)
# is checked for clusters of small dice (_closer_if_clusters) where it is sure of fewer than
# _FEW_SURE, or the face reader reads fewer than half of the _ASKED strongest surely.
_FEW_SURE = 4
_ASKED = 2 * _FEW_SURE
_CHECKED_PX = _LARGEST_SEEN_PX
_MAX_PASSES = 5
# Candidates this weak are not even shown to the face reader.
_MIN_HEAT = 0.15


@dataclass(frozen=True)
class Candidate:
    """A place that may hold a die: centre and size in pixels of the photograph."""

    x: float
    y: float
    size: float
    score: float


# The face reader's word on candidates, one answer each (``locate_dice``).
Check = Callable[[list[Candidate]], list[bool]]
Faces = Callable[[list[Candidate]], list[int]]


def locate_dice(
    image: np.ndarray,
    config: ReaderConfig,
    nets: Nets,
    are_dice: Check | None = None,
    sure_faces: Faces | None = None,
) -> list[Candidate]:
    """Every candidate die in a BGR photograph, strongest first.

    The die size comes from the config, or is found by passes over the photograph: the
    first shrunk to ``_COARSE_SIDE`` pixels where a look that coarse sees large dice
    whole, else to ``_FIRST_PASS_SIDE``, each next one at the scale the last one calls for
    (``_next_scale``; or twice as close where a few dice seen in a shrunk photograph are
    clusters of smaller ones, ``_closer_if_clusters``), so that a big frame of a wide table,
    its dice a few pixels across at first, and a photograph taken close are read at the
    scale their dice need.

    ``are_dice`` and ``sure_faces`` are the face reader's word on candidates (the
    reader's): which it takes for dice, and the pips of those it reads surely as one die (0
    for the others). Where a coarse look seems to see dice whole, only those it takes for
    dice count (a lamp's glare on a light glass, a blob that size, is no die, and with one
    or two dice on the table it would otherwise set the scale), and not where most of them
    are clusters of small dice (``_clusters_seen_whole``); a die it reads surely is no
    cluster of smaller dice (``_closer_if_clusters``).
    """
    h, w = image.shape[:2]
    largest = min(2.0, _MAX_SIDE / max(h, w))
    if config.die_size is not None:
        return _pass(image, min(DETECT_DIE_PX / config.die_size, largest), nets)
    first = min(1.0, _FIRST_PASS_SIDE / max(h, w))
    small = _shrunk(image, first)
    scale = min(1.0, _COARSE_SIDE / max(h, w))
    # The coarse look shrinks the first pass's photograph further: shrinking a big frame
    # costs more than that look.
    found = _look(_shrunk(small, scale / first, _sides(w, h, scale)), w, h, nets, coarse=True)
    if are_dice is not None and _seen_whole(found, scale):
        found = [c for c, die in zip(found, are_dice(found), strict=True) if die]
    if first > scale and _seen_whole(found, scale):
        # Seen this coarsely, a crowd of small dice may look like one die.
        first_found = _look(small, w, h, nets)
        twice = 2 * first
        deeper = (lambda die: _pass_around(image, die, twice, nets)) if twice <= largest else None
        if _clusters_seen_whole(found, scale, first_found, first, deeper, sure_faces):
            scale, found = first, first_found
    elif first > scale:
        scale = first
        found = _look(small, w, h, nets)
    for _ in range(_MAX_PASSES - 1):
        sure = _sure(found)
        better = _next_scale(sure, scale, largest)
        if (better is not None and _foreshortened(sure, scale)
                and not _of_dice(_sure_dice(found)[:_ASKED], sure_faces, least=1)):
            # Not one of them read surely as a die: they may be the pips of a die larger
            # than the locator sees whole (vision.closeup's), which looked at closer it
            # would take for dice.
            better = None
        if better is None:
            closer = _closer_if_clusters(image, found, scale, largest, nets, sure_faces)
            if closer is None:
                break
            scale, found = closer
            continue
        scale = better
        found = _pass(image, scale, nets)
    return found


def _closer_if_clusters(
    image: np.ndarray,
    found: list[Candidate],
    scale: float,
    largest: float,
    nets: Nets,
    sure_faces: Faces | None,
) -> tuple[float, list[Candidate]] | None:
    """A look twice as close, and its candidates, where the dice a shrunk photograph
    seemed to show are clusters of far smaller dice; else None.

    In a wide view (dice a percent or two of a big frame's side), a cluster of touching dice,
    shrunk to a few pixels each, looks like one die of the size the locator reads well, and
    the search would stop there. Seen twice as close, a die is still one die, a cluster
    breaks into dice half its size or less, most of them (two touching dice may still look
    like one). A die seen large (at most 48 px twice as close, where the locator may take
    its pips for dice) or whose pips show through it (a translucent die) may break so too,
    but the face reader, where it is asked (``sure_faces``), reads it surely as one
    die: such a die is no cluster. Where the dice seemed few, clusters if half of them break
    (a row of dice may also be read surely as one die, or break into dice the locator is not
    all sure of). Where they seemed few or the face reader reads fewer than half of the
    strongest surely, clusters if one breaks into dice read surely as faces other than an ace
    (``_of_dice``): the other clusters' dice may be too small to be sure of even twice as
    close, and a die seen close breaks into its pips, read as aces if surely at all. Where
    they seemed few, a crowd of dice a few pixels each may also be read surely as one die:
    clusters too if one of those breaks so (``_a_crowd_read_as_one``).
    """
    seen = _sure_dice(found)
    if (not seen or scale >= 0.5 or 2 * scale > largest
            or statistics.median([c.size for c in seen]) * scale > _CHECKED_PX):
        return None
    # The face reader is asked about the strongest few only: reading every die of a big
    # frame costs as much as a pass.
    asked = seen[:_ASKED]
    dice = [p > 0 for p in sure_faces(asked)] if sure_faces is not None else [False] * len(asked)
    few = len(seen) < _FEW_SURE
    closer = None
    if not all(dice) and (few or sure_faces is not None and 2 * sum(dice) < len(asked)):
        closer = _pass(image, 2 * scale, nets)
        dice += [False] * (len(seen) - len(asked))
        broken = [_broken_into(k, closer) for k, die in zip(seen, dice, strict=True) if not die]
        if (few and 2 * sum(map(bool, broken)) >= len(seen)
                or any(_of_dice(b, sure_faces) for b in broken)):
            return 2 * scale, closer
    if few and any(_a_crowd_read_as_one(image, k, scale, largest, nets, sure_faces)
                   for k, die in zip(seen, dice, strict=True) if die):
        return 2 * scale, closer if closer is not None else _pass(image, 2 * scale, nets)
    return None


def _clusters_seen_whole(
    found: list[Candidate], scale: float, closer: list[Candidate], first: float,
    deeper: Callable[[Candidate], list[Candidate]] | None, sure_faces: Faces | None
) -> bool:
    """Whether half or more of the dice a coarse look at ``scale`` saw whole are clusters.

    A crowd of dice seen as coarsely as ``_COARSE_SIDE`` is the size of a die the locator
    reads well, and the face reader may read it as one die, its dice as pips. Looked at
    closer (``closer``: the candidates of the first pass, at ``first``) it breaks into dice,
    two or more of them read surely as faces other than an ace; a large die seen whole
    breaks, if at all, into its pips, which are read as aces. Where what it breaks into is
    seen there, on median, smaller than the locator trusts (crowds again, or dice too small
    to read), it is looked at twice as close again (``deeper``: the candidates of a pass
    that close around it).
    """
    well = _seen_well(found, scale)
    clusters = 0
    for k in well:
        pieces = _broken_into(k, closer)
        if _of_dice(pieces, sure_faces):
            clusters += 1
        elif (pieces and deeper is not None
              and statistics.median([c.size for c in pieces]) * first < _TRUSTED_PX):
            clusters += _of_dice(_broken_into(k, deeper(k)), sure_faces)
    return 2 * clusters >= len(well)


def _a_crowd_read_as_one(
    image: np.ndarray, die: Candidate, scale: float, largest: float, nets: Nets,
    sure_faces: Faces | None,
) -> bool:
    """Whether ``die``, seen at ``scale`` and read surely as one die, is a crowd of dice a
    few pixels each, its dice read as pips: looked at twice and four times as close around
    it, it breaks into two or more dice read surely as faces other than an ace. A die breaks,
    if at all, into its pips, read as aces."""
    for closer in (2 * scale, 4 * scale):
        if closer > largest:
            break
        if _of_dice(_broken_into(die, _pass_around(image, die, closer, nets)), sure_faces):
            return True
    return False


def _broken_into(die: Candidate, closer: list[Candidate]) -> list[Candidate]:
    """The sure candidates of a closer look inside ``die`` where there are two or more and
    they are half its size or less (a cluster's dice, or a large die's pips); else none."""
    inside = [c for c in _sure_dice(closer)
              if math.hypot(c.x - die.x, c.y - die.y) < 0.5 * die.size]
    if len(inside) >= 2 and statistics.median([c.size for c in inside]) <= 0.5 * die.size:
        return inside
    return []


def _of_dice(inside: list[Candidate], sure_faces: Faces | None, least: int = 2) -> bool:
    """Whether ``least`` or more of ``inside`` are read surely as faces other than an ace:
    dice, not pips (the pips of a die are read as aces, if surely at all)."""
    return (len(inside) >= least and sure_faces is not None
            and sum(p > 1 for p in sure_faces(inside)) >= least)


def _sure_dice(found: list[Candidate]) -> list[Candidate]:
    """The candidates a pass is sure of."""
    return [c for c in found if c.score >= 0.5]


def _sure(found: list[Candidate]) -> list[float]:
    """The sizes of the candidates a pass is sure of."""
    return [c.size for c in _sure_dice(found)]


def _seen_whole(found: list[Candidate], scale: float) -> bool:
    """Whether a coarse look saw dice whole: a few surely at a size it reads well, and most
    of the dice it is sure of at such a size."""
    well = _seen_well(found, scale)
    return len(well) >= _SEEN_WHOLE and 2 * len(well) >= len(_sure_dice(found))


def _seen_well(found: list[Candidate], scale: float) -> list[Candidate]:
    """The candidates a look at ``scale`` is sure of, seen at a size it reads well."""
    return [c for c in _sure_dice(found) if c.size * scale >= _SMALLEST_SEEN_PX]


def _foreshortened(sure: list[float], scale: float) -> bool:
    """Whether a pass at half scale or more saw the dice it was sure of (their sizes) smaller
    than the locator's middle size: they may be foreshortened by a slanted camera."""
    return (bool(sure) and scale >= 0.5
            and _SMALLEST_SEEN_PX <= statistics.median(sure) * scale < DETECT_DIE_PX)


def _next_scale(sure: list[float], scale: float, largest: float) -> float | None:
    """The scale for another pass, given the sizes of the dice this pass was sure of; None
    when this pass saw the dice at a size the locator reads well (or can do no better)."""
    if not sure:
        # Nothing sure in a big frame: the dice may be too small to see at that scale.
        better = 2 * scale if scale < 0.5 else scale
    else:
        die = statistics.median(sure)
        if die * scale < _TRUSTED_PX and scale < 0.5:
            # A big frame, shrunk: the dice may be far smaller than they seem. A closer
            # look, but not so close that dice as large as they seem would look larger than
            # the locator reads well (at that scale it would take their pips for dice).
            better = min(2 * scale, _LARGEST_SEEN_PX / die)
        elif _foreshortened(sure, scale):
            # Seen smaller than the locator's middle size: dice foreshortened by a slanted
            # camera are smaller still across. A closer look, if the largest dice seen allow
            # (not in a big frame shrunk: there the crowds' search above decides).
            better = max(scale, min(_FORESHORTENED_AT_PX / die, _LARGEST_SEEN_PX / max(sure)))
        elif _SMALLEST_SEEN_PX <= die * scale <= _LARGEST_SEEN_PX:
            return None
        else:
            better = DETECT_DIE_PX / die
    better = min(better, largest)
    return None if abs(better - scale) < 0.05 * scale else better


def _pass(image: np.ndarray, scale: float, nets: Nets) -> list[Candidate]:
    """The candidates in a photograph seen at ``scale``."""
    h, w = image.shape[:2]
    return _look(_shrunk(image, scale), w, h, nets)


def _pass_around(image: np.ndarray, die: Candidate, scale: float, nets: Nets) -> list[Candidate]:
    """The candidates a pass at ``scale`` sees around ``die``: in the square twice its size
    centred on it (a pass over the whole of a big photograph would cost many times more)."""
    h, w = image.shape[:2]
    x0, y0 = max(0, int(die.x - die.size)), max(0, int(die.y - die.size))
    x1, y1 = min(w, int(die.x + die.size) + 1), min(h, int(die.y + die.size) + 1)
    return [replace(c, x=c.x + x0, y=c.y + y0)
            for c in _pass(image[y0:y1, x0:x1], scale, nets)]


def _sides(w: int, h: int, scale: float) -> tuple[int, int]:
    """The sides of a photograph ``w`` x ``h`` seen at ``scale``: multiples of the net's
    total stride, so that its output cells map back exactly."""
    return (max(STRIDE * 4, int(round(w * scale / (STRIDE * 4))) * STRIDE * 4),
            max(STRIDE * 4, int(round(h * scale / (STRIDE * 4))) * STRIDE * 4))


def _shrunk(image: np.ndarray, scale: float, sides: tuple[int, int] | None = None) -> np.ndarray:
    """The photograph at ``scale`` (shrunk by area), at ``sides`` if given, else _sides'."""
    h, w = image.shape[:2]
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return np.asarray(cv2.resize(image, sides or _sides(w, h, scale), interpolation=interpolation))


def _look(small: np.ndarray, w: int, h: int, nets: Nets, coarse: bool = False) -> list[Candidate]:
    """The candidates the locator sees in ``small``, a photograph ``w`` x ``h`` shrunk."""
    sh, sw = small.shape[:2]
    out = nets.locate(normalise(small)[None], coarse)[0]
    heat = 1.0 / (1.0 + np.exp(-out[0]))
    peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= _MIN_HEAT)
    fx, fy = w / sw, h / sh
    rows, cols = np.nonzero(peaks)
    found = []
    # Each peak's numbers taken out at once: numpy's one value at a time costs more.
    for iy, ix, log_size, dx, dy, score in zip(
        rows.tolist(), cols.tolist(), np.clip(out[1, rows, cols], -3, 3).tolist(),
        out[2, rows, cols].tolist(), out[3, rows, cols].tolist(), heat[rows, cols].tolist(),
        strict=True,
    ):
        size_in = DETECT_DIE_PX * math.exp(log_size)
        x = (ix + 0.5 + dx) * STRIDE * fx
        y = (iy + 0.5 + dy) * STRIDE * fy
        found.append(Candidate(x, y, size_in * (fx + fy) / 2, score))
    found.sort(key=lambda c: -c.score)
    return _suppress_overlaps(found)


def _suppress_overlaps(found: list[Candidate]) -> list[Candidate]:
    """Keep the strongest of candidates closer than half a die: one die, one candidate.

    Half a die of this photograph (the median size of its sure candidates) at most: the
    sizes of two dice pushed together come out too large, and would hide one of them.
    """
    if not found:
        return []
    sure = _sure(found)
    die = statistics.median(sure) if sure else math.inf
    # The candidates kept, by cells of the farthest two may lie and still be one die: each
    # is checked against its neighbours' cells only (a frame of thousands of things that look
    # like dice, a chessboard, took seconds checking each against all).
    cell = max(0.5 * min(max(c.size for c in found), die), 1e-6)
    kept: list[Candidate] = []
    cells: dict[tuple[int, int], list[Candidate]] = {}
    for c in found:
        cx, cy = int(c.x // cell), int(c.y // cell)
        near = (k for i in (-1, 0, 1) for j in (-1, 0, 1) for k in cells.get((cx + i, cy + j), ()))
        if all(math.hypot(c.x - k.x, c.y - k.y) > 0.5 * min(max(c.size, k.size), die)
               for k in near):
            kept.append(c)
            cells.setdefault((cx, cy), []).append(c)
    return kept
