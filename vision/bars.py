"""Before the stages: the flat bars a tool pads a photograph with (a letterbox), left out."""

from __future__ import annotations

import numpy as np

# A line of the frame (a row or a column) is flat when all its pixels, every colour, lie
# within this many levels of each other and of the outermost line's mean: a photograph's own
# table, even a plain one, has more noise than that; a bar drawn by a program, saved as a
# JPEG, a level or two.
_FLAT = 4
# A tool centres the photograph it pads: its two bars are as thick as each other, but for
# this much (px, or this share of a bar) that a JPEG's blocks may take from one of them.
_SAME_BARS_PX = 16
_SAME_BARS = 0.1
# Nor is a bar thinner than this share of the frame's side: a pad that would change little.
_LEAST_BAR = 0.02
# Bars leaving less than this of the frame (px each way) are taken for a frame of one colour
# (a dark table at night, an empty test card), read whole.
_LEAST_LEFT = 16


def letterbox(image: np.ndarray) -> tuple[int, int, int, int]:
    """The bars a tool padded the frame with, their thickness in px: (top, bottom, left,
    right); all 0 where it has none.

    Tools that prepare photographs for training pad them to a square with two bars of one
    colour (black, grey, white), above and below or left and right, the photograph centred.
    The nets see a photograph standardised by its own mean and spread
    (``vision.nets.normalise``), and a bar a quarter of the frame shifts both: held out, the
    dev photographs cut to 4:3 and padded back to a square with black bars read 5 dice fewer
    than cut alone, 3 images fewer. The bars hold no dice, so the reader reads what lies
    between them. A flat stretch along one edge only, or two of other thickness or colour
    (a white sheet clipped by the exposure, a dark corner of the room), is the photograph's
    own, read with it: cut away, dice lying by it would be taken for dice the frame cuts.
    """
    h, w = image.shape[:2]
    top, bottom = _flat_lines(image), _flat_lines(image[::-1])
    turned = image.transpose(1, 0, *range(2, image.ndim))
    left, right = _flat_lines(turned), _flat_lines(turned[::-1])
    if _bars(image[0], image[-1], top, bottom, h) and not (left or right):
        return top, bottom, 0, 0
    if _bars(turned[0], turned[-1], left, right, w) and not (top or bottom):
        return 0, 0, left, right
    return 0, 0, 0, 0


def _bars(one: np.ndarray, other: np.ndarray, a: int, b: int, side: int) -> bool:
    """Whether flat stretches ``a`` and ``b`` px thick at the two ends of a side, their
    outermost lines ``one`` and ``other``, are a tool's two bars."""
    return (min(a, b) >= _LEAST_BAR * side and side - a - b >= _LEAST_LEFT
            and abs(a - b) <= max(_SAME_BARS_PX, _SAME_BARS * max(a, b))
            and abs(float(one.mean()) - float(other.mean())) <= _FLAT)


def _flat_lines(image: np.ndarray) -> int:
    """How many of the image's rows, from its first on, are flat alike (``_FLAT``)."""
    level = float(image[0].mean())
    for n, line in enumerate(image):
        low, high = float(line.min()), float(line.max())
        if high - low > _FLAT or max(high - level, level - low) > _FLAT:
            return n
    return len(image)
