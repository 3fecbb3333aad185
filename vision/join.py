"""Stage 2b: join a die the locator split into its pips, as one die read whole.

A black die on the dark glass shows only its pips: the locator may take each pip of a 2 or
a 3 for a small die of its own. Such fragments are smaller than the table's dice and closer
together than two dice can lie. Read as one die, cut out at the table's die size around
their middle, they are read more surely than any of them alone; a larger piece of the same
die, seen beside them, goes with them. So too the pips of a die of a larger set than the
table's, each taken for an ace: read at the size their spread makes.
"""

from __future__ import annotations

import math

import numpy as np

from vision.classify import FaceRead, read_faces
from vision.locate import Candidate
from vision.nets import Nets
from vision.sure import sure_die_size

# A fragment (or, for vision.pieces, a piece) is smaller than this share of the table's die
# size...
SMALL = 0.8
# ...and nearer than this share of it to another fragment (two dice lie a die apart).
_NEAR = 0.75
# The pips of a face furthest apart lie corner to corner (this share of its side) or along
# a side; a group of fragments spread so that the die they make is this many times the
# table's die or more is also read whole as that larger die.
_CORNER_TO_CORNER = 0.71
_ALONG_A_SIDE = 0.5
_LARGER = 1.2
# A candidate nearer than this share of the table's die size to another die's middle is part
# of that die: two dice cannot lie so close (here and in vision.pieces).
OVERLAP = 0.5


def join_split_dice(
    image: np.ndarray, candidates: list[Candidate], faces: list[FaceRead], nets: Nets
) -> tuple[list[Candidate], list[FaceRead]]:
    """The candidates and their faces, with each group of fragments of one die made one die.

    The table's die size is the median size of the dice read surely. A group is joined only
    when the whole die is read as a die, and more surely than each fragment was; any other
    candidate within half a die of the whole die's middle is then dropped as part of it.
    """
    die = sure_die_size(candidates, faces)
    if die is None:
        return candidates, faces
    joined: dict[int, tuple[Candidate, FaceRead]] = {}
    gone: set[int] = set()
    for group in _fragments(candidates, faces, die):
        middle = (float(np.mean([candidates[i].x for i in group])),
                  float(np.mean([candidates[i].y for i in group])))
        score = max(candidates[i].score for i in group)
        # Read as a larger die only where every fragment was read as an ace, as the pips of
        # a larger die are: two dice of a smaller set lying close are read as other faces.
        larger = all(faces[i].pips == 1 for i in group)
        wholes = [Candidate(*middle, size, score)
                  for size in _sizes(candidates, group, die)[:None if larger else 1]]
        surest = max(faces[i].probability for i in group)
        # Whole where read as a die, more surely than each fragment; a die larger than the
        # table's only with no more pips seen than it has. The surest such reading is taken.
        wholly = [(whole, read) for whole, read in zip(wholes, read_faces(image, wholes, nets),
                                                       strict=True)
                  if read.die_probability >= 0.5 and read.probability > surest
                  and (whole is wholes[0] or len(group) <= read.pips)]
        if wholly:
            whole, read = max(wholly, key=lambda pair: pair[1].probability)
            joined[group[0]] = (whole, read)
            gone.update(group[1:])
            # Another candidate within half a die of the whole die's middle is a piece of
            # it too (two dice cannot lie so close): a larger fragment, read on its own.
            gone.update(
                i for i, c in enumerate(candidates)
                if i not in group
                and math.hypot(c.x - whole.x, c.y - whole.y) < OVERLAP * whole.size
            )
    kept = [
        joined.get(i, pair)
        for i, pair in enumerate(zip(candidates, faces, strict=True))
        if i not in gone
    ]
    return [c for c, _ in kept], [f for _, f in kept]


def _sizes(candidates: list[Candidate], group: list[int], die: float) -> list[float]:
    """The sizes a group of fragments is read whole at: the table's die, then the larger die
    whose pips they may be (a die of another set, larger than the table's, its pips taken
    for aces), where that is ``_LARGER`` times the table's die or more: the pips furthest
    apart lie corner to corner (0.71 of its side) or along a side (0.5)."""
    spread = max(math.hypot(candidates[i].x - candidates[j].x, candidates[i].y - candidates[j].y)
                 for i in group for j in group)
    return [die] + [size for size in (spread / _CORNER_TO_CORNER, spread / _ALONG_A_SIDE)
                    if size > _LARGER * die]


def _fragments(candidates: list[Candidate], faces: list[FaceRead], die: float) -> list[list[int]]:
    """Groups of two or more small candidates, each near another of its group."""
    small = [
        i
        for i, (c, f) in enumerate(zip(candidates, faces, strict=True))
        if c.size < SMALL * die and f.die_probability >= 0.5
    ]
    groups: list[list[int]] = []
    for i in small:
        near = [
            g
            for g in groups
            if any(
                math.hypot(candidates[i].x - candidates[j].x, candidates[i].y - candidates[j].y)
                < _NEAR * die
                for j in g
            )
        ]
        merged = [i] + [j for g in near for j in g]
        groups = [g for g in groups if g not in near] + [sorted(merged)]
    return [g for g in groups if len(g) > 1]
