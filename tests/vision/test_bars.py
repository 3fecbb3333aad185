"""A photograph padded with flat bars (a letterbox) is read as the photograph between them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.bars import letterbox
from vision.reader import load_image, read_dice

DEV = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets" / "dice-top-dev"
PHOTOS = sorted((DEV / "images").glob("*.jpg"))[5::30]


def padded(image: np.ndarray, top: int, bottom: int, left: int, right: int,
           colour: int) -> np.ndarray:
    return cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT,
                              value=(colour, colour, colour))


@pytest.mark.parametrize("colour", [0, 114, 255], ids=["black", "grey", "white"])
def test_a_letterboxed_photograph_is_read_as_the_photograph_between_its_bars(
    colour: int,
) -> None:
    # A 4:3 photograph padded to a square, as tools preparing photographs for training do:
    # the same dice, where they lie in the square (before, a black bar a quarter of the frame
    # shifted the light the nets see, and 5 dice of the dev set held out were read otherwise).
    assert len(PHOTOS) >= 4, f"dev photographs missing at {DEV}"
    for path in PHOTOS:
        photograph = load_image(path)[80:560]
        alone = read_dice(photograph, view="above")
        boxed = read_dice(padded(photograph, 80, 80, 0, 0, colour), view="above")
        assert boxed.dice == tuple(replace(d, y=d.y + 80) for d in alone.dice), path.name
        assert (boxed.width, boxed.height) == (640, 640)


def test_the_bars_are_measured_on_each_side_as_saved_in_a_jpeg() -> None:
    photograph = load_image(PHOTOS[0])[80:560, 48:592]
    ok, data = cv2.imencode(".jpg", padded(photograph, 80, 80, 48, 48, 0),
                            [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    # Never more than the bar; a pixel less where the JPEG's colour, at half the resolution,
    # spills the photograph's into it.
    measured = letterbox(cv2.imdecode(data, cv2.IMREAD_COLOR))
    assert all(bar - 2 <= found <= bar for found, bar in zip(measured, (80, 80, 48, 48),
                                                           strict=True)), measured
    assert letterbox(padded(photograph, 0, 24, 0, 0, 114)) == (0, 24, 0, 0)


def test_a_photograph_a_plain_table_or_a_frame_of_one_colour_has_no_bars() -> None:
    # The dev photographs; the glass seen empty by a camera with its noise; a frame dark
    # all over (a table at night): read whole, none of it cut.
    assert all(letterbox(load_image(p)) == (0, 0, 0, 0) for p in PHOTOS)
    rng = np.random.default_rng(3)
    plain = np.clip(rng.normal(200, 3, (480, 640, 3)), 0, 255).astype(np.uint8)
    assert letterbox(plain) == (0, 0, 0, 0)
    assert letterbox(np.full((480, 640, 3), 7, np.uint8)) == (0, 0, 0, 0)
