"""The simulated cups of ``dudo serve --sim``: the dice the simulated players roll each round.

:class:`SimulatedCups` listens to the table. At each new round it rolls, for every player
still in, as many dice as the table says they hold, and puts them under the simulated camera
(``vision.simulate.SimulatedCamera.set_dice``). The table never sees them: it learns the
faces only from the camera's one picture at the reveal, exactly as with real cups.

Each round's roll is a pure function of (seed, game, round, player, dice held), so ``--seed``
makes a whole game repeatable (and known to whoever knows the seed: a seed is for tests and
demonstrations), and an undo back into a round finds the same dice under the cups.
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from companion.table import Table, TableEvent

logger = logging.getLogger(__name__)


class CupCamera(Protocol):
    """What the cups need of the simulated camera."""

    def set_dice(
        self, dice_by_player: Mapping[str, Sequence[int]], colours: Mapping[str, str] | None = None,
        seated: Sequence[str] | None = None,
    ) -> None: ...


class SimulatedCups:
    """Rolls the simulated players' dice at each round and hands them to the camera.

    ``seed``: repeatable rolls (None: a fresh random seed). Call :meth:`close` to stop
    listening to the table.
    """

    def __init__(self, table: Table, camera: CupCamera, seed: int | None = None) -> None:
        self.camera = camera
        # Unseeded, 128 bits: one reveal's dice must not tell the seed, and so every later roll.
        self.seed = seed if seed is not None else secrets.randbits(128)
        self._lock = threading.Lock()
        self._dice: dict[str, list[int]] = {}
        self._table = table
        self._unsubscribe = table.subscribe(self._on_event)
        self._roll_for(table.state())

    def dice(self) -> dict[str, list[int]]:
        """The dice under the cups now, per player (for tests: hidden from the table's page)."""
        with self._lock:
            return {player: list(faces) for player, faces in self._dice.items()}

    def roll(self, game_id: object, round_number: object, player: str, count: int) -> list[int]:
        """The dice ``player`` rolls in that round of that game: repeatable for one seed."""
        rng = random.Random(f"{self.seed}:{game_id}:{round_number}:{player}:{count}")
        return [rng.randint(1, 6) for _ in range(count)]

    def close(self) -> None:
        """Stop following the table."""
        self._unsubscribe()

    def _on_event(self, event: TableEvent) -> None:
        if event.kind == "state":
            self._roll_for(event.state)

    def _roll_for(self, state: Mapping[str, Any]) -> None:
        """Put the dice of the state's round under the cups, when they changed."""
        if state.get("phase") not in ("bidding", "reveal"):
            return
        game_id, round_number = state.get("game_id"), state.get("round")
        # The counts from the table itself: the state leaves them out where they are hidden.
        held = self._table.dice_under_cups()
        dice = {
            player["name"]: self.roll(game_id, round_number, player["name"], held[player["name"]])
            for player in state.get("players", [])
            if not player.get("out") and held.get(player["name"], 0) > 0
        }
        with self._lock:
            if dice == self._dice:
                return
            self._dice = dice
        logger.debug("simulated cups: game %s round %s rolled", game_id, round_number)
        # Each player's dice are of the colour nearest theirs on the page.
        colours = {p: c for p, c in (state.get("colours") or {}).items() if p in dice}
        # Seated as the game seats them, every player: the camera lays each one's dice in
        # their own seat's part of the glass.
        players = sorted(state.get("players", []), key=lambda p: p.get("seat", 0))
        seated = [p["name"] for p in players]
        self.camera.set_dice(dice, colours, seated=seated)
