"""``dudo calibrate``: measure the table and write it to the TOML config.

From a photograph of the empty glass (``--empty``, or taken now from ``--source``): its
brightness, checked neither too dark nor burnt out, and kept as a reference picture; and
its marks, places the reader takes for doubtful dice, from then on never counted as dice
(``[vision] marks``). From a photograph with dice on the glass (``--dice``, or taken from
the source after a prompt): the die size in pixels, for ``[vision] die_size``.
``--seats N``: N equal seat zones around the centre of the picture, seat 1 at the bottom,
then anticlockwise in the picture: clockwise round the table, seen from above, as the
camera under the glass sees it in a mirror. A Picamera2 source also has its automatic
exposure and white balance read and locked.

Nothing is written unless every step succeeded; other tables of the config are kept.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import stat
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.calibration import (
    MOST_SEATS,
    Calibration,
    CameraSettings,
    calibration_from_dict,
    calibration_tables,
    sector_zones,
)
from vision.config import DIE_SIZES, ReaderConfig, config_from_dict, read_toml
from vision.reader import SMALLEST_SURE_DIE
from vision.reading import BURNT_OUT, OUT_OF_FOCUS, TOO_DARK, TOO_SMALL, Reading, UnreadableImage
from vision.simulate import SimulatedCamera
from vision.sources import CameraUnavailable, FrameSource, PicameraSource, open_source
from vision.tomlwrite import save_tables

DEFAULT_CONFIG = "dudo.toml"
# The light under the glass must light the dice without burning out the glass.
_TOO_DARK = 35.0
_BURNT_OUT_SHARE = 0.05


class CalibrationError(ValueError):
    """A calibration step failed; the message says which input and why."""


def calibrate_command(args: argparse.Namespace) -> int:
    """Run ``dudo calibrate``; print what was measured; 0 when the config was written."""
    path = Path(args.config or DEFAULT_CONFIG)
    try:
        lines = calibrate(
            path,
            source_spec=args.source,
            empty=args.empty,
            dice=args.dice,
            seats=args.seats,
            interactive=sys.stdin.isatty(),
        )
    except (ValueError, CameraUnavailable, OSError) as err:
        # ValueError covers CalibrationError, UnreadableImage and a bad config table;
        # OSError a reader model missing or a config folder that cannot be written.
        print(f"dudo calibrate: {err}", file=sys.stderr)
        print(f"dudo calibrate: nothing written to {path}", file=sys.stderr)
        return 1
    except (EOFError, KeyboardInterrupt) as stop:  # Ctrl-D or Ctrl-C at a prompt
        print(f"\ndudo calibrate: stopped: nothing written to {path}", file=sys.stderr)
        return 130 if isinstance(stop, KeyboardInterrupt) else 1  # as every command's Ctrl-C
    for line in lines:
        print(line)
    if args.config is None:
        # dudo serve reads no config unless given one: say how this one is used.
        print(f"dudo serve reads it when given: dudo serve --config {path} (the service reads"
              " /etc/dudo-companion/config.toml: calibrate that with --config)")
    return 0


def calibrate(
    path: Path,
    *,
    source_spec: str | None = None,
    empty: str | None = None,
    dice: str | None = None,
    seats: int = 0,
    interactive: bool = False,
) -> list[str]:
    """Measure what the inputs allow, write it to ``path``; the lines to show the user."""
    if not (source_spec or empty or dice or seats):
        raise CalibrationError("nothing to calibrate: give --empty, --dice, --source or --seats")
    if seats < 0 or seats > MOST_SEATS:
        raise CalibrationError(f"--seats {seats}: must be 1..{MOST_SEATS}")
    # A link is followed to the config it names; anything but a file (/dev/null, a folder, a
    # pipe) is no config to replace.
    try:
        path = path.resolve() if path.is_symlink() else path
    except RuntimeError:  # Python 3.11's "Symlink loop"
        raise CalibrationError(f"{path}: a loop of links, no config file") from None
    if path.exists() and not path.is_file():
        raise CalibrationError(f"{path}: not a config file (a folder or a device): give the"
                               " TOML file itself")
    if not path.parent.is_dir():
        raise CalibrationError(f"{path}: no such folder {path.parent}")
    if not os.access(path.parent, os.W_OK):
        raise CalibrationError(f"{path}: its folder {path.parent} cannot be written (the"
                               " config is saved as a new file beside it, then renamed)")
    if path.exists() and not path.stat().st_mode & 0o222:
        raise CalibrationError(f"{path}: the config is read-only (mode "
                               f"{stat.S_IMODE(path.stat().st_mode):o}): make it writable first")
    data = read_toml(path) if path.exists() else {}
    calibration = calibration_from_dict(data, source=str(path))
    vision = dict(_table(data, "vision"))
    camera = calibration.camera
    lines: list[str] = []

    empty_frame = _load(empty) if empty else None
    dice_frame = _load(dice) if dice else None
    if source_spec:
        def check_empty(frame: np.ndarray) -> None:  # before the dice are asked for
            _check_empty(frame, "the empty glass", camera, path,
                         config_from_dict(vision, source=str(path)), [])

        empty_frame, dice_frame, camera = _from_source(
            source_spec, camera, empty_frame, dice_frame, interactive, lines, check_empty
        )
        if camera.source != calibration.camera.source:  # a trial's simulator left unsaid
            lines.append(f"camera: {camera.source}, the camera the table reads its reveals"
                         f" from now on (it was {calibration.camera.source})")
    frames = [f for f in (empty_frame, dice_frame) if f is not None]
    if len(frames) == 2 and frames[0].shape[:2] != frames[1].shape[:2]:
        raise CalibrationError(
            f"the empty glass is {_size(frames[0])} and the dice picture {_size(frames[1])}: "
            "take both with the same camera"
        )
    if frames:
        height, width = frames[0].shape[:2]
        camera = dataclasses.replace(camera, width=width, height=height)

    reader = config_from_dict(vision, source=str(path))
    before = calibration.camera
    if frames and (camera.width, camera.height) != (before.width, before.height):
        # Said, not only the zones' scaling: a Picamera2 takes its pictures at this size (a
        # first calibration's too: it was said only where the config gave a size).
        said = "the config said" if "width" in _table(data, "camera") else "the default is"
        lines.append(f"camera: pictures of {camera.width}x{camera.height} from now on, the size"
                     f" of those given ({said} {before.width}x{before.height})")
    # Marks and zones are pixels of the pictures of the size [camera] gives, if it does: a
    # config without one has them in the size of the pictures it reads, whatever it is (as
    # `dudo scan` and `dudo serve` take them), not in the default camera's.
    sized = {"width", "height"} <= _table(data, "camera").keys()
    if (empty_frame is None and reader.marks and sized
            and (camera.width, camera.height) != (before.width, before.height)):
        # The marks are pixels of the pictures the empty glass was taken in, as the zones are.
        sx, sy = camera.width / before.width, camera.height / before.height
        marks = tuple((x * sx, y * sy) for x, y in reader.marks)
        vision["marks"] = [[round(x, 1), round(y, 1)] for x, y in marks]
        reader = dataclasses.replace(reader, marks=marks)
        lines.append(f"marks: {len(marks)} scaled to {camera.width}x{camera.height} pictures")
    if (dice_frame is None and reader.die_size is not None and sized
            and (camera.width, camera.height) != (before.width, before.height)):
        # Measured on pictures of the old size: the same dice, seen as much larger or smaller.
        scale = math.sqrt(camera.width / before.width * camera.height / before.height)
        size = round(reader.die_size * scale, 1)
        if not _READ_SURELY[0] <= size <= _READ_SURELY[1]:
            low, high = _READ_SURELY
            raise CalibrationError(
                f"the die size {reader.die_size:g} px of {before.width}x{before.height} pictures"
                f" is {size:g} px at {camera.width}x{camera.height}, where the reader reads dice"
                f" surely at {low:g}..{high:g} px: give a dice picture (--dice) to measure it"
                " again")
        vision["die_size"] = size
        reader = dataclasses.replace(reader, die_size=size)
        lines.append(f"die size: {size:g} px, scaled from {before.width}x{before.height}"
                     f" pictures (give --dice to measure it again)")
    # Only the tables this run measured are rewritten: the others keep their text.
    tables: dict[str, dict[str, object]] = {}
    if empty_frame is not None:
        camera, marks = _check_empty(
            empty_frame, empty or "the empty glass", camera, path, reader, lines
        )
        vision["marks"] = [[x, y] for x, y in marks]
        reader = dataclasses.replace(reader, marks=marks)
        tables["vision"] = vision
    if dice_frame is not None:
        vision["die_size"] = _die_size(dice_frame, dice or "the dice picture", reader, lines)
        config_from_dict(vision, source=str(path))  # still a valid [vision] table
        tables["vision"] = vision
    if any(key in vision and vision[key] != _table(data, "vision").get(key)
           for key in ("marks", "die_size")):
        tables["vision"] = vision
    if seats and not frames and not sized and camera.source != "picamera2":
        # Zones are pixels: of what size, only a picture or the config can say (Picamera2
        # takes its pictures at the [camera] size, its default too; another source need not).
        raise CalibrationError(
            f"--seats {seats}: the size of the camera's pictures is not known (the config's"
            f" [camera] gives none, and no picture was taken): give --source too, or --empty"
            f" or --dice pictures, or [camera] width and height")
    zones = calibration.seats
    rescaled = not seats and sized and zones.seats and (camera.width, camera.height) != (
        before.width, before.height)
    if rescaled:
        # The zones are pixels of the pictures they were set on: the same glass, at the new size.
        zones = zones.scaled(camera.width / before.width, camera.height / before.height)
        lines.append(f"seats: the zones of {before.width}x{before.height} pictures scaled to"
                     f" {camera.width}x{camera.height}")
    if seats:
        if zones.polygons:  # said: the zones drawn by hand are gone
            lines.append(f"seats: the {len(zones.polygons)} zones drawn by hand in [seats.zones]"
                         " are replaced")
        # Seats clockwise in the picture of a camera above the table (its config's view).
        zones = sector_zones(seats, camera.width, camera.height,
                             clockwise=camera.view == "above")
        lines.append(
            f"seats: {seats} equal zone{'' if seats == 1 else 's'} around"
            f" ({camera.width / 2:.0f}, {camera.height / 2:.0f}),"
            " seat 1 at the bottom of the picture, the next seats "
            + ("clockwise in it (a camera above the table: the config's [camera] view ="
               ' "above")' if zones.clockwise
               else "anticlockwise in it (clockwise round the table seen from above: the"
               " camera under the glass sees a mirror)")
            + ("" if frames else f" (of a {camera.width}x{camera.height} picture: the config's"
               " camera size, as no picture was taken)")
        )
    result = calibration_tables(Calibration(camera, zones, calibration.colours))
    if frames or source_spec:
        tables["camera"] = result["camera"]
    if seats or rescaled:
        tables["seats"] = result["seats"]
    # What is written must load again (a picture 16,385 px wide makes a [camera] no table
    # will start with): checked before anything is written.
    calibration_from_dict({**data, **tables}, source=f"{path} as it would be written")
    reference = fresh = None
    try:
        if empty_frame is not None and camera.empty:
            # Written beside the earlier picture, which it replaces once the config is saved.
            reference = path.parent / camera.empty
            fresh = reference.with_name(f".{reference.stem}.new{reference.suffix}")
            level = cv2.getLogLevel()
            cv2.setLogLevel(0)  # OpenCV's own warning would say it a second time, raw
            try:
                written = cv2.imwrite(str(fresh), empty_frame)
            finally:
                cv2.setLogLevel(level)
            if not written:  # OpenCV says no more: the file, opened by hand, says why
                try:
                    fresh.open("wb").close()
                    why = "OpenCV could not encode it"
                except OSError as err:
                    why = err.strerror or str(err)
                raise CalibrationError(f"could not write the empty-glass picture {fresh}: {why}")
        save_tables(path, tables)
    except BaseException:  # Ctrl-C too: the new picture goes with the config not written
        if fresh is not None and not fresh.is_dir():  # (a folder in its place is not ours)
            fresh.unlink(missing_ok=True)
        raise
    if reference is not None and fresh is not None:
        fresh.replace(reference)
        lines.append(f"empty glass kept as {reference}")
    lines.append(f"written to {path}")
    return lines


def _table(data: dict[str, object], name: str) -> dict[str, object]:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise CalibrationError(f"[{name}] must be a table")
    return table


def _size(frame: np.ndarray) -> str:
    return f"{frame.shape[1]}x{frame.shape[0]}"


def _load(name: str) -> np.ndarray:
    from vision.reader import load_image

    return load_image(name)


def _from_source(
    spec: str,
    camera: CameraSettings,
    empty_frame: np.ndarray | None,
    dice_frame: np.ndarray | None,
    interactive: bool,
    lines: list[str],
    check_empty: Callable[[np.ndarray], None],
) -> tuple[np.ndarray | None, np.ndarray | None, CameraSettings]:
    """Frames from a live source, and its exposure locked when it is a Picamera2; the empty
    glass taken is checked (``check_empty``) before the dice are asked for."""
    kind, _, where = spec.partition(":")
    if kind in ("folder", "device") and where and not where.isdigit():
        # Written to the config, the path must not depend on the service's own directory.
        spec = f"{kind}:{Path(where).expanduser().resolve()}"
    settings = dataclasses.replace(
        camera, source=spec, exposure_us=None, analogue_gain=None, colour_gains=None
    )
    source: FrameSource = open_source(spec, settings=settings)
    try:
        source.start()  # a camera missing is said before the players are asked for anything
        if empty_frame is None and interactive:
            input("Clear the glass (no dice, no cups, the light under it on), then press Enter: ")
        if isinstance(source, PicameraSource):
            # Metered on the empty glass as the players left it, not on hands and cups.
            settings = source.exposure()
            source.settings = settings
            source.close()  # start again with exposure and white balance locked
            source.start()
            lines.append(
                f"exposure locked: {settings.exposure_us} us, gain {settings.analogue_gain:.2f}, "
                f"colour gains {settings.colour_gains}"
            )
        if empty_frame is None:
            empty_frame = source.capture()
            if interactive:  # dice left on it are said now, not after the throw
                check_empty(empty_frame)
        if dice_frame is None and interactive:
            # Thrown, the dice lie turned as at a reveal; the die size is the median of their
            # upright boxes, which dice lined up square make smaller.
            answer = input("Throw 5 or more dice onto the glass as in a game (not lined up),"
                           " press Enter (s to skip): ")
            if answer.strip().lower() != "s":
                if isinstance(source, SimulatedCamera):  # no glass to throw dice on: it throws
                    source.set_dice({"thrown": [1, 2, 3, 4, 5, 6]})
                if isinstance(source, PicameraSource):
                    settings = _focused(source, settings, lines)
                dice_frame = source.capture()
            elif settings.lens_position is not None and isinstance(source, PicameraSource):
                lines.append(f"focus: the lens held at {settings.lens_position:.2f} dioptres, as"
                             " calibrated before (throw dice to focus it again)")
        elif dice_frame is None:
            lines.append("no dice picture (not run at a terminal, and no --dice): "
                         "the die size is not measured")
    finally:
        source.close()
    return empty_frame, dice_frame, settings


def _focused(source: PicameraSource, settings: CameraSettings,
             lines: list[str]) -> CameraSettings:
    """The settings with the lens focused on the dice thrown on the glass, for a camera that
    focuses itself (a Camera Module 3 left to itself holds its lens at about a metre, and
    the dice under the glass come out soft: every die doubted as out of focus)."""
    lens, focused = source.focus()
    if lens is None:
        return settings  # a camera of fixed focus
    settings = dataclasses.replace(settings, lens_position=lens)
    source.settings = settings
    distance = f" (about {100.0 / lens:.0f} cm)" if lens > 0 else " (at infinity)"
    lines.append(f"focus locked: lens at {lens:.2f} dioptres{distance}")
    if not focused:
        lines.append("warning: the camera could not bring the dice into focus: check that"
                     " they lie on the glass in its view, and the light under it is on")
    return settings


def _check_empty(
    frame: np.ndarray,
    name: str,
    camera: CameraSettings,
    path: Path,
    reader: ReaderConfig,
    lines: list[str],
) -> tuple[CameraSettings, tuple[tuple[float, float], ...]]:
    """The empty glass must be lit, not burnt out, and empty; its marks.

    A mark is a place the reader takes for a die, but not a sure one (a scratch, a sticker, a
    screw head): from now on nothing there is counted as a die. A sure die is an error.
    """
    from vision.reader import read_dice

    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    brightness = float(np.median(grey))
    burnt = float(np.mean(grey >= 250))
    if brightness < _TOO_DARK:
        raise CalibrationError(
            f"{name}: too dark (median grey {brightness:.0f} of 255): "
            "switch on the light under the glass or lengthen the exposure"
        )
    if burnt > _BURNT_OUT_SHARE:
        raise CalibrationError(
            f"{name}: {burnt:.0%} of the picture is burnt out (pure white): "
            "dim the light or shorten the exposure"
        )
    try:
        seen = read_dice(frame, dataclasses.replace(reader, marks=()), view="below",
                         each_die_alone=True)
    except UnreadableImage as err:  # decoded, but too small to be a picture of the glass
        raise CalibrationError(f"{name}: {err}") from None
    sure = [d for d in seen.dice if d.confidence >= reader.doubt_threshold]
    if sure:
        where = ", ".join(f"({d.x}, {d.y})" for d in sure[:5])
        raise CalibrationError(
            f"{name} shows {len(sure)} dice at {where}: clear the glass"
        )
    # Its light and focus (a smear is judged on the dice read: a sticker alone may look so).
    unlit = [plea for plea, why in ((TOO_DARK, seen.too_dark), (BURNT_OUT, seen.burnt_out),
                                    (OUT_OF_FOCUS, seen.out_of_focus)) if why]
    if seen.dice and unlit:
        # Every die of such a picture is doubted, a die left on the glass too: before, its
        # places were written as marks, where no die would be counted again (a helper's
        # audit: a soft picture, the lens not yet focused, took 6 dice for marks).
        where = ", ".join(f"({d.x}, {d.y})" for d in seen.dice[:5])
        raise CalibrationError(
            f"{name}: {'; '.join(unlit)} (where the reader sees {len(seen.dice)}"
            f" places like dice, at {where}, which it cannot tell from dice left on the"
            " glass)"
        )
    lines.append(f"empty glass: {_size(frame)}, median grey {brightness:.0f}, no dice seen")
    marks = tuple((float(d.x), float(d.y)) for d in seen.dice)
    if marks:
        where = ", ".join(f"({x:.0f}, {y:.0f})" for x, y in marks)
        lines.append(
            f"marks on the glass a die could be taken for, never counted as dice: {where}"
        )
    camera = dataclasses.replace(camera, empty=f"{path.stem}-empty.png", brightness=brightness)
    return camera, marks


def measured_sizes(frame: np.ndarray, reader: ReaderConfig, view: str = "below") -> list[int]:
    """The sizes of the dice read in ``frame`` with no die size given, in pixels."""
    return [d.size for d in _unsized_reading(frame, reader, view).dice]


def _unsized_reading(frame: np.ndarray, reader: ReaderConfig, view: str = "below") -> Reading:
    """The dice in ``frame`` read with no die size given, as a calibration measures them."""
    from vision.reader import read_dice

    return read_dice(frame, dataclasses.replace(reader, die_size=None), view=view)


# Fewer places than this, all too small, are specks, not dice seen too far away.
_FEW_DICE = 3
# The die sizes a calibration may measure: those the reader reads dice at surely.
_READ_SURELY = (max(DIE_SIZES[0], SMALLEST_SURE_DIE), DIE_SIZES[1])


def _measured(size: float) -> str:
    """A size the reader found too small, as said: measured in whole pixels, a die the reader
    judged at 10.6 px is 11, said "just under 11"."""
    return f"{size:g}" if size < SMALLEST_SURE_DIE else f"just under {SMALLEST_SURE_DIE:g}"


def _die_size(frame: np.ndarray, name: str, reader: ReaderConfig, lines: list[str]) -> float:
    """The median side of the dice read surely, in pixels (a doubtful "die" may be the tray
    itself, or a die on its edge)."""
    try:
        reading = _unsized_reading(frame, reader)
    except UnreadableImage as err:  # decoded, but too small to be a picture of dice
        raise CalibrationError(f"{name}: {err}") from None
    if not reading.dice and reading.pleas:  # the picture's own fault: too dark, blurred...
        raise CalibrationError(f"{name}: no dice found: " + "; ".join(reading.pleas))
    if not reading.dice:
        raise CalibrationError(f"{name}: no dice found: put a few dice on the glass")
    sizes = [d.size for d in reading.dice if d.confidence >= reader.doubt_threshold]
    # Dice doubted for their size, whatever the light; a speck or two alone on the glass are
    # no dice to measure (before, session 92's audit: "move the camera closer").
    if reading.too_small and reading.total >= _FEW_DICE:
        least = f"at least {SMALLEST_SURE_DIE:g} px each"
        if sizes:  # some of them only, which every reveal would doubt (session 93's audits)
            raise CalibrationError(
                f"{name}: some dice measure under {SMALLEST_SURE_DIE:g} px across (the smallest"
                f" {_measured(min(d.size for d in reading.dice))} px), too small to read surely"
                f" ({least}):"
                " every reveal would doubt them: move the camera closer (or take away a die"
                " lying on its edge)")
        size = float(statistics.median(d.size for d in reading.dice))
        raise CalibrationError(f"{name}: the dice measure {_measured(size)} px across, too small"
                               f" to read surely ({least}): move the camera closer")
    pleas = [plea for plea in reading.pleas if plea != TOO_SMALL]
    if not sizes and pleas:  # the picture's own fault: too dark, out of focus...
        raise CalibrationError(f"{name}: no die read surely ({reading.total} doubtful): "
                               + "; ".join(pleas))
    if not sizes:
        raise CalibrationError(f"{name}: no die read surely ({reading.total} doubtful): put a"
                               " few dice, face down, on the glass in good light")
    size = round(float(statistics.median(sizes)), 1)
    low, high = _READ_SURELY
    if not low <= size <= high:
        raise CalibrationError(f"{name}: the dice measure {size:g} px across, where the reader"
                               f" reads dice surely at {low:g}..{high:g} px: move the camera"
                               f" {'closer' if size < low else 'farther away'}")
    spread = (max(sizes) - min(sizes)) / size if size else 0.0
    lines.append(
        f"die size: {size:.1f} px (median of {len(sizes)} dice, {min(sizes)}..{max(sizes)} px)"
    )
    if spread > 0.5:
        lines.append("warning: the dice sizes differ a lot: check that no die is on its edge")
    return size
