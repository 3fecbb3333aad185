"""Resuming after a restart: the journal's most recent game replayed through the engine.

The last row of a game may be torn by a power cut (its checksum or JSON is bad, or the
engine refuses it: an SD card may lose the last write it reported done): it is moved aside,
kept in the journal's ``dropped`` table, and the game resumes without it, the page saying
which action was left out, so that the players enter it again if it was made. A bad row
before the last is damage, not a torn write: the resume stops with a clear message and the
journal is kept exactly as it is.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from companion.game import Game
from companion.journal import Journal, JournalError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Resumed:
    """What the journal gave back: the game and its id, or why there is none (``fault``);
    ``left_out``: what the players are told of a torn last row the game resumed without."""

    game: Game | None = None
    game_id: int | None = None
    fault: str | None = None
    left_out: str | None = None


def resume_latest(journal: Journal) -> Resumed:
    """Replay the journal's most recent game (finished or not), dropping a torn last row.

    The most recent game is the one the table was showing when it stopped, so the page comes
    back as it was: a finished game shows its winner until a new game starts.
    """
    try:
        saved = journal.latest()
    except JournalError as err:
        return Resumed(fault=f"cannot resume the last game: {err}; the journal is kept")
    if saved is None:
        return Resumed()
    try:
        game = Game.from_header(saved.header)
    except ValueError as err:
        return Resumed(fault=f"cannot resume game {saved.id}: its header is refused: {err}")
    left_out = None
    for i, row in enumerate(saved.rows):
        problem = row.problem()
        if problem is None and row.seq != i + 1:
            problem = f"it is row {row.seq} where row {i + 1} should be"
        if problem is None:
            try:
                game.apply(row.action())
            except ValueError as err:
                problem = f"the engine refuses it: {err}"
        if problem is None:
            continue
        if i < len(saved.rows) - 1:
            fault = (
                f"cannot resume game {saved.id}: row {row.seq} of {len(saved.rows)} is damaged"
                f" ({problem}); the journal is kept as it is"
            )
            logger.error("%s", fault)
            return Resumed(fault=fault)
        # The last write was torn by a power cut: the game goes on without it, and says so.
        logger.warning(
            "journal: the torn last row %d of game %d is dropped: %s", row.seq, saved.id, problem
        )
        left_out = (
            f"the last action recorded before the restart could not be read back ({problem}):"
            f" the game goes on without it; enter it again if it was made"
            f" (kept aside in the journal: {row.body[:80]!r})"
        )
        try:
            journal.drop(row, problem)
        except JournalError as err:
            logger.error("journal: %s (the row is skipped)", err)
    if (game.phase == "over") != saved.finished:
        # The finished flag is a cache written after the action: the replay is the truth.
        try:
            journal.set_finished(saved.id, game.winner if game.phase == "over" else None)
        except JournalError as err:
            logger.warning("journal: %s", err)
    logger.info(
        "resumed game %d after %d actions: %s", saved.id, len(game.actions), game.notation()
    )
    return Resumed(game, saved.id, left_out=left_out)
