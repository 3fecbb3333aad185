"""The committed cross-validation models, scored on the photographs each one never saw."""

from __future__ import annotations

import csv
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from vision.nets import FACE_FILE, LOCATOR_FILE, SECOND_FILE, eight_bit_copy
from vision.training.data import deal_folds
from vision.training.heldout import FOLDS_DIR, HELD_OUT_FILE, fold_dirs, main

from .conftest import DEV


def test_the_committed_folds_hold_out_every_dev_photograph_once_as_training_dealt_them() -> None:
    names = sorted(p.name for p in (DEV / "images").glob("*.jpg"))
    folds = fold_dirs(FOLDS_DIR)
    dealt = deal_folds(len(names), len(folds), split_seed=7)
    for fold, held in zip(folds, dealt, strict=True):
        assert (fold / HELD_OUT_FILE).read_text().split() == [names[int(i)] for i in held]


def small_folds(tmp_path: Path, per_fold: int = 2) -> Path:
    """Two folds of the committed models, each holding out its first ``per_fold`` photographs."""
    folds = tmp_path / "folds"
    for fold in fold_dirs(FOLDS_DIR)[:2]:
        copy = folds / fold.name
        copy.mkdir(parents=True)
        for name in (LOCATOR_FILE, eight_bit_copy(Path(LOCATOR_FILE)).name, FACE_FILE,
                     SECOND_FILE):
            shutil.copy(fold / name, copy / name)
        held = (fold / HELD_OUT_FILE).read_text().split()[:per_fold]
        (copy / HELD_OUT_FILE).write_text("\n".join(held) + "\n")
    return folds


def test_each_fold_reads_its_own_photographs_and_the_scores_are_summed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folds = small_folds(tmp_path)
    out = tmp_path / "held-out.csv"
    assert main([str(DEV), "--folds", str(folds), "--view", "below", "--csv", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if "held out" in line] == [
        f"{name} held out (view below)" for name in ("fold-1", "fold-2", "all")
    ]
    labelled = [int(line.split("labelled dice: ")[1]) for line in lines if "labelled dice" in line]
    assert labelled[2] == labelled[0] + labelled[1] > 0
    rows = list(csv.DictReader(out.open()))
    held = [(folds / f / HELD_OUT_FILE).read_text().split() for f in ("fold-1", "fold-2")]
    assert [r["image"] for r in rows] == sorted(held[0]) + sorted(held[1])  # fold by fold
    assert sum(int(r["dice"]) for r in rows) == labelled[2]
    assert sum(int(r["right"]) for r in rows) >= 0.9 * labelled[2]


def test_the_folds_read_as_a_calibrated_table_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folds = small_folds(tmp_path, per_fold=1)
    assert main([str(DEV), "--folds", str(folds), "--view", "above", "--calibrated", "1.3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "all held out (view above, calibrated x1.3)" in lines
    right = [line for line in lines if "dice right" in line][-1]
    done, total = (int(n) for n in right.split("dice right: ")[1].split(" ")[0].split("/"))
    assert done >= 0.9 * total


@pytest.mark.parametrize("model", [FACE_FILE, SECOND_FILE])
def test_each_fold_uses_its_own_models(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str
) -> None:
    folds = small_folds(tmp_path)
    (folds / "fold-2" / model).write_bytes(b"not a model")
    assert main([str(DEV), "--folds", str(folds), "--view", "above"]) == 2
    assert "fold-2" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda folds: (folds / "fold-1" / LOCATOR_FILE).unlink(), "fold-1: no locator.onnx"),
        (lambda folds: (folds / "fold-2" / HELD_OUT_FILE).unlink(), "fold-2: no held-out.txt"),
        (
            lambda folds: (folds / "fold-2" / HELD_OUT_FILE).write_text("IMG_elsewhere.jpg\n"),
            "not in",
        ),
        (lambda folds: shutil.rmtree(folds), "no such folder of fold models"),
    ],
)
def test_missing_or_foreign_folds_are_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
    spoil: Callable[[Path], object], message: str,
) -> None:
    folds = small_folds(tmp_path, per_fold=1)
    spoil(folds)
    assert main([str(DEV), "--folds", str(folds)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("heldout: error: ") and message in err


def test_an_output_that_takes_nothing_or_is_closed_is_said_in_one_line_with_status_2(
    tmp_path: Path,
) -> None:
    # Before, a full disk gave "heldout: error: [Errno 28] No space left on device", and a
    # closed output ran the whole scoring and said nothing, with status 0.
    import os
    import subprocess
    import sys

    folds = small_folds(tmp_path, per_fold=1)
    command = [sys.executable, "-m", "vision.training.heldout", str(DEV), "--folds", str(folds),
               "--view", "above"]
    with open("/dev/full", "w") as full:
        run = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True,
                             timeout=300)
    assert (run.returncode, run.stderr) == (
        2, "heldout: error: cannot write the output: No space left on device\n")
    run = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         timeout=300, preexec_fn=lambda: os.close(1))
    assert (run.returncode, run.stderr) == (2, "heldout: error: the standard output is closed\n")


def test_a_csv_needs_one_view(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main([str(DEV), "--csv", str(tmp_path / "out.csv")])
    assert stop.value.code == 2
    assert "--csv needs --view" in capsys.readouterr().err


def test_a_folder_of_some_of_the_photographs_is_scored_on_those_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Close views (python -m vision.closer) leave out photographs with no window cutting no die.
    folds = small_folds(tmp_path)
    some = tmp_path / "some"
    (some / "images").mkdir(parents=True)
    (some / "labels").mkdir()
    kept = (folds / "fold-2" / HELD_OUT_FILE).read_text().split()[:1]
    for name in kept:
        shutil.copy(DEV / "images" / name, some / "images" / name)
        shutil.copy(DEV / "labels" / (name[:-4] + ".txt"), some / "labels")
    assert main([str(some), "--folds", str(folds), "--view", "above"]) == 2
    assert "2 photograph(s) not in" in capsys.readouterr().err
    assert main([str(some), "--folds", str(folds), "--view", "above", "--partial"]) == 0
    images = [line for line in capsys.readouterr().out.splitlines() if "images:" in line]
    assert [line.split(",")[0].strip() for line in images] == [
        "images: 0", "images: 1", "images: 1"
    ]
    (some / "images" / kept[0]).unlink()
    assert main([str(some), "--folds", str(folds), "--view", "above", "--partial"]) == 2
    assert "none of the folds' photographs" in capsys.readouterr().err
