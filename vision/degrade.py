"""Photographs made harder on purpose, as other cameras and tables give them.

``python -m vision.evaluate DIR --degrade NAME`` scores the reader on a labelled folder with
every photograph changed so: a stand-in for the cameras and tables the dev set lacks. Each
change keeps the dice where they are, or scales the whole photograph (labels are relative to
its size), so the labels still hold.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np


def _scaled(factor: float) -> Callable[[np.ndarray], np.ndarray]:
    def scale(image: np.ndarray) -> np.ndarray:
        smaller = cv2.INTER_AREA if factor < 1 else cv2.INTER_CUBIC
        return np.asarray(cv2.resize(image, None, fx=factor, fy=factor, interpolation=smaller))

    return scale


def _gain(factor: float) -> Callable[[np.ndarray], np.ndarray]:
    def gain(image: np.ndarray) -> np.ndarray:
        return np.clip(image.astype(np.float32) * factor, 0, 255).astype(np.uint8)

    return gain


def _grey(image: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR))


def _blur(image: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.GaussianBlur(image, (0, 0), 1.5))


def _jpeg(image: np.ndarray) -> np.ndarray:
    _, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 25])
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR))


def _noise(image: np.ndarray) -> np.ndarray:
    # Seeded by the photograph itself: the same photograph is always degraded alike.
    rng = np.random.default_rng(int(image[::17, ::17].sum()))
    noisy = image.astype(np.float32) + rng.normal(0.0, 12.0, image.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def _swapped(image: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(image[:, :, ::-1])


# name: (what it stands for, the change)
DEGRADATIONS: dict[str, tuple[str, Callable[[np.ndarray], np.ndarray]]] = {
    "small": ("dice 0.6 times as large (a camera further away)", _scaled(0.6)),
    "large": ("dice 2.5 times as large (a closer or sharper camera)", _scaled(2.5)),
    "dark": ("half the light", _gain(0.5)),
    "bright": ("overexposed: 1.6 times the light, clipped", _gain(1.6)),
    "grey": ("no colour (a monochrome or infrared camera)", _grey),
    "blur": ("out of focus (Gaussian blur, sigma 1.5 px)", _blur),
    "jpeg": ("JPEG at quality 25", _jpeg),
    "noise": ("sensor noise (sigma 12 of 255)", _noise),
    "swapped": ("red and blue swapped (other colours of dice and table)", _swapped),
}


def degrade(image: np.ndarray, name: str) -> np.ndarray:
    """The photograph changed as ``name`` says; ValueError names the known changes."""
    if name not in DEGRADATIONS:
        raise ValueError(f"degradation {name!r}: must be one of {', '.join(DEGRADATIONS)}")
    return DEGRADATIONS[name][1](image)
