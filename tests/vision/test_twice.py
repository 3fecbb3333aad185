"""A die seen twice (two dice of one face nearer than two dice can lie) is doubted, never
counted twice surely; dice lying side by side, or near but of other faces, are left alone."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from vision.evaluate import LabelledDie, score_image
from vision.reader import read_dice
from vision.reading import Die
from vision.twice import NEARER, seen_twice


def die(face: int, x: int, y: int, size: int = 40) -> Die:
    return Die(face=face, pips=face, x=x, y=y, size=size, confidence=0.99, colour="red")


def test_two_dice_of_one_face_nearer_than_two_dice_can_lie_are_one_die_seen_twice() -> None:
    assert seen_twice([die(4, 100, 100), die(4, 100, 120), die(2, 300, 300)]) == {0, 1}
    # Judged by the larger of the two: a small piece beside a whole die.
    assert seen_twice([die(5, 100, 100, size=40), die(5, 120, 100, size=20)]) == {0, 1}


def test_dice_side_by_side_or_of_other_faces_are_two_dice() -> None:
    assert seen_twice([die(4, 100, 100), die(4, 140, 100)]) == set()  # touching, a die apart
    assert seen_twice([die(4, 100, 100), die(4, 100, 100 + int(NEARER * 40) + 1)]) == set()
    assert seen_twice([die(4, 100, 100), die(3, 100, 115)]) == set()  # leaning on another
    assert seen_twice([die(6, 100, 100)]) == set()
    assert seen_twice([]) == set()


# Seen by a camera turned 35 degrees, each of these had a die far from it read surely twice
# (as two dice of one face, one of them extra): 111304 a 4 at 0.98, 112005 an ace at 1.00,
# 112920 a 5 at 0.97 (session 70).
SEEN_TWICE = ["IMG_20191208_111304.jpg", "IMG_20191208_112005.jpg", "IMG_20191208_112920.jpg"]


@pytest.mark.parametrize("name", SEEN_TWICE)
def test_a_die_a_slantwise_photograph_shows_twice_is_doubted_not_counted_surely(
    name: str, turned_photograph: Callable[..., tuple[np.ndarray, list[LabelledDie]]]
) -> None:
    image, moved = turned_photograph(name, 35.0)
    reading = read_dice(image, view="above")
    result = score_image(name, moved, reading)
    assert result.confidently_wrong == 0, result.errors
    twice = seen_twice(reading.dice)
    assert all(reading.dice[i] in reading.doubtful for i in twice)
    # Still seen twice, both readings doubted; or, read square again (since session 74:
    # 112920), seen once, and no die is extra.
    assert twice and result.extra >= 1 or not twice and result.extra == 0
