"""Photographs made harder on purpose, as other cameras and tables give them.

``python -m vision.evaluate DIR --degrade NAME`` scores the reader on a labelled folder with
every photograph changed so: a stand-in for the cameras and tables the dev set lacks. Each
change keeps the dice where they are, or scales the whole photograph (labels are relative to
its size), so the labels still hold. The table changes lift the labelled dice off the dev
set's light tray (``cv2.grabCut`` from each label) and lay them on a wooden or cloth table;
the lamp gives each cut die a hard shadow of its own shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import cv2
import numpy as np

# Where the labels say the dice are: (x, y, size) in pixels.
Dice = Sequence[tuple[float, float, float]]


def _scaled(factor: float) -> Callable[[np.ndarray], np.ndarray]:
    def scale(image: np.ndarray) -> np.ndarray:
        smaller = cv2.INTER_AREA if factor < 1 else cv2.INTER_CUBIC
        return np.asarray(cv2.resize(image, None, fx=factor, fy=factor, interpolation=smaller))

    return scale


def _proportioned(wide: float, tall: float) -> Callable[[np.ndarray], np.ndarray]:
    def squash(image: np.ndarray) -> np.ndarray:
        return np.asarray(cv2.resize(image, None, fx=wide, fy=tall, interpolation=cv2.INTER_AREA))

    return squash


def _gain(factor: float) -> Callable[[np.ndarray], np.ndarray]:
    def gain(image: np.ndarray) -> np.ndarray:
        return np.clip(image.astype(np.float32) * factor, 0, 255).astype(np.uint8)

    return gain


def _grey(image: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR))


def _blur(image: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.GaussianBlur(image, (0, 0), 1.5))


def smeared(image: np.ndarray, length: int, angle: float) -> np.ndarray:
    """The photograph smeared straight, ``length`` px at ``angle`` degrees: motion blur."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), angle, 1.0)
    kernel = np.asarray(cv2.warpAffine(kernel, turn, (length, length)), np.float32)
    return np.asarray(cv2.filter2D(image, -1, kernel / kernel.sum()))


def turned(image: np.ndarray, pitch: float) -> tuple[np.ndarray, np.ndarray]:
    """The photograph as a camera turned ``pitch`` degrees about its own centre sees it (a
    phone tilted as it is held; focal length the photograph's width): the far side squashed,
    the near side stretched, and the whole of it in a frame its edges fill. Also the
    homography taking a point of the photograph to the frame (for its labels)."""
    h, w = image.shape[:2]
    camera = np.array([[w, 0.0, w / 2], [0.0, w, h / 2], [0.0, 0.0, 1.0]])
    p = math.radians(pitch)
    turn = np.array([[1.0, 0.0, 0.0], [0.0, math.cos(p), -math.sin(p)],
                     [0.0, math.sin(p), math.cos(p)]])
    seen = camera @ turn @ np.linalg.inv(camera)
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0]], [[w, 0]], [[w, h]], [[0, h]]], np.float64), seen)
    (x0, y0), (x1, y1) = corners.min(axis=(0, 1)), corners.max(axis=(0, 1))
    seen = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]]) @ seen
    size = (int(math.ceil(x1 - x0)), int(math.ceil(y1 - y0)))
    frame = cv2.warpPerspective(image, seen, size, flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(frame), seen


def _shaken(image: np.ndarray) -> np.ndarray:
    """Smeared 7 px (a sixth of a die here) in a direction of the photograph's own."""
    return smeared(image, 7, _seeded(image).uniform(0.0, 180.0))


def _jpeg(quality: int) -> Callable[[np.ndarray], np.ndarray]:
    def jpeg(image: np.ndarray) -> np.ndarray:
        _, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR))

    return jpeg


def _seeded(image: np.ndarray) -> np.random.Generator:
    """Random numbers seeded by the photograph itself: it is always degraded alike."""
    return np.random.default_rng(int(image[::17, ::17].sum()))


def _noise(image: np.ndarray) -> np.ndarray:
    rng = _seeded(image)
    noisy = image.astype(np.float32) + rng.normal(0.0, 12.0, image.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def _colour_noise(image: np.ndarray) -> np.ndarray:
    """A small sensor's colour noise in dim light: blotches 2-3 px across in the colour alone
    (YCrCb's Cr and Cb, sigma 4 of 255), the lightness untouched."""
    rng = _seeded(image)
    ycc = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb).astype(np.float32)
    for channel in (1, 2):
        blotches = cv2.GaussianBlur(rng.normal(0.0, 1.0, image.shape[:2]).astype(np.float32),
                                    (0, 0), 1.2)
        ycc[:, :, channel] += blotches * (4.0 / blotches.std())
    return cv2.cvtColor(np.clip(ycc, 0, 255).astype(np.uint8), cv2.COLOR_YCrCb2BGR)


def _swapped(image: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(image[:, :, ::-1])


def _white_balance(blue: float, green: float, red: float) -> Callable[[np.ndarray], np.ndarray]:
    def cast(image: np.ndarray) -> np.ndarray:
        gains = np.array([blue, green, red], np.float32)
        return np.clip(image.astype(np.float32) * gains, 0, 255).astype(np.uint8)

    return cast


def _wood(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Wavy wooden grain of one of three stains, its rings about 2% of the photograph apart."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    along = xx * np.cos(angle) + yy * np.sin(angle)
    across = yy * np.cos(angle) - xx * np.sin(angle)
    wander = cv2.resize(
        rng.normal(0, 1, (h // 40 + 2, w // 40 + 2)).astype(np.float32),
        (w, h),
        interpolation=cv2.INTER_CUBIC,
    )
    period = rng.uniform(9, 16) * max(h, w) / 640
    grain = 0.5 + 0.5 * np.sin(2 * np.pi * (across / period + 0.8 * wander + 0.002 * along))
    shade = 0.75 + 0.25 * grain + 0.03 * _speckle(h, w, rng, 0.7)
    stains = ((45, 85, 140), (30, 60, 105), (70, 120, 170))
    return np.array(stains[rng.integers(len(stains))], np.float32) * shade[:, :, None]


def _cloth(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Felt of one of three colours (green, blue, red), with its fine fibres."""
    colours = ((40, 110, 30), (100, 60, 20), (40, 40, 120))
    shade = 1 + 0.12 * _speckle(h, w, rng, 0.8)
    return np.array(colours[rng.integers(len(colours))], np.float32) * shade[:, :, None]


def _speckle(h: int, w: int, rng: np.random.Generator, sigma: float) -> np.ndarray:
    return np.asarray(cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), sigma))


def cut_dice(image: np.ndarray, dice: Dice) -> list[tuple[int, int, np.ndarray]]:
    """Each die cut from the tray: (x0, y0, mask), ``mask`` true where the die is in the
    square of the photograph from (x0, y0) around it.

    GrabCut, started from where the die's label puts it: die within a third of a die of its
    centre, maybe die out to 0.72 (a turned die's corners), tray beyond. GrabCut draws on
    OpenCV's own random numbers, which carry over from one call to the next: they are seeded
    afresh for each die, so that its cut depends on its own pixels alone, not on what was cut
    before in the same process.
    """
    cuts = []
    for x, y, size in dice:
        r = int(0.9 * size)
        x0, y0 = max(int(x) - r, 0), max(int(y) - r, 0)
        roi = np.ascontiguousarray(image[y0 : int(y) + r, x0 : int(x) + r])
        if min(roi.shape[:2]) < 4:
            cuts.append((x0, y0, np.zeros(roi.shape[:2], bool)))
            continue
        mask = np.full(roi.shape[:2], cv2.GC_BGD, np.uint8)
        cv2.circle(mask, (int(x) - x0, int(y) - y0), int(0.72 * size), (cv2.GC_PR_FGD,), -1)
        cv2.circle(mask, (int(x) - x0, int(y) - y0), int(0.3 * size), (cv2.GC_FGD,), -1)
        tray_model, die_model = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
        cv2.setRNGSeed(0)
        cv2.grabCut(roi, mask, (0, 0, 1, 1), tray_model, die_model, 4, cv2.GC_INIT_WITH_MASK)
        cuts.append((x0, y0, (mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)))
    return cuts


def lay_on_table(image: np.ndarray, dice: Dice, table: np.ndarray) -> np.ndarray:
    """The photograph's dice cut out of it (``cut_dice``) and laid on ``table`` (an image of
    the same size), lit as the tray around them was."""
    h, w = image.shape[:2]
    tray_seen = np.ones((h, w), np.float32)
    for x0, y0, die in cut_dice(image, dice):
        tray_seen[y0 : y0 + die.shape[0], x0 : x0 + die.shape[1]][die] = 0.0
    tray_seen = np.asarray(cv2.GaussianBlur(tray_seen, (0, 0), 0.8), np.float32)[:, :, None]
    # The tray's light and the dice's shadows on it, as a share of the bare tray's light.
    size = float(np.median([s for _, _, s in dice])) if len(dice) else 0.06 * max(h, w)
    k = int(1.6 * size) | 1
    bare = cv2.morphologyEx(
        image, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    bare = cv2.GaussianBlur(bare, (0, 0), 0.5 * size).astype(np.float32).mean(axis=2)
    light = np.clip(image.mean(axis=2) / np.maximum(bare, 1.0), 0, 1.1)[:, :, None]
    laid = tray_seen * table * light + (1 - tray_seen) * image
    return np.clip(laid, 0, 255).astype(np.uint8)


def under_a_lamp(
    image: np.ndarray,
    dice: Dice,
    foot: tuple[float, float],
    length: float,
    darkness: float,
    softness: float,
    falloff: float,
) -> np.ndarray:
    """The dice lit by one lamp whose foot is at ``foot`` (often beyond the photograph): each
    casts a hard shadow of its own shape (``cut_dice``) ``length`` pixels away from the lamp,
    taking ``darkness`` of the light, its edge blurred by ``softness`` pixels, and the light
    falls off by ``falloff`` at the farthest corner from the lamp's foot."""
    h, w = image.shape[:2]
    on_dice, shadows = np.zeros((h, w), np.float32), np.zeros((h, w), np.float32)
    for (x, y, _), (x0, y0, die) in zip(dice, cut_dice(image, dice), strict=True):
        on_dice[y0 : y0 + die.shape[0], x0 : x0 + die.shape[1]][die] = 1.0
        away = np.array([x - foot[0], y - foot[1]])
        dx, dy = away / max(float(np.hypot(*away)), 1.0) * length
        shift = np.array([[1.0, 0.0, x0 + dx], [0.0, 1.0, y0 + dy]], np.float32)
        np.maximum(shadows, cv2.warpAffine(die.astype(np.float32), shift, (w, h)), out=shadows)
    shadows = np.asarray(cv2.GaussianBlur(shadows, (0, 0), max(softness, 0.3)), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    far = np.hypot(xx - foot[0], yy - foot[1])
    light = (1.0 - darkness * shadows * (1.0 - on_dice)) * (1.0 - falloff * (far / far.max()) ** 2)
    return np.clip(image * light[:, :, None], 0, 255).astype(np.uint8)


def _lamp(image: np.ndarray, dice: Dice) -> np.ndarray:
    """A lamp low and off to a side: shadows a quarter to a half of a die long, taking 60%
    of the light, and 65% of the light left far from the lamp."""
    rng = _seeded(image)
    h, w = image.shape[:2]
    size = float(np.median([s for _, _, s in dice])) if len(dice) else 0.06 * max(h, w)
    fx, fy = rng.uniform(-0.5, 1.5, 2) * (w, h)
    length = float(rng.uniform(0.25, 0.45)) * size
    return under_a_lamp(image, dice, (fx, fy), length, 0.6, 0.06 * size, 0.35)


def _table(
    texture: Callable[[int, int, np.random.Generator], np.ndarray],
) -> Callable[[np.ndarray, Dice], np.ndarray]:
    def lay(image: np.ndarray, dice: Dice) -> np.ndarray:
        h, w = image.shape[:2]
        return lay_on_table(image, dice, texture(h, w, _seeded(image)))

    return lay


def _sharpened(image: np.ndarray) -> np.ndarray:
    """A phone's sharpening: an unsharp mask of radius 2 px, at full strength (halos)."""
    soft = cv2.GaussianBlur(image.astype(np.float32), (0, 0), 2.0)
    return np.clip(2.0 * image.astype(np.float32) - soft, 0, 255).astype(np.uint8)


def _denoised(image: np.ndarray) -> np.ndarray:
    """A phone's noise reduction in dim light: edges of little contrast smoothed away."""
    return np.asarray(cv2.bilateralFilter(image, 9, 60, 7))


def _upscaled(image: np.ndarray) -> np.ndarray:
    """A camera of half the resolution, its photograph enlarged back (bicubic)."""
    h, w = image.shape[:2]
    half = cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.resize(half, (w, h), interpolation=cv2.INTER_CUBIC))


def _vignette(image: np.ndarray) -> np.ndarray:
    """A lens's vignetting: the light falling to 45% in the corners."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    reach = (((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2) / 2
    return np.clip(image * (1.0 - 0.55 * reach)[:, :, None], 0, 255).astype(np.uint8)


def _photo(change: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray, Dice], np.ndarray]:
    """A change of the whole photograph, wherever the dice are."""
    return lambda image, _dice: change(image)


# name: (what it stands for, the change of a photograph with its labelled dice)
DEGRADATIONS: dict[str, tuple[str, Callable[[np.ndarray, Dice], np.ndarray]]] = {
    "small": ("dice 0.6 times as large (a camera further away)", _photo(_scaled(0.6))),
    "large": ("dice 2.5 times as large (a closer or sharper camera)", _photo(_scaled(2.5))),
    "tiny": ("dice 0.35 times as large (about 13 px across: a wide view)", _photo(_scaled(0.35))),
    "tilted": (
        "seen about 30 degrees off straight above (0.85 as tall: the dice foreshortened, "
        "their sides not shown)",
        _photo(_proportioned(1.0, 0.85)),
    ),
    "stretched": (
        "a 4:3 photograph stretched to a square by a tool (the dice 0.75 as wide as tall)",
        _photo(_proportioned(0.75, 1.0)),
    ),
    "stretched-16-9": (
        "a 16:9 photograph stretched to a square by a tool (the dice 0.56 as wide as tall)",
        _photo(_proportioned(0.5625, 1.0)),
    ),
    "dark": ("half the light", _photo(_gain(0.5))),
    "bright": ("overexposed: 1.6 times the light, clipped", _photo(_gain(1.6))),
    "grey": ("no colour (a monochrome or infrared camera)", _photo(_grey)),
    "blur": ("out of focus (Gaussian blur, sigma 1.5 px)", _photo(_blur)),
    "shaken": (
        "motion blur: a straight smear 7 px long (the camera or the table moved)",
        _photo(_shaken),
    ),
    "jpeg": ("JPEG at quality 25", _photo(_jpeg(25))),
    "jpeg-50": ("JPEG at quality 50 (as shared photographs often are)", _photo(_jpeg(50))),
    "small-jpeg": (
        "shrunk to 0.65 (a 640 px photograph to 416 px, as exported for training) and saved "
        "as a JPEG at quality 75 (its colour at half the resolution)",
        _photo(lambda image: _jpeg(75)(_scaled(0.65)(image))),
    ),
    "noise": ("sensor noise (sigma 12 of 255)", _photo(_noise)),
    "colour-noise": (
        "a phone's blotchy colour noise in dim light (2-3 px, sigma 4 of 255 in colour alone)",
        _photo(_colour_noise),
    ),
    "swapped": ("red and blue swapped (other colours of dice and table)", _photo(_swapped)),
    "warm": (
        "a warmer white balance (indoor light: red x1.15, blue x0.65)",
        _photo(_white_balance(0.65, 1.0, 1.15)),
    ),
    "cool": (
        "a cooler white balance (shade: red x0.7, green x0.95, blue x1.15)",
        _photo(_white_balance(1.15, 0.95, 0.7)),
    ),
    "sharpened": ("a phone's sharpening (unsharp mask, 2 px, full strength)", _photo(_sharpened)),
    "denoised": ("a phone's noise reduction in dim light (bilateral filter)", _photo(_denoised)),
    "upscaled": ("a camera of half the resolution, enlarged back", _photo(_upscaled)),
    "vignette": ("a lens's vignetting (45% of the light in the corners)", _photo(_vignette)),
    "wood": ("the dice on a wooden table (grain of one of three stains)", _table(_wood)),
    "cloth": ("the dice on felt (green, blue or red)", _table(_cloth)),
    "lamp": (
        "under a lamp off to a side: hard shadows a quarter to half a die long, light falling off",
        _lamp,
    ),
}


def degrade(image: np.ndarray, name: str, dice: Dice = ()) -> np.ndarray:
    """The photograph changed as ``name`` says; ``dice``, where the labels put the dice
    (x, y, size in pixels), is needed by the table changes. ValueError names the known
    changes."""
    if name not in DEGRADATIONS:
        raise ValueError(f"degradation {name!r}: must be one of {', '.join(DEGRADATIONS)}")
    return DEGRADATIONS[name][1](image, dice)
