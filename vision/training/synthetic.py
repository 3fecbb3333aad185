"""Synthetic dice drawn into the dev set's own photographs: more dice than 1063 to learn from.

The dev set shows some forty dice of one maker's sets. Other tables bring other dice:
other body colours, pip sizes and spacings, sharper or rounder corners, marbled or
translucent bodies (the pips beneath showing faintly through), engraved or printed pips.
Each synthetic die draws all of these at random, anti-aliased, into a real photograph (its
table, light and neighbours), before the same photometric augmentation as the real dice.
No other photographs are used.
"""

from __future__ import annotations

import colorsys
import math

import cv2
import numpy as np

from vision.render import PIP_LAYOUT, rounded_square

# Drawn this many times finer, then shrunk by area: anti-aliased edges and pips.
_SUPERSAMPLE = 2
# Perudo sets print the ace as a symbol (a paco: a star, a bird, a head) instead of one pip.
_SYMBOL_ACE_SHARE = 0.7


def _colour(rng: np.random.Generator, value: tuple[float, float]) -> np.ndarray:
    """A random BGR colour (0..255) of a brightness in ``value``, often strongly coloured."""
    hue = rng.uniform(0, 1)
    saturation = rng.uniform(0, 0.25) if rng.random() < 0.35 else rng.uniform(0.45, 1.0)
    r, g, b = colorsys.hsv_to_rgb(hue, saturation, rng.uniform(*value))
    return np.array([b, g, r], np.float32) * 255


def _body_and_pips(rng: np.random.Generator, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Body and pip colours: light body with dark pips or dark with light, now and then a
    colour on a colour of little contrast (dark red pips on black, gold on yellow), or a
    body of the table's own colour (``table``, BGR), seen only by its pips and edges (a
    black die on dark glass, a white die on a white table)."""
    if rng.random() < 0.1:
        body = np.clip(table * rng.uniform(0.6, 1.1) + rng.normal(0, 6, 3), 0, 255)
        value = (0.0, 0.4) if float(body.mean()) > 110 else (0.65, 1.0)
        return body.astype(np.float32), _colour(rng, value)
    if rng.random() < 0.5:
        body, pips = _colour(rng, (0.55, 1.0)), _colour(rng, (0.0, 0.45))
    else:
        body, pips = _colour(rng, (0.0, 0.5)), _colour(rng, (0.6, 1.0))
    if rng.random() < 0.12:
        contrast = rng.uniform(0.4, 0.7) if rng.random() < 0.5 else rng.uniform(1.4, 2.0)
        pips = np.clip(body * contrast + rng.normal(0, 20, 3), 0, 255)
    return body.astype(np.float32), pips.astype(np.float32)


def side_in_box(box: float, angle: float) -> float:
    """The side of a die turned by ``angle`` degrees whose labelled box measures ``box``.

    The dev set's boxes are upright around turned dice, and the locator learned their size
    (the root of the box's area): a die turned 45 degrees has a side of box / 1.41.
    """
    turn = math.radians(angle)
    return box / (abs(math.cos(turn)) + abs(math.sin(turn)))


def draw_die(
    image: np.ndarray,
    cx: float,
    cy: float,
    box: float,
    pips: int,
    rng: np.random.Generator,
    angle: float | None = None,
) -> None:
    """Draw a random-looking die showing ``pips`` into a float32 image, centred at (cx, cy),
    turned by ``angle`` degrees (at random if None), its upright box ``box`` pixels across
    as the labels measure dice."""
    if angle is None:
        angle = float(rng.uniform(0, 360))
    side = side_in_box(box, angle)
    h, w = image.shape[:2]
    half = int(side * 0.8) + 2
    x0, y0 = int(cx) - half, int(cy) - half
    x1, y1 = x0 + 2 * half + 1, y0 + 2 * half + 1
    fx0, fy0, fx1, fy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if fx0 >= fx1 or fy0 >= fy1:
        return
    k = _SUPERSAMPLE
    size = (2 * half + 1) * k
    lx, ly, big = (cx - x0 + 0.5) * k - 0.5, (cy - y0 + 0.5) * k - 0.5, side * k
    mask = np.zeros((size, size), np.uint8)
    outline = rounded_square(big, angle, lx, ly, corner=rng.uniform(0.06, 0.24))
    cv2.fillPoly(mask, [outline], (255,), cv2.LINE_8, 4)
    table = image[fy0:fy1, fx0:fx1].reshape(-1, image.shape[2]).mean(axis=0)
    body, pip_colour = _body_and_pips(rng, table)
    # Edges that curve away from the camera: darker (or, lit from the side, lighter).
    inside = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    bevel = big * rng.uniform(0.04, 0.16)
    edge = rng.uniform(0.35, 1.25)
    shade = edge + (1.0 - edge) * np.clip(inside / bevel, 0.0, 1.0)
    colour = shade[:, :, None] * body[None, None, :]
    if rng.random() < 0.2:
        # Marbled: a second colour swirled through the body at low frequency.
        swirl = cv2.resize(
            rng.random((5, 5)).astype(np.float32), (size, size), interpolation=cv2.INTER_CUBIC
        )
        swirl = np.clip((swirl - 0.5) * rng.uniform(2, 5) + 0.5, 0, 1)[:, :, None]
        colour = colour * (1 - swirl) + (shade[:, :, None] * _colour(rng, (0.2, 1.0))) * swirl
    pip_mask = np.zeros((size, size), np.uint8)
    spacing = big * rng.uniform(0.22, 0.31)
    radius = big * rng.uniform(0.065, 0.115)
    turn = math.radians(angle)
    c, s = math.cos(turn), math.sin(turn)
    symbol_ace = pips == 1 and rng.random() < _SYMBOL_ACE_SHARE
    if symbol_ace:
        ace_symbol(pip_mask, lx, ly, big, rng)
    for px, py in () if symbol_ace else PIP_LAYOUT[pips]:
        ox = px * spacing + rng.normal(0, 0.012 * big)
        oy = py * spacing + rng.normal(0, 0.012 * big)
        centre = (int((lx + ox * c - oy * s) * 16), int((ly + ox * s + oy * c) * 16))
        cv2.circle(pip_mask, centre, int(radius * 16), (255,), -1, cv2.LINE_8, 4)
    pip_alpha = pip_mask.astype(np.float32)[:, :, None] / 255
    if rng.random() < 0.4:
        # Engraved pips: a dark rim where the hollow's wall is in shadow.
        rim = cv2.dilate(pip_mask, np.ones((3, 3), np.uint8), iterations=max(1, k // 2))
        rim_alpha = (rim.astype(np.float32)[:, :, None] / 255) * (1 - pip_alpha)
        colour = colour * (1 - 0.5 * rim_alpha)
    translucent = rng.random() < 0.25
    if translucent and rng.random() < 0.7:
        # The pips of the face beneath (7 minus these, mirrored) show faintly through the
        # body, a little off where the camera's slant puts them: pips not to be counted.
        ghost = np.zeros((size, size), np.uint8)
        shift = rng.normal(0, 0.08 * big, 2)
        for px, py in PIP_LAYOUT[7 - pips]:
            gx, gy = -px * spacing + shift[0], py * spacing + shift[1]
            centre = (int((lx + gx * c - gy * s) * 16), int((ly + gx * s + gy * c) * 16))
            cv2.circle(ghost, centre, int(radius * 1.1 * 16), (255,), -1, cv2.LINE_8, 4)
        blur = max(1.0, 0.04 * big)
        faint = np.asarray(cv2.GaussianBlur(ghost.astype(np.float32) / 255, (0, 0), blur))
        ghost_alpha = faint[:, :, None] * rng.uniform(0.15, 0.45) * (1 - pip_alpha)
        colour = colour * (1 - ghost_alpha) + pip_colour[None, None, :] * ghost_alpha
    colour = colour * (1 - pip_alpha) + pip_colour[None, None, :] * pip_alpha
    alpha = mask.astype(np.float32)[:, :, None] / 255
    if translucent:
        # Translucent body: the table shows through it, the pips do not.
        opacity = rng.uniform(0.45, 0.8)
        alpha = alpha * (opacity + (1 - opacity) * pip_alpha)
    out = (2 * half + 1, 2 * half + 1)
    small = np.asarray(cv2.resize(colour, out, interpolation=cv2.INTER_AREA), np.float32)
    cover = np.asarray(cv2.resize(alpha, out, interpolation=cv2.INTER_AREA), np.float32)[:, :, None]
    sub = (slice(fy0 - y0, fy1 - y0), slice(fx0 - x0, fx1 - x0))
    region = image[fy0:fy1, fx0:fx1]
    region[:] = region * (1 - cover[sub]) + small[sub] * cover[sub]


def ace_symbol(
    mask: np.ndarray, cx: float, cy: float, side: float, rng: np.random.Generator
) -> None:
    """Draw a random ace symbol (255) into ``mask``, centred near (cx, cy) on a face ``side``
    pixels across: a star, a silhouette (a bird, a head: blobs of irregular outline), a
    roundel with a figure cut out of it, or a figure drawn in outline. Never a round pip."""
    kind = int(rng.integers(4))
    middle = np.array([cx, cy]) + rng.normal(0, 0.02 * side, 2)
    figures = [_figure(middle, side, rng)]
    if kind == 1:
        # A head with its feathers, a bird with its wings: a few smaller parts joined on.
        for _ in range(int(rng.integers(0, 3))):
            a = rng.uniform(0, 2 * math.pi)
            offset = side * rng.uniform(0.1, 0.22) * np.array([math.cos(a), math.sin(a)])
            part = _figure(middle + offset, side * rng.uniform(0.4, 0.7), rng)
            figures.append(part)
    points = [np.round(f * 16).astype(np.int32) for f in figures]
    if kind == 2:
        ring = side * rng.uniform(0.3, 0.42)
        cv2.circle(mask, (int(middle[0] * 16), int(middle[1] * 16)), int(ring * 16), (255,), -1,
                   cv2.LINE_8, 4)
        reach = float(np.hypot(*(figures[0] - middle).T).max())
        shrunk = (figures[0] - middle) * min(1.0, 0.75 * ring / reach) + middle
        cv2.fillPoly(mask, [np.round(shrunk * 16).astype(np.int32)], (0,), cv2.LINE_8, 4)
    elif kind == 3:
        width = max(1, int(side * rng.uniform(0.03, 0.07)))
        cv2.polylines(mask, points, True, (255,), width, cv2.LINE_8, 4)
    else:
        cv2.fillPoly(mask, points, (255,), cv2.LINE_8, 4)


def _figure(middle: np.ndarray, side: float, rng: np.random.Generator) -> np.ndarray:
    """The outline of a star or of a blob of irregular outline around ``middle``, squashed
    along one axis now and then and turned any way: its corners as (x, y) rows."""
    if rng.random() < 0.35:
        n = int(rng.integers(4, 13))
        radii = np.tile([1.0, rng.uniform(0.3, 0.8)], n) * side * rng.uniform(0.22, 0.42)
    else:
        angles = np.linspace(0, 2 * math.pi, 48, endpoint=False)
        wobble = sum(
            rng.uniform(0, 0.5) / math.sqrt(k) * np.cos(k * angles + rng.uniform(0, 2 * math.pi))
            for k in range(1, 8)
        )
        radii = side * rng.uniform(0.16, 0.32) * np.clip(1 + wobble, 0.2, 1.8)
    angles = np.linspace(0, 2 * math.pi, len(radii), endpoint=False)
    local = np.stack([radii * np.cos(angles), radii * np.sin(angles) * rng.uniform(0.5, 1.0)])
    turn = rng.uniform(0, 2 * math.pi)
    c, s = math.cos(turn), math.sin(turn)
    return np.asarray((np.array([[c, -s], [s, c]]) @ local).T + middle)


def shadow(image: np.ndarray, cx: float, cy: float, side: float, rng: np.random.Generator) -> None:
    """A soft shadow beside where a die will stand (photographs from above have them)."""
    h, w = image.shape[:2]
    dx, dy = rng.normal(0, 0.12 * side, 2)
    disc = np.zeros((h, w), np.float32)
    cv2.circle(disc, (int(cx + dx), int(cy + dy)), int(0.6 * side), (1.0,), -1, cv2.LINE_AA)
    layer = np.asarray(cv2.GaussianBlur(disc, (0, 0), 0.15 * side + 0.5), np.float32)
    image *= (1 - rng.uniform(0.2, 0.5) * layer)[:, :, None]


def shine(image: np.ndarray, cx: float, cy: float, box: float, rng: np.random.Generator) -> None:
    """One or two highlights where a lamp shines off a glossy die's face (or off the glass
    over it), into a float32 image: a thin streak or a small spot, of the light's colour,
    anywhere on the face. A lit streak is not a pip, nor does it hide one from the label:
    it is never quite opaque."""
    h, w = image.shape[:2]
    layer = np.zeros((h, w), np.float32)
    for _ in range(int(rng.integers(1, 3))):
        x, y = np.array([cx, cy]) + rng.uniform(-0.35, 0.35, 2) * box
        if rng.random() < 0.6:
            axes = (box * rng.uniform(0.12, 0.4), box * rng.uniform(0.02, 0.06))
        else:
            axes = (box * rng.uniform(0.03, 0.06),) * 2  # smaller than a pip
        cv2.ellipse(layer, ((float(x), float(y)), (2 * axes[0], 2 * axes[1]),
                            float(rng.uniform(0, 180))), (1.0,), -1, cv2.LINE_AA)
    layer = np.asarray(cv2.GaussianBlur(layer, (0, 0), max(0.5, 0.02 * box)), np.float32)
    alpha = (rng.uniform(0.35, 0.85) * layer)[:, :, None]
    light = 255.0 - rng.uniform(0, 25, 3).astype(np.float32)
    image[:] = image * (1 - alpha) + light * alpha
