"""The reader tells how many dice show each face, on real photographs and simulated frames."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.vision.conftest import DEV
from vision.closer import close_view
from vision.config import ReaderConfig, config_from_dict, load_config
from vision.evaluate import load_labels, score_image
from vision.nets import LOCATOR_FILE, MODELS_DIR, eight_bit_copy, locator_file
from vision.reader import Reading, UnreadableImage, load_image, read_dice

# A fixed slice of the dev photographs, spread over the capture session (every 10th image).
DEV_SLICE = sorted((DEV / "images").glob("*.jpg"))[::10]


def read_photo(path: Path, view: str) -> tuple[Reading, list]:
    image = load_image(path)
    if view == "below":
        image = np.ascontiguousarray(cv2.flip(image, 1))
    labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, view)
    return read_dice(image, view=view), labels


def slice_scores(view: str) -> list:  # type: ignore[type-arg]
    assert len(DEV_SLICE) >= 12, f"dev photographs missing at {DEV}"
    return [score_image(p.name, labels, reading)
            for p in DEV_SLICE for reading, labels in [read_photo(p, view)]]


@pytest.mark.parametrize("view", ["above", "below"])
def test_a_slice_of_real_photographs_is_read_nearly_die_for_die(view: str) -> None:
    # Today's level, so that no change makes the reader worse unnoticed.
    scores = slice_scores(view)
    right = sum(s.right for s in scores)
    errors = [e for s in scores for e in s.errors]
    assert right >= 0.97 * sum(s.dice for s in scores), errors
    assert sum(s.exact for s in scores) >= 0.7 * len(scores), errors
    assert sum(s.confidently_wrong for s in scores) <= 2, errors


@pytest.mark.parametrize("view", ["above", "below"])
def test_a_slice_of_real_photographs_is_read_die_for_die(view: str) -> None:
    # The bar (>=99% dice, all but one image exact), on a slice of photographs the
    # shipped models were trained on: held out, the README gives the figures.
    scores = slice_scores(view)
    errors = [e for s in scores for e in s.errors]
    assert sum(s.right for s in scores) >= 0.99 * sum(s.dice for s in scores), errors
    assert sum(s.exact for s in scores) >= len(scores) - 1, errors


def test_from_below_the_face_that_counts_is_seven_minus_the_pips_seen() -> None:
    # Every net looks at the photograph and at its mirror image: the same dice seen from under
    # the glass are read die for die alike, each face 7 minus its face from above.
    for path in DEV_SLICE:
        above = read_dice(load_image(path), view="above")
        below = read_dice(np.ascontiguousarray(cv2.flip(load_image(path), 1)), view="below")
        assert above.total == below.total > 0
        for d in above.dice:
            [same] = [m for m in below.dice if abs(640 - m.x - d.x) <= 1 and abs(m.y - d.y) <= 1]
            assert (same.face, same.pips) == (7 - d.face, d.pips)
            assert same.confidence == pytest.approx(d.confidence, abs=0.01)
        assert all(d.face == 7 - d.pips for d in below.dice)
        assert all(d.face == d.pips for d in above.dice)


@pytest.mark.parametrize("factor", [0.6, 2.5])
def test_a_photograph_at_another_scale_reads_the_same(factor: float) -> None:
    path = DEV_SLICE[5]
    image = load_image(path)
    truth = read_dice(image, view="above").counts
    resized = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    reading = read_dice(resized, view="above")
    assert reading.counts == truth
    labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
    median_size = float(np.median([lab.size for lab in labels]))
    assert np.median([d.size for d in reading.dice]) == pytest.approx(
        median_size * factor, rel=0.25
    )


def test_dice_13_px_across_in_a_wide_view_are_all_found() -> None:
    # The slice shrunk to 0.35 of its size: dice about 13 px across, smaller than the
    # locator sees surely; it looks again, closer, rather than miss some.
    missed = right = total = 0
    for path in DEV_SLICE:
        image = cv2.resize(load_image(path), None, fx=0.35, fy=0.35, interpolation=cv2.INTER_AREA)
        h, w = image.shape[:2]
        labels = load_labels(DEV / "labels" / (path.stem + ".txt"), w, h, "above")
        result = score_image(path.name, labels, read_dice(image, view="above"))
        missed, right, total = missed + result.missed, right + result.right, total + result.dice
    assert missed == 0 and right >= total - 1, (missed, right, total)


@pytest.mark.parametrize(
    ("window", "side", "least"), [(160, 640, 11), (240, 720, 11), (120, 640, 10)]
)
def test_a_die_photographed_close_is_read_whole_not_as_its_pips(
    window: int, side: int, least: int
) -> None:
    # A close view: a window of each slice photograph around one of its dice, enlarged so
    # that a die is a sixth to a third of the frame's side. Shrunk for the locator, its
    # pips are the size of dice, and each, alone, looks like an ace.
    right = 0
    for path in DEV_SLICE:
        labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
        die = labels[len(labels) // 2]
        x0 = int(np.clip(die.x - window / 2, 0, 640 - window))
        y0 = int(np.clip(die.y - window / 2, 0, 640 - window))
        close = cv2.resize(load_image(path)[y0 : y0 + window, x0 : x0 + window], (side, side),
                           interpolation=cv2.INTER_CUBIC)
        scale = side / window
        x, y, size = (die.x - x0) * scale, (die.y - y0) * scale, die.size * scale
        there = [d for d in read_dice(close, view="above").dice
                 if abs(d.x - x) < size / 2 and abs(d.y - y) < size / 2]
        right += len(there) == 1 and there[0].face == die.face
    # Read as its pips, every die was a handful of aces: 1-2 of the 13 were read right; 9-10
    # with the close-up look for a die six times an ace, 13 since session 22 (README); a
    # third of the side (window 120), 8 with a look for 3.5 times alone, 11 with 2.5 after.
    assert right >= least, right


def test_aces_lying_as_pips_inside_a_die_read_surely_are_its_pips() -> None:
    # Seen close, the first pass may read a die whole (a 4 here, 60 px) and its pips as aces
    # of their own beside it; its size comes out short, so its corner pips lie up to half
    # its size from its middle. The blank photograph gives the close looks nothing to find.
    from vision.classify import FaceRead
    from vision.closeup import see_close_dice
    from vision.locate import Candidate
    from vision.nets import load_nets

    nets = load_nets(ReaderConfig())
    blank = np.full((400, 400, 3), 200, np.uint8)

    def die(pips: int, size: float, dx: float = 0.0, dy: float = 0.0) -> tuple:
        return Candidate(200.0 + dx, 200.0 + dy, size, 0.7), FaceRead(pips, 0.95, 1.0, True)

    corners = ((-1, -1), (1, -1), (1, 1))
    for big, offset, ace, kept in [
        (4, 18.0, 27.0, 1),  # its pips, 0.42 of its size from its middle: the 4 alone
        (4, 30.0, 27.0, 4),  # further than half its size: not its pips
        (4, 18.0, 40.0, 4),  # aces more than half its size: dice like it
        (2, 18.0, 27.0, 4),  # more aces than a 2 has pips
    ]:
        pairs = [die(big, 60.0)] + [die(1, ace, dx * offset, dy * offset) for dx, dy in corners]
        seen, faces = see_close_dice(blank, [c for c, _ in pairs], [f for _, f in pairs], nets)
        assert len(seen) == len(faces) == kept, (big, offset, ace)
        assert kept > 1 or faces[0].pips == big


@pytest.mark.parametrize("view", ["above", "below"])
def test_a_die_larger_than_the_table_s_is_read_whole_not_as_aces(view: str) -> None:
    # Two photographs side by side, the second 1.6 times as large: dice of two sets in one
    # frame. The table's die is the smaller, and the pips of each larger 4 were taken for
    # aces and read so, the 4 itself as an ace. Read whole at the size the pips' spread
    # gives, they are 4s (session 75); of one, two pips are still seen beside it, doubted.
    from vision.evaluate import LabelledDie

    small, large = (load_image(DEV / "images" / f"IMG_20191208_{n}.jpg")
                    for n in ("111932", "111947"))
    large = cv2.resize(large, None, fx=1.6, fy=1.6, interpolation=cv2.INTER_LINEAR)
    frame = np.zeros((large.shape[0], 640 + large.shape[1], 3), np.uint8)
    frame[:640, :640], frame[:, 640:] = small, large
    labels = [LabelledDie(d.face, d.x * 1.6 + 640, d.y * 1.6, d.size * 1.6) for d in
              load_labels(DEV / "labels" / "IMG_20191208_111947.txt", 640, 640, "above")]
    if view == "below":
        frame = np.ascontiguousarray(cv2.flip(frame, 1))
        labels = [replace(d, face=7 - d.face, x=frame.shape[1] - d.x) for d in labels]
    reading = read_dice(frame, view=view)
    fours = [d for d in labels if d.face == (4 if view == "above" else 3)]
    assert len(fours) == 2
    for four in fours:
        near = [d for d in reading.dice if np.hypot(d.x - four.x, d.y - four.y) < 0.5 * four.size]
        # Read as a 4; any pip still seen beside it as a die of its own is doubted.
        assert [d.face for d in near].count(four.face) == 1, near
        assert all(d.confidence < 0.8 for d in near if d.face != four.face), near


def _models_that_never_saw(name: str) -> ReaderConfig:
    """The reader with the models of the cross-validation fold that held ``name`` out."""
    from vision.training.heldout import FOLDS_DIR, HELD_OUT_FILE, fold_dirs, with_models_of

    fold = next(f for f in fold_dirs(FOLDS_DIR) if name in (f / HELD_OUT_FILE).read_text().split())
    return with_models_of(fold, ReaderConfig())


def _read_held_out(name: str, degradation: str, view: str) -> tuple[Reading, list]:
    """Dev photograph ``name``, degraded and seen from ``view``, read by the models that never
    saw it; and its labels, for the degraded photograph's size."""
    from vision.degrade import degrade

    image = degrade(load_image(DEV / "images" / name), degradation)
    if view == "below":
        image = np.ascontiguousarray(cv2.flip(image, 1))
    h, w = image.shape[:2]
    labels = load_labels(DEV / "labels" / (Path(name).stem + ".txt"), w, h, view)
    return read_dice(image, _models_that_never_saw(name), view=view), labels


def counts_of(labels: list) -> dict[int, int]:
    """How many labelled dice show each face, as ``Reading.counts`` gives them."""
    return {face: sum(lab.face == face for lab in labels) for face in range(1, 7)}


@pytest.mark.parametrize("view", ["above", "below"])
@pytest.mark.parametrize(
    ("name", "share"),
    [("112431", 0.5), ("112426", 0.5), ("111742", 0.65), ("111932", 0.65), ("112209", 0.5)],
)
def test_a_die_half_the_photograph_is_read_whole_when_only_some_pips_are_seen_as_aces(
    name: str, share: float, view: str
) -> None:
    # A window of a dev photograph around one die, enlarged so that the die is half or two
    # thirds of its side (a phone held over it), read by the models that never saw it. The
    # first pass sees the pips as dice, some read as aces, not those reaching corner to
    # corner (a 3's middle and one corner); the look for a die 3.5 times an ace finds the
    # die, outlined all round, and reads it surely. It was left out for the aces' short
    # spread: the aces were read, two for one die. A 6 half the side (112209), its pips seen
    # at their size, was read as an ace at 1.00: only a look for 6 times an ace sees it.
    from vision.closer import close_view

    photo = f"IMG_20191208_{name}.jpg"
    image = load_image(DEV / "images" / photo)
    labels = load_labels(DEV / "labels" / f"IMG_20191208_{name}.txt", 640, 640, "above")
    view_of = close_view(image, labels, share)
    assert view_of is not None
    window, inside = view_of
    if view == "below":
        window = np.ascontiguousarray(cv2.flip(window, 1))
    (die,) = inside
    face = die.face if view == "above" else 7 - die.face
    reading = read_dice(window, _models_that_never_saw(photo), view=view)
    assert [d.face for d in reading.dice] == [face]
    assert reading.dice[0].size > 0.5 * die.size  # the die, not one of its pips


@pytest.mark.parametrize("view", ["above", "below"])
@pytest.mark.parametrize("degradation", ["tiny", "swapped"])
def test_two_dice_far_apart_are_not_taken_for_the_pips_of_one_die(
    degradation: str, view: str
) -> None:
    # IMG_20191208_112648: two dark dice far apart on the white tray. Held out, seen small or
    # in other colours, neither is read surely, so the close-up look seeks dice 25-70% of the
    # side, and its 45% look read the tray as a white die with the two dice for its pips: one
    # 2 (0.79-0.83). A die has an outline all round it; the bare tray there has none.
    reading, labels = _read_held_out("IMG_20191208_112648.jpg", degradation, view)
    assert sorted(d.face for d in reading.dice) == sorted(lab.face for lab in labels)
    assert all(d.size < 2 * lab.size for d in reading.dice for lab in labels)


@pytest.mark.parametrize("view", ["above", "below"])
@pytest.mark.parametrize(("near", "far"), [("111751", "111847"), ("111702", "111710")])
def test_dice_of_two_sizes_side_by_side_are_not_read_as_clusters(
    near: str, far: str, view: str
) -> None:
    # Two trays of dice side by side, the far one's dice 0.8 times as large (two sets, or a
    # camera at a slant). The coarsest look saw each crowd of dice as one die, the face
    # reader read a crowd as one die with its dice as pips, and the search went coarser
    # still: 3 or 4 "dice" read instead of 21 or 24. Looked at closer, a crowd breaks into
    # dice read surely as other faces than aces, as a large die's pips never are.
    near_image = load_image(DEV / "images" / f"IMG_20191208_{near}.jpg")
    far_image = cv2.resize(load_image(DEV / "images" / f"IMG_20191208_{far}.jpg"), (512, 512),
                           interpolation=cv2.INTER_AREA)
    image = np.empty((640, 640 + 20 + 512, 3), np.uint8)
    image[:] = np.median(near_image[0], axis=0)
    image[:, :640] = near_image
    image[64:576, 660:] = far_image
    if view == "below":
        image = np.ascontiguousarray(cv2.flip(image, 1))
    reading = read_dice(image, _models_that_never_saw(f"IMG_20191208_{near}.jpg"), view=view)
    labels = [lab for name in (near, far) for lab in load_labels(
        DEV / "labels" / f"IMG_20191208_{name}.txt", 640, 640, view)]
    assert sorted(d.face for d in reading.dice) == sorted(lab.face for lab in labels)


@pytest.mark.parametrize("name", ["111339", "111457", "112109", "112122"])
def test_a_speck_on_an_overexposed_table_is_not_read_as_a_die(name: str) -> None:
    # Overexposed, the tray's speck and the holes of its paper clip to white spots, read as
    # aces doubtfully (0.30-0.41 here): far smaller than the table's dice, alone, no dice.
    from vision.degrade import degrade

    path = DEV / "images" / f"IMG_20191208_{name}.jpg"
    labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
    reading = read_dice(degrade(load_image(path), "bright"), view="above")
    assert reading.counts == counts_of(labels)


@pytest.mark.parametrize("view", ["above", "below"])
@pytest.mark.parametrize("name", ["112951", "112501", "112541"])
def test_a_speck_a_phone_has_sharpened_is_not_read_as_a_die(name: str, view: str) -> None:
    # Sharpened, as a phone does, a speck of dust on the white tray gets a dark edge and is
    # read doubtfully as a die (an ace, or once a 2, at 0.39-0.62 by the models that never
    # saw the photograph): no die, under 0.7 of the table's dice across and alone.
    reading, labels = _read_held_out(f"IMG_20191208_{name}.jpg", "sharpened", view)
    assert reading.counts == counts_of(labels)


@pytest.mark.parametrize("view", ["above", "below"])
@pytest.mark.parametrize("name", ["111826", "112600", "112714"])
def test_a_hole_in_the_table_a_phone_s_colour_noise_has_textured_is_not_read_as_a_die(
    name: str, view: str
) -> None:
    # Faint blotchy colour noise (a phone in dim light) gives the tray's round holes, each
    # about a die across, a die's texture: read as a 4 or a 6 at 0.3-0.5, a die at 0.6-0.8
    # (a die read so doubtfully at that size is a die at 0.94 or more), alone. No die.
    reading, labels = _read_held_out(f"IMG_20191208_{name}.jpg", "colour-noise", view)
    assert reading.counts == counts_of(labels)


@pytest.mark.parametrize("view", ["above", "below"])
@pytest.mark.parametrize("name", ["111702", "112340", "112434"])
def test_a_die_whose_face_cannot_be_named_is_shown_doubted_where_it_lies(
    name: str, view: str
) -> None:
    # Heavy JPEG (quality 25) smears one die's pips: the models that never saw the
    # photograph are sure it is a die (0.98 and more) but name its face under 0.3. It was
    # left out, and the total fell short; now it is a die, doubted, where it lies, for the
    # players to correct its face.
    reading, labels = _read_held_out(f"IMG_20191208_{name}.jpg", "jpeg", view)
    assert reading.total == len(labels)
    score = score_image(name, labels, reading)
    assert score.missed == score.extra == 0
    assert any(d.confidence < 0.3 for d in reading.doubtful)


@pytest.mark.parametrize("view", ["above", "below"])
def test_a_die_cut_by_the_frame_s_edge_is_never_read_surely(view: str) -> None:
    # A frame ending across a die (the camera's view short of the glass's edge): the pips in
    # the frame may be a part of its face (an ace from below, its top row of three pips
    # alone in the frame, was read surely as a 5; a 4 showing two pips, surely as a 2).
    for path in DEV_SLICE:
        image = load_image(path)
        if view == "below":
            image = np.ascontiguousarray(image[:, ::-1])
        labels = load_labels(DEV / "labels" / f"{path.stem}.txt", 640, 640, view)
        lowest = max(labels, key=lambda lab: lab.y)
        cut = int(lowest.y + 0.1 * lowest.size)  # about three fifths of the die in the frame
        reading = read_dice(image[:cut].copy(), ReaderConfig(), view=view)
        near = [d for d in reading.dice
                if abs(d.x - lowest.x) < lowest.size and cut - d.y < 0.5 * lowest.size]
        assert all(d.confidence < reading.doubt_threshold for d in near), (path.name, near)


def test_a_die_the_frame_s_edge_cuts_to_one_column_of_pips_is_doubted() -> None:
    # A white 6 the frame's left edge cuts to its right column of three pips: the locator
    # sized the part in the frame, its centre 0.3 of a die from the edge, and it was read
    # surely as a 3 (0.96; a helper's audit). Its box reaches the edge, and it is smaller than
    # the table's dice: a part of a die.
    image = np.ascontiguousarray(load_image(DEV / "images" / "IMG_20191208_112143.jpg")[:, 258:])
    reading = read_dice(image, view="above")
    cut = [d for d in reading.dice if d.x < 20 and 340 < d.y < 390]
    assert cut and all(d.confidence <= 0.5 for d in cut), cut


def test_an_ace_squeezed_between_dice_is_no_speck() -> None:
    # IMG_20191208_112404, out of focus, held out: a blue ace wedged between three dice comes
    # out smaller than the table's dice and is read doubtfully, as a speck is; but it lies
    # among dice, where no speck is taken for one.
    reading, _ = _read_held_out("IMG_20191208_112404.jpg", "blur", "above")
    assert any(abs(d.x - 296) < 10 and abs(d.y - 243) < 10 and d.face == 1 for d in reading.dice)


@pytest.mark.parametrize("share", [0.12, 0.16])
def test_dice_an_eighth_of_the_side_are_read_whole_not_as_their_pips(share: float) -> None:
    # A phone held over a few dice: a window of each slice photograph where its dice are
    # 12% or 16% of the side, around one of its dice and cutting none, as a 640 px
    # photograph. A first look at 320 px saw such dice at 38-51 px, larger than the locator
    # sees whole: it took their pips for dice (25/33 and 17/26 dice right here, 7 and 5 of
    # them surely wrong; in such windows of all 121 photographs, see the README).
    right = total = sure_errors = 0
    for path in DEV_SLICE:
        labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
        view = close_view(load_image(path), labels, share)
        if view is None:
            continue
        window, inside = view
        result = score_image(path.name, inside, read_dice(window, view="above"))
        right, total = right + result.right, total + result.dice
        sure_errors += result.confidently_wrong
    # Sure errors: at most the real die the labels of IMG_20191208_111730 leave out.
    assert total >= 25 and right >= 0.95 * total and sure_errors <= 1, (right, total, sure_errors)


def test_aces_lying_close_together_stay_aces() -> None:
    # Three aces in a row, foreshortened (a camera tilted 30 degrees): a pass over the
    # photograph at the scale of a die six times theirs may read two of them as one large 2
    # or 3. Pips of a 2 or a 3 lie corner to corner, further apart: these stay three aces.
    image = load_image(DEV / "images" / "IMG_20191208_112951.jpg")
    tilted = cv2.resize(image, None, fx=1.0, fy=0.85, interpolation=cv2.INTER_AREA)
    reading = read_dice(tilted, view="above")
    assert reading.counts[1] == 3 and reading.total == 8


@pytest.mark.parametrize("name", ["111228", "111304"])
def test_dice_foreshortened_by_a_slanted_camera_are_looked_at_closer(name: str) -> None:
    # A camera about 45 degrees off straight above: the photograph 0.7 as tall, seen by
    # models that never saw it. The first pass saw the dice at about 14.5 px on median,
    # within what the locator reads, but their short side at about 12 px: 2 and 1 dice were
    # not found (20 and 21 of 22). Looked at again with the dice at 20 px, all are found.
    path = DEV / "images" / f"IMG_20191208_{name}.jpg"
    squashed = cv2.resize(load_image(path), None, fx=1.0, fy=0.7, interpolation=cv2.INTER_AREA)
    h, w = squashed.shape[:2]
    labels = load_labels(DEV / "labels" / (path.stem + ".txt"), w, h, "above")
    reading = read_dice(squashed, _models_that_never_saw(path.name), view="above")
    result = score_image(name, labels, reading)
    assert reading.total == len(labels) and result.right >= len(labels) - 1, result.errors


@pytest.mark.parametrize(("name", "share"), [("111446", 0.34), ("112020", 0.34), ("112426", 0.12)])
def test_the_pips_of_a_close_die_are_not_looked_at_closer_as_foreshortened_dice(
    name: str, share: float
) -> None:
    # A close view (a die a third or an eighth of the side), read by models that never saw
    # it: a pass sees its pips at 14-16 px, as it would see foreshortened dice, but reads
    # none of them surely as a die. Looked at closer as such dice, the pips were taken for
    # dice, and the close-up look then lost the die (session 32's rule: all three failed).
    path = DEV / "images" / f"IMG_20191208_{name}.jpg"
    labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
    view = close_view(load_image(path), labels, share)
    assert view is not None
    window, inside = view
    reading = read_dice(window, _models_that_never_saw(path.name), view="above")
    result = score_image(path.name, inside, reading)
    assert result.right == result.dice and not result.extra, result.errors


def in_a_frame(path: Path, side: int, edge: bool = False) -> tuple[np.ndarray, list]:
    """A dev photograph in a frame of its tray's colour ``side`` px wide, and its labels
    (the colour of the whole photograph on median, or with ``edge`` of its edge's pixels)."""
    image = load_image(path)
    frame = np.empty((side, side, 3), np.uint8)
    seen = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]]) if edge else image
    frame[:] = np.median(seen.reshape(-1, 3), axis=0)
    top, left = (side - 640) // 3, (side - 640) // 2
    frame[top : top + 640, left : left + 640] = image
    labels = [
        replace(lab, x=lab.x + left, y=lab.y + top)
        for lab in load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
    ]
    return frame, labels


@pytest.mark.parametrize("side", [1920, 3200])
def test_small_dice_in_a_big_frame_are_all_found(side: int) -> None:
    # A wide table in a big frame: the dev photograph's dice, 28-50 px across, in a frame of
    # its tray's colour 3 or 5 times as wide (dice 0.9-2.6% of its side). Shrunk for a first
    # look, each die is a speck the locator takes for a larger die than it is.
    found = right = total = 0
    for path in DEV_SLICE[1:4]:
        frame, labels = in_a_frame(path, side)
        reading = read_dice(frame, view="above")
        result = score_image(path.name, labels, reading)
        found, right, total = found + reading.total, right + result.right, total + result.dice
    # Extra: the real die the labels of IMG_20191208_111730 leave out, and at most two more
    # (the edge of the pasted photograph can look like a die's).
    assert right >= 0.97 * total and found <= total + 3, (found, right, total)


def test_clusters_of_small_dice_in_a_wide_view_are_looked_at_closer() -> None:
    # Dice 1.3% of a 3200 px frame's side: shrunk to 320 px, each is 4 px, and a row of
    # touching dice looks like one die of the size the locator reads well. The search used to
    # stop there and find 2 of these 22 dice; a look twice as close breaks the "dice" into
    # the dice they are, and the search goes on.
    frame, labels = in_a_frame(DEV_SLICE[0], 3200)
    reading = read_dice(frame, view="above")
    result = score_image(DEV_SLICE[0].name, labels, reading)
    assert reading.total == len(labels) == 22 and result.right >= 21, result.errors


@pytest.mark.parametrize(
    ("name", "side"),
    [("111642", 2560), ("111826", 1920), ("112127", 1920), ("111751", 3200)],
)
def test_clusters_of_every_kind_in_a_wide_view_are_looked_at_closer(name: str, side: int) -> None:
    # Rows of touching dice 1.3-2.1% of the frame's side, shrunk for a first look, seem a few
    # dice of the size the locator reads well, and the search stopped there: 1, 1, 2 and 4
    # "dice" were found for 22, 6, 7 and 14, none of them right. They seemed two dice
    # of 14-23 px (18.3 and 18.5 px on median in the 1920 px frames: above the 18 px once
    # checked for clusters); or broke, looked at twice as close, into dice of uneven size,
    # a few of them more than half the "die" (two dice still seen as one); or only one of
    # the two broke (the other read surely as one die, or breaking into one die the locator
    # was sure of), where most of them had to.
    frame, labels = in_a_frame(DEV / "images" / f"IMG_20191208_{name}.jpg", side)
    result = score_image(name, labels, read_dice(frame, view="above"))
    assert result.right == result.dice and result.exact, result.errors


@pytest.mark.parametrize("name", ["111246", "111411"])
def test_many_crowds_of_dice_in_a_wide_view_are_looked_at_closer(name: str) -> None:
    # Dice 1.3% of a 3200 px frame's side (here framed in the colour of the tray's rim), seen
    # by models that never saw the photograph. The first pass was sure of 3 or 4 "dice" of
    # 12-19 px, crowds of dice the face reader did not read surely, and 1 or 5 dice were
    # read for 22 or 16: four such "dice" were too many to be checked for crowds, and of
    # three only one broke, looked at twice as close, into dice the locator was sure of
    # (there the others' dice are 8 px), but those it read surely as 2s, 4s and 5s, as the
    # pips of a large die never are.
    frame, labels = in_a_frame(DEV / "images" / f"IMG_20191208_{name}.jpg", 3200, edge=True)
    reading = read_dice(frame, _models_that_never_saw(f"IMG_20191208_{name}.jpg"), view="above")
    result = score_image(name, labels, reading)
    assert result.right >= len(labels) - 1 and reading.total <= len(labels) + 1, result.errors


def test_crowds_the_coarsest_look_sees_whole_are_followed_down_to_their_dice() -> None:
    # Five dice 1.6% of a 2560 px frame's side, seen by models that never saw them: the
    # coarsest look (128 px) saw two crowds of them whole, one read surely as a 2, and the
    # first pass (320 px) broke one crowd only into two pieces it sees at 10-11 px, which
    # the face reader reads surely as nothing: 2 dice were read for 5. Looked at twice as
    # close again, it breaks into dice read surely as a 4 and a 2, as no die's pips are.
    name = "IMG_20191208_112434.jpg"
    frame, labels = in_a_frame(DEV / "images" / name, 2560, edge=True)
    reading = read_dice(frame, _models_that_never_saw(name), view="above")
    result = score_image(name, labels, reading)
    assert result.right == len(labels) == 5 and reading.total == 5, result.errors


@pytest.mark.parametrize("name", ["111228", "111730"])
def test_a_crowd_of_dice_read_surely_as_one_die_is_looked_at_closer(name: str) -> None:
    # 21 or 22 dice 0.8% of a 5000 px frame's side (a helper's audit found it so at 4000x3000
    # too): shrunk to 320 px, the dice are 3 px and their crowd one "die" of 22 px, which the
    # face reader read surely as a 6, its dice as pips, and the search stopped there: 1 or 2
    # dice were read, one of them seven dice across. Looked at two and four times as close
    # around it, it breaks into dice read surely as faces other than an ace.
    frame, labels = in_a_frame(DEV / "images" / f"IMG_20191208_{name}.jpg", 5000)
    reading = read_dice(frame, view="above")
    result = score_image(name, labels, reading)
    assert result.right >= len(labels) - 1 and reading.total <= len(labels) + 1, result.errors


@pytest.mark.parametrize("name", ["111228", "112404"])
def test_four_trays_side_by_side_are_read_as_four_times_one(name: str) -> None:
    # Four copies of a dev photograph side by side (2560x640): the coarsest look saw each
    # tray, a quarter of the width, as a die, its dice as pips, and the first pass broke the
    # trays into crowds of dice, most of them seen smaller than it trusts and read surely as
    # nothing: 61 and 4 dice were read for 88 and 100. Looked at twice as close again, the
    # crowds break into dice read surely.
    image = load_image(DEV / "images" / f"IMG_20191208_{name}.jpg")
    one = sorted(d.face for d in read_dice(image, view="above").dice)
    four = read_dice(np.ascontiguousarray(np.hstack([image] * 4)), view="above")
    assert sorted(d.face for d in four.dice) == sorted(one * 4)


@pytest.mark.parametrize("name", ["112554", "112605", "112630"])
def test_a_large_die_in_a_big_photograph_is_not_taken_for_a_cluster(name: str) -> None:
    # One die, 5.6% of a 2560 px photograph's side (a dev photograph enlarged 4 times): the
    # first pass is sure of a few candidates (the die and marks on the tray), as with
    # clusters. Looked at twice as close, the die is still one die, so the search stops:
    # a rule that took any closer look sure of many more dice went on to read this die's
    # pips, and the tray's marks, as dice.
    path = DEV / "images" / f"IMG_20191208_{name}.jpg"
    big = cv2.resize(load_image(path), None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)
    labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 2560, 2560, "above")
    result = score_image(path.name, labels, read_dice(big, view="above"))
    assert result.right == result.dice == 1 and result.exact, result.errors


@pytest.mark.parametrize(
    "turn", [cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE],
    ids=["quarter", "half", "three-quarters"],
)
def test_a_camera_turned_on_its_mount_reads_the_same(turn: int) -> None:
    path = DEV_SLICE[5]
    image = load_image(path)
    labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
    truth = counts_of(labels)
    assert read_dice(np.ascontiguousarray(cv2.rotate(image, turn)), view="above").counts == truth


def test_a_phone_photograph_is_read_as_it_is_shown_turned_by_its_exif_tag(
    tmp_path: Path,
) -> None:
    # A phone held sideways stores its pixels as the sensor saw them and an EXIF tag saying
    # how to turn them (orientation 6: a quarter turn clockwise to show). Labels, players and
    # the annotated copy all mean the picture as shown, so it is read turned.
    import struct

    path = DEV_SLICE[5]
    upright = load_image(path)
    ok, jpeg = cv2.imencode(".jpg", cv2.rotate(upright, cv2.ROTATE_90_COUNTERCLOCKWISE),
                            [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    entry = struct.pack(">HHIHH", 0x0112, 3, 1, 6, 0)  # Orientation, SHORT, one value: 6
    tiff = b"MM\x00\x2a" + struct.pack(">IH", 8, 1) + entry + struct.pack(">I", 0)
    exif = b"Exif\x00\x00" + tiff
    data = jpeg.tobytes()
    sideways = tmp_path / "sideways.jpg"
    sideways.write_bytes(data[:2] + b"\xff\xe1" + struct.pack(">H", len(exif) + 2) + exif
                         + data[2:])
    shown = load_image(sideways)
    assert shown.shape == upright.shape
    expected, reading = read_dice(upright, view="above"), read_dice(shown, view="above")
    assert reading.counts == expected.counts
    # The dev photographs are square: the places tell a turned picture from an upright one.
    assert all(any(abs(d.x - e.x) < 4 and abs(d.y - e.y) < 4 for d in reading.dice)
               for e in expected.dice)


@pytest.mark.parametrize("bits", [16, 12, 10])
def test_a_16_bit_photograph_is_read_by_the_bits_its_camera_gives(
    tmp_path: Path, bits: int
) -> None:
    # A machine-vision camera of 10 or 12 bits saves its values in the low bits of a 16-bit
    # PNG: OpenCV's 8-bit decoding kept the top 8 of 16, a black photograph, no dice read.
    path = DEV_SLICE[5]
    photo = load_image(path)
    deep = tmp_path / "deep.png"
    assert cv2.imwrite(str(deep), photo.astype(np.uint16) << (bits - 8))
    loaded = load_image(deep)
    assert loaded.dtype == np.uint8 and (loaded == photo).all()
    expected = read_dice(photo, view="above").counts
    assert read_dice(loaded, view="above").counts == expected
    # So too a frame of such a camera given to the reader as it is.
    frame = photo.astype(np.uint16) << (bits - 8)
    assert read_dice(frame, view="above").counts == expected
    assert (frame >> (bits - 8) == photo).all()  # the caller's frame left as it was


def test_a_die_size_from_the_config_is_used_instead_of_guessing() -> None:
    path = DEV_SLICE[2]
    image = load_image(path)
    labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
    size = float(np.median([lab.size for lab in labels]))
    reading = read_dice(image, ReaderConfig(die_size=size), view="above")
    assert score_image(path.name, labels, reading).right >= 0.9 * len(labels)
    assert np.median([d.size for d in reading.dice]) == pytest.approx(size, rel=0.25)


@pytest.mark.parametrize("name", ["111304", "111411", "111446", "111710", "112404"])
def test_a_die_size_calibrated_on_dice_lying_more_turned_still_finds_touching_dice(
    name: str,
) -> None:
    # A die measures its upright box: calibrated on dice lying turned 45 degrees, the die
    # size is up to 1.41 times that of dice lying square. 1.3 times these dice's own, the
    # locator's one pass saw them at 12 px, and touching dice ran together: 1-2 of each
    # photograph were missed (held out) until a reveal's own dice set the scale of another
    # look (session 38).
    path = DEV / "images" / f"IMG_20191208_{name}.jpg"
    labels = load_labels(DEV / "labels" / (path.stem + ".txt"), 640, 640, "above")
    size = 1.3 * float(np.median([lab.size for lab in labels]))
    config = replace(_models_that_never_saw(path.name), die_size=size)
    result = score_image(path.name, labels, read_dice(load_image(path), config, view="above"))
    assert result.exact, result.errors


@pytest.mark.parametrize(
    "frame",
    [
        np.full((480, 640, 3), 200, np.uint8),
        np.full((480, 640, 3), 20, np.uint8),
        np.zeros((480, 640), np.uint8),
        np.random.default_rng(3).integers(0, 40, (480, 640, 3), dtype=np.uint8),
    ],
    ids=["light glass", "dark glass", "black grey-scale frame", "dark noise"],
)
def test_an_empty_table_is_zero_dice_not_an_error(frame: np.ndarray) -> None:
    reading = read_dice(frame)
    assert reading.total == 0
    assert reading.counts == {1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0}


def test_the_table_seen_without_dice_in_a_real_photograph_is_empty(
    table_without_dice: Callable[[str], np.ndarray],
) -> None:
    # The dev photographs' table with its dice painted over by the table's own colour.
    image = table_without_dice(DEV_SLICE[4].stem)
    # Nothing there may be read as a die with confidence; a doubtful die is shown to confirm.
    assert read_dice(image, view="above").doubtful == read_dice(image, view="above").dice


@pytest.mark.parametrize(
    "content, reason",
    [(b"", "empty file"), (b"\xff\xd8\xff\xe0 not really a jpeg", "cannot decode|corrupt")],
    ids=["empty", "corrupt"],
)
def test_a_corrupt_file_is_unreadable_and_named(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "reveal.jpg"
    path.write_bytes(content)
    with pytest.raises(UnreadableImage, match=f"reveal.jpg.*{reason}"):
        load_image(path)


@pytest.mark.parametrize("kept", [0.3, 0.9, 0.999])
def test_a_photograph_cut_short_is_unreadable_not_read_in_part(
    tmp_path: Path, kept: float
) -> None:
    # OpenCV decodes what there is and paints the rest grey: its dice would go unseen.
    whole = DEV_SLICE[0].read_bytes()
    path = tmp_path / "reveal.jpg"
    path.write_bytes(whole[: int(len(whole) * kept)])
    with pytest.raises(UnreadableImage, match="reveal.jpg: the JPEG data ends early"):
        load_image(path)
    path.write_bytes(whole + b"\x00" * 16)  # padding after the end is still a whole photograph
    assert load_image(path).shape == (640, 640, 3)


@pytest.mark.parametrize("kind", ["png", "jpeg"])
def test_a_photograph_declaring_more_pixels_than_any_camera_is_refused_before_decoding(
    tmp_path: Path, kind: str
) -> None:
    # A few MB of PNG declaring 30000x30000 pixels took 5 GB and 43 s, read as no dice.
    photo = cv2.imencode(f".{kind}", np.full((64, 48, 3), 90, np.uint8))[1].tobytes()
    wide, high = (30000).to_bytes(4, "big"), (30000).to_bytes(4, "big")
    if kind == "png":  # the header's width and height, as a huge picture's
        photo = photo[:16] + wide + high + photo[24:]
    else:  # the frame header's height and width
        at = photo.index(b"\xff\xc0")
        photo = photo[:at + 5] + high[2:] + wide[2:] + photo[at + 9:]
    path = tmp_path / f"huge.{kind}"
    path.write_bytes(photo)
    with pytest.raises(UnreadableImage, match=r"huge\.\w+: 30000x30000 pixels, larger than any"):
        load_image(path)


def test_a_file_larger_than_any_photograph_is_refused_unread(tmp_path: Path) -> None:
    # A 3 GB file named .jpg was read whole into memory before it was found no photograph.
    from vision.reader import MOST_BYTES

    path = tmp_path / "film.jpg"
    with path.open("wb") as f:
        f.truncate(MOST_BYTES + 1)  # sparse: nothing written, nothing to read
    with pytest.raises(UnreadableImage, match="film.jpg: 800 MB, larger than any photograph"):
        load_image(path)


def test_a_missing_file_is_unreadable_and_named(tmp_path: Path) -> None:
    with pytest.raises(UnreadableImage, match="nowhere.jpg: no such file"):
        load_image(tmp_path / "nowhere.jpg")


@pytest.mark.parametrize(
    "frame, reason",
    [
        (np.zeros((0, 0, 3), np.uint8), "empty or too small"),
        (np.zeros((10, 10000, 3), np.uint8), r"10000x10 pixels: .* at least 16 px"),
        (np.zeros((480, 640, 3), np.float32), "8-bit"),
        (np.zeros((480, 640, 2), np.uint8), "2 channels"),
        (None, "not an image array"),
    ],
    ids=["empty", "a strip", "float", "two channels", "none"],
)
def test_a_malformed_frame_is_unreadable_with_the_reason(frame: object, reason: str) -> None:
    with pytest.raises(UnreadableImage, match=reason):
        read_dice(frame)  # type: ignore[arg-type]


def test_a_view_that_is_neither_above_nor_below_is_refused() -> None:
    with pytest.raises(ValueError, match="view 'side'"):
        read_dice(np.zeros((64, 64, 3), np.uint8), view="side")


def test_the_scan_json_has_every_field_of_the_contract() -> None:
    reading = read_dice(load_image(DEV_SLICE[0]), view="below")
    data = reading.to_json("a.jpg")
    assert list(data) == ["image", "view", "total", "counts", "dice", "ms"]
    assert data["image"] == "a.jpg" and data["view"] == "below"
    assert list(data["counts"]) == ["1", "2", "3", "4", "5", "6"]  # type: ignore[arg-type]
    assert sum(data["counts"].values()) == data["total"] == reading.total  # type: ignore[attr-defined]
    die = data["dice"][0]  # type: ignore[index]
    assert list(die) == ["face", "pips", "x", "y", "size", "confidence", "colour"]
    assert list(reading.ms) == ["bars", "locate", "faces", "join", "closeup", "pieces", "colour",
                                "specks", "smear", "light", "twice", "total"]


@pytest.mark.parametrize(
    "toml, message",
    [
        ("[vision]\ndie_size = 'big'\n", "die_size = 'big': must be a number"),
        ("[vision]\ndie_size = 2\n", "die_size 2.0: must be 8..1000"),
        ("[vision]\ndoubt_threshold = 1.5\n", "doubt_threshold 1.5"),
        ("[vision]\nspeed = 3\n", "unknown key.*speed"),
        ("[vision]\nmarks = [[1, 2, 3]]\n", r"marks = \[\[1, 2, 3\]\]: must be a list of \[x, y\]"),
        ("[vision]\nmarks = [1, 2]\n", "marks = .*must be a list of"),
        ("[vision]\nruntime = 'gpu'\n", "runtime 'gpu': must be one of 'auto', 'onnxruntime'"),
        ("[vision]\nruntime = 1\n", "runtime = 1: must be a string"),
        ("[vision]\neight_bit_locator = 'no'\n", "eight_bit_locator = 'no': must be true or false"),
        ("[vision\n", "not valid TOML"),
    ],
)
def test_a_bad_vision_config_names_the_key_and_file(
    tmp_path: Path, toml: str, message: str
) -> None:
    path = tmp_path / "table.toml"
    path.write_text(toml)
    with pytest.raises(ValueError, match=message):
        load_config(path)


def test_a_vision_config_is_read_from_its_table(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(
        "[camera]\nsource = 'sim'\n[vision]\ndie_size = 64\ndoubt_threshold = 0.9\n"
        "marks = [[10, 20.5]]\nruntime = 'opencv'\neight_bit_locator = false\n"
    )
    assert load_config(path) == ReaderConfig(
        die_size=64.0, doubt_threshold=0.9, marks=((10.0, 20.5),), runtime="opencv",
        eight_bit_locator=False,
    )
    assert config_from_dict({}) == ReaderConfig() == load_config(None)


def test_only_the_dice_the_face_reader_doubts_are_read_again_by_the_second_reader() -> None:
    from vision.classify import SECOND_SURE, _cut, _probabilities, read_faces
    from vision.locate import locate_dice
    from vision.nets import FACE_FILE, MODELS_DIR, SECOND_FILE, load_nets, normalise
    from vision.sure import SURE, settled

    both = load_nets(ReaderConfig())
    assert both.second is not None  # the shipped reader has one
    face_alone = load_nets(ReaderConfig(model_path=str(MODELS_DIR / FACE_FILE)))
    second_alone = load_nets(ReaderConfig(model_path=str(MODELS_DIR / SECOND_FILE)))
    doubted = once = five = no_die = 0
    for path in DEV_SLICE:
        photo = load_image(path)
        dice = locate_dice(photo, ReaderConfig(), both)
        crops = [normalise(_cut(photo, c)) for c in dice]
        first = list(both.glance(np.stack(crops)))
        face_sure = [settled(p) for p in first]
        second = _probabilities(both.read_again, crops)
        no_die += sum(p.max() < SURE and settled(p) for p in first)
        read = read_faces(photo, dice, both)
        by_face = read_faces(photo, dice, face_alone)
        by_second = read_faces(photo, dice, second_alone)
        for i, r in enumerate(read):
            if face_sure[i]:  # read once, by the face reader
                assert r == by_face[i]
                continue
            doubted += 1
            assert r != by_face[i]
            if second[i].max() >= SECOND_SURE:  # the second reader's one look, sure
                once += 1
                assert r == by_second[i] and r.probability == pytest.approx(second[i][r.pips - 1])
            elif not settled(second[i]):  # the second reader's five looks alone
                five += 1
                assert r == by_second[i]
    # Places taken for no die at 0.8-0.9 are not read again either: nothing would make
    # them dice, and each would cost the slower reader's looks.
    assert once >= 1 and five >= 1 and no_die >= 1, (doubted, once, five, no_die)


def test_a_die_the_face_reader_is_sure_of_at_a_glance_reads_alike_in_the_mirror() -> None:
    # A near-certain first look is not checked in the mirror; the look taken is the same for
    # a die and its mirror image, so from under the glass it reads with the same confidence.
    from vision.classify import _cut
    from vision.locate import locate_dice
    from vision.nets import GLANCE_SURE, load_nets, normalise

    nets = load_nets(ReaderConfig())
    glanced = checked = 0
    for path in DEV_SLICE[:4]:
        photo = load_image(path)
        for c in locate_dice(photo, ReaderConfig(), nets):
            crop = normalise(_cut(photo, c))
            seen = nets.glance(crop[None])[0]
            assert np.array_equal(seen, nets.glance(np.ascontiguousarray(crop[None, ..., ::-1]))[0])
            both_ways = nets.read(crop[None])[0]
            if seen.max() >= GLANCE_SURE:
                glanced += 1
                assert seen.argmax() == both_ways.argmax()
            else:
                checked += 1
                assert seen == pytest.approx(both_ways, abs=1e-6)
    assert glanced >= 10 and checked >= 1, (glanced, checked)


def chessboard(side: int, square: int) -> np.ndarray:
    y, x = np.mgrid[0:side, 0:side]
    board = ((x // square + y // square) % 2 * 255).astype(np.uint8)
    return cv2.merge([board, board, board])


def test_a_frame_of_hundreds_of_things_like_dice_reaches_the_nets_a_bounded_batch_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A chessboard's squares look like dice to the locator, hundreds of them, all doubtful:
    # the second reader was given 3,472 crops at once, and the process took 1.4 GB (9.7 GB at
    # 2028x1520, which a Pi's service would not survive, nor its restart, reading it again).
    import vision.classify
    import vision.nets
    from vision.nets import MOST_CROPS, Nets

    board = chessboard(640, 40)
    given: list[int] = []
    run = Nets._run

    def counted(self: Nets, net: Any, blob: np.ndarray) -> np.ndarray:
        given.append(len(blob))
        return run(self, net, blob)

    monkeypatch.setattr(Nets, "_run", counted)
    reading = read_dice(board)
    assert max(given) <= MOST_CROPS < sum(given) / 10
    assert all(d.confidence < 0.8 for d in reading.dice)  # nothing taken for a die surely
    # Read a bounded batch at a time, a crop reads as it read among all the others.
    for module in (vision.nets, vision.classify):
        monkeypatch.setattr(module, "MOST_CROPS", 10**6)
    given.clear()
    whole = read_dice(board)
    assert max(given) > MOST_CROPS
    assert [(d.face, d.x, d.y, round(d.confidence, 4)) for d in whole.dice] == [
        (d.face, d.x, d.y, round(d.confidence, 4)) for d in reading.dice]


def test_overlapping_candidates_are_suppressed_as_when_each_was_checked_against_all() -> None:
    # Each candidate is checked against the kept ones near it only (a chessboard's thousands
    # took seconds checked against all): the same candidates are kept.
    from vision.locate import Candidate, _suppress_overlaps

    rng = np.random.default_rng(64)
    for trial in range(40):
        n = int(rng.integers(1, 400))
        found = sorted((Candidate(float(x), float(y), float(s), float(score))
                        for x, y, s, score in zip(
                            rng.uniform(-50, 700, n), rng.uniform(-50, 500, n),
                            rng.uniform(5, 90, n), rng.uniform(0.05, 1.0, n), strict=True)),
                       key=lambda c: -c.score)
        sure = [c.size for c in found if c.score >= 0.5]
        die = float(np.median(sure)) if sure else float("inf")
        every: list[Candidate] = []
        for c in found:
            if all(np.hypot(c.x - k.x, c.y - k.y) > 0.5 * min(max(c.size, k.size), die)
                   for k in every):
                every.append(c)
        assert _suppress_overlaps(found) == every, trial


@pytest.mark.parametrize("key", ["model_path", "detector_path", "second_model_path"])
def test_a_missing_model_file_is_named(tmp_path: Path, key: str) -> None:
    missing = tmp_path / "missing.onnx"
    with pytest.raises(FileNotFoundError, match=f"model missing: {missing}"):
        read_dice(np.zeros((64, 64, 3), np.uint8), ReaderConfig(**{key: str(missing)}))
    with pytest.raises(FileNotFoundError, match="model /dev/null: not a file"):  # not missing
        read_dice(np.zeros((64, 64, 3), np.uint8), ReaderConfig(**{key: "/dev/null"}))


def test_a_broken_model_file_is_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not an onnx model")
    with pytest.raises(ValueError, match=f"{broken} cannot be loaded"):
        read_dice(np.zeros((64, 64, 3), np.uint8), ReaderConfig(model_path=str(broken)))


@pytest.mark.parametrize("runtime", ["auto", "opencv"])
def test_a_model_made_for_another_part_of_the_reader_is_named_not_a_traceback(
    tmp_path: Path, runtime: str
) -> None:
    locator, face = str(MODELS_DIR / LOCATOR_FILE), str(MODELS_DIR / "face.onnx")
    blank = np.zeros((64, 64, 3), np.uint8)
    with pytest.raises(ValueError, match=f"model {locator} is not a face reader: "):
        read_dice(blank, ReaderConfig(model_path=locator, runtime=runtime))
    with pytest.raises(ValueError, match=f"model {face} is not a die locator: "):
        read_dice(blank, ReaderConfig(detector_path=face, runtime=runtime))
    with pytest.raises(FileNotFoundError, match=f"model {tmp_path}: a folder, not a model file"):
        read_dice(blank, ReaderConfig(second_model_path=str(tmp_path), runtime=runtime))


@pytest.mark.parametrize("runtime", ["onnxruntime", "opencv"])
def test_a_die_reads_the_same_alone_or_among_the_photograph_s_others(runtime: str) -> None:
    # The readers are given a photograph's crops in one call (fewer calls, the same work):
    # a die's probabilities must not depend on which others it was read with.
    from vision.classify import _cut
    from vision.locate import locate_dice
    from vision.nets import load_nets, normalise

    if runtime == "onnxruntime":
        pytest.importorskip("onnxruntime")
    nets = load_nets(ReaderConfig(runtime=runtime))
    photo = load_image(DEV_SLICE[0])
    crops = np.stack([normalise(_cut(photo, c)) for c in locate_dice(photo, ReaderConfig(), nets)])
    assert len(crops) >= 8
    together, again = nets.glance(crops), nets.read_again(crops)
    for i in range(len(crops)):
        assert np.array_equal(nets.glance(crops[i : i + 1])[0], together[i])
        assert np.array_equal(nets.read_again(crops[i : i + 1])[0], again[i])


def test_onnx_runtime_and_opencv_read_the_photographs_alike() -> None:
    # The two runtimes that can run the nets (ONNX Runtime where installed, else OpenCV's
    # dnn): the same dice, faces and confidences, in both views, from the same float nets.
    pytest.importorskip("onnxruntime")
    float_nets = ReaderConfig(runtime="onnxruntime", eight_bit_locator=False)
    for path in DEV_SLICE:
        photo = load_image(path)
        for view, image in (("above", photo), ("below", np.ascontiguousarray(photo[:, ::-1]))):
            fast = read_dice(image, float_nets, view=view)
            opencv = read_dice(image, ReaderConfig(runtime="opencv"), view=view)
            assert [(d.face, d.x, d.y) for d in fast.dice] == [
                (d.face, d.x, d.y) for d in opencv.dice
            ], (path.name, view)
            assert [d.confidence for d in fast.dice] == pytest.approx(
                [d.confidence for d in opencv.dice], abs=1e-3
            )


def test_the_locators_8_bit_copy_reads_the_photographs_as_the_float_net() -> None:
    # ONNX Runtime runs the shipped locator's 8-bit copy (twice as fast): the same dice and
    # faces as the float net, each within a quarter of a die of its place. A copy left
    # behind by a locator trained again reads other dice.
    pytest.importorskip("onnxruntime")
    eight_bit = ReaderConfig(runtime="onnxruntime")
    assert locator_file(eight_bit) == eight_bit_copy(MODELS_DIR / LOCATOR_FILE)
    floats = replace(eight_bit, eight_bit_locator=False)
    assert locator_file(floats) == MODELS_DIR / LOCATOR_FILE
    for path in DEV_SLICE:
        photo = load_image(path)
        for view, image in (("above", photo), ("below", np.ascontiguousarray(photo[:, ::-1]))):
            copied = read_dice(image, eight_bit, view=view).dice
            read = read_dice(image, floats, view=view).dice
            assert [d.face for d in copied] == [d.face for d in read], (path.name, view)
            for a, b in zip(copied, read, strict=True):
                assert max(abs(a.x - b.x), abs(a.y - b.y)) <= a.size / 4, (path.name, view)
                assert a.confidence == pytest.approx(b.confidence, abs=0.05), (path.name, view)


def test_an_8_bit_copy_left_beside_another_net_is_not_run(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A locator put in place of the one a copy was made from: the copy would read with the
    # old net's weights (it ran whatever net it came from); the net given is run, and said.
    pytest.importorskip("onnxruntime")
    from vision.training.heldout import FOLDS_DIR

    net = tmp_path / LOCATOR_FILE
    shutil.copyfile(MODELS_DIR / LOCATOR_FILE, net)
    shutil.copyfile(eight_bit_copy(MODELS_DIR / LOCATOR_FILE), eight_bit_copy(net))
    config = ReaderConfig(runtime="onnxruntime", detector_path=str(net))
    assert locator_file(config) == eight_bit_copy(net)  # its own net beside it
    shutil.copyfile(FOLDS_DIR / "fold-1" / LOCATOR_FILE, net)  # a net trained again
    with caplog.at_level("WARNING", logger="vision.nets"):
        assert locator_file(config) == net
    assert f"{eight_bit_copy(net)} was not made from {net}: the float net is run" in caplog.text


def test_onnx_runtime_asked_for_and_missing_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails, as if not installed
    with pytest.raises(ValueError, match="runtime = 'onnxruntime', but ONNX Runtime is not"):
        read_dice(np.zeros((64, 64, 3), np.uint8), ReaderConfig(runtime="onnxruntime"))
    assert read_dice(np.zeros((64, 64, 3), np.uint8), ReaderConfig()).dice == ()  # by OpenCV


def test_a_die_read_surely_on_a_mark_of_the_glass_still_counts() -> None:
    # A mark is a place the empty glass showed something doubtful; a die lying on it, read
    # surely, is a die (only doubtful readings there are taken for the mark).
    photo = load_image(DEV_SLICE[0])
    reading = read_dice(photo, view="above")
    sure = [d for d in reading.dice if d.confidence >= 0.95]
    assert len(sure) >= 5
    marked = ReaderConfig(marks=tuple((d.x + 3.0, d.y - 2.0) for d in sure))
    assert read_dice(photo, marked, view="above").dice == reading.dice
