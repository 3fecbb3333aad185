"""A picture too dark, burnt out or out of focus to read surely has all its dice doubted, and
``dudo scan`` says why, rather than misreading some of them surely or saying "0 dice" of a
table whose light is off; a picture merely dim, bright or a little soft is read as ever."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.conftest import DEV
from vision.config import ReaderConfig
from vision.degrade import degrade
from vision.evaluate import load_labels, score_image
from vision.reader import load_image, read_dice
from vision.reading import BURNT_OUT, HARD_TO_READ, OUT_OF_FOCUS, TOO_DARK, Reading
from vision.scan import describe
from vision.simulate import render_dice

DEV_SLICE = sorted((DEV / "images").glob("*.jpg"))[::10]


def lit(image: np.ndarray, gain: float) -> np.ndarray:
    return np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def blurred(image: np.ndarray, sigma: float) -> np.ndarray:
    return np.asarray(cv2.GaussianBlur(image, (0, 0), sigma))


def pleaded(reading: Reading) -> tuple[bool, bool, bool]:
    return reading.too_dark, reading.burnt_out, reading.out_of_focus


def misread_surely(path: Path, reading: Reading) -> int:
    labels = load_labels(DEV / "labels" / f"{path.stem}.txt", 640, 640, "above")
    return score_image(path.name, labels, reading).confidently_wrong


def test_a_picture_at_a_twelfth_of_its_light_has_every_die_doubted_as_too_dark() -> None:
    # Read as it was, 20 dice of the dev photographs were missed or misread, 6 of them surely.
    for path in DEV_SLICE:
        reading = read_dice(lit(load_image(path), 1 / 12), view="above")
        assert pleaded(reading) == (True, False, False), path.name
        assert reading.total > 0 and len(reading.doubtful) == reading.total, path.name
        assert misread_surely(path, reading) == 0, path.name


def test_a_dark_frame_with_the_light_off_is_not_read_as_an_empty_table() -> None:
    black = read_dice(np.full((480, 640, 3), 3, np.uint8), view="below")
    assert black.total == 0 and black.pleas == (TOO_DARK,)
    assert describe("dark.png", black).endswith(f"({TOO_DARK})")
    # An empty table in its light is no fault.
    empty = read_dice(np.full((480, 640, 3), 170, np.uint8), view="below")
    assert empty.total == 0 and empty.pleas == ()


def test_a_white_frame_is_burnt_out_not_an_empty_table() -> None:
    white = read_dice(np.full((480, 640, 3), 255, np.uint8), view="below")
    assert white.total == 0 and white.pleas == (BURNT_OUT,)


def test_dim_and_bright_pictures_are_read_as_ever() -> None:
    # A seventh of the light and twice it: the dev photographs read as they are (held out:
    # 1,055 and 1,051 dice of 1,063), each die judged on its own. Twice the light burns the
    # white tray and a tenth of the dice three quarters white.
    for path in DEV_SLICE:
        image = load_image(path)
        for gain in (1 / 7, 1.0, 2.0):
            reading = read_dice(lit(image, gain), view="above")
            assert reading.pleas == (), (path.name, gain)
            assert len(reading.doubtful) < reading.total, (path.name, gain)


def test_a_picture_whose_dice_are_mostly_doubted_has_every_die_doubted_and_says_so() -> None:
    # Five times the light: 10 of its 14 dice doubted, and three read surely wrong (a 5 as a
    # 6, a 2 as an ace, an ace where no die is) before the rest were doubted with them.
    path = DEV / "images" / "IMG_20191208_112833.jpg"
    reading = read_dice(lit(load_image(path), 5.0), view="above")
    assert reading.pleas == (HARD_TO_READ,)
    assert reading.total == 14 and len(reading.doubtful) == reading.total
    assert misread_surely(path, reading) == 0
    assert describe(path.name, reading).endswith(f"({HARD_TO_READ})")
    # As it is, each of its dice is judged on its own; so too at a table that asks to confirm
    # every die (a doubt threshold of 1.0), where no die is doubted for the picture.
    assert read_dice(load_image(path), view="above").pleas == ()
    every = read_dice(load_image(path), ReaderConfig(doubt_threshold=1.0), view="above")
    assert every.pleas == () and len(every.doubtful) == every.total
    assert {d.confidence for d in every.dice} != {0.5}


@pytest.mark.parametrize("name, left, top", [("111339", 92, 138), ("111924", 278, 214)])
def test_dice_the_frames_edge_cuts_do_not_make_the_whole_dice_hard_to_read(
    name: str, left: int, top: int
) -> None:
    # A 256 px corner of a dev photograph: four of its dice cut by the frame's edge, doubted
    # for that alone, took two whole dice read surely and right down with them before (a
    # helper's audit, session 91: 6 of 484 such crops said "hard to read", 2 now).
    path = DEV / "images" / f"IMG_20191208_{name}.jpg"
    reading = read_dice(np.ascontiguousarray(load_image(path)[top:top + 256, left:left + 256]),
                        view="above")
    labels = load_labels(DEV / "labels" / f"{path.stem}.txt", 640, 640, "above")
    assert reading.pleas == ()
    sure = [d for d in reading.dice if d not in reading.doubtful]
    assert len(sure) == 2 and len(reading.doubtful) >= 3
    for die in sure:
        label = min(labels, key=lambda lab: abs(lab.x - left - die.x) + abs(lab.y - top - die.y))
        assert (die.face, abs(label.x - left - die.x) < 5) == (label.face, True)


def test_a_stretched_picture_mostly_doubted_is_still_read_square_again() -> None:
    # Stretched to 16:9 and at four times the light: read square again, its five dice are
    # read right (doubted, most of them on their own). Before, the squared reading, its dice
    # all doubted for the picture, doubted no fewer than the first, and the first was kept:
    # 2 of 5 right.
    path = DEV / "images" / "IMG_20191208_112451.jpg"
    image = lit(degrade(load_image(path), "stretched-16-9"), 4.0)
    reading = read_dice(image, view="above")
    labels = load_labels(DEV / "labels" / f"{path.stem}.txt", image.shape[1], image.shape[0],
                         "above")
    assert reading.squashed and HARD_TO_READ in reading.pleas
    assert score_image(path.name, labels, reading).right == 5 == reading.total


def noisy(image: np.ndarray, sigma: float, seed: int) -> np.ndarray:
    """A sensor's noise of ``sigma`` grey levels over ``image``."""
    noise = np.random.default_rng(seed).normal(0.0, sigma, image.shape)
    return np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("sigma, noise", [(3.5, 0), (5.0, 0), (3.5, 6)])
def test_a_picture_out_of_focus_has_every_die_doubted_and_says_so(
    sigma: float, noise: float
) -> None:
    # The dev photographs' dice are about 41 px across: blurred by 8-12% of a die. Read as
    # they were, held out, 23 dice were misread surely at each; and blurred by 12%, most
    # showed no die the reader read, and were read as an empty table with no word why. A
    # sensor's noise of 6 grey levels over the blur (session 91, a helper's audit) was taken
    # for sharp edges: 20 of the 121 photographs blurred by 3.5 px were judged out of focus.
    # (Blurred by 5 px with that noise, 12 of these 13 are, 3 before; the 13th shows 2 dice
    # found at the wrong size, one read surely wrong, as the README says under "Not done".)
    said = surely = 0
    for k, path in enumerate(DEV_SLICE):
        reading = read_dice(noisy(blurred(load_image(path), sigma), noise, k), view="above")
        if reading.out_of_focus:
            assert len(reading.doubtful) == reading.total, path.name
            said += 1
        surely += misread_surely(path, reading)
    assert said >= len(DEV_SLICE) - 1
    assert surely == 0


def test_an_empty_table_is_not_out_of_focus() -> None:
    # A glint on the empty glass is soft: where no die is read, focus is judged only where
    # the locator is sure of a few places.
    for seed in range(30):
        for background in ("light", "grey", "dark"):
            frame = render_dice([], seed=seed, background=background).image
            assert read_dice(frame, view="below").pleas == (), (seed, background)


def test_a_picture_a_little_soft_or_of_small_dice_is_judged_die_by_die() -> None:
    # Blurred by 1.5 px (vision.degrade's "blur"), a camera of half the resolution enlarged,
    # and dice 13 px across (a wide view): read as well as the sharp photographs, held out.
    for path in DEV_SLICE:
        image = load_image(path)
        for name in ("blur", "upscaled", "tiny"):
            reading = read_dice(degrade(image, name), view="above")
            assert not reading.out_of_focus, (path.name, name)
            # A sensor's noise over them too (what smooths it away is no blur of theirs).
            assert not read_dice(noisy(degrade(image, name), 6, 1), view="above").out_of_focus


def test_the_simulated_table_under_the_glass_is_well_lit_and_sharp() -> None:
    for seed in range(6):
        frame = render_dice([1, 2, 3, 4, 5, 6, 2, 5], seed=seed).image
        reading = read_dice(frame, view="below")
        assert reading.pleas == (), seed


def test_the_few_dice_lit_under_the_glass_in_a_dark_room_are_not_too_dark() -> None:
    # At the end of a game two dice may be all that is light in a wide frame: the room above
    # the glass dark around them.
    image = load_image(DEV_SLICE[0])
    labels = load_labels(DEV / "labels" / f"{DEV_SLICE[0].stem}.txt", 640, 640, "above")
    frame = np.full((1520, 2028, 3), 6, np.uint8)
    for die in labels[:2]:
        r = int(die.size * 0.6)
        x, y = int(die.x), int(die.y)
        frame[700 + y - r:700 + y + r, 900 + x - r:900 + x + r] = image[y - r:y + r, x - r:x + r]
    reading = read_dice(frame, view="above")
    assert reading.total >= 2 and not reading.too_dark


def dark_room(frame: np.ndarray, dice: list[tuple[float, float, float]]) -> np.ndarray:
    """``frame`` with all but its dice (x, y, size) at 15% of the light: the room above the
    glass seen through it, dark around the dice lit from below."""
    lit = np.zeros(frame.shape[:2], np.float32)
    for x, y, size in dice:
        cv2.circle(lit, (int(x), int(y)), int(size * 0.85), 1.0, -1)
    lit = cv2.GaussianBlur(lit, (0, 0), 2)[..., None]
    return np.clip(frame * (lit + (1 - lit) * 0.15), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("faces", [[6], [6, 6], [6, 5]])
def test_black_dice_showing_a_pip_or_two_in_a_dark_room_are_not_too_dark(faces: list[int]) -> None:
    # A helper's review: the brightest tenth of a black die showing one or two pips from below
    # is its body; the dice, read right and surely, were all doubted as too dark.
    scene = render_dice(faces, colours="black", pip_colours="white", seed=7, width=2028,
                        height=1520, die_size=30, exposure=0.3, glare=False)
    frame = dark_room(scene.image, [(d.x, d.y, d.size) for d in scene.dice])
    reading = read_dice(frame, view="below")
    assert reading.total == len(faces) and not reading.too_dark
    assert sorted(d.face for d in reading.dice) == sorted(faces)


@pytest.mark.parametrize("die_size", [13, 14])
def test_small_dice_a_camera_blurs_by_a_pixel_are_not_out_of_focus(die_size: int) -> None:
    # A wide view: a lens and sensor blur every die by about a pixel, 7-9% of such a die, and
    # they are read as surely as sharp ones (a helper's review: all doubted before the pixel
    # floor, _SOFT_PX).
    for seed in range(4):
        scene = render_dice([1, 2, 3, 4, 5, 6] * 5, seed=seed, width=2028, height=1520,
                            die_size=die_size, blur=1.4)
        assert not read_dice(scene.image, view="below").out_of_focus, (die_size, seed)


def test_a_die_the_frame_s_edge_cuts_does_not_make_the_picture_out_of_focus() -> None:
    # Stretched to a square, a cut die's edges soften; with one die left it was the median.
    scene = render_dice([3], seed=1, width=640, height=480, die_size=14, blur=1.0, glare=False)
    die = scene.dice[0]
    cut = np.ascontiguousarray(scene.image[:, max(0, int(die.x - 0.2 * die.size)):])
    reading = read_dice(cut, view="below")
    assert reading.total == 1 and not reading.out_of_focus


def test_dudo_scan_prints_why_a_dark_photograph_s_dice_are_doubted(tmp_path: Path) -> None:
    dark, black = tmp_path / "dark.png", tmp_path / "black.png"
    cv2.imwrite(str(dark), lit(load_image(DEV_SLICE[0]), 1 / 12))
    cv2.imwrite(str(black), np.full((480, 640, 3), 2, np.uint8))
    done = subprocess.run([sys.executable, "-m", "companion.cli", "scan", "--view", "above",
                           str(dark)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert TOO_DARK in done.stdout and "Traceback" not in done.stderr
    assert OUT_OF_FOCUS not in done.stdout
    # In JSON too (since session 81, an extension of DESIGN.md's object): a black frame's
    # "total": 0 is no empty table. A picture with nothing to say has no "pleas".
    done = subprocess.run([sys.executable, "-m", "companion.cli", "scan", "--json",
                           str(black), str(DEV_SLICE[0])], capture_output=True, text=True,
                          check=False)
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert first["total"] == 0 and first["pleas"] == [TOO_DARK]
    assert "pleas" not in second
