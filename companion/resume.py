"""Resuming after a restart: the journal's most recent game replayed through the engine.

The last row of a game may be torn by a power cut (its checksum or JSON is bad, or the
engine refuses it: an SD card may lose the last write it reported done): it is moved aside,
kept in the journal's ``dropped`` table, and the game resumes without it, the page saying
which action was left out, so that the players enter it again if it was made. A row before
the last whose text is damaged (a card that spoiled what it held: its checksum or JSON is
bad, or a row is missing) ends what can be replayed: it and every row after it are moved
aside alike, the game resumes from before it and the page lists what was set aside. What the
page says is kept in the journal with the rows set aside, so a second restart says it again,
until the game moves on. A row before the last that is whole but refused by the engine is
no card's doing (a version that does not know it, or a rule changed since): the resume stops
with a clear message and the journal is kept exactly as it is.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from companion.game import Game
from companion.journal import Journal, JournalError, Row

logger = logging.getLogger(__name__)

# The journal's notice (:meth:`Journal.notice`) of the rows set aside at a resume: JSON, what
# the page says and how many rows the game then had (it is said while the game has no more).
LEFT_OUT = "left out"
# The rows set aside told on the page, at most.
_QUOTED = 8
# An action set aside, in words (the row cannot be replayed to be told as the engine says it).
_DONE = {"dudo": "called dudo", "calza": "made the exact call", "pass": "passed",
         "palifico": "declared palifico", "leave": "left the table"}


@dataclass(frozen=True)
class Resumed:
    """What the journal gave back: the game and its id, or why there is none (``fault``);
    ``left_out``: what the players are told of rows the game resumed without."""

    game: Game | None = None
    game_id: int | None = None
    fault: str | None = None
    left_out: str | None = None


def resume_latest(journal: Journal) -> Resumed:
    """Replay the journal's most recent game (finished or not), setting aside a torn last row
    or everything from a damaged row on.

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
    kept, problem = 0, None
    for row in saved.rows:
        problem = row.problem()
        if problem is None and row.seq != kept + 1:
            problem = f"it is row {row.seq} where row {kept + 1} should be"
        if problem is None:
            try:
                game.apply(row.action())
            except ValueError as err:
                problem = f"the engine refuses it: {err}"
                if row is not saved.rows[-1]:
                    fault = (f"cannot resume game {saved.id}: the engine refuses row {row.seq}"
                             f" of {len(saved.rows)} ({err}), whose text is whole (a version"
                             " that does not know it, or a rule changed since?); the journal is"
                             " kept as it is")
                    logger.error("%s", fault)
                    return Resumed(fault=fault)
        if problem is not None:
            break
        kept += 1
    left_out: str | None
    if problem is not None:
        left_out = _set_aside(journal, saved.id, saved.rows[kept:], problem, kept)
    else:
        left_out = _still_left_out(journal, kept)
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


def _set_aside(journal: Journal, game_id: int, aside: list[Row], problem: str, kept: int
               ) -> str:
    """Move ``aside`` out of the game (the first of them is what ``problem`` says, the game
    having ``kept`` rows before it), and what the players are told of it."""
    first = aside[0]
    if len(aside) == 1:
        # The last write was torn by a power cut: the game goes on without it, and says so.
        logger.warning("journal: the torn last row %d of game %d is dropped: %s",
                       first.seq, game_id, problem)
        told = (f"the last action recorded before the restart could not be read back ({problem}):"
                f" the game goes on without it; enter it again if it was made"
                f" (kept aside in the journal: {first.body[:80]!r})")
    else:
        logger.error("journal: row %d of game %d is damaged (%s): it and the %d rows after it"
                     " are set aside", first.seq, game_id, problem, len(aside) - 1)
        words = [_in_words(row) for row in aside[:_QUOTED]]
        words[0] += " (as read from the damaged row)"
        if len(aside) > _QUOTED:
            words.append(f"{len(aside) - _QUOTED} more")
        told = (f"the last {len(aside)} actions recorded before the restart could not be taken"
                f" back: row {first.seq} of the game is damaged ({problem}). The game goes on"
                f" from before it: enter again those that were made: {', '.join(words)}"
                f" (kept aside in the journal)")
    reasons = [(first, problem)] + [(row, f"after row {first.seq}, which is damaged")
                                    for row in aside[1:]]
    try:
        journal.set_aside(reasons, (LEFT_OUT, json.dumps({"moves": kept, "said": told})))
    except JournalError as err:
        logger.error("journal: %s (the rows are skipped)", err)
    return told


def _in_words(row: Row) -> str:
    """``Ben bid 4x5``: what a row set aside says, for the players to enter it again."""
    try:
        action = json.loads(row.body)
    except ValueError:
        action = None
    if not isinstance(action, dict):
        return f"row {row.seq}, which cannot be read ({row.body[:40]!r})"
    kind, who = action.get("action"), action.get("player")
    if kind == "bid":
        return f"{who} bid {action.get('quantity')}x{action.get('face')}"
    if kind == "reveal":
        return "the dice shown"
    if kind == "undo":
        return "an undo"
    return f"{who} {_DONE.get(str(kind), repr(kind))}"


def _still_left_out(journal: Journal, kept: int) -> str | None:
    """What the players were told at an earlier resume of rows set aside, while the game has
    no row since (the next accepted action ends it)."""
    try:
        held = journal.notice(LEFT_OUT)
    except JournalError as err:
        logger.warning("%s: the notice of rows set aside, if any, is not shown", err)
        return None
    if held is None:
        return None
    try:
        notice = json.loads(held)
        moves, said = notice["moves"], notice["said"]
    except (ValueError, TypeError, KeyError):
        logger.warning("journal: the notice of rows set aside cannot be read: %r", held[:200])
        return None
    return str(said) if moves == kept else None
