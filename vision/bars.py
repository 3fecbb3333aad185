"""Before the stages: the flat bars a tool pads a photograph with (a letterbox), left out."""

from __future__ import annotations

import numpy as np

# A line of the frame (a row or a column) is flat when all its pixels, every colour, lie
# within this many levels of each other and of the outermost line's mean: a photograph's own
# table, even a plain one, has more noise than that; a bar drawn by a program, saved as a
# JPEG, a level or two.
_FLAT = 6
# Bars leaving less than this of the frame (px each way) are taken for a frame of one colour
# (a dark table at night, an empty test card), read whole.
_LEAST_LEFT = 16


def letterbox(image: np.ndarray) -> tuple[int, int, int, int]:
    """The flat bars at the frame's edges, their thickness in px: (top, bottom, left, right).

    Tools that prepare photographs for training pad them to a square with bars of one
    colour (black, grey, white). The nets see a photograph standardised by its own mean and
    spread (``vision.nets.normalise``), and a bar a quarter of the frame shifts both: held
    out, the dev photographs cut to 4:3 and padded back to a square with black bars read 5
    dice fewer than cut alone, 3 images fewer. The bars hold no dice, so the reader reads
    what lies between them. A frame flat all over has none.
    """
    h, w = image.shape[:2]
    top = _flat_lines(image)
    bottom = _flat_lines(image[::-1])
    left = _flat_lines(image.transpose(1, 0, 2))
    right = _flat_lines(image.transpose(1, 0, 2)[::-1])
    if h - top - bottom < _LEAST_LEFT or w - left - right < _LEAST_LEFT:
        return 0, 0, 0, 0
    return top, bottom, left, right


def _flat_lines(image: np.ndarray) -> int:
    """How many of the image's rows, from its first on, are flat alike (``_FLAT``)."""
    first = image[0].astype(np.int16)
    level = float(first.mean())
    for n, line in enumerate(image):
        low, high = int(line.min()), int(line.max())
        if high - low > _FLAT or max(high - level, level - low) > _FLAT:
            return n
    return len(image)
