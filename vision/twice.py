"""Stage 3c: a die seen twice, as two dice of one face nearer than two dice can lie.

A photograph taken slantwise squashes the dice far from the camera, and the locator may see
one of them as two dice, each read surely as the same face (a 4 just above a 4). Two dice
lying on a table are a die apart, middle to middle; two read as the same face nearer than
``NEARER`` of the larger one's size are both doubted, and the players look. Dice leaning on
one another can lie as near in a photograph (pairs of the dev photographs foreshortened to
0.85, `tilted`); they show one face one time in six and are then asked about too.

Held out over five sets of the dev photographs seen slantwise (35-45 degrees off straight
above, or by a camera turned 30-35 degrees), dice misread surely or seen where none is fell
from 76 to 49 from above and from 78 to 51 from below; over the photographs as they are and
the 23 other cameras and tables of `vision.degrade`, nothing changed but 0-5 dice more
doubted in each set (session 70, the log).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.reading import Die

# Nearer than this share of the larger die's size, middle to middle, two dice of one face
# are one die seen twice. Two dice side by side are at least one die's side apart, and a die
# lying turned has a larger upright box (up to 1.4 times its side): 0.7 at the least.
NEARER = 0.6


def seen_twice(dice: Sequence[Die]) -> set[int]:
    """The indices of the dice that may be one die seen twice: each of a pair read as the
    same face, nearer than ``NEARER`` of the larger one's size."""
    if len(dice) < 2:
        return set()
    x, y, size, face = (np.array([getattr(d, k) for d in dice], np.float64)
                        for k in ("x", "y", "size", "face"))
    near = np.hypot(x[:, None] - x, y[:, None] - y) < NEARER * np.maximum(size[:, None], size)
    pairs = near & (face[:, None] == face)
    np.fill_diagonal(pairs, False)
    return {int(i) for i in np.flatnonzero(pairs.any(axis=1))}
