"""A frame smeared one way (the camera or the table moved) is told from a sharp or blurred one,
and its dice are doubted rather than misread surely."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from tests.vision.conftest import DEV
from vision.degrade import degrade, smeared
from vision.evaluate import LabelledDie, load_labels, score_image
from vision.locate import Candidate
from vision.reader import (
    _SLANTED_DIE,  # beyond it, a die of a slanted frame is doubted
    load_image,
    read_dice,
)
from vision.reader import _SMEARED as THRESHOLD  # beyond it, every die of a frame is doubted
from vision.reading import SLANTED, SMEARED, SQUASHED, Die
from vision.scan import describe
from vision.smear import Smear, smear

DEV_SLICE = sorted((DEV / "images").glob("*.jpg"))[::10]


def leaning_of(image: np.ndarray, dice: tuple[Die, ...] | None = None) -> Smear:
    """How the dice of ``image`` lean (``dice``: those read in it, unless given)."""
    dice = read_dice(image, view="above").dice if dice is None else dice
    return smear(image, [Candidate(d.x + 0.5, d.y + 0.5, d.size, 1.0) for d in dice])


def smear_of(image: np.ndarray) -> float:
    return leaning_of(image).frame


@pytest.mark.parametrize("angle", [0, 30, 45, 90, 135])
def test_a_frame_smeared_by_a_sixth_of_a_die_is_told_whichever_way(angle: float) -> None:
    image = load_image(DEV_SLICE[0])  # 22 dice about 40 px across
    assert smear_of(image) < 0.2
    assert smear_of(smeared(image, 7, angle)) > THRESHOLD


def test_sharp_or_out_of_focus_frames_are_not_taken_for_smeared() -> None:
    for path in DEV_SLICE:
        image = load_image(path)
        assert smear_of(image) < THRESHOLD, path.name
        assert smear_of(degrade(image, "blur")) < THRESHOLD, path.name


def test_a_die_photographed_close_is_not_taken_for_smeared() -> None:
    # A die a quarter or a third of the side: the first pass took its pips for dice and set
    # the table's die size by them; the smear was once taken over the middle of the die at
    # that size (a pip and its surroundings, any way at all), and 9 of the 112 windows at a
    # third of the side were taken for smeared.
    from vision.closer import close_view

    for path in DEV_SLICE:
        labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
        for share in (0.25, 0.34):
            view = close_view(load_image(path), labels, share)
            if view is not None:
                assert not read_dice(view[0], view="above").smeared, (path.name, share)


def test_the_simulated_table_under_the_glass_is_not_taken_for_smeared() -> None:
    from itertools import islice

    from vision.simscore import mixed

    # Every colour and size of die, glare, dark and light glass, a 5 px horizontal smear.
    for scene in islice(mixed(), 6):
        reading = read_dice(scene.image, view="below")
        dice = [Candidate(d.x + 0.5, d.y + 0.5, d.size, 1.0) for d in reading.dice]
        assert smear(scene.image, dice).frame < THRESHOLD
        assert len(reading.doubtful) < reading.total


def test_no_dice_no_smear() -> None:
    assert smear(np.zeros((64, 64, 3), np.uint8), []) == (0.0, (), 1.0, (1.0, 0.0))


def squashed_by(image: np.ndarray, wide: float, tall: float) -> float:
    """How many times narrower one way the dice of ``image`` shrunk so are measured, and
    whether that way is across (x) or up (y)."""
    found = leaning_of(cv2.resize(image, None, fx=wide, fy=tall, interpolation=cv2.INTER_AREA))
    return found.squashed if abs(found.along[0]) > 0.9 else -found.squashed


def test_dice_squashed_one_way_are_measured_so_and_smeared_ones_are_not() -> None:
    for path in DEV_SLICE:
        image = load_image(path)
        dice = read_dice(image, view="above").dice
        assert leaning_of(image, dice).squashed == 1.0, path.name  # as taken, straight above
        if len(dice) < 5:
            continue  # the edges of a die or two may lean one way of their own
        assert 1.2 < squashed_by(image, 0.75, 1.0) < 1.6, path.name  # 4:3 to a square
        assert -1.6 < squashed_by(image, 1.0, 0.75) < -1.2, path.name
        assert 1.6 < squashed_by(image, 0.5625, 1.0) < 2.2, path.name  # 16:9 to a square
        # A smear wipes out edges across its way as a squash does, but the fine ones most.
        for angle in (0, 45, 90):
            assert leaning_of(smeared(image, 7, angle), dice).squashed == 1.0, (path.name, angle)


def test_a_die_the_frame_cuts_is_not_taken_for_squashed() -> None:
    # Cut out at the edge, a die's patch is a strip stretched to a square: taken into the
    # measure, one dev photograph cut at 0.2 of a die from each die's centre in turn (115
    # cuts) measured squashed 1.20-1.52 in 22 (a review), and a cut die was read again.
    squashed = 0
    for path in DEV_SLICE[:6]:
        image = load_image(path)
        for d in read_dice(image, view="above").dice:
            x0 = max(0, d.x - int(0.2 * d.size))
            squashed += leaning_of(np.ascontiguousarray(image[:, x0:])).squashed > 1.0
    assert squashed <= 2


@pytest.mark.parametrize("wide", [0.75, 0.5625])
def test_a_photograph_stretched_to_a_square_is_read_square_again(wide: float) -> None:
    # As a tool exports a 4:3 or 16:9 photograph for training, stretched to a square: the
    # dice narrower across than up. Read as they lay, 114 of this slice's 119 dice stretched
    # from 16:9 were doubted (taken for smeared) and 13 misread, 17 and 1 from 4:3; read
    # square again, 9 and 0, 6 and 0 (one label of the slice is wrong: a 3 labelled 2).
    right = dice = doubted = 0
    for path in DEV_SLICE:
        image = cv2.resize(load_image(path), None, fx=wide, fy=1.0, interpolation=cv2.INTER_AREA)
        reading = read_dice(image, view="above")
        labels = [LabelledDie(d.face, d.x * wide, d.y, d.size * wide ** 0.5) for d in
                  load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")]
        result = score_image(path.name, labels, reading)
        assert result.confidently_wrong <= 1, result.errors
        assert (reading.width, reading.height) == (image.shape[1], image.shape[0])
        right, dice, doubted = right + result.right, dice + result.dice, doubted + len(
            reading.doubtful)
    assert right >= dice - 1
    assert doubted < dice / 8


@pytest.mark.parametrize("above", [2.5, 4.5])
def test_a_die_the_frame_cuts_in_a_photograph_read_square_again_is_doubted(above: float) -> None:
    # Squashed to 0.75 along a diagonal, the frame's top cutting the yellow 4 (seen from
    # below) to two pips: read square again, the squared frame's margins repeated the edge's
    # pixels, and it was read surely as a 5 (session 92's audit); read as it is, doubted.
    image = np.ascontiguousarray(load_image(DEV / "images" / "IMG_20191208_111530.jpg")[:, ::-1])
    h, w = image.shape[:2]
    way = np.array([1.0, 1.0]) / np.sqrt(2.0)
    squash = np.hstack([np.eye(2) - 0.25 * np.outer(way, way), np.zeros((2, 1))])
    corners = np.array([[0, 0, 1], [w, 0, 1], [0, h, 1], [w, h, 1]], float) @ squash.T
    squash[:, 2] -= corners.min(axis=0)
    size = np.ceil(corners.max(axis=0) - corners.min(axis=0)).astype(int)
    fill = tuple(int(v) for v in np.median(image.reshape(-1, 3), axis=0))
    out = cv2.warpAffine(image, squash, (int(size[0]), int(size[1])), borderValue=fill)
    labels = load_labels(DEV / "labels" / "IMG_20191208_111530.txt", w, h, "below")
    x, y = min((squash @ [d.x, d.y, 1.0] for d in labels),  # the 3 (from below) near the top
               key=lambda at: np.hypot(at[0] - 477, at[1] - 165))
    top = int(round(y - above))
    reading = read_dice(np.ascontiguousarray(out[top:]), view="below")
    assert reading.squashed
    die = min(reading.dice, key=lambda d: np.hypot(d.x - x, d.y + top - y))
    assert abs(die.x - x) < 10 and die.confidence <= 0.5, die


def test_a_shaken_photograph_is_read_right_or_doubted_never_surely_wrong() -> None:
    # Smeared 7 px (a sixth of a die), the reader misreads dice (4s as 6s, the pips run
    # together); one of this slice, IMG_20191208_113019, was read so at 0.96. Every die of
    # such a frame is now doubted, and the players asked.
    doubted = 0
    for path in DEV_SLICE:
        if path.stem == "IMG_20191208_111730":
            continue  # a real die its labels leave out, read surely
        reading = read_dice(degrade(load_image(path), "shaken"), view="above")
        labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
        result = score_image(path.name, labels, reading)
        assert result.confidently_wrong == 0, result.errors
        if reading.smeared:
            assert len(reading.doubtful) == reading.total
            doubted += 1
    assert doubted >= 8


def test_dudo_scan_says_why_every_die_of_a_smeared_photograph_is_doubted() -> None:
    image = load_image(DEV_SLICE[0])
    sharp = read_dice(image, view="above")
    assert not sharp.smeared and SMEARED not in describe("a.jpg", sharp)
    shaken = read_dice(smeared(image, 7, 45), view="above")
    assert shaken.smeared and len(shaken.doubtful) == shaken.total
    assert describe("a.jpg", shaken).endswith(f"({SMEARED})")


def test_a_die_squashed_one_way_leans_alone_and_a_square_one_seldom() -> None:
    # Each die's own measure, at the labels' places: dice seen from straight above, then the
    # photographs squashed to 0.6 as tall (a die seen about 50 degrees off straight above).
    def leaning(squash: float) -> float:
        each: list[float] = []
        for path in DEV_SLICE:
            image = load_image(path)
            squashed = cv2.resize(image, None, fx=1.0, fy=squash, interpolation=cv2.INTER_AREA)
            labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
            each += smear(squashed, [Candidate(d.x, d.y * squash, d.size, 1.0)
                                     for d in labels]).dice
        return float(np.mean(np.array(each) > _SLANTED_DIE))

    assert leaning(1.0) < 0.03
    assert leaning(0.6) > 0.7


# Seen by a camera turned 35 degrees (a phone tilted as it is held), each of these was read
# with dice surely wrong or seen twice where the far side is squashed: 111246 a 2 as a 3 at
# 0.99 and a 4 at 0.85 where a die is, 111434 a 3 at 0.98, 112942 a 2 at 0.97 (session 67).
SLANTWISE = ["IMG_20191208_111246.jpg", "IMG_20191208_111434.jpg", "IMG_20191208_112942.jpg"]


def test_photographs_taken_slantwise_have_the_dice_they_squash_most_doubted(
    turned_photograph: Callable[..., tuple[np.ndarray, list[LabelledDie]]],
) -> None:
    # Since session 74 they are read square again (stage 9), the dice that still lean
    # doubted. 111246 is then read with two dice surely "wrong": the blue 3 its label calls
    # a 2 (README, "Held out": the label is wrong, and was doubted as it lay far off), and
    # its near green 4 seen twice again, the second at 0.94.
    surely_wrong = 0
    for name in SLANTWISE:
        image, moved = turned_photograph(name, 35.0)
        reading = read_dice(image, view="above")
        surely_wrong += score_image(name, moved, reading).confidently_wrong
        assert reading.slanted and not reading.smeared, name
        assert 0 < len(reading.doubtful) < reading.total, name  # some dice, not all of them
        # Told why, either way: taken slantwise, to be taken square to the table.
        plea = SQUASHED if reading.squashed else SLANTED
        assert describe(name, reading).endswith(f"({plea})"), name
        assert "slantwise" in plea and "take it square to the table" in plea
    assert surely_wrong <= 2


def test_a_stretched_photograph_whose_dice_lean_is_told_it_may_be_stretched() -> None:
    # Stretched from 4:3 to a square, the photograph has its leaning dice doubted: the players
    # are told the dice are squashed one way, a tool's stretch named among the causes; before,
    # only that the photograph was taken slantwise (which they did not do). Taken square, no
    # such words.
    told = 0
    for path in DEV_SLICE:
        image = load_image(path)
        stretched = cv2.resize(image, None, fx=0.75, fy=1.0, interpolation=cv2.INTER_AREA)
        reading = read_dice(stretched, view="above")
        assert reading.squashed or reading.total < 2, path.name  # one die: no way to tell
        line = describe(path.name, reading)
        assert SLANTED not in line, path.name
        told += line.endswith(f"({SQUASHED})")
        assert SQUASHED not in describe(path.name, read_dice(image, view="above")), path.name
    assert told >= 2


def test_photographs_taken_square_are_not_taken_for_slanted() -> None:
    from itertools import islice

    from vision.simscore import mixed

    for path in DEV_SLICE:
        assert not read_dice(load_image(path), view="above").slanted, path.name
    for scene in islice(mixed(), 6):
        assert not read_dice(scene.image, view="below").slanted
