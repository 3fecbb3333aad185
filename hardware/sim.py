"""Driving a panel built on gpiozero's mock pins: the ``--sim`` table and the tests.

``MockPanelDriver`` presses buttons and turns the dial by driving the very pins the
panel's gpiozero devices listen to, so the virtual panel on the page runs the same code
as the real table. Build the panel on ``mock_pin_factory()`` (PWM-capable mock pins, as
the tonal buzzer needs them).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.panel import Panel
from hardware.pins import BUTTONS, ENCODER, SEATS, PinSpec

# A press longer than this is not a press the page should make (the stuck-button
# report comes at 10 s); it also bounds how long one HTTP request can hold a thread.
MAX_HOLD_S = 15.0


def mock_pin_factory() -> MockFactory:
    """gpiozero's MockFactory with PWM-capable pins (a tonal buzzer needs PWM), each keeping
    only its latest states (``ShortMemoryPin``)."""
    return MockFactory(pin_class=ShortMemoryPin)


class ShortMemoryPin(MockPWMPin):
    """gpiozero's PWM-capable mock pin that keeps its last ``KEPT`` to ``2 * KEPT`` states.

    A mock pin keeps every state it ever had in ``states``, for a test to look back on. The
    ``--sim`` table runs for an evening: there its LEDs and buzzer added 11,000 of them in
    20 minutes of play (1.2 MB, never given back)."""

    KEPT = 256

    def _change_state(self, value: float) -> bool:
        changed: bool = super()._change_state(value)
        if len(self.states) > 2 * self.KEPT:
            del self.states[:-self.KEPT]
        return changed


class MockPanelDriver:
    """Presses and turns a ``Panel`` built on a ``MockFactory``.

    Every bad request is a ``ValueError`` naming what was wrong, and presses nothing.
    """

    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        devices = [*panel.controls.buttons.values(), panel.controls.encoder,
                   *panel.signals.leds.values(), panel.signals.buzzer]
        self.factory: Any = next((d.pin_factory for d in devices if d is not None), None)
        if not isinstance(self.factory, MockFactory):
            raise ValueError("the panel is not on gpiozero's mock pins: build it with "
                             "pin_factory=mock_pin_factory()")
        # One press at a time: two requests must not interleave their pin changes.
        self._lock = threading.Lock()

    def buttons(self) -> list[str]:
        """The buttons this panel has, in panel order (what a virtual panel can show)."""
        return [spec.name for spec in self.panel.pins.buttons]

    def press(self, button: str, seat: int | None = None, hold_s: float = 0.0) -> None:
        """Press ``button`` (held ``hold_s`` seconds), after seat button ``seat`` if given.

        Returns once the button is released again and the panel has answered (LEDs,
        dial, the signal started), so ``outputs()`` then shows the answer.
        """
        spec = self._button(button)
        seat_spec = None
        if seat is not None:
            if isinstance(seat, bool) or not isinstance(seat, int):
                raise ValueError(f"seat must be a seat number, got {seat!r}")
            if not 1 <= seat <= SEATS:
                raise ValueError(f"seat {seat}: the seats are 1-{SEATS}")
            seat_spec = self._button(f"seat{seat}", what=f"seat {seat}")
        if isinstance(hold_s, bool) or not isinstance(hold_s, (int, float)) or not (
            0 <= hold_s <= MAX_HOLD_S
        ):
            raise ValueError(f"hold_s must be seconds from 0 to {MAX_HOLD_S:g}, "
                             f"got {hold_s!r}")
        with self._lock:
            if seat_spec is not None:
                self._tap(seat_spec, 0.0)
            self._tap(spec, float(hold_s))
        self.panel.settle()

    def turn(self, steps: int) -> None:
        """Turn the dial ``steps`` detents clockwise (negative: counter-clockwise)."""
        if isinstance(steps, bool) or not isinstance(steps, int):
            raise ValueError(f"steps must be a whole number, got {steps!r}")
        if abs(steps) > 1000:
            raise ValueError(f"steps {steps}: at most 1000 at a time")
        if not self.panel.pins.has_encoder:
            raise ValueError("this panel has no dial encoder (no dial_a/dial_b in the pin map)")
        a, b = (self.panel.pins[name].pin for name in ENCODER)
        with self._lock:
            rotate(self.factory, a, b, steps)
        self.panel.settle()

    def outputs(self) -> dict[str, str]:
        """Every LED, the light and the buzzer: ``on``, ``off`` or ``blink``."""
        return self.panel.signals.states()

    def _button(self, name: str, what: str | None = None) -> PinSpec:
        if not isinstance(name, str) or name not in BUTTONS:
            raise ValueError(f"unknown button {repr(name)[:40]}; this panel's buttons are "
                             f"{', '.join(self.buttons())}")
        spec = self.panel.pins.get(name)
        if spec is None:
            raise ValueError(f"this panel has no {what or name} button; it has "
                             f"{', '.join(self.buttons())}")
        return spec

    def _tap(self, spec: PinSpec, hold_s: float) -> None:
        tap(self.factory, spec, hold_s)


def tap(factory: MockFactory, spec: PinSpec, hold_s: float = 0.0) -> None:
    """Press the button ``spec`` on a mock pin, hold it ``hold_s`` seconds, release it."""
    pin = factory.pin(spec.pin)
    # A button to ground reads low when pressed; one to 3.3 V reads high.
    if spec.pull_up:
        pin.drive_low()
    else:
        pin.drive_high()
    if hold_s:
        time.sleep(hold_s)
    if spec.pull_up:
        pin.drive_high()
    else:
        pin.drive_low()


def rotate(factory: MockFactory, a: int, b: int, steps: int) -> None:
    """Turn an encoder on mock pins ``a``/``b`` by ``steps`` detents (negative: back)."""
    pin_a, pin_b = factory.pin(a), factory.pin(b)
    # One detent is a full cycle of the quadrature code (A and B are active low):
    # clockwise A falls first, counter-clockwise B does.
    first, second = (pin_a, pin_b) if steps > 0 else (pin_b, pin_a)
    for _ in range(abs(steps)):
        first.drive_low()
        second.drive_low()
        first.drive_high()
        second.drive_high()
