"""Whether a picture is lit and focused well enough to read any of its dice surely: not too
dark (the light under the glass off or failing), not burnt out (no die found in a picture
gone white), not out of focus (the pips run together). Where it is not, every die is
doubted and the players are told why.

Each is judged against what the reader still reads. Held out, from above, the dev
photographs read as they are at a seventh of their light, at twice it and blurred by 1.5 px
(4% of their dice), and none of them is judged so. At a twelfth of their light 14 dice were
missed and 11 read wrong, 6 of them surely; now every die found is doubted. Blurred by 3.5
and 5 px (8 and 12% of a die), 23 dice were misread surely at each; now 8 and 11, in
photographs whose dice the reader still finds are the sharper (focus is judged on the dice
read; where none is, as in most photographs blurred by 5 px, on the places the locator is
sure of). A white die's body burnt white shows its dark pips, read right, so burnt dice are
not judged here: five times the light misread 18 dice surely, now 6, as the reader doubts
most dice of such a picture and then doubts them all (``vision.reader``, session 83).
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from vision.locate import Candidate

# Too dark where the frame's brightest 0.5% (its lightest channel) stay below this, and so
# does every die's contrast, its brightest 1% over its darkest 1% (a few dice lit under the
# glass may be all that is light in a frame of a dark room, and a black die showing one
# pip is dark but for it): the dev photographs' frames measure 192-220, at a seventh of
# their light (still read) 28-33, at a twelfth 15-17 (dice missed and misread).
_DARK = 20
_LIGHT_DIE = 0.99
# Burnt out where, with no die found, this share of the picture is pure white in every
# channel (at least _WHITE): a white tray at twice its light measures 0.80-0.99 and its dice
# are read. (Dice found are not judged so: a white die's body burnt white still shows its
# dark pips, read as before; the dev photographs at twice their light: a tenth of their dice
# three quarters white, read as before.)
_WHITE = 250
_BURNT = 0.995
# The frame is judged on every this many pixels' rows and columns.
_STEP_PX = 8
# Each die is looked at this many pixels across, its edges' softness measured in dice.
_DIE_PX = 64
# Out of focus where the dice's edges, by their median, are as soft as a Gaussian blur of
# this share of a die: the dev photographs measure 0.010-0.028; blurred by 1.5 px (4% of
# their dice; read as well as before) 0.020-0.066, by 3.5 px (8%: 23 dice misread surely)
# 0.061-0.108; dice 13 px across (a wide view) 0.019-0.065.
_SOFT = 0.075
# ... and as soft as a blur of this many pixels: a camera's lens and sensor blur dice 13-16 px
# across (a wide view) by about a pixel, 7-9% of such a die, and they are read as surely.
_SOFT_PX = 2.0
# Edges' slopes are counted in this many steps a grey level a pixel, up to _SLOPE_BINS.
_SLOPE_STEPS = 4
_SLOPE_BINS = 1024
# A blurred step's steepest slope is its height over this times the blur's sigma (sqrt(2 pi)).
_STEP = float(np.sqrt(2.0 * np.pi))
# Each die is smoothed by a Gaussian blur of this many of its _DIE_PX pixels before its
# slopes are taken, and that blur taken back out of its softness: a sensor's noise is no sharp
# edge. Before (a helper's audit, session 91), noise of 6 grey levels added to the dev
# photographs blurred by 3.5 px had 20 of 121 judged out of focus, against 113 without it, and
# 6 dice read surely wrong; now 113 (115 without the noise), 1 die read surely wrong. As they
# are, blurred by 1.5 px or shrunk to 0.35, with that noise or without, none is judged so.
_SMOOTH = 1.5


class Light(NamedTuple):
    """What is wrong with a picture's light and focus (all False: nothing)."""

    too_dark: bool = False
    burnt_out: bool = False
    out_of_focus: bool = False


def judge_light(image: np.ndarray, dice: list[Candidate]) -> Light:
    """Whether the picture ``image`` (BGR) is too dark, burnt out or out of focus to read
    the ``dice`` found in it surely: too dark judged on all of it and on each die's
    contrast, burnt out only where no die is given, out of focus on the dice given that
    the frame's edge does not cut."""
    # A dark or burnt frame is so all over: every eighth row and column tell it.
    sample = cv2.split(np.ascontiguousarray(image[::_STEP_PX, ::_STEP_PX]))
    # How lit: the frame's brightest, and each die's contrast.
    lit = [_quantiles(cv2.max(cv2.max(sample[0], sample[1]), sample[2]).reshape(1, -1),
                      (0.995,))[0, 0]]
    patches, sizes, whole = [], [], []
    h, w = image.shape[:2]
    for c in dice:
        r = max(1, int(0.5 * c.size))
        x0, x1 = max(0, int(c.x) - r), min(w, int(c.x) + r)
        y0, y1 = max(0, int(c.y) - r), min(h, int(c.y) + r)
        if x1 - x0 >= 3 and y1 - y0 >= 3:
            patch = image[y0:y1, x0:x1]
            patches.append(cv2.resize(patch, (_DIE_PX, _DIE_PX), interpolation=(
                cv2.INTER_AREA if patch.shape[0] > _DIE_PX else cv2.INTER_LINEAR)))
            sizes.append(2 * r)
            # A die the frame's edge cuts is stretched to the square: its edges soften.
            whole.append(x1 - x0 == y1 - y0 == 2 * r)
    out_of_focus = False
    if patches:
        # The dice side by side: one pass of each filter, the seams between them left out.
        strip = np.hstack(patches)
        b, g, r_ = cv2.split(strip)
        dark, light = _quantiles(_each(cv2.max(cv2.max(b, g), r_), len(patches)),
                                 (1.0 - _LIGHT_DIE, _LIGHT_DIE)).T
        lit.append((light - dark).max())
        uncut = np.array(whole)
        soft = _softness(strip, len(patches))[uncut]
        if soft.size:
            px = soft * np.array(sizes)[uncut]
            out_of_focus = bool(np.median(soft) > _SOFT and np.median(px) > _SOFT_PX)
    too_dark = float(max(lit)) < _DARK
    burnt_out = not dice and float(
        (cv2.min(cv2.min(sample[0], sample[1]), sample[2]) >= _WHITE).mean()) > _BURNT
    return Light(too_dark, burnt_out, out_of_focus)


def _each(strip: np.ndarray, n: int, cut: int = 0) -> np.ndarray:
    """The ``n`` dice side by side in a one-channel ``strip``, one row of values each, less
    ``cut`` pixels at each side."""
    each = strip.reshape(_DIE_PX, n, _DIE_PX).transpose(1, 0, 2)
    if cut:
        each = each[:, cut:-cut, cut:-cut]
    return each.reshape(n, -1)


def _quantiles(rows: np.ndarray, shares: tuple[float, ...], bins: int = 256) -> np.ndarray:
    """Each row's values (whole numbers below ``bins``) below which each of ``shares`` of
    them lie: one histogram a row, counted in one pass (sorting each row costs ten times
    as much)."""
    n, m = rows.shape
    counts = np.bincount((rows + np.arange(n)[:, None] * bins).ravel(), minlength=n * bins)
    below = np.cumsum(counts.reshape(n, bins), axis=1)
    return np.stack([(below <= int(share * m)).sum(axis=1) for share in shares], axis=1)


def _softness(strip: np.ndarray, n: int) -> np.ndarray:
    """How soft each die's edges are, ``n`` dice side by side in ``strip``: the sigma of
    the Gaussian blur that would make its steepest edges (the 99th percentile of their
    slopes) of its contrast (5th to 95th percentile of its grey), in dice. Sharp dice
    measure about 0.02 however large."""
    grey = cv2.cvtColor(strip, cv2.COLOR_BGR2GRAY)
    # Each die smoothed on its own (the seams between them no edges of theirs).
    smooth = np.hstack([
        cv2.GaussianBlur(grey[:, k * _DIE_PX:(k + 1) * _DIE_PX].astype(np.float32), (0, 0),
                         _SMOOTH, borderType=cv2.BORDER_REFLECT)
        for k in range(n)])
    slope = cv2.magnitude(cv2.Sobel(smooth, cv2.CV_32F, 1, 0),
                          cv2.Sobel(smooth, cv2.CV_32F, 0, 1))
    # In quarters of a grey level a pixel (Sobel's weights sum to 8).
    quarters = np.minimum(slope * (_SLOPE_STEPS / 8.0), _SLOPE_BINS - 1).astype(np.int64)
    steepest = _quantiles(_each(quarters, n, cut=2), (0.99,), _SLOPE_BINS)[:, 0] / _SLOPE_STEPS
    low, high = _quantiles(_each(grey, n).astype(np.int64), (0.05, 0.95)).T
    # A die with no edge at all (burnt out white) shows no sign of focus either way.
    with np.errstate(divide="ignore", invalid="ignore"):
        soft = (high - low) / (steepest * _STEP) / _DIE_PX
    soft = np.sqrt(np.maximum(soft**2 - (_SMOOTH / _DIE_PX) ** 2, 0.0))  # the smoothing out
    return np.where(steepest > 0, soft, 0.0)
