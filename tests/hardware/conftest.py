"""Fixtures for the table hardware: gpiozero's own MockFactory, reset after each test."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin


@pytest.fixture
def pin_factory() -> Iterator[MockFactory]:
    """Mock pins that can do PWM (the tonal buzzer needs it); cleared after the test."""
    factory = MockFactory(pin_class=MockPWMPin)
    try:
        yield factory
    finally:
        factory.reset()
        factory.close()


def _sounds(pin: Any) -> int:
    states = [bool(s.state) for s in pin.states]
    return sum(1 for before, now in zip(states, states[1:], strict=False) if now and not before)


@pytest.fixture
def sounds() -> Callable[[Any], int]:
    """How many separate sounds (or flashes) a mock output pin went through."""
    return _sounds


def _eventually(check: Callable[[], object], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


@pytest.fixture
def eventually() -> Callable[..., bool]:
    """Wait (up to a few seconds) for something gpiozero's threads do in the background."""
    return _eventually
