"""`dudo scan`: what a player sees on the terminal, in JSON, and in the annotated pictures."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from vision.reader import UnreadableImage, load_image, read_dice
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


def test_the_text_line_gives_the_total_the_view_and_each_face_s_count(
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
        rf"{re.escape(str(path))}: {result['total']} {noun} from below  {counts}"
        rf"  \(\d+\.\d ms\).*",
        lines[0],
    )
    # A photograph taken from above, read so, says so: its counts are the pips seen.
    assert scan(capsys, str(path), "--view", "above")[1][0].startswith(
        f"{path}: {result['total']} {noun} from above  ")


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
    folder = tmp_path / "photos"
    folder.mkdir()
    code, lines, err = scan(capsys, str(corrupt), str(path), str(missing), str(folder), "--json")
    assert code == 1
    assert [json.loads(line)["image"] for line in lines] == [str(path)]
    messages = err.splitlines()
    assert len(messages) == 3
    assert messages[0].startswith(f"dudo scan: {corrupt}: ")
    assert messages[1] == f"dudo scan: {missing}: no such file"
    # A folder named where its photographs were meant (it was "not a file").
    assert messages[2] == (f"dudo scan: {folder}: a folder, not a photograph: name its"
                           f" photographs ({folder}/*.jpg)")
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


def test_a_disk_that_fills_while_annotating_leaves_no_broken_copy_behind(
    table: tuple[Path, Scene],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, _ = table
    out_dir = tmp_path / "marked"
    real_write_bytes = Path.write_bytes

    def fills_up(self: Path, data: bytes) -> int:  # the card fills halfway through the file
        real_write_bytes(self, data[: len(data) // 2])
        raise OSError(28, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_bytes", fills_up)
    code, lines, err = scan(capsys, str(path), "--annotate", str(out_dir))
    assert code == 1 and len(lines) == 1  # the reading is given; its picture is not
    assert err == (f"dudo scan: {path}: could not write the annotated image"
                   f" {out_dir / 'table.png'}: No space left on device\n")
    assert list(out_dir.iterdir()) == []
    monkeypatch.undo()  # space freed: the next run writes the copy under its own name
    assert scan(capsys, str(path), "--annotate", str(out_dir))[0] == 0
    assert [p.name for p in out_dir.iterdir()] == ["table.png"]


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


@pytest.mark.parametrize("reason", ["unreadable photograph", "bad model"])
def test_a_scan_that_reads_nothing_makes_no_annotate_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reason: str
) -> None:
    photo, argv = tmp_path / "table.png", []
    if reason == "unreadable photograph":
        photo.write_bytes(b"\x89PNG not a photograph")
    else:
        cv2.imwrite(str(photo), render_dice([4, 2], seed=3).image)
        (tmp_path / "not-a-model.onnx").write_text("not a model")
        (tmp_path / "model.toml").write_text('[vision]\nmodel_path = "not-a-model.onnx"\n')
        argv = ["--config", str(tmp_path / "model.toml")]
    out_dir = tmp_path / "marked" / "today"
    code, lines, err = scan(capsys, str(photo), "--annotate", str(out_dir), *argv)
    assert (code, lines) == (1 if reason == "unreadable photograph" else 2, [])
    assert err.startswith("dudo scan: ") and not (tmp_path / "marked").exists()


def test_an_annotate_folder_that_cannot_be_made_stops_the_scan_before_it_reads(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, the first image was read and printed, and only then the run stopped.
    path, _ = table
    out_dir = path / "marked" / "today"  # under a file: no folder can be made there
    code, lines, err = scan(capsys, str(path), str(path), "--annotate", str(out_dir))
    assert (code, lines) == (2, [])
    assert err == (f"dudo scan: --annotate {out_dir}: cannot make the folder:"
                   f" {path} is not a folder\n")


@pytest.mark.parametrize("kind", ["a link to nothing", "a loop of links", "a locked folder"])
def test_an_annotate_folder_behind_a_broken_link_or_a_locked_folder_is_said_before_reading(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, kind: str,
) -> None:
    # Before: the links were found only once the first image was read and printed ("File
    # exists"), and a folder on the way that cannot be entered gave a traceback.
    path, _ = table
    out_dir = tmp_path / "marked"
    if kind == "a link to nothing":
        out_dir.symlink_to(tmp_path / "gone")
    elif kind == "a loop of links":
        out_dir.symlink_to(tmp_path / "other")
        (tmp_path / "other").symlink_to(out_dir)
    else:
        locked = tmp_path / "locked"
        out_dir = locked / "marked"
        exists = Path.exists

        def denied(self: Path) -> bool:  # as Python 3.11 does where it may not look
            if self == out_dir:
                raise PermissionError(13, "Permission denied", str(self))
            return exists(self)

        monkeypatch.setattr(Path, "exists", denied)
    code, lines, err = scan(capsys, str(path), "--annotate", str(out_dir))
    assert (code, lines) == (2, [])
    assert err.startswith(f"dudo scan: --annotate {out_dir}: ") and err.count("\n") == 1
    assert {"a link to nothing": "a link to nothing (or a loop of links)",
            "a loop of links": "a link to nothing (or a loop of links)",
            "a locked folder": "cannot make the folder: Permission denied"}[kind] in err


def test_an_annotate_folder_refused_when_made_stops_the_scan_with_one_clear_line(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, _ = table
    out_dir = tmp_path / "marked"

    def refused(self: Path, *args: object, **kwargs: object) -> None:  # as a mount may refuse
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refused)
    code, lines, err = scan(capsys, str(path), str(path), "--annotate", str(out_dir))
    assert (code, len(lines)) == (2, 1)  # the first reading is given, then the run stops
    assert err == f"dudo scan: --annotate {out_dir}: cannot make the folder: Permission denied\n"


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


def png_declaring(width: int, height: int) -> bytes:
    """A small PNG file whose header declares ``width`` x ``height`` grey pixels."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (len(body).to_bytes(4, "big") + kind + body
                + zlib.crc32(kind + body).to_bytes(4, "big"))

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 0, 0, 0, 0])
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes(1000))) + chunk(b"IEND", b""))


def test_images_that_cannot_be_read_are_named_and_the_others_still_read(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, _ = table
    huge = tmp_path / "huge.png"
    huge.write_bytes(png_declaring(40_000, 30_000))  # over any camera's, and OpenCV's
    locked = tmp_path / "locked.jpg"
    locked.write_bytes(b"\xff\xd8")
    real_fromfile = np.fromfile

    def fromfile(name: str, *args: object) -> np.ndarray:
        if name == str(locked):  # as for a file of another user: root cannot be refused one
            raise PermissionError(13, "Permission denied", name)
        return real_fromfile(name, *args)

    monkeypatch.setattr(np, "fromfile", fromfile)
    code, lines, err = scan(capsys, str(huge), str(locked), str(path), "--json")
    assert code == 1
    assert [json.loads(line)["image"] for line in lines] == [str(path)]
    assert err.splitlines() == [
        f"dudo scan: {huge}: 40000x30000 pixels, larger than any photograph the reader takes"
        " (120 megapixels at most)",
        f"dudo scan: {locked}: cannot be read (Permission denied)",
    ]


def test_a_jpeg_declaring_too_many_pixels_past_its_first_64_kb_is_refused_unread(
    tmp_path: Path,
) -> None:
    # A phone's EXIF, XMP or ICC segments can put the frame's header past the first 64 KB,
    # where it was not looked for (session 92's audit): 11000x11000 was decoded, 363 MB.
    icc = b"\xff\xe2" + (65535).to_bytes(2, "big") + bytes(65533)
    frame = (b"\xff\xc0" + (17).to_bytes(2, "big") + bytes([8]) + (11000).to_bytes(2, "big")
             + (11000).to_bytes(2, "big") + bytes([3]) + bytes(9))
    path = tmp_path / "huge.jpg"
    path.write_bytes(b"\xff\xd8" + icc + frame + b"\xff\xd9")
    with pytest.raises(UnreadableImage, match=(
            "11000x11000 pixels, larger than any photograph the reader takes")):
        load_image(path)


def test_a_damaged_photograph_is_one_line_on_stderr_not_the_image_library_s_too(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    good = cv2.imencode(".jpg", render_dice([2, 5], seed=3).image)[1].tobytes()
    scrambled = tmp_path / "scrambled.jpg"  # libjpeg: "Corrupt JPEG data: ... extraneous bytes"
    middle = len(good) // 2
    scrambled.write_bytes(good[:middle] + bytes(range(256)) * 8 + good[middle + 2048:])
    png = cv2.imencode(".png", render_dice([3], seed=4).image)[1].tobytes()
    cut_png = tmp_path / "cut.png"  # libpng: "PNG input buffer is incomplete"
    cut_png.write_bytes(png[: len(png) // 2])
    flipped = tmp_path / "flipped.png"  # libpng: "invalid chunk type"
    flipped.write_bytes(png[:37] + b"\x00" + png[38:])
    code = main(["scan", str(scrambled), str(cut_png), str(flipped)])
    captured = capfd.readouterr()
    assert code == 1
    assert captured.out == ""
    first, *others = captured.err.splitlines()
    assert first.startswith(f"dudo scan: {scrambled}: the JPEG data is damaged (")
    assert others == [
        f"dudo scan: {cut_png}: not an image OpenCV can decode (corrupt or unknown format)",
        f"dudo scan: {flipped}: not an image OpenCV can decode (corrupt or unknown format)",
    ]


def test_a_phone_s_heic_photograph_is_said_to_be_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: "not an image OpenCV can decode (corrupt or unknown format)" (a helper's audit).
    heic = tmp_path / "IMG_0001.HEIC"
    heic.write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(4000))
    code, lines, err = scan(capsys, str(heic))
    assert (code, lines) == (1, [])
    assert err == (f"dudo scan: {heic}: a HEIF photograph (a phone's HEIC or an AVIF), which"
                   " OpenCV does not decode: save it as a JPEG or PNG\n")


def damaged_photo(folder: Path) -> Path:
    """The dev photograph with sixty bytes of its coded data overwritten, as a failing card or
    a bad copy does: libjpeg paints blocks of garbage there and says so only on stderr."""
    photo = (DEV_SET / "images" / DEV_PHOTO).read_bytes()
    damaged = folder / "damaged.jpg"
    damaged.write_bytes(photo[:24000] + b"\x55" * 60 + photo[24060:])
    return damaged


def test_a_photograph_whose_jpeg_data_is_damaged_is_refused_not_read_with_phantom_dice(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    photo = (DEV_SET / "images" / DEV_PHOTO).read_bytes()
    damaged = damaged_photo(tmp_path)
    marker = tmp_path / "marker.jpg"  # damage that reads as a marker running past the end
    marker.write_bytes(photo[:24000] + b"\xff\xe1\xff\xff" + photo[24004:])
    padded = tmp_path / "padded.jpg"  # padding before the end marker: every pixel is intact
    padded.write_bytes(photo[:-2] + bytes(5) + photo[-2:])
    code = main(["scan", "--json", str(damaged), str(marker), str(padded)])
    captured = capfd.readouterr()
    assert code == 1
    assert captured.err.splitlines() == [
        f"dudo scan: {path}: the JPEG data is damaged (premature end of data segment)"
        for path in (damaged, marker)
    ]
    assert [json.loads(line)["image"] for line in captured.out.splitlines()] == [str(padded)]
    assert json.loads(captured.out)["total"] == 22


def test_a_server_thread_decoding_a_photograph_never_takes_the_process_s_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # In `dudo serve` a folder source decodes on a worker thread: the log lines other threads
    # write meanwhile must reach the log (so the damage check is the commands' alone).
    damaged = damaged_photo(tmp_path)
    shapes: list[tuple[int, ...]] = []
    worker = threading.Thread(target=lambda: shapes.append(load_image(damaged).shape))
    worker.start()
    worker.join(30)
    assert shapes == [(640, 640, 3)]
    assert "Corrupt JPEG data" in capfd.readouterr().err  # stderr stayed the process's


def test_a_phone_photo_with_a_video_after_its_end_is_read_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = (DEV_SET / "images" / DEV_PHOTO).read_bytes()
    motion = tmp_path / "motion.jpg"
    # A "motion photo": the JPEG, then an MP4 clip whose bytes hold JPEG-like markers.
    clip = b"\x00\x00\x00\x1cftypmp42" + bytes(range(256)) * 40 + b"\xff\xda\x00\x08" + bytes(99)
    motion.write_bytes(photo + clip)
    code, lines, err = scan(capsys, str(motion), "--json")
    assert (code, err) == (0, "")
    assert json.loads(lines[0])["total"] == 22
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(photo[: len(photo) * 9 // 10])
    code, _, err = scan(capsys, str(cut))
    assert code == 1 and "the JPEG data ends early" in err


def test_annotate_never_writes_over_a_file_it_did_not_write_but_updates_its_own(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = table
    out = tmp_path / "out"
    out.mkdir()
    unrelated = out / "table.png"  # another photograph that happens to have the same name
    unrelated.write_bytes(png_declaring(20, 20))
    kept = unrelated.read_bytes()
    for _ in range(2):  # run twice: the second run writes over the first run's copy
        code, _, err = scan(capsys, str(path), "--annotate", str(out))
        assert (code, err) == (0, "")
    assert unrelated.read_bytes() == kept
    assert sorted(p.name for p in out.iterdir()) == ["table-annotated.png", "table.png"]
    assert cv2.imread(str(out / "table-annotated.png")).shape == (720, 960, 3)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--annotate", "{file}"], "--annotate {file}: not a folder"),
        (["--config", "{folder}"], "{folder}: a folder, not a config file"),
        (["--config", "{latin1}"], "{latin1}: not UTF-8 text (byte 6): not valid TOML"),
        (["--config", "{model}"], "cannot be loaded"),
        (["--annotate", ""], "--annotate needs a folder, not an empty name"),
    ],
    ids=["annotate-file", "config-folder", "config-not-utf8", "model-not-onnx", "annotate-empty"],
)
def test_a_bad_option_is_one_clear_line_and_exit_2(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    argv: list[str], message: str,
) -> None:
    path, _ = table
    names = {"file": str(path), "folder": str(tmp_path),
             "latin1": str(tmp_path / "latin1.toml"), "model": str(tmp_path / "model.toml")}
    (tmp_path / "latin1.toml").write_bytes("# caf\xe9 table\n".encode("latin-1"))
    (tmp_path / "not-a-model.onnx").write_text("not a model")
    (tmp_path / "model.toml").write_text(
        f'[vision]\nmodel_path = "{tmp_path / "not-a-model.onnx"}"\n')
    code, lines, err = scan(capsys, str(path), *[a.format(**names) for a in argv])
    assert (code, lines) == (2, [])
    assert len(err.splitlines()) == 1 and err.startswith("dudo scan: ")
    assert message.format(**names) in err


def test_the_smallest_die_size_a_config_may_give_reads_every_photograph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Dice of 7 px: the reader looks again at the size it finds, below the 8 px a config may
    # give; that is its own business, never the config's error stopping the run.
    photo = load_image(DEV_SET / "images" / DEV_PHOTO)
    far = tmp_path / "far.png"
    cv2.imwrite(str(far), cv2.resize(photo, None, fx=0.2, fy=0.2, interpolation=cv2.INTER_AREA))
    config = tmp_path / "dudo.toml"
    config.write_text("[vision]\ndie_size = 8\n")
    code, lines, err = scan(capsys, "--config", str(config), "--view", "above", str(far), str(far))
    assert (code, err, len(lines)) == (0, "", 2)


def test_a_scan_keeps_nothing_of_onnx_runtime_s_telemetry_and_says_nothing_of_it(
    tmp_path: Path,
) -> None:
    # ONNX Runtime 1.29+ sends telemetry from Linux and keeps an identifier in ~/.cache;
    # where the home cannot be written (here a file: not even root makes a folder in it) it
    # warns on stderr at every start.
    env = {key: value for key, value in os.environ.items() if key != "ORT_DISABLE_TELEMETRY"}
    (tmp_path / "not-a-home").write_text("")
    for home in (tmp_path, tmp_path / "not-a-home"):
        run = subprocess.run(
            [sys.executable, "-m", "companion.cli", "scan", str(DEV_SET / "images" / DEV_PHOTO)],
            env={**env, "HOME": str(home)}, capture_output=True, text=True, timeout=120,
        )
        assert (run.returncode, run.stderr) == (0, "")
        assert run.stdout.startswith(f"{DEV_SET / 'images' / DEV_PHOTO}: 22 dice")
    assert [p.name for p in tmp_path.iterdir()] == ["not-a-home"]


def test_an_output_that_takes_nothing_and_an_empty_name_are_each_one_clear_line(
    table: tuple[Path, Scene], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = table
    scan_to = [sys.executable, "-m", "companion.cli", "scan", str(path)]
    closed = subprocess.run(scan_to, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, timeout=120, preexec_fn=lambda: os.close(1))
    assert (closed.returncode, closed.stderr) == (2, "dudo scan: the standard output is closed\n")
    with open("/dev/full", "w") as full:
        run = subprocess.run(scan_to, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert (run.returncode, run.stderr) == (
        2, "dudo scan: cannot write the results to the output: No space left on device\n")
    code, lines, err = scan(capsys, "", str(path))
    assert (code, len(lines)) == (1, 1)
    assert err == "dudo scan: an empty file name: name a photograph\n"


def test_a_reader_that_stops_reading_the_output_ends_the_scan_quietly(
    table: tuple[Path, Scene],
) -> None:
    path, _ = table
    scan_many = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "scan", *[str(path)] * 4],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert scan_many.stdout is not None and scan_many.stderr is not None
    scan_many.stdout.read(10)  # `dudo scan ... | head -c 10`
    scan_many.stdout.close()
    assert scan_many.wait(120) == 0
    assert scan_many.stderr.read() == b""


def test_a_reader_gone_after_an_image_that_could_not_be_read_still_ends_with_status_1(
    table: tuple[Path, Scene], tmp_path: Path
) -> None:
    # `dudo scan missing.jpg a.jpg ... | head -1`: the missing file named, and the status
    # was 0, the reader's going taken for the whole run's outcome.
    path, _ = table
    missing = tmp_path / "missing.jpg"
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader gone before the first line
    try:
        run = subprocess.run(
            [sys.executable, "-m", "companion.cli", "scan", str(missing), str(path), str(path)],
            stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120,
        )
    finally:
        os.close(write_end)
    assert (run.returncode, run.stderr) == (1, f"dudo scan: {missing}: no such file\n")


def test_model_paths_in_a_config_are_taken_from_the_config_s_folder(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from vision.nets import FACE_FILE, LOCATOR_FILE, MODELS_DIR, SECOND_FILE

    path, _ = table
    models = tmp_path / "table" / "models"
    models.mkdir(parents=True)
    for name in (FACE_FILE, LOCATOR_FILE, SECOND_FILE):
        (models / name).write_bytes((MODELS_DIR / name).read_bytes())
    config = tmp_path / "table" / "dudo.toml"
    config.write_text(f'[vision]\nmodel_path = "models/{FACE_FILE}"\n'
                      f'detector_path = "models/{LOCATOR_FILE}"\n'
                      f'second_model_path = "models/{SECOND_FILE}"\n')
    monkeypatch.chdir(tmp_path)  # not the config's folder
    code, lines, err = scan(capsys, str(path), "--json", "--config", str(config))
    assert (code, err) == (0, "")
    assert json.loads(lines[0])["total"] == 8


def test_a_photograph_of_another_size_is_read_with_the_calibration_scaled_to_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = DEV_SET / "images" / DEV_PHOTO
    config = tmp_path / "dudo.toml"
    config.write_text("[camera]\nwidth = 640\nheight = 640\n[vision]\ndie_size = 38.0\n")
    larger = tmp_path / "larger.png"
    image = cv2.imread(str(photo))
    cv2.imwrite(str(larger), cv2.resize(image, (1600, 1600), interpolation=cv2.INTER_CUBIC))
    assert main(["scan", str(photo), str(larger), "--view", "above", "--json",
                 "--config", str(config)]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert second["counts"] == first["counts"] and second["total"] == first["total"] >= 20


def test_a_name_the_system_cannot_look_up_and_a_loop_of_links_are_named_the_others_read(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A name too long for the file system fails as a folder one cannot open does (not a
    # missing file): it stopped the whole batch, and a loop of links gave a traceback.
    path, _ = table
    too_long = tmp_path / ("x" * 300 + ".jpg")
    loop = tmp_path / "a.jpg"
    loop.symlink_to("b.jpg")
    (tmp_path / "b.jpg").symlink_to("a.jpg")
    code, lines, err = scan(capsys, str(too_long), str(loop), str(path), "--json")
    assert code == 1
    assert [json.loads(line)["image"] for line in lines] == [str(path)]
    assert err.splitlines() == [
        f"dudo scan: {too_long}: cannot be read (File name too long)",
        f"dudo scan: {loop}: a link to no file (or a loop of links)",
    ]


def test_annotate_passes_over_a_loop_of_links_in_the_folder_and_writes_beside_it(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = table
    out = tmp_path / "out"
    out.mkdir()
    (out / "table.png").symlink_to("x.png")
    (out / "x.png").symlink_to("table.png")
    code, lines, err = scan(capsys, str(path), "--annotate", str(out))
    assert (code, err) == (0, "")
    assert (out / "table.png").is_symlink()  # left as it was
    assert load_image(out / "table-annotated.png").shape == load_image(path).shape


def test_a_photograph_too_large_for_the_memory_is_said_so_not_called_corrupt(
    tmp_path: Path,
) -> None:
    pytest.importorskip("resource")
    ok, encoded = cv2.imencode(".jpg", np.full((64, 64, 3), 128, np.uint8))
    data = bytearray(encoded.tobytes())
    frame = data.index(b"\xff\xc0")  # its header says 10900 x 10900 pixels: 356 MB decoded
    data[frame + 5:frame + 9] = (10900).to_bytes(2, "big") * 2
    big = tmp_path / "big.jpg"
    big.write_bytes(bytes(data))
    # The scan given 200 MB more than it holds once its libraries are loaded.
    little_memory = (
        "import resource, sys, cv2, numpy\n"
        "from companion.cli import main\n"
        "held = next(int(line.split()[1]) * 1024 for line in open('/proc/self/status')\n"
        "            if line.startswith('VmSize:'))\n"
        "resource.setrlimit(resource.RLIMIT_AS, (held + 200_000_000,) * 2)\n"
        "sys.exit(main(['scan', sys.argv[1]]))\n")
    result = subprocess.run([sys.executable, "-c", little_memory, str(big)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"dudo scan: {big}: too large to decode in the memory available")


@pytest.mark.parametrize(
    "text, reason",
    [
        # Its size was taken as "none given" and the calibration read unscaled.
        ("[camera]\nwidth = 'x'\nheight = 640\n[vision]\ndie_size = 38.0\n",
         "[camera] width = 'x': must be a whole number from 1 to 16,384"),
        # Before session 89, the scan said only "the config has no [colours] or [seats]".
        ('[colors]\nAna = "red"\n',
         "unknown table(s) colors (known: server, table, pins, vision, camera, seats, colours)"),
    ],
    ids=["a camera table", "a table misspelt"],
)
def test_a_config_the_table_would_refuse_stops_the_scan(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
    reason: str,
) -> None:
    path, _ = table
    config = tmp_path / "dudo.toml"
    config.write_text(text)
    code, lines, err = scan(capsys, str(path), "--config", str(config), "--expect", "Ana=1")
    assert (code, lines) == (2, [])
    assert err == f"dudo scan: {config}: {reason}\n"


def test_a_scan_with_a_config_looks_from_where_its_camera_looks_unless_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = str(DEV_SET / "images" / DEV_PHOTO)  # taken from above
    config = tmp_path / "dudo.toml"
    config.write_text("[camera]\nview = 'above'\n")
    faces = {}
    for view in ("above", "below", None):
        argv = [photo, "--json", "--config", str(config)] + (["--view", view] if view else [])
        code, lines, _ = scan(capsys, *argv)
        assert code == 0
        faces[view] = json.loads(lines[0])["counts"]
    assert faces[None] == faces["above"] != faces["below"]


def test_expect_gives_each_die_to_its_player_and_says_what_disagrees(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The config's [colours], as at the table: Ana plays the red dice, Ben the blue; Ben is
    # to show two dice and only one of his lies on the glass. An engineer checks the colours
    # (or the seat zones) they calibrated on a photograph, with no game to play.
    path, _ = table
    config = tmp_path / "table.toml"
    config.write_text('[colours]\nAna = "red"\nBen = "blue"\n')
    code, lines, err = scan(capsys, str(path), "--json", "--config", str(config),
                            "--expect", "Ana=2", "--expect", "Ben=2")
    assert (code, err) == (0, "")
    result = json.loads(lines[0])
    assert result["owners"] == {"Ana": [1, 1], "Ben": [2]}
    assert "Ben should show 2 dice, 1 seen" in result["disagreements"]
    assert sorted(d["face"] for d in result["dice"] if d["owner"] == "Ana") == [1, 1]
    assert all(d["owner"] is None for d in result["dice"] if d["colour"] not in ("red", "blue"))
    # The same for a person: each player's faces, and what disagrees.
    code, lines, err = scan(capsys, str(path), "--config", str(config),
                            "--expect", "Ana=2", "--expect", "Ben=2")
    assert code == 0 and "Ana: 1 1; Ben: 2" in lines[0]
    assert "(Ben should show 2 dice, 1 seen)" in lines[0]


def test_expect_gives_a_perudo_set_s_sixes_to_their_players_in_their_own_colour(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each six on top shows its paco to the camera, in the pips' colour: Caro's red dice a
    # white sun, named white by its middle. The ring round it names Caro's red, and she
    # lacks those dice: each die is listed in the colour that told whose it is.
    from vision.render import RenderOptions
    from vision.simulate import SimulatedCamera

    camera = SimulatedCamera(seed=2, options=RenderOptions(ace="sun"), seats=2)
    camera.set_dice({"Ana": [6, 6, 2, 3, 5], "Caro": [6, 4, 6, 1, 5]},
                    {"Ana": "white", "Caro": "red"}, seated=["Ana", "Caro"])
    path = tmp_path / "perudo.png"
    cv2.imwrite(str(path), camera.capture())
    config = tmp_path / "table.toml"
    config.write_text('[colours]\nAna = "white"\nCaro = "red"\n')
    code, lines, err = scan(capsys, str(path), "--json", "--config", str(config),
                            "--expect", "Ana=5", "--expect", "Caro=5")
    assert (code, err) == (0, "")
    result = json.loads(lines[0])
    assert result["owners"] == {"Ana": [2, 3, 5, 6, 6], "Caro": [1, 4, 5, 6, 6]}
    assert result["disagreements"] == []
    assert {(d["owner"], d["colour"]) for d in result["dice"]} == {
        ("Ana", "white"), ("Caro", "red")}


def test_an_annotated_copy_with_expect_names_each_seat_zone_after_its_player(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The engineer checking the zones they calibrated sees whose each zone is taken to be,
    # the players in --expect's order (seat 1 at the picture's bottom, seat 2 at its top).
    path, _ = table
    config = tmp_path / "table.toml"
    config.write_text("[camera]\nwidth = 960\nheight = 720\n"
                      "[seats]\ncount = 2\ncentre = [480, 360]\nfirst_angle = 90\n")
    written = {}
    for names in (("Ana", "Ben"), ("Zed", "Ben"), ("Ana", "Zed")):
        out = tmp_path / "-".join(names)
        code, _, err = scan(capsys, str(path), "--config", str(config), "--annotate", str(out),
                            "--expect", f"{names[0]}=4", "--expect", f"{names[1]}=4")
        assert (code, err) == (0, "")
        written[names] = cv2.imread(str(out / "table.png")).astype(int)
    code, _, err = scan(capsys, str(path), "--config", str(config), "--annotate",
                        str(tmp_path / "plain"))
    plain = cv2.imread(str(tmp_path / "plain" / "table.png")).astype(int)

    def changed_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.nonzero(np.abs(a - b).sum(axis=2) > 60)[0]

    # Another first player: only the bottom zone's name changes; another second: the top's.
    first = changed_rows(written["Ana", "Ben"], written["Zed", "Ben"])
    second = changed_rows(written["Ana", "Ben"], written["Ana", "Zed"])
    assert len(first) and first.min() > 360
    assert len(second) and second.max() < 360
    # And the zones' border is drawn, where the copy without --expect has none.
    assert len(changed_rows(written["Ana", "Ben"], plain))


@pytest.mark.parametrize("camera, picture, mismatch", [
    ("[camera]\nwidth = 960\nheight = 720\n", (640, 480), True),
    ("", (640, 480), False),  # zones of no size given: of the picture read, as at the table
    ("[camera]\nwidth = 960\nheight = 720\n", (960, 720), False),
])
def test_scan_trusts_the_seat_zones_as_the_table_does_and_draws_only_those_it_trusts(
    table: tuple[Path, Scene], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    camera: str, picture: tuple[int, int], mismatch: bool,
) -> None:
    path, _ = table
    image = tmp_path / "picture.png"
    cv2.imwrite(str(image), cv2.resize(cv2.imread(str(path)), picture,
                                       interpolation=cv2.INTER_AREA))
    config = tmp_path / "table.toml"
    config.write_text(camera + "[seats]\ncount = 2\ncentre = [320, 240]\nfirst_angle = 90\n")
    drawn = {}
    for expect in ("Ana=4", "Zed=4"):
        out = tmp_path / expect
        code, lines, err = scan(capsys, str(image), "--config", str(config), "--annotate",
                                str(out), "--expect", expect, "--expect", "Ben=4")
        assert (code, err) == (0, "")
        assert ("the seat zones were calibrated on 960x720 pictures" in lines[0]) is mismatch
        drawn[expect] = cv2.imread(str(out / "picture.png")).astype(int)
    # The first player's name written (it changes with the name) only where it is trusted.
    assert bool((np.abs(drawn["Ana=4"] - drawn["Zed=4"]).sum(axis=2) > 60).any()) != mismatch


def test_expect_without_colours_or_seats_says_only_the_total_is_compared(
    table: tuple[Path, Scene], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Before, nothing said that no die could be given to a player: Ben's missing die went
    # unremarked as long as the total was right.
    path, scene = table
    shown = len(scene.dice)
    code, lines, err = scan(capsys, str(path), "--expect", f"Ana={shown - 1}", "--expect",
                            "Ben=1")
    assert (code, err) == (0, "")
    # Given no config, it said "the config has no [colours] or [seats]".
    assert ("(whose die is whose is not known: no [colours] or [seats] (the table's config gives"
            " them: --config FILE); only the total is compared)") in lines[0]
    code, lines, err = scan(capsys, str(path), "--expect", f"Ana={shown}")
    assert code == 0 and "whose die is whose" not in lines[0]  # one player: all theirs
    # A config whose [colours] gives both players one colour says so, not "no [colours]".
    config = tmp_path / "table.toml"
    config.write_text('[colours]\nAna = "red"\nBen = "red"\n')
    code, lines, err = scan(capsys, str(path), "--config", str(config), "--expect",
                            f"Ana={shown - 1}", "--expect", "Ben=1")
    assert (code, err) == (0, "")
    assert "no [colours]" not in lines[0]
    assert "(Ana and Ben both have red dice in [colours]: the camera cannot tell" in lines[0]


@pytest.mark.parametrize(("given", "said"), [
    ("Ana", "--expect 'Ana': give PLAYER=DICE, as --expect Ana=5"),
    ("Ana=five", "--expect 'Ana=five': DICE must be a whole number of dice, 0 to 1000"),
    ("Ana=99999", "--expect 'Ana=99999': DICE must be a whole number of dice, 0 to 1000"),
    # A digit to Python, not to int(): its words were said, no option named (session 92).
    ("Ana=\u00b2", "--expect 'Ana=\u00b2': DICE must be a whole number of dice, 0 to 1000"),
    ("=5", "--expect '=5': give PLAYER=DICE"),
])
def test_a_wrong_expect_is_named_and_nothing_is_read(
    table: tuple[Path, Scene], capsys: pytest.CaptureFixture[str], given: str, said: str
) -> None:
    path, _ = table
    code, lines, err = scan(capsys, str(path), "--expect", given)
    assert (code, lines) == (2, []) and said in err
    code, lines, err = scan(capsys, str(path), "--expect", "Ana=2", "--expect", "Ana=3")
    assert (code, lines) == (2, []) and "Ana is given twice" in err
