"""Fixtures for the engine tests: a short script notation for the actions of a game.

``"Ana 3x4; Ben dudo; reveal Ana:14456 Ben:23366"`` is three record actions. Forms:
``NAME QxF`` (bid), ``NAME dudo|calza|pass|leave``, ``NAME open|closed`` (palifico
declaration), ``undo``, ``reveal NAME:FACES ...`` (per player; ``NAME:`` for no dice) and
``reveal FACES`` (one flat list).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from companion.announcement import Announcement
from companion.errors import IllegalAction
from companion.game import Game

Script = Callable[[Game, str], list[Announcement]]


def script_actions(text: str) -> list[dict[str, Any]]:
    """The record actions a script stands for."""
    actions: list[dict[str, Any]] = []
    for step in filter(None, (s.strip() for s in text.split(";"))):
        words = step.split()
        if words == ["undo"]:
            actions.append({"action": "undo"})
        elif words[0] == "reveal":
            if len(words) == 2 and ":" not in words[1]:
                actions.append({"action": "reveal", "faces": [int(c) for c in words[1]]})
            else:
                dice = {}
                for part in words[1:]:
                    name, faces = part.split(":")
                    dice[name] = [int(c) for c in faces]
                actions.append({"action": "reveal", "dice": dice})
        elif len(words) == 2 and "x" in words[1]:
            q, f = words[1].split("x")
            actions.append(
                {"action": "bid", "player": words[0], "quantity": int(q), "face": int(f)}
            )
        elif len(words) == 2 and words[1] in ("open", "closed"):
            actions.append({"action": "palifico", "player": words[0], "mode": words[1]})
        elif len(words) == 2 and words[1] in ("dudo", "calza", "pass", "leave"):
            actions.append({"action": words[1], "player": words[0]})
        else:
            raise ValueError(f"cannot read script step {step!r}")
    return actions


@pytest.fixture
def play() -> Script:
    """``play(game, script)``: apply every action of the script; return the announcements."""

    def run(game: Game, text: str) -> list[Announcement]:
        said: list[Announcement] = []
        for action in script_actions(text):
            said += game.apply(action)
        return said

    return run


@pytest.fixture
def dice_of() -> Callable[[Game], dict[str, int]]:
    """``dice_of(game)``: every player's dice count."""
    return dice_counts


def refused(game: Game, action: dict[str, Any], match: str | None = None) -> None:
    """The action is illegal now and changes nothing."""
    before = game.state()
    with pytest.raises(IllegalAction, match=match):
        game.apply(action)
    assert game.state() == before


def dice_counts(game: Game) -> dict[str, int]:
    """Each player's dice now."""
    return {name: game.dice(name) for name in game.players}
