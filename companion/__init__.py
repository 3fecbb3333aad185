"""dudo-companion's referee: the rules engine, the game record and the table service.

``companion.Table`` and ``companion.Game`` are loaded on first use, so importing the package
costs nothing and pulls in no hardware or vision library.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Game", "Table"]


def __getattr__(name: str) -> Any:
    if name == "Table":
        from companion.table import Table

        return Table
    if name == "Game":
        from companion.game import Game

        return Game
    raise AttributeError(f"module 'companion' has no attribute {name!r}")
