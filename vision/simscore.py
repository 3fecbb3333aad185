"""Score the reader on simulated frames under the glass: ``python -m vision.simscore``.

The scenes are those of ``tests/vision/test_reader_sim.py`` over more seeds: mixed reveals,
touching pairs, large frames of 30 dice, the ``--sim`` table of three players, black
dice on the dark glass, Perudo sets whose ace is a symbol and sets whose ace is one big
pip; and the few dice left at the end of a game. Prints, per kind, the dice read right
and the frames read exactly. ``--calibrated``: each frame is read with ``[vision] die_size``
given, as at the table, at the dice's side: the least ``dudo calibrate`` measures of them (it
measures their upright boxes, up to 1.41 times the side of a die lying turned).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from vision.config import ReaderConfig, load_config
from vision.evaluate import LabelledDie, score_image
from vision.reader import read_dice
from vision.simulate import PACOS, Scene, SimulatedCamera, render_dice

COLOURS = ["white", "black", "red", "green", "blue", "yellow", "purple", "orange"]
_TROUBLES: list[dict[str, object]] = [
    {},
    {"background": "light"},
    {"background": "grey"},
    {"exposure": 0.4},
    {"motion_blur": 5.0},
    {"translucent": True},
]


def mixed() -> Iterator[Scene]:
    """24 reveals of 12 dice: every colour, dice 36-70 px, glass, light, blur, touching."""
    for seed in range(24):
        rng = np.random.default_rng(seed)
        faces = [int(f) for f in rng.integers(1, 7, 12)]
        colours = [COLOURS[(i + seed) % len(COLOURS)] for i in range(12)]
        yield render_dice(faces, colours=colours, seed=seed, touching_pairs=3, width=960,
                          height=720, die_size=float(rng.uniform(36, 70)),
                          **_TROUBLES[seed % len(_TROUBLES)])  # type: ignore[arg-type]


def touching() -> Iterator[Scene]:
    """10 reveals of 8 touching pairs, red and white."""
    for seed in range(1, 11):
        faces = [int(f) for f in np.random.default_rng(seed).integers(1, 7, 16)]
        yield render_dice(faces, colours=["red"] * 8 + ["white"] * 8, seed=seed, touching_pairs=8)


def large() -> Iterator[Scene]:
    """20 frames of 2028x1520 with 30 dice 64 px across, 5 touching pairs."""
    for seed in range(1000, 1020):
        faces = [int(f) for f in np.random.default_rng(seed).integers(1, 7, 30)]
        colours = [COLOURS[i % len(COLOURS)] for i in range(30)]
        yield render_dice(faces, colours=colours, seed=seed, touching_pairs=5, width=2028,
                          height=1520, die_size=64)


def sim_table() -> Iterator[Scene]:
    """20 reveals of the ``dudo serve --sim`` camera: three players of five dice."""
    for seed in range(20):
        camera = SimulatedCamera(seed=seed)
        rng = np.random.default_rng(seed)
        camera.set_dice({p: [int(f) for f in rng.integers(1, 7, 5)] for p in ("ana", "ben", "cy")})
        camera.capture()
        assert camera.last_scene is not None
        yield camera.last_scene


def black() -> Iterator[Scene]:
    """8 reveals of 12 black dice on the dark glass."""
    for seed in range(8):
        yield render_dice([1, 2, 3, 4, 5, 6] * 2, colours="black", seed=seed, width=960,
                          height=720, die_size=48)


def paco() -> Iterator[Scene]:
    """20 reveals of 12 dice of Perudo sets, the ace a paco (each of PACOS in turn): every
    six on top shows it to the camera."""
    return _aces(PACOS)


def big_pip() -> Iterator[Scene]:
    """20 reveals of 12 dice of sets whose ace is one big pip, more than half the side across."""
    return _aces(("big pip",))


def few() -> Iterator[Scene]:
    """48 reveals at the end of a game: one or two dice, every colour, 24-200 px across (2-16%
    of the frame's side), on the dark, light and grey glass, dark, blurred and translucent."""
    for seed in range(48):
        rng = np.random.default_rng(seed)
        count = 1 + seed % 2
        faces = [int(f) for f in rng.integers(1, 7, count)]
        colours = [COLOURS[(i + seed) % len(COLOURS)] for i in range(count)]
        yield render_dice(faces, colours=colours, seed=seed,
                          die_size=float(np.exp(rng.uniform(np.log(24), np.log(200)))),
                          **_TROUBLES[seed // 2 % len(_TROUBLES)])  # type: ignore[arg-type]


def _aces(symbols: Sequence[str]) -> Iterator[Scene]:
    for seed in range(20):
        rng = np.random.default_rng(seed)
        faces = [int(f) for f in rng.integers(1, 7, 12)]
        colours = [COLOURS[(i + seed) % len(COLOURS)] for i in range(12)]
        yield render_dice(faces, colours=colours, seed=seed, touching_pairs=2, width=960,
                          height=720, die_size=float(rng.uniform(40, 64)),
                          ace=symbols[seed % len(symbols)])


KINDS: dict[str, Callable[[], Iterator[Scene]]] = {
    "mixed": mixed,
    "touching": touching,
    "large": large,
    "sim-table": sim_table,
    "black": black,
    "paco": paco,
    "big-pip": big_pip,
    "few": few,
}


@dataclass
class Tally:
    """The reader's figures over one kind of scene: dice and frames right, and the errors."""

    right: int = 0
    dice: int = 0
    exact: int = 0
    frames: int = 0
    errors: list[str] = field(default_factory=list)


def tally(kind: str, config: ReaderConfig | None = None, calibrated: bool = False) -> Tally:
    """Read every scene of one kind from below and count what was read right;
    ``calibrated``: with the die size set to the side of the scene's dice."""
    out = Tally()
    config = config or ReaderConfig()
    for scene in KINDS[kind]():
        labels = [LabelledDie(d.face, d.x, d.y, d.size) for d in scene.dice]
        sides = [d.size for d in scene.dice]
        if calibrated and sides:
            seen_with = replace(config, die_size=float(np.median(sides)))
        else:
            seen_with = config
        result = score_image(kind, labels, read_dice(scene.image, seen_with, view="below"))
        out.right, out.dice = out.right + result.right, out.dice + result.dice
        out.exact, out.frames = out.exact + result.exact, out.frames + 1
        out.errors += result.errors
    return out


def score(kind: str, config: ReaderConfig, calibrated: bool = False) -> str:
    """One line: the dice read right and the frames read exactly, for one kind of scene."""
    t = tally(kind, config, calibrated)
    return (
        f"{kind}: dice right {t.right}/{t.dice} = {t.right / t.dice:.1%}, "
        f"frames exact {t.exact}/{t.frames}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.simscore", description=__doc__)
    parser.add_argument("--config", help="TOML config ([vision] model_path, detector_path)")
    parser.add_argument("--calibrated", action="store_true",
                        help="give the die size, at the dice's side")
    parser.add_argument("kinds", nargs="*", help=f"any of {', '.join(KINDS)} (default: all)")
    args = parser.parse_args(argv)
    unknown = [k for k in args.kinds if k not in KINDS]
    if unknown:
        parser.error(f"unknown kind {unknown[0]!r}: choose from {', '.join(KINDS)}")
    config = load_config(args.config)
    for kind in args.kinds or KINDS:
        print(score(kind, config, args.calibrated), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
