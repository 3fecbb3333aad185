"""`dudo scan`: what a player sees on the terminal, in JSON, and in the annotated pictures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import pytest

from companion.cli import main
from vision.reader import load_image, read_dice
from vision.simulate import Scene, render_dice

DEV_SET = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "dice-top-dev"
DEV_PHOTO = "IMG_20191208_111228.jpg"  # a crowded tray of 22 dice


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


def without_time(result: dict) -> dict:
    return {key: value for key, value in result.items() if key != "ms"}


def test_json_gives_one_object_per_image_exactly_as_the_contract_says(
    table: tuple[Path, Scene], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = table
    code, lines, err = scan(capsys, str(path), "--json")
    assert (code, err) == (0, "")
    (line,) = lines
    result = json.loads(line)
    assert list(result) == ["image", "view", "total", "counts", "dice", "ms"]
    assert result["image"] == str(path)
    assert result["view"] == "below"
    assert list(result["counts"]) == ["1", "2", "3", "4", "5", "6"]
    assert sum(result["counts"].values()) == result["total"] == len(result["dice"])
    for die in result["dice"]:
        assert list(die) == ["face", "pips", "x", "y", "size", "confidence", "colour"]
        assert die["face"] == 7 - die["pips"]
    assert isinstance(result["ms"], float) and result["ms"] > 0
    # What is printed is exactly what the reader read.
    direct = read_dice(load_image(path), view="below").to_json(str(path))
    assert without_time(result) == without_time(direct)


def test_seen_from_above_each_face_is_the_pips_and_from_below_seven_minus_them(
    table: tuple[Path, Scene], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = table
    _, below, _ = scan(capsys, str(path), "--json")
    code, above, _ = scan(capsys, str(path), "--json", "--view", "above")
    from_below, from_above = json.loads(below[0]), json.loads(above[0])
    assert code == 0
    assert from_above["view"] == "above"
    assert all(d["face"] == d["pips"] for d in from_above["dice"])
    assert [d["pips"] for d in from_above["dice"]] == [d["pips"] for d in from_below["dice"]]
    assert {f: from_above["counts"][f] for f in "123456"} == {
        f: from_below["counts"][str(7 - int(f))] for f in "123456"
    }


def test_the_text_line_gives_the_total_and_each_face_s_count(
    table: tuple[Path, Scene], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = table
    _, json_lines, _ = scan(capsys, str(path), "--json")
    code, lines, _ = scan(capsys, str(path))
    result = json.loads(json_lines[0])
    counts = " ".join(f"{face}:{n}" for face, n in result["counts"].items())
    noun = "die" if result["total"] == 1 else "dice"
    assert code == 0
    assert re.fullmatch(
        rf"{re.escape(str(path))}: {result['total']} {noun}  {counts}  \(\d+\.\d ms\).*",
        lines[0],
    )


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


def test_annotate_never_writes_over_a_photograph_or_another_annotated_copy(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = table
    other = tmp_path / "second" / "table.png"
    other.parent.mkdir()
    other.write_bytes(path.read_bytes())
    photograph = path.read_bytes()
    # Into the photographs' own folder, two images of one name from two folders.
    code, _, _ = scan(capsys, str(path), str(other), "--annotate", str(tmp_path))
    assert code == 0
    assert path.read_bytes() == photograph
    assert other.read_bytes() == photograph
    first, second = tmp_path / "table-annotated.png", tmp_path / "table-annotated-2.png"
    for marked in (first, second):
        image = cv2.imread(str(marked))
        assert image is not None
        assert (cv2.absdiff(image, cv2.imread(str(path))).max(axis=2) > 60).mean() > 0.002


def test_a_bad_config_stops_before_reading_anything(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "dudo.toml"
    config.write_text("[vision]\ndie_size = 'big'\n")
    code, lines, err = scan(capsys, str(table[0]), "--config", str(config))
    assert code == 2
    assert lines == []
    assert "die_size = 'big': must be a number" in err


def test_a_real_photograph_is_read_and_annotated_in_both_views(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = DEV_SET / "images" / DEV_PHOTO
    assert photo.is_file(), f"the shared dev photographs are missing at {DEV_SET}"
    out_dir = tmp_path / "marked"
    for view in ("above", "below"):
        code, lines, err = scan(
            capsys, str(photo), "--view", view, "--json", "--annotate", str(out_dir)
        )
        result = json.loads(lines[0])
        assert (code, err) == (0, "")
        assert result["total"] > 0
        assert all(
            d["face"] == (d["pips"] if view == "above" else 7 - d["pips"]) for d in result["dice"]
        )
        marked = cv2.imread(str(out_dir / DEV_PHOTO))
        assert marked is not None and marked.shape == (640, 640, 3)
