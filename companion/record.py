"""The game record (``*.jsonl``): a header line, then one action per line, in order.

``replay`` rebuilds a ``Game`` from a record and stops at the first bad line with the
same error class the engine raised, its message prefixed ``line N: ``.
``replay_command`` is ``dudo replay GAME.jsonl [--json]``.
"""

from __future__ import annotations

import argparse
import codecs
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from companion.errors import IllegalAction, MalformedAction, shown
from companion.game import Game


def header_line(game: Game) -> str:
    """The record's first line for ``game``."""
    return json.dumps(game.header)


def dumps(game: Game) -> str:
    """The whole record of ``game`` as JSON Lines text (ends with a newline)."""
    lines = [header_line(game)] + [json.dumps(action) for action in game.actions]
    return "\n".join(lines) + "\n"


def write(game: Game, file: IO[str]) -> None:
    """Write the record of ``game`` to an open text file."""
    file.write(dumps(game))


def json_whole(digits: str) -> int:
    """A JSON whole number; past the 4,300 digits Python reads, a message saying so."""
    if len(digits.lstrip("-")) > sys.get_int_max_str_digits() > 0:
        raise MalformedAction(f"a number of {len(digits.lstrip('-')):,} digits: a record holds"
                              f" numbers of at most {sys.get_int_max_str_digits():,} digits")
    return int(digits)


def json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are each given once: a key given twice (a line garbled,
    two edits run together) is refused, never read as its last value."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise MalformedAction(f"a key given twice: {shown(key)}")
        found[key] = value
    return found


def loads(text: str | bytes) -> Any:
    """JSON as a record or a request holds it: whole numbers by :func:`json_whole`, each
    object's keys once (:func:`json_object`)."""
    return json.loads(text, parse_int=json_whole, object_pairs_hook=json_object)


def _parse(line: str, number: int) -> Any:
    try:
        return loads(line)
    except MalformedAction as exc:
        raise MalformedAction(f"line {number}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise MalformedAction(f"line {number}: bad JSON: {exc.msg} (column {exc.colno})") from None
    except ValueError as exc:  # what else Python's JSON may refuse
        raise MalformedAction(f"line {number}: bad JSON: {exc}") from None
    except RecursionError:
        raise MalformedAction(f"line {number}: bad JSON: nested too deeply") from None


def replay(lines: Iterable[str]) -> Game:
    """The game a record's lines describe, every action applied with full validation.

    Blank lines are skipped (they still count for line numbers). The first bad line raises
    MalformedAction or IllegalAction ``line N: reason``.
    """
    game: Game | None = None
    for number, ended in enumerate(lines, start=1):
        # Its end is not JSON (an error there is in this line), nor byte-order marks at its
        # start (records joined by an editor that writes one at the start of each file).
        line = ended.rstrip("\r\n").lstrip("\ufeff")
        if not line.strip():
            continue
        item = _parse(line, number)
        try:
            if game is None:
                game = Game.from_header(item)
            elif not isinstance(item, dict):
                raise MalformedAction(f"an action must be a JSON object, not {shown(item)}")
            else:
                game.apply(item)
        except (MalformedAction, IllegalAction) as exc:
            raise type(exc)(f"line {number}: {exc}") from None
    if game is None:
        raise MalformedAction("line 1: empty record: the header line is missing")
    return game


def replay_file(path: str | Path) -> Game:
    """Replay the record in the file at ``path`` (OSError if it cannot be read).

    The file must be UTF-8 (a byte-order mark, as some editors write, is allowed); a byte
    that is not raises MalformedAction naming its line.
    """
    data = Path(path).read_bytes().removeprefix(codecs.BOM_UTF8)
    if data.startswith(b"SQLite format 3\0"):
        raise MalformedAction(
            "this is the table's journal (an SQLite database of every game), not a game's"
            " record: download each game's record from the page's Games list (GET"
            " /api/games/ID/record)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        number = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        byte = data[exc.start]
        raise MalformedAction(
            f"line {number}: not UTF-8 text (byte 0x{byte:02x}, byte {column} of the line)"
        ) from None
    # Lines end at "\n" alone (a "\r" before it is CRLF's): a "\r" elsewhere is JSON's
    # whitespace, not a line break that would shift every line number after it.
    return replay(text.split("\n"))


def describe(game: Game) -> str:
    """The final state, readably: notation, players, dice, winner, last result."""
    state = game.state(referee=True)
    lines = [game.notation(), f"rules {state['rules']}, round {state['round']}, {state['phase']}"]
    width = max(len(p["name"]) for p in state["players"])
    for p in state["players"]:
        notes = []
        if p["left"]:
            notes.append("left the table")
        elif p["out"]:
            notes.append("out")
        if p["palifico_used"]:
            notes.append("palifico used")
        if p["name"] == state["turn"]:
            notes.append("to act")
        dice = "? dice" if p["dice"] is None else "1 die" if p["dice"] == 1 else f"{p['dice']} dice"
        lines.append(f"  {p['name']:<{width}}  {dice}  {', '.join(notes)}".rstrip())
    if state["dice_in_play"] is not None:
        lines.append(f"dice in play {state['dice_in_play']}, lost {state['dice_lost']}")
    if state["bid"]:
        lines.append(f"bid {state['bid']['text']} by {state['bid']['player']}")
    if state["last_result"]:
        lines.append(f"last: {state['last_result']['text']}")
    if state["winner"]:
        lines.append(f"winner: {state['winner']}")
    return "\n".join(lines)


def replay_command(args: argparse.Namespace) -> int:
    """``dudo replay GAME.jsonl [--json]``: print the final state; exit 2 on a bad record."""
    from companion.cli import print_output

    if not args.record:
        print("dudo replay: an empty file name: name a record", file=sys.stderr)
        return 2
    try:
        game = replay_file(args.record)
    except FileNotFoundError:
        print(f"dudo replay: no such file: {args.record}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"dudo replay: cannot read {args.record}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except (MalformedAction, IllegalAction) as exc:
        print(str(exc), file=sys.stderr)
        return 2
    # A full disk, or a device that takes nothing (`> /dev/full`): one line, status 2.
    return print_output("replay",
                        json.dumps(game.state(referee=True)) if args.json else describe(game))
