"""The locator's 8-bit copy: the same net, its weights and activations in 8 bits, which ONNX
Runtime runs in less than half the float net's time.

    python -m vision.training.quantize --data ../shared/datasets/dice-top-dev

writes ``locator-int8.onnx`` beside the shipped locator, its activations' ranges measured on
every photograph, and beside each kept fold's locator (``vision/training/folds/fold-K``),
measured on the photographs that fold trained on; ``python -m vision.training.train`` writes
it beside every locator it trains. Needs onnx (with ONNX Runtime): development only.

The weights take all 8 bits. On x86 processors without VNNI (AVX2 or SSE only) ONNX Runtime
multiplies 8-bit numbers in pairs whose sums can overflow: there the copy's maps differ a
little from this machine's, which has VNNI (the Pi's ARM kernels widen the products first:
not run here); 7-bit weights (``reduce_range``) would read alike everywhere, but lost two of
the bench's 20 big frames (docs/dice-reader-log.md). The first and last layers stay in
floats. The first looks at the photograph itself, whose range no set of photographs bounds
(8 bits set by the dev photographs clipped the bright dice of the simulator's dark glass,
and touching pairs were read as one die); the last gives the dice's sizes and places.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vision.nets import LOCATOR_FILE, MODELS_DIR, eight_bit_copy, locator_digest, normalise
from vision.training.data import Photo, load_photos
from vision.training.heldout import FOLDS_DIR, HELD_OUT_FILE, fold_dirs

logger = logging.getLogger(__name__)

# The side the photographs are shrunk to for measuring: the locator's first look at a 640 px
# photograph (dice about 16 px across, as it learned them).
_LOOK_PX = 320

# The copy's metadata entry that names its float net's digest.
MADE_FROM_KEY = "made_from_sha256"


def quantize_locator(locator: Path, photos: Sequence[Photo]) -> Path:
    """Write the 8-bit copy of ``locator`` beside it, the ranges of its activations measured
    on ``photos``; the copy's path."""
    import cv2

    from vision.nets import onnx_runtime

    onnx_runtime()  # its telemetry off before any part of it loads
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    if not photos:
        raise ValueError(f"{locator}: no photographs to measure the 8-bit copy's ranges on")

    def looks() -> Iterator[dict[str, np.ndarray]]:
        for photo in photos:
            h, w = photo.image.shape[:2]
            scale = _LOOK_PX / max(h, w)
            size = (max(1, round(w * scale)), max(1, round(h * scale)))
            shrunk = cv2.resize(photo.image, size, interpolation=cv2.INTER_AREA)
            yield {"image": normalise(shrunk)[None]}

    class Looks(CalibrationDataReader):
        def __init__(self) -> None:
            self.looks = looks()

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.looks, None)

    copy = eight_bit_copy(locator)
    quantize_static(
        str(locator), str(copy), Looks(),
        quant_format=QuantFormat.QDQ, per_channel=True,
        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
        nodes_to_exclude=_first_and_last_layers(locator),
    )
    name_its_net(copy, locator)
    return copy


def name_its_net(copy: Path, locator: Path) -> None:
    """Write into ``copy`` the digest of the float net it was made from: the reader runs a
    copy only beside that net (``vision.nets.locator_file``)."""
    import onnx

    model: Any = onnx.load(str(copy))
    kept = [e for e in model.metadata_props if e.key != MADE_FROM_KEY]  # a copy named before
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    entry = model.metadata_props.add()
    entry.key, entry.value = MADE_FROM_KEY, locator_digest(locator)
    onnx.save(model, str(copy))


def _first_and_last_layers(locator: Path) -> list[str]:
    import onnx

    model: Any = onnx.load(str(locator))
    layers = [node.name for node in model.graph.node if node.op_type == "Conv"]
    return [layers[0], layers[-1]]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.training.quantize",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--data", type=Path, required=True, help="the dev set folder")
    parser.add_argument("--models", type=Path, default=MODELS_DIR,
                        help="the folder of the locator trained on every photograph")
    parser.add_argument("--folds", type=Path, default=FOLDS_DIR, help="the fold-K folders")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        photos = load_photos(args.data)
        jobs = [(args.models, photos)]
        for fold in fold_dirs(args.folds):
            held = set((fold / HELD_OUT_FILE).read_text("utf-8").split())
            jobs.append((fold, [p for p in photos if p.name not in held]))
        for folder, trained_on in jobs:
            copy = quantize_locator(folder / LOCATOR_FILE, trained_on)
            logger.info("wrote %s (ranges from %d photographs)", copy, len(trained_on))
    except ImportError as err:
        print(f"quantize: error: needs {err.name or 'onnx'} (pip install onnx onnxruntime)",
              file=sys.stderr)
        return 2
    except (ValueError, OSError) as err:
        print(f"quantize: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
