"""The virtual panel of ``dudo serve --sim``: the page presses gpiozero's mock pins.

``/api/sim/press`` and ``/api/sim/dial`` drive the pins through
``hardware.sim.MockPanelDriver``, so the real panel code (dial, seat buttons, UNDO hold,
double presses) turns them into table actions as on the Pi; not the debounce, gpiozero's
``bounce_time``, which its mock pins do not apply. Registered only with --sim.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from companion.errors import shown
from companion.web.auth import control_required
from companion.web.replies import error, json_body

log = logging.getLogger(__name__)

bp = Blueprint("sim", __name__, url_prefix="/api/sim")

MAX_HOLD_S = 3.0  # UNDO needs 1 s; more only ties up a server thread
MAX_STEPS = 50


def _driver() -> Any:
    return current_app.extensions["dudo"].sim_driver


@bp.post("/press")
@control_required
def press() -> Response:
    """Press a panel button: ``{"button": "dudo", "seat": 2, "hold_s": 0}``."""
    body = json_body('{"button": "dudo", "seat": 2, "hold_s": 0}')
    if isinstance(body, Response):
        return body
    unknown = set(body) - {"button", "seat", "hold_s"}
    if unknown:
        names = ", ".join(sorted(unknown))
        return error(f"unknown field(s) {names}: send button, seat, hold_s", 400)
    if "button" not in body:
        return error('send the button to press: {"button": "dudo", "seat": 2}', 400)
    button, seat, hold_s = body.get("button"), body.get("seat"), body.get("hold_s", 0)
    # A long hold ties up a server thread; the panel's own checks do the rest. The values
    # are said as the page sent them (JSON's words: null, true).
    if type(hold_s) not in (int, float) or not 0 <= hold_s <= MAX_HOLD_S:
        return error(f"hold_s must be seconds from 0 to {MAX_HOLD_S:g}, got {shown(hold_s)}", 400)
    if not isinstance(button, str):
        return error(f"button {shown(button)}: a button's name, such as \"dudo\"", 400)
    seats = _driver().panel.pins.seats
    if seat is not None and (type(seat) is not int or seat not in seats):
        return error(f"seat {shown(seat)}: this panel's seats are {seats[0]}-{seats[-1]}", 400)
    try:
        _driver().press(button, seat=seat, hold_s=hold_s)
    except ValueError as err:
        return error(str(err), 400)
    return jsonify(pressed=button, seat=seat, outputs=outputs())


@bp.post("/dial")
@control_required
def dial() -> Response:
    """Turn the bid dial: ``{"steps": 3}`` (negative turns back)."""
    body = json_body('{"steps": 3}')
    if isinstance(body, Response):
        return body
    if set(body) != {"steps"}:
        return error('send only the steps to turn: {"steps": 3}', 400)
    steps = body["steps"]
    if type(steps) is not int or steps == 0 or abs(steps) > MAX_STEPS:
        return error(f"steps {shown(steps)}: a whole number of steps, 1 to {MAX_STEPS} either way",
                     400)
    try:
        _driver().turn(steps)
    except ValueError as err:
        return error(str(err), 400)
    return jsonify(turned=steps, outputs=outputs())


@bp.get("/pins")
def pins() -> Response:
    """The panel's outputs now (LEDs, buzzer, light), as the page's virtual panel shows them."""
    return jsonify(outputs=outputs())


def outputs() -> dict[str, str]:
    """Every output now: ``on``, ``off`` or ``blink`` (LEDs, buzzer, light)."""
    return dict(_driver().outputs())
