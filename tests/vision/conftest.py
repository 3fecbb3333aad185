"""Shared by the reader's tests: a dev photograph's table with its dice painted over, the
check that dice laid on another table are the same dice, and a dev photograph as a camera
turned slantwise sees it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.degrade import turned
from vision.evaluate import LabelledDie, load_labels
from vision.reader import load_image

DEV = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets" / "dice-top-dev"
if not (DEV / "labels").is_dir():
    # One clear line, not a hundred tests failing on a missing file.
    raise pytest.UsageError(
        f"the reader's tests need the dev photographs at {DEV.resolve()}: put the shared folder"
        " (its datasets/dice-top-dev) beside this clone, as CI has it")


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


@pytest.fixture
def laid_on_another_table() -> Callable[..., np.ndarray]:
    """``laid_on_another_table(photo, laid, dice)`` asserts that every die's middle in
    ``laid`` is the photograph's own, and returns the mask of the table far from any die
    (more than 1.5 dice away), for the caller to check what became of it."""

    def check(
        photo: np.ndarray, laid: np.ndarray, dice: list[tuple[float, float, float]]
    ) -> np.ndarray:
        far = np.ones(photo.shape[:2], bool)
        for x, y, size in dice:
            near = np.s_[max(int(y - 1.5 * size), 0) : int(y + 1.5 * size),
                         max(int(x - 1.5 * size), 0) : int(x + 1.5 * size)]
            far[near] = False
            middle = np.s_[int(y - 0.15 * size) : int(y + 0.15 * size),
                           int(x - 0.15 * size) : int(x + 0.15 * size)]
            assert np.abs(laid[middle].astype(int) - photo[middle]).max() <= 2, (x, y)
        return far

    return check


@pytest.fixture
def turned_photograph() -> Callable[[str, float], tuple[np.ndarray, list[LabelledDie]]]:
    """``turned_photograph(name, pitch)``: the dev photograph NAME (a file name) as a camera
    turned ``pitch`` degrees about its own centre sees it, and its labelled dice where they
    are then seen."""

    def turn(name: str, pitch: float) -> tuple[np.ndarray, list[LabelledDie]]:
        image, seen = turned(load_image(DEV / "images" / name), pitch)
        labels = load_labels(DEV / "labels" / (Path(name).stem + ".txt"), 640, 640, "above")
        there = cv2.perspectiveTransform(
            np.array([[[d.x, d.y]] for d in labels], np.float64), seen)
        return image, [LabelledDie(d.face, float(p[0][0]), float(p[0][1]), d.size)
                       for d, p in zip(labels, there, strict=True)]

    return turn
