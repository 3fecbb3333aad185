"""The reader's memory over an evening of reveals: ``python -m vision.memory [--reads 1000]``.

Reads ``--reads`` simulated reveals of a table's 2 to 40 dice (the camera under the glass,
its default frame), always the same ones, and prints the process's resident memory at the
start and after each tenth of them, then how much it grew over the last nine tenths: a
reader that keeps what it took for one reveal and then takes more for the next (as ONNX
Runtime's own arena did) shows here, where ``python -m companion.evening``'s 60 games are too
few reveals to show it. Linux only (it reads ``/proc/self/status``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vision.config import RUNTIMES, ReaderConfig

_COLOURS = ("white", "red", "blue", "green", "black", "yellow")


def resident_mb(key: str = "VmRSS") -> float:
    """The process's resident memory (``VmHWM``: its peak), MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    raise OSError(f"no {key} in /proc/self/status")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.memory", description=__doc__)
    parser.add_argument("--reads", type=int, default=1000, help="reveals to read (1000)")
    parser.add_argument(
        "--runtime", choices=RUNTIMES, default="auto",
        help="what runs the nets (auto: ONNX Runtime where installed, else OpenCV's dnn)",
    )
    args = parser.parse_args(argv)
    if args.reads < 10:
        parser.error(f"--reads {args.reads}: at least 10")
    import cv2

    from vision.reader import read_dice
    from vision.simulate import render_dice

    cv2.setNumThreads(1)
    config = ReaderConfig(runtime=args.runtime)
    rng = np.random.default_rng(1000)
    step = args.reads // 10
    print(f"start: {resident_mb():.0f} MB resident", flush=True)
    after_first_tenth = 0.0
    for n in range(1, args.reads + 1):
        count = int(rng.integers(2, 41))
        scene = render_dice(
            [int(f) for f in rng.integers(1, 7, count)],
            colours=[str(c) for c in rng.choice(_COLOURS, count)],
            seed=n, touching_pairs=int(rng.integers(0, 3)),
        )
        read_dice(scene.image, config, view="below")
        if n % step == 0 or n == args.reads:
            mb = resident_mb()
            after_first_tenth = after_first_tenth or mb
            print(f"{n} read{'' if n == 1 else 's'}: {mb:.0f} MB resident", flush=True)
    print(f"grown since the first tenth: {resident_mb() - after_first_tenth:+.0f} MB"
          f" (peak {resident_mb('VmHWM'):.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
