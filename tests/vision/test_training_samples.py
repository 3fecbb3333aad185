"""The training samples: synthetic dice land where their labels say, and nowhere else.

The training itself needs torch (development only); the samples it learns from do not,
so what the reader is taught is checked here on every run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import combinations

import cv2
import numpy as np
import pytest

from tests.vision.conftest import DEV
from vision.training import data
from vision.training.synthetic import ace_symbol, draw_die, shine, side_in_box


def test_a_turned_die_fills_its_upright_box() -> None:
    assert side_in_box(40.0, 0.0) == pytest.approx(40.0)
    assert side_in_box(40.0, 45.0) == pytest.approx(40.0 / math.sqrt(2))
    assert side_in_box(40.0, 90.0) == pytest.approx(40.0)


@pytest.mark.parametrize("seed", range(6))
def test_a_synthetic_die_is_drawn_inside_its_box_only(seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = np.full((120, 120, 3), 128.0, np.float32)
    image = table.copy()
    draw_die(image, 60.0, 60.0, 40.0, seed + 1, rng)
    changed = np.abs(image - table).max(axis=2) > 1.0
    ys, xs = np.nonzero(changed)
    # A turned die's box is 40 px across, its corners at most 40 * 0.71 from the centre.
    assert np.hypot(xs - 60, ys - 60).max() <= 40 * 0.75
    assert changed[50:71, 50:71].mean() > 0.9


def test_locator_windows_mark_every_synthetic_die_they_draw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(data, "SYNTHETIC_SHARE", 1.0)
    drawn: list[tuple[float, float]] = []
    real_draw = data.draw_die
    touching = 0

    def spy(
        image: np.ndarray, x: float, y: float, box: float, pips: int, rng: object, angle: float
    ) -> None:
        nonlocal touching
        # Dice pushed together: nearer than lone dice are ever drawn (1.05 boxes).
        touching += any(np.hypot(x - px, y - py) < 1.05 * box for px, py in drawn)
        drawn.append((x, y))
        real_draw(image, x, y, box, pips, rng, angle)  # type: ignore[arg-type]

    monkeypatch.setattr(data, "draw_die", spy)
    photo = data.Photo("plain", np.full((400, 400, 3), 200, np.uint8), np.zeros((0, 4), np.float32))
    rng = np.random.default_rng(3)
    for _ in range(5):
        drawn.clear()
        _, heat, regr = data.locator_sample(photo, rng)
        inside = [(x, y) for x, y in drawn if 0 <= x < 128 and 0 <= y < 128]
        assert inside, "no synthetic die in the window"
        for x, y in inside:
            cell = int(round(y / data.STRIDE - 0.5)), int(round(x / data.STRIDE - 0.5))
            cell = min(cell[0], 31), min(cell[1], 31)
            assert heat[cell] == 1.0 and regr[3][cell] == 1.0
        assert int((heat == 1.0).sum()) == len(inside)
    assert touching, "no synthetic dice drawn touching"


def test_an_ace_symbol_lies_over_the_face_s_middle_and_is_never_a_round_pip() -> None:
    # Perudo sets print the ace as a paco: the reader learns it from synthetic aces.
    for seed in range(40):
        mask = np.zeros((160, 160), np.uint8)
        ace_symbol(mask, 80.0, 80.0, 100.0, np.random.default_rng(seed))
        ys, xs = np.nonzero(mask)
        assert len(xs), seed
        # Within the face (its corners 71 px from the middle), over its middle.
        assert np.hypot(xs - 80, ys - 80).max() <= 71, seed
        assert abs(xs.mean() - 80) < 20 and abs(ys.mean() - 80) < 20, seed
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        area = sum(cv2.contourArea(c) for c in contours if cv2.contourArea(c) > 20)
        perimeter = sum(cv2.arcLength(c, True) for c in contours if cv2.contourArea(c) > 20)
        # A round pip has 4 pi area / perimeter^2 near 1; a symbol is far below it.
        assert 4 * math.pi * area / perimeter**2 < 0.8, seed


@pytest.mark.parametrize("seed", range(20))
def test_a_highlight_lies_on_the_die_s_face_and_never_hides_a_pip(seed: int) -> None:
    # A lamp's highlight on a glossy die: a streak or a spot the reader must not count as a
    # pip. It only lightens, within the face, and is never opaque: what lies under it
    # (a pip, the face) still shows through.
    face = np.full((120, 120, 3), 40.0, np.float32)
    lit = face.copy()
    shine(lit, 60.0, 60.0, 40.0, np.random.default_rng(seed))
    changed = np.abs(lit - face).max(axis=2) > 2.0
    ys, xs = np.nonzero(changed)
    assert len(xs) and (lit >= face - 1e-3).all()
    # Within the face: its middle at most 0.35 of a die off, a streak at most 0.4 long.
    assert np.abs(xs - 60).max() <= 40 * 0.8 and np.abs(ys - 60).max() <= 40 * 0.8
    # At most 85% of the way from the face's grey to the light.
    assert lit.max() <= 40 + 0.86 * (255 - 40)


def test_some_synthetic_dice_are_of_the_tables_own_colour() -> None:
    # A black die on dark glass, a green die on green felt: it shows only by its pips and
    # edges, and the reader must learn to see it. About a tenth of synthetic dice are such;
    # a body of another colour matches a felt's colour this closely by chance in about 2%.
    felt = np.array([30.0, 110.0, 50.0], np.float32)
    rng = np.random.default_rng(11)
    like_the_table = 0
    for _ in range(300):
        image = np.empty((80, 80, 3), np.float32)
        image[:] = felt
        draw_die(image, 40.0, 40.0, 40.0, 1, rng, angle=0.0)
        ring = np.concatenate([image[27:34, 27:53], image[46:53, 27:53]]).reshape(-1, 3)
        body = np.median(ring, axis=0)
        pip = image[38:43, 38:43].reshape(-1, 3).mean(axis=0)
        same_hue = float(body @ felt) / float(np.linalg.norm(body) * np.linalg.norm(felt)) > 0.99
        brightness = float(np.linalg.norm(body) / np.linalg.norm(felt))
        seen_pip = float(np.abs(pip - body).max()) > 60
        like_the_table += same_hue and 0.5 < brightness < 1.2 and seen_pip
    assert 15 <= like_the_table <= 90


def test_a_patterned_table_keeps_every_die_and_replaces_the_tray(
    laid_on_another_table: Callable[..., np.ndarray],
) -> None:
    photo = data.load_photos(DEV, ["IMG_20191208_111228.jpg"])[0]
    dice = photo.dice[:, 1:4].tolist()
    rng = np.random.default_rng(5)
    tables = [data.on_a_patterned_table(photo, rng).image for _ in range(4)]
    for table in tables:
        far = laid_on_another_table(photo.image, table, dice)
        # Not the light tray: another colour, or a pattern on it.
        changed = np.abs(table[far].astype(int) - photo.image[far]).mean()
        assert changed > 25 or table[far].std() > 2 * photo.image[far].std()
    # Every table its own.
    apart = [np.abs(a[far].astype(int) - b[far]).mean() for a, b in combinations(tables, 2)]
    assert min(apart) > 10


def test_the_folds_deal_every_photograph_once_whatever_the_training_seed() -> None:
    # Two trainings compared fold by fold (``--seed``) must be scored on the same held-out
    # photographs: the deal follows ``--split-seed`` only.
    folds = data.deal_folds(121, 3, split_seed=7)
    assert sorted(np.concatenate(folds).tolist()) == list(range(121))
    assert [len(f) for f in folds] == [41, 40, 40]
    assert all((a == b).all() for a, b in zip(folds, data.deal_folds(121, 3, 7), strict=True))
    assert not (data.deal_folds(121, 3, 8)[2] == folds[2]).all()
