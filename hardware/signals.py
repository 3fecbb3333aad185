"""What the table shows and sounds: buzzer signals, seat LEDs, the palifico LED, the light.

Each sound is a short signal with its own number of notes, so players learn them by ear
(and a test can tell them apart on the pin): bid accepted 1, your turn 2, action
rejected 3, player out 4, the palifico tune 5, game won 6. A passive piezo (``tonal``
in the pin map) plays them as notes through gpiozero's ``TonalBuzzer``; an active
buzzer beeps the same rhythm through ``Buzzer``. Both play in gpiozero's own background
``source`` thread, so nothing here ever blocks the caller; a new signal cuts the one
playing, but for a reject and the two short counts (accepted, your turn): those are heard
whole, and the new signal follows them. Cut after one beep by the next turn's two, a reject
was heard as three beeps: a reject again; a turn's two cut after one by a reject, as four:
a player out.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gpiozero import LED, Buzzer, TonalBuzzer
from gpiozero.tones import Tone

from hardware.pins import SEATS, NoPinLibrary, PinFault, PinMap, PinSpec, setting_up

logger = logging.getLogger(__name__)

# A note is (tone name, or None for a rest; length in ticks). Every sounded note is
# followed by a rest so that each note is a separate beep on a plain buzzer too.
Note = tuple[str | None, int]
SIGNALS: Mapping[str, tuple[Note, ...]] = {
    "accepted": (("E6", 2), (None, 1)),
    "your_turn": (("A5", 2), (None, 1), ("E6", 2), (None, 1)),
    "rejected": (("A4", 3), (None, 1), ("A4", 3), (None, 1), ("A4", 3), (None, 1)),
    "out": (("E6", 3), (None, 1), ("C6", 3), (None, 1), ("A5", 3), (None, 1),
            ("E5", 6), (None, 1)),
    # Palifico: three repeated notes and a rising close, the one tune of the set.
    "palifico": (("C5", 2), (None, 1), ("C5", 2), (None, 1), ("C5", 2), (None, 1),
                 ("F5", 4), (None, 1), ("A5", 6), (None, 1)),
    "won": (("C5", 2), (None, 1), ("E5", 2), (None, 1), ("G5", 2), (None, 1),
            ("C6", 4), (None, 2), ("G5", 2), (None, 1), ("C6", 8), (None, 1)),
    # The reveal waits for the players (a reading to confirm, or no reading): look at a phone.
    "look": (("E6", 1), (None, 1)) * 7,
}
# A pause between signals played one after the other (ticks).
GAP = 4
# Heard whole before the signal that follows: cut, their beeps and the next one's would
# count as another signal.
HEARD_WHOLE = frozenset({"rejected", "accepted", "your_turn"})
# The tonal buzzer's middle note: a piezo is loudest around 1-3 kHz, so A5 (880 Hz)
# with one octave either side (440-1760 Hz) holds every note above.
MID_TONE = "A5"


class Signals:
    """The panel's outputs: buzzer, seat LEDs, palifico LED and the light under the glass.

    Only the outputs the pin map wires are built; the others are silently absent, so
    every method is safe to call on any panel. An output that cannot be set up (a pin in use,
    no PWM for a tonal buzzer) is left out too, and said in :attr:`failed`.
    """

    def __init__(
        self,
        pins: PinMap,
        *,
        tick_s: float = 0.06,
        blink_s: float = 0.4,
        pin_factory: Any = None,
    ) -> None:
        self.tick_s = tick_s
        self.blink_s = blink_s
        self._devices: list[Any] = []
        self._done = threading.Event()
        self._done.set()
        self._playing: tuple[str, ...] = ()
        # The signal sounding now and its ticks still to come, as the buzzer takes them.
        self._sounding: tuple[str, list[Any]] = ("", [])
        self._blinking: set[str] = set()
        self.buzzer: Buzzer | TonalBuzzer | None = None
        self.leds: dict[str, LED] = {}
        # The outputs that could not be set up, each with why (PinFault names its pin): each
        # is left out, as if not wired, so one broken output does not take the panel down.
        self.failed: list[PinFault] = []
        try:
            for out in pins.outputs:
                try:
                    with setting_up(out):
                        self._set_up(out, pin_factory)
                except PinFault as fault:
                    if isinstance(fault, NoPinLibrary):
                        raise  # no pin library at all: no output can work
                    logger.error("output left out: %s", fault)
                    self.failed.append(fault)
        except Exception:
            self.close()
            raise

    def _set_up(self, out: PinSpec, pin_factory: Any) -> None:
        if out.name == "buzzer":
            self.buzzer = TonalBuzzer(
                out.pin, mid_tone=Tone(MID_TONE), octaves=1, pin_factory=pin_factory
            ) if out.tonal else Buzzer(out.pin, active_high=out.active_high,
                                       pin_factory=pin_factory)
            self.buzzer.source_delay = self.tick_s
            self._devices.append(self.buzzer)
        else:
            led = LED(out.pin, active_high=out.active_high, initial_value=False,
                      pin_factory=pin_factory)
            self.leds[out.name] = led
            self._devices.append(led)

    def opened(self) -> bool:
        """Whether any output was set up."""
        return bool(self._devices)

    # -- sounds -------------------------------------------------------------------------

    def play(self, *names: str) -> None:
        """Start the named signals, one after another, in the background."""
        unknown = [n for n in names if n not in SIGNALS]
        if unknown:
            raise ValueError(f"unknown signal {unknown[0]!r}; the signals are "
                             f"{', '.join(SIGNALS)}")
        if self.buzzer is None or not names:
            return
        logger.debug("signal %s", " + ".join(names))
        sounding, rest = self._sounding
        whole = sounding in HEARD_WHOLE and bool(rest) and not self._done.is_set()
        # Sounding from now on, before the buzzer's thread takes its first tick.
        first = (sounding, rest) if whole else (names[0], self._ticks(names[0]))
        self._sounding = first
        done = threading.Event()
        self._done, self._playing = done, names
        self.buzzer.source = self._values(names, done, first=first if whole else None)

    def playing(self) -> tuple[str, ...]:
        """The signals still playing (one after another), or () when the buzzer is quiet."""
        return () if self._done.is_set() else self._playing

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the signal playing to end; False if it is still playing."""
        return self._done.wait(timeout)

    def _values(self, names: Sequence[str], done: threading.Event,
                first: tuple[str, Sequence[Any]] | None = None) -> Iterator[Any]:
        # One value per tick for gpiozero's source thread: a TonalBuzzer value is the
        # note's pitch from -1 to 1 (None is silence), a Buzzer value is on/off. ``first``:
        # a signal heard whole and its ticks still to sound before them.
        try:
            if first:
                yield from self._sound_out(*first)
                yield from [self._silence()] * GAP
            for i, name in enumerate(names):
                if i:
                    yield from [self._silence()] * GAP
                yield from self._sound_out(name, self._ticks(name))
            yield self._silence()
        finally:
            done.set()

    def _ticks(self, name: str) -> list[Any]:
        """A signal's values, one a tick."""
        return [self._silence() if tone is None else self._sound(tone)
                for tone, length in SIGNALS[name] for _ in range(length)]

    def _sound_out(self, name: str, ticks: Sequence[Any]) -> Iterator[Any]:
        for k, value in enumerate(ticks):
            self._sounding = (name, list(ticks[k + 1:]))
            yield value

    def _sound(self, tone: str) -> float | int:
        if isinstance(self.buzzer, TonalBuzzer):
            ratio = Tone(tone).frequency / self.buzzer.mid_tone.frequency
            return min(max(math.log2(ratio) / self.buzzer.octaves, -1.0), 1.0)
        return 1

    def _silence(self) -> float | int | None:
        return None if isinstance(self.buzzer, TonalBuzzer) else 0

    # -- lights -------------------------------------------------------------------------

    def show_seats(self, lit: Sequence[int] = (), blinking: Sequence[int] = ()) -> None:
        """Light the LEDs of the seats ``lit``, blink those of ``blinking``, the rest off."""
        for seat in range(1, SEATS + 1):
            name = f"seat{seat}_led"
            if seat in blinking:
                self.blink(name)
            else:
                self.set(name, seat in lit)

    def set(self, name: str, on: bool) -> None:
        """Switch one LED (or the light) on or off; a missing one is ignored."""
        led = self.leds.get(name)
        if led is None:
            return
        self._blinking.discard(name)
        if on:
            led.on()
        else:
            led.off()

    def blink(self, name: str) -> None:
        """Blink one LED (until it is set on or off); a missing one is ignored."""
        led = self.leds.get(name)
        if led is None or name in self._blinking:
            return
        self._blinking.add(name)
        led.blink(on_time=self.blink_s, off_time=self.blink_s)

    def states(self) -> dict[str, str]:
        """Every output's state for a virtual panel: ``on``, ``off`` or ``blink``;
        the buzzer ``on`` while it sounds."""
        result = {}
        if self.buzzer is not None:
            result["buzzer"] = "on" if self.buzzer.is_active else "off"
        for name, led in self.leds.items():
            result[name] = ("blink" if name in self._blinking
                            else "on" if led.is_lit else "off")
        return result

    def close(self) -> None:
        """Silence the buzzer, switch everything off and release the pins."""
        for device in self._devices:
            try:
                device.close()
            except Exception:  # a pin already gone must not keep the others held
                logger.exception("closing %r", device)
        self._devices.clear()
        self._done.set()
