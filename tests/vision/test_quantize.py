"""The locator's 8-bit copy, made again as the README's retraining makes it."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.nets import LOCATOR_FILE, MODELS_DIR, eight_bit_copy, normalise
from vision.reader import load_image
from vision.training.data import load_photos
from vision.training.quantize import main, quantize_locator

from .conftest import DEV


def _maps(model: Path, image: np.ndarray) -> np.ndarray:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"image": normalise(image)[None]})[0])


def test_the_shipped_8_bit_copy_is_the_one_the_dev_photographs_make(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    locator = tmp_path / LOCATOR_FILE
    shutil.copy(MODELS_DIR / LOCATOR_FILE, locator)
    copy = quantize_locator(locator, load_photos(DEV))
    assert copy == eight_bit_copy(locator)
    photo = load_image(sorted((DEV / "images").glob("*.jpg"))[7])
    made, shipped = _maps(copy, photo), _maps(eight_bit_copy(MODELS_DIR / LOCATOR_FILE), photo)
    assert np.abs(made - shipped).max() < 1e-4
    # An 8-bit copy, not the float net: close to it, not the same.
    floats = _maps(locator, photo)
    assert 1e-3 < np.abs(made - floats).max() < 1.0


def test_quantizing_with_no_photographs_is_refused_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("onnx")
    empty = tmp_path / "empty"
    (empty / "images").mkdir(parents=True)
    (empty / "labels").mkdir()
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(MODELS_DIR / LOCATOR_FILE, models / LOCATOR_FILE)
    assert main(["--data", str(empty), "--models", str(models)]) == 2
    assert "no photographs to measure the 8-bit copy's ranges on" in capsys.readouterr().err
    assert not eight_bit_copy(models / LOCATOR_FILE).exists()
