"""What the referee says after an action: a short English sentence for the page and panel."""

from __future__ import annotations

from dataclasses import dataclass

KINDS = frozenset(
    {
        "bid", "dudo", "calza", "pass", "palifico_choice", "corrected", "reveal", "lose", "gain",
        "out", "palifico", "round", "winner", "undo", "leave",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True, init=False)
class Announcement:
    """One thing to announce: ``kind`` (see ``KINDS``), the player it is about, the text."""

    kind: str
    player: str | None
    text: str

    def __init__(self, kind: str, player: str | None, text: str) -> None:
        # Every action makes one or more announcements: setting the slots through their
        # descriptors is about twice as fast as the generated frozen __init__
        # (object.__setattr__), and the instance stays frozen.
        _set_kind(self, kind)
        _set_player(self, player)
        _set_text(self, text)


_set_kind = Announcement.__dict__["kind"].__set__
_set_player = Announcement.__dict__["player"].__set__
_set_text = Announcement.__dict__["text"].__set__
