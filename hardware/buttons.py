"""The panel's inputs: every button of the pin map and the bid dial's encoder.

``Controls`` turns gpiozero's events into four plain callbacks and knows nothing of
the game: a button pressed (by name), a button held (for the ones that act on a hold,
such as UNDO), the dial turned one step, and a button stuck down. Debouncing is
gpiozero's ``bounce_time``; holding is gpiozero's ``when_held``.

A button held down longer than ``stuck_after_s`` (a cup resting on it, a jammed
switch, a pull-up wired the wrong way) is reported once and ignored until it is
released. A button that already reads pressed at start-up is reported at once. Released,
it counts again once it has stayed up ``settle_s``: down again sooner, it is stuck again.
A button wired to its switch's normally-closed contact reads pressed at rest and released
only while a finger holds it, so every press would otherwise act as it is let go.

An input that cannot be set up (its pin in use by another driver, say SPI's) is left out, as
if not wired, and said in ``failed``: the other buttons still work. Only where none of them
can be set up does the panel not start.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from gpiozero import Button, RotaryEncoder

from hardware.pins import ENCODER, NoPinLibrary, PinFault, PinMap, setting_up

logger = logging.getLogger(__name__)


class Controls:
    """Every wired button and the encoder, calling back on press, hold, turn and stuck.

    ``holds`` maps the names of buttons that act when held to their hold time in
    seconds (``{"undo": 1.0}``); ``on_hold`` is called once per hold for them.
    ``on_stuck(name, True)`` is called once when a button has been held down for
    ``stuck_after_s``, ``on_stuck(name, False)`` when it is released again.
    ``on_release(name, held)`` is called when a press ends (``held``: its hold acted).
    ``on_ignored(name)`` is called for a press ignored as the button was freed from being
    stuck less than ``settle_s`` before. Callbacks run on gpiozero's threads.
    """

    def __init__(
        self,
        pins: PinMap,
        *,
        on_press: Callable[[str], None],
        on_hold: Callable[[str], None] | None = None,
        on_turn: Callable[[int], None] | None = None,
        on_stuck: Callable[[str, bool], None] | None = None,
        on_release: Callable[[str, bool], None] | None = None,
        on_ignored: Callable[[str], None] | None = None,
        holds: Mapping[str, float] | None = None,
        stuck_after_s: float = 10.0,
        settle_s: float = 2.0,
        pin_factory: Any = None,
    ) -> None:
        self._on_press = on_press
        self._on_hold = on_hold
        self._on_turn = on_turn
        self._on_stuck = on_stuck
        self._on_release = on_release
        self._on_ignored = on_ignored
        self._holds = dict(holds or {})
        self.stuck_after_s = stuck_after_s
        self.settle_s = settle_s
        self._lock = threading.Lock()
        self._stuck: set[str] = set()
        self._freed: dict[str, float] = {}  # stuck buttons released, and when
        self._held: set[str] = set()  # hold buttons whose hold already fired this press
        self.buttons: dict[str, Button] = {}
        self.encoder: RotaryEncoder | None = None
        # The inputs that could not be set up, each with why (PinFault names its pin).
        self.failed: list[PinFault] = []
        try:
            for spec in pins.buttons:
                hold_s = self._holds.get(spec.name)
                with self._leaving_out():
                    with setting_up(spec):
                        button = Button(
                            spec.pin,
                            pull_up=spec.pull_up,
                            bounce_time=pins.bounce_time or None,
                            # A hold button repeats its hold event so the same event can
                            # also notice it being stuck; any other button's only hold is
                            # "stuck".
                            hold_time=stuck_after_s if hold_s is None else hold_s,
                            hold_repeat=hold_s is not None,
                            pin_factory=pin_factory,
                        )
                    self.buttons[spec.name] = button
                    button.when_pressed = self._callback(self._pressed, spec.name)
                    button.when_released = self._callback(self._released, spec.name)
                    button.when_held = self._callback(self._held_down, spec.name)
            if pins.has_encoder:
                a, b = (pins[name] for name in ENCODER)
                # No bounce_time on the encoder: its state machine already rejects
                # contact bounce, and a debounce window would drop steps of a quick turn.
                with self._leaving_out(), setting_up(a, b):
                    self.encoder = RotaryEncoder(a.pin, b.pin, max_steps=0,
                                                 pin_factory=pin_factory)
                if self.encoder is not None:
                    self.encoder.when_rotated_clockwise = lambda: self._turned(1)
                    self.encoder.when_rotated_counter_clockwise = lambda: self._turned(-1)
            if self.failed and not self.buttons and self.encoder is None:
                raise self.failed[0]  # nothing to press: the panel's inputs do not work
        except Exception:
            self.close()
            raise
        for name, button in self.buttons.items():
            if button.is_pressed:
                logger.warning("button %r (BCM %s) reads pressed at start-up: stuck, or "
                               "its pull_up is wrong in the pin map", name, pins[name].pin)
                self._report_stuck(name, warned=True)

    @contextmanager
    def _leaving_out(self) -> Iterator[None]:
        """Leave out an input whose pin cannot be set up, said in ``failed`` (not where
        there is no pin library at all: then no input can work)."""
        try:
            yield
        except PinFault as fault:
            if isinstance(fault, NoPinLibrary):
                raise
            logger.error("input left out: %s", fault)
            self.failed.append(fault)

    @staticmethod
    def _callback(method: Callable[[str], None], name: str) -> Callable[[], None]:
        # gpiozero inspects a callback's signature; a closure with no parameters is
        # called with nothing, whatever gpiozero version.
        def callback() -> None:
            method(name)

        return callback

    @property
    def stuck(self) -> set[str]:
        """The buttons reported stuck and not released since."""
        with self._lock:
            return set(self._stuck)

    def _pressed(self, name: str) -> None:
        with self._lock:
            if name in self._stuck:
                return
            freed = self._freed.pop(name, None)
            self._held.discard(name)
        if freed is not None and time.monotonic() - freed < self.settle_s:
            # Up for a moment only, then down again: still stuck (or wired to the switch's
            # normally-closed contact, where a finger's press is the moment it is up).
            logger.warning("button %r down again within %s s of its release: still stuck, or"
                           " wired to its normally-closed contact: ignored", name, self.settle_s)
            self._report_stuck(name, warned=True)
            if self._on_ignored is not None:
                self._safely(self._on_ignored, name)
            return
        self._safely(self._on_press, name)

    def _released(self, name: str) -> None:
        with self._lock:
            was_stuck = name in self._stuck
            self._stuck.discard(name)
            if was_stuck:
                self._freed[name] = time.monotonic()
            held = name in self._held
        if was_stuck:
            logger.info("button %r released: it counts again once up %s s", name, self.settle_s)
            if self._on_stuck is not None:
                self._safely(self._on_stuck, name, False)
        elif self._on_release is not None:
            self._safely(self._on_release, name, held)

    def _held_down(self, name: str) -> None:
        button = self.buttons[name]
        active_s = button.active_time or 0.0
        if name in self._holds:
            with self._lock:
                if name in self._stuck:
                    return
                first = name not in self._held
                self._held.add(name)
            if first:
                if self._on_hold is not None:
                    self._safely(self._on_hold, name)
                return
            if active_s < self.stuck_after_s:
                return
        self._report_stuck(name)

    def _report_stuck(self, name: str, warned: bool = False) -> None:
        with self._lock:
            if name in self._stuck:
                return
            self._stuck.add(name)
        if not warned:  # (at start-up, or down again too soon, its own warning was given)
            logger.warning("button %r held down over %s s: ignored until released",
                           name, self.stuck_after_s)
        if self._on_stuck is not None:
            self._safely(self._on_stuck, name, True)

    def _turned(self, step: int) -> None:
        if self._on_turn is not None:
            self._safely(self._on_turn, step)

    @staticmethod
    def _safely(callback: Callable[..., None], *args: Any) -> None:
        # An exception on gpiozero's thread would only be printed there and kill
        # nothing useful; log it and keep the panel alive.
        try:
            callback(*args)
        except Exception:
            logger.exception("panel callback %s%r failed", getattr(callback, "__name__", ""),
                             args)

    def close(self) -> None:
        """Release every input pin."""
        devices = [d for d in [*self.buttons.values(), self.encoder] if d is not None]
        if devices:
            # Each button's hold thread polls every 0.1 s before it sees it must stop;
            # closing the buttons side by side costs one poll, not one per button.
            with ThreadPoolExecutor(max_workers=len(devices)) as pool:
                for future in [pool.submit(device.close) for device in devices]:
                    future.result()
        self.buttons.clear()
        self.encoder = None
