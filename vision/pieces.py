"""Stage 2d: one reading a die, where a piece of a die was read as a die beside it.

A black die on the dark glass, or a die seen close, may be seen twice by the locator: whole,
and as a smaller piece (a pip, an edge) off its middle, and both read as dice. A die read
smaller than the table's dice, within half a die of a die read more surely, is such a piece:
two dice cannot lie so close. Done last, after vision.join and vision.closeup, which take
such pieces for what they are first (a die's pips), and seek large dice where pips are read.
"""

from __future__ import annotations

import math

from vision.classify import FaceRead
from vision.join import OVERLAP, SMALL
from vision.locate import Candidate
from vision.sure import sure_die_size


def drop_pieces(
    candidates: list[Candidate], faces: list[FaceRead]
) -> tuple[list[Candidate], list[FaceRead]]:
    """The candidates and their faces without the pieces of dice read as dice of their own.

    The table's die size is the median size of the dice read surely; the dice are taken
    surest first, and one smaller than ``SMALL`` of that size is dropped where it lies
    nearer than ``OVERLAP`` of it to a die already taken.
    """
    die = sure_die_size(candidates, faces)
    if die is None:
        return candidates, faces
    order = sorted(range(len(faces)), key=lambda i: -faces[i].probability)
    dice: list[int] = []
    pieces: set[int] = set()
    for i in order:
        if faces[i].die_probability < 0.5:
            continue
        c = candidates[i]
        if c.size < SMALL * die and any(
            math.hypot(c.x - candidates[j].x, c.y - candidates[j].y) < OVERLAP * die
            for j in dice
        ):
            pieces.add(i)
        else:
            dice.append(i)
    kept = [i for i in range(len(faces)) if i not in pieces]
    return [candidates[i] for i in kept], [faces[i] for i in kept]
