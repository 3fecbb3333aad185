"""Stage 3b: how much a frame and each die in it are smeared one way (the camera or the table
moved as it was taken, or the camera looked at the table slantwise)."""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from vision.locate import Candidate

# Each die is looked at as the face reader sees it, at this size: a smear matters by its
# length against the die's size, not in pixels.
_DIE_PX = 32


# Dice squashed one way less than this are read as they are: straight above, the dev
# photographs' dice measure 1.01-1.13 (``squashed``); foreshortened to 0.85 (a camera about
# 30 degrees off straight above), 1.14-1.37; a 4:3 photograph stretched to a square, 1.25-1.54.
_SQUASHED = 1.2
# A smear, not a squash, where the edges' energy is one-sided beyond this power of their
# sum's: a squash scales the energy about as the sum's square (the dev photographs
# stretched: a power of 1.26-1.69, 5-95%), a smear wipes out the fine edges across it
# (smeared 7 px: 2.4 and beyond in 95 in 100).
_SMEAR_NOT_SQUASH = 2.1
# Read square again by at most this (a 21:9 photograph stretched to a square is 2.33).
_MOST_SQUASHED = 2.5


class Smear(NamedTuple):
    """How one-sided the edges are, 0 (alike every way) to 1 (all one way): of all the dice
    together (``frame``) and of each die alone (``dice``, in the order given). ``squashed``:
    how many times narrower the dice are one way than across it (1.0 where they are not
    squashed, or are smeared rather than squashed), along the unit vector ``along`` (x, y)."""

    frame: float
    dice: tuple[float, ...]
    squashed: float = 1.0
    along: tuple[float, float] = (1.0, 0.0)


def smear(image: np.ndarray, dice: list[Candidate]) -> Smear:
    """How one-sided the edges of the dice are, together and each alone.

    A die's square outline and round pips have edges every way, however it lies, so the
    dice of a sharp frame, summed, are near 0 (0.35 at most on the dev photographs), and an
    out-of-focus frame, blurred every way alike, stays low too; a straight smear (motion
    blur) wipes out the edges across its own direction, and a die seen slantwise is squashed
    one way. Measured by the structure tensor of each die, scaled to ``_DIE_PX``, summed over
    the dice for the frame: one minus the ratio of its eigenvalues. A die alone has fewer
    edges, and its own measure spreads wider (0.44 for the 99th percentile of the dev
    photographs' dice); a die too near the edge to be cut out counts 0. How squashed the
    dice are (``_squashed``) is measured on the dice the frame's edge does not cut, where
    there are two or more.
    """
    if not dice:
        return Smear(0.0, ())
    h, w = image.shape[:2]
    patches, cut, whole = [], [], []
    for i, c in enumerate(dice):
        r = max(1, int(0.5 * c.size))
        x0, x1 = max(0, int(c.x) - r), min(w, int(c.x) + r)
        y0, y1 = max(0, int(c.y) - r), min(h, int(c.y) + r)
        if x1 - x0 >= 3 and y1 - y0 >= 3:
            patches.append(cv2.resize(image[y0:y1, x0:x1], (_DIE_PX, _DIE_PX),
                                      interpolation=cv2.INTER_AREA))
            cut.append(i)
            # A die the frame's edge cuts is stretched one way to the patch's square.
            whole.append(x1 - x0 == y1 - y0 == 2 * r)
    if not patches:
        return Smear(0.0, (0.0,) * len(dice))
    # The patches side by side: one pass of each filter; the seams between them left out.
    strip = cv2.cvtColor(np.hstack(patches), cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(strip, cv2.CV_32F, 1, 0, ksize=3)[1:-1].reshape(_DIE_PX - 2, -1, _DIE_PX)
    gy = cv2.Sobel(strip, cv2.CV_32F, 0, 1, ksize=3)[1:-1].reshape(_DIE_PX - 2, -1, _DIE_PX)
    gx, gy = gx[:, :, 1:-1], gy[:, :, 1:-1]
    # Each die's tensor (xx, yy, xy), then the frame's, their sum.
    each = np.stack([(gx * gx).sum(axis=(0, 2)), (gy * gy).sum(axis=(0, 2)),
                     (gx * gy).sum(axis=(0, 2))], axis=1).astype(np.float64)
    alone = [0.0] * len(dice)
    for i, tensor in zip(cut, each, strict=True):
        alone[i] = _one_sided(*tensor)
    squashed, along = 1.0, (1.0, 0.0)
    if sum(whole) > 1:
        xx, yy, xy = each[whole].sum(axis=0)
        squashed, along = _squashed(gx[:, whole], gy[:, whole], np.array([[xx, xy], [xy, yy]]))
    return Smear(_one_sided(*each.sum(axis=0)), tuple(alone), squashed, along)


def _squashed(
    gx: np.ndarray, gy: np.ndarray, tensor: np.ndarray
) -> tuple[float, tuple[float, float]]:
    """How many times narrower the dice are one way than across it, and that way.

    Squashed one way by a factor, a die's edges across that way are as many times steeper
    and as much shorter: the sum of the gradients' size that way (each edge's height times
    its length) grows by the factor against the way across, their energy (the structure
    tensor's) by about its square. A smear instead wipes out the fine edges across its way
    (pips narrower than it): their energy falls far more than their sum, and is not taken
    for a squash. Held out, the dev photographs stretched 1.33 and 1.78 times one way
    measured 1.25-1.54 and 1.64-2.46.
    """
    energies, ways = np.linalg.eigh(tensor)
    way = ways[:, 1]  # the way the edges are steepest
    steep = float(np.abs(gx * way[0] + gy * way[1]).sum())
    flat = float(np.abs(gy * way[0] - gx * way[1]).sum())
    if flat <= 0 or energies[0] <= 0 or steep <= _SQUASHED * flat:
        return 1.0, (1.0, 0.0)
    factor = steep / flat
    if np.log(energies[1] / energies[0]) >= _SMEAR_NOT_SQUASH * np.log(factor):
        return 1.0, (1.0, 0.0)
    return min(factor, _MOST_SQUASHED), (float(way[0]), float(way[1]))


def _one_sided(xx: float, yy: float, xy: float) -> float:
    """One minus the ratio of a structure tensor's eigenvalues (0 for no edges at all)."""
    half_trace = (xx + yy) / 2.0
    spread = float(np.sqrt(max(half_trace**2 - (xx * yy - xy * xy), 0.0)))
    return 0.0 if half_trace <= 0 else float(1.0 - (half_trace - spread) / (half_trace + spread))
