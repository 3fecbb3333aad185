"""Buzzer signals and LEDs on gpiozero's mock pins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.pins import default_pin_map, load_pin_map
from hardware.signals import SIGNALS, Signals

TICK_S = 0.004
# Each signal has its own number of sounds, so players (and these tests) tell them apart.
SOUNDS = {"accepted": 1, "your_turn": 2, "rejected": 3, "out": 4, "palifico": 5, "won": 6,
          "look": 7}


def test_every_signal_has_its_own_number_of_sounds() -> None:
    assert set(SOUNDS) == set(SIGNALS)
    assert len(set(SOUNDS.values())) == len(SOUNDS)


@pytest.mark.parametrize("tonal", [True, False], ids=["tonal buzzer", "plain buzzer"])
@pytest.mark.parametrize("signal", list(SOUNDS))
def test_a_signal_sounds_its_notes_then_falls_silent(
    pin_factory: MockFactory, sounds: Callable[[Any], int], signal: str, tonal: bool
) -> None:
    signals = Signals(load_pin_map({"buzzer": {"pin": 18, "tonal": tonal}}),
                      tick_s=TICK_S, pin_factory=pin_factory)
    try:
        pin = pin_factory.pin(18)
        signals.play(signal)
        assert signals.wait(timeout=5)
        assert sounds(pin) == SOUNDS[signal]
        assert not pin.state
        assert signals.states() == {"buzzer": "off"}
    finally:
        signals.close()


def test_a_tonal_signal_plays_notes_of_different_pitch(
    pin_factory: MockFactory, eventually: Callable[..., bool]
) -> None:
    signals = Signals(default_pin_map(), tick_s=0.05, pin_factory=pin_factory)
    try:
        pin = pin_factory.pin(18)
        signals.play("won")  # C5, E5, G5, C6...: around the buzzer's middle A5
        heard: set[int] = set()
        assert eventually(lambda: heard.add(round(pin.frequency or 0)) or len(heard) >= 4)
        assert {523, 659, 784} <= heard
    finally:
        signals.close()


def test_signals_play_in_the_background_and_the_next_one_cuts_in(
    pin_factory: MockFactory, sounds: Callable[[Any], int], eventually: Callable[..., bool]
) -> None:
    signals = Signals(default_pin_map(), tick_s=0.05, pin_factory=pin_factory)
    try:
        pin = pin_factory.pin(18)
        signals.play("won")  # about 2 s long
        assert not signals.wait(timeout=0)
        assert eventually(lambda: pin.state)  # sounding while the caller goes on
        signals.tick_s = TICK_S
        signals.buzzer.source_delay = TICK_S  # type: ignore[union-attr]
        pin.clear_states()
        signals.play("rejected")
        assert signals.wait(timeout=5)
        # The first note of "rejected" may join the note it cut off, never more.
        assert sounds(pin) in (2, 3)
        assert not pin.state
    finally:
        signals.close()


@pytest.mark.parametrize("wait", [True, False], ids=["in its first beep", "at once"])
@pytest.mark.parametrize(("first", "then"), [
    ("rejected", "your_turn"), ("your_turn", "rejected"), ("accepted", "rejected"),
    ("your_turn", "accepted"),
])
def test_a_reject_and_the_short_counts_are_heard_whole_before_the_signal_that_follows(
    pin_factory: MockFactory, sounds: Callable[[Any], int], eventually: Callable[..., bool],
    wait: bool, first: str, then: str,
) -> None:
    # Cut after one beep by the next turn's two, a reject was heard as three beeps: a reject.
    # A turn's two cut after one by a reject (a press refused just after a phone's bid) were
    # heard as four: a player out.
    signals = Signals(default_pin_map(), tick_s=0.02, pin_factory=pin_factory)
    try:
        pin = pin_factory.pin(18)
        signals.play(first)
        assert not wait or eventually(lambda: pin.state)
        signals.play(then)
        assert signals.wait(timeout=5)
        assert sounds(pin) == SOUNDS[first] + SOUNDS[then]
    finally:
        signals.close()


def test_signals_can_follow_one_another(
    pin_factory: MockFactory, sounds: Callable[[Any], int]
) -> None:
    signals = Signals(default_pin_map(), tick_s=TICK_S, pin_factory=pin_factory)
    try:
        signals.play("accepted", "out")
        assert signals.wait(timeout=5)
        assert sounds(pin_factory.pin(18)) == 1 + 4
    finally:
        signals.close()


def test_an_unknown_signal_is_a_clear_error(pin_factory: MockFactory) -> None:
    signals = Signals(default_pin_map(), pin_factory=pin_factory)
    try:
        with pytest.raises(ValueError, match="unknown signal 'tada'"):
            signals.play("tada")
    finally:
        signals.close()


def test_the_seat_leds_light_the_seats_asked_and_nothing_else(
    pin_factory: MockFactory,
) -> None:
    pins = default_pin_map()
    signals = Signals(pins, pin_factory=pin_factory)
    try:
        signals.show_seats(lit=[2])
        lit = [n for n in range(1, 7) if pin_factory.pin(pins[f"seat{n}_led"].pin).state]
        assert lit == [2]
        signals.show_seats(lit=[5])
        lit = [n for n in range(1, 7) if pin_factory.pin(pins[f"seat{n}_led"].pin).state]
        assert lit == [5]
        signals.show_seats()
        assert not any(pin_factory.pin(pins[f"seat{n}_led"].pin).state for n in range(1, 7))
    finally:
        signals.close()


def test_blinking_seats_flash_until_told_otherwise(
    pin_factory: MockFactory, sounds: Callable[[Any], int], eventually: Callable[..., bool]
) -> None:
    pins = default_pin_map()
    signals = Signals(pins, blink_s=0.01, pin_factory=pin_factory)
    try:
        led = pin_factory.pin(pins["seat3_led"].pin)
        signals.show_seats(blinking=[1, 3])
        assert signals.states()["seat3_led"] == "blink"
        assert eventually(lambda: sounds(led) >= 3)
        signals.show_seats(lit=[3])
        assert signals.states()["seat3_led"] == "on"
        assert led.state
    finally:
        signals.close()


def test_an_active_low_light_is_off_with_its_pin_high(pin_factory: MockFactory) -> None:
    signals = Signals(load_pin_map({"light": {"pin": 21, "active_high": False}}),
                      pin_factory=pin_factory)
    try:
        assert pin_factory.pin(21).state  # off
        signals.set("light", True)
        assert not pin_factory.pin(21).state
        assert signals.states() == {"light": "on"}
    finally:
        signals.close()


def test_the_sim_table_s_pins_keep_their_latest_states_not_an_evening_of_them() -> None:
    from gpiozero import LED, PWMLED

    from hardware.sim import ShortMemoryPin, mock_pin_factory

    factory = mock_pin_factory()
    try:
        led, dimmed = LED(17, pin_factory=factory), PWMLED(18, pin_factory=factory)
        for n in range(5000):  # an LED blinking twice a second for 20 minutes
            led.toggle()
            dimmed.value = (n % 10) / 10
        for device in (led, dimmed):
            pin = factory.pin(device.pin.info.name)
            assert ShortMemoryPin.KEPT <= len(pin.states) <= 2 * ShortMemoryPin.KEPT
            assert pin.states[-1].state == pin.state  # the newest is kept
        assert led.value == 0 and dimmed.value == 0.9
    finally:
        factory.reset()
        factory.close()
