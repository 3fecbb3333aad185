"""Shared by the reader's tests: a dev photograph's table with its dice painted over."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from vision.evaluate import load_labels
from vision.reader import load_image

DEV = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets" / "dice-top-dev"


@pytest.fixture
def table_without_dice() -> Callable[[str], np.ndarray]:
    """``table_without_dice(name)``: the dev photograph NAME (no suffix) with every labelled
    die painted over by the table's own colour just below it: the empty table, as it was."""

    def paint(name: str) -> np.ndarray:
        image = load_image(DEV / "images" / f"{name}.jpg")
        for lab in load_labels(DEV / "labels" / f"{name}.txt", 640, 640, "above"):
            r, x, y = int(lab.size * 0.8), int(lab.x), int(lab.y)
            image[y - r : y + r, x - r : x + r] = np.median(
                image[y + r : y + 2 * r, x - r : x + r], axis=(0, 1)
            )
        return image

    return paint
