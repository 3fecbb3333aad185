"""The bid dial walks the referee's list of legal bids; the +/- buttons move a pair."""

from __future__ import annotations

import pytest

from companion.bid import Bid
from hardware.dial import BidDial

# A list as the engine gives it: ascending, the first being the lowest legal raise.
LEGAL = [Bid.parse(t) for t in ["3x5", "3x6", "2x1", "4x2", "4x3", "4x4", "4x5", "4x6"]]


def dialed(steps: list[int]) -> str | None:
    dial = BidDial()
    dial.reset(LEGAL)
    for step in steps:
        dial.turn(step)
    return None if dial.current is None else str(dial.current)


@pytest.mark.parametrize(
    ("steps", "shown"),
    [
        ([], "3x5"),
        ([1], "3x6"),
        ([1, 1, 1], "4x2"),
        ([3, -1], "2x1"),
        ([-1], "3x5"),
        ([-5, 1], "3x6"),
        ([7], "4x6"),
        ([20], "4x6"),
        ([20, -1], "4x5"),
    ],
)
def test_the_dial_steps_through_the_legal_bids_in_order_and_stops_at_the_ends(
    steps: list[int], shown: str
) -> None:
    assert dialed(steps) == shown


def test_the_dial_never_shows_a_bid_below_the_lowest_legal_raise() -> None:
    dial = BidDial()
    dial.reset(LEGAL)
    seen = {str(dial.turn(step)) for step in [-1, 1, -1, -1, 2, -3, -100]}
    assert seen <= {str(b) for b in LEGAL}
    assert str(dial.current) == "3x5"


def test_a_new_list_sends_the_dial_back_to_its_lowest_raise() -> None:
    dial = BidDial()
    dial.reset(LEGAL)
    dial.turn(4)
    assert str(dial.reset(LEGAL[3:])) == "4x2"


def test_a_new_list_for_the_same_raise_keeps_the_bid_dialed_while_it_is_legal() -> None:
    dial = BidDial()
    dial.reset(LEGAL)
    dial.turn(4)
    assert str(dial.reset(LEGAL[2:], keep=True)) == "4x3"
    dial.adjust(face=1)  # the +/- buttons: 4x4
    assert str(dial.reset(LEGAL, keep=True)) == "4x4"
    # No longer legal (fewer dice in play): back to the lowest raise.
    assert str(dial.reset(LEGAL[:3], keep=True)) == "3x5"


def test_with_no_legal_bid_the_dial_shows_nothing() -> None:
    dial = BidDial()
    assert dial.reset([]) is None
    assert dial.turn(1) is None
    assert dial.adjust(quantity=1) is None


@pytest.mark.parametrize(
    ("presses", "shown"),
    [
        ([], "3x5"),
        (["qty_up"], "4x5"),
        (["face_up"], "3x6"),
        (["face_up", "face_up"], "3x6"),
        (["face_down"] * 6, "3x1"),
        (["qty_down"] * 5, "1x5"),
        (["qty_up"] * 9, "4x5"),
        (["qty_up", "face_down", "face_down"], "4x3"),
    ],
)
def test_the_plus_minus_buttons_move_quantity_and_face_from_the_lowest_raise(
    presses: list[str], shown: str
) -> None:
    moves = {"qty_up": (1, 0), "qty_down": (-1, 0), "face_up": (0, 1), "face_down": (0, -1)}
    dial = BidDial()
    dial.reset(LEGAL)
    for press in presses:
        dial.adjust(*moves[press])
    assert str(dial.current) == shown


def test_turning_after_the_buttons_goes_on_from_the_bid_they_chose() -> None:
    dial = BidDial()
    dial.reset(LEGAL)
    dial.adjust(quantity=1, face=-1)  # 4x4, which the list holds
    assert str(dial.turn(1)) == "4x5"
