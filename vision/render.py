"""Drawing dice as the camera under the glass sees them: one frame from dice already placed.

The face pressed on the glass is evenly lit with darker rounded edges; pips are white,
black or red; the room above is an out-of-focus background; the lamp leaves a soft glare
on the glass; then the light level, motion blur, a slight blur and sensor noise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

# Body colours (BGR) by the names the reader gives; pips default to the contrasting colour.
DIE_COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (232, 234, 236),
    "black": (38, 36, 36),
    "red": (40, 36, 196),
    "green": (64, 158, 38),
    "blue": (186, 92, 28),
    "yellow": (34, 206, 232),
    "purple": (132, 44, 104),
    "orange": (28, 120, 236),
}
def nearest_die_colour(colour: str) -> str:
    """The die colour drawn nearest a ``"#rrggbb"`` colour (a player's colour on the page),
    by the distance of the two in RGB; ValueError for another form."""
    if len(colour) != 7 or colour[0] != "#":
        raise ValueError(f"colour {colour!r}: not #rrggbb")
    try:
        rgb = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    except ValueError:
        raise ValueError(f"colour {colour!r}: not #rrggbb") from None
    return min(DIE_COLOURS, key=lambda name: sum(
        (a - b) ** 2 for a, b in zip(rgb, DIE_COLOURS[name][::-1], strict=True)))


PIP_COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (246, 246, 246),
    "black": (24, 22, 22),
    "red": (36, 30, 204),
}
DEFAULT_PIPS = {"white": "black", "yellow": "black", "orange": "black"}
BACKGROUNDS = {"dark": 52, "grey": 128, "light": 196}

# Pip centres of each face, in units of half the die's side, before any mirroring
# (also drawn by the training's synthetic dice).
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}


def _star(points: int, outer: float, inner: float) -> tuple[tuple[float, float], ...]:
    corners = []
    for i in range(2 * points):
        r, a = (outer if i % 2 == 0 else inner), math.pi * i / points
        corners.append((r * math.sin(a), -r * math.cos(a)))
    return tuple(corners)


# The ace as some sets print it instead of one pip, in units of the die's side around its
# middle: filled outlines, and a roundel (a disc with a star left in the body's colour).
# PACOS are Perudo's (RULES.md: "an Indian head or a bird"); "big pip" is one round pip
# more than half the side across, as other sets print the ace. The reader's training draws
# other, random symbols; these are for the simulator.
PACOS = ("star", "sun", "bird", "head", "roundel")
ACE_SYMBOLS: dict[str, tuple[tuple[float, float], ...]] = {
    "star": _star(5, 0.36, 0.15),
    "sun": _star(12, 0.34, 0.24),
    "bird": ((-0.36, 0.04), (-0.12, -0.05), (0.02, -0.32), (0.12, -0.06), (0.36, -0.13),
             (0.22, 0.1), (-0.04, 0.16)),
    "head": ((-0.14, 0.36), (-0.2, 0.0), (-0.1, -0.25), (0.04, -0.38), (0.1, -0.2),
             (0.2, -0.3), (0.18, 0.0), (0.26, 0.1), (0.12, 0.16), (0.15, 0.36)),
    "roundel": _star(5, 0.22, 0.09),
    "big pip": _star(18, 0.28, 0.28),
}
ACES = ("pip", *ACE_SYMBOLS)


@dataclass(frozen=True)
class PlacedDie:
    """One rendered die: the face that counts, the pips the camera sees, where, and its look."""

    face: int
    pips: int
    x: float
    y: float
    size: float
    angle: float
    colour: str
    pip_colour: str
    player: str | None = None


@dataclass(frozen=True)
class RenderOptions:
    """How the frame looks: size, background, lamp and sensor.

    ``exposure`` scales the light (below 1: a dark frame; above 1: overexposed);
    ``motion_blur`` is the length in pixels of a horizontal smear (the table bumped);
    ``translucent`` lets the background show through the dice; ``view`` ``below`` renders
    the face on the glass mirrored, ``above`` the face that counts as seen from above;
    ``ace`` is how the dice show one pip: ``pip``, or a symbol of ``ACE_SYMBOLS`` (a
    Perudo set's paco).
    """

    width: int = 1280
    height: int = 960
    die_size: float = 48.0
    background: str = "dark"
    glare: bool = True
    exposure: float = 1.0
    noise: float = 3.0
    blur: float = 0.7
    motion_blur: float = 0.0
    translucent: bool = False
    view: str = "below"
    ace: str = "pip"

    def __post_init__(self) -> None:
        if not (64 <= self.width <= 8192 and 64 <= self.height <= 8192):
            raise ValueError(f"frame {self.width}x{self.height}: must be 64..8192 px a side")
        if not 8 <= self.die_size <= min(self.width, self.height) / 3:
            raise ValueError(f"die_size {self.die_size}: must be 8 px .. a third of the frame")
        if self.background not in BACKGROUNDS:
            raise ValueError(f"background {self.background!r}: one of {', '.join(BACKGROUNDS)}")
        if self.ace not in ACES:
            raise ValueError(f"ace {self.ace!r}: one of {', '.join(ACES)}")
        if self.view not in ("above", "below"):
            raise ValueError(f"view {self.view!r}: must be 'above' or 'below'")
        if self.exposure <= 0 or self.noise < 0 or self.blur < 0 or self.motion_blur < 0:
            raise ValueError("exposure must be above 0; noise, blur, motion_blur not negative")


def draw_frame(
    dice: Sequence[PlacedDie], opts: RenderOptions, rng: np.random.Generator
) -> np.ndarray:
    """The frame: background, dice, glare, light level, blur and noise (uint8 BGR)."""
    w, h = opts.width, opts.height
    image = _background(opts, rng)
    for die in dice:
        _draw_die(image, die, opts.view == "below", opts.translucent, opts.ace, rng)
    # Saturating uint8 arithmetic throughout: it is the sensor's own clipping, and fast.
    if opts.glare:
        image = cv2.add(image, _glare(w, h, rng))
    if opts.exposure != 1.0:
        image = cv2.convertScaleAbs(image, alpha=opts.exposure)
    if opts.motion_blur >= 1:
        length = int(round(opts.motion_blur))
        kernel = np.full((1, length), 1.0 / length, np.float32)
        image = cv2.filter2D(image, -1, kernel)
    if opts.blur > 0:
        image = cv2.GaussianBlur(image, (0, 0), opts.blur)
    if opts.noise > 0:
        # Uniform noise of the same spread as Gaussian sensor noise, much cheaper to draw:
        # add 0..2s then take s away, both saturating.
        spread = max(1, int(round(opts.noise * math.sqrt(3))))
        noise = rng.integers(0, 2 * spread + 1, image.shape, dtype=np.uint8)
        image = cv2.subtract(cv2.add(image, noise), np.full_like(image, spread))
    return image


def _background(opts: RenderOptions, rng: np.random.Generator) -> np.ndarray:
    """The room above the glass, out of focus: a level with a soft gradient and vignetting."""
    w, h = opts.width, opts.height
    level = BACKGROUNDS[opts.background] * float(rng.uniform(0.9, 1.1))
    gx, gy = rng.uniform(-0.15, 0.15, 2)
    ys, xs = np.mgrid[0:17, 0:17].astype(np.float32) / 16 - 0.5
    small = level * (1 + gx * xs + gy * ys) * (1 - 0.35 * (xs**2 + ys**2))
    tint = np.array(rng.uniform(0.94, 1.06, 3), np.float32)
    coloured = np.clip(small[:, :, None] * tint[None, None, :], 0, 255).astype(np.uint8)
    return cv2.resize(coloured, (w, h), interpolation=cv2.INTER_LINEAR)


def _glare(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """The lamp's reflection on the glass: one or two soft bright blobs (uint8 BGR)."""
    small = np.zeros((h // 8, w // 8), np.float32)
    for _ in range(int(rng.integers(1, 3))):
        centre = (int(rng.uniform(0, w // 8)), int(rng.uniform(0, h // 8)))
        axes = (int(rng.uniform(4, 14)), int(rng.uniform(3, 10)))
        cv2.ellipse(small, centre, axes, float(rng.uniform(0, 180)), 0, 360, (1.0,), -1)
    small = cv2.GaussianBlur(small, (0, 0), 3.0) * float(rng.uniform(60, 140))
    grey = cv2.resize(small.astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.merge([grey, grey, grey])


def rounded_square(
    side: float, angle: float, cx: float, cy: float, corner: float = 0.16
) -> np.ndarray:
    """Polygon of a square with rounded corners (``corner``: their radius over the side),
    rotated by ``angle`` degrees, in 1/16 pixel fixed point."""
    half, radius = side / 2, side * corner
    points = []
    for corner_x, corner_y, start in ((1, 1, 0), (-1, 1, 90), (-1, -1, 180), (1, -1, 270)):
        ox, oy = corner_x * (half - radius), corner_y * (half - radius)
        for step in range(5):
            a = math.radians(start + step * 22.5)
            points.append((ox + radius * math.cos(a), oy + radius * math.sin(a)))
    turn = math.radians(angle)
    cos_t, sin_t = math.cos(turn), math.sin(turn)
    return np.array(
        [
            [(cx + px * cos_t - py * sin_t) * 16, (cy + px * sin_t + py * cos_t) * 16]
            for px, py in points
        ],
        np.int32,
    )


def _draw_die(
    frame: np.ndarray,
    die: PlacedDie,
    mirrored: bool,
    translucent: bool,
    ace: str,
    rng: np.random.Generator,
) -> None:
    """Blend one die into the frame (uint8 BGR) on a small patch around it."""
    pad = int(die.size * 0.8) + 2
    x0, y0 = int(die.x) - pad, int(die.y) - pad
    x1, y1 = int(die.x) + pad, int(die.y) + pad
    fx0, fy0 = max(x0, 0), max(y0, 0)
    fx1, fy1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
    if fx0 >= fx1 or fy0 >= fy1:
        return
    cx, cy = die.x - x0, die.y - y0
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [rounded_square(die.size, die.angle, cx, cy)], (255,), cv2.LINE_AA, 4)
    # The face pressed on the glass is evenly lit; its rounded edges curve away and darken.
    inside = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 3)
    shade = np.clip(0.5 + inside / (die.size * 0.14) * 0.5, 0.5, 1.0)
    body = np.array(DIE_COLOURS[die.colour], np.float32) * float(rng.uniform(0.9, 1.08))
    die_bgr = shade[:, :, None] * body[None, None, :]
    pip_mask = np.zeros_like(mask)
    radius = die.size * float(rng.uniform(0.085, 0.1))
    turn = math.radians(die.angle)
    cos_t, sin_t = math.cos(turn), math.sin(turn)

    def on_face(px: float, py: float) -> tuple[int, int]:
        px = -px if mirrored else px
        return int((cx + px * cos_t - py * sin_t) * 16), int((cy + px * sin_t + py * cos_t) * 16)

    if die.pips == 1 and ace != "pip":
        outline = [on_face(px * die.size, py * die.size) for px, py in ACE_SYMBOLS[ace]]
        if ace == "roundel":
            cv2.circle(pip_mask, on_face(0, 0), int(die.size * 0.34 * 16), (255,), -1,
                       cv2.LINE_AA, 4)
        cv2.fillPoly(pip_mask, [np.array(outline, np.int32)], (0 if ace == "roundel" else 255,),
                     cv2.LINE_AA, 4)
    else:
        for px, py in PIP_LAYOUT[die.pips]:
            centre = on_face(px * die.size * 0.27, py * die.size * 0.27)
            cv2.circle(pip_mask, centre, int(radius * 16), (255,), -1, cv2.LINE_AA, 4)
    pip_alpha = (pip_mask.astype(np.float32) / 255)[:, :, None]
    pip_bgr = np.array(PIP_COLOURS[die.pip_colour], np.float32)
    die_bgr = die_bgr * (1 - pip_alpha) + pip_bgr[None, None, :] * pip_alpha
    alpha = mask.astype(np.float32)[:, :, None] / 255
    region = frame[fy0:fy1, fx0:fx1].astype(np.float32)
    sub = (slice(fy0 - y0, fy1 - y0), slice(fx0 - x0, fx1 - x0))
    die_part, die_alpha = die_bgr[sub], alpha[sub]
    if translucent:
        # Light from the room passes through the body, tinted by it; the pips stay opaque.
        pips_here = pip_alpha[sub]
        through = region * (body / 255)[None, None, :]
        die_part = die_part * (0.6 + 0.4 * pips_here) + through * 0.4 * (1 - pips_here)
    blended = region * (1 - die_alpha) + die_part * die_alpha
    frame[fy0:fy1, fx0:fx1] = np.clip(blended, 0, 255).astype(np.uint8)
