"""The reader's settings: the ``[vision]`` table of the project's TOML config."""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path

from vision.reading import DEFAULT_DOUBT_THRESHOLD

# What runs the models (``vision.nets``): "auto" takes ONNX Runtime where it is installed.
# On one core it runs them in about 60% of OpenCV 4.10's time, their outputs the same within
# 1e-5 (see the README, "Speed").
RUNTIMES = ("auto", "onnxruntime", "opencv")


# The sides of a die, in pixels, that ``die_size`` may give.
DIE_SIZES = (8.0, 1000.0)


def within_die_sizes(size: float) -> float:
    """A die size measured on a photograph, brought within those a config may give."""
    return min(max(size, DIE_SIZES[0]), DIE_SIZES[1])


@dataclass(frozen=True)
class ReaderConfig:
    """How to read dice.

    ``die_size``: side of a die in pixels, or None to estimate it from each photograph.
    ``doubt_threshold``: a die read with less confidence is flagged for the players to confirm.
    ``model_path``: the face classifier (ONNX); None uses the model shipped in the package.
    ``detector_path``: the die locator (ONNX); None uses the model shipped in the package.
    ``second_model_path``: the second reader (ONNX), which reads again the dice the face
    reader is unsure of; None uses the shipped one, or none when ``model_path`` is given.
    ``min_detection``: score below which a candidate die is not a die at all.
    ``runtime``: what runs the models: "onnxruntime", "opencv" (OpenCV's dnn) or "auto" (ONNX
    Runtime where it is installed, else OpenCV's dnn).
    ``eight_bit_locator``: ONNX Runtime runs the locator's 8-bit copy where one lies beside it
    (``vision.nets.eight_bit_copy``); false runs the float locator (to compare their speed on
    another machine).
    ``marks``: places (x, y in pixels of the frame) where the empty glass shows something
    the reader could take for a die (a scratch, a sticker, a screw head), found by
    ``dudo calibrate``: nothing there is counted as a die.
    """

    die_size: float | None = None
    doubt_threshold: float = DEFAULT_DOUBT_THRESHOLD
    model_path: str | None = None
    detector_path: str | None = None
    second_model_path: str | None = None
    min_detection: float = 0.35
    marks: tuple[tuple[float, float], ...] = ()
    runtime: str = "auto"
    eight_bit_locator: bool = True

    def __post_init__(self) -> None:
        if self.runtime not in RUNTIMES:
            raise ValueError(f"[vision] runtime {self.runtime!r}: must be one of "
                             f"{', '.join(repr(r) for r in RUNTIMES)}")
        low, high = DIE_SIZES
        if self.die_size is not None and not low <= self.die_size <= high:
            raise ValueError(f"[vision] die_size {self.die_size}: must be {low:g}..{high:g} px"
                             " or absent")
        if not 0.0 <= self.doubt_threshold <= 1.0:
            raise ValueError(f"[vision] doubt_threshold {self.doubt_threshold}: must be 0..1")
        if not 0.0 < self.min_detection < 1.0:
            raise ValueError(f"[vision] min_detection {self.min_detection}: must be in (0, 1)")


    def at_size(self, calibrated: tuple[int, int], size: tuple[int, int]) -> ReaderConfig:
        """This config for a picture of ``size`` (width, height), its die size and marks
        measured on pictures of ``calibrated``: scaled to it (a die size past those the
        reader takes is left to be found on the picture)."""
        if calibrated == size or not (self.die_size or self.marks):
            return self
        sx, sy = size[0] / calibrated[0], size[1] / calibrated[1]
        die_size = None if self.die_size is None else self.die_size * math.sqrt(sx * sy)
        if die_size is not None and within_die_sizes(die_size) != die_size:
            die_size = None
        return replace(self, die_size=die_size,
                       marks=tuple((x * sx, y * sy) for x, y in self.marks))


def calibrated_size(path: str | Path | None) -> tuple[int, int] | None:
    """The picture size a config's die size and marks were measured at: its ``[camera]``
    width and height, when it gives both."""
    from vision.calibration import calibration_from_dict

    if path is None:
        return None
    data = read_toml(path)
    calibration_from_dict(data, source=str(path))  # ValueError for a table the table refuses
    camera = data.get("camera", {})
    assert isinstance(camera, dict)  # a [camera] that is no table is refused above
    width, height = camera.get("width"), camera.get("height")
    if type(width) is int and type(height) is int and width > 0 and height > 0:
        return width, height
    return None


def load_config(path: str | Path | None) -> ReaderConfig:
    """Read the ``[vision]`` table of a TOML file; no file (None) gives the defaults.

    Raises ValueError naming the file and the key for a missing file, bad TOML, an unknown
    key or a value of the wrong type. A model path that is not absolute is taken from the
    file's folder, wherever the command is run from.
    """
    if path is None:
        return ReaderConfig()
    path = Path(path)
    data = read_toml(path)
    table = data.get("vision", {})
    if not isinstance(table, dict):
        raise ValueError(f"{path}: [vision] must be a table")
    config = config_from_dict(table, source=str(path))

    def beside(model: str | None) -> str | None:
        return str(path.parent / model) if model and not Path(model).is_absolute() else model

    return replace(config, model_path=beside(config.model_path),
                   detector_path=beside(config.detector_path),
                   second_model_path=beside(config.second_model_path))


def config_from_dict(table: dict[str, object], source: str = "config") -> ReaderConfig:
    """Build a ReaderConfig from the ``[vision]`` table's keys, checking names and types."""
    known = {f.name: f for f in fields(ReaderConfig)}
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ValueError(
            f"{source}: unknown key(s) in [vision]: {', '.join(unknown)} "
            f"(known: {', '.join(known)})"
        )
    values: dict[str, object] = {}
    for name, value in table.items():
        if name in ("die_size", "doubt_threshold", "min_detection"):
            if not _is_number(value):
                raise ValueError(f"{source}: [vision] {name} = {value!r}: must be a number")
            values[name] = float(value)  # type: ignore[arg-type]
        elif name == "marks":
            if not isinstance(value, list) or not all(
                isinstance(m, list) and len(m) == 2 and all(_is_number(v) for v in m)
                for m in value
            ):
                raise ValueError(
                    f"{source}: [vision] marks = {value!r}: must be a list of [x, y] points"
                )
            values[name] = tuple((float(x), float(y)) for x, y in value)
        elif name == "eight_bit_locator":
            if not isinstance(value, bool):
                raise ValueError(f"{source}: [vision] {name} = {value!r}: must be true or false")
            values[name] = value
        elif name == "runtime":
            if not isinstance(value, str):
                raise ValueError(f"{source}: [vision] runtime = {value!r}: must be a string")
            values[name] = value
        else:
            if not isinstance(value, str):
                raise ValueError(f"{source}: [vision] {name} = {value!r}: must be a path string")
            values[name] = value
    try:
        return ReaderConfig(**values)  # type: ignore[arg-type]
    except ValueError as err:
        raise ValueError(f"{source}: {err}") from None


def _is_number(value: object) -> bool:
    """A number TOML can write, not nan or inf (a place or a size is never either)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def toml_mistake(err: tomllib.TOMLDecodeError, path: Path) -> str:
    """tomllib's words for what is wrong with the TOML file at ``path``, but a key given
    twice named ("'dudo' is given twice (line 3)"), where it says "Cannot overwrite a value"."""
    said = str(err)
    where = re.fullmatch(r"Cannot overwrite a value \(at line (\d+), column \d+\)", said)
    if where is None:
        return said
    try:
        # TOML's lines end at a newline alone (a comment may hold U+2028, which splitlines
        # takes for a line's end: the key of another line was named, session 92's audit).
        lines = path.read_bytes().decode("utf-8-sig").split("\n")
        line = lines[int(where[1]) - 1]
    except (OSError, UnicodeDecodeError, IndexError):
        return said
    key = line.split("=", 1)[0].strip().strip("\"'")

    def sets_it(earlier: str) -> bool:
        return "=" in earlier and earlier.split("=", 1)[0].strip().strip("\"'") == key

    # Named where a line before sets it too (tomllib names the line a value of many lines
    # ends on, which may read as another key's: 'marks' was said given twice, given once).
    named = key and "=" in line and any(map(sets_it, lines[:int(where[1]) - 1]))
    return f"{key!r} is given twice (line {where[1]})" if named else said


def read_toml(path: str | Path) -> dict[str, object]:
    """The parsed file, or ValueError naming it (missing, unreadable, not TOML)."""
    path = Path(path)
    try:
        # A byte-order mark (Windows Notepad writes one) is no part of the TOML.
        return tomllib.loads(path.read_bytes().decode("utf-8-sig"))
    except FileNotFoundError as err:
        raise ValueError(f"{path}: no such config file") from err
    except IsADirectoryError as err:
        raise ValueError(f"{path}: a folder, not a config file") from err
    except OSError as err:
        raise ValueError(f"{path}: cannot read the config file: {err.strerror}") from err
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{path}: not valid TOML: {toml_mistake(err, path)}") from err
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text (byte {err.start + 1}): not valid TOML") from err
