"""A photograph padded with flat bars (a letterbox) is read as the photograph between them."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.vision.conftest import DEV
from vision.bars import letterbox
from vision.evaluate import load_labels
from vision.reader import load_image, read_dice

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


@pytest.mark.parametrize("bars", [(80, 80, 0, 0), (0, 0, 48, 48)], ids=["above", "beside"])
def test_the_bars_are_measured_as_saved_in_a_jpeg(bars: tuple[int, int, int, int]) -> None:
    top, bottom, left, right = bars
    photograph = load_image(PHOTOS[0])[top: 640 - bottom, left: 640 - right]
    ok, data = cv2.imencode(".jpg", padded(photograph, *bars, 0), [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    # Never more than the bar; a pixel less where the JPEG's colour, at half the resolution,
    # spills the photograph's into it.
    measured = letterbox(cv2.imdecode(data, cv2.IMREAD_COLOR))
    assert all(bar - 2 <= found <= bar for found, bar in zip(measured, bars, strict=True)), measured


def test_a_photograph_s_own_flat_stretches_are_not_bars() -> None:
    # The dev photographs; the glass seen empty by a camera with its noise; a frame dark
    # all over (a table at night): read whole, none of it cut.
    assert all(letterbox(load_image(p)) == (0, 0, 0, 0) for p in PHOTOS)
    rng = np.random.default_rng(3)
    plain = np.clip(rng.normal(200, 3, (480, 640, 3)), 0, 255).astype(np.uint8)
    assert letterbox(plain) == (0, 0, 0, 0)
    assert letterbox(np.full((480, 640, 3), 7, np.uint8)) == (0, 0, 0, 0)
    # A flat stretch along one edge (a white sheet the exposure clipped), two of other
    # thickness or colour, or flat all round (dice on a sheet): the photograph's own.
    photograph = load_image(PHOTOS[1])[80:560]
    assert letterbox(padded(photograph, 0, 80, 0, 0, 255)) == (0, 0, 0, 0)
    assert letterbox(padded(photograph, 80, 20, 0, 0, 255)) == (0, 0, 0, 0)
    assert letterbox(np.vstack([padded(photograph, 80, 0, 0, 0, 0),
                                padded(photograph[:0], 80, 0, 0, 0, 255)])) == (0, 0, 0, 0)
    assert letterbox(padded(photograph[:, 40:600], 80, 80, 40, 40, 250)) == (0, 0, 0, 0)


def test_dice_on_a_sheet_clipped_white_are_read_whole() -> None:
    # Each die of a photograph on a sheet the exposure clipped to one level: cut down to the
    # dice, those by the cut were doubted (0.5 and 0.67) as dice the frame cuts.
    path = PHOTOS[0]
    photograph = load_image(path)
    sheet = np.full_like(photograph, 250)
    labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
    for die in labels:
        x, y, r = int(die.x), int(die.y), int(0.6 * die.size)
        sheet[max(0, y - r): y + r, max(0, x - r): x + r] = photograph[
            max(0, y - r): y + r, max(0, x - r): x + r]
    reading = read_dice(sheet, view="above")
    assert sorted(d.face for d in reading.dice) == sorted(die.face for die in labels)
    assert all(d.confidence >= reading.doubt_threshold for d in reading.dice), reading.dice
