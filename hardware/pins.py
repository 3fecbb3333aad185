"""The pin map: which BCM pin each button, LED, buzzer and light of the table is wired to.

A pin map is the ``[pins]`` table of a TOML file (or that table as a dict). Each name of
the table's panel maps to a BCM number, or to an inline table with the number and how
the pin is wired::

    [pins]
    bounce_time = 0.05                    # seconds of software debounce for every button
    dudo = 5                              # a button to ground, the Pi's pull-up
    pass = {pin = 13, pull_up = false}    # a button to 3.3 V, the Pi's pull-down
    buzzer = 18                           # a passive piezo: TonalBuzzer on PWM (tonal = false:
                                          # an active buzzer that only beeps)
    light = {pin = 21, active_high = false}  # a relay board switched on by a low pin

``load_pin_map`` checks the whole map before any pin is touched, so a wiring mistake is
one clear ``ValueError`` at start-up, never a half-built panel.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

# Buttons, in the order a builder finds them on the panel (and panel-test lists them).
# DESIGN.md's panel has six seats; two more fit on the pins the default map leaves free
# (see the README): a seventh and eighth player get a seat button and LED too.
DESIGN_SEATS = 6
SEATS = 8
ENCODER = ("dial_a", "dial_b")
BUTTONS: tuple[str, ...] = (
    "dial",
    "qty_up",
    "qty_down",
    "face_up",
    "face_down",
    "bid",
    "dudo",
    "calza",
    "pass",
    "undo",
    *(f"seat{n}" for n in range(1, SEATS + 1)),
)
OUTPUTS: tuple[str, ...] = (
    "buzzer",
    "palifico_led",
    "light",
    *(f"seat{n}_led" for n in range(1, SEATS + 1)),
)
INPUTS: tuple[str, ...] = (*ENCODER, *BUTTONS)
NAMES: tuple[str, ...] = (*INPUTS, *OUTPUTS)

# The 40-pin header of every Pi since the B+ brings out GPIO 0-27.
BCM_RANGE = range(0, 28)
# GPIO 0 and 1 (ID_SD, ID_SC) are read at boot for a HAT's ID EEPROM: usable, with care.
ID_EEPROM_PINS = frozenset({0, 1})
# GPIO 14 and 15 (TXD, RXD) carry the serial console where it is on (raspi-config).
SERIAL_PINS = frozenset({14, 15})
# Past this, a press on a Pi is lost more often than bounce is: lgpio reports an edge only
# once the level has held for the whole bounce time (and that late).
_LONGEST_USUAL_BOUNCE = 0.1
# GPIO 2 and 3 (I2C) carry 1.8 kOhm pull-ups on the board: they cannot be pulled down.
FIXED_PULL_UP = frozenset({2, 3})
DEFAULT_BOUNCE_TIME = 0.05
_SETTINGS = ("bounce_time",)
# gpiozero's RotaryEncoder always uses the Pi's pull-ups: its pins take only a number.
_ENCODER_KEYS = frozenset({"pin"})
_INPUT_KEYS = frozenset({"pin", "pull_up"})
_OUTPUT_KEYS = frozenset({"pin", "active_high"})
_BUZZER_KEYS = _OUTPUT_KEYS | {"tonal"}


@dataclass(frozen=True)
class PinSpec:
    """One wired pin: its BCM number and how it is wired.

    ``pull_up`` matters for inputs (a button to ground reads pressed when low),
    ``active_high`` for outputs, ``tonal`` only for the buzzer.
    """

    name: str
    pin: int
    pull_up: bool = True
    active_high: bool = True
    tonal: bool = False

    @property
    def is_input(self) -> bool:
        return self.name in INPUTS

    def describe(self) -> str:
        """How the pin is wired, in a builder's words (``pull-up, pressed = low``)."""
        if self.is_input:
            return "pull-up, pressed = low" if self.pull_up else "pull-down, pressed = high"
        wiring = "on = high" if self.active_high else "on = low"
        return f"{wiring}, tonal (PWM)" if self.tonal else wiring


@dataclass(frozen=True)
class PinMap:
    """A validated pin map: the wired names only, in panel order."""

    pins: Mapping[str, PinSpec]
    bounce_time: float = DEFAULT_BOUNCE_TIME

    def __contains__(self, name: object) -> bool:
        return name in self.pins

    def __getitem__(self, name: str) -> PinSpec:
        return self.pins[name]

    def get(self, name: str) -> PinSpec | None:
        return self.pins.get(name)

    @property
    def buttons(self) -> list[PinSpec]:
        """The wired push buttons (not the encoder's A/B pins), in panel order."""
        return [self.pins[n] for n in BUTTONS if n in self.pins]

    @property
    def outputs(self) -> list[PinSpec]:
        """The wired LEDs, buzzer and light, in panel order."""
        return [self.pins[n] for n in OUTPUTS if n in self.pins]

    @property
    def has_encoder(self) -> bool:
        return all(n in self.pins for n in ENCODER)

    @property
    def seats(self) -> list[int]:
        """The seat numbers (1-8) that have a seat button."""
        return [n for n in range(1, SEATS + 1) if f"seat{n}" in self.pins]

    def cautions(self) -> list[str]:
        """What to check about a map that works: pins kept for something else on the board,
        and a panel that leaves part of the game to a phone (a map may wire only part of
        the panel, so none of these is an error)."""
        said = []
        for spec in self.pins.values():
            if spec.pin in ID_EEPROM_PINS:
                said.append(f"{spec.name} is on GPIO {spec.pin} (ID_SD/ID_SC), which a HAT's"
                            " ID EEPROM uses at boot: with a HAT on the header, move it")
            if spec.pin in SERIAL_PINS:
                said.append(f"{spec.name} is on GPIO {spec.pin} (TXD/RXD), which the serial"
                            " console uses: switch the console off (raspi-config, Interface"
                            " Options, Serial Port)")
        if not ({"dial", "bid"} & self.pins.keys()):
            said.append("no dial push and no BID button: bids are made on a phone only")
        elif not self.has_encoder:
            # Before, "the lowest raise only" was said with QTY+ wired alone, which raises.
            # (FACE- alone reaches no face above the lowest raise's.)
            more, other = "qty_up" in self.pins, "face_up" in self.pins
            if not (more or other):
                said.append("no dial to turn (dial_a, dial_b) and no qty_up and face_up buttons:"
                            " the panel bids the lowest raise only, other bids are made on a"
                            " phone")
            elif not other:
                said.append("no dial to turn (dial_a, dial_b) and no face_up button: the panel"
                            " bids more dice (qty_up) but no higher face than the lowest"
                            " raise's, a higher face is bid on a phone")
            elif not more:
                said.append("no dial to turn (dial_a, dial_b) and no qty_up button: the panel"
                            " bids another face but not more dice than its lowest raise, more"
                            " are bid on a phone")
        for name, what in (("dudo", "dudo is called on a phone only"),
                           ("undo", "a mis-press is taken back on a phone only")):
            if name not in self.pins:
                said.append(f"no {name.upper()} button: {what}")
        if "light" not in self.pins:
            # The likeliest way to lose it: a [pins] table naming only the wires moved.
            said.append("no light under the glass: the reveal's picture is taken in the room's"
                        " light (a [pins] table is the whole map: what it leaves out is not"
                        " wired, the default pins included)")
        seats = self.seats
        if not seats and {"dudo", "calza", "pass"} & self.pins.keys():
            said.append("no seat buttons: a call from the panel is the player to act's; a call"
                        " out of turn (another player's calza, a dudo cruzado) is made on a"
                        " phone")
        if self.bounce_time > _LONGEST_USUAL_BOUNCE:
            said.append(f"bounce_time = {self.bounce_time} s: on a Pi a press shorter than it is"
                        " never seen (the level must hold that long), and each press is seen"
                        " that late; 0.02-0.1 s is usual")
        missing = [n for n in range(1, max(seats, default=0)) if n not in seats]
        if missing:
            said.append(f"no seat{missing[0]} button though seat{max(seats)} has one: the seats"
                        " are numbered round the table from 1 (players sit in that order)")
        for n in range(1, SEATS + 1):
            if f"seat{n}_led" in self.pins and f"seat{n}" not in self.pins:
                said.append(f"seat{n}_led without a seat{n} button: that seat's player cannot"
                            " press to call out of turn")
        return said

    def table(self) -> str:
        """The map as a text table for a builder: name, BCM pin, header pin, wiring."""
        rows = [("name", "BCM", "header", "wiring")]
        for name in NAMES:
            spec = self.pins.get(name)
            if spec is not None:
                header = HEADER_PIN[spec.pin]
                rows.append((name, f"GPIO{spec.pin}", f"pin {header}", spec.describe()))
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
                 for row in rows]
        lines.append(f"bounce_time = {self.bounce_time} s for every button")
        return "\n".join(lines)


# BCM number -> physical pin on the 40-pin header (what a builder counts on the board).
HEADER_PIN: dict[int, int] = {
    0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23,
    12: 32, 13: 33, 14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40,
    22: 15, 23: 16, 24: 18, 25: 22, 26: 37, 27: 13,
}


def load_pin_map(source: str | Path | Mapping[str, Any]) -> PinMap:
    """Read and validate a pin map from a TOML file or a dict.

    A file (or a dict) with a ``[pins]`` table uses that table, so the companion's whole
    config file can be given; otherwise the dict is the pin table itself. Raises
    ``ValueError`` naming the file, the entry and what is wrong with it.
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            data: Mapping[str, Any] = _read_toml(path)
        except OSError as e:
            raise ValueError(f"pin map {path}: cannot read it: {e.strerror}") from None
        except UnicodeDecodeError:
            raise ValueError(f"pin map {path}: not UTF-8 text") from None
        except tomllib.TOMLDecodeError as e:
            from vision.config import toml_mistake  # the config's own words for it

            raise ValueError(f"pin map {path}: not valid TOML: {toml_mistake(e, path)}") from None
        where = f"pin map {path}"
        if "pins" not in data:
            raise ValueError(f"{where}: no [pins] table")
    else:
        data, where = source, "pin map"
    table = data.get("pins", data)
    if not isinstance(table, Mapping):
        raise ValueError(f"{where}: [pins] must be a table of name = BCM pin")
    return _validate(table, where)


def _read_toml(path: Path) -> dict[str, Any]:
    # A byte-order mark (Windows Notepad writes one) is no part of the TOML.
    return tomllib.loads(path.read_bytes().decode("utf-8-sig"))


def default_pin_map() -> PinMap:
    """The pin map of the default panel (``hardware/default-pins.toml``)."""
    return load_pin_map(_packaged("default-pins.toml"))


def pin_map_from_config(path: str | Path | None) -> PinMap:
    """The pin map of the companion's config file: its ``[pins]`` table, or the default
    panel when there is no file or the file has no ``[pins]`` table (a table named nearly
    so, such as ``[Pins]``, is a ValueError: the wiring asked for would not be the one used)."""
    if path is None:
        return default_pin_map()
    try:
        tables = _read_toml(Path(path))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return load_pin_map(path)  # it says what is wrong with the file
    if "pins" in tables:
        return load_pin_map(path)
    near = difflib.get_close_matches("pins", [str(k).lower() for k in tables], n=1, cutoff=0.7)
    if near:
        named = next(str(k) for k in tables if str(k).lower() == near[0])
        raise ValueError(f"pin map {path}: no [pins] table, but a [{named}] table: name it"
                         " [pins] (or leave it out for the default panel)")
    return default_pin_map()


def with_every_input(pins: PinMap) -> PinMap:
    """The map with every button and the encoder it leaves out added on its free pins.

    This is the simulated panel of ``dudo serve --sim``: on mock pins nothing is wired, so
    ``/api/sim/press`` and ``/api/sim/dial`` take every name DESIGN.md lists, whichever
    panel the config describes. The map's own pins stay as they are; seats beyond
    DESIGN.md's six are there only if the map wires them (the header has no pins for all).
    """
    used = {spec.pin for spec in pins.pins.values()}
    free = iter(pin for pin in BCM_RANGE if pin not in used)
    added = dict(pins.pins)
    extra_seats = {f"seat{n}" for n in range(DESIGN_SEATS + 1, SEATS + 1)}
    missing = [name for name in INPUTS if name not in added and name not in extra_seats]
    for name, pin in zip(missing, free, strict=False):
        added[name] = PinSpec(name, pin)
    if sum(name in added for name in ENCODER) == 1:  # a free pin for only half of it
        for name in ENCODER:
            added.pop(name, None)
    return PinMap({name: added[name] for name in NAMES if name in added}, pins.bounce_time)


def example_pin_map_path() -> Path:
    """Where the documented example map lives (buttons instead of an encoder)."""
    return _packaged("example-pins.toml")


def _packaged(filename: str) -> Path:
    return Path(str(resources.files("hardware").joinpath(filename)))


# The modules of gpiozero's pin libraries (lgpio, RPi.GPIO, pigpio).
_PIN_LIBRARIES = frozenset({"lgpio", "RPi", "pigpio"})


class PinFault(RuntimeError):
    """A pin of the map that gpiozero could not set up (in use by another program, say),
    named by its entry in the map and its GPIO number."""


class NoPinLibrary(PinFault):
    """gpiozero has no pin library to set any pin up with: no pin of the map is at fault,
    and none can work."""


@contextmanager
def setting_up(*specs: PinSpec) -> Iterator[None]:
    """Name the map's entries (and their GPIOs) in any error setting up their device."""
    try:
        yield
    except Exception as err:
        if type(err).__name__ == "BadPinFactory" or (
                isinstance(err, ModuleNotFoundError) and err.name in _PIN_LIBRARIES):
            # gpiozero found no pin library at all, or not the one the service names in
            # GPIOZERO_PIN_FACTORY: no pin of the map is at fault.
            raise NoPinLibrary(
                f"no GPIO library for gpiozero ({err}): on Raspberry Pi OS install python3-lgpio"
                " (systemd/install.sh does), or play with --sim"
            ) from err
        named = ", ".join(f"{spec.name} (GPIO{spec.pin})" for spec in specs)
        # Some of gpiozero's errors have no words (PinPWMUnsupported): their name says it.
        raise PinFault(f"{named}: {str(err) or type(err).__name__}") from err


def _validate(table: Mapping[str, Any], where: str) -> PinMap:
    bounce_time = table.get("bounce_time", DEFAULT_BOUNCE_TIME)
    if isinstance(bounce_time, bool) or not isinstance(bounce_time, (int, float)) or not (
        0 <= bounce_time <= 1
    ):
        raise ValueError(f"{where}: bounce_time must be seconds between 0 and 1, "
                         f"got {bounce_time!r}" + (
                             f" (in seconds: {bounce_time / 1000:g} for {bounce_time} ms)"
                             if isinstance(bounce_time, (int, float))
                             and not isinstance(bounce_time, bool) and 1 < bounce_time <= 1000
                             else ""))
    specs: dict[str, PinSpec] = {}
    used: dict[int, str] = {}
    for name, entry in table.items():
        if name in _SETTINGS:
            continue
        if name not in NAMES:
            near = difflib.get_close_matches(str(name).lower(), [*NAMES, *_SETTINGS], n=1)
            meant = f" (did you mean {near[0]!r}?)" if near else ""
            raise ValueError(f"{where}: unknown name {name!r}{meant}; the names are: "
                             f"{', '.join(NAMES)}, and the setting bounce_time")
        spec = _spec(name, entry, where)
        if spec.pin in used:
            raise ValueError(f"{where}: BCM pin {spec.pin} is used twice, "
                             f"by {used[spec.pin]!r} and by {name!r}")
        used[spec.pin] = name
        specs[name] = spec
    if sum(n in specs for n in ENCODER) == 1:
        missing = next(n for n in ENCODER if n not in specs)
        raise ValueError(f"{where}: the encoder needs both dial_a and dial_b; "
                         f"{missing!r} is missing")
    ordered = {name: specs[name] for name in NAMES if name in specs}
    return PinMap(ordered, float(bounce_time))


def _spec(name: str, entry: object, where: str) -> PinSpec:
    if isinstance(entry, Mapping):
        fields = dict(entry)
    elif isinstance(entry, int) and not isinstance(entry, bool):
        fields = {"pin": entry}
    else:
        raise ValueError(f"{where}: {name!r} must be a BCM number or a table "
                         f"{{pin = N, ...}}, got {entry!r}")
    allowed = (_ENCODER_KEYS if name in ENCODER else _INPUT_KEYS if name in INPUTS
               else _BUZZER_KEYS if name == "buzzer" else _OUTPUT_KEYS)
    for key, value in fields.items():
        if key not in allowed:
            hint = (f" (active_low = {str(value).lower()}: write active_high ="
                    f" {str(not value).lower()})"
                    if key == "active_low" and "active_high" in allowed
                    and isinstance(value, bool) else "")
            raise ValueError(f"{where}: {name!r} has an unknown key {key!r}; "
                             f"it takes {', '.join(sorted(allowed))}{hint}")
        if key != "pin" and not isinstance(value, bool):
            raise ValueError(f"{where}: {name}.{key} must be true or false, got {value!r}")
    if "pin" not in fields:
        raise ValueError(f"{where}: {name!r} has no pin number")
    pin = fields["pin"]
    if isinstance(pin, bool) or not isinstance(pin, int):
        raise ValueError(f"{where}: {name!r} must be a BCM number, got {pin!r}")
    if pin not in BCM_RANGE:
        on_header = [bcm for bcm, header in HEADER_PIN.items() if header == pin]
        hint = (f" (header pin {pin} is GPIO{on_header[0]}: the map takes BCM numbers)"
                if on_header else "")
        raise ValueError(f"{where}: {name!r} = {pin} is out of range: "
                         f"BCM pins are {BCM_RANGE.start}-{BCM_RANGE.stop - 1}{hint}")
    if name == "buzzer":
        # The panel's buzzer is a passive piezo, silent without PWM tones (an active buzzer
        # still sounds when played tones); a buzzer driven low-active is an active one.
        fields.setdefault("tonal", fields.get("active_high", True))
    if fields.get("tonal") and fields.get("active_high") is False:
        raise ValueError(f"{where}: a tonal buzzer is driven by a square wave: "
                         f"{name}.active_high = false does not apply")
    if pin in FIXED_PULL_UP and fields.get("pull_up") is False:
        raise ValueError(f"{where}: {name!r} = {pin} cannot have pull_up = false: "
                         f"GPIO {pin} has a fixed pull-up resistor on the board")
    return PinSpec(name, pin, **{k: v for k, v in fields.items() if k != "pin"})
