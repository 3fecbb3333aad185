"""Stage 2: read the pips of each candidate die with the face reader, or reject it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.locate import Candidate
from vision.nets import CROP_DIE_PX, CROP_PX, MOST_CROPS, NOT_A_DIE, Nets, normalise
from vision.sure import settled

# A doubtful die the second reader reads, as first seen, at least this surely (a face, or
# no die) is not looked at again: held out, its other four looks changed no image's score.
SECOND_SURE = 0.95
# The other looks at a die the second reader doubts too: (zoom, quarter turns). A die shows
# the same pips turned (and mirrored: each look is also read in the mirror, see Nets); two
# looks see it a little smaller, as the locator's size is an estimate.
_LOOKS = ((0.8, 2), (1.0, 1), (1.0, 3), (0.8, 0))


@dataclass(frozen=True)
class FaceRead:
    """What the face reader made of one candidate.

    ``pips``: most likely pips seen (1..6); ``probability``: its probability (all looks
    at the crop averaged when read again); ``die_probability``: probability that it is a
    die at all; ``agree``: every look at the crop gave that answer.
    """

    pips: int
    probability: float
    die_probability: float
    agree: bool


def read_faces(image: np.ndarray, candidates: list[Candidate], nets: Nets) -> list[FaceRead]:
    """The face read for each candidate, in the candidates' order.

    Each die is cut out upright and scaled to the size the reader was trained on, and read
    by the face reader (``Nets.glance``: once where that look is near certain, else in the
    mirror too). A die the face reader does not read with near certainty, nor take for no
    die surely, is read again by the second reader (``Nets.read_again``; the face reader
    itself where there is none), and that reading replaces the first. Where the second
    reader is not sure of it either (``SECOND_SURE``), it looks four times more (``_LOOKS``:
    turned, seen a little smaller), and the five readings, averaged, replace the first: one
    unlucky look does not decide, and a die that stays doubtful shows as doubtful.
    """
    if not candidates:
        return []
    crops = [normalise(_cut(image, c)) for c in candidates]
    first = list(nets.glance(np.stack(crops)))
    readings = [[p] for p in first]
    unsure = [i for i, p in enumerate(first) if not settled(p)]
    for i, p in zip(unsure, _probabilities(nets.read_again, [crops[i] for i in unsure]),
                    strict=True):
        readings[i] = [p]
    doubted = [i for i in unsure if readings[i][0].max() < SECOND_SURE]
    again = [(i, look) for i in doubted for look in _LOOKS]
    for start in range(0, len(again), MOST_CROPS):  # cut as read: a frame of hundreds of
        part = again[start: start + MOST_CROPS]     # doubtful things holds no 1 GB of looks
        looks = [_looked(_cut(image, candidates[i], zoom), turns) for i, (zoom, turns) in part]
        for (i, _), p in zip(part, _probabilities(nets.read_again, looks), strict=True):
            readings[i].append(p)
    reads = []
    for each in readings:
        mean = np.mean(each, axis=0)
        best = int(np.argmax(mean[:NOT_A_DIE]))
        reads.append(
            FaceRead(
                pips=best + 1,
                probability=float(mean[best]),
                die_probability=float(1.0 - mean[NOT_A_DIE]),
                agree=all(int(np.argmax(p)) == best for p in each),
            )
        )
    return reads


def _probabilities(
    read: Callable[[np.ndarray], np.ndarray], crops: list[np.ndarray]
) -> list[np.ndarray]:
    """The probabilities of a reader (``Nets.read`` or ``Nets.read_again``) for each crop,
    in one call (a crop reads the same alone or among others)."""
    return list(read(np.stack(crops))) if crops else []


def _looked(crop: np.ndarray, turns: int) -> np.ndarray:
    """The crop turned by quarters, normalised: the same die, seen another way."""
    return normalise(np.ascontiguousarray(np.rot90(crop, turns)))


def _cut(image: np.ndarray, c: Candidate, zoom: float = 1.0) -> np.ndarray:
    """The die at ``c`` scaled to the reader's size, in the middle of a CROP_PX square.

    A candidate's centre is measured from the photograph's edge (a pixel spans x..x+1);
    OpenCV's warp puts pixel i at i: the half pixel keeps the crop of a mirrored photograph
    the mirror of the crop, but for the warp's rounding (a few grey levels).
    """
    scale = zoom * CROP_DIE_PX / max(c.size, 1.0)
    middle = (CROP_PX - 1) / 2.0
    m = np.array([[scale, 0.0, middle - scale * (c.x - 0.5)],
                  [0.0, scale, middle - scale * (c.y - 0.5)]])
    return cv2.warpAffine(
        image, m, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
