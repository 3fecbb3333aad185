"""The panel's inputs on gpiozero's mock pins: presses, holds, the dial, stuck buttons."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.buttons import Controls
from hardware.pins import default_pin_map, example_pin_map_path, load_pin_map
from hardware.sim import rotate, tap

HOLD_S = 0.15
STUCK_S = 0.4
SETTLE_S = 0.2


class Heard:
    """What the controls called back, in order (the callbacks a panel would get)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []
        self.changed = threading.Condition()

    def record(self, kind: str, value: object) -> None:
        with self.changed:
            self.calls.append((kind, value))
            self.changed.notify_all()

    def wait_for(self, call: tuple[str, object], timeout: float = 3.0) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: call in self.calls, timeout)


@pytest.fixture
def heard() -> Heard:
    return Heard()


@pytest.fixture
def controls(pin_factory: MockFactory, heard: Heard) -> Iterator[Controls]:
    built = Controls(
        default_pin_map(),
        on_press=lambda name: heard.record("press", name),
        on_hold=lambda name: heard.record("hold", name),
        on_turn=lambda step: heard.record("turn", step),
        on_stuck=lambda name, stuck: heard.record("stuck" if stuck else "unstuck", name),
        holds={"undo": HOLD_S},
        stuck_after_s=STUCK_S,
        settle_s=SETTLE_S,
        pin_factory=pin_factory,
    )
    yield built
    built.close()


@pytest.mark.parametrize("name", [spec.name for spec in default_pin_map().buttons])
def test_pressing_a_button_names_it(
    controls: Controls, pin_factory: MockFactory, heard: Heard, name: str
) -> None:
    tap(pin_factory, default_pin_map()[name])
    assert heard.calls == [("press", name)]


def test_a_button_wired_to_3v3_is_pressed_by_a_high_pin(
    pin_factory: MockFactory, heard: Heard
) -> None:
    pins = load_pin_map(example_pin_map_path())
    controls = Controls(pins, on_press=lambda n: heard.record("press", n),
                        pin_factory=pin_factory)
    try:
        pin = pin_factory.pin(pins["pass"].pin)
        assert heard.calls == []
        pin.drive_high()
        pin.drive_low()
        assert heard.calls == [("press", "pass")]
    finally:
        controls.close()


def test_every_button_is_debounced_by_gpiozero_with_the_maps_bounce_time(
    controls: Controls,
) -> None:
    assert {b.pin.bounce for b in controls.buttons.values()} == {0.05}


@pytest.mark.parametrize(("steps", "turns"), [(3, [1, 1, 1]), (-2, [-1, -1]), (1, [1])])
def test_turning_the_dial_reports_each_detent_and_its_direction(
    controls: Controls, pin_factory: MockFactory, heard: Heard, steps: int, turns: list[int]
) -> None:
    rotate(pin_factory, 17, 27, steps)
    assert heard.calls == [("turn", t) for t in turns]


def test_holding_undo_acts_once_and_a_short_press_does_not(
    pin_factory: MockFactory, heard: Heard
) -> None:
    pins = default_pin_map()
    controls = Controls(pins, on_press=lambda n: heard.record("press", n),
                        on_hold=lambda n: heard.record("hold", n),
                        on_stuck=lambda n, s: heard.record("stuck" if s else "unstuck", n),
                        holds={"undo": HOLD_S}, stuck_after_s=5.0, pin_factory=pin_factory)
    try:
        tap(pin_factory, pins["undo"])
        assert ("hold", "undo") not in heard.calls
        tap(pin_factory, pins["undo"], hold_s=HOLD_S * 3.5)
        assert heard.calls.count(("hold", "undo")) == 1
        assert ("stuck", "undo") not in heard.calls
    finally:
        controls.close()


@pytest.mark.parametrize("name", ["dudo", "undo", "dial"])
def test_a_button_held_down_too_long_is_reported_once_and_ignored_until_released(
    controls: Controls, pin_factory: MockFactory, heard: Heard, name: str
) -> None:
    pin = pin_factory.pin(default_pin_map()[name].pin)
    pin.drive_low()
    assert heard.wait_for(("stuck", name))
    time.sleep(STUCK_S)  # still down: no second report
    assert heard.calls.count(("stuck", name)) == 1
    assert controls.stuck == {name}
    pin.drive_high()
    assert heard.calls[-1] == ("unstuck", name)
    assert controls.stuck == set()
    # Down again at once (a switch wired to its normally-closed contact is up only while a
    # finger holds it): still stuck, no press.
    tap(pin_factory, default_pin_map()[name])
    assert heard.calls.count(("press", name)) == 1  # the first, as it went down
    assert heard.calls[-2:] == [("stuck", name), ("unstuck", name)]
    time.sleep(SETTLE_S + 0.05)  # up a moment: it counts again
    tap(pin_factory, default_pin_map()[name])
    assert heard.calls[-1] == ("press", name)


def test_closing_the_controls_releases_every_pin(
    pin_factory: MockFactory, heard: Heard
) -> None:
    pins = default_pin_map()
    controls = Controls(pins, on_press=lambda n: heard.record("press", n),
                        pin_factory=pin_factory)
    controls.close()
    again = Controls(pins, on_press=lambda n: heard.record("press", n),
                     pin_factory=pin_factory)
    again.close()
