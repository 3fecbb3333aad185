"""`dudo calibrate` and the [camera], [seats], [colours] tables it writes."""

from __future__ import annotations

import json
import os
import stat
import tomllib
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from tests.vision.conftest import DEV
from vision.calibrate import calibrate
from vision.calibration import (
    Calibration,
    CameraSettings,
    SeatZones,
    load_calibration,
    save_calibration,
    sector_zones,
)
from vision.config import load_config
from vision.evaluate import load_labels, score_image
from vision.reader import load_image, read_dice
from vision.reading import DEFAULT_DOUBT_THRESHOLD, OUT_OF_FOCUS, TOO_DARK
from vision.simulate import render_dice

OTHER_TABLES = """\
# the table's own settings: calibrate must keep this comment
[table]
rules = "perudo"
players = ["Ana", "Ben"]

[pins]
dudo = 17  # the big red button
"calza" = 4

[vision]
doubt_threshold = 0.7

[seats]
count = 3
centre = [10, 10]
"""


# -- the TOML tables -------------------------------------------------------------------------


def test_a_saved_calibration_loads_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "dudo.toml"
    calibration = Calibration(
        camera=CameraSettings(
            source="device:0",
            width=1280,
            height=960,
            exposure_us=8000,
            analogue_gain=1.5,
            colour_gains=(1.9, 1.6),
            empty="dudo-empty.png",
            brightness=120.0,
        ),
        seats=SeatZones(
            polygons=(((0, 0), (100, 0), (100, 50)), ((0, 50), (100, 50), (100, 100), (0, 100)))
        ),
        colours={"Ana": "red", 'Ben "the bold"': "blue"},
    )
    save_calibration(path, calibration)
    assert load_calibration(path) == calibration


def test_saving_keeps_every_other_table_and_its_comments(tmp_path: Path) -> None:
    path = tmp_path / "dudo.toml"
    path.write_text(OTHER_TABLES)
    save_calibration(path, Calibration(seats=sector_zones(4, 800, 600)))
    text = path.read_text()
    data = tomllib.loads(text)
    assert data["table"] == {"rules": "perudo", "players": ["Ana", "Ben"]}
    assert data["pins"] == {"dudo": 17, "calza": 4}
    assert data["vision"] == {"doubt_threshold": 0.7}
    # No `clockwise`: the view says it (since session 91: written, it stood in the way of a
    # camera's view changed by hand later, the config refused, `--seats` too).
    assert data["seats"] == {"count": 4, "centre": [400.0, 300.0], "first_angle": 90.0}
    assert "# the table's own settings: calibrate must keep this comment" in text
    assert "dudo = 17  # the big red button" in text


def test_saving_keeps_each_comment_with_its_table_and_the_files_permissions(
    tmp_path: Path,
) -> None:
    path = tmp_path / "dudo.toml"
    path.write_text(
        "# the table's config: keep this at the top\n\n"
        "# the seats as the last calibration drew them\n[seats]\ncount = 2\ncentre = [1, 1]\n\n"
        "# the panel's wiring: keep this with [pins]\n[pins]\ndudo = 17\n"
    )
    path.chmod(0o640)  # it holds the table's PIN: not for every user of the Pi
    save_calibration(path, Calibration(seats=sector_zones(4, 800, 600)))
    text = path.read_text()
    assert text.startswith("# the table's config: keep this at the top\n")
    assert "# the panel's wiring: keep this with [pins]\n[pins]\ndudo = 17\n" in text
    assert "# the seats as the last calibration drew them\n[seats]\ncount = 4\n" in text
    assert tomllib.loads(text)["seats"]["count"] == 4
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["dudo.toml"]


def test_saving_keeps_the_comments_of_each_key_a_rewritten_table_still_has(
    tmp_path: Path,
) -> None:
    path = tmp_path / "dudo.toml"
    path.write_text(
        "[seats]  # the round table in the club\n"
        "# four of us on Thursdays\n"
        "count = 2\n"
        'centre = [1, 1]  # measured with a ruler, "by hand" # twice\n'
        "# gone with the key it was for\n"
        "first_angle_hint = 3\n"
    )
    save_calibration(path, Calibration(seats=sector_zones(4, 800, 600)))
    text = path.read_text()
    assert ("[seats]  # the round table in the club\n"
            "# four of us on Thursdays\ncount = 4\n") in text
    assert 'centre = [400.0, 300.0]  # measured with a ruler, "by hand" # twice\n' in text
    assert "gone with the key" not in text
    assert tomllib.loads(text)["seats"]["count"] == 4


def test_the_config_being_saved_is_never_readable_by_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "dudo.toml"
    path.write_text('[server]\npin = "4821"\n')
    path.chmod(0o640)
    (tmp_path / "dudo.toml.tmp").write_text("left by a run cut short")
    (tmp_path / "dudo.toml.tmp").chmod(0o644)
    modes: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:  # the moment a power cut would leave the copy on disk
        modes.append(stat.S_IMODE(os.fstat(fd).st_mode))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    save_calibration(path, Calibration(seats=sector_zones(4, 800, 600)))
    assert modes == [0o600]
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["dudo.toml"]


def test_a_config_that_cannot_be_written_is_named_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "dudo.toml"
    path.write_text(OTHER_TABLES)
    (tmp_path / "dudo.toml.tmp").mkdir()  # in the way of the new text, as a full disk would be
    with pytest.raises(OSError, match=f"cannot write {path}"):
        save_calibration(path, Calibration(seats=sector_zones(4, 800, 600)))
    assert path.read_text() == OTHER_TABLES


def test_zones_drawn_by_hand_may_share_an_edge_or_overlap_by_a_sliver(tmp_path: Path) -> None:
    path = tmp_path / "dudo.toml"
    path.write_text("[seats.zones]\nseat1 = [[0, 0], [305, 0], [305, 300], [0, 300]]\n"
                    "seat2 = [[300, 0], [600, 0], [600, 300], [300, 300]]\n"
                    "seat3 = [[600, 0], [900, 0], [900, 300], [600, 300]]\n")
    assert load_calibration(path).seats.seats == 3


@pytest.mark.parametrize(
    "text, message",
    [
        ("[camera]\nwidth = -4\n", r"\[camera\] width = -4: must be a whole number from 1 to"),
        ("[camera]\nlens = 3\n", r"unknown key\(s\) in \[camera\]: lens"),
        (
            "[camera]\ncolour_gains = [1.0]\n",
            r"colour_gains = \[1.0\]: must be \[red_gain, blue_gain\]",
        ),
        ("[seats]\ncount = 21\ncentre = [1, 1]\n", r"\[seats\] count = 21: must be 0..20"),
        ("[seats]\ncount = 3\n", r"count = 3 needs centre"),
        ("[seats.zones]\nseat2 = [[0, 0], [1, 0], [1, 1]]\n", "seat1..seat1 without gaps"),
        ("[seats.zones]\nseat1 = [[0, 0], [1, 0]]\n", "a zone needs 3 or more"),
        # Since session 89: the zones won over the count, and a zone's overlap with another's
        # gave its dice to the first seat, both without a word.
        ("[seats]\ncount = 4\ncentre = [400, 300]\n[seats.zones]\nseat1 = [[0, 0], [9, 0],"
         " [9, 9]]\n", r"\[seats\] count = 4 and 1 zone drawn by hand in \[seats.zones\]: give"
         " one or the other"),
        ("[seats.zones]\nseat1 = [[0, 0], [300, 0], [300, 300], [0, 300]]\n"
         "seat2 = [[200, 0], [500, 0], [500, 300], [200, 300]]\n",
         r"\[seats.zones\] seat1 and seat2 overlap \(about 33% of the smaller\): a die there"
         " would be seat1's; draw them apart"),
        ("[colours]\nAna = 3\n", r"\[colours\] Ana = 3: must be a colour name"),
        ("[colours]\nAna = \"gold\"\n", r"\[colours\] Ana = 'gold': the reader names dice white,"),
        ("[camera\n", "not valid TOML"),
        ("[camera]\nwidth = 640\nwidth = 800\n", "'width' is given twice \\(line 3\\)"),
    ],
)
def test_a_bad_calibration_table_is_refused_naming_the_key(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "dudo.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_calibration(path)


@pytest.mark.parametrize(
    "point, seat",
    [((400, 550), 1), ((790, 300), 2), ((400, 20), 3), ((50, 300), 4), ((400, 300), None)],
)
def test_equal_sectors_start_with_seat_one_at_the_bottom_and_go_anticlockwise_in_the_picture(
    point: tuple[int, int], seat: int | None
) -> None:
    assert sector_zones(4, 800, 600).seat_at(*point) == seat
    # A camera above the table sees the seats clockwise in its picture: the same point
    # mirrored is the same seat.
    above = sector_zones(4, 800, 600, clockwise=True)
    assert above.seat_at(800 - point[0], point[1]) == seat


def test_the_seat_after_the_next_in_play_is_where_a_camera_under_the_glass_sees_it() -> None:
    # Four players round the table seen from above: Ana at the bottom, and play passing
    # clockwise (to each player's left): Ben on the left, Caro at the top, Dan on the right.
    from_above = {"Ana": (400, 560), "Ben": (40, 300), "Caro": (400, 40), "Dan": (760, 300)}
    zones = sector_zones(4, 800, 600)  # what `dudo calibrate --seats 4` writes
    under_the_glass = {name: (800 - x, y) for name, (x, y) in from_above.items()}  # a mirror
    seats = {name: zones.seat_at(x, y) for name, (x, y) in under_the_glass.items()}
    assert seats == {"Ana": 1, "Ben": 2, "Caro": 3, "Dan": 4}


# -- dudo calibrate --------------------------------------------------------------------------


@pytest.fixture
def photos(tmp_path: Path) -> tuple[Path, Path]:
    """An empty glass and the same glass with eight dice, 48 px across, as the camera sees."""
    empty = tmp_path / "empty.png"
    dice = tmp_path / "dice.png"
    cv2.imwrite(str(empty), render_dice([], seed=1, background="light", glare=False).image)
    scene = render_dice([1, 2, 3, 4, 5, 6, 2, 5], seed=2, background="light", touching_pairs=1)
    cv2.imwrite(str(dice), scene.image)
    return empty, dice


def test_calibrating_at_another_picture_size_keeps_the_seat_zones_on_the_same_glass(
    tmp_path: Path, photos: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # Zones set on 2560x1920 pictures (centre and a hand-drawn seat), then the camera is
    # calibrated again at the photographs' 1280x960 without --seats.
    config = tmp_path / "table.toml"
    config.write_text("[camera]\nwidth = 2560\nheight = 1920\n\n[seats]\ncount = 4\n"
                      "centre = [1280.0, 960.0]\nfirst_angle = 80.0\n")
    empty, dice = photos
    assert main(["calibrate", "--config", str(config), "--empty", str(empty),
                 "--dice", str(dice)]) == 0
    said = capsys.readouterr().out
    assert "seats: the zones of 2560x1920 pictures scaled to 1280x960" in said
    # The camera's own size changes with them, and that is said (a Picamera2 takes its
    # pictures at it: before, only the zones' scaling was said).
    assert ("camera: pictures of 1280x960 from now on, the size of those given (the config"
            " said 2560x1920)") in said
    zones = load_calibration(config).seats
    assert (zones.count, zones.centre, zones.first_angle) == (4, (640.0, 480.0), 80.0)


def test_calibrating_from_photographs_writes_die_size_seats_and_the_empty_glass(
    tmp_path: Path, photos: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(OTHER_TABLES)
    empty, dice = photos
    argv = ["calibrate", "--config", str(config), "--empty", str(empty), "--dice", str(dice)]
    assert main([*argv, "--seats", "6"]) == 0
    out = capsys.readouterr().out
    assert "die size:" in out and "written to" in out
    # A first calibration sets the camera's size too, and says so (before, only a second).
    assert ("camera: pictures of 1280x960 from now on, the size of those given (the default is"
            " 2028x1520)") in out
    calibration = load_calibration(config)
    assert (calibration.camera.width, calibration.camera.height) == (1280, 960)
    assert calibration.seats.count == 6
    assert calibration.camera.empty == "table-empty.png"
    assert (tmp_path / "table-empty.png").is_file()
    reader = load_config(config)
    assert reader.die_size is not None and 40 <= reader.die_size <= 70  # 48 px sides, turned
    assert reader.doubt_threshold == 0.7  # the rest of [vision] kept
    assert tomllib.loads(config.read_text())["pins"]["dudo"] == 17


def test_a_calibration_that_cannot_be_saved_keeps_the_earlier_empty_glass_picture(
    tmp_path: Path, photos: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.toml"
    # Valid TOML, but [camera] written inline: not a table this writer can replace.
    text = 'camera = { source = "none", empty = "table-empty.png" }\n\n[server]\nport = 8080\n'
    config.write_text(text)
    earlier = tmp_path / "table-empty.png"
    cv2.imwrite(str(earlier), np.full((96, 128, 3), 90, np.uint8))
    kept = earlier.read_bytes()
    empty, _ = photos
    assert main(["calibrate", "--config", str(config), "--empty", str(empty)]) == 1
    err = capsys.readouterr().err
    assert f"{config}: could not rewrite [vision], [camera]" in err and "not inline" in err
    assert "nothing written" in err
    assert config.read_text() == text
    assert earlier.read_bytes() == kept
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["table.toml", "table-empty.png", *(p.name for p in photos)])


def camera_folder(tmp_path: Path, frame: Path) -> Path:
    """A folder source whose one frame is ``frame`` (moved there)."""
    folder = tmp_path / "camera"
    folder.mkdir()
    frame.rename(folder / "frame.png")
    return folder


@pytest.mark.parametrize("named", ["absolute", "relative"])
def test_calibrating_from_a_folder_source_takes_the_empty_glass_from_it(
    tmp_path: Path, photos: tuple[Path, Path], named: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = camera_folder(tmp_path, photos[0])
    config = tmp_path / "dudo.toml"
    monkeypatch.chdir(tmp_path)
    spec = f"folder:{folder}" if named == "absolute" else "folder:camera"
    assert main(["calibrate", "--config", str(config), "--source", spec]) == 0
    calibration = load_calibration(config)
    # Written whole: the service reads it from another working directory.
    assert calibration.camera.source == f"folder:{folder.resolve()}"
    assert calibration.camera.brightness is not None and calibration.camera.brightness > 150
    # Not at a terminal, nobody can put the dice down: it says the die size was not measured.
    assert "the die size is not measured" in capsys.readouterr().out


def test_a_video_device_named_by_a_relative_path_is_written_whole(
    tmp_path: Path, photos: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = cv2.imread(str(photos[0]))
    height, width = empty.shape[:2]
    video = cv2.VideoWriter(str(tmp_path / "glass.avi"), cv2.VideoWriter_fourcc(*"MJPG"), 5,
                            (width, height))
    for _ in range(3):
        video.write(empty)
    video.release()
    config = tmp_path / "dudo.toml"
    monkeypatch.chdir(tmp_path)
    assert main(["calibrate", "--config", str(config), "--source", "device:glass.avi"]) == 0
    # The service reads it from its own directory: the path is the file's, whole.
    assert load_calibration(config).camera.source == f"device:{(tmp_path / 'glass.avi').resolve()}"


def test_dice_left_on_the_glass_are_said_before_the_dice_are_asked_for(
    tmp_path: Path, photos: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Before, the engineer was asked to throw the dice, and only then told the glass had
    # not been empty.
    folder = camera_folder(tmp_path, photos[1])  # the camera sees dice as the glass is taken
    config = tmp_path / "dudo.toml"
    asked: list[str] = []
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda text: asked.append(text) or "")
    assert main(["calibrate", "--config", str(config), "--source", f"folder:{folder}"]) == 1
    assert "the empty glass shows 8 dice at" in capsys.readouterr().err
    assert [text.split(" (")[0] for text in asked] == ["Clear the glass"]
    assert not config.exists()


@pytest.mark.parametrize("stop", [EOFError, KeyboardInterrupt], ids=["ctrl-d", "ctrl-c"])
def test_stopping_at_a_prompt_writes_nothing_and_says_so(
    tmp_path: Path, photos: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], stop: type[BaseException],
) -> None:
    folder = camera_folder(tmp_path, photos[0])
    config = tmp_path / "dudo.toml"
    config.write_text(OTHER_TABLES)

    def prompt(text: str) -> str:
        raise stop

    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", prompt)
    code = main(["calibrate", "--config", str(config), "--source", f"folder:{folder}"])
    assert code == (130 if stop is KeyboardInterrupt else 1)  # Ctrl-C: 130, as every command
    err = capsys.readouterr().err
    assert f"dudo calibrate: stopped: nothing written to {config}" in err
    assert "Traceback" not in err and config.read_text() == OTHER_TABLES


def a_die_left_among_halves(path: Path) -> np.ndarray:
    """A die left on the glass, the frame's edges cutting two more in half: the halves are
    doubted, and read with it, the three are a picture mostly doubted."""
    scene = render_dice([2, 5, 3], seed=28, width=1280, height=960, die_size=48.0)
    _, left, top = scene.dice
    return np.ascontiguousarray(scene.image[int(top.y):, int(left.x):])


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: render_dice([], seed=1, exposure=0.2).image, "too dark"),
        (lambda p: render_dice([], seed=1, exposure=3.0, background="light").image, "burnt out"),
        (
            lambda p: render_dice([3, 4, 6], seed=1, background="light").image,
            "empty.png shows 3 dice at",
        ),
        # Before, the die left was doubted with the halves (the picture mostly doubted), and
        # all three were kept as marks, never counted as dice again.
        (a_die_left_among_halves, "empty.png shows 1 dice at"),
        # Before, every die of a picture out of focus was doubted, those left on the glass
        # too, and all 15 were written as marks, never counted as dice again (a helper's
        # audit: the lens not yet focused at a first calibration).
        (lambda p: cv2.GaussianBlur(cv2.imread(str(DEV / "images" / "IMG_20191208_111228.jpg")),
                                    (0, 0), 3.5),
         "empty.png: the picture is out of focus: take it again (where the reader sees 15"
         " places like dice"),
        # Before (session 92's audit), dice under 11 px across were all doubted as too small
        # to read surely, and 22 written as marks.
        (lambda p: cv2.flip(cv2.resize(cv2.imread(str(DEV / "images" / "IMG_20191208_111228.jpg")),
                                       None, fx=0.3, fy=0.3, interpolation=cv2.INTER_AREA), 1),
         ": clear the glass"),
    ],
    ids=["dark", "burnt-out", "not-empty", "a-die-left", "out-of-focus", "small-dice-left"],
)
def test_a_bad_empty_glass_is_refused_and_nothing_is_written(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], np.ndarray],
    message: str,
) -> None:
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), make(tmp_path))
    config = tmp_path / "dudo.toml"
    config.write_text(OTHER_TABLES)
    assert main(["calibrate", "--config", str(config), "--empty", str(empty)]) == 1
    err = capsys.readouterr().err
    assert message in err and "nothing written" in err
    assert config.read_text() == OTHER_TABLES


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "nothing to calibrate"),
        (["--empty", "missing.png"], "missing.png: no such file"),
        (["--seats", "21"], "--seats 21: must be 1..20"),
        (["--source", "webcam"], "frame source 'webcam' unknown"),
        (["--source", "device:57"], "device:57: no camera at index 57"),
    ],
)
def test_bad_calibration_input_is_a_clear_message_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    config = tmp_path / "dudo.toml"
    config.write_text(OTHER_TABLES)
    assert main(["calibrate", "--config", str(config), *argv]) == 1
    assert message in capsys.readouterr().err
    assert config.read_text() == OTHER_TABLES


def test_a_picture_too_small_to_read_is_named_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dot = tmp_path / "dot.png"
    cv2.imwrite(str(dot), np.zeros((1, 1, 3), np.uint8))
    config = tmp_path / "dudo.toml"
    config.write_text(OTHER_TABLES)
    assert main(["calibrate", "--config", str(config), "--dice", str(dot)]) == 1
    assert capsys.readouterr().err.startswith(
        f"dudo calibrate: {dot}: 1x1 pixels: empty or too small")
    assert config.read_text() == OTHER_TABLES


def test_a_config_in_no_folder_or_a_loop_of_links_is_named_for_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], photos: tuple[Path, Path]
) -> None:
    # Before, the missing folder was blamed on a hidden file of the calibration's own.
    empty, _ = photos
    nowhere = tmp_path / "nodir" / "dudo.toml"
    assert main(["calibrate", "--config", str(nowhere), "--empty", str(empty)]) == 1
    assert f"dudo calibrate: {nowhere}: no such folder {nowhere.parent}\n" in (
        capsys.readouterr().err)
    assert not nowhere.parent.exists()
    loop = tmp_path / "a.toml"
    loop.symlink_to("b.toml")
    (tmp_path / "b.toml").symlink_to("a.toml")
    assert main(["calibrate", "--config", str(loop), "--seats", "3"]) == 1
    assert f"dudo calibrate: {loop}: a loop of links, no config file\n" in (
        capsys.readouterr().err)


def test_a_camera_that_is_not_there_is_our_one_message_not_opencv_s_logs_too(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "dudo.toml"
    assert main(["calibrate", "--config", str(config), "--source", "device:57"]) == 1
    assert capfd.readouterr().err.splitlines() == [
        "dudo calibrate: device:57: no camera at index 57 (cv2.VideoCapture)",
        f"dudo calibrate: nothing written to {config}",
    ]


def test_a_read_only_config_is_left_alone_and_seats_without_a_picture_say_its_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "dudo.toml"
    config.write_text(OTHER_TABLES)
    config.chmod(0o444)
    assert main(["calibrate", "--config", str(config), "--seats", "4"]) == 1
    assert f"{config}: the config is read-only (mode 444)" in capsys.readouterr().err
    assert config.read_text() == OTHER_TABLES
    config.chmod(0o644)
    assert main(["calibrate", "--config", str(config), "--seats", "4"]) == 0
    assert "of a 2028x1520 picture: the config's camera size" in capsys.readouterr().out


def test_seats_alone_for_a_camera_of_no_known_picture_size_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, a folder's (or a USB camera's) zones were laid out on the default 2028x1520
    # picture whatever its own size: every reveal then found the dice in the wrong zones.
    config = tmp_path / "dudo.toml"
    written = "[camera]\nsource = 'folder:frames'\n"
    config.write_text(written)
    assert main(["calibrate", "--config", str(config), "--seats", "4"]) == 1
    assert ("--seats 4: the size of the camera's pictures is not known"
            in capsys.readouterr().err)
    assert config.read_text() == written
    config.write_text(written + "width = 1280\nheight = 960\n")
    assert main(["calibrate", "--config", str(config), "--seats", "4"]) == 0
    assert load_calibration(config).seats.centre == (640.0, 480.0)


@pytest.mark.parametrize(
    ("other", "said"),
    [("[pins]\ndudo = 5\ncalza = 5\n", "BCM pin 5 is used twice"),
     ("[server]\nport = 'eighty'\n", "[server] port = 'eighty': must be a whole number"),
     ("[table]\nplayers = ['Ana']\n", "[table] 1 player: perudo seats 2-6 players"),
     ("[camera]\nwidth = 'x'\n", "[camera] width = 'x': must be a whole number"),
     # The reader's table too (it was read after the measuring, and said with status 1).
     ("[vision]\ndie_size = 'big'\n", "[vision] die_size = 'big': must be a number")],
    ids=["a pin used twice", "a port in words", "one player", "a width in words",
         "a die size in words"],
)  # fmt: skip
def test_a_config_the_table_would_refuse_is_said_and_left_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], other: str, said: str
) -> None:
    config = tmp_path / "dudo.toml"
    config.write_text(other)
    assert main(["calibrate", "--config", str(config), "--seats", "3"]) == 2
    err = capsys.readouterr().err
    assert said in err and "mend it first, or the table would not start with it" in err
    assert config.read_text() == other  # nothing written


def test_calibrate_replaces_no_device_and_writes_through_a_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "configs"
    folder.mkdir()  # as /dev/null or a pipe would be: no file to replace (a test replaces none)
    assert main(["calibrate", "--config", str(folder), "--seats", "3"]) == 1
    assert f"{folder}: not a config file (a folder or a device)" in capsys.readouterr().err
    assert folder.is_dir() and not any(folder.iterdir())
    real = tmp_path / "real" / "c.toml"
    real.parent.mkdir()
    real.write_text(OTHER_TABLES)
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    assert main(["calibrate", "--config", str(link), "--seats", "3"]) == 0
    assert link.is_symlink() and load_calibration(real).seats.count == 3


def test_a_picture_too_large_for_a_config_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wide = tmp_path / "wide.png"
    cv2.imwrite(str(wide), np.full((16, 16_385, 3), 90, np.uint8))
    config = tmp_path / "dudo.toml"
    config.write_text(OTHER_TABLES)
    assert main(["calibrate", "--config", str(config), "--empty", str(wide)]) == 1
    assert "[camera] width = 16385: must be a whole number from 1 to" in capsys.readouterr().err
    assert config.read_text() == OTHER_TABLES


def test_the_marks_on_the_glass_follow_a_new_picture_size_as_the_seats_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "dudo.toml"
    config.write_text("[camera]\nwidth = 640\nheight = 480\n[vision]\nmarks = [[100.0, 200.0]]\n")
    picture = tmp_path / "dice.png"
    cv2.imwrite(str(picture), render_dice([3, 5, 2], seed=4, width=1280, height=960).image)
    assert main(["calibrate", "--config", str(config), "--dice", str(picture)]) == 0
    assert "marks: 1 scaled to 1280x960 pictures" in capsys.readouterr().out
    assert load_config(config).marks == ((200.0, 400.0),)


def test_the_die_size_follows_a_new_picture_size_when_no_dice_are_photographed(
    tmp_path: Path, photos: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # Measured on 2560x1920 pictures; the empty glass photographed again at 1280x960 alone:
    # before, the dice were still looked for at 96 px, and misread.
    config = tmp_path / "table.toml"
    config.write_text("[camera]\nwidth = 2560\nheight = 1920\n\n[vision]\ndie_size = 96.0\n")
    empty, dice = photos
    assert main(["calibrate", "--config", str(config), "--empty", str(empty)]) == 0
    assert ("die size: 48 px, scaled from 2560x1920 pictures (give --dice to measure it again)"
            in capsys.readouterr().out)
    assert load_config(config).die_size == 48.0
    assert main(["scan", "--config", str(config), "--view", "above", "--json", str(dice)]) == 0
    assert json.loads(capsys.readouterr().out)["counts"] == {
        "1": 1, "2": 2, "3": 1, "4": 1, "5": 2, "6": 1}


def test_a_die_size_scaled_past_what_the_reader_reads_is_refused_with_nothing_written(
    tmp_path: Path, photos: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # 9.6 px: a size a config may give, but every die would be doubted at it.
    written = "[camera]\nwidth = 8000\nheight = 6000\n\n[vision]\ndie_size = 60.0\n"
    config = tmp_path / "table.toml"
    config.write_text(written)
    assert main(["calibrate", "--config", str(config), "--empty", str(photos[0])]) == 1
    assert ("the die size 60 px of 8000x6000 pictures is 9.6 px at 1280x960, where the reader"
            " reads dice surely at 11..1000 px: give a dice picture (--dice) to measure it again"
            in capsys.readouterr().err)
    assert config.read_text() == written


def test_marks_and_zones_of_a_config_without_a_camera_size_are_kept_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, they were taken for pixels of the default camera's 2028x1520 pictures and
    # shrunk to 63%, where `dudo scan` and `dudo serve` read them as they are.
    config = tmp_path / "dudo.toml"
    config.write_text("[vision]\nmarks = [[640.0, 480.0]]\n\n[seats]\ncount = 4\n"
                      "centre = [640.0, 480.0]\n")
    picture = tmp_path / "dice.png"
    cv2.imwrite(str(picture), render_dice([3, 5, 2], seed=4, width=1280, height=960).image)
    assert main(["calibrate", "--config", str(config), "--dice", str(picture)]) == 0
    assert "scaled" not in capsys.readouterr().out
    assert load_config(config).marks == ((640.0, 480.0),)
    assert load_calibration(config).seats.centre == (640.0, 480.0)
    assert load_calibration(config).camera.width == 1280  # from now on, the size they are of


def test_seats_written_anew_keep_the_camera_s_side_of_the_glass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, --seats wrote clockwise = false over a camera above the table's true: every
    # seat's dice went to the seat across. Since session 91 the seats' way round is the
    # view's: clockwise seats with the view under the glass (the default) are refused, said,
    # and nothing written (before, every face was read as 7 minus its pips, each count
    # matching, unsaid: a helper's audit).
    config = tmp_path / "dudo.toml"
    clockwise = "[seats]\ncount = 4\ncentre = [1014.0, 760.0]\nclockwise = true\n"
    config.write_text(clockwise)
    assert main(["calibrate", "--config", str(config), "--seats", "6"]) == 2
    said = capsys.readouterr().err
    assert ('[seats] clockwise = true: the seats run clockwise in the picture of a camera above'
            ' the table only, but [camera] view is "below" (the default): for a camera above'
            ' the table set [camera] view = "above"') in said, said
    assert config.read_text() == clockwise
    # Anticlockwise seats with a camera above the table (a view set by hand after them).
    config.write_text('[camera]\nview = "above"\n' + clockwise.replace("true", "false"))
    with pytest.raises(ValueError, match=r"\[seats\] clockwise = false: the seats run"
                       r" anticlockwise in the picture of the camera under the glass, but"
                       r' \[camera\] view = "above": for a camera above the table set'
                       r" clockwise = true \(or leave it out\)"):
        load_calibration(config)
    # Written without the way round: as the view has it.
    config.write_text('[camera]\nview = "above"\n' + clockwise.replace("clockwise = true\n", ""))
    assert load_calibration(config).seats.clockwise
    # A camera above the table, as [camera] view says: its seats run clockwise in it too.
    config.write_text("[camera]\nview = 'above'\nwidth = 2028\nheight = 1520\n")
    assert main(["calibrate", "--config", str(config), "--seats", "4"]) == 0
    assert ('the next seats clockwise in it (a camera above the table: the config\'s [camera]'
            ' view = "above"') in capsys.readouterr().out
    calibrated = load_calibration(config)
    assert calibrated.seats.clockwise and calibrated.camera.view == "above"
    # The camera moved under the glass, its view taken out by hand: the seats follow it
    # (before, the `clockwise = true` written beside them had the config refused).
    config.write_text(config.read_text().replace("view = 'above'\n", ""))
    assert "view" not in config.read_text()
    assert not load_calibration(config).seats.clockwise


@pytest.mark.parametrize("moment", ["config", "picture"])
def test_stopped_while_saving_leaves_the_config_as_it_was_and_nothing_beside_it(
    tmp_path: Path, photos: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], moment: str,
) -> None:
    # Before, the config's copy (mode 600) and the new empty-glass picture were left; and
    # until session 53, the part of the picture written when Ctrl-C came as it was written.
    config = tmp_path / "dudo.toml"
    config.write_text(OTHER_TABLES)
    empty, _ = photos

    def ctrl_c(fd: int) -> None:
        raise KeyboardInterrupt

    def ctrl_c_halfway(name: str, image: np.ndarray) -> bool:
        Path(name).write_bytes(b"\x89PNG half a picture")
        raise KeyboardInterrupt

    if moment == "config":
        monkeypatch.setattr(os, "fsync", ctrl_c)  # Ctrl-C as the copy goes to the card
    else:
        monkeypatch.setattr(cv2, "imwrite", ctrl_c_halfway)
    assert main(["calibrate", "--config", str(config), "--empty", str(empty)]) == 130
    assert f"stopped: nothing written to {config}" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["dudo.toml", empty.name, "dice.png"])
    assert config.read_text() == OTHER_TABLES


def test_an_empty_glass_picture_that_cannot_be_written_says_why(
    tmp_path: Path, photos: tuple[Path, Path],
    capfd: pytest.CaptureFixture[str],
) -> None:
    # OpenCV says only "false" (and a raw warning of its own, on the process's stderr): the
    # file, opened by hand, says why. Here a folder stands where the picture goes, which
    # root cannot write over either.
    config = tmp_path / "dudo.toml"
    empty, _ = photos
    (tmp_path / ".dudo-empty.new.png").mkdir()
    assert main(["calibrate", "--config", str(config), "--empty", str(empty)]) == 1
    err = capfd.readouterr().err
    assert "could not write the empty-glass picture" in err and "Is a directory" in err
    assert "WARN" not in err and not config.exists()


def test_stopped_once_the_config_is_written_is_no_traceback(
    tmp_path: Path, photos: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Ctrl-C as what was measured is being printed, the config written whole: before, a
    # KeyboardInterrupt traceback, from the flush of the output after the command.
    config = tmp_path / "dudo.toml"
    empty, _ = photos

    def ctrl_c() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("vision.output.flush_output", ctrl_c)
    assert main(["calibrate", "--config", str(config), "--empty", str(empty)]) == 130
    assert "Traceback" not in capsys.readouterr().err
    assert "[vision]" in config.read_text()  # the config was written, whole


def test_the_simulator_at_a_terminal_throws_the_dice_it_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, its glass stayed empty ("no dice found: put a few dice on the glass").
    monkeypatch.setattr("builtins.input", lambda prompt: "")
    config = tmp_path / "dudo.toml"
    lines = calibrate(config, source_spec="sim", interactive=True)
    assert any(line.startswith("die size:") for line in lines), lines
    assert load_config(config).die_size is not None
    # The simulator is now the table's camera, and that is said (a trial's `source = "sim"`,
    # left in the config, read an empty glass at every reveal of the real table).
    assert ("camera: sim, the camera the table reads its reveals from now on (it was"
            " picamera2)") in lines
    again = calibrate(config, source_spec="sim", interactive=True)
    assert not any(line.startswith("camera: sim") for line in again)  # no change, not said


def test_a_config_written_in_this_folder_says_how_dudo_serve_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, dudo calibrate wrote ./dudo.toml and dudo serve, run beside it, read no config.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("builtins.input", lambda prompt: "")
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    assert main(["calibrate", "--source", "sim"]) == 0
    out = capsys.readouterr().out
    assert "written to dudo.toml" in out
    assert "dudo serve reads it when given: dudo serve --config dudo.toml" in out
    assert load_config(tmp_path / "dudo.toml").die_size is not None


def test_a_dice_picture_without_dice_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), render_dice([], seed=3, background="light").image)
    config = tmp_path / "dudo.toml"
    assert main(["calibrate", "--config", str(config), "--dice", str(blank)]) == 1
    assert "blank.png: no dice found" in capsys.readouterr().err
    assert not config.exists()


def test_a_dice_picture_of_the_bare_tray_asks_for_dice_not_a_closer_camera(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One speck on the tray, no die: before (session 92's audit), "the dice measure 5 px
    # across ... move the camera closer", to a player who had not thrown the dice yet.
    photo = load_image(DEV / "images" / "IMG_20191208_112902.jpg")
    bare = tmp_path / "bare.png"
    cv2.imwrite(str(bare), cv2.flip(photo[160:480, 160:480], 1))
    config = tmp_path / "dudo.toml"
    assert main(["calibrate", "--config", str(config), "--dice", str(bare)]) == 1
    err = capsys.readouterr().err
    assert "put a few dice, face down, on the glass" in err
    assert "closer" not in err and not config.exists()


@pytest.mark.parametrize(("name", "factor", "said"), [
    # A camera far from the glass: the dev photograph's dice shrunk to about 7 px across.
    ("111228", 0.2, "7 px across"),
    # About 11 px: each die measured in whole pixels reaches 11, yet the reader doubts every
    # one for its size; the light was blamed ("no die read surely ... in good light").
    ("111446", 0.27, "10.5 px across"),
])
def test_dice_too_small_to_read_surely_are_refused_not_written_as_a_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, factor: float, said: str
) -> None:
    photo = load_image(DEV / "images" / f"IMG_20191208_{name}.jpg")
    far = cv2.copyMakeBorder(cv2.resize(photo, None, fx=factor, fy=factor,
                                        interpolation=cv2.INTER_AREA),
                             100, 100, 100, 100, cv2.BORDER_REPLICATE)
    dice = tmp_path / "far.png"
    cv2.imwrite(str(dice), cv2.flip(far, 1))  # as the camera under the glass sees them
    config = tmp_path / "dudo.toml"
    assert main(["calibrate", "--config", str(config), "--dice", str(dice)]) == 1
    err = capsys.readouterr().err
    assert f"far.png: the dice measure {said}" in err
    assert "too small to read surely (at least 11 px each): move the camera closer" in err
    assert "good light" not in err
    assert not config.exists()


def test_a_few_dice_too_small_among_larger_ones_are_refused_saying_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Dice of 11-17 px, three of them under 11: every reveal would doubt those. Before
    # (session 93's audits), refused as "the dice measure 14 px across, too small (at least
    # 11 px)", and then, mended, taken: 11 px written for dice the reader doubts.
    photo = load_image(DEV / "images" / "IMG_20191208_111730.jpg")
    near = cv2.copyMakeBorder(cv2.resize(photo, None, fx=0.4, fy=0.4,
                                         interpolation=cv2.INTER_AREA),
                              100, 100, 100, 100, cv2.BORDER_REPLICATE)
    dice = tmp_path / "near.png"
    cv2.imwrite(str(dice), cv2.flip(near, 1))
    config = tmp_path / "dudo.toml"
    assert main(["calibrate", "--config", str(config), "--dice", str(dice)]) == 1
    err = capsys.readouterr().err
    assert "near.png: some dice measure under 11 px across (the smallest " in err
    assert ("too small to read surely (at least 11 px each): every reveal would doubt them:"
            " move the camera closer") in err
    assert not config.exists()


@pytest.mark.parametrize(("change", "said"), [
    (lambda image: cv2.GaussianBlur(image, (0, 0), 4.0), OUT_OF_FOCUS),
    (lambda image: cv2.GaussianBlur(image, (0, 0), 8.0), OUT_OF_FOCUS),  # no die read at all
    (lambda image: (image / 12).astype(np.uint8), TOO_DARK),
    (lambda image: (image / 60).astype(np.uint8), TOO_DARK),
])
def test_a_dice_picture_too_dark_or_out_of_focus_is_refused_saying_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
    change: Callable[[np.ndarray], np.ndarray], said: str,
) -> None:
    # Before, the players were told to put dice on the glass "in good light" for a camera
    # out of focus.
    photo = load_image(DEV / "images" / "IMG_20191208_111228.jpg")
    dice = tmp_path / "dice.png"
    cv2.imwrite(str(dice), cv2.flip(change(photo), 1))
    config = tmp_path / "dudo.toml"
    assert main(["calibrate", "--config", str(config), "--dice", str(dice)]) == 1
    err = capsys.readouterr().err
    assert ("dice.png: no die read surely" in err or "dice.png: no dice found" in err)
    assert said in err
    assert "put a few dice" not in err and not config.exists()


def test_marks_on_the_empty_glass_are_never_counted_as_dice(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    table_without_dice: Callable[[str], np.ndarray],
) -> None:
    # A sticker on the glass that the reader takes for a doubtful die: here a piece of a
    # die's photograph (the first piece it is doubtful of), stuck at the same place in every
    # photograph of the dev set's tray, as a fixed camera sees it. Calibrated once from the
    # empty tray (a photograph with its dice painted over by the tray's colour), the sticker
    # is a mark, and later photographs of the tray show only their dice.

    at = (450, 450)  # bare tray in every photograph below
    empty_tray = table_without_dice("IMG_20191208_112127")
    sticker = _a_sticker_the_reader_doubts(empty_tray, at, DEV)
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), _stuck(empty_tray, sticker, at))
    config = tmp_path / "dudo.toml"
    assert main(["calibrate", "--config", str(config), "--empty", str(empty)]) == 0
    assert "marks on the glass" in capsys.readouterr().out
    marks = load_config(config).marks
    assert any(abs(x - at[0]) < 20 and abs(y - at[1]) < 20 for x, y in marks), marks
    for name in ("IMG_20191208_112014", "IMG_20191208_112122", "IMG_20191208_112239"):
        photo = _stuck(load_image(DEV / "images" / f"{name}.jpg"), sticker, at)
        labels = load_labels(DEV / "labels" / f"{name}.txt", 640, 640, "above")
        with_marks = read_dice(photo, load_config(config), view="above")
        assert score_image(name, labels, with_marks).exact, with_marks.dice
        assert with_marks.total == len(labels) < read_dice(photo, view="above").total


def _stuck(photo: np.ndarray, sticker: np.ndarray, at: tuple[int, int]) -> np.ndarray:
    out = photo.copy()
    h, w = sticker.shape[:2]
    out[at[1] - h // 2 : at[1] - h // 2 + h, at[0] - h // 2 : at[0] - h // 2 + w] = sticker
    return out


def _a_sticker_the_reader_doubts(
    empty_tray: np.ndarray, at: tuple[int, int], dev: Path
) -> np.ndarray:
    """The first piece (the left part) of a die of a dev photograph that the reader, seeing
    it stuck on the empty tray, takes for one doubtful die there (and sees nothing else)."""
    photo = load_image(dev / "images" / "IMG_20191208_111304.jpg")
    for lab in load_labels(dev / "labels" / "IMG_20191208_111304.txt", 640, 640, "above"):
        half = int(lab.size) // 2 + 2
        die = photo[int(lab.y) - half : int(lab.y) + half, int(lab.x) - half : int(lab.x) + half]
        for share in (0.4, 0.5, 0.6, 0.7):
            sticker = die[:, : int(2 * half * share)].copy()
            seen = read_dice(_stuck(empty_tray, sticker, at), view="above").dice
            if (
                len(seen) == 1
                and seen[0].confidence < DEFAULT_DOUBT_THRESHOLD
                and abs(seen[0].x - at[0]) < 20
                and abs(seen[0].y - at[1]) < 20
            ):
                return sticker
    raise AssertionError("the reader takes no piece of a die for a doubtful die")


def test_a_source_path_written_by_hand_is_read_beside_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "srv" / "table.toml"
    config.parent.mkdir()
    config.write_text("[camera]\nsource = 'folder:frames'\n")
    monkeypatch.chdir("/")  # the service starts elsewhere
    assert load_calibration(config).camera.source == f"folder:{tmp_path / 'srv' / 'frames'}"


@pytest.mark.parametrize("value", ["[[nan, 1.0]]", "[[1.0, inf]]"])
def test_marks_must_be_places_on_the_glass(tmp_path: Path, value: str) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f"[vision]\nmarks = {value}\n")
    with pytest.raises(ValueError, match=r"\[vision\] marks = .*: must be a list of \[x, y\]"):
        load_config(config)


def test_the_die_size_is_measured_on_dice_read_surely_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every die doubtful (a table that doubts all): no size is taken from a doubtful "die",
    # which may be the tray itself.
    config = tmp_path / "dudo.toml"
    config.write_text("[vision]\ndoubt_threshold = 1.0\n")
    picture = tmp_path / "dice.png"
    cv2.imwrite(str(picture), render_dice([3, 5, 2], seed=4).image)
    assert main(["calibrate", "--config", str(config), "--dice", str(picture)]) == 1
    assert "dice.png: no die read surely (3 doubtful)" in capsys.readouterr().err
    assert config.read_text() == "[vision]\ndoubt_threshold = 1.0\n"


def test_picamera2_is_metered_and_locked_on_the_glass_once_it_is_cleared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, the exposure was metered as the command started, on the hands and cups still
    # on the glass (or the light still off), then locked for every reveal.
    from tests.vision.test_sources import RecordingPicamera2

    said: list[str] = []

    class Camera(RecordingPicamera2):
        def capture_metadata(self) -> dict[str, object]:
            said.append("metered")
            return super().capture_metadata()

        def capture_array(self, stream: str) -> np.ndarray:
            super().capture_array(stream)
            return np.full((1520, 2028, 3), 120, np.uint8)  # the empty glass, lit

    monkeypatch.setattr("vision.sources._picamera2_class", lambda: Camera)
    monkeypatch.setattr("builtins.input", lambda prompt: said.append(prompt) or "s")
    lines = calibrate(tmp_path / "dudo.toml", source_spec="picamera2", interactive=True)
    assert said[0].startswith("Clear the glass") and said[1] == "metered", said
    assert "exposure locked: 8000 us, gain 1.50, colour gains (1.9, 1.6)" in lines


@pytest.mark.parametrize("focuses", [True, False], ids=["autofocus", "fixed-focus"])
def test_a_camera_that_focuses_itself_is_focused_on_the_dice_thrown_and_held_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, focuses: bool
) -> None:
    # A Camera Module 3 left to itself holds its lens at about a metre: the dice under the
    # glass, a third of that away, came out soft at every reveal (now all doubted as out of
    # focus). A camera of fixed focus has no lens to move, and nothing is written for it.
    from tests.vision.test_sources import RecordingPicamera2
    from vision.calibration import load_calibration
    from vision.sources import PicameraSource

    said: list[str] = []
    dice = render_dice([1, 2, 3, 4, 5, 6], seed=5, width=2028, height=1520).image

    class Camera(RecordingPicamera2):
        def __init__(self) -> None:
            super().__init__()
            if focuses:
                self.camera_controls = {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0)}

        def autofocus_cycle(self) -> bool:
            said.append("focused")
            return True

        def capture_metadata(self) -> dict[str, object]:
            return {**super().capture_metadata(), "LensPosition": 3.2}

        def capture_array(self, stream: str) -> np.ndarray:
            super().capture_array(stream)
            if "Throw" in said[-1] or said[-1] == "focused":
                return dice
            return np.full_like(dice, 120)  # the empty glass, lit

    monkeypatch.setattr("vision.sources._picamera2_class", lambda: Camera)
    monkeypatch.setattr("builtins.input", lambda prompt: said.append(prompt) or "")
    config = tmp_path / "dudo.toml"
    lines = calibrate(config, source_spec="picamera2", interactive=True)
    camera = load_calibration(config).camera
    if not focuses:
        assert "focused" not in said and camera.lens_position is None
        assert not any(line.startswith("focus locked") for line in lines)
        return
    assert said.index("focused") == said.index(next(p for p in said if "Throw" in p)) + 1
    assert "focus locked: lens at 3.20 dioptres (about 31 cm)" in lines
    assert camera.lens_position == 3.2
    assert any(line.startswith("die size:") for line in lines)  # the dice read, in focus
    # Every start after holds the lens there, as it holds the exposure.
    held = Camera()
    PicameraSource(camera, camera_factory=lambda: held).start()
    controls = held.calls[0][1]["controls"]
    assert controls["AfMode"] == 0 and controls["LensPosition"] == 3.2
    assert controls["ExposureTime"] == 8000
    # Calibrated again, the dice skipped: the lens stays where it was focused, held while the
    # glass is metered and taken (it was dropped from the config, and every reveal after came
    # out soft).
    monkeypatch.setattr("builtins.input", lambda prompt: said.append(prompt) or "s")
    said.clear()
    again = calibrate(config, source_spec="picamera2", interactive=True)
    assert "focused" not in said
    assert ("focus: the lens held at 3.20 dioptres, as calibrated before (throw dice to focus"
            " it again)") in again
    assert load_calibration(config).camera.lens_position == 3.2


def test_seats_calibrated_over_zones_drawn_by_hand_say_they_replace_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, the zones drawn by hand went without a word.
    config = tmp_path / "dudo.toml"
    config.write_text("[camera]\nwidth = 800\nheight = 600\n[seats.zones]\n"
                      "seat1 = [[0, 0], [400, 0], [400, 600]]\n"
                      "seat2 = [[400, 0], [800, 0], [800, 600]]\n")
    assert main(["calibrate", "--config", str(config), "--seats", "3"]) == 0
    assert "seats: the 2 zones drawn by hand in [seats.zones] are replaced" in (
        capsys.readouterr().out)
    assert load_calibration(config).seats.count == 3
