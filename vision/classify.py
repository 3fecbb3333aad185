"""Stage 2: read the pips of each candidate die with the face reader, or reject it."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.locate import Candidate
from vision.nets import CROP_DIE_PX, CROP_PX, NOT_A_DIE, Nets, normalise


@dataclass(frozen=True)
class FaceRead:
    """What the face reader made of one candidate.

    ``pips``: most likely pips seen (1..6); ``probability``: its probability, both views
    of the crop averaged; ``die_probability``: probability that it is a die at all;
    ``agree``: the two views of the crop gave the same pips.
    """

    pips: int
    probability: float
    die_probability: float
    agree: bool


def read_faces(image: np.ndarray, candidates: list[Candidate], nets: Nets) -> list[FaceRead]:
    """The face read for each candidate, in the candidates' order.

    Each die is cut out upright and scaled to the size the reader was trained on; it is
    read twice, as cut and turned a quarter and mirrored (a die looks the same both ways),
    and the two readings are averaged so a doubtful die shows as doubtful.
    """
    if not candidates:
        return []
    crops = np.empty((2 * len(candidates), 3, CROP_PX, CROP_PX), np.float32)
    for i, c in enumerate(candidates):
        crop = _cut(image, c)
        crops[2 * i] = normalise(crop)
        crops[2 * i + 1] = normalise(np.ascontiguousarray(np.rot90(crop)[:, ::-1]))
    logits = nets.read(crops).astype(np.float64)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    reads = []
    for i in range(len(candidates)):
        a, b = probs[2 * i], probs[2 * i + 1]
        mean = (a + b) / 2
        best = int(np.argmax(mean[:NOT_A_DIE]))
        reads.append(
            FaceRead(
                pips=best + 1,
                probability=float(mean[best]),
                die_probability=float(1.0 - mean[NOT_A_DIE]),
                agree=int(np.argmax(a)) == int(np.argmax(b)),
            )
        )
    return reads


def _cut(image: np.ndarray, c: Candidate) -> np.ndarray:
    scale = CROP_DIE_PX / max(c.size, 1.0)
    m = np.array([[scale, 0.0, CROP_PX / 2 - scale * c.x], [0.0, scale, CROP_PX / 2 - scale * c.y]])
    return cv2.warpAffine(
        image, m, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
