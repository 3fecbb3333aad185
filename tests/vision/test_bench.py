"""The reader's benchmark prints its figures: photographs, big frames as found and as at the
table, and their reveal pictures drawn (its speed targets are checked by running it, not by
timed tests)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.vision.conftest import DEV
from vision.bench import main


def test_the_bench_prints_each_median_and_how_many_frames_it_read_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "images").mkdir()
    for path in sorted((DEV / "images").glob("*.jpg"))[:2]:
        shutil.copy(path, tmp_path / "images" / path.name)
    assert main(["--data", str(tmp_path), "--frames", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [re.sub(r"[\d.]+", "N", line.split(":")[0]) for line in lines] == [
        "NxN dev photographs",
        "NxN frames of N dice",
        "NxN frames of N dice, die size calibrated",
        "their reveal pictures drawn",
    ]
    assert lines[0].startswith("640x640 dev photographs: 2 reads, median ")
    assert re.search(
        r"; nets run by (ONNX Runtime [\d.]+, the locator in 8 bits|OpenCV [\d.]+'s dnn)$", lines[0]
    )
    assert re.fullmatch(r"their reveal pictures drawn: median [\d.]+ ms, with six seat zones and"
                        r" their players' names [\d.]+ ms", lines[3])
    for line in lines[1:3]:
        assert re.search(r": 2 reads, median [\d.]+ ms .*stages: bars [\d.]+, locate [\d.]+,"
                         r" faces [\d.]+, .*light [\d.]+", line)
        # How many of the two frames were read exactly (how well: test_reader_sim's 20 frames).
        assert re.search(r"; counts exact in [012]/2$", line)


def test_a_folder_without_photographs_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--data", str(tmp_path), "--frames", "1"]) == 2
    assert "no photographs in" in capsys.readouterr().err


def test_frames_0_times_the_photographs_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "images").mkdir()
    shutil.copy(sorted((DEV / "images").glob("*.jpg"))[0], tmp_path / "images")
    assert main(["--data", str(tmp_path), "--frames", "0"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith("640x640 dev photographs: 1 reads, median ")


def test_photographs_in_any_format_the_evaluation_reads_are_timed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cv2

    (tmp_path / "images").mkdir()
    first, second = sorted((DEV / "images").glob("*.jpg"))[:2]
    cv2.imwrite(str(tmp_path / "images" / (first.stem + ".png")), cv2.imread(str(first)))
    shutil.copy(second, tmp_path / "images" / (second.stem + ".JPEG"))
    assert main(["--data", str(tmp_path), "--frames", "0"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith("640x640 dev photographs: 2 reads, median ")


def test_the_runtime_asked_for_runs_the_nets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "images").mkdir()
    shutil.copy(sorted((DEV / "images").glob("*.jpg"))[0], tmp_path / "images")
    assert main(["--data", str(tmp_path), "--frames", "0", "--runtime", "opencv"]) == 0
    assert re.search(r"; nets run by OpenCV [\d.]+'s dnn$", capsys.readouterr().out)


def test_the_float_locator_can_be_timed_against_its_8_bit_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("onnxruntime")
    (tmp_path / "images").mkdir()
    shutil.copy(sorted((DEV / "images").glob("*.jpg"))[0], tmp_path / "images")
    runtime = ["--data", str(tmp_path), "--frames", "0", "--runtime", "onnxruntime"]
    assert main(runtime) == 0
    assert re.search(r"; nets run by ONNX Runtime [\d.]+, the locator in 8 bits$",
                     capsys.readouterr().out)
    assert main([*runtime, "--float-locator"]) == 0
    assert re.search(r"; nets run by ONNX Runtime [\d.]+$", capsys.readouterr().out)


@pytest.mark.parametrize("args", [["--frames", "-1"], ["--repeat", "0"]])
def test_counts_that_time_nothing_are_refused(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as refused:
        main(args)
    assert refused.value.code == 2
    assert "--repeat must be at least 1 and --frames at least 0" in capsys.readouterr().err


def test_a_stage_only_some_photographs_take_is_timed_for_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A 16:9 photograph stretched to a square is read square again (``squared``); the one
    # after it is not. Timed by the first photograph's stages alone, the second had none.
    import cv2

    (tmp_path / "images").mkdir()
    first, second = sorted((DEV / "images").glob("*.jpg"))[:2]
    cv2.imwrite(str(tmp_path / "images" / "a.png"),
                cv2.resize(cv2.imread(str(first)), (360, 640), interpolation=cv2.INTER_AREA))
    shutil.copy(second, tmp_path / "images" / "b.jpg")
    assert main(["--data", str(tmp_path), "--frames", "0"]) == 0
    assert re.search(r"stages: .*squared [\d.]+", capsys.readouterr().out)
