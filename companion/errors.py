"""The two kinds of error the referee raises, both ``ValueError``.

``MalformedAction``: the input itself is wrong (face 7, quantity 0, an unknown player, preset
or option value, bad JSON, a missing field). ``IllegalAction``: a well-formed action that the
rules forbid now (not a raise, out of turn, a locked face, calza by the bidder...). Each
message names the input and the reason; a rejected action changes nothing.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable, Mapping


class MalformedAction(ValueError):
    """The action or header is not well-formed: it could never be accepted as written.

    ``player`` and ``field`` (``"name"`` or ``"colour"``): the one player's entry of a new
    game's header to change, where one is at fault, for a form to mark.
    """

    def __init__(self, message: str, *, player: str | None = None, field: str | None = None):
        super().__init__(message)
        self.player, self.field = player, field


class IllegalAction(ValueError):
    """The action is well-formed but the rules forbid it in the current position."""


def said(number: int) -> str:
    """A whole number as a message says it: in full up to 20 digits, else how long it is (a
    record may hold a bid of thousands of digits; Python writes out at most 4,300)."""
    if number.bit_length() <= 64:
        return str(number)
    sign = "a negative" if number < 0 else "a"
    try:
        return f"{sign} number of {len(str(abs(number))):,} digits"
    except ValueError:
        return f"{sign} number of over 4,300 digits"


def said_bid(quantity: int, face: int) -> str:
    """A bid as a message names it: ``5x3``, ``(a number of 26 digits)x3``."""
    amount = said(quantity)
    return f"{amount}x{face}" if quantity.bit_length() <= 64 else f"({amount})x{face}"


# The most of a value a message shows: a message is one line, whatever the input held.
_SHOWN_CHARACTERS = 60


def shown(value: object) -> str:
    """A value as a message names it: JSON's own words for null, true and false (the input
    is JSON), Python's ``repr`` for the rest (``'poker'``, ``2.0``), cut short past 60
    characters (``'AnaAna…' (5000 characters)``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return said(value)
    text = repr(value)
    if len(text) <= _SHOWN_CHARACTERS:
        return text
    # A text's own characters are counted, not its quotes' (a name of 60 was said as 62).
    length = len(value) if isinstance(value, str) else len(text)
    return f"{text[:_SHOWN_CHARACTERS]}… ({length:,} characters)"


def unknown_player(name: object, players: Iterable[str]) -> str:
    """``unknown player 'Zoë'``, and, where a player's name looks the same but is written
    with other characters (an accent apart, as some keyboards write it), both as written."""
    text = f"unknown player {shown(name)}"
    if isinstance(name, str):
        alike = [p for p in players if p != name and _nfc(p) == _nfc(name)]
        if alike:
            text += (f" (written {ascii(name)}: the game's {alike[0]!r} is written"
                     f" {ascii(alike[0])})")
    return text


def _nfc(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def check_keys(given: Mapping[str, object], known: Iterable[str], where: str) -> None:
    """MalformedAction where a key of ``given`` is not ``known`` but looks like a known key
    misspelt (``colors``, ``optoins``, ``Player``), naming both: the value would otherwise
    be passed over without a word. Other keys (a note, a time another tool wrote) are left
    out of the record, as before."""
    known = list(known)
    for key in given:
        if key in known or not isinstance(key, str):
            continue
        near = difflib.get_close_matches(key.lower(), known, n=1, cutoff=0.8)
        if near:
            raise MalformedAction(f"unknown key {shown(key)} in {where}: did you mean"
                                  f" {near[0]!r}?")
