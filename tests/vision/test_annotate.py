"""The reveal's picture: each die numbered as the page lists it, so a correction finds its die."""

from __future__ import annotations

import numpy as np

from vision.annotate import annotate
from vision.reading import Die, Reading

GREY = 128


def reading() -> Reading:
    dice = (
        Die(face=3, pips=4, x=100, y=100, size=40, confidence=0.99, colour="red"),
        Die(face=5, pips=2, x=300, y=220, size=40, confidence=0.4, colour="blue"),
    )
    return Reading(dice, "below", {"total": 1.0}, 480, 360)


def number_patch(image: np.ndarray, die: Die) -> np.ndarray:
    """The place under the box's bottom-right corner where a die's number is written."""
    half = int(round(die.size * 0.6))
    x1, top = die.x + half, die.y + half
    return image[top + 4 : top + 12, x1 - 9 : x1 - 3]  # clear of the box's own line


def test_the_page_picture_numbers_each_die_and_the_scan_picture_does_not() -> None:
    table = np.full((360, 480, 3), GREY, np.uint8)
    plain = annotate(table, reading())
    numbered = annotate(table, reading(), numbered=True)
    for die in reading().dice:
        assert (number_patch(plain, die) == GREY).all()  # `dudo scan --annotate`: faces only
        patch = number_patch(numbered, die)
        assert (patch < 60).any() and (patch > 200).any()  # dark label, white digits
    assert (table == GREY).all()  # the photograph itself is left as it was
