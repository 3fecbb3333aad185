"""The table's calibration: the ``[camera]``, ``[seats]``, ``[colours]`` tables of the config.

``[camera]`` says which frame source to open and the exposure locked at calibration;
``[seats]`` says which zone of the glass belongs to which seat (equal sectors around a
centre, or one polygon per seat); ``[colours]`` gives each player's dice colour.

Saving rewrites only the tables it is given and keeps every other table of the file, its
text and comments included, as it was.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from vision.config import read_toml
from vision.reading import COLOUR_SPELLINGS, COLOURS
from vision.tomlwrite import save_tables

# The most seat zones a table is marked with (the house rules seat 20 players).
MOST_SEATS = 20

_CAMERA_KEYS = (
    "source",
    "width",
    "height",
    "exposure_us",
    "analogue_gain",
    "colour_gains",
    "lens_position",
    "empty",
    "brightness",
    "view",
)
# Where the camera looks from: under the glass (a face counts 7 - its pips, the table seen
# in a mirror) or above the table (a face counts its pips).
VIEWS = ("below", "above")


@dataclass(frozen=True)
class CameraSettings:
    """How to open the camera under the glass, and the exposure locked at calibration.

    ``source``: a frame source spec for ``open_source`` (``picamera2``, ``device:N``,
    ``folder:DIR``, ``sim``; ``dudo serve`` also takes ``none``: no camera, reveals typed
    by hand). ``exposure_us``, ``analogue_gain`` and ``colour_gains`` (red, blue) are None
    until calibration locks them; ``lens_position`` too (dioptres: 1 / the distance in
    metres), where the camera focuses itself (a Camera Module 3: focused on the dice thrown
    at calibration, then held there). ``empty`` is the photograph of the empty glass taken at
    calibration (a path relative to the config file) and ``brightness`` its median grey.
    ``view``: ``below`` the glass (DESIGN's table), or ``above`` it, looking down.
    """

    source: str = "picamera2"
    width: int = 2028
    height: int = 1520
    exposure_us: int | None = None
    analogue_gain: float | None = None
    colour_gains: tuple[float, float] | None = None
    lens_position: float | None = None
    empty: str | None = None
    brightness: float | None = None
    view: str = "below"

    @property
    def locked(self) -> bool:
        """Whether exposure and white balance were locked at calibration."""
        return self.exposure_us is not None and self.colour_gains is not None


@dataclass(frozen=True)
class SeatZones:
    """Which zone of the glass (in image pixels) belongs to which seat, seats numbered from 1.

    Either ``count`` equal sectors around ``centre``, seat 1 centred on ``first_angle``
    (degrees, image coordinates: 0 is to the right, 90 is down) and the next seats
    following anticlockwise in the image, or clockwise where ``clockwise``; or explicit
    ``polygons``, one per seat. Play passes clockwise round the table seen from above
    (RULES.md), and a camera under the glass sees the table in a mirror: in its image the
    next seat is anticlockwise. (A camera above the table: ``clockwise``.)
    """

    count: int = 0
    centre: tuple[float, float] = (0.0, 0.0)
    first_angle: float = 90.0
    polygons: tuple[tuple[tuple[float, float], ...], ...] = ()
    clockwise: bool = False

    @property
    def seats(self) -> int:
        """How many seats have a zone (0: no zones calibrated)."""
        return len(self.polygons) if self.polygons else self.count

    def seat_at(self, x: float, y: float) -> int | None:
        """The seat whose zone holds the point (x, y), or None outside every zone."""
        if self.polygons:
            for number, polygon in enumerate(self.polygons, start=1):
                if _inside(polygon, x, y):
                    return number
            return None
        if self.count <= 0:
            return None
        dx, dy = x - self.centre[0], y - self.centre[1]
        if dx == 0 and dy == 0:
            return None
        span = 360.0 / self.count
        angle = math.degrees(math.atan2(dy, dx))
        # Seat 1 is centred on first_angle, so its sector starts half a span before it.
        turn = 1.0 if self.clockwise else -1.0
        offset = (turn * (angle - self.first_angle) + span / 2) % 360.0
        return int(offset // span) % self.count + 1

    def scaled(self, fx: float, fy: float) -> SeatZones:
        """The same zones on pictures ``fx`` times as wide and ``fy`` times as high."""
        return replace(
            self,
            centre=(self.centre[0] * fx, self.centre[1] * fy),
            polygons=tuple(tuple((x * fx, y * fy) for x, y in p) for p in self.polygons),
        )

    def sector_angle(self, seat: int) -> float:
        """The direction from the centre, in degrees of the image, of the middle of a sector
        seat's zone."""
        if self.count <= 0:
            raise ValueError("seat zones: no sectors calibrated")
        turn = 1.0 if self.clockwise else -1.0
        return self.first_angle + turn * (seat - 1) * 360.0 / self.count


@dataclass(frozen=True)
class Calibration:
    """Everything ``dudo calibrate`` measures about the table, and each player's colour."""

    camera: CameraSettings = field(default_factory=CameraSettings)
    seats: SeatZones = field(default_factory=SeatZones)
    colours: Mapping[str, str] = field(default_factory=dict)


def _inside(polygon: Sequence[tuple[float, float]], x: float, y: float) -> bool:
    """Whether (x, y) lies inside the polygon (even-odd rule, by a ray to the right)."""
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


# Zones drawn by hand may share their edges, and overlap a little where drawn by eye; a zone
# a tenth of which lies in another's gave that other seat's player its dice, unsaid.
_MOST_OVERLAP = 0.1
_GRID = 80  # points a side over the zones, to measure their overlaps


def _check_apart(polygons: Sequence[Sequence[tuple[float, float]]], source: str) -> None:
    """ValueError naming two zones drawn by hand that overlap by more than _MOST_OVERLAP of
    the smaller (measured at the points of a grid over them all)."""
    if len(polygons) < 2:
        return
    xs = [x for polygon in polygons for x, _ in polygon]
    ys = [y for polygon in polygons for _, y in polygon]
    points = [(min(xs) + (max(xs) - min(xs)) * (i + 0.5) / _GRID,
               min(ys) + (max(ys) - min(ys)) * (j + 0.5) / _GRID)
              for i in range(_GRID) for j in range(_GRID)]
    held = [frozenset(k for k, (x, y) in enumerate(points) if _inside(polygon, x, y))
            for polygon in polygons]
    for a in range(len(polygons)):
        for b in range(a + 1, len(polygons)):
            both = len(held[a] & held[b])
            if both and both > _MOST_OVERLAP * min(len(held[a]), len(held[b])):
                raise ValueError(
                    f"{source}: [seats.zones] seat{a + 1} and seat{b + 1} overlap (about"
                    f" {both / min(len(held[a]), len(held[b])):.0%} of the smaller): a die"
                    f" there would be seat{a + 1}'s; draw them apart")


def sector_zones(
    count: int, width: int, height: int, first_angle: float = 90.0, clockwise: bool = False
) -> SeatZones:
    """Equal sectors for ``count`` seats around the centre of a width x height image (the
    next seat anticlockwise in it, as a camera under the glass sees the table)."""
    if not 1 <= count <= MOST_SEATS:
        raise ValueError(f"seats {count}: must be 1..{MOST_SEATS}")
    return SeatZones(count=count, centre=(width / 2, height / 2), first_angle=first_angle,
                     clockwise=clockwise)


# -- loading ---------------------------------------------------------------------------------


def load_calibration(path: str | Path | None) -> Calibration:
    """Read ``[camera]``, ``[seats]`` and ``[colours]`` from a TOML file; None gives defaults.

    A table that is absent gives its defaults. Raises ValueError naming the file, the table,
    the key and the value for a missing file, bad TOML, an unknown key or a bad value.
    """
    if path is None:
        return Calibration()
    data = read_toml(path)
    calibration = calibration_from_dict(data, source=str(path))
    kind, rest = source_parts(calibration.camera.source)
    if kind in ("folder", "device") and not rest.isdigit() and not Path(rest).is_absolute():
        # A path written by hand is read beside the config, as the empty glass's picture is,
        # not from wherever the table happens to be started.
        where = Path(path).parent / Path(rest).expanduser()
        camera = replace(calibration.camera, source=f"{kind}:{where}")
        calibration = replace(calibration, camera=camera)
    return calibration


def calibration_from_dict(data: Mapping[str, object], source: str = "config") -> Calibration:
    """Build a Calibration from a parsed TOML document's three tables."""
    camera = _table(data, "camera", source)
    seats = _table(data, "seats", source)
    colours = _table(data, "colours", source)
    settings, zones = _camera(camera, source), _seats(seats, source)
    above = settings.view == "above"
    if "clockwise" not in seats:
        zones = replace(zones, clockwise=above)  # as the camera sees the table
    elif zones.count and zones.clockwise != above:
        # Before, such a config was taken as it stood: with view below (the default) and
        # clockwise, every face was read as 7 minus its pips; with view above and
        # anticlockwise zones, each seat given another's dice. Every count matching, unsaid.
        why = ('the seats run anticlockwise in the picture of the camera under the glass,'
               ' but [camera] view = "above": for a camera above the table set clockwise ='
               ' true (or leave it out); for the camera under the glass, leave view out'
               if above else
               "the seats run clockwise in the picture of a camera above the table only, but"
               f' [camera] view is "{settings.view}"'
               f"{'' if 'view' in camera else ' (the default)'}: for a camera above the table"
               ' set [camera] view = "above" (its faces count their pips); for the camera'
               " under the glass, clockwise = false (or leave it out)")
        raise ValueError(f"{source}: [seats] clockwise = {str(zones.clockwise).lower()}: {why}")
    return Calibration(camera=settings, seats=zones, colours=_colours(colours, source))


def _table(data: Mapping[str, object], name: str, source: str) -> dict[str, object]:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise ValueError(f"{source}: [{name}] must be a table, not {table!r}")
    return table


def _bad(source: str, table: str, key: str, value: object, why: str) -> ValueError:
    return ValueError(f"{source}: [{table}] {key} = {value!r}: {why}")


def _number(source: str, table: str, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _bad(source, table, key, value, "must be a number")
    return float(value)


def _positive_int(source: str, table: str, key: str, value: object, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= most:
        raise _bad(source, table, key, value, f"must be a whole number from 1 to {most:,}")
    return value


# The largest frame a camera of a Pi gives is 9152x6944 (the 64 MP sensors); a reveal's
# exposure is a fraction of a second, and 10 s is far past any table's need.
_MOST = {"width": 16_384, "height": 16_384, "exposure_us": 10_000_000}

SOURCE_FORMS = "picamera2, device:N (or device:PATH), folder:DIR, sim or none"


def source_parts(spec: str) -> tuple[str, str]:
    """A camera source spec's kind and its argument (``"device:0"``: ``("device", "0")``);
    ValueError, listing the forms, for a spec of no known form."""
    kind, colon, rest = spec.partition(":")
    if kind == "device" and rest.isdigit() and not (rest.isascii() and int(rest) <= 999):
        raise ValueError(f"frame source {spec!r}: a device's number is 0 to 999 (in the digits"
                         " 0-9), or give its path, /dev/video0")
    takes_one = kind in ("device", "folder")
    if (takes_one and rest) or (kind in ("picamera2", "sim", "none") and not colon):
        return kind, rest
    raise ValueError(f"frame source {spec!r} unknown: use {SOURCE_FORMS}")


def _camera(table: dict[str, object], source: str) -> CameraSettings:
    unknown = sorted(set(table) - set(_CAMERA_KEYS))
    if unknown:
        raise ValueError(
            f"{source}: unknown key(s) in [camera]: {', '.join(unknown)} "
            f"(known: {', '.join(_CAMERA_KEYS)})"
        )
    values: dict[str, object] = {}
    for key, value in table.items():
        if key in ("source", "empty"):
            if not isinstance(value, str) or not value:
                raise _bad(source, "camera", key, value, "must be a non-empty string")
            if key == "source":
                try:
                    source_parts(value)
                except ValueError:
                    raise _bad(source, "camera", key, value, f"use {SOURCE_FORMS}") from None
            values[key] = value
        elif key == "view":
            if value not in VIEWS:
                raise _bad(source, "camera", key, value, 'must be "below" (under the glass) or'
                           ' "above" (over the table, looking down)')
            values[key] = value
        elif key in ("width", "height", "exposure_us"):
            values[key] = _positive_int(source, "camera", key, value, _MOST[key])
        elif key in ("analogue_gain", "brightness", "lens_position"):
            number = _number(source, "camera", key, value)
            if number < 0:
                raise _bad(source, "camera", key, value, "must not be negative")
            values[key] = number
        else:  # colour_gains
            if not (isinstance(value, list) and len(value) == 2):
                raise _bad(source, "camera", key, value, "must be [red_gain, blue_gain]")
            red, blue = (_number(source, "camera", key, v) for v in value)
            if red <= 0 or blue <= 0:
                raise _bad(source, "camera", key, value, "gains must be above 0")
            values[key] = (red, blue)
    return CameraSettings(**values)  # type: ignore[arg-type]


def _point(source: str, key: str, value: object) -> tuple[float, float]:
    if not (isinstance(value, list) and len(value) == 2):
        raise _bad(source, "seats", key, value, "a point must be [x, y]")
    x, y = (_number(source, "seats", key, v) for v in value)
    return (x, y)


def _seats(table: dict[str, object], source: str) -> SeatZones:
    known = ("count", "centre", "first_angle", "clockwise", "zones")
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ValueError(
            f"{source}: unknown key(s) in [seats]: {', '.join(unknown)} (known: {', '.join(known)})"
        )
    count = 0
    if "count" in table:
        value = table["count"]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MOST_SEATS:
            raise _bad(source, "seats", "count", value, f"must be 0..{MOST_SEATS}")
        count = value
    centre = _point(source, "centre", table["centre"]) if "centre" in table else (0.0, 0.0)
    first_angle = _number(source, "seats", "first_angle", table.get("first_angle", 90.0))
    clockwise = table.get("clockwise", False)
    if not isinstance(clockwise, bool):
        raise _bad(source, "seats", "clockwise", clockwise,
                   "must be true (the seats clockwise in the picture: a camera above the"
                   " table) or false (anticlockwise: under the glass)")
    polygons: list[tuple[tuple[float, float], ...]] = []
    zones = table.get("zones", {})
    if not isinstance(zones, dict):
        raise _bad(source, "seats", "zones", zones, "must be a table seat1 = [[x, y], ...]")
    for number in range(1, len(zones) + 1):
        key = f"seat{number}"
        if key not in zones:
            raise ValueError(
                f"{source}: [seats.zones] must name seat1..seat{len(zones)} without gaps, "
                f"got {', '.join(sorted(zones))}"
            )
        polygon = zones[key]
        if not (isinstance(polygon, list) and len(polygon) >= 3):
            raise _bad(source, "seats.zones", key, polygon, "a zone needs 3 or more [x, y] points")
        polygons.append(tuple(_point(source, f"zones.{key}", p) for p in polygon))
    if count and "centre" not in table:
        raise ValueError(f"{source}: [seats] count = {count} needs centre = [x, y]")
    if count and polygons:  # the zones won, without a word
        zones_drawn = f"{len(polygons)} zone{'' if len(polygons) == 1 else 's'}"
        raise ValueError(f"{source}: [seats] count = {count} and {zones_drawn} drawn by hand"
                         " in [seats.zones]: give one or the other")
    _check_apart(polygons, source)
    return SeatZones(count=count, centre=centre, first_angle=first_angle,
                     polygons=tuple(polygons), clockwise=clockwise)


def _colours(table: dict[str, object], source: str) -> dict[str, str]:
    colours: dict[str, str] = {}
    for player, colour in table.items():
        if not isinstance(colour, str) or not colour.strip():
            raise _bad(source, "colours", player, colour, 'must be a colour name such as "red"')
        name = colour.strip().lower()
        if COLOUR_SPELLINGS.get(name, name) not in COLOURS:
            raise _bad(source, "colours", player, colour,
                       f"the reader names dice {', '.join(COLOURS)} (no die would be theirs)")
        colours[player] = name
    return colours


# -- saving ----------------------------------------------------------------------------------


def calibration_tables(calibration: Calibration) -> dict[str, dict[str, object]]:
    """The three TOML tables of a Calibration, absent values left out."""
    cam = calibration.camera
    camera: dict[str, object] = {"source": cam.source, "width": cam.width, "height": cam.height}
    if cam.exposure_us is not None:
        camera["exposure_us"] = cam.exposure_us
    if cam.analogue_gain is not None:
        camera["analogue_gain"] = round(cam.analogue_gain, 4)
    if cam.colour_gains is not None:
        camera["colour_gains"] = [round(g, 4) for g in cam.colour_gains]
    if cam.lens_position is not None:
        camera["lens_position"] = round(cam.lens_position, 3)
    if cam.empty is not None:
        camera["empty"] = cam.empty
    if cam.brightness is not None:
        camera["brightness"] = round(cam.brightness, 1)
    if cam.view != "below":
        camera["view"] = cam.view
    zones = calibration.seats
    seats: dict[str, object] = {}
    if zones.count:
        seats["count"] = zones.count
        seats["centre"] = [round(c, 1) for c in zones.centre]
        seats["first_angle"] = round(zones.first_angle, 2)
        # Not `clockwise`: the view says it (written, it stood in the way of a view changed
        # by hand later: the config refused, --seats too).
    if zones.polygons:
        seats["zones"] = {
            f"seat{n}": [[round(x, 1), round(y, 1)] for x, y in polygon]
            for n, polygon in enumerate(zones.polygons, start=1)
        }
    return {"camera": camera, "seats": seats, "colours": dict(calibration.colours)}


def save_calibration(path: str | Path, calibration: Calibration) -> None:
    """Write ``[camera]``, ``[seats]`` and ``[colours]``, keeping the rest of the file as it was."""
    save_tables(path, calibration_tables(calibration))
