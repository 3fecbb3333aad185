"""Stage 1: find every die in a photograph, its centre and its size, at any scale."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.config import ReaderConfig
from vision.nets import DETECT_DIE_PX, STRIDE, Nets, normalise

# The locator was trained on dice 9..30 px across; inside this narrower band one pass
# is enough, outside it the photograph is scaled again to bring dice to DETECT_DIE_PX.
_GOOD_BAND = (11.0, 24.0)
_FIRST_PASS_SIDE = 320
_MAX_SIDE = 1600
# Candidates this weak are not even shown to the face reader.
_MIN_HEAT = 0.15


@dataclass(frozen=True)
class Candidate:
    """A place that may hold a die: centre and size in pixels of the photograph."""

    x: float
    y: float
    size: float
    score: float


def locate_dice(image: np.ndarray, config: ReaderConfig, nets: Nets) -> list[Candidate]:
    """Every candidate die in a BGR photograph, strongest first.

    The die size comes from the config, or is estimated by a first pass over the
    photograph shrunk to ``_FIRST_PASS_SIDE`` pixels.
    """
    h, w = image.shape[:2]
    if config.die_size is not None:
        return _pass(image, DETECT_DIE_PX / config.die_size, nets)
    scale = min(1.0, _FIRST_PASS_SIDE / max(h, w))
    found = _pass(image, scale, nets)
    confident = [c.size for c in found if c.score >= 0.5]
    if not confident and scale < 0.5:
        # Nothing sure in a big frame: the dice may be too small to see at that scale.
        scale *= 2
        found = _pass(image, scale, nets)
        confident = [c.size for c in found if c.score >= 0.5]
    if confident:
        seen = float(np.median(confident)) * scale
        if not _GOOD_BAND[0] <= seen <= _GOOD_BAND[1]:
            found = _pass(image, DETECT_DIE_PX / float(np.median(confident)), nets)
    return found


def _pass(image: np.ndarray, scale: float, nets: Nets) -> list[Candidate]:
    h, w = image.shape[:2]
    scale = min(scale, 2.0, _MAX_SIDE / max(h, w))
    # Sides a multiple of the net's total stride, so output cells map back exactly.
    sw = max(STRIDE * 4, int(round(w * scale / (STRIDE * 4))) * STRIDE * 4)
    sh = max(STRIDE * 4, int(round(h * scale / (STRIDE * 4))) * STRIDE * 4)
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    small = cv2.resize(image, (sw, sh), interpolation=interpolation)
    out = nets.locate(normalise(small)[None])[0]
    heat = 1.0 / (1.0 + np.exp(-out[0]))
    peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= _MIN_HEAT)
    fx, fy = w / sw, h / sh
    found = []
    for iy, ix in zip(*np.nonzero(peaks), strict=True):
        size_in = DETECT_DIE_PX * math.exp(float(np.clip(out[1, iy, ix], -3, 3)))
        x = (ix + 0.5 + float(out[2, iy, ix])) * STRIDE * fx
        y = (iy + 0.5 + float(out[3, iy, ix])) * STRIDE * fy
        found.append(Candidate(x, y, size_in * (fx + fy) / 2, float(heat[iy, ix])))
    found.sort(key=lambda c: -c.score)
    return _suppress_overlaps(found)


def _suppress_overlaps(found: list[Candidate]) -> list[Candidate]:
    """Keep the strongest of candidates closer than half a die: one die, one candidate.

    Half a die of this photograph (the median size of its sure candidates) at most: the
    sizes of two dice pushed together come out too large, and would hide one of them.
    """
    sure = [c.size for c in found if c.score >= 0.5]
    die = float(np.median(sure)) if sure else math.inf
    kept: list[Candidate] = []
    for c in found:
        if all(math.hypot(c.x - k.x, c.y - k.y) > 0.5 * min(max(c.size, k.size), die)
               for k in kept):
            kept.append(c)
    return kept
