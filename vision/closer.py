"""Close views of a labelled folder: ``python -m vision.closer DIR SHARE OUT``.

A phone held over a few dice sees them far larger than the dev set's photographs do (there a
die is about 6% of the side). From each photograph of DIR this takes a square window around
one of its dice, cutting none, where the dice (their median size) are SHARE of the side,
enlarged to the photograph's side, and writes it with its labels to OUT, a folder of the same
format, under the photograph's own name: ``python -m vision.evaluate OUT`` scores the reader
on it, ``python -m vision.training.heldout OUT --partial`` the fold models on the windows of
the photographs each never saw. A photograph with no such window is left out.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from vision.evaluate import LabelledDie, load_labels
from vision.reading import is_photograph


def close_view(
    image: np.ndarray, labels: list[LabelledDie], share: float
) -> tuple[np.ndarray, list[LabelledDie]] | None:
    """A window of ``image`` where its dice are ``share`` of the side, enlarged to the
    image's larger side, and the labelled dice inside it; None where every window around a
    die would cut another die (or the dice are too small for such a window)."""
    import cv2

    h, w = image.shape[:2]
    if not labels:
        return None
    side = int(float(np.median([lab.size for lab in labels])) / share)
    if side > min(h, w) or side < 16:
        return None
    for middle in labels:
        x0 = int(np.clip(middle.x - side / 2, 0, w - side))
        y0 = int(np.clip(middle.y - side / 2, 0, h - side))
        if all(_inside(lab, x0, y0, side, 0.5) or not _inside(lab, x0, y0, side, -0.5)
               for lab in labels):
            break
    else:
        return None
    out = max(h, w)
    scale = out / side
    window = cv2.resize(image[y0 : y0 + side, x0 : x0 + side], (out, out),
                        interpolation=cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA)
    inside = [
        replace(lab, x=(lab.x - x0) * scale, y=(lab.y - y0) * scale, size=lab.size * scale)
        for lab in labels
        if _inside(lab, x0, y0, side, 0.5)
    ]
    return np.asarray(window), inside


def _inside(die: LabelledDie, x0: int, y0: int, side: int, margin: float) -> bool:
    """Whether the die's centre lies in the window, ``margin`` of its size in from the edge
    (out from it, when negative)."""
    m = margin * die.size
    return x0 + m <= die.x <= x0 + side - m and y0 + m <= die.y <= y0 + side - m


def write_close_views(folder: Path, share: float, out: Path) -> tuple[int, int]:
    """Write the close view of every photograph of ``folder`` to ``out``; (written, left out)."""
    import cv2

    from vision.reader import load_image

    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    written = left_out = 0
    for path in sorted((folder / "images").iterdir()):
        if not is_photograph(path):
            continue
        image = load_image(path)
        h, w = image.shape[:2]
        label_file = folder / "labels" / (path.stem + ".txt")
        labels = load_labels(label_file, w, h, "above") if label_file.is_file() else []
        view = close_view(image, labels, share)
        if view is None:
            left_out += 1
            continue
        window, inside = view
        side = window.shape[0]
        if not cv2.imwrite(str(out / "images" / path.name), window):
            raise OSError(f"{out / 'images' / path.name}: cannot be written")
        lines = [f"{lab.face - 1} {lab.x / side:.6f} {lab.y / side:.6f} "
                 f"{lab.size / side:.6f} {lab.size / side:.6f}\n" for lab in inside]
        (out / "labels" / (path.stem + ".txt")).write_text("".join(lines), "utf-8")
        written += 1
    return written, left_out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.closer",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("folder", type=Path, metavar="DIR", help="a labelled folder")
    parser.add_argument("share", type=float, metavar="SHARE",
                        help="the dice's size as a share of the window's side (0.05-0.5)")
    parser.add_argument("out", type=Path, metavar="OUT", help="the folder to write")
    args = parser.parse_args(argv)
    if not 0.05 <= args.share <= 0.5:
        parser.error(f"SHARE {args.share}: must be 0.05-0.5")
    if not (args.folder / "images").is_dir():
        parser.error(f"{args.folder}: no images/ folder")
    try:
        written, left_out = write_close_views(args.folder, args.share, args.out)
    except (ValueError, OSError) as err:
        print(f"closer: error: {err}", file=sys.stderr)
        return 2
    print(f"{written} close views written to {args.out}; {left_out} photographs left out "
          "(no window cutting no die)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
