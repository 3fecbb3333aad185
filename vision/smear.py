"""Stage 3b: how much a frame is smeared one way (the camera or the table moved as it was taken)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.locate import Candidate

# Each die is looked at as the face reader sees it, at this size: a smear matters by its
# length against the die's size, not in pixels.
_DIE_PX = 32


def smear(image: np.ndarray, dice: list[Candidate]) -> float:
    """How one-sided the edges of the dice are, 0 (alike every way) to 1 (all one way).

    A die's square outline and round pips have edges every way, however it lies, so the
    dice of a sharp frame, summed, are near 0 (0.35 at most on the dev photographs), and an
    out-of-focus frame, blurred every way alike, stays low too; a straight smear (motion
    blur) wipes out the edges across its own direction. Measured by the structure tensor
    of each die, scaled to ``_DIE_PX``, summed over the dice: one minus the ratio of its
    eigenvalues.
    """
    if not dice:
        return 0.0
    h, w = image.shape[:2]
    patches = []
    for c in dice:
        r = max(1, int(0.5 * c.size))
        x0, x1 = max(0, int(c.x) - r), min(w, int(c.x) + r)
        y0, y1 = max(0, int(c.y) - r), min(h, int(c.y) + r)
        if x1 - x0 >= 3 and y1 - y0 >= 3:
            patches.append(cv2.resize(image[y0:y1, x0:x1], (_DIE_PX, _DIE_PX),
                                      interpolation=cv2.INTER_AREA))
    if not patches:
        return 0.0
    # The patches side by side: one pass of each filter; the seams between them left out.
    strip = cv2.cvtColor(np.hstack(patches), cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(strip, cv2.CV_32F, 1, 0, ksize=3)[1:-1].reshape(_DIE_PX - 2, -1, _DIE_PX)
    gy = cv2.Sobel(strip, cv2.CV_32F, 0, 1, ksize=3)[1:-1].reshape(_DIE_PX - 2, -1, _DIE_PX)
    gx, gy = gx[:, :, 1:-1], gy[:, :, 1:-1]
    xx, yy, xy = float((gx * gx).sum()), float((gy * gy).sum()), float((gx * gy).sum())
    half_trace = (xx + yy) / 2.0
    spread = float(np.sqrt(max(half_trace**2 - (xx * yy - xy * xy), 0.0)))
    return 0.0 if half_trace <= 0 else 1.0 - (half_trace - spread) / (half_trace + spread)
