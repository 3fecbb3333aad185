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
from companion.journal import MISSING, Journal, JournalError, Row, SavedGame

logger = logging.getLogger(__name__)

# The journal's notice (:meth:`Journal.notice`) of the rows set aside at a resume: JSON, what
# the page says (``said``), the rows the game then had (``moves``) and had before (``until``):
# it is said from the one to the other.
LEFT_OUT = "left out"
# The rows set aside told on the page, at most.
_QUOTED = 8
# A row set aside whose text cannot be read, in words.
_UNREAD = "which cannot be read"
# An action set aside, in words (the row cannot be replayed to be told as the engine says it).
_DONE = {"dudo": "called dudo", "calza": "made the exact call", "pass": "passed",
         "palifico": "declared palifico", "leave": "left the table"}


@dataclass(frozen=True)
class LeftOut:
    """What the players are told of actions a resume set aside (``said``), and the move the
    telling lasts until (``until``: the game had that many before the restart; the players
    enter them again, or play on); ``unsaved``: the rows and notice the journal could not
    set aside yet (a read-only card), for :meth:`Journal.set_aside` once it can."""

    said: str
    until: int
    unsaved: tuple[list[tuple[Row, str]], tuple[str, str]] | None = None


@dataclass(frozen=True)
class Resumed:
    """What the journal gave back: the game and its id, or why there is none (``fault``);
    ``left_out``: what the players are told of rows the game resumed without."""

    game: Game | None = None
    game_id: int | None = None
    fault: str | None = None
    left_out: LeftOut | None = None


def resume_latest(journal: Journal) -> Resumed:
    """Replay the journal's most recent game (finished or not), setting aside a torn last row
    or everything from a damaged or missing row on.

    The most recent game is the one the table was showing when it stopped, so the page comes
    back as it was: a finished game shows its winner until a new game starts.
    """
    try:
        saved = journal.latest()
    except JournalError as err:
        return Resumed(fault=f"cannot resume the last game: {err}; start a new game (the"
                             " journal is kept as it is)")
    if saved is None:
        return Resumed()
    try:
        game = Game.from_header(saved.header)
    except ValueError as err:
        return Resumed(fault=f"cannot resume game {saved.id}: its header is refused: {err}")
    whole, problem = saved.whole()
    kept = 0
    for row in saved.rows[:whole]:
        try:
            game.apply(row.action())
        except ValueError as err:
            if row is not saved.rows[-1]:
                fault = (f"cannot resume game {saved.id}: the engine refuses row {row.seq} of"
                         f" {len(saved.rows)} ({err}), whose text is whole (a version that"
                         " does not know it, or a rule changed since?); the journal is kept"
                         " as it is")
                logger.error("%s", fault)
                return Resumed(fault=fault)
            problem = f"the engine refuses it: {err}"
            break
        kept += 1
    if problem is not None:
        left_out: LeftOut | None = _set_aside(journal, saved, kept, problem)
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


def _set_aside(journal: Journal, saved: SavedGame, kept: int, problem: str) -> LeftOut:
    """Move the game's rows after the ``kept`` first out of it (the first of them is what
    ``problem`` says, or :data:`MISSING`: one or more rows before it are), and what the players
    are told of them."""
    aside = saved.rows[kept:]
    first = aside[0]
    missing = first.seq - kept - 1 if problem == MISSING else 0
    lost = missing + len(aside)
    if lost == 1:
        # The last write was torn by a power cut: the game goes on without it, and says so.
        logger.warning("journal: the torn last row %d of game %d is dropped: %s",
                       first.seq, saved.id, problem)
        said = (f"the last action recorded before the restart could not be read back ({problem}):"
                f" the game goes on without it; enter it again if it was made"
                f" (kept aside in the journal: {first.body[:80]!r})")
    else:
        if missing:
            what = (f"row {kept + 1} of the game is missing" if missing == 1 else
                    f"rows {kept + 1}-{first.seq - 1} of the game are missing")
            words = ["an action that is lost" if missing == 1 else
                     f"{missing} actions that are lost"] + [_in_words(row) for row in aside]
        else:
            what = f"row {first.seq} of the game is damaged ({problem})"
            head = _in_words(first)
            if not head.endswith(_UNREAD):
                head += " (as read from the damaged row, perhaps not as made)"
            words = [head] + [_in_words(row) for row in aside[1:]]
        if len(words) > _QUOTED:
            words[_QUOTED:] = [f"{len(words) - _QUOTED} more"]
        logger.error("journal: %s: the %d actions from it on are set aside", what, lost)
        said = (f"{lost} actions recorded before the restart could not be read back: {what}."
                f" The game goes on from before it: enter again those that were made:"
                f" {'; '.join(words)} (kept aside in the journal)")
    if missing:
        reasons = [(row, f"after row {kept + 1}, which is missing") for row in aside]
    else:
        reasons = [(first, problem)] + [(row, f"after row {first.seq}, which is damaged")
                                        for row in aside[1:]]
    recorded = saved.rows[-1].seq  # the moves the game had before the restart
    standing = _still_left_out(journal, recorded)
    until = recorded
    if standing is not None:  # told at the restart before, and not all entered again
        until += standing.until - recorded
        said += f". Before that restart: {standing.said}"
    notice = (LEFT_OUT, json.dumps({"moves": kept, "until": until, "said": said}))
    try:
        journal.set_aside(reasons, notice)
    except JournalError as err:
        logger.error("journal: %s (the rows are set aside once the journal can be written)", err)
        return LeftOut(said, until, (reasons, notice))
    return LeftOut(said, until)


def _in_words(row: Row) -> str:
    """``Ben bid 4x5``: what a row set aside says, for the players to enter it again."""
    try:
        action = json.loads(row.body)
    except ValueError:
        action = None
    if not isinstance(action, dict):
        return f"row {row.seq}, {_UNREAD}"
    kind, who = action.get("action"), action.get("player")
    if kind == "bid":
        return f"{who} bid {action.get('quantity')}x{action.get('face')}"
    if kind == "reveal":
        dice = action.get("dice")
        shown = (", ".join(f"{name} {' '.join(map(str, faces))}" for name, faces in dice.items()
                           if isinstance(faces, list))
                 if isinstance(dice, dict) else " ".join(map(str, action.get("faces") or [])))
        return f"the dice shown ({shown})"
    if kind == "undo":
        return "an undo"
    return f"{who} {_DONE.get(str(kind), repr(kind))}"


def _still_left_out(journal: Journal, moves: int) -> LeftOut | None:
    """What the players were told at an earlier resume of rows set aside, while the game has
    fewer moves than it had then (``moves`` now)."""
    try:
        held = journal.notice(LEFT_OUT)
    except JournalError as err:
        logger.warning("%s: the notice of rows set aside, if any, is not shown", err)
        return None
    if held is None:
        return None
    try:
        notice = json.loads(held)
        since, said = int(notice["moves"]), str(notice["said"])
        until = int(notice.get("until", since + 1))  # made before session 58's end: one row
    except (ValueError, TypeError, KeyError, AttributeError):
        logger.warning("journal: the notice of rows set aside cannot be read: %r", held[:200])
        return None
    return LeftOut(said, until) if since <= moves < until else None
