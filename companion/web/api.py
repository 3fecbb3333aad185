"""The HTTP API of the table: state, live events, new game, actions, record, reading.

Every change goes through ``Table``; a refused change answers ``{"error": ...}`` with a
4xx status and the game is left as it was. Nothing here ever sees a hidden die: it serves
``table.state()``, which holds public information only.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, url_for

from companion.errors import shown
from companion.journal import JournalError
from companion.web.auth import (
    PIN_HEADER,
    check_pin,
    client_address,
    control_required,
    has_control,
)
from companion.web.context import WebContext, announcement_json, bid_odds
from companion.web.events import NoPlace, encode
from companion.web.replies import WHOLE_MAX, error, json_body, number_arg, whole

log = logging.getLogger(__name__)

bp = Blueprint("api", __name__, url_prefix="/api")

# An action sent with this header ("GAME/MOVES", from the state the phone showed) is refused
# if the game has moved on since.
SEEN_HEADER = "X-Table-Seen"
# Games listed by one GET /api/games: by default, and at most.
GAMES_LISTED = 20
GAMES_LISTED_MAX = 500


def _ctx() -> WebContext:
    ctx: WebContext = current_app.extensions["dudo"]
    return ctx


@bp.get("/state")
def state() -> Response:
    """The public state now, with the odds of the standing bid."""
    return jsonify(_ctx().describe(_ctx().table.state()))


@bp.get("/events")
def events() -> Response:
    """A Server-Sent Events stream: the state now, then every change and announcement."""
    ctx = _ctx()
    if request.method == "HEAD":
        # A HEAD's body is never read, so a stream's end would never free its place among
        # the phones that follow the table: answered without one.
        return Response(mimetype="text/event-stream", headers={"Cache-Control": "no-cache"})
    try:
        listener = ctx.broker.connect(client_address())
    except NoPlace as err:
        response = error(str(err), 503)
        response.headers["Retry-After"] = "10"
        return response
    # Subscribed before reading the state, so no change can fall between the two.
    first = encode("state", {"state": ctx.describe(ctx.table.state()), "announcements": []})
    return Response(
        ctx.broker.stream(listener, first),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@bp.get("/bids")
def bids() -> Response:
    """Every legal next bid, lowest first, each with its chance of being true: worked out
    once a state of the table, however many phones ask (each phone with the PIN asks at
    each move; their odds took the table 2.5 ms a phone here, 3-5 times that on a Pi)."""
    ctx = _ctx()
    state = ctx.table.state()
    at = (state.get("run"), state.get("version"))
    kept = ctx.bids_kept
    if kept is None or kept[0] != at or at[1] is None:
        public = ctx.describe(state)
        legal = ctx.table.legal_bids()
        answer = jsonify(
            turn=public.get("turn"),
            bids=[
                {
                    "quantity": b.quantity,
                    "face": b.face,
                    "text": str(b),
                    "odds": bid_odds(public, b.quantity, b.face),
                }
                for b in legal
            ],
        )
        kept = ctx.bids_kept = (at, answer.get_data())
    return Response(kept[1], mimetype="application/json")


@bp.post("/game")
@control_required
def new_game() -> Response:
    """Start a new game from a record header; an unfinished game stays in the journal."""
    header = json_body(
        'a record header, e.g. {"game": "dudo-record/1", "rules": "perudo", '
        '"players": ["Ana", "Ben"]}'
    )
    if isinstance(header, Response):
        return header
    seen = _seen()
    if isinstance(seen, Response):
        return seen
    game = None if seen is None else seen[0]
    return _ctx().outcome(_ctx().table.new_game(header, seen_game=game), created=True)


def _seen() -> tuple[int, int] | Response | None:
    """The request's ``X-Table-Seen: GAME/MOVES`` (0/0: no game yet), if it has one."""
    seen = request.headers.get(SEEN_HEADER)
    if seen is None:
        return None
    game_id, _, moves = (whole(part) for part in seen.partition("/"))
    if game_id is None or moves is None:
        return error(f"{SEEN_HEADER} {shown(seen)}: the game_id and moves the phone showed, "
                     "as GAME/MOVES (e.g. 3/12)", 400)
    return game_id, moves


@bp.post("/actions")
@control_required
def actions() -> Response:
    """Submit one record action: a bid, a call, a pass, a reveal, a palifico choice, undo."""
    action = json_body('a record action, e.g. {"action": "dudo", "player": "Ben"}')
    if isinstance(action, Response):
        return action
    seen = _seen()
    if isinstance(seen, Response):
        return seen
    return _ctx().outcome(_ctx().table.submit(action, seen=seen))


@bp.post("/reading")
@control_required
def reading() -> Response:
    """Confirm (and correct) the camera's reading, or take the picture again.

    ``{"confirm": true, "corrections": {"3": 5}, "picture": 2}`` sets die 3 to a five and
    applies the reading as the reveal, refused if ``picture`` (optional) is no longer the
    reading's; ``{"retake": true}`` takes a new picture, at a reveal an undo went back to
    only with ``"cups_up": true`` (the players said this round's dice show again).
    """
    body = json_body('{"confirm": true, "corrections": {"3": 5}} or {"retake": true}')
    if isinstance(body, Response):
        return body
    table = _ctx().table
    if body.get("retake") is True and set(body) <= {"retake", "cups_up"}:
        cups_up = body.get("cups_up", False)
        if not isinstance(cups_up, bool):
            return error(f"cups_up {shown(cups_up)}: true or false", 400)
        return _ctx().outcome(table.retake(cups_up=cups_up))
    if body.get("confirm") is not True or set(body) - {"confirm", "corrections", "picture"}:
        return error('send {"confirm": true, "corrections": {...}} or {"retake": true}', 400)
    picture = body.get("picture")
    if picture is not None and (not isinstance(picture, int) or isinstance(picture, bool)):
        return error(f"picture {shown(picture)}: the reading's picture number", 400)
    raw = body.get("corrections") or {}
    if not isinstance(raw, dict):
        return error('corrections must be an object of die index to face: {"3": 5}', 400)
    corrections: dict[int, int] = {}
    for index, face in raw.items():
        die = whole(index)
        if die is None or not isinstance(face, int) or isinstance(face, bool):
            return error(
                f"correction {shown(index)}: {shown(face)} is not a die index and a face", 400
            )
        corrections[die] = face  # its range checked by the reading, numbered as it is shown
    return _ctx().outcome(table.confirm_reading(corrections or None, picture))


@bp.get("/reveal.jpg")
def reveal_picture() -> Response:
    """The annotated picture of the last reveal; 404 before any reveal of this round."""
    jpeg = _ctx().reveal_jpeg()
    if jpeg is None:
        return error("no reveal picture: the camera has not read this reveal (its dice are not"
                     " read yet, or were typed in)", 404)
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/record")
def record() -> Response:
    """The current game's record as JSON Lines, which ``dudo replay`` accepts."""
    text = _ctx().current_record()
    if text is None:
        return error("no game yet: start one first", 404)
    game_id = _ctx().table.state().get("game_id")
    refused = _counts_kept_from(game_id)
    if refused is not None:
        return refused
    return _jsonl(text, f"dudo-game-{game_id}.jsonl")  # as the games list names it


@bp.get("/games")
def games() -> Response:
    """The journal's games, newest first, each with a link to its record: ``limit`` of them
    (default ``GAMES_LISTED``) older than game ``before``; ``more`` links the next page."""
    limit = number_arg("limit", GAMES_LISTED, 1, GAMES_LISTED_MAX)
    before = number_arg("before", 0, 1, None)  # 0: from the newest
    if isinstance(limit, Response):
        return limit
    if isinstance(before, Response):
        return before
    journal = _ctx().journal
    if journal is None:
        return jsonify(games=[], more=None)
    try:
        summaries = journal.games(limit=limit + 1, before=before or None)
    except JournalError as err:
        return error(f"the journal cannot be read: {err}", 503)
    listed = []
    for summary in summaries[:limit]:
        entry = dataclasses.asdict(summary)
        entry["record"] = url_for("api.game_record", game_id=summary.id)
        listed.append(entry)
    more = (url_for("api.games", limit=limit, before=listed[-1]["id"])
            if len(summaries) > limit else None)
    return jsonify(games=listed, more=more)


@bp.get("/games/<int:game_id>/record")
def game_record(game_id: int) -> Response:
    """One finished (or abandoned) game's record, as a download."""
    if game_id > WHOLE_MAX:
        return error(f"no game {game_id}", 404)
    journal = _ctx().journal
    if journal is None:
        return error("this table keeps no journal", 404)
    refused = _counts_kept_from(game_id)
    if refused is not None:
        return refused
    try:
        text = journal.record(game_id)
    except JournalError as err:
        return error(str(err), 404)
    return _jsonl(text, f"dudo-game-{game_id}.jsonl")


def _counts_kept_from(game_id: object) -> Response | None:
    """None, or the refusal of the record of the game under way at a table that hides how
    many dice remain: replayed, a record gives every count; it is for the PIN holder until
    the game is over."""
    state = _ctx().table.state()
    if state.get("game_id") != game_id or state.get("phase") == "over":
        return None
    if state.get("dice_in_play") is not None or not state.get("players") or has_control():
        return None
    given = request.headers.get(PIN_HEADER)
    if given is not None:
        return check_pin(given)
    return error("this table hides how many dice remain, and the record of the game under way"
                 " would count them: it is for the PIN holder until the game is over", 403)


def _jsonl(text: str, filename: str) -> Response:
    return Response(
        text,
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@bp.get("/rules")
def rules() -> Response:
    """The presets and every option with its allowed values, for the new-game form."""
    from companion.rules import OPTIONS, PRESET_TITLES, PRESETS

    presets = {
        name: {
            **preset.options(),
            "title": PRESET_TITLES.get(name, ""),
            "seats": preset.players_text(),
            "first_starter": preset.first_starter,
        }
        for name, preset in PRESETS.items()
    }
    options: dict[str, Any] = {
        name: "bool" if set(option.values) == {True, False} else list(option.values)
        for name, option in OPTIONS.items()
    }
    defaults = current_app.config.get("NEW_GAME") or {}
    return jsonify(presets=presets, options=options, defaults=dict(defaults))


@bp.get("/history")
def history() -> Response:
    """Everything announced in the current game so far, oldest first (from its record), with
    the game's ``game_id`` and ``moves`` (as the state's) it holds the announcements up to: a
    page skips the live feed's announcements of those moves, which it already has."""
    from companion.game import Game
    from companion.rounds import opening

    current = _ctx().table.identified_record()
    if current is None:
        return jsonify(announcements=[], game_id=None, moves=0)
    game_id, text = current
    parsed = [json.loads(line) for line in text.splitlines() if line.strip()]
    game = Game.from_header(parsed[0])
    said = [announcement_json(a) for a in opening(game)]
    for action in parsed[1:]:
        said.extend(announcement_json(a) for a in game.apply(action))
    return jsonify(announcements=said, game_id=game_id, moves=len(parsed) - 1)


def register_error_handlers(app: Any) -> None:
    """Answer API errors in JSON (a phone's script reads ``error``), the page's in HTML."""
    from werkzeug.exceptions import HTTPException

    def handle(err: HTTPException) -> Any:
        if request.path.startswith("/api/"):
            return error(f"{err.name}: {err.description}", err.code or 500)
        return err

    app.register_error_handler(HTTPException, handle)
