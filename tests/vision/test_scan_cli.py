"""`dudo scan`: what a player sees on the terminal, in JSON, and in the annotated pictures."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import cv2
import pytest

from companion.cli import main
from vision.simulate import Scene, render_dice

DEV_SET = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "dice-top-dev"
# A fixed slice of the dev photographs: a crowded tray, a few dice, a single die.
DEV_SLICE = ["IMG_20191208_111228.jpg", "IMG_20191208_112300.jpg", "IMG_20191208_112659.jpg"]


def write(tmp_path: Path, name: str, scene: Scene) -> Path:
    path = tmp_path / name
    cv2.imwrite(str(path), scene.image)
    return path


def scan(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(["scan", *argv])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


@pytest.fixture
def table(tmp_path: Path) -> tuple[Path, Scene]:
    scene = render_dice(
        [1, 1, 2, 3, 5, 6, 6, 4],
        colours=["red", "red", "blue", "white", "green", "black", "yellow", "white"],
        seed=21,
        touching_pairs=1,
        width=960,
        height=720,
    )
    return write(tmp_path, "table.png", scene), scene


def test_json_gives_one_object_per_image_exactly_as_the_contract_says(
    table: tuple[Path, Scene], capsys: pytest.CaptureFixture[str]
) -> None:
    path, scene = table
    code, lines, err = scan(capsys, str(path), "--json")
    assert (code, err) == (0, "")
    (line,) = lines
    result = json.loads(line)
    assert set(result) == {"image", "view", "total", "counts", "dice", "ms"}
    assert result["image"] == str(path)
    assert result["view"] == "below"
    assert result["total"] == len(scene.dice)
    assert result["counts"] == {str(face): n for face, n in scene.counts.items()}
    for die in result["dice"]:
        assert set(die) == {"face", "pips", "x", "y", "size", "confidence", "colour"}
        assert die["face"] == 7 - die["pips"]
    assert isinstance(result["ms"], float)


def test_from_above_the_face_is_the_pips_seen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = render_dice([2, 4, 4, 6], seed=8, view="above", width=800, height=600)
    code, lines, _ = scan(
        capsys, str(write(tmp_path, "top.png", scene)), "--view", "above", "--json"
    )
    result = json.loads(lines[0])
    assert code == 0
    assert result["view"] == "above"
    assert result["counts"] == {"1": 0, "2": 1, "3": 0, "4": 2, "5": 0, "6": 1}
    assert all(d["face"] == d["pips"] for d in result["dice"])


def test_the_text_line_gives_the_total_and_each_face_s_count(
    table: tuple[Path, Scene], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = table
    code, lines, _ = scan(capsys, str(path))
    assert code == 0
    assert lines[0].startswith(f"{path}: 8 dice  1:2 2:1 3:1 4:1 5:1 6:2  (")


def test_an_empty_table_is_zero_dice_not_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "empty.png", render_dice([], seed=4))
    code, lines, err = scan(capsys, str(path), "--json")
    assert (code, err) == (0, "")
    assert json.loads(lines[0])["total"] == 0


def test_an_unreadable_file_is_a_clear_message_and_the_other_images_are_still_read(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = table
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 64)
    missing = tmp_path / "missing.jpg"
    code, lines, err = scan(capsys, str(corrupt), str(path), str(missing), "--json")
    assert code == 1
    assert [json.loads(line)["image"] for line in lines] == [str(path)]
    messages = err.splitlines()
    assert len(messages) == 2
    assert messages[0].startswith(f"dudo scan: {corrupt}: ")
    assert messages[1] == f"dudo scan: {missing}: no such file"
    assert "Traceback" not in err


def test_annotate_writes_each_picture_with_its_dice_outlined(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = table
    out_dir = tmp_path / "marked"
    code, _, _ = scan(capsys, str(path), "--annotate", str(out_dir))
    marked = cv2.imread(str(out_dir / "table.png"))
    original = cv2.imread(str(path))
    assert code == 0
    assert marked is not None and marked.shape == original.shape
    assert (cv2.absdiff(marked, original).max(axis=2) > 60).mean() > 0.002


def test_a_bad_config_stops_before_reading_anything(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "dudo.toml"
    config.write_text("[vision]\ndie_size = 'big'\n")
    code, lines, err = scan(capsys, str(table[0]), "--config", str(config))
    assert code == 2
    assert lines == []
    assert "die_size = 'big': must be a number" in err


@pytest.mark.skipif(
    not DEV_SET.is_dir(), reason="the shared dev photographs are not beside the repo"
)
@pytest.mark.parametrize("view", ["above", "below"])
def test_dev_photographs_are_counted_as_labelled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], view: str
) -> None:
    with (DEV_SET / "counts.csv").open() as f:
        labelled = {row["image"]: row for row in csv.DictReader(f)}
    paths = []
    for name in DEV_SLICE:
        image = cv2.imread(str(DEV_SET / "images" / name))
        if view == "below":  # the camera under the glass sees the photograph mirrored
            image = cv2.flip(image, 1)
        paths.append(tmp_path / name.replace(".jpg", ".png"))  # lossless: no second JPEG pass
        cv2.imwrite(str(paths[-1]), image)
    code, lines, _ = scan(capsys, *map(str, paths), "--view", view, "--json")
    assert code == 0
    for line, name in zip(lines, DEV_SLICE, strict=True):
        result = json.loads(line)
        row = labelled[name]
        # Below the glass the face that counts is 7 minus the face seen from above.
        truth = {str(f if view == "above" else 7 - f): int(row[f"n_{f}"]) for f in range(1, 7)}
        assert result["total"] == int(row["n_dice"])
        assert result["counts"] == truth
