"""What the referee says after an action: a short English sentence for the page and panel."""

from __future__ import annotations

from dataclasses import dataclass

KINDS = frozenset(
    {
        "bid", "dudo", "calza", "pass", "palifico_choice", "reveal", "lose", "gain", "out",
        "palifico", "round", "winner", "undo", "leave",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Announcement:
    """One thing to announce: ``kind`` (see ``KINDS``), the player it is about, the text."""

    kind: str
    player: str | None
    text: str
