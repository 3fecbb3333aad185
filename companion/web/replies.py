"""The JSON answers the API gives: errors with a reason, bodies checked before use."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Response, g, jsonify, request

from companion.errors import MalformedAction, shown
from companion.record import loads


def error(message: str, status: int, *, about: Mapping[str, str] | None = None,
          headers: Mapping[str, str] | None = None) -> Response:
    """A JSON ``{"error": message}`` with a 4xx/5xx status: the reason a player can act on;
    ``about`` adds what it is about (a new game's ``player`` and ``field``)."""
    response = jsonify(error=message, **(about or {}))
    response.status_code = status
    response.headers.update(headers or {})
    return response


def request_json() -> Any:
    """The request's JSON, or None when it cannot be read."""
    return read_json()[0]


def read_json() -> tuple[Any, str | None]:
    """The request's JSON and None, or None and what keeps the body from being read: not
    JSON, nested too deeply, or a number longer than Python reads (as a record says it)."""
    try:
        return loads(request.get_data(cache=True)), None
    except MalformedAction as err:  # a key given twice, a number of more than 4,300 digits
        return None, f"the body holds {err}"
    except RecursionError:
        return None, "the body is nested too deeply to read"
    except UnicodeDecodeError as err:  # a ValueError too: named as a record's line is
        return None, (f"the body is not UTF-8 text (byte 0x{err.object[err.start]:02x},"
                      f" byte {err.start + 1} of the body)")
    except ValueError:
        return None, "the body is not valid JSON"


def json_body(example: str) -> dict[str, Any] | Response:
    """The request's JSON object, or a 4xx answer saying what was wrong with it.

    A request that carries the PIN in its header (``g.pin_header``, a script's) is read as
    JSON whatever type it names: ``curl -d`` names a form's. Otherwise only
    ``application/json`` is read: a cross-site HTML form cannot send that type, so a forged
    form post never reaches a view (nor could it send the PIN header or the CSRF token).
    """
    if not request.is_json and not g.get("pin_header"):
        return error(f"send JSON (Content-Type: application/json): {example}", 415)
    body, problem = read_json()
    if problem is not None:
        return error(f"{problem}: expected {example}", 400)
    if not isinstance(body, dict):
        return error(f"the body must be a JSON object: {example}", 400)
    return body


# The largest whole number a request may give (a game id, a move count, a die's index):
# 18 digits, within SQLite's integers, and far within Python's limit on digits read.
WHOLE_MAX = 10**18 - 1


def whole(text: object) -> int | None:
    """``text`` as a whole number of ASCII digits up to :data:`WHOLE_MAX`, else None ("²",
    "٣" and 5,000 digits are no number a phone sends)."""
    if isinstance(text, str) and 0 < len(text) <= 18 and text.isascii() and text.isdigit():
        return int(text)
    return None


def number_arg(name: str, default: int, low: int, high: int | None) -> int | Response:
    """The query argument ``name`` as a whole number from ``low`` to ``high``, or the error."""
    text = request.args.get(name)
    if text is None:
        return default
    value = whole(text)
    if value is None or value < low or (high is not None and value > high):
        wanted = f"from {low} to {high}" if high is not None else f"{low} or more"
        return error(f"{name}={shown(text)}: a whole number, {wanted}", 400)
    return value
