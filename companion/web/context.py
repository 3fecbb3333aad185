"""What the views share: the table, the live-feed broker, the PIN limiter and control
sessions, the journal.

One :class:`WebContext` per app, kept in ``app.extensions["dudo"]`` (no module globals). It
also turns the table's state into what the page receives: the public state plus the
chance that the standing bid is true, which anyone at the table could work out.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import Response

from companion.web.auth import ControlSessions, PinLimiter, pin_mark
from companion.web.events import Broker
from companion.web.replies import error

log = logging.getLogger(__name__)


def announcement_json(announcement: Any) -> dict[str, Any]:
    """An engine announcement as the page shows it: ``{"kind", "player", "text"}``."""
    return {
        "kind": announcement.kind,
        "player": announcement.player,
        "text": announcement.text,
    }


def bid_odds(state: Mapping[str, Any], quantity: int, face: int) -> dict[str, float] | None:
    """The chance that ``quantity`` x ``face`` is true, from public information only.

    Public: the dice in play and the rules, never a die under a cup. None when the table
    hides how many dice are in play.
    """
    from companion import odds

    dice = state.get("dice_in_play")
    if not isinstance(dice, int):
        return None
    wild = state.get("aces_wild")
    if not isinstance(wild, bool):  # an older state: aces are wild unless the rules say no
        wild = bool((state.get("options") or {}).get("wild_aces", True)) and not state.get(
            "palifico"
        )
    return {
        "chance": odds.chance(quantity, face, dice, wild_aces=wild),
        "expected": odds.expected(face, dice, wild_aces=wild),
    }


@dataclass
class WebContext:
    """Everything the views need for one table."""

    table: Any
    limiter: PinLimiter
    sessions: ControlSessions
    listed: Any = None  # the config's JOURNAL, if any
    sim_driver: Any = None
    broker: Broker = field(init=False)
    unsubscribe: Callable[[], None] | None = None
    # /api/bids' last answer, and the table's (run, version) it was worked out at.
    bids_kept: tuple[tuple[Any, Any], bytes] | None = None

    @classmethod
    def build(cls, table: Any, config: Mapping[str, Any]) -> WebContext:
        """The context for ``table`` under the app's ``config``."""
        return cls(
            table=table,
            limiter=PinLimiter(int(config["PIN_ATTEMPTS"]), float(config["PIN_WINDOW_S"]),
                               table_attempts=int(config["PIN_TABLE_ATTEMPTS"]),
                               table_window_s=float(config["PIN_TABLE_WINDOW_S"])),
            sessions=ControlSessions(config.get("SESSIONS_FILE"), pin_mark=pin_mark(config),
                                     days=float(config["SESSION_DAYS"])),
            listed=config.get("JOURNAL"),
            sim_driver=config.get("SIM_DRIVER"),
        )

    @property
    def journal(self) -> Any:
        """The journal whose games the page lists: the config's, else the table's as it is
        now (one opened anew, once a card that was full has room, is listed at once)."""
        return self.listed or getattr(self.table, "journal", None)

    def describe(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """The public state with ``odds`` of the standing bid (None without a bid)."""
        described = dict(state)
        bid = state.get("bid")
        described["odds"] = None
        if isinstance(bid, Mapping):
            try:
                described["odds"] = bid_odds(state, int(bid["quantity"]), int(bid["face"]))
            except (KeyError, TypeError, ValueError) as err:
                log.warning("no odds for the bid %r: %s", bid, err)
        return described

    def describe_event(self, event: Any) -> dict[str, Any]:
        """A table event as the page receives it over the live feed."""
        return {
            "state": self.describe(event.state),
            "announcements": [announcement_json(a) for a in event.announcements],
        }

    def outcome(self, outcome: Any, *, created: bool = False) -> Response:
        """A table ``Outcome`` as an answer: the new state, or a 422 with the reason."""
        if not outcome.ok:
            return error(outcome.error or "refused", 422, about=outcome.about)
        from flask import jsonify

        response = jsonify(
            state=self.describe(outcome.state),
            announcements=[announcement_json(a) for a in outcome.announcements],
        )
        response.status_code = 201 if created else 200
        return response

    def reveal_jpeg(self) -> bytes | None:
        """The annotated picture of the reading in the state, as JPEG bytes, if any."""
        jpeg: bytes | None = self.table.reveal_picture()
        return jpeg

    def current_record(self) -> str | None:
        """The current game's record (JSON Lines, header first), or None before any game."""
        text: str | None = self.table.record()
        return text
