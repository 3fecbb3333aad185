"""The evaluation command scores a labelled folder and names every error it finds."""

from __future__ import annotations

import csv
import re
import shutil
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.vision.conftest import DEV
from vision.config import ReaderConfig
from vision.evaluate import LabelledDie, load_labels, main, score_image
from vision.reading import Die, Reading


def die(face: int, x: int, y: int, confidence: float = 0.99) -> Die:
    return Die(face=face, pips=face, x=x, y=y, size=40, confidence=confidence, colour="red")


# What a label line of the wrong length is told.
EXPECTED = "expected 'class cx cy w h' (or a polygon 'class x1 y1 x2 y2 x3 y3 ...')"
LABELS = [LabelledDie(1, 100, 100, 40), LabelledDie(6, 200, 100, 40), LabelledDie(3, 300, 100, 40)]


@pytest.mark.parametrize(
    "dice, right, wrong, missed, extra, exact, confident_errors",
    [
        ([die(1, 102, 98), die(6, 199, 103), die(3, 300, 100)], 3, 0, 0, 0, True, 0),
        ([die(1, 102, 98), die(5, 199, 103), die(3, 300, 100)], 2, 1, 0, 0, False, 1),
        ([die(1, 102, 98), die(5, 199, 103, 0.4), die(3, 300, 100)], 2, 1, 0, 0, False, 0),
        ([die(1, 102, 98), die(6, 199, 103)], 2, 0, 1, 0, False, 1),
        ([die(1, 102, 98), die(6, 199, 103), die(3, 300, 100), die(2, 500, 500)], 3, 0, 0, 1,
         False, 1),
        # Two errors that cancel out in the counts: the image is exact, the dice are not.
        ([die(6, 102, 98), die(1, 199, 103), die(3, 300, 100)], 1, 2, 0, 0, True, 2),
        # A reading far from its die (more than half a die away) does not match it,
        # though the counts come out right.
        ([die(1, 125, 100), die(6, 199, 103), die(3, 300, 100)], 2, 0, 1, 1, True, 2),
    ],
    ids=["all right", "wrong face", "wrong but flagged", "missed", "extra", "swapped", "far"],
)
def test_each_kind_of_error_is_counted(
    dice: list[Die], right: int, wrong: int, missed: int, extra: int, exact: bool,
    confident_errors: int,
) -> None:
    reading = Reading(tuple(dice), "above", {"total": 5.0}, 640, 640)
    score = score_image("x.jpg", LABELS, reading)
    assert (score.right, score.wrong, score.missed, score.extra) == (right, wrong, missed, extra)
    assert score.exact == exact
    assert score.confident_errors == confident_errors
    assert len(score.errors) == wrong + missed + extra


def test_labels_seen_from_below_are_mirrored_and_seven_minus(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("0 0.25 0.5 0.1 0.1\n5 0.75 0.25 0.1 0.1\n")
    above = load_labels(path, 400, 200, "above")
    below = load_labels(path, 400, 200, "below")
    assert [(d.face, d.x, d.y) for d in above] == [(1, 100, 100), (6, 300, 50)]
    assert [(d.face, d.x, d.y) for d in below] == [(6, 300, 100), (1, 100, 50)]


@pytest.fixture
def small_folder(tmp_path: Path) -> Path:
    """Three dev photographs and their labels, in the dev set's layout (their contents only:
    the dev set's files may be read-only, and the tests change these)."""
    names = sorted(p.stem for p in (DEV / "images").glob("*.jpg"))[20:23]
    for sub, suffix in (("images", ".jpg"), ("labels", ".txt")):
        (tmp_path / sub).mkdir()
        for name in names:
            shutil.copyfile(DEV / sub / (name + suffix), tmp_path / sub / (name + suffix))
    return tmp_path


@pytest.mark.parametrize(
    "line, message",
    [
        ("7 0.5 0.5 0.1 0.1", "class 7 is not a die face (0..5)"),
        ("2.7 0.5 0.5 0.1 0.1", "class 2.7 is not a die face (0..5)"),
        ("-0.5 0.5 0.5 0.1 0.1", "class -0.5 is not a die face (0..5)"),
        ("1 0.5", f"{EXPECTED}, found 2 fields"),
        # A detector's output, its confidence after the box, is no label.
        ("1 0.5 0.5 0.1 0.1 0.93", f"{EXPECTED}, found 6 fields"),
        ("1 0.5 0.5 0.1 four", "expected 'class cx cy w h', numbers"),
        ("2 0.1 0.1 0.2 0.1 1.3 0.2", "x3 1.3 is outside the image (0..1)"),
        ("2 0.1 0.1 0.2 0.1 0.3 0.1", "the polygon encloses nothing (its points in one line)"),
        ("6 0.1 0.1 0.2 0.1 0.2 0.2", "class 6 is not a die face (0..5)"),
        ("2 nan 0.5 0.06 0.06", "cx nan is not a finite number"),
        ("2 0.5 0.5 inf 0.06", "w inf is not a finite number"),
        ("2 1.7 -0.4 0.06 0.06", "cx 1.7 is outside the image (0..1)"),
        ("2 0.5 -0.4 0.06 0.06", "cy -0.4 is outside the image (0..1)"),
        ("2 0.5 0.5 0 0.06", "w 0 is not a size within the image (above 0, at most 1)"),
        ("2 0.5 0.5 -0.06 0.06", "w -0.06 is not a size within the image"),
        ("2 0.5 0.5 0.06 0", "h 0 is not a size within the image"),
        ("2 0.5 0.5 5 5", "w 5 is not a size within the image"),
    ],
)
def test_a_bad_label_line_is_an_error_naming_the_file_and_line(
    small_folder: Path, line: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    label = sorted((small_folder / "labels").glob("*.txt"))[0]
    lines = label.read_text().splitlines()
    label.write_text("\n".join([lines[0], line, *lines[1:]]) + "\n")
    assert main([str(small_folder)]) == 2
    assert f"evaluate: error: {label}:2: {message}" in capsys.readouterr().err


def test_labels_at_the_edges_of_the_image_are_good(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("5.0 0 1 1 1\n0 1 0 0.001 0.001\n")
    assert [(d.face, d.x, d.y) for d in load_labels(path, 400, 200, "above")] == [
        (6, 0, 200), (1, 400, 0)
    ]


def test_a_label_file_that_is_not_utf8_is_named_with_its_line(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    label = sorted((small_folder / "labels").glob("*.txt"))[0]
    lines = len(label.read_text().splitlines())
    with label.open("ab") as f:
        f.write(b"# \xe9t\xe9\n")
    assert main([str(small_folder)]) == 2
    assert f"evaluate: error: {label}:{lines + 1}: not UTF-8 text" in capsys.readouterr().err


def test_a_counts_csv_that_is_not_utf8_is_named_with_its_line(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It was "expected columns image, n_dice, ...": the columns were there.
    counts = small_folder / "counts.csv"
    counts.write_bytes((DEV / "counts.csv").read_bytes() + b"caf\xe9.jpg,1,1,0,0,0,0,0\n")
    lines = len((DEV / "counts.csv").read_bytes().splitlines())
    assert main([str(small_folder)]) == 2
    assert capsys.readouterr().err == f"evaluate: error: {counts}:{lines + 1}: not UTF-8 text\n"


@pytest.mark.parametrize("which", ["label", "counts.csv"])
def test_a_label_file_or_counts_that_cannot_be_opened_is_named_with_the_reason(
    small_folder: Path, which: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As a user who may not read it (mode 000): it was "[Errno 13] Permission denied: '...'".
    shutil.copyfile(DEV / "counts.csv", small_folder / "counts.csv")
    label = sorted((small_folder / "labels").glob("*.txt"))[0]
    locked = label if which == "label" else small_folder / "counts.csv"
    opened = Path.open

    def refused(path: Path, *args: Any, **kwargs: Any) -> Any:
        if path == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return opened(path, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refused)
    assert main([str(small_folder)]) == 2
    assert capsys.readouterr().err == (
        f"evaluate: error: {locked}: cannot be read (Permission denied)\n")


@pytest.mark.parametrize("given, message", [
    ("no-such", "no such folder"),
    ("a-file", "not a folder: give the folder that holds images/ and labels/"),
])
def test_a_folder_that_is_not_there_or_a_file_is_said_so(
    tmp_path: Path, given: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Both were "no images/ folder in it".
    (tmp_path / "a-file").write_text("")
    assert main([str(tmp_path / given)]) == 2
    assert capsys.readouterr().err == f"evaluate: error: {tmp_path / given}: {message}\n"


@pytest.mark.parametrize(
    "where, message",
    [
        ("no/such/out.csv", "no such folder {tmp}/no/such"),
        ("a-file/out.csv", "{tmp}/a-file is not a folder"),
        ("a-folder", "is a folder"),
    ],
)
def test_a_csv_that_cannot_be_written_is_refused_before_the_run(
    small_folder: Path, tmp_path_factory: pytest.TempPathFactory, where: str, message: str,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    import vision.reader

    def unread(*args: object, **kwargs: object) -> None:
        raise AssertionError("the photographs were read before --csv was checked")

    monkeypatch.setattr(vision.reader, "read_dice", unread)
    tmp = tmp_path_factory.mktemp("out")
    (tmp / "a-file").write_text("")
    (tmp / "a-folder").mkdir()
    out = tmp / where
    assert main([str(small_folder), "--csv", str(out)]) == 2
    printed = capsys.readouterr()
    assert printed.err == f"evaluate: error: --csv {out}: {message.format(tmp=tmp)}\n"
    assert printed.out == ""


def test_a_csv_that_fails_as_it_is_written_is_a_clear_error(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(small_folder), "--csv", "/dev/full"]) == 2
    assert "evaluate: error: --csv /dev/full: No space left on device" in capsys.readouterr().err


def test_ctrl_c_stops_the_run_quietly_with_status_130(
    small_folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import vision.reader

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(vision.reader, "read_dice", interrupted)
    try:
        status = main([str(small_folder)])
    except KeyboardInterrupt:  # not let out: it would stop pytest itself
        pytest.fail("Ctrl-C ended the command with a traceback")
    assert status == 130
    assert capsys.readouterr() == ("", "")


def _bomb_png() -> bytes:
    """A PNG whose header declares 40000 x 30000 pixels, more than OpenCV will decode."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 40000, 30000, 1, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\0" * 10)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("name", ["tiny.png", "too-many-pixels.png"])
def test_a_photograph_that_cannot_be_read_is_named(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import cv2

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()  # empty tables
    path = tmp_path / "images" / name
    if name == "tiny.png":
        cv2.imwrite(str(path), np.zeros((10, 10, 3), np.uint8))
    else:
        path.write_bytes(_bomb_png())
    assert main([str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert err.startswith(f"evaluate: {name}: unreadable: ") and str(path) in err
    assert "images: 1, labelled dice: 0 (1 without a label file, taken as tables with no dice;" \
        " 1 that could not be read, every die of them counted as missed)" in out


@pytest.mark.parametrize("view", ["above", "below"])
def test_the_command_prints_the_scores_and_writes_one_row_per_image(
    small_folder: Path, view: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = small_folder / "scores.csv"
    assert main([str(small_folder), "--view", view, "--csv", str(out)]) == 0
    printed = capsys.readouterr().out
    for phrase in ("dice right:", "images exact", "aces read right:", "median ms per image:"):
        assert phrase in printed
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 3
    assert sum(int(r["right"]) for r in rows) >= 0.85 * sum(int(r["dice"]) for r in rows)
    assert set(rows[0]) >= {"image", "dice", "right", "wrong", "missed", "extra", "exact", "error"}


def test_a_folder_without_images_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "images").mkdir()
    assert main([str(tmp_path)]) == 2
    assert "no images" in capsys.readouterr().err


def test_the_images_folder_itself_given_for_the_folder_says_which_folder_to_give(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The likeliest slip: the images/ folder, or an empty one, in place of the set's folder.
    images = small_folder / "images"
    assert main([str(images)]) == 2
    assert capsys.readouterr().err == (f"evaluate: error: {images}: no images/ folder in it:"
                                       f" give {small_folder}, the folder that holds it\n")
    empty = small_folder / "empty"
    empty.mkdir()
    assert main([str(empty)]) == 2
    assert capsys.readouterr().err == (
        f"evaluate: error: {empty}: no images/ folder in it: give the folder that holds"
        " images/ and labels/ (the dev set's format)\n")
    # A Roboflow export: a set in each of train/, valid/ and test/.
    for part in ("valid", "test"):
        (empty / part / "images").mkdir(parents=True)
    assert main([str(empty)]) == 2
    assert capsys.readouterr().err == (
        f"evaluate: error: {empty}: no images/ folder in it: give one of the folders in it that"
        " hold one (test/, valid/)\n")


@pytest.mark.parametrize("inside", ["labels/{label}", "images/{image}", "counts.csv",
                                    "images/rows.csv"])
def test_the_rows_are_never_written_over_the_folder_s_own_photographs_or_labels(
    small_folder: Path, inside: str, capsys: pytest.CaptureFixture[str]
) -> None:
    image = sorted((small_folder / "images").iterdir())[0]
    out = small_folder / inside.format(label=image.stem + ".txt", image=image.name)
    before = {p: p.read_bytes() for p in small_folder.rglob("*") if p.is_file()}
    assert main([str(small_folder), "--csv", str(out)]) == 2
    assert "inside the folder being scored" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in small_folder.rglob("*") if p.is_file()} == before


def test_label_files_without_a_photograph_are_named_not_dropped_in_silence(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lost = sorted((small_folder / "images").iterdir())[0]
    lost.rename(small_folder / lost.name)  # out of images/: its dice go unscored
    assert main([str(small_folder)]) == 0
    printed = capsys.readouterr()
    assert "images: 2," in printed.out
    assert printed.err == (f"evaluate: 1 label file with no photograph, not scored:"
                           f" {lost.stem}.txt\n")


def test_a_corrupt_photograph_in_the_folder_is_named(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One photograph that cannot be read is named and scored, every die of it missed: the
    # others are still read (a folder from elsewhere may hold one such file).
    victim = sorted((small_folder / "images").iterdir())[1]
    victim.write_bytes(b"garbage")
    out = small_folder / "scores.csv"
    assert main([str(small_folder), "--csv", str(out)]) == 1
    assert f"evaluate: {victim.name}: unreadable: " in capsys.readouterr().err
    rows = {r["image"]: r for r in csv.DictReader(out.open())}
    assert len(rows) == 3
    assert rows[victim.name]["missed"] == rows[victim.name]["dice"] != "0"
    assert rows[victim.name]["error"].startswith("unreadable: ")
    assert all(int(r["right"]) > 0 for name, r in rows.items() if name != victim.name)


def test_the_simulator_score_prints_each_kind_it_is_asked_for(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from vision.simscore import main as simscore

    assert simscore(["sim-table"]) == 0
    line = capsys.readouterr().out.strip()
    exact = re.fullmatch(r"sim-table: dice right \d+/300 = [\d.]+%, frames exact (\d+)/20", line)
    assert exact, line
    # Today's level on the --sim table's reveals (19 of 20).
    assert int(exact.group(1)) >= 18, line
    assert simscore(["--calibrated", "sim-table"]) == 0
    assert capsys.readouterr().out.startswith("sim-table: dice right ")
    with pytest.raises(SystemExit):
        simscore(["blak"])
    assert "unknown kind 'blak'" in capsys.readouterr().err


def test_each_degradation_changes_the_photograph_as_it_says(
    laid_on_another_table: Callable[..., np.ndarray],
) -> None:
    from vision.degrade import DEGRADATIONS, degrade
    from vision.reader import load_image

    path = sorted((DEV / "images").glob("*.jpg"))[0]
    photo = load_image(path)
    h, w = photo.shape[:2]
    labels = load_labels(DEV / "labels" / (path.stem + ".txt"), w, h, "above")
    dice = [(lab.x, lab.y, lab.size) for lab in labels]
    seen = {name: degrade(photo, name, dice) for name in DEGRADATIONS}
    assert seen["small"].shape[:2] == (384, 384) and seen["large"].shape[:2] == (1600, 1600)
    assert seen["tiny"].shape[:2] == (224, 224) and seen["small-jpeg"].shape[:2] == (416, 416)
    shrunk = cv2.resize(photo, (416, 416), interpolation=cv2.INTER_AREA).astype(int)
    assert 1.0 < np.abs(seen["small-jpeg"] - shrunk).mean() < 20.0  # a JPEG's loss
    assert seen["tilted"].shape[:2] == (544, 640)
    assert seen["stretched"].shape[:2] == (640, 480)
    assert seen["stretched-16-9"].shape[:2] == (640, 360)
    assert seen["dark"].mean() < 0.55 * photo.mean()
    assert (seen["bright"] == 255).mean() > 5 * max((photo == 255).mean(), 0.01)
    grey = seen["grey"].astype(int)
    assert (grey[:, :, 0] == grey[:, :, 2]).all() and (grey[:, :, 1] == grey[:, :, 2]).all()
    for name in ("blur", "jpeg", "jpeg-50", "noise"):
        assert seen[name].shape == photo.shape
        assert 1.0 < np.abs(seen[name].astype(int) - photo).mean() < 20.0, name
    assert (seen["swapped"][:, :, 0] == photo[:, :, 2]).all()
    blue, red = (0, 2)
    assert seen["warm"][:, :, red].mean() > photo[:, :, red].mean()
    assert seen["warm"][:, :, blue].mean() < 0.7 * photo[:, :, blue].mean()
    assert seen["cool"][:, :, red].mean() < 0.75 * photo[:, :, red].mean()
    assert seen["cool"][:, :, blue].mean() > photo[:, :, blue].mean()
    # Sharpened, the photograph's fine detail is stronger; denoised or enlarged from half
    # the resolution, weaker; each stays near the photograph.
    def detail(image: np.ndarray) -> float:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
        return float(np.abs(cv2.Laplacian(grey, cv2.CV_32F)).mean())

    assert detail(seen["sharpened"]) > 1.5 * detail(photo)
    for name in ("denoised", "upscaled"):
        assert detail(seen[name]) < 0.8 * detail(photo), name
    for name in ("sharpened", "denoised", "upscaled"):
        assert seen[name].shape == photo.shape
        assert 0.5 < np.abs(seen[name].astype(int) - photo).mean() < 20.0, name
    # Colour noise changes the colour in blotches and leaves the lightness as it was.
    ycc = [cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb).astype(int)
           for image in (photo, seen["colour-noise"])]
    assert np.abs(ycc[1][:, :, 0] - ycc[0][:, :, 0]).mean() < 1.0
    assert 2.0 < np.abs(ycc[1][:, :, 1:] - ycc[0][:, :, 1:]).mean() < 6.0
    # Vignetting darkens the corners, not the middle.
    assert seen["vignette"].shape == photo.shape
    corner, middle = (slice(0, h // 8), slice(0, w // 8)), (slice(h // 2 - 20, h // 2 + 20),
                                                             slice(w // 2 - 20, w // 2 + 20))
    assert seen["vignette"][corner].mean() < 0.65 * photo[corner].mean()
    assert seen["vignette"][middle].mean() > 0.97 * photo[middle].mean()
    # The harder the compression, the further from the photograph.
    assert np.abs(seen["jpeg"].astype(int) - photo).mean() > np.abs(
        seen["jpeg-50"].astype(int) - photo
    ).mean()
    # The same photograph is degraded alike, whatever was degraded before it.
    assert (degrade(photo, "noise") == seen["noise"]).all()
    assert (degrade(photo, "wood", dice) == seen["wood"]).all()
    # On another table, every die stays where it was and the light tray is gone.
    far = {name: laid_on_another_table(photo, seen[name], dice) for name in ("wood", "cloth")}
    for name, table in far.items():
        assert seen[name][table].mean() < 0.7 * photo[table].mean(), name
    # Wood has a grain, and is brown: more red than blue.
    wood = seen["wood"][far["wood"]]
    assert wood.std() > 10 and wood[:, 2].mean() > wood[:, 0].mean()
    # Under a lamp each die casts a dark shadow on the table beside it; the dice themselves
    # and the table away from them only lose the lamp's falloff.
    lit = seen["lamp"].astype(float).mean(axis=2) / np.maximum(photo.astype(float).mean(axis=2), 1)
    yy, xx = np.mgrid[0:h, 0:w]
    shaded = 0
    for x, y, size in dice:
        assert np.median(lit[int(y) - 2 : int(y) + 3, int(x) - 2 : int(x) + 3]) > 0.6
        beside = (np.hypot(xx - x, yy - y) > 0.6 * size) & (np.hypot(xx - x, yy - y) < size)
        shaded += np.percentile(lit[beside], 5) < 0.5
    assert shaded >= 0.8 * len(dice)
    away = np.ones((h, w), bool)
    for x, y, size in dice:
        away &= np.hypot(xx - x, yy - y) > 2 * size
    assert np.median(lit[away]) > 0.6 and np.percentile(lit[away], 99) <= 1.01
    with pytest.raises(ValueError, match="'fog'.*small, large"):
        degrade(photo, "fog")


@pytest.mark.parametrize("name", ["small", "large", "bright", "grey", "jpeg", "wood"])
def test_the_command_scores_degraded_photographs_against_their_labels(
    small_folder: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = small_folder / "scores.csv"
    assert main([str(small_folder), "--degrade", name, "--csv", str(out)]) == 0
    assert f"degraded: {name}" in capsys.readouterr().out
    rows = list(csv.DictReader(out.open()))
    # Scaled photographs keep their labels (relative to the size): the dice are still
    # matched. Today, of these 49 dice: 48 small, 48 large, 48 bright, 44 grey, 45 JPEG,
    # 49 on wood.
    assert sum(int(r["right"]) for r in rows) >= 0.85 * sum(int(r["dice"]) for r in rows), rows


def test_a_folder_is_read_as_a_calibrated_table_reads_it_when_asked(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.evaluate import calibrated_size
    from vision.reader import load_image

    # The die size a calibration on a photograph's own dice gives: near its labels' median,
    # and none for an empty table.
    path = sorted((small_folder / "images").iterdir())[0]
    image = load_image(path)
    labels = load_labels(small_folder / "labels" / (path.stem + ".txt"), 640, 640, "above")
    size = calibrated_size(image, ReaderConfig(), "above")
    assert size == pytest.approx(np.median([lab.size for lab in labels]), rel=0.25)
    assert calibrated_size(image, ReaderConfig(), "above", 1.3) == pytest.approx(1.3 * size)
    assert calibrated_size(np.full_like(image, 200), ReaderConfig(), "above") is None
    assert main([str(small_folder), "--calibrated"]) == 0
    out = capsys.readouterr().out
    assert "(view above, calibrated)" in out
    done, total = (int(n) for n in out.split("dice right: ")[1].split(" ")[0].split("/"))
    assert done >= 0.9 * total
    assert main([str(small_folder), "--degrade", "small", "--calibrated", "1.3"]) == 0
    assert "(view above, degraded: small, calibrated x1.3)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([str(small_folder), "--calibrated", "0"])
    assert "0: must be 0.1..10" in capsys.readouterr().err


def test_an_unknown_degradation_is_refused_with_the_known_ones(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([str(small_folder), "--degrade", "fog"])
    assert "invalid choice: 'fog'" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".png", ".tif", ".webp", ".ppm"])
def test_photographs_in_any_format_opencv_reads_are_scored(small_folder: Path, suffix: str) -> None:
    import cv2

    from vision.evaluate import evaluate_folder

    first = sorted((small_folder / "images").glob("*.jpg"))[0]
    cv2.imwrite(str(first.with_suffix(suffix)), cv2.imread(str(first)))
    first.unlink()
    summary = evaluate_folder(small_folder)
    assert first.stem + suffix in [s.image for s in summary.images]
    assert len(summary.images) == 3
    assert sum(s.right for s in summary.images) >= 0.9 * sum(s.dice for s in summary.images)


def test_an_image_without_a_label_file_is_a_table_with_no_dice(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As in YOLO folders, where an image of no objects has no label file.
    label = sorted((small_folder / "labels").glob("*.txt"))[0]
    label.unlink()
    out = small_folder / "scores.csv"
    assert main([str(small_folder), "--csv", str(out)]) == 0
    assert "(1 without a label file, taken as tables with no dice)" in capsys.readouterr().out
    row = next(r for r in csv.DictReader(out.open()) if r["image"] == label.stem + ".jpg")
    # Its dice are all read as dice that are not there.
    assert row["dice"] == "0" and int(row["extra"]) == int(row["found"]) > 0
    assert row["exact"] == "0"


def test_a_label_path_that_is_a_folder_is_named_not_taken_for_a_table_with_no_dice(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    label = sorted((small_folder / "labels").glob("*.txt"))[0]
    label.unlink()
    label.mkdir()  # before: its photograph's dice all scored as extra, exit 0
    assert main([str(small_folder)]) == 2
    assert f"its label file {label} is not a file" in capsys.readouterr().err


def test_labels_and_counts_saved_with_a_byte_order_mark_are_read(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As a spreadsheet's "CSV UTF-8" or a Windows editor saves them: the same scores.
    assert main([str(small_folder)]) == 0
    before = capsys.readouterr().out
    shutil.copyfile(DEV / "counts.csv", small_folder / "counts.csv")
    for text in [small_folder / "counts.csv", *(small_folder / "labels").glob("*.txt")]:
        text.write_bytes(b"\xef\xbb\xbf" + text.read_bytes())
    assert main([str(small_folder)]) == 0
    after = capsys.readouterr().out
    assert "dice right" in after
    assert [line for line in after.splitlines() if "ms" not in line] == [
        line for line in before.splitlines() if "ms" not in line
    ]


def test_a_lost_label_file_of_an_image_with_dice_is_an_error(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # counts.csv (as in the dev set) lists the image's dice: its label file was lost.
    shutil.copyfile(DEV / "counts.csv", small_folder / "counts.csv")
    label = sorted((small_folder / "labels").glob("*.txt"))[0]
    label.unlink()
    assert main([str(small_folder)]) == 2
    err = capsys.readouterr().err
    assert f"{label.stem}.jpg: no label file" in err and "counts.csv lists" in err


@pytest.mark.parametrize(
    "module",
    ["vision.evaluate", "vision.training.heldout", "vision.simscore", "vision.bench",
     "vision.closer", "vision.simulate"],
)
def test_each_measuring_command_explains_itself(
    module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib

    with pytest.raises(SystemExit) as done:
        importlib.import_module(module).main(["--help"])
    assert done.value.code == 0
    assert "usage: python -m " + module in capsys.readouterr().out


@pytest.mark.parametrize("unreadable", [False, True], ids=["all-read", "one-unreadable"])
def test_a_reader_of_the_summary_gone_leaves_the_csv_written_and_no_traceback(
    small_folder: Path, tmp_path: Path, unreadable: bool
) -> None:
    # `python -m vision.evaluate DIR --csv OUT | head -1`: the pipe closes before the
    # summary is all written; the rows are in OUT all the same, and the command ends quietly.
    # A photograph it could not read is still named, with status 1 (it was 0, and unsaid).
    import os
    import subprocess
    import sys

    if unreadable:
        (small_folder / "images" / "zz.jpg").write_bytes(b"")
    out = tmp_path / "rows.csv"
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader gone before the first line
    try:
        done = subprocess.run(
            [sys.executable, "-m", "vision.evaluate", str(small_folder), "--csv", str(out)],
            stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120,
        )
    finally:
        os.close(write_end)
    said = f"evaluate: zz.jpg: unreadable: {small_folder / 'images' / 'zz.jpg'}: empty file\n"
    assert (done.returncode, done.stderr) == ((1, said) if unreadable else (0, ""))
    assert len(out.read_text().splitlines()) == 1 + len(list((small_folder / "images").iterdir()))


@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "PYTHONUNBUFFERED"])
def test_an_output_that_takes_nothing_is_said_in_one_line_with_status_2(
    small_folder: Path, unbuffered: str
) -> None:
    # `python -m vision.evaluate DIR > /dev/full`: buffered, a traceback, then Python's own
    # "Exception ignored" and status 120; unbuffered, a traceback and status 1.
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, "-m", "vision.evaluate", str(small_folder)],
                             stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
                             env=env)
    assert (run.returncode, run.stderr) == (
        2, "evaluate: error: cannot write the output: No space left on device\n")


def test_a_closed_output_is_refused_before_the_run(
    small_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `python -m vision.evaluate DIR >&-`: the whole run, then an AttributeError's traceback.
    import os
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "vision.evaluate", str(small_folder)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         timeout=120, preexec_fn=lambda: os.close(1))
    assert (run.returncode, run.stderr) == (2, "evaluate: error: the standard output is closed\n")
    import vision.reader

    def unread(*args: object, **kwargs: object) -> None:
        raise AssertionError("the photographs were read for an output that is closed")

    monkeypatch.setattr(vision.reader, "read_dice", unread)
    monkeypatch.setattr(sys, "stdout", None)
    assert main([str(small_folder)]) == 2


def _scores(printed: str) -> list[str]:
    """The summary's lines but its title and time: what two runs over one folder share."""
    return [line for line in printed.splitlines()[1:] if "ms" not in line]


def test_a_macs_hidden_copies_beside_photographs_and_labels_are_not_scored(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A Mac copying a folder to a USB disk writes ._NAME beside each file: no photograph,
    # no label (before: each scored as an unreadable image of no dice, or the run refused).
    assert main([str(small_folder)]) == 0
    before = capsys.readouterr().out
    for sub in ("images", "labels"):
        for path in list((small_folder / sub).iterdir()):
            (path.parent / ("._" + path.name)).write_bytes(b"\x00\x05\x16\x07\xff" * 20)
    (small_folder / "images" / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    assert main([str(small_folder)]) == 0
    printed = capsys.readouterr()
    assert "images: 3, labelled dice" in printed.out
    assert _scores(printed.out) == _scores(before)
    assert printed.err == ""


def test_folders_and_other_files_inside_images_are_named_as_not_read(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    images = small_folder / "images"
    first = sorted(images.iterdir())[0]
    (images / "val").mkdir()
    first.rename(images / "val" / first.name)  # before: left out without a word, exit 0
    (images / "data.yaml").write_text("names: ['1', '2', '3', '4', '5', '6']\n")
    assert main([str(small_folder)]) == 0
    printed = capsys.readouterr()
    assert "images: 2, labelled dice" in printed.out
    assert printed.err == (
        f"evaluate: 1 label file with no photograph, not scored: {first.stem}.txt\n"
        f"evaluate: {images}: 2 not photographs, not read: data.yaml, val/\n")
    # Every photograph in folders of their own (a YOLO set's train/ and val/): said so.
    (images / "data.yaml").unlink()
    (images / "train").mkdir()
    for photograph in images.glob("*.jpg"):
        photograph.rename(images / "train" / photograph.name)
    assert main([str(small_folder)]) == 2
    assert capsys.readouterr().err == (
        f"evaluate: error: {small_folder}: no images in {images}: it holds only folders"
        " (train/, val/); the dev set's format keeps the photographs in images/ itself, their"
        " labels in labels/\n")


def test_a_photograph_in_a_format_the_reader_does_not_read_is_scored_as_unreadable(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A phone's HEIC, labelled: before, left out of the score, and its label file said to
    # have no photograph.
    first = sorted((small_folder / "images").iterdir())[0]
    heic = first.rename(first.with_suffix(".HEIC"))
    out = small_folder / "scores.csv"
    assert main([str(small_folder), "--csv", str(out)]) == 1
    printed = capsys.readouterr()
    assert "images: 3, labelled dice" in printed.out
    assert printed.err == (f"evaluate: {heic.name}: unreadable: {heic}: not a format the"
                           " reader reads (.HEIC): give it as JPEG or PNG\n")
    row = next(r for r in csv.DictReader(out.open()) if r["image"] == heic.name)
    assert row["missed"] == row["dice"] != "0"
    # Listed in counts.csv with its label lost: an error, as for a JPEG.
    shutil.copyfile(DEV / "counts.csv", small_folder / "counts.csv")
    with (small_folder / "counts.csv").open("a") as counts:
        counts.write("other.HEIC,7,1,1,1,1,1,2\n")
    (small_folder / "images" / "other.HEIC").write_bytes(b"ftypheic")
    assert main([str(small_folder)]) == 2
    assert "other.HEIC: no label file" in capsys.readouterr().err


def test_files_beside_a_photograph_of_its_name_are_not_scored_as_photographs(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An iPhone's IMG_1.AAE of edits, a Live Photo's IMG_1.MOV: before, each was scored as a
    # second photograph that could not be read, its dice all missed (35 of 70 right).
    assert main([str(small_folder)]) == 0
    before = capsys.readouterr().out
    for photograph in list((small_folder / "images").iterdir()):
        photograph.with_suffix(".AAE").write_text("<plist/>")
        photograph.with_suffix(".MOV").write_bytes(b"\x00\x00\x00\x18ftypqt")
    assert main([str(small_folder)]) == 0
    printed = capsys.readouterr()
    assert _scores(printed.out) == _scores(before)
    assert "6 not photographs, not read" in printed.err


def test_label_files_beside_the_photographs_are_said_to_belong_in_labels(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Darknet's layout: before, every die scored as extra (0 of 0 dice right), exit 0.
    for label in (small_folder / "labels").iterdir():
        label.rename(small_folder / "images" / label.name)
    (small_folder / "labels").rmdir()
    assert main([str(small_folder)]) == 2
    assert capsys.readouterr().err == (
        f"evaluate: error: {small_folder}: no labels/ folder, but {small_folder / 'images'}"
        " holds the photographs' .txt files: the dev set's format keeps each label file in"
        " labels/, beside images/\n")


def test_a_folder_with_no_labels_at_all_is_said_so_not_scored_as_empty_tables(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, every die was scored as extra (0 of 0 dice right), exit 0 (a helper's audit).
    shutil.rmtree(small_folder / "labels")
    assert main([str(small_folder)]) == 2
    assert ("no labels/ folder beside images/, and no photograph listed in counts.csv"
            in capsys.readouterr().err)
    # A file named labels is no folder of labels (before, session 92's audit: every
    # photograph scored as an empty table, exit 0).
    (small_folder / "labels").write_text("")
    assert main([str(small_folder)]) == 2
    assert "labels: a file, not a folder" in capsys.readouterr().err
    (small_folder / "labels").unlink()
    # An empty labels/ folder says the tables are empty: scored so.
    (small_folder / "labels").mkdir()
    assert main([str(small_folder)]) == 0
    assert "(3 without a label file, taken as tables with no dice)" in capsys.readouterr().out


def test_labels_given_as_polygons_are_scored_by_the_box_around_them(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # YOLO's segmentation labels outline each die: the same dice, the same scores.
    assert main([str(small_folder)]) == 0
    before = capsys.readouterr().out
    for label in (small_folder / "labels").iterdir():
        lines = []
        for line in label.read_text().splitlines():
            k, cx, cy, w, h = (float(v) for v in line.split())
            # An eight-sided outline whose box is the label's.
            points = [(cx + w / 2 * np.cos(a), cy + h / 2 * np.sin(a))
                      for a in np.arange(8) * np.pi / 4]
            lines.append(f"{k:.0f} " + " ".join(f"{x:.6f} {y:.6f}" for x, y in points))
        label.write_text("\n".join(lines) + "\n")
    assert main([str(small_folder)]) == 0
    assert _scores(capsys.readouterr().out) == _scores(before)


def test_a_counts_csv_with_a_spreadsheet_s_empty_rows_is_read_and_a_bad_one_named(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    counts = small_folder / "counts.csv"
    counts.write_text((DEV / "counts.csv").read_text() + ",,,,,,,\n,,,,,,,\n")
    assert main([str(small_folder)]) == 0
    capsys.readouterr()
    counts.write_text("filename;n_dice;n_1\nIMG_1.jpg;3;1\n")
    assert main([str(small_folder)]) == 2
    assert capsys.readouterr().err == (
        f"evaluate: error: {counts}: expected columns image, n_dice, ... with counts"
        " (separated by commas); its first line: 'filename;n_dice;n_1'\n")
    counts.write_text("image,n_dice\nIMG_1.jpg,3\nIMG_2.jpg,three\n")
    assert main([str(small_folder)]) == 2
    assert capsys.readouterr().err == (
        f"evaluate: error: {counts}:3: n_dice 'three' is not a whole number for 'IMG_2.jpg'\n")
    # A quote left open takes the rest of a long file into one field: named, not a traceback
    # (session 92's audit).
    counts.write_text('image,n_dice\n"IMG_1.jpg,3\n' + "IMG_2.jpg,3\n" * 20_000)
    assert main([str(small_folder)]) == 2
    assert "field larger than field limit" in capsys.readouterr().err
    counts.write_text("image,n_dice,n_1\nIMG_1.jpg\n")
    assert main([str(small_folder)]) == 2
    assert capsys.readouterr().err == (
        f"evaluate: error: {counts}:2: no n_dice (the row ends before it) for 'IMG_1.jpg'\n")
    counts.write_text("")  # an empty file lists nothing
    assert main([str(small_folder)]) == 0


def test_a_label_file_holding_other_dice_than_counts_csv_lists_is_named(
    small_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Emptied, or a line lost: it was scored as a table of fewer dice with no word.
    shutil.copyfile(DEV / "counts.csv", small_folder / "counts.csv")
    assert main([str(small_folder)]) == 0
    assert "counts.csv lists" not in capsys.readouterr().err  # the dev set agrees with itself
    label = sorted((small_folder / "labels").glob("*.txt"))[0]
    held = label.read_text().splitlines()
    label.write_text("\n".join(held[1:]) + "\n")
    assert main([str(small_folder)]) == 0
    err = capsys.readouterr().err
    assert (f"evaluate: {label.stem}.jpg: its label file holds {len(held) - 1} dice, counts.csv"
            f" lists {len(held)} (scored by the label file)") in err
