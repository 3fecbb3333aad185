"""The dice reader: locate, read faces, name colours; one Reading with each stage's time."""

from __future__ import annotations

import logging
import math
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from vision.config import ReaderConfig, within_die_sizes
from vision.reading import DEFAULT_DOUBT_THRESHOLD, VIEWS, Die, Reading, UnreadableImage

if TYPE_CHECKING:
    from vision.classify import FaceRead
    from vision.locate import Candidate
    from vision.smear import Smear

__all__ = ["SMALLEST_SURE_DIE", "Die", "Reading", "UnreadableImage", "load_image", "read_dice"]

logger = logging.getLogger(__name__)

# Beyond 1.5 times this size a die is shrunk before its face is cut out, by the whole number
# that brings it nearest this size (30-50 px): the face reader was trained on dice 25-55 px
# across, shrinking by area keeps the pips clean, and OpenCV shrinks by area by a whole
# number far faster (a 2028x1520 frame: 1 ms by 2, 21 ms by 0.625).
_FACE_SOURCE_DIE_PX = 40.0
# A candidate is a die when the face reader says so more often than not, and can name its
# face with at least this confidence: below it, a "die" is more often a mark on the table or
# the glass than a die (on held-out photographs), and the players are asked either way, as
# the dice then fall short of those the referee expects. Unless it is surely a die
# (_SURELY_A_DIE), whatever its face: held out, such places were dice 75 times in 75 (from
# 0.95, 87 in 89: a hole in an overexposed tray), shown to the players as doubtful dice
# where they lie, the face a guess for them to correct.
_MIN_DIE_PROBABILITY = 0.5
_MIN_CONFIDENCE = 0.3
_SURELY_A_DIE = 0.97
# A place read doubtfully (less surely than _SPECK_CONFIDENCE, whatever its face), taken for
# a die less surely than _SPECK_DIE, smaller than _SPECK of the table's die (the median size
# of the dice read surely) and alone is a speck or a hole in the table (clipped to white in
# an overexposed frame, or given an edge by a phone's sharpening), not a die: a die lies at
# the table's size and is surely a die, whatever its face. Held out (README, "Other cameras
# and tables"), no die was such a place; a big-pip ace seen alone is, but surely a die
# (0.96-0.98), and a die squeezed among others is not alone.
_SPECK_CONFIDENCE = 0.8
_SPECK_DIE = 0.9
_SPECK = 0.7
# So too a place of up to the table's die size (_FAINT_SIZE) read less surely than even
# (_FAINT) and taken for a die less surely than _FAINT_DIE: a round hole in the table, given
# a die's texture by a phone's blotchy colour noise. Held out over 26 sets of the dev
# photographs (the bare tray, 18 of `vision.degrade`'s changes, colour noise, casts,
# sharpening, tone mapping), 73 such places were none of the dice, 68 of them the holes of
# the dev set's tray in colour noise; the 172 dice read so doubtfully, alone and at that size
# were dice at 0.94 or more, a big-pip ace of the simulator at 0.90, and a die the frame's
# edge cut, in a smeared photograph, at 0.73 (session 65, the log).
_FAINT = 0.5
_FAINT_DIE = 0.8
_FAINT_SIZE = 1.0
# The dice of one table are of one size: a die's face is cut out at the size the locator
# gave it, but within a fifth of the table's die size. Two dice pushed together come out of
# the locator too large, and a dark die on a dark table too small (only its pips are seen).
_SIZE_BAND = (0.8, 1.2)
# The table's die size is the median size of the dice the locator is sure of, where it is
# sure of at least this many; the calibrated size only where it is sure of fewer. The
# locator measures a die's upright box, 1 to 1.41 times its side as it lies turned, and a
# calibration holds the boxes of the dice it saw, as they lay: against a size as small as
# the side, a Perudo sun or a big pip, taken by the locator for the whole die, was cut out
# too small and its rays read as pips (session 38, the log).
_OWN_SIZE_DICE = 3
# Where it is sure of fewer (the end of a game), a die is cut out at no less than the
# calibrated size: every die on the glass is of the table's set, and a calibration of dice
# lying square measures them small (at the least, their side; session 38, the log).
_FEW_DICE_BAND = (1.0, _SIZE_BAND[1])
# Likewise the locator looks at a reveal again at the size of its own dice where they are
# smaller than this share of the calibrated size: calibrated on dice lying more turned than
# these, its one pass saw them under 15 px, where touching dice run together (held out, the
# dev photographs with a die size 1.3 times their dice's own: 1,042 dice read right, 1,055
# now; session 38, the log).
_LOCATED_AGAIN_BELOW = 15.0 / 16.0
# A frame smeared more than this (``vision.smear``) has every die doubted. The dev
# photographs (dice about 41 px) are at 0.35 at most, 0.40 scaled; out of focus or
# foreshortened, one of the 121 is beyond it; smeared 3, 5 and 7 px, 1, 25 and 103 are.
# Held out, a 7 px smear cost 35-44 dice, 8-14 of them misread surely; 3 px, none.
_SMEARED = 0.45
# Where no die is read, the light and focus are judged at the locator's sure places if at
# least this many (vision.light).
_FEW = 3
# A frame whose dice lean one way beyond this, short of smeared, has the dice that lean most
# (each alone beyond ``_SLANTED_DIE``) doubted: a photograph taken slantwise squashes the dice
# far from the camera most, and they are read surely as two dice or as other faces. The dev
# photographs' dice alone are at 0.44 or less for 99 in 100, and none of them is so doubted.
# Held out over eight sets of them seen slantwise (25-45 degrees off straight above, or by a
# camera turned 30-35 degrees), dice misread surely or seen where none is fell from 119 to 85
# from above, 119 to 86 from below; foreshortened to 0.85 (`tilted`), 14 and 24 dice read
# right are doubted more, of 1,063 (session 67, the log).
_SLANTED = 0.3
_SLANTED_DIE = 0.5
# Dice smaller than this in the photograph (the median size of those read, px) have every one
# doubted: their pips are a pixel or two, and more of them are misread surely. Held out (the
# dev photographs scaled by 0.2-0.5, by the median size read), dice misread surely or seen
# where none is: 7 px 6.9% of the dice, 8 px 3.5%, 9-10 px 2.0%, 11-12 px 0.9%, 13-18 px
# 0.7%, the photographs as they are (about 41 px) 0.6%. (Session 65, the log.)
SMALLEST_SURE_DIE = 11.0
# A die whose centre lies nearer the frame's edge than this share of the table's die size
# (an upright box, about 1.3 times a thrown die's side) is cut by the edge: part of its face
# is not in the picture, and the pips seen may be a part of them (an ace seen from below,
# its top row of three pips alone in the frame, read surely as a 5). It is doubted. A whole
# die lying square against the edge has its centre at about 0.38 of that size. So is a die
# whose box reaches the edge, seen smaller than this share of the table's die: the locator
# sized the part in the frame (a white 6, its one column of three pips in it, read surely as a
# 3 at 0.96, its centre 0.3 of a die from the edge). A whole die of a smaller set lying
# against the edge is doubted so too (3% of the dev dice read right, each put flush against
# an edge; none at the table, whose dice are of one size).
_CUT_BY_THE_EDGE = 0.3
_PART_OF_A_DIE = 0.85
# A die read as one pip, boxed smaller than this share of the table's die, is doubted: on a
# dark die the locator may box one of its pips alone (a black die's two red pips, one of them
# outside the box, read surely as an ace, where the die size is given at or under the dice's
# side: 15 of 720 simulated dice at 0.94 of it, none now; session 93's audit). Held out, no
# die of the dev photographs is doubted for it (at 0.7, three real aces of each view were).
_ONE_PIP_PART = 0.66
# A photograph whose dice are squashed one way (``vision.smear``: a tool stretched it to a
# square, or the camera looked slantwise) is read again squared, each die that still leans
# alone beyond ``_SLANTED_DIE`` doubted (one stretch squares a slantwise photograph's near
# and far dice only on the whole), and that reading kept where it doubts at least this many
# dice fewer. Held out, from above, the dev photographs stretched to 0.75 as wide
# (`stretched`) read 1,046 dice and 104 images right, 1,050 and 106 so; to 0.56 as wide
# (`stretched-16-9`) 975 and 66, 1,053 and 108; 0.75 as tall 1,046 and 102, 1,056 and 110;
# seen by a camera turned 35 degrees, 20 dice more and 9 fewer misread surely; every row
# of `vision.degrade` as before (session 74, the log).
_FEWER_DOUBTED = 2
# A picture whose dice, at least _MOSTLY_DICE of them, the reader doubts for this share or
# more is read poorly all over: the few it reads surely are doubted with the rest. Held out,
# from above, five times the light misread 18 dice surely, now 6 (12 lay in photographs 60%
# doubted or more; no dev photograph as it is has such a share); every set of
# `vision.degrade` reads as before, with 0-4 more of its dice doubted (session 83, the log).
_MOSTLY_DOUBTED = 0.6
_MOSTLY_DICE = 3


def read_dice(
    image_bgr: np.ndarray, config: ReaderConfig | None = None, view: str = "below",
    *, each_die_alone: bool = False,
) -> Reading:
    """Every die in a photograph: its face, pips seen, place, size, confidence and colour.

    ``view`` is where the camera is: ``below`` the glass (the face that counts is 7 minus
    the pips seen) or ``above`` the dice. An empty table gives a Reading with no dice.
    ``each_die_alone``: a die read surely is not doubted for the picture (its others
    ``hard_to_read``, its dice smeared or too small: the flags are still said); the empty
    glass's marks are judged one by one, a die left on it among them is no mark. Raises
    UnreadableImage for an empty or malformed frame, ValueError for a bad view.
    """
    if view not in VIEWS:
        raise ValueError(f"view {view!r}: must be one of {', '.join(VIEWS)}")
    config = config or ReaderConfig()
    image = _as_bgr(image_bgr)
    start = time.perf_counter()
    reading, leaning = _read(image, config, view, each_die_alone=each_die_alone)
    if leaning.squashed > 1.0 and len(reading.doubtful) >= _FEWER_DOUBTED:
        # Dice narrower one way than across it: a tool stretched the photograph to a square,
        # or the camera looked slantwise. Read square again, the dice placed back (where
        # that is kept, the stages' times are its own). A first reading doubting fewer than
        # ``_FEWER_DOUBTED`` dice could never be bettered so, and is not read again.
        t = time.perf_counter()
        squared = _read_squared(image, config, view, leaning, each_die_alone)
        if len(squared.doubtful) <= len(reading.doubtful) - _FEWER_DOUBTED:
            reading = squared
        reading.ms["squared"] = (time.perf_counter() - t) * 1000.0
        reading.ms["total"] = (time.perf_counter() - start) * 1000.0
    if leaning.squashed > 1.0:
        reading = replace(reading, squashed=True)
    if reading.hard_to_read and not each_die_alone:
        reading = replace(reading, dice=tuple(replace(d, confidence=min(d.confidence, 0.5))
                                              for d in reading.dice))
    logger.debug("read %d dice in %.1f ms", len(reading.dice), reading.ms["total"])
    return reading


def _read_squared(
    image: np.ndarray, config: ReaderConfig, view: str, leaning: Smear, each_die_alone: bool
) -> Reading:
    """The photograph's dice read from it squared: stretched along ``leaning.along`` by the
    root of ``leaning.squashed`` and shrunk across it by as much, so that its dice are
    square again at the size they had on the whole (the table's die size holds, and the
    frame's area); placed back in it."""
    import cv2

    root = math.sqrt(leaning.squashed)
    way = np.outer(leaning.along, leaning.along)
    square = root * way + (np.eye(2) - way) / root
    h, w = image.shape[:2]
    corners = np.array([[0, 0], [w, 0], [0, h], [w, h]], float) @ square.T
    shift = -corners.min(axis=0)
    size = np.ceil(corners.max(axis=0) + shift).astype(int)
    squared = cv2.warpAffine(image, np.hstack([square, shift[:, None]]),
                             (int(size[0]), int(size[1])), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE)
    marks = tuple((float(x), float(y)) for x, y in (np.array(config.marks).reshape(-1, 2)
                                                    @ square.T + shift))
    reading, _ = _read(squared, replace(config, marks=marks), view, squared=True,
                       each_die_alone=each_die_alone)
    back = np.linalg.inv(square)
    # A die the photograph's own edge cuts is doubted as in ``_read``: the squared frame's
    # margins repeat the edge's pixels, and a die cut there looked whole (before, session
    # 92's audit: a 4 cut to two pips read surely as a 5).
    die = statistics.median(d.size for d in reading.dice) if reading.dice else 0.0
    dice = []
    for d in reading.dice:
        x, y = back @ (np.array([d.x, d.y], float) - shift)
        cut = min(x, y, w - x, h - y) < _CUT_BY_THE_EDGE * die
        dice.append(replace(d, x=min(max(int(round(x)), 0), w - 1),
                            y=min(max(int(round(y)), 0), h - 1),
                            confidence=min(d.confidence, 0.5) if cut else d.confidence))
    dice.sort(key=lambda d: (d.y, d.x))
    return replace(reading, dice=tuple(dice), width=w, height=h)


def _read(
    image: np.ndarray, config: ReaderConfig, view: str, squared: bool = False,
    each_die_alone: bool = False,
) -> tuple[Reading, Smear]:
    """``read_dice`` of one photograph as it is, and how its dice lean; ``squared``: it was
    stretched square, and a die that still leans alone is doubted, however the others lie;
    ``each_die_alone``: no die is doubted for the picture but for its light."""
    from vision.bars import letterbox
    from vision.classify import read_faces
    from vision.closeup import see_close_dice
    from vision.colour import name_colours, name_colours_round
    from vision.join import join_split_dice
    from vision.light import judge_light
    from vision.locate import locate_dice
    from vision.nets import load_nets
    from vision.pieces import drop_pieces
    from vision.smear import smear
    from vision.sure import read_surely, sure_die_size
    from vision.twice import seen_twice

    frame_h, frame_w = image.shape[:2]
    nets = load_nets(config)
    ms: dict[str, float] = {}
    start = t = time.perf_counter()
    # A letterbox's bars hold no dice: what lies between them is read as the photograph, its
    # dice placed back in the frame.
    top, bottom, left, right = letterbox(image)
    if top or bottom or left or right:
        image = np.ascontiguousarray(image[top: frame_h - bottom, left: frame_w - right])
    h, w = image.shape[:2]
    t = _lap(ms, "bars", t)

    def faces_of(candidates: list[Candidate]) -> list[FaceRead]:
        source, seen, _ = _face_source(image, candidates, [c.size for c in candidates])
        return read_faces(source, seen, nets)

    def are_dice(candidates: list[Candidate]) -> list[bool]:
        return [f.die_probability >= _MIN_DIE_PROBABILITY for f in faces_of(candidates)]

    def sure_faces(candidates: list[Candidate]) -> list[int]:
        return [f.pips if read_surely(f) else 0 for f in faces_of(candidates)]

    def located_with(given: ReaderConfig) -> tuple[list[Candidate], list[float]]:
        found = [c for c in locate_dice(image, given, nets, are_dice, sure_faces)
                 if c.score >= given.min_detection]
        return found, [c.size for c in found if c.score >= 0.5]

    located, sizes = located_with(config)
    if (config.die_size is not None and len(sizes) >= _OWN_SIZE_DICE
            and statistics.median(sizes) < _LOCATED_AGAIN_BELOW * config.die_size):
        located, sizes = located_with(
            replace(config, die_size=within_die_sizes(statistics.median(sizes))))
    if len(sizes) >= _OWN_SIZE_DICE or config.die_size is None:
        die_px, band = (statistics.median(sizes) if sizes else 0.0), _SIZE_BAND
    else:
        die_px, band = config.die_size, _FEW_DICE_BAND
    t = _lap(ms, "locate", t)

    source, seen, shrink = _face_source(image, located, sizes)
    faces = read_faces(source, [_in_band(c, die_px * shrink, band) for c in seen], nets)
    t = _lap(ms, "faces", t)
    seen, faces = join_split_dice(source, seen, faces, nets)
    t = _lap(ms, "join", t)
    if config.die_size is None:
        # A photograph taken close: the locator may have seen the pips of a large die as dice.
        closer = see_close_dice(source, seen, faces, nets)
        if closer[0] != seen:
            seen, faces = closer
            die_px = float(np.median([c.size for c in seen if c.score >= 0.5])) / shrink
    t = _lap(ms, "closeup", t)
    seen, faces = drop_pieces(seen, faces)
    table_die = sure_die_size(seen, faces)
    t = _lap(ms, "pieces", t)

    kept = [
        (c, f)
        for c, f in zip(seen, faces, strict=True)
        if f.die_probability >= _MIN_DIE_PROBABILITY
    ]
    candidates_kept = [c for c, _ in kept]
    banded = [_in_band(c, die_px * shrink, band) for c in candidates_kept]
    colours = name_colours(source, banded)
    one_pip = [k for k, (_, f) in enumerate(kept) if f.pips == 1]
    rounds = dict(zip(one_pip, name_colours_round(source, [banded[k] for k in one_pip]),
                      strict=True))
    t = _lap(ms, "colour", t)

    dice, places, cut = [], [], []
    for k, ((c, f), colour) in enumerate(zip(kept, colours, strict=True)):
        # Honest confidence: the face's probability, lowered when the looks at the crop
        # disagree or the locator itself was unsure of a die here (and below, for a frame
        # smeared).
        confidence = f.probability * min(1.0, c.score / 0.6)
        if not f.agree:
            confidence = min(confidence, 0.5)
        if confidence < _MIN_CONFIDENCE and f.die_probability < _SURELY_A_DIE:
            continue
        if _a_speck(c, f, confidence, table_die, candidates_kept, source.shape[:2]):
            continue
        x, y, size = c.x / shrink, c.y / shrink, c.size / shrink
        die = table_die / shrink if table_die else die_px
        reach = min(x, y, w - x, h - y)
        cut_by_the_edge = (reach < _CUT_BY_THE_EDGE * die
                           or reach <= size / 2 and size < _PART_OF_A_DIE * die)
        if cut_by_the_edge or f.pips == 1 and table_die and c.size < _ONE_PIP_PART * table_die:
            confidence = min(confidence, 0.5)
        # A mark is judged by the size of a die on this table, not by its own (often small)
        # size; a die read surely there is a die lying on the mark.
        if confidence < config.doubt_threshold and _on_a_mark(
            x + left, y + top, max(size, die_px), config.marks
        ):
            continue
        places.append(c)
        cut.append(cut_by_the_edge)
        dice.append(
            Die(
                face=7 - f.pips if view == "below" else f.pips,
                pips=f.pips,
                x=int(round(x + left)),
                y=int(round(y + top)),
                size=int(round(size)),
                confidence=round(confidence, 4),
                colour=colour,
                colour_round=rounds[k] if rounds.get(k, colour) != colour else None,
            )
        )
    t = _lap(ms, "specks", t)
    # Judged on the dice read, each at the size the locator gave it (not brought within the
    # table's die size: a die seen close, its first pass's pips set that size).
    leaning = smear(source, places)
    t = _lap(ms, "smear", t)
    smeared = leaning.frame > _SMEARED
    too_small = bool(places) and statistics.median(c.size for c in places) < (
        SMALLEST_SURE_DIE * shrink)
    # Where no die is read, judged at the places the locator was sure of, if a few (a glint
    # on the empty glass is soft): blurred enough, no die is read, and a blurred photograph
    # was read as an empty table.
    sure_places = [c for c in seen if c.score >= 0.5]
    light = judge_light(source, places or (sure_places if len(sure_places) >= _FEW else []))
    t = _lap(ms, "light", t)
    # (Each die alone, as the empty glass's marks are judged: a die left on the glass, read
    # surely, is said, however small; before, session 92's audit, dice under 11 px were all
    # doubted there, and written as marks.)
    every_die = (smeared or too_small) and not each_die_alone or any(light)
    # Each die doubted on its own, before the picture's rules below (a pair seen twice, a
    # slant), at the reader's own threshold where a table asks to look at surer dice too (a
    # threshold of 1.0 makes every die doubtful: no sign of a picture read poorly). The dice
    # are doubted by ``read_dice``, once it has chosen between this reading and a squared one.
    # Dice the frame's edge cuts are doubted for that alone, and say nothing of the rest.
    whole = [d for d, by_the_edge in zip(dice, cut, strict=True) if not by_the_edge]
    doubted = sum(d.confidence < min(config.doubt_threshold, DEFAULT_DOUBT_THRESHOLD)
                  for d in whole)
    hard_to_read = (not every_die and len(whole) >= _MOSTLY_DICE
                    and doubted >= _MOSTLY_DOUBTED * len(whole))
    slanted = not every_die and (squared or leaning.frame > _SLANTED) and any(
        alone > _SLANTED_DIE for alone in leaning.dice)
    twice = seen_twice(dice)
    # A die seen smaller than SMALLEST_SURE_DIE among larger ones is doubted as they all are
    # in a picture of such dice: held out (the dev photographs scaled 0.27-0.4, their median
    # die 11 px or more), 1.8% of them were read surely wrong, against 0.1-0.2% of the others.
    # They are said too small, as a picture of such dice is, unless the picture is faulted
    # otherwise (a die seen small in a burnt-out picture is no reason to come closer).
    small = [not each_die_alone and c.size < SMALLEST_SURE_DIE * shrink for c in places]
    too_small = too_small or any(small) and not (every_die or hard_to_read)
    dice = [replace(d, confidence=min(d.confidence, 0.5))
            if every_die or small[i] or slanted and alone > _SLANTED_DIE or i in twice else d
            for i, (d, alone) in enumerate(zip(dice, leaning.dice, strict=True))]
    t = _lap(ms, "twice", t)
    dice.sort(key=lambda d: (d.y, d.x))
    ms["total"] = (time.perf_counter() - start) * 1000.0
    return Reading(tuple(dice), view, ms, frame_w, frame_h, config.doubt_threshold, smeared,
                   too_small, slanted, too_dark=light.too_dark, burnt_out=light.burnt_out,
                   out_of_focus=light.out_of_focus, hard_to_read=hard_to_read), leaning


def _a_speck(
    c: Candidate,
    f: FaceRead,
    confidence: float,
    table_die: float | None,
    dice: list[Candidate],
    frame: tuple[int, int],
) -> bool:
    """Whether a place is a speck or a hole in the table, not a die: read doubtfully, not
    surely a die at all, smaller than the table's die (``table_die``), or no larger, read less
    surely than even and lying wholly in the ``frame`` (height, width: a die the frame cuts
    shows a part of itself), and lying alone, more than a table's die from any of ``dice`` (a
    die squeezed between its neighbours may come out as small)."""
    height, width = frame
    whole = min(c.x, c.y, width - c.x, height - c.y) >= c.size / 2
    return (
        confidence < _SPECK_CONFIDENCE
        and f.die_probability < _SPECK_DIE
        and table_die is not None
        and (c.size < _SPECK * table_die
             or confidence < _FAINT and f.die_probability < _FAINT_DIE
             and c.size < _FAINT_SIZE * table_die and whole)
        and not any(d is not c and math.hypot(d.x - c.x, d.y - c.y) < table_die for d in dice)
    )


def _face_source(
    image: np.ndarray, candidates: list[Candidate], sizes: list[float]
) -> tuple[np.ndarray, list[Candidate], float]:
    """The photograph the face reader reads dice of these ``sizes`` from, the candidates in
    it, and its scale: shrunk by area where the dice are large (scaled down by far in one
    step, their pips would break into the pixels that happen to be sampled), by a whole
    number (the last few rows and columns left out where the sides are not multiples of it:
    a die lying there is cut off by the photograph's edge anyway)."""
    import cv2  # only here: importing the reader must not load OpenCV

    from vision.locate import Candidate

    die = statistics.median(sizes) if sizes else 0.0
    if die <= 1.5 * _FACE_SOURCE_DIE_PX:
        return image, candidates, 1.0
    factor = max(2, round(die / _FACE_SOURCE_DIE_PX))
    h, w = image.shape[:2]
    source = cv2.resize(image[: h - h % factor, : w - w % factor], (w // factor, h // factor),
                        interpolation=cv2.INTER_AREA)
    shrink = 1.0 / factor
    seen = [Candidate(c.x * shrink, c.y * shrink, c.size * shrink, c.score) for c in candidates]
    return source, seen, shrink


# The brands an ISO media file of a still photograph names after "ftyp" (HEIC, AVIF): OpenCV's
# wheels decode none of them.
_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1", b"avif",
                b"avis"}


def load_image(path: str | Path) -> np.ndarray:
    """A photograph from a file as a BGR array; UnreadableImage names the file and why."""
    import cv2

    if str(path) == "":
        raise UnreadableImage("an empty file name: name a photograph")
    path = Path(path)
    try:
        if not path.exists():
            raise UnreadableImage(f"{path}: a link to no file (or a loop of links)"
                                  if path.is_symlink() else f"{path}: no such file")
        if path.is_dir():
            raise UnreadableImage(f"{path}: a folder, not a photograph: name its photographs"
                                  f" ({path / '*.jpg'})")
        if not path.is_file():
            raise UnreadableImage(f"{path}: not a file")
    except OSError as err:  # a folder on the way that cannot be opened
        raise UnreadableImage(f"{path}: cannot be read ({err.strerror})") from None
    try:
        size = path.stat().st_size
        if size > MOST_BYTES:  # read whole before a look at it, 3 GB named .jpg took 3 GB
            raise UnreadableImage(f"{path}: {size / 1e6:.0f} MB, larger than any photograph"
                                  f" the reader takes ({MOST_BYTES / 1e6:.0f} MB at most)")
        data = np.fromfile(str(path), np.uint8)
    except OSError as err:
        raise UnreadableImage(f"{path}: cannot be read ({err.strerror})") from None
    if data.size == 0:
        raise UnreadableImage(f"{path}: empty file")
    declared = _declared_size(data.data)
    if declared is not None and declared[0] * declared[1] > MOST_PIXELS:
        # A few MB of PNG may declare 30000x30000 pixels: 5 GB decoded, then read as no dice.
        raise UnreadableImage(
            f"{path}: {declared[0]}x{declared[1]} pixels, larger than any photograph the reader"
            f" takes ({MOST_PIXELS / 1e6:.0f} megapixels at most)")
    try:
        with _decoder_messages() as messages:
            image = cv2.imdecode(data, cv2.IMREAD_COLOR | cv2.IMREAD_ANYDEPTH)
            if image is not None and image.dtype == np.uint16:
                image = _eight_bits(image)
            elif image is not None and image.dtype != np.uint8:  # floats: OpenCV's own way
                image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error as err:  # a header declaring more pixels than OpenCV decodes, and worse
        if "Insufficient memory" in str(err):
            raise UnreadableImage(f"{path}: too large to decode in the memory available"
                                  ) from None
        reason = "larger than OpenCV decodes" if "MAX_IMAGE_PIXELS" in str(err) else "corrupt"
        raise UnreadableImage(f"{path}: not an image OpenCV can decode ({reason})") from None
    if image is None:
        if data[4:8].tobytes() == b"ftyp" and data[8:12].tobytes() in _HEIF_BRANDS:
            raise UnreadableImage(f"{path}: a HEIF photograph (a phone's HEIC or an AVIF),"
                                  " which OpenCV does not decode: save it as a JPEG or PNG")
        raise UnreadableImage(f"{path}: not an image OpenCV can decode (corrupt or unknown format)")
    # Damage first: libjpeg says nothing of a file cut short, and damaged bytes may read as a
    # marker whose length runs past the file's end, as if it were cut short.
    damage = [m for m in messages if m.startswith(_DAMAGED) and not m.endswith(_HARMLESS)]
    if damage:
        # libjpeg decodes what it can and paints the rest: garbage there can look like dice.
        raise UnreadableImage(f"{path}: the JPEG data is damaged ({damage[0][len(_DAMAGED):]})")
    if _truncated_jpeg(data.tobytes()):
        # OpenCV paints the missing part grey and goes on: the dice there would be lost.
        raise UnreadableImage(f"{path}: the JPEG data ends early (the file is cut short)")
    return np.asarray(image)


def _eight_bits(image: np.ndarray) -> np.ndarray:
    """A 16-bit photograph in 8 bits, by the bits its values use: a camera of 10 or 12 bits
    saves its values in the low bits of a 16-bit PNG or TIFF (or frame), which OpenCV's 8-bit
    decoding (the top 8 of 16) turns black, its dice unseen. ``image`` is shifted in place."""
    used = int(image.max()).bit_length()
    np.right_shift(image, max(0, used - 8), out=image)
    return image.astype(np.uint8)


# libjpeg's warning for damaged coded data, and the one case of it that leaves every pixel
# as written: bytes of padding just before the end-of-image marker.
_DAMAGED = "Corrupt JPEG data: "
_HARMLESS = "before marker 0xd9"


@contextmanager
def _decoder_messages() -> Iterator[list[str]]:
    """Collect, instead of showing, what the image libraries write from C to the process's
    stderr while a file is decoded (libjpeg's "Corrupt JPEG data: ...", libpng's errors): the
    list holds the lines once the block ends. A file that cannot be read is the caller's one
    message, naming the file.

    The process's stderr is taken for that moment, so only in the main thread of a command
    (``dudo scan``, the measuring commands): in a server's other threads, whose log lines it
    would swallow, the file is decoded as it is and its damage goes unseen, as before.
    """
    messages: list[str] = []
    if threading.current_thread() is not threading.main_thread():
        yield messages
        return
    try:
        sink = tempfile.TemporaryFile()  # noqa: SIM115 (closed by the with below)
    except OSError:  # nowhere to put them: decoded as it is
        yield messages
        return
    with sink:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            yield messages
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            messages.extend(sink.read().decode("utf-8", "replace").splitlines())


# The largest photograph file the reader takes (120 megapixels of 16-bit colour, uncompressed,
# fit), and the most pixels it may declare: a phone's 108-megapixel photograph (12000x9000) is
# read in about 700 MB.
MOST_BYTES = 800_000_000
MOST_PIXELS = 120_000_000


def _declared_size(data: memoryview) -> tuple[int, int] | None:
    """The width and height a PNG or JPEG file's header declares; None for another format,
    or a header not found (the decoder judges it). A JPEG's segments are followed to its
    frame's header however far in (before, session 92's audit: only its first 64 KB, and a
    phone's EXIF, XMP or ICC segments may take more)."""
    head = bytes(data[:24])
    if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR":
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    if not head.startswith(b"\xff\xd8"):
        return None
    at = 2
    while at + 9 < len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker == 0xFF:
            at += 1  # a fill byte before the marker
        elif 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a frame's header
            return (int.from_bytes(data[at + 7:at + 9], "big"),
                    int.from_bytes(data[at + 5:at + 7], "big"))
        elif 0xD0 <= marker <= 0xD7 or marker == 0x01:
            at += 2  # no segment
        else:
            at += 2 + int.from_bytes(data[at + 2:at + 4], "big")
    return None


def _truncated_jpeg(data: bytes) -> bool:
    """Whether a JPEG file stops before its end-of-image marker.

    The file's own segments are followed from its start: each marker segment is skipped by
    its length, and a scan's coded data runs to the next marker (inside it, 0xFF is followed
    only by 0x00, a restart marker 0xD0-0xD7 or more 0xFF). What follows the end-of-image
    marker is not looked at: a phone's "motion photo" appends a video there.
    """
    if not data.startswith(b"\xff\xd8"):
        return False
    at, end = 2, len(data)
    while at < end:
        if data[at] != 0xFF:
            return False  # no marker where one must be: the decoder has judged the file
        while at < end and data[at] == 0xFF:
            at += 1  # fill bytes before a marker
        if at >= end:
            return True
        marker = data[at]
        at += 1
        if marker == 0xD9:
            return False
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            continue  # markers without a segment
        if at + 2 > end:
            return True
        at += int.from_bytes(data[at:at + 2], "big")
        if marker == 0xDA:
            found = _NEXT_MARKER.search(data, at)
            if found is None:
                return True
            at = found.start()
    return True


# A marker after a scan's coded data: 0xFF followed by anything but 0x00, 0xD0-0xD7 or 0xFF.
_NEXT_MARKER = re.compile(b"\xff[^\x00\xd0-\xd7\xff]")


# The fewest pixels a side of a photograph may have.
_LEAST_SIDE = 16


def _as_bgr(image: object) -> np.ndarray:
    """The frame as a 3-channel uint8 BGR array, or UnreadableImage saying what is wrong."""
    import cv2

    if not isinstance(image, np.ndarray):
        raise UnreadableImage(f"frame is a {type(image).__name__}, not an image array")
    if image.ndim not in (2, 3):
        raise UnreadableImage(f"frame of shape {image.shape}: expected rows, columns and colours")
    if image.size == 0 or min(image.shape[:2]) < _LEAST_SIDE:
        raise UnreadableImage(f"{image.shape[1]}x{image.shape[0]} pixels: empty or too small to"
                              f" read (each side at least {_LEAST_SIDE} px)")
    if image.dtype != np.uint8:
        if image.dtype == np.uint16:
            image = _eight_bits(image.copy())
        else:
            raise UnreadableImage(f"frame of type {image.dtype}: expected 8-bit pixels")
    if image.ndim == 2:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    channels = image.shape[2]
    if channels == 4:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGRA2BGR))
    if channels == 1:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    if channels != 3:
        raise UnreadableImage(f"frame with {channels} channels: expected 1, 3 or 4")
    return image


def _on_a_mark(x: float, y: float, size: float, marks: tuple[tuple[float, float], ...]) -> bool:
    """Whether a candidate is centred on one of the empty glass's marks (within half a die:
    the camera is fixed, so a mark is seen where it was, give or take the locator's centre)."""
    return any(math.hypot(x - mx, y - my) <= 0.5 * size for mx, my in marks)


def _in_band(c: Candidate, die_px: float, band: tuple[float, float]) -> Candidate:
    """The candidate with its size brought within ``band`` (shares) of the table's die size
    (if known)."""
    if not die_px:
        return c
    return replace(c, size=min(max(c.size, band[0] * die_px), band[1] * die_px))


def _lap(ms: dict[str, float], stage: str, since: float) -> float:
    now = time.perf_counter()
    ms[stage] = (now - since) * 1000.0
    return now
