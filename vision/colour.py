"""Stage 3: name the colour of each die's body (pips excluded), for telling owners apart."""

from __future__ import annotations

import cv2
import numpy as np

from vision.locate import Candidate

# Hue (OpenCV's 0..180) upper bounds of each named colour, going round the wheel.
_HUES = ((6, "red"), (20, "orange"), (34, "yellow"), (85, "green"), (130, "blue"),
         (160, "purple"), (172, "pink"), (181, "red"))

# The ring round a die's middle, in shares of its size from its centre: outside the symbols
# sets print for the ace (up to about 0.36 of the side) and inside the face's edge.
_RING = (0.36, 0.43)


def name_colours(image: np.ndarray, candidates: list[Candidate]) -> list[str]:
    """A colour name for each candidate die: white, grey, black, brown, or a hue's name.

    The body's colour is the median of the die's middle: pips cover at most a fifth of a
    face, so the median is the body's colour whatever colour the pips are.
    """
    names = []
    h, w = image.shape[:2]
    for c in candidates:
        r = max(1, int(0.3 * c.size))
        x0, x1 = max(0, int(c.x) - r), min(w, int(c.x) + r + 1)
        y0, y1 = max(0, int(c.y) - r), min(h, int(c.y) + r + 1)
        patch = image[y0:y1, x0:x1].reshape(-1, 3)
        if len(patch) == 0:
            names.append("unknown")
            continue
        names.append(_colour_name(_median(patch)))
    return names


def name_colours_round(image: np.ndarray, candidates: list[Candidate]) -> list[str]:
    """A colour name for each candidate die from a ring round its middle: a second opinion
    for a die seen with one pip, whose middle a set's ace symbol may fill (a Perudo set's
    paco, seen from below on every die showing 6), so that its middle names the symbol's
    colour. The ring reaches the die's edge, and past it the table on a die lying turned:
    it is only ever weighed against the middle's name (:mod:`vision.owners`).
    """
    names = []
    h, w = image.shape[:2]
    for c in candidates:
        inner, outer = _RING[0] * c.size, _RING[1] * c.size
        r = max(1, int(outer + 1))
        x0, x1 = max(0, int(c.x) - r), min(w, int(c.x) + r + 1)
        y0, y1 = max(0, int(c.y) - r), min(h, int(c.y) + r + 1)
        ys, xs = np.mgrid[y0:y1, x0:x1]
        distance = np.hypot(xs + 0.5 - c.x, ys + 0.5 - c.y)
        ring = image[y0:y1, x0:x1][(distance >= inner) & (distance <= outer)]
        names.append(_colour_name(_median(ring)) if len(ring) else "unknown")
    return names


def _median(pixels: np.ndarray) -> np.ndarray:
    """The median BGR colour of some pixels (N, 3), each channel's rounded down: numpy's
    median made 8-bit, in a third of its time (only the middle two ranks are placed)."""
    n = len(pixels)
    middle = np.partition(pixels, [(n - 1) // 2, n // 2], axis=0)
    return ((middle[(n - 1) // 2].astype(np.uint16) + middle[n // 2]) // 2).astype(np.uint8)


def _colour_name(bgr: np.ndarray) -> str:
    """The name of one BGR colour."""
    hue, sat, val = (int(v) for v in cv2.cvtColor(bgr.reshape(1, 1, 3), cv2.COLOR_BGR2HSV)[0, 0])
    if val < 50:
        return "black"
    if sat < 45:
        # Glare on the glass lifts a black die's body well above black.
        return "white" if val > 150 else "grey" if val >= 85 else "black"
    if 6 <= hue < 25 and val < 140:
        return "brown"
    return next(name for bound, name in _HUES if hue < bound)
