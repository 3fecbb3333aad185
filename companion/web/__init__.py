"""The table's web app: the live phone page and its HTTP API.

``create_app(table, config)`` builds a Flask app around a running ``companion.Table``;
``companion.serve`` serves it with waitress. Config keys (all optional):

- ``TABLE_PIN``: the PIN that gives control (None: phones can only watch).
- ``SECRET_KEY``: signs the session cookie (default: random for this run).
- ``SESSIONS_FILE``: where the control sessions opened with the PIN are kept (a ``Path``;
  default None: for this run only).
- ``JOURNAL``: the journal whose games the page lists (default: ``table.journal``).
- ``SIM_DRIVER``: a ``hardware.sim.MockPanelDriver`` for ``--sim`` (enables ``/api/sim/*``).
- ``SIM_CUPS``: the simulated cups (``--sim``); the app never reads them, tests do.
- ``NEW_GAME``: defaults for the page's new-game form (``rules``, ``options``, ``players``).
- ``PUBLIC_URL``: the address the join QR code shows (default: the address asked for).
- ``PIN_ATTEMPTS``, ``PIN_WINDOW_S``: wrong PINs a phone may try per window (5 per 60 s);
  ``PIN_TABLE_ATTEMPTS``, ``PIN_TABLE_WINDOW_S``: all phones together (30 per 600 s: many
  addresses guess no faster).
- ``SESSION_DAYS``: how long a control session lasts (7 days; a changed PIN ends them all).
- ``MAX_CONTENT_LENGTH``: the largest request body (64 KiB).
- ``SSE_MAX_CLIENTS``, ``SSE_MAX_PER_ADDRESS``, ``SSE_QUEUE_SIZE``, ``SSE_KEEPALIVE_S``,
  ``SSE_MAX_AGE_S``: the live feed's limits (one address follows the table at most
  ``SSE_MAX_PER_ADDRESS`` times: raise it behind a proxy, where every phone has the proxy's
  address). Each open stream holds one server thread: serve with more threads than
  ``SSE_MAX_CLIENTS`` so actions always find one.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Flask

DEFAULTS: dict[str, Any] = {
    "TABLE_PIN": None,
    "SESSIONS_FILE": None,
    "JOURNAL": None,
    "SIM_DRIVER": None,
    "SIM_CUPS": None,
    "NEW_GAME": None,
    "PUBLIC_URL": None,
    "PIN_ATTEMPTS": 5,
    "PIN_WINDOW_S": 60.0,
    "PIN_TABLE_ATTEMPTS": 30,
    "PIN_TABLE_WINDOW_S": 600.0,
    "SESSION_DAYS": 7.0,
    "SSE_MAX_CLIENTS": 24,
    "SSE_MAX_PER_ADDRESS": 16,
    "SSE_QUEUE_SIZE": 64,
    "SSE_KEEPALIVE_S": 15.0,
    "SSE_MAX_AGE_S": 600.0,
    # The largest body a phone sends is a new game's header (a few hundred bytes): a larger
    # one is refused (413) before it is read, so nobody can fill the Pi's memory with one.
    "MAX_CONTENT_LENGTH": 64 * 1024,
    # The cookie never leaves this site (no cross-site request carries it) and no script
    # can read it. Not Secure: the table serves plain HTTP on its own Wi-Fi.
    "SESSION_COOKIE_NAME": "dudo_session",
    "SESSION_COOKIE_SAMESITE": "Strict",
    "SESSION_COOKIE_HTTPONLY": True,
}


def create_app(table: Any, config: dict[str, Any] | None = None) -> Flask:
    """Build the app around ``table``; ``config`` overrides :data:`DEFAULTS`."""
    from companion.web import api, auth, page, sim
    from companion.web.context import WebContext
    from companion.web.events import Broker
    from companion.web.gzipped import gzipped

    app = Flask(__name__, template_folder="../templates", static_folder="../static")
    app.config.update(DEFAULTS)
    app.config["SECRET_KEY"] = secrets.token_bytes(32)
    app.config.update(config or {})
    app.session_interface = auth.ClockFreeCookies()
    app.json.sort_keys = False  # type: ignore[attr-defined]  # keep presets in their order
    if app.config["TABLE_PIN"] is not None:
        app.config["TABLE_PIN"] = str(app.config["TABLE_PIN"])

    ctx = WebContext.build(table, app.config)
    ctx.broker = Broker(
        ctx.describe_event,
        queue_size=int(app.config["SSE_QUEUE_SIZE"]),
        max_listeners=int(app.config["SSE_MAX_CLIENTS"]),
        max_per_address=int(app.config["SSE_MAX_PER_ADDRESS"]),
        keepalive_s=float(app.config["SSE_KEEPALIVE_S"]),
        max_age_s=float(app.config["SSE_MAX_AGE_S"]),
    )
    ctx.unsubscribe = table.subscribe(ctx.broker.publish)
    app.extensions["dudo"] = ctx

    app.register_blueprint(auth.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(page.bp)
    if app.config["SIM_DRIVER"] is not None:
        app.register_blueprint(sim.bp)
    api.register_error_handlers(app)
    app.after_request(_guarded)
    app.after_request(gzipped)
    return app


def _guarded(response: Any) -> Any:
    """Every answer: never framed by another site's page, never sniffed as another type; and
    the API's (the game as it stands, the PIN's session) never kept in a browser's cache."""
    from flask import request

    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if request.path.startswith("/api/") or request.path == "/":
        response.headers.setdefault("Cache-Control", "no-store")
    return response
