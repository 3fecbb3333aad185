"""The dev set, and the augmented samples both models train on.

Augmentation stands in for the cameras and tables we do not have: any rotation, mirroring,
a wide range of die sizes, exposure, colour shifts (channel swaps, hue turns, inversion:
a white die with black pips becomes a black die with white pips), blur, noise, glare and
JPEG loss; for the face reader, a lamp's highlight on a die's face; the photographs' own
dice laid on darkened and on patterned tables; and a share of synthetic dice of any look
drawn into the photographs (``vision.training.synthetic``). Nothing here is tuned to
single images.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from vision.degrade import lay_on_table, smeared
from vision.evaluate import load_labels
from vision.nets import CROP_DIE_PX, CROP_PX, DETECT_DIE_PX, NOT_A_DIE, STRIDE, normalise
from vision.training.synthetic import draw_die, shadow, shine, side_in_box

# The share of training samples that are synthetic dice drawn into a photograph.
SYNTHETIC_SHARE = 0.2
# The share of the face reader's dice (real or synthetic) given a highlight (``shine``).
SHINE_SHARE = 0.2


@dataclass(frozen=True)
class Photo:
    """One labelled photograph: ``dice`` rows are (pips, cx, cy, size) in pixels.

    ``decoys`` rows are (cx, cy, size) of places the locator took for dice that are not
    (filled in by hard-negative mining once a locator is trained).
    """

    name: str
    image: np.ndarray
    dice: np.ndarray
    decoys: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float32))


def load_photos(root: Path, names: Sequence[str] | None = None) -> list[Photo]:
    """Every image of a folder in the dev set's format (images/*.jpg, labels/*.txt, YOLO),
    or only those ``names``."""
    photos = []
    for image_path in sorted((root / "images").glob("*.jpg")):
        if names is not None and image_path.name not in names:
            continue
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{image_path}: not an image")
        h, w = image.shape[:2]
        label_path = root / "labels" / (image_path.stem + ".txt")
        rows = [(d.face, d.x, d.y, d.size) for d in load_labels(label_path, w, h, "above")]
        photos.append(Photo(image_path.name, image, np.array(rows, np.float32).reshape(-1, 4)))
    return photos


def deal_folds(count: int, folds: int, split_seed: int) -> list[np.ndarray]:
    """The indices of ``count`` photographs dealt into ``folds`` folds for cross-validation.

    The deal depends on ``split_seed`` alone, never on the training seed: two trainings
    compared fold by fold must be scored on the same held-out photographs.
    """
    order = np.random.default_rng(split_seed).permutation(count)
    return [order[k::folds] for k in range(folds)]


def on_a_dark_table(photo: Photo, rng: np.random.Generator) -> Photo:
    """The photograph with the table around the dice darkened (and tinted), dice untouched.

    The dev set's tables are light; under the glass the camera looks up at a room that is
    often dark, where a black die shows only by its edges.
    """
    h, w = photo.image.shape[:2]
    mask = np.zeros((h, w), np.float32)
    for _, cx, cy, size in photo.dice:
        cv2.circle(mask, (int(cx), int(cy)), int(0.45 * size), (1.0,), -1, cv2.LINE_AA)
    median = float(np.median(photo.dice[:, 3])) if len(photo.dice) else 37.0
    mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), 0.04 * median), np.float32)[:, :, None]
    gain = rng.uniform(0.08, 0.5)
    tint = rng.uniform(0.8, 1.2, 3).astype(np.float32)
    table = photo.image.astype(np.float32) * gain * tint
    image = photo.image.astype(np.float32) * mask + table * (1.0 - mask)
    return replace(photo, name=photo.name + "#dark", image=np.clip(image, 0, 255).astype(np.uint8))


def on_a_patterned_table(photo: Photo, rng: np.random.Generator) -> Photo:
    """The photograph's dice lifted off the tray onto a patterned table (``patterned``):
    tables are wood, cloth, stone or print, and the dev set's are all plain and light."""
    h, w = photo.image.shape[:2]
    image = lay_on_table(photo.image, photo.dice[:, 1:4].tolist(), patterned(h, w, rng))
    return replace(photo, name=photo.name + "#patterned", image=image)


def patterned(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A random table top: streaks of noise at several scales, stretched along a random
    direction, in two random colours, with a fine speckle.

    Deliberately not the wood and cloth of ``vision.degrade``, which score the reader on
    tables it did not learn.
    """
    side = int(math.hypot(h, w)) + 2
    field = np.zeros((side, side), np.float32)
    stretch = math.exp(rng.uniform(0, math.log(12)))
    for _ in range(3):
        cell = math.exp(rng.uniform(math.log(3), math.log(120)))
        grid = (int(side / cell) + 2, int(side / (cell * stretch)) + 2)
        noise = rng.normal(0, 1, grid).astype(np.float32)
        field += rng.uniform(0.2, 1.0) * cv2.resize(
            noise, (side, side), interpolation=cv2.INTER_CUBIC
        )
    turn = cv2.getRotationMatrix2D((side / 2, side / 2), float(rng.uniform(0, 180)), 1.0)
    turn[:, 2] -= np.array([(side - w) / 2, (side - h) / 2])
    field = np.asarray(cv2.warpAffine(field, turn, (w, h), borderMode=cv2.BORDER_REFLECT))
    low, high = np.percentile(field, (2, 98))
    mix = np.clip((field - low) / max(high - low, 1e-6), 0, 1)[:, :, None]
    colours = []
    for _ in range(2):
        hsv = np.array([[[rng.integers(180), rng.integers(256), rng.integers(25, 230)]]], np.uint8)
        colours.append(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32))
    table = colours[0] * (1 - mix) + colours[1] * mix
    speckle = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.7)
    return np.asarray(table * (1 + rng.uniform(0, 0.12) * speckle[:, :, None]), np.float32)


def photometric(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random change of light, colour and sharpness, as other cameras and tables give."""
    out = img.astype(np.float32)
    if rng.random() < 0.5:
        out = out[:, :, rng.permutation(3)]
    if rng.random() < 0.3:
        hsv = cv2.cvtColor(np.clip(out, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV)
        hsv[:, :, 0] = (hsv[:, :, 0].astype(np.int32) + int(rng.integers(0, 180))) % 180
        out = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR).astype(np.float32)
    if rng.random() < 0.1:
        out = np.repeat(out.mean(axis=2, keepdims=True), 3, axis=2)
    if rng.random() < 0.25:
        out = 255.0 - out
    gain = math.exp(rng.normal(0, 0.35))
    out = out * gain * rng.uniform(0.85, 1.15, 3).astype(np.float32) + rng.normal(0, 20)
    if rng.random() < 0.3:
        gamma = math.exp(rng.normal(0, 0.3))
        out = 255.0 * (np.clip(out, 0, 255) / 255.0) ** gamma
    if rng.random() < 0.2:
        out = _glare(out, rng)
    if rng.random() < 0.25:
        out = _blur(out, rng)
    if rng.random() < 0.4:
        out = out + rng.normal(0, rng.uniform(2, 12), out.shape).astype(np.float32)
    out8 = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        quality = int(rng.integers(30, 90))
        _, buf = cv2.imencode(".jpg", out8, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    return out8


def _glare(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    h, w = img.shape[:2]
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    r = rng.uniform(0.05, 0.4) * max(h, w)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
    return img + rng.uniform(40, 150) * blob[:, :, None]


def _blur(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if rng.random() < 0.5:
        return cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.6))
    length = int(rng.integers(3, 8))
    return smeared(img, length, rng.uniform(0, 180))


def _affine(
    centre: tuple[float, float], scale: float, angle: float, flip: bool, out_size: int
) -> np.ndarray:
    """Map the photograph so ``centre`` lands mid-output, scaled, turned and maybe mirrored."""
    m = np.asarray(cv2.getRotationMatrix2D(centre, angle, scale), np.float64)
    m[:, 2] += np.array([out_size / 2 - centre[0], out_size / 2 - centre[1]])
    if flip:
        m[0] = -m[0]
        m[0, 2] += out_size
    return m


def locator_sample(
    photo: Photo, rng: np.random.Generator, out_size: int = 128
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One augmented training window for the locator: (input CHW, heat target, regr target).

    The regression target has 4 channels: log(size / DETECT_DIE_PX), dx, dy, and a mask.
    """
    dice = photo.dice
    h, w = photo.image.shape[:2]
    median = float(np.median(dice[:, 3])) if len(dice) else 37.0
    scale = math.exp(rng.uniform(math.log(9.0), math.log(30.0))) / median
    if len(dice) and rng.random() < 0.6:
        i = int(rng.integers(len(dice)))
        centre = (
            float(dice[i, 1] + rng.normal(0, out_size / scale / 6)),
            float(dice[i, 2] + rng.normal(0, out_size / scale / 6)),
        )
    else:
        centre = (float(rng.uniform(0, w)), float(rng.uniform(0, h)))
    flip = bool(rng.random() < 0.5)
    # Cut out the neighbourhood, shrink it by area as the reader does, then turn it:
    # warpAffine alone would alias.
    reach = int(0.75 * out_size / scale) + 2
    x0, y0 = max(0, int(centre[0]) - reach), max(0, int(centre[1]) - reach)
    region = photo.image[y0 : int(centre[1]) + reach, x0 : int(centre[0]) + reach]
    if region.size == 0:
        region, x0, y0 = photo.image, 0, 0
    small = cv2.resize(region, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    scale_x, scale_y = small.shape[1] / region.shape[1], small.shape[0] / region.shape[0]
    m_small = _affine(
        ((centre[0] - x0) * scale_x, (centre[1] - y0) * scale_y),
        1.0,
        float(rng.uniform(0, 360)),
        flip,
        out_size,
    )
    window = cv2.warpAffine(
        small,
        m_small,
        (out_size, out_size),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    m = m_small @ np.array([[scale_x, 0, -x0 * scale_x], [0, scale_y, -y0 * scale_y], [0, 0, 1]])
    placed = [(*(m @ np.array([cx, cy, 1.0])), size * scale) for _, cx, cy, size in dice]
    if rng.random() < SYNTHETIC_SHARE:
        window, placed = _with_synthetic_dice(window, placed, median * scale, rng)
    window = photometric(window, rng)
    cells = out_size // STRIDE
    heat = np.zeros((cells, cells), np.float32)
    regr = np.zeros((4, cells, cells), np.float32)
    yy, xx = np.mgrid[0:cells, 0:cells].astype(np.float32)
    for px, py, s_in in placed:
        gx, gy = px / STRIDE - 0.5, py / STRIDE - 0.5
        sigma = max(0.5, 0.22 * s_in / STRIDE)
        if not (-3 * sigma < gx < cells + 3 * sigma and -3 * sigma < gy < cells + 3 * sigma):
            continue
        g = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma * sigma))
        np.maximum(heat, g, out=heat)
        ix, iy = int(round(gx)), int(round(gy))
        if 0 <= ix < cells and 0 <= iy < cells:
            heat[iy, ix] = 1.0
            regr[:, iy, ix] = (math.log(s_in / DETECT_DIE_PX), gx - ix, gy - iy, 1.0)
    return normalise(window), heat, regr


def _with_synthetic_dice(
    window: np.ndarray,
    placed: list[tuple[float, float, float]],
    box: float,
    rng: np.random.Generator,
) -> tuple[np.ndarray, list[tuple[float, float, float]]]:
    """The window with a few synthetic dice drawn where no die is: alone, or in a row of
    two or three pushed together face to face (turned alike, touching or nearly)."""
    out = window.astype(np.float32)
    placed = list(placed)
    width = window.shape[0]
    for _ in range(int(rng.integers(1, 7))):
        size = box * math.exp(rng.normal(0, 0.05))
        angle = float(rng.uniform(0, 360))
        step = side_in_box(size, angle) * rng.uniform(1.0, 1.1)
        turn = math.radians(angle + 90 * int(rng.integers(4)))
        row = 1 if rng.random() < 0.5 else int(rng.integers(2, 4))
        x, y = rng.uniform(0, width, 2)
        dx, dy = step * math.cos(turn), step * math.sin(turn)
        centres = [(x + k * dx, y + k * dy) for k in range(row)]
        if any(
            math.hypot(cx - px, cy - py) < 1.05 * max(size, s)
            for cx, cy in centres
            for px, py, s in placed
        ):
            continue
        for cx, cy in centres:
            if rng.random() < 0.3:
                shadow(out, cx, cy, size, rng)
            draw_die(out, cx, cy, size, int(rng.integers(1, 7)), rng, angle)
            placed.append((cx, cy, size))
    return np.clip(out, 0, 255).astype(np.uint8), placed


def face_sample(photo: Photo, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """One augmented crop for the face reader and its class (pips - 1, or NOT_A_DIE).

    A die's crop is centred near its middle, as far off as the locator's centres; a "not a
    die" crop is centred at least 45% of a die's size from every die (between touching
    dice, on an edge, or on the table), or on one of the photograph's decoys. A share of
    both are synthetic dice drawn on a bare spot of the photograph.
    """
    dice = photo.dice
    median = float(np.median(dice[:, 3])) if len(dice) else 37.0
    angle, flip = float(rng.uniform(0, 360)), bool(rng.random() < 0.5)
    # The locator's size estimate is off by some percent: the crop's scale follows suit.
    jitter = math.exp(rng.normal(0, 0.13))
    if rng.random() < SYNTHETIC_SHARE:
        cx, cy = _bare_spot(photo, rng, 1.0)
        m = _affine((cx, cy), CROP_DIE_PX / median * jitter, angle, flip, CROP_PX)
        crop = _warp(photo.image, m).astype(np.float32)
        label = int(rng.integers(NOT_A_DIE + 1)) if rng.random() < 0.85 else NOT_A_DIE
        box = CROP_DIE_PX * math.exp(rng.normal(0, 0.1))
        middle = CROP_PX / 2 + rng.normal(0, 0.07 * box, 2)
        turns = rng.uniform(0, 2 * math.pi, int(rng.integers(0, 4)))
        neighbours = [
            middle + box * rng.uniform(1.0, 1.3) * np.array([math.cos(a), math.sin(a)])
            for a in turns
        ]
        if label == NOT_A_DIE:
            # Dice beside the middle, none on it.
            a = rng.uniform(0, 2 * math.pi)
            neighbours.append(
                middle + box * rng.uniform(0.55, 0.9) * np.array([math.cos(a), math.sin(a)])
            )
        for x, y in neighbours:
            draw_die(crop, x, y, box * math.exp(rng.normal(0, 0.05)), int(rng.integers(1, 7)), rng)
        if label != NOT_A_DIE:
            if rng.random() < 0.3:
                shadow(crop, middle[0], middle[1], box, rng)
            draw_die(crop, middle[0], middle[1], box, label + 1, rng)
            if rng.random() < SHINE_SHARE:
                shine(crop, middle[0], middle[1], box, rng)
        return normalise(photometric(crop, rng)), label
    if len(dice) and rng.random() < 0.78:
        i = int(rng.integers(len(dice)))
        pips, x, y, size = (float(v) for v in dice[i])
        # As far off as the locator's centres are (median 8% of a die, 99th percentile 26%).
        cx = x + rng.normal(0, 0.07) * size
        cy = y + rng.normal(0, 0.07) * size
        label = int(pips) - 1
    elif len(photo.decoys) and rng.random() < 0.3:
        cx, cy, size = (float(v) for v in photo.decoys[int(rng.integers(len(photo.decoys)))])
        label = NOT_A_DIE
    else:
        size = median * math.exp(rng.normal(0, 0.1))
        cx, cy = _bare_spot(photo, rng, 0.45)
        label = NOT_A_DIE
    m = _affine((cx, cy), CROP_DIE_PX / size * jitter, angle, flip, CROP_PX)
    crop = _warp(photo.image, m)
    if label != NOT_A_DIE and rng.random() < SHINE_SHARE:
        lit = crop.astype(np.float32)
        middle = m @ [x, y, 1.0]  # the die's own middle in the crop
        shine(lit, float(middle[0]), float(middle[1]), CROP_DIE_PX * jitter, rng)
        crop = np.clip(lit, 0, 255).astype(np.uint8)
    return normalise(photometric(crop, rng)), label


def _warp(image: np.ndarray, m: np.ndarray) -> np.ndarray:
    return np.asarray(
        cv2.warpAffine(
            image, m, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
    )


def _bare_spot(photo: Photo, rng: np.random.Generator, clearance: float) -> tuple[float, float]:
    """A point at least ``clearance`` dice from every die's centre: often just beside one."""
    dice = photo.dice
    h, w = photo.image.shape[:2]
    cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
    for _ in range(20):
        if len(dice) and rng.random() < 0.7:
            i = int(rng.integers(len(dice)))
            r = rng.uniform(clearance, clearance + 0.85) * dice[i, 3]
            a = rng.uniform(0, 2 * math.pi)
            cx, cy = float(dice[i, 1] + r * math.cos(a)), float(dice[i, 2] + r * math.sin(a))
        else:
            cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        if (
            not len(dice)
            or (np.hypot(dice[:, 1] - cx, dice[:, 2] - cy) / dice[:, 3]).min() > clearance
        ):
            break
    return cx, cy
