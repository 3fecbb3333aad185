"""The locator's 8-bit copy, made again as the README's retraining makes it."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.config import ReaderConfig
from vision.nets import (
    FACE_FILE,
    LOCATOR_FILE,
    MODELS_DIR,
    SECOND_FILE,
    eight_bit_copy,
    locator_file,
    normalise,
)
from vision.reader import load_image
from vision.training.heldout import FOLDS_DIR, HELD_OUT_FILE
from vision.training.quantize import main

from .conftest import DEV


def _maps(model: Path, image: np.ndarray) -> np.ndarray:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"image": normalise(image)[None]})[0])


def _float_locators(tmp_path: Path) -> list[str]:
    """The command's arguments for copies of the shipped locator and fold 1's, floats only."""
    models, fold = tmp_path / "models", tmp_path / "folds" / "fold-1"
    models.mkdir()
    fold.mkdir(parents=True)
    shutil.copy(MODELS_DIR / LOCATOR_FILE, models / LOCATOR_FILE)
    for name in (LOCATOR_FILE, FACE_FILE, SECOND_FILE, HELD_OUT_FILE):
        shutil.copy(FOLDS_DIR / "fold-1" / name, fold / name)
    return ["--data", str(DEV), "--models", str(models), "--folds", str(fold.parent)]


def test_quantizing_again_makes_the_shipped_and_the_folds_copies(tmp_path: Path) -> None:
    # The shipped locator's copy from every photograph, a fold's from the photographs that
    # fold trained on (not those it holds out): each as committed.
    pytest.importorskip("onnx")
    models, fold = tmp_path / "models", tmp_path / "folds" / "fold-1"
    assert main(_float_locators(tmp_path)) == 0
    photo = load_image(sorted((DEV / "images").glob("*.jpg"))[7])
    for made, committed in ((models, MODELS_DIR), (fold, FOLDS_DIR / "fold-1")):
        copy = eight_bit_copy(made / LOCATOR_FILE)
        maps = _maps(copy, photo)
        assert np.abs(maps - _maps(eight_bit_copy(committed / LOCATOR_FILE), photo)).max() < 1e-4
        # An 8-bit copy, not the float net: close to it, not the same.
        assert 1e-3 < np.abs(maps - _maps(made / LOCATOR_FILE, photo)).max() < 1.0
        # Run beside the net it was made from, and only there.
        assert locator_file(ReaderConfig(runtime="onnxruntime",
                                         detector_path=str(made / LOCATOR_FILE))) == copy


def test_quantizing_with_no_photographs_is_refused_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("onnx")
    empty = tmp_path / "empty"
    (empty / "images").mkdir(parents=True)
    (empty / "labels").mkdir()
    args = _float_locators(tmp_path)
    assert main([*args, "--data", str(empty)]) == 2
    assert "no photographs to measure the 8-bit copy's ranges on" in capsys.readouterr().err
    assert not list(tmp_path.rglob(eight_bit_copy(Path(LOCATOR_FILE)).name))


def test_quantizing_without_onnx_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)  # import fails, as if not installed
    assert main(_float_locators(tmp_path)) == 2
    assert "needs onnx (pip install onnx onnxruntime)" in capsys.readouterr().err
    assert not list(tmp_path.rglob(eight_bit_copy(Path(LOCATOR_FILE)).name))
