"""A bid's text form both ways, and what a player hears."""

from __future__ import annotations

import pytest

from companion.bid import Bid
from companion.errors import MalformedAction


@pytest.mark.parametrize(
    ("text", "bid"), [("5x3", Bid(5, 3)), (" 12X1 ", Bid(12, 1)), ("1 x 6", Bid(1, 6))]
)
def test_a_bid_reads_from_its_text(text: str, bid: Bid) -> None:
    assert Bid.parse(text) == bid


def test_a_bid_writes_back_to_its_text_and_its_repr_rebuilds_it() -> None:
    bid = Bid(5, 3)
    assert str(bid) == "5x3"
    assert eval(repr(bid)) == bid  # noqa: S307 - the repr round-trips by design
    assert bid.to_dict() == {"quantity": 5, "face": 3}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("5y3", "malformed bid: '5y3' (write quantity x face, like 5x3)"),
        ("5x7", "malformed bid: face 7 (faces are 1-6)"),
        ("0x3", "malformed bid: quantity 0 (quantities start at 1)"),
        ("x3", "malformed bid: 'x3'"),
    ],
)
def test_a_malformed_bid_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(MalformedAction) as caught:
        Bid.parse(text)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("bid", "words"),
    [(Bid(1, 2), "one 2"), (Bid(5, 3), "five 3s"), (Bid(1, 1), "one ace"),
     (Bid(3, 1), "three aces"), (Bid(21, 6), "21 6s")],
)  # fmt: skip
def test_a_bid_is_said_the_way_players_say_it(bid: Bid, words: str) -> None:
    assert bid.words() == words


def test_bids_are_frozen_values() -> None:
    assert len({Bid(2, 3), Bid(2, 3), Bid(3, 2)}) == 2
    with pytest.raises(AttributeError):
        Bid(2, 3).face = 4  # type: ignore[misc]
