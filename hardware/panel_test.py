"""``dudo panel-test``: check the table's wiring, one button, LED and beep at a time.

On a Pi it prints the pin map, lights each LED in turn, plays every buzzer signal, then
names each button as it is pressed (and each turn of the dial) until Ctrl-C. With
``--mock`` it runs on gpiozero's mock pins and presses every button itself, so the
command can be tried (and tested) anywhere.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from typing import Any, TextIO

from gpiozero.exc import GPIOZeroError

from hardware.buttons import Controls
from hardware.pins import ENCODER, PinMap, pin_map_from_config
from hardware.signals import SIGNALS, Signals
from hardware.sim import mock_pin_factory, rotate, tap


def panel_test_command(args: argparse.Namespace) -> int:
    """Run the wiring check; exit 0 when every button answered, else 1."""
    try:
        pins = pin_map_from_config(args.config)
    except ValueError as e:
        print(f"dudo panel-test: {e}", file=sys.stderr)
        return 2
    mock = bool(getattr(args, "mock", False))
    return PanelTest(pins, mock=mock, out=sys.stdout).run()


class PanelTest:
    """The wiring check over one pin map, printing to ``out``."""

    def __init__(self, pins: PinMap, *, mock: bool, out: TextIO,
                 led_s: float | None = None, tick_s: float | None = None) -> None:
        self.pins = pins
        self.mock = mock
        self.out = out
        # The mock run only has to show the sequence, not let a person watch it.
        self.led_s = led_s if led_s is not None else (0.02 if mock else 0.5)
        self.tick_s = tick_s if tick_s is not None else (0.002 if mock else 0.06)
        self.heard: list[str] = []
        self._lock = threading.Lock()

    def say(self, line: str) -> None:
        with self._lock:
            print(line, file=self.out, flush=True)

    def run(self) -> int:
        source = "gpiozero mock pins" if self.mock else "this Pi's GPIO"
        self.say(f"pin map ({source}):")
        self.say(self.pins.table())
        for caution in self.pins.cautions():
            self.say(f"note: {caution}")
        factory: Any = mock_pin_factory() if self.mock else None
        # Each pin library fails in its own way (lgpio's "GPIO busy" is a plain Exception).
        try:
            signals = Signals(self.pins, tick_s=self.tick_s, pin_factory=factory)
        except Exception as e:
            print(f"dudo panel-test: cannot open the GPIO pins: {_why(e)}", file=sys.stderr)
            return 1
        if signals.failed and not signals.opened():  # not one output: the chip, not a wire
            signals.close()
            print(f"dudo panel-test: cannot open the GPIO pins: {_why(signals.failed[0])}",
                  file=sys.stderr)
            return 1
        for fault in signals.failed:  # checked without it, and the check fails at its end
            print(f"dudo panel-test: cannot open {fault}", file=sys.stderr)
        try:
            controls = Controls(self.pins, on_press=self._pressed, on_hold=self._held,
                                on_turn=self._turned, on_stuck=self._stuck,
                                holds={"undo": 1.0}, pin_factory=factory)
        except Exception as e:
            signals.close()
            print(f"dudo panel-test: cannot open the button pins: {_why(e)}", file=sys.stderr)
            return 1
        for fault in controls.failed:  # the other inputs are checked, and the check fails
            print(f"dudo panel-test: cannot open {fault}", file=sys.stderr)
        try:
            self._outputs(signals)
            answered = self._mock_presses(factory) if self.mock else self._wait_for_presses()
            return 1 if signals.failed or controls.failed else answered
        finally:
            controls.close()
            signals.close()

    def _outputs(self, signals: Signals) -> None:
        self.say("\nLEDs and light, one at a time:")
        for name, led in signals.leds.items():
            self.say(f"  {name} (GPIO{self.pins[name].pin}) on")
            led.on()
            time.sleep(self.led_s)
            led.off()
        if signals.buzzer is None:
            self.say("\nthe buzzer could not be set up" if "buzzer" in self.pins
                     else "\nno buzzer in the pin map")
            return
        kind = "tonal" if self.pins["buzzer"].tonal else "beeps"
        self.say(f"\nbuzzer (GPIO{self.pins['buzzer'].pin}, {kind}), every signal:")
        for name in SIGNALS:
            self.say(f"  {name}")
            signals.play(name)
            signals.wait(timeout=10)

    def _wait_for_presses(self) -> int:
        self.say("\npress each button (hold UNDO 1 s), turn the dial; Ctrl-C to end")
        try:
            self.until_stopped()
        except KeyboardInterrupt:
            heard = sorted(set(self.heard))
            self.say(f"\n{len(heard)} input{'' if len(heard) == 1 else 's'} answered"
                     + (f": {', '.join(heard)}" if heard else ""))
        return self._unanswered()

    def until_stopped(self) -> None:
        """Wait for the builder's Ctrl-C (KeyboardInterrupt), the buttons answering meanwhile."""
        threading.Event().wait()

    def _mock_presses(self, factory: Any) -> int:
        self.say("\nbuttons (mock: pressing each one):")
        for spec in self.pins.buttons:
            tap(factory, spec)
        if self.pins.has_encoder:
            a, b = (self.pins[name].pin for name in ENCODER)
            rotate(factory, a, b, 1)
            rotate(factory, a, b, -1)
        if self._unanswered():
            return 1
        self.say(f"all {len(self._expected())} inputs answered")
        return 0

    def _expected(self) -> list[str]:
        return [spec.name for spec in self.pins.buttons] + (
            ["dial turned"] if self.pins.has_encoder else [])

    def _unanswered(self) -> int:
        """1, said with what to check, where an input never answered; else 0. (On a Pi the
        run ended with 0 whatever answered: a dead button, the likeliest mistake, went
        unsaid.)"""
        missing = [name for name in self._expected() if name not in self.heard]
        if not missing:
            return 0
        self.say(f"no answer from: {', '.join(missing)} (check each one's wires; a button to"
                 " GND needs pull_up = true, the default, one to 3.3 V pull_up = false)")
        return 1

    def _pressed(self, name: str) -> None:
        self.heard.append(name)
        self.say(f"  pressed {name} (GPIO{self.pins[name].pin})")

    def _held(self, name: str) -> None:
        self.say(f"  held {name}")

    def _turned(self, step: int) -> None:
        self.heard.append("dial turned")
        self.say(f"  dial turned {'clockwise' if step > 0 else 'counter-clockwise'}")

    def _stuck(self, name: str, stuck: bool) -> None:
        state = "stuck down (or pull_up wrong)" if stuck else "released"
        self.say(f"  {name} (GPIO{self.pins[name].pin}) {state}")


def _why(error: Exception) -> str:
    """What a pin library said, and what to do about it."""
    said = str(error).strip() or type(error).__name__
    if "busy" in said.lower():
        return (f"{said}: is the table running? Stop it first "
                "(sudo systemctl stop dudo-companion)")
    if isinstance(error, GPIOZeroError | OSError | RuntimeError):
        return f"{said} (not a Pi? try --mock)"
    return said
