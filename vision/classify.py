"""Stage 2: read the pips of each candidate die with the face reader, or reject it."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.locate import Candidate
from vision.nets import CROP_DIE_PX, CROP_PX, NOT_A_DIE, Nets, normalise

# A first reading at least this sure is not read a second time.
_SURE = 0.98
_BATCH = 4
# The second reading also sees the die a little smaller: the locator's size is an estimate.
_SECOND_ZOOM = 0.8


@dataclass(frozen=True)
class FaceRead:
    """What the face reader made of one candidate.

    ``pips``: most likely pips seen (1..6); ``probability``: its probability (both views
    of the crop averaged when read twice); ``die_probability``: probability that it is a
    die at all; ``agree``: the two views of the crop gave the same answer.
    """

    pips: int
    probability: float
    die_probability: float
    agree: bool


def read_faces(image: np.ndarray, candidates: list[Candidate], nets: Nets) -> list[FaceRead]:
    """The face read for each candidate, in the candidates' order.

    Each die is cut out upright and scaled to the size the reader was trained on. A die
    not read with near certainty is read a second time, turned a quarter, mirrored (a die
    looks the same both ways) and seen a little smaller (the locator's size is an
    estimate); the two readings are averaged, so that a doubtful die shows as doubtful.
    """
    if not candidates:
        return []
    cuts = [_cut(image, c) for c in candidates]
    first = _probabilities(nets, [normalise(cut) for cut in cuts])
    unsure = [i for i, p in enumerate(first) if p.max() < _SURE]
    second = _probabilities(
        nets,
        [normalise(_turned(_cut(image, candidates[i], _SECOND_ZOOM))) for i in unsure],
    )
    again = dict(zip(unsure, second, strict=True))
    reads = []
    for i, a in enumerate(first):
        b = again.get(i, a)
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


def _probabilities(nets: Nets, crops: list[np.ndarray]) -> list[np.ndarray]:
    """Softmax of the face reader for each crop, run in batches of one fixed size.

    A fixed batch shape matters: OpenCV's dnn re-plans the whole net for every new input
    shape, which costs more than reading a few padding crops.
    """
    out: list[np.ndarray] = []
    for start in range(0, len(crops), _BATCH):
        chunk = crops[start : start + _BATCH]
        batch = np.zeros((_BATCH, 3, CROP_PX, CROP_PX), np.float32)
        batch[: len(chunk)] = chunk
        logits = nets.read(batch)[: len(chunk)].astype(np.float64)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        out.extend(probs / probs.sum(axis=1, keepdims=True))
    return out


def _turned(crop: np.ndarray) -> np.ndarray:
    """The crop turned a quarter and mirrored: the same die, seen another way."""
    return np.ascontiguousarray(np.rot90(crop)[:, ::-1])


def _cut(image: np.ndarray, c: Candidate, zoom: float = 1.0) -> np.ndarray:
    scale = zoom * CROP_DIE_PX / max(c.size, 1.0)
    m = np.array([[scale, 0.0, CROP_PX / 2 - scale * c.x], [0.0, scale, CROP_PX / 2 - scale * c.y]])
    return cv2.warpAffine(
        image, m, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
