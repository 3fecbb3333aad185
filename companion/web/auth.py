"""Who may change the game from a phone: the table PIN, its rate limit, sessions and CSRF.

Control is given by the ``X-Table-Pin`` header (scripts, the benchmark) or by a cookie
session opened with the PIN on the page; the table keeps the list of those sessions, so
that a logout ends one for good (a copy of its cookie is refused too). A cookie is sent by
the browser on its own, so every state-changing request that relies on it must also carry
the page's CSRF token (``X-CSRF-Token``). The header path carries the secret itself and
needs no token.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Mapping
from functools import wraps
from pathlib import Path
from typing import ParamSpec, TypeVar

from flask import Blueprint, Flask, Request, Response, current_app, g, jsonify, request, session
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from itsdangerous import BadSignature

from companion.web.replies import error, request_json

log = logging.getLogger(__name__)

bp = Blueprint("auth", __name__)

P = ParamSpec("P")
R = TypeVar("R")

PIN_HEADER = "X-Table-Pin"
CSRF_HEADER = "X-CSRF-Token"


class PinLimiter:
    """Counts wrong PINs per client address; too many in the window locks that client out,
    and ``table_attempts`` from all clients together within ``table_window_s`` (default: the
    window) lock out every one: a laptop with many addresses on the Wi-Fi guesses no faster
    than that (the table's 30 in 10 minutes: 55 hours for every 4-digit PIN, a day on
    average; 30 a minute, before session 78, tried them all in an evening).

    While a client is locked out even the right PIN is refused, or guessing would go on.
    """

    EVERYONE = ""  # the key of the count of all clients' wrong PINs (no address is empty)

    def __init__(self, attempts: int, window_s: float, clock: Callable[[], float] = time.monotonic,
                 table_attempts: int | None = None, table_window_s: float | None = None):
        self.attempts = attempts
        self.window_s = window_s
        self.table_attempts = table_attempts
        self.table_window_s = window_s if table_window_s is None else table_window_s
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._known: set[str] = set()  # clients that gave the right PIN in this run
        self._lock = threading.Lock()

    def table_retry_after(self, client: str) -> int:
        """Seconds until ``client`` may try a PIN again while the table is locked; 0 when it
        is not, or for a client that gave the right PIN before (a phone of the table that
        logged out: guessing from other addresses does not keep it out)."""
        if self.table_attempts is None or client in self._known:
            return 0
        return self._wait(self.EVERYONE, self.table_attempts)

    def succeed(self, client: str) -> None:
        """Record the right PIN from ``client``."""
        with self._lock:
            self._known.add(client)

    def _window(self, key: str) -> float:
        return self.table_window_s if key == self.EVERYONE else self.window_s

    def _recent(self, client: str, now: float) -> deque[float]:
        failures = self._failures.get(client, deque())
        while failures and now - failures[0] >= self._window(client):
            failures.popleft()
        if failures:
            self._failures[client] = failures
        else:
            self._failures.pop(client, None)
        return failures

    def retry_after(self, client: str) -> int:
        """Seconds until ``client`` may try a PIN again; 0 when it may now."""
        return self._wait(client, self.attempts)

    def _wait(self, key: str, attempts: int) -> int:
        with self._lock:
            now = self._clock()
            failures = self._recent(key, now)
            if len(failures) < attempts:
                return 0
            # The oldest failure that keeps the count at the limit must leave the window.
            return max(1, int(failures[-attempts] + self._window(key) - now + 0.999))

    def tries_left(self, client: str) -> int:
        """Wrong PINs ``client`` may still give before it is locked out."""
        with self._lock:
            return max(0, self.attempts - len(self._recent(client, self._clock())))

    def fail(self, client: str) -> None:
        """Record one wrong PIN from ``client``."""
        with self._lock:
            now = self._clock()
            for key in (client, self.EVERYONE):
                failures = self._recent(key, now)
                failures.append(now)
                self._failures[key] = failures


class ControlSessions:
    """The control sessions opened with the PIN, each named by a random id in its cookie.

    A logout closes its session here, not only on the phone that sent it. Kept in ``path``
    (beside the session key in the data directory: phones stay signed in across restarts);
    None keeps them for this run only. The newest ``keep`` are kept, each for ``days``.

    ``pin_mark`` names the PIN they were opened with (a keyed hash, never the PIN): sessions
    kept under another PIN are dropped, so a PIN changed (or drawn afresh at a start) ends
    the control of every phone that had the old one.

    A session opened in this run ages by ``running`` (the monotonic clock), not by the wall
    clock: a Pi has no clock of its own, so one switched off for a week starts at the time
    it stopped and jumps a week ahead once the network sets its clock, and a phone signed in
    before that would lose control in the middle of a game. A session kept from an earlier
    run ages by the wall clock (the days the table was off count), and is kept to the file at
    the wall time it was opened as the wall clock now tells it.
    """

    def __init__(self, path: Path | None = None, keep: int = 256, *, pin_mark: str = "",
                 days: float = 7.0, clock: Callable[[], float] = time.time,
                 running: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self.keep = keep
        self.pin_mark = pin_mark
        self.max_age_s = days * 86400.0
        self._clock = clock
        self._running = running
        self._lock = threading.Lock()
        # When each session was opened: kept ones at their wall time, this run's by the
        # running clock (``_here`` names them).
        self._opened: dict[str, float] = self._load()
        self._here: set[str] = set()
        self._saved_offset = 0.0  # the wall clock less the running clock at the last save
        self._save()  # as loaded: sessions of another PIN gone for good, not back with it

    def open(self) -> str:
        """A new session's id."""
        sid = secrets.token_urlsafe(18)
        with self._lock:
            self._opened[sid] = self._running()
            self._here.add(sid)
            for old in sorted(self._opened, key=self._age, reverse=True)[: -self.keep]:
                self._drop(old)
            self._save()
        return sid

    def close(self, sid: object) -> None:
        """End a session for good (any copy of its cookie has no control after)."""
        with self._lock:
            if isinstance(sid, str) and sid in self._opened:
                self._drop(sid)
                self._save()

    def __contains__(self, sid: object) -> bool:
        with self._lock:
            if not isinstance(sid, str) or sid not in self._opened:
                return False
            if self._age(sid) < self.max_age_s:
                if abs(self._clock() - self._running() - self._saved_offset) > 60.0:
                    self._save()  # the wall clock was set: kept at the time it gives now
                return True
            self._drop(sid)  # too old: the PIN again
            self._save()
            return False

    def _age(self, sid: str) -> float:
        """How long ago a session was opened (seconds). One kept at a time still to come (a
        clock ahead when it was kept, set right since) counts as opened now: before, it had
        control for as long as the clock had been ahead, a year and more, with no cookie
        check of Flask's left to end it (:class:`ClockFreeCookies`)."""
        now = self._running() if sid in self._here else self._clock()
        if self._opened[sid] > now:
            self._opened[sid] = now
        return now - self._opened[sid]

    def _drop(self, sid: str) -> None:
        del self._opened[sid]
        self._here.discard(sid)

    def _load(self) -> dict[str, float]:
        if self.path is None or not self.path.exists():
            return {}
        try:
            kept = json.loads(self.path.read_text(encoding="utf-8"))
            if not (isinstance(kept, dict) and kept.get("pin") == self.pin_mark):
                log.info("the sessions kept were opened with another table PIN (or by an"
                         " earlier version): phones enter the PIN again")
                return {}
            return {str(sid): float(at) for sid, at in dict(kept["opened"]).items()}
        except (OSError, ValueError, TypeError, KeyError) as err:
            log.warning("cannot read the sessions in %s (%s): phones sign in again", self.path, err)
            return {}

    def _save(self) -> None:
        if self.path is None:
            return
        part = self.path.with_name(self.path.name + ".part")
        try:
            now = self._clock()
            self._saved_offset = now - self._running()
            opened = {sid: now - self._age(sid) for sid in self._opened}
            part.write_text(json.dumps({"pin": self.pin_mark, "opened": opened}),
                            encoding="utf-8")
            os.replace(part, self.path)
        except OSError as err:
            log.warning("cannot keep the sessions in %s (%s): phones sign in again after a"
                        " restart", self.path, err)


class ClockFreeCookies(SecureCookieSessionInterface):
    """Flask's signed session cookie, read whatever the wall clock says of when it was
    signed: :class:`ControlSessions` alone says how long a phone keeps control.

    Flask throws a cookie away when the clock puts its signature in the future or more than
    31 days back, and the phone lost control without a word: a Pi without a clock of its own
    starts up to an hour behind after a power cut (fake-hwclock saves the time hourly), then
    the network sets it.
    """

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        signed = self.get_signing_serializer(app)
        if signed is None:
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        try:
            return self.session_class(signed.loads(value))  # no max_age: no clock asked
        except BadSignature:
            return self.session_class()


def pin_mark(config: Mapping[str, object]) -> str:
    """The table PIN as the kept sessions name it: keyed by the app's secret, not the PIN."""
    key = config["SECRET_KEY"]
    key = key if isinstance(key, bytes) else str(key).encode("utf-8")
    pin = str(config.get("TABLE_PIN") or "").encode("utf-8")
    return hmac.new(key, b"table PIN " + pin, hashlib.sha256).hexdigest()


def client_address() -> str:
    """The address of the phone asking (what one phone is, for its limits)."""
    return request.remote_addr or "unknown"


def _sessions() -> ControlSessions:
    sessions: ControlSessions = current_app.extensions["dudo"].sessions
    return sessions


def _limiter() -> PinLimiter:
    limiter: PinLimiter = current_app.extensions["dudo"].limiter
    return limiter


def _pin_matches(given: str) -> bool:
    """Compare ``given`` with the table PIN in constant time (a timing leak would spell it),
    as a phone may type it: spaces around it, and the digits of its own script (١٢٣٤, or
    the full-width １２３４) as the digits they are."""
    pin = current_app.config.get("TABLE_PIN")
    if not pin:
        return False
    typed = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in given.strip())
    return hmac.compare_digest(typed.encode("utf-8"), str(pin).encode("utf-8"))


def check_pin(given: str) -> Response | None:
    """Check a PIN offered by this client: None when right, else the error response."""
    limiter = _limiter()
    for wait, whence in ((limiter.retry_after(client_address()), "from this phone"),
                         (limiter.table_retry_after(client_address()), "at this table")):
        if wait:
            return error(f"too many wrong PINs {whence}: try again in {wait} s", 429,
                         headers={"Retry-After": str(wait)})
    if not current_app.config.get("TABLE_PIN"):
        return error("this table has no PIN set: control from phones is off", 403)
    if _pin_matches(given):
        limiter.succeed(client_address())
        return None
    limiter.fail(client_address())
    log.info("wrong table PIN from %s", client_address())  # never the PIN itself
    left = limiter.tries_left(client_address())
    return error(f"wrong table PIN: {left} more {'try' if left == 1 else 'tries'} before this"
                 " phone must wait" if left else
                 f"wrong table PIN: this phone must wait {limiter.retry_after(client_address())}"
                 " s before it tries again", 403)


def csrf_token() -> str:
    """This session's CSRF token, made on first use; the page embeds it."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def has_control() -> bool:
    """Whether this browser session was opened with the table PIN and not closed since
    (cookie path only)."""
    return session.get("sid") in _sessions()


def control_required(view: Callable[P, R]) -> Callable[P, R | Response]:
    """Let a view run only for a holder of the table PIN, refusing with a JSON 4xx."""

    @wraps(view)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R | Response:
        given = request.headers.get(PIN_HEADER)
        if given is not None:
            refused = check_pin(given)
            if refused is not None:
                return refused
            g.pin_header = True  # a script's request: its body is read as JSON (json_body)
            return view(*args, **kwargs)
        if not has_control():
            return error(
                f"this needs the table PIN: enter it on the page or send the {PIN_HEADER} header",
                401,
            )
        forged = check_csrf()
        if forged is not None:
            return forged
        return view(*args, **kwargs)

    return guarded


def check_csrf() -> Response | None:
    """None when the request carries this session's CSRF token, else the 403 answer."""
    sent = request.headers.get(CSRF_HEADER, "")
    expected = session.get("csrf")
    if isinstance(expected, str) and hmac.compare_digest(
        sent.encode("utf-8"), expected.encode("utf-8")
    ):
        return None
    return error(f"missing or wrong CSRF token ({CSRF_HEADER}): reload the page", 403)


@bp.post("/api/login")
def login() -> Response:
    """Open a control session with the table PIN: ``{"pin": "1234"}``."""
    body = request_json()
    if not isinstance(body, dict) or not isinstance(body.get("pin"), str):
        return error('send the PIN as JSON: {"pin": "1234"}', 400)
    refused = check_pin(body["pin"])
    if refused is not None:
        return refused
    _sessions().close(session.get("sid"))
    session.clear()  # a fresh session (and token) for the new holder of the PIN
    session["sid"] = _sessions().open()
    return jsonify(control=True, csrf=csrf_token())


@bp.post("/api/logout")
def logout() -> Response:
    """Close this phone's control session; it keeps watching."""
    forged = check_csrf()
    if forged is not None:
        return forged
    _sessions().close(session.pop("sid", None))
    return jsonify(control=False, csrf=csrf_token())


@bp.get("/api/session")
def whoami() -> Response:
    """Whether this phone controls the table, and its CSRF token."""
    return jsonify(control=has_control(), csrf=csrf_token(), sim=_sim_on())


def _sim_on() -> bool:
    return current_app.config.get("SIM_DRIVER") is not None
