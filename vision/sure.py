"""What counts as read surely, for every stage: a reading no other look need check, a face
named surely, and the size of the dice so read (a photograph's own die size)."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

import numpy as np

from vision.nets import NOT_A_DIE

if TYPE_CHECKING:
    from vision.classify import FaceRead
    from vision.locate import Candidate

# A first reading at least this sure is not read again.
SURE = 0.9
# Nor is a place the face reader takes for no die as surely as this: the second reading
# settles a doubtful face, and held out it never made such a place a die.
_NO_DIE = 0.8


def settled(probabilities: np.ndarray) -> bool:
    """Whether a reading needs no other look: a face read near certainly, or no die."""
    return bool(probabilities.max() >= SURE or probabilities[NOT_A_DIE] >= _NO_DIE)


def read_surely(face: FaceRead) -> bool:
    """Whether a reading names a die's face surely, every look at it agreeing."""
    return face.probability >= SURE and face.agree and face.die_probability >= 0.5


def sure_die_size(candidates: list[Candidate], faces: list[FaceRead]) -> float | None:
    """The table's die size as a photograph shows it: the median size of the candidates read
    surely (None where there is none)."""
    sure = [c.size for c, f in zip(candidates, faces, strict=True) if read_surely(f)]
    return statistics.median(sure) if sure else None
