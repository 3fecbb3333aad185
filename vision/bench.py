"""Time the reader on one core: ``python -m vision.bench [--data DIR] [--repeat N]``.

Prints the median milliseconds per 640x640 dev photograph and per 2028x1520 simulated
frame of 30 dice (a Raspberry Pi HQ/v3 camera's half-resolution still), with each stage's
median, after one warm-up read. The frames are read twice: with no die size given (the
reader looks for it, as for any photograph) and with the die size ``dudo calibrate`` writes
for the table (one pass of the locator, as at the table). Then the frames' reveal pictures
are drawn, as the table draws one when the first phone asks for it: the dice numbered, and
with six seat zones and their players' names. OpenCV is held to one thread.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from vision.config import RUNTIMES, ReaderConfig
from vision.nets import locator_file, runtime_of
from vision.reading import Reading

if TYPE_CHECKING:
    from vision.simulate import Scene

DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "dice-top-dev"


def _medians(readings: list[Reading]) -> str:
    # A stage some reads take and others not (``squared``: a squashed photograph read
    # again) costs the others nothing.
    stages = list(dict.fromkeys(k for r in readings for k in r.ms if k != "total"))
    parts = [f"{k} {statistics.median(r.ms.get(k, 0.0) for r in readings):.1f}" for k in stages]
    return ", ".join(parts)


def bench_photographs(
    folder: Path, repeat: int, config: ReaderConfig | None = None
) -> list[Reading]:
    """Read every photograph of the folder ``repeat`` times (view above)."""
    from vision.reader import load_image, read_dice
    from vision.reading import is_photograph

    names = sorted(p for p in (folder / "images").glob("*") if is_photograph(p))
    images = [load_image(p) for p in names]
    if not images:
        raise ValueError(f"{folder}: no photographs in {folder / 'images'}")
    read_dice(images[0], config, view="above")
    return [read_dice(image, config, view="above") for _ in range(repeat) for image in images]


_FRAME_DIE_PX = 64.0


def large_frames(count: int) -> list[Scene]:
    """The bench's first ``count`` simulated 2028x1520 frames of 30 dice, always the same."""
    from vision.simulate import render_dice

    rng = np.random.default_rng(2028)
    return [
        render_dice(
            [int(f) for f in rng.integers(1, 7, 30)],
            colours=[str(c) for c in rng.choice(["white", "red", "blue", "green", "black"], 30)],
            seed=seed,
            touching_pairs=4,
            width=2028,
            height=1520,
            die_size=_FRAME_DIE_PX,
        )
        for seed in range(count)
    ]


def bench_large_frames(
    scenes: list[Scene], config: ReaderConfig | None = None
) -> tuple[list[Reading], int]:
    """Read the simulated 2028x1520 frames of 30 dice; also how many were exact."""
    from vision.reader import read_dice

    read_dice(scenes[0].image, config, view="below")
    readings = [read_dice(s.image, config, view="below") for s in scenes]
    exact = sum(r.counts == s.counts for r, s in zip(readings, scenes, strict=True))
    return readings, exact


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.bench", description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="dev set folder")
    parser.add_argument("--repeat", type=int, default=1, help="reads of each photograph")
    parser.add_argument(
        "--frames", type=int, default=20, help="simulated 2028x1520 frames (0: none)"
    )
    parser.add_argument(
        "--runtime", choices=RUNTIMES, default="auto",
        help="what runs the nets (auto: ONNX Runtime where installed, else OpenCV's dnn)",
    )
    parser.add_argument(
        "--float-locator", action="store_true",
        help="ONNX Runtime runs the float locator, not its 8-bit copy ([vision] eight_bit_locator)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.frames < 0:
        parser.error("--repeat must be at least 1 and --frames at least 0")
    import cv2

    cv2.setNumThreads(1)
    config = ReaderConfig(runtime=args.runtime, eight_bit_locator=not args.float_locator)
    try:
        runtime = _runtime_named(runtime_of(args.runtime))
        if locator_file(config) != locator_file(replace(config, eight_bit_locator=False)):
            runtime += ", the locator in 8 bits"
        photos = bench_photographs(args.data, args.repeat, config)
    except (OSError, ValueError) as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    ms = [r.ms["total"] for r in photos]
    print(
        f"640x640 dev photographs: {len(ms)} reads, median {statistics.median(ms):.1f} ms"
        f" (p90 {np.percentile(ms, 90):.1f}, max {max(ms):.1f}); stages: {_medians(photos)};"
        f" nets run by {runtime}"
    )
    if args.frames == 0:
        return 0
    scenes = large_frames(args.frames)
    calibrated = replace(config, die_size=_FRAME_DIE_PX)
    for frame_config, how in ((config, ""), (calibrated, ", die size calibrated")):
        frames, exact = bench_large_frames(scenes, frame_config)
        ms = [r.ms["total"] for r in frames]
        print(
            f"2028x1520 frames of 30 dice{how}: {len(ms)} reads,"
            f" median {statistics.median(ms):.1f} ms (p90 {np.percentile(ms, 90):.1f},"
            f" max {max(ms):.1f}); stages: {_medians(frames)};"
            f" counts exact in {exact}/{len(frames)}"
        )
    plain, named = bench_pictures(scenes, frames)  # as read at the table, the die size calibrated
    print(
        f"their reveal pictures drawn: median {statistics.median(plain):.1f} ms, with six seat"
        f" zones and their players' names {statistics.median(named):.1f} ms"
    )
    return 0


_NAMES = dict(enumerate(("Ana", "Ben", "Caro", "Dan", "Eve", "Finn"), start=1))


def bench_pictures(scenes: list[Scene], readings: list[Reading]) -> tuple[list[float], list[float]]:
    """Milliseconds to draw each frame's reveal picture (as the table does when the first
    phone asks for it): numbered dice alone, and with six seat zones and names."""
    from vision.annotate import annotate
    from vision.calibration import sector_zones

    zones = sector_zones(6, 2028, 1520)
    plain: list[float] = []
    named: list[float] = []
    for scene, reading in zip(scenes, readings, strict=True):
        for kept, seats, names in ((plain, None, None), (named, zones, _NAMES)):
            start = time.perf_counter()
            annotate(scene.image, reading, numbered=True, seats=seats, names=names)
            kept.append((time.perf_counter() - start) * 1000)
    return plain, named


def _runtime_named(runtime: str) -> str:
    """The runtime and its version, as the bench prints it."""
    if runtime == "onnxruntime":
        from vision.nets import onnx_runtime

        return f"ONNX Runtime {onnx_runtime().__version__}"
    import cv2

    return f"OpenCV {cv2.__version__}'s dnn"


if __name__ == "__main__":
    sys.exit(main())
