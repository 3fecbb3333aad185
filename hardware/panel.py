"""The table's panel: presses become ``Table`` actions, table events become lights and sounds.

The panel knows nothing of the rules. It asks the referee for the legal next bids and
walks them with the dial, it names the caller from the state's ``turn`` or from the seat
button pressed just before, and it submits the record's own actions; whether an action
is legal is always the table's answer. A refused press sounds the reject signal and
changes nothing.

Threads: presses arrive on gpiozero's threads and call ``table.submit`` directly (the
table holds the lock). Table events arrive on the submitting thread, possibly while the
table holds its lock, so the subscriber only switches the light (which must be on during
the frame) and queues the event; a worker thread of the panel then updates LEDs, buzzer
and dial, and may call the table again safely.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from hardware.buttons import Controls
from hardware.dial import BidDial, BidLike, DialBid
from hardware.pins import PinMap, default_pin_map, load_pin_map
from hardware.signals import Signals

logger = logging.getLogger(__name__)

# Presses that call out the standing bid, by the caller the panel names.
CALLS = ("dudo", "calza", "pass")
# A press of another button this soon after the panel's own move of the turn was pressed
# with it (DIAL and DUDO at once), not in answer to it: a person answers a beep slower.
_TOGETHER_S = 0.25
# The +/- buttons: (quantity, face) change of the dialed bid.
ADJUST: Mapping[str, tuple[int, int]] = {
    "qty_up": (1, 0),
    "qty_down": (-1, 0),
    "face_up": (0, 1),
    "face_down": (0, -1),
}
# The keys of the state that are the game itself (DESIGN.md's state JSON).
GAME_KEYS = ("game_id", "rules", "phase", "round", "players", "dice_in_play", "dice_lost",
             "turn", "bid", "palifico", "palifico_mode", "winner", "last_result")
# Announcement kinds that have a signal of their own, most important first.
LOUD: tuple[tuple[str, str], ...] = (("winner", "won"), ("out", "out"),
                                     ("palifico", "palifico"))


class AnnouncementLike(Protocol):
    @property
    def kind(self) -> str: ...


class OutcomeLike(Protocol):
    @property
    def ok(self) -> bool: ...

    @property
    def error(self) -> str | None: ...

    @property
    def state(self) -> dict[str, Any]: ...

    @property
    def announcements(self) -> Sequence[AnnouncementLike]: ...


class EventLike(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def state(self) -> dict[str, Any]: ...

    @property
    def announcements(self) -> Sequence[AnnouncementLike]: ...


class TableLike(Protocol):
    """The part of ``companion.table.Table`` the panel uses."""

    def submit(
        self, action: dict[str, Any], *, seen: tuple[int, int] | None = None
    ) -> OutcomeLike: ...

    def state(self) -> dict[str, Any]: ...

    def legal_bids(self) -> Sequence[BidLike]: ...

    def play_again(self, first: str | None = None) -> OutcomeLike: ...

    def subscribe(self, callback: Callable[[Any], None]) -> Callable[[], None]: ...

    def show(self, name: str, value: object) -> None: ...


class Panel:
    """Every device of the pin map, wired to a table.

    ``pins`` is a ``PinMap`` or anything ``load_pin_map`` reads (None: the default
    panel). The times are seconds: UNDO acts after ``undo_hold_s`` held, a seat button
    names the player of a bid or the caller of a DUDO/CALZA/PASS pressed within
    ``seat_window_s`` after it (and is used up by it), a button down for ``stuck_after_s``
    is reported and ignored until released and left up ``settle_s`` (a button wired to its
    switch's normally-closed contact is up only while pressed). The same bid or call button
    pressed again within ``repeat_s`` is a double press, and is dropped: it would otherwise
    act for the next player. Once the game is over, the dial's push (or BID) held ``again_hold_s``
    starts another game with the same players and rules; a seat pressed just before names
    who opens it (the roll-off's winner). At a table whose rules let the one-die player
    choose (``palifico_choice``), that player holds their seat button ``open_hold_s``
    before the palifico round's first bid to play it open.
    """

    def __init__(
        self,
        table: TableLike,
        pins: PinMap | str | Path | Mapping[str, Any] | None = None,
        *,
        undo_hold_s: float = 1.0,
        again_hold_s: float = 2.0,
        open_hold_s: float = 2.0,
        seat_window_s: float = 3.0,
        stuck_after_s: float = 10.0,
        settle_s: float = 2.0,
        repeat_s: float = 0.5,
        tick_s: float = 0.06,
        blink_s: float = 0.4,
        pin_factory: Any = None,
    ) -> None:
        self.table = table
        self.pins = (default_pin_map() if pins is None
                     else pins if isinstance(pins, PinMap) else load_pin_map(pins))
        self.seat_window_s = seat_window_s
        self.repeat_s = repeat_s
        self._undo_hold_s = undo_hold_s
        self._last_press: dict[str, float] = {}  # bid and call buttons: when last pressed
        self.dial = BidDial()
        self._lock = threading.Lock()
        self._seat: tuple[int, float] | None = None  # last seat pressed, and when
        # A seat whose named press the table refused, and when it was pressed: the next press
        # in its window may be its player's or the player to act's (``_name_again``).
        self._doubt: tuple[int, float] | None = None
        self._local = threading.local()
        self._queue: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self._game_key: str | None = None
        self._dialed_for: str | None = None  # who raises which bid, as the dial was set
        self._turn: str | None = None
        self._refusal: str | None = None  # the reason on the page for the last refusal
        self._refused_in: str | None = None  # the game (its key) when it was refused
        self._players_called = False  # the reveal waits for the players, and they were called
        # When the turn last passed from one player to another (by a phone, or by this panel's
        # own press): a press for the player to act just after it may have been meant for the
        # one before, or pressed together with the one that moved it.
        self._moved_at = -float("inf")
        self._moved_here = False  # the last move of the turn by this panel's own press
        self._ignored_in_a_row: dict[str, int] = {}  # presses ignored as just freed, per button
        self._event_turn: str | None = None
        self._event_game: object = None  # the game and round of the last state the table sent
        # The game when UNDO went down: its game_id and moves (None: no game).
        self._undo_seen: tuple[int, int] | None = None
        # The button that starts another game once the game is over, held again_hold_s;
        # and the game it was pressed in, if it was over then.
        self._again = next((n for n in ("dial", "bid") if n in self.pins), None)
        self._again_hold_s = again_hold_s
        self._again_from: str | None = None
        # The seat pressed before it (who opens), and when: (seat, time) or None.
        self._again_named: tuple[int, float] | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._worker: threading.Thread | None = None
        self.signals = Signals(self.pins, tick_s=tick_s, blink_s=blink_s,
                               pin_factory=pin_factory)
        try:
            self.signals.set("light", False)
            self.controls = Controls(
                self.pins,
                on_press=self._pressed,
                on_hold=self._held,
                on_turn=self._turned,
                on_stuck=self._stuck,
                on_release=self._released,
                on_ignored=self._ignored,
                holds={"undo": undo_hold_s,
                       **({self._again: again_hold_s} if self._again else {}),
                       **{f"seat{n}": open_hold_s for n in self.pins.seats}},
                stuck_after_s=stuck_after_s,
                settle_s=settle_s,
                pin_factory=pin_factory,
            )
        except Exception:
            self.signals.close()
            raise
        if self.controls.stuck:  # said one by one as they were built: now all of them
            self._stuck(min(self.controls.stuck), True)
        self._worker = threading.Thread(target=self._work, name="dudo-panel", daemon=True)
        self._worker.start()
        self._unsubscribe = table.subscribe(self._on_event)
        self._queue.put(("sync",))

    # -- presses (gpiozero threads) ------------------------------------------------------

    def _pressed(self, name: str) -> None:
        self._ignored_in_a_row.pop(name, None)
        if name.startswith("seat"):
            now = time.monotonic()
            with self._lock:
                self._seat, self._doubt = (int(name[4:]), now), None
            logger.info("seat %s pressed", name[4:])
            self._show_seat_window(now)
        elif name == self._again and self._after_the_game():
            pass  # only its hold acts: another game
        elif name in ("dial", "bid", *CALLS) and self._double(name) and not self._armed_seat():
            # A press a seat names is another player's, however soon after: not a double.
            # Heard once (a finger's double tap is no mistake), but said on the phones: it
            # may have been the next player's, just after the last one's.
            logger.info("%s pressed twice: the second press is dropped", name)
            turn = self._state().get("turn")
            self._queue.put(("dropped", f"{name.upper()} pressed again within {self.repeat_s:g} s:"
                             " taken for a double press" + (
                                 f". If it was {turn}'s, press it again" if turn else "")))
        elif name in ("dial", "bid"):
            self._bid(name)
        elif name in CALLS:
            self._call(name)
        elif name in ADJUST:
            dq, df = ADJUST[name]
            self._sync_dial()
            with self._lock:
                bid = self.dial.adjust(dq, df)
            self._show_dial(bid)
        elif name == "undo":
            # UNDO acts on a hold only (a short press is a slip of the finger), on the game
            # as it was when it went down.
            self._undo_seen = _seen(self._state())

    def _after_the_game(self) -> bool:
        """Whether the game is over as the again button goes down. If so, the game and the
        seat pressed before it are kept for the hold; a push released before it only says
        how to play again (``_released``)."""
        state = self._state()
        over = state.get("phase") == "over"
        seat = self._armed_seat() if over else None
        with self._lock:
            self._again_from = _game_key(state) if over else None
            if over:
                self._again_named = self._seat if seat is not None else None
                self._seat = self._doubt = None
        return over

    def _take_again(self) -> str | None:
        """The game the again button went down on, over then, for one of its hold and its
        release (gpiozero calls them on threads of their own): the first takes it."""
        with self._lock:
            over, self._again_from = self._again_from, None
        return over

    def _released(self, name: str, held: bool) -> None:
        if name.startswith("seat") and held:
            # Held, a seat names the next press from its release (a refused hold to open a
            # palifico round is still that player's press: the next DUDO is theirs).
            now = time.monotonic()
            with self._lock:
                if self._seat is not None and self._seat[0] == int(name[4:]):
                    self._seat = (self._seat[0], now)
            self._show_seat_window(now)
            return
        if name == "undo" and not held:
            # Not heard (a slip of the finger, as it is taken), but said: a player who meant
            # it learns how, where nothing at all happened before.
            self._queue.put(("dropped", f"UNDO: hold it {self._undo_hold_s:g} s to take back"
                             " the last action"))
            return
        if name != self._again or held:
            return
        over = self._take_again()
        if over is not None and _game_key(self._state()) == over:  # not if a phone started one
            self._queue.put(("refused", self._over_reason(name)))
            self._name_again(self._again_named)  # the seat still names who opens

    def _over_reason(self, button: str) -> str:
        hint = (f": hold {self._again.upper()} {self._again_hold_s:g} s to play again with the"
                " same players; a roll-off's winner presses their seat first"
                ) if self._again else ""
        return f"{button.upper()}: the game is over{hint}"

    def _double(self, name: str) -> bool:
        """Whether this press of ``name`` follows its last within ``repeat_s``."""
        now = time.monotonic()
        with self._lock:
            last, self._last_press[name] = self._last_press.get(name), now
        return last is not None and now - last < self.repeat_s

    def _held(self, name: str) -> None:
        if name == "undo":
            with self._lock:
                self._seat = self._doubt = None  # a seat pressed before an undo names no one after
            seen = self._undo_seen
            if _seen(self._state()) != seen:
                # Another hand changed the game meanwhile (a phone's Undo for the same slip?).
                self._queue.put(("refused", "UNDO: the game changed while it was held: "
                                 "look, then hold UNDO again if still needed"))
                return
            # Checked again by the table itself, under its lock: a phone's Undo for the same
            # slip may land between the look above and this undo (both went through, and an
            # action nobody meant to was taken back with the slip).
            self._submit("UNDO", lambda: self.table.submit({"action": "undo"}, seen=seen))
        elif name == self._again:
            state = self._state()
            over = self._take_again()
            if over is None or _game_key(state) != over:
                return  # not over when pressed (that press bid), or changed since
            with self._lock:
                # A seat pressed while the button was held names the opener too; either way
                # the new game starts with no seat pressed.
                named = self._again_named or self._seat
                self._seat = self._doubt = None
            first, why = (None, "") if named is None else _seat_player(named[0], state, name)
            if why:
                self._queue.put(("refused", why))
                return
            self._submit("another game" + (f" opened by {first}" if first else ""),
                         lambda: self.table.play_again(first))
        elif name.startswith("seat"):
            self._declare_open(name)

    def _declare_open(self, button: str) -> None:
        """A seat held: its player declares the palifico round open, where the rules let the
        one-die player choose; elsewhere, and once the game is over (where a seat names the
        next game's opener), the hold is only the seat's press."""
        state = self._state()
        if not (state.get("options") or {}).get("palifico_choice") or state.get(
                "phase") == "over":
            return
        with self._lock:
            named, self._seat = self._seat, None  # the hold uses the seat's press
        self._queue.put(("seats",))
        player, why = _seat_player(int(button[4:]), state, button)
        if player is None:  # a seat with no player: it names nobody
            self._queue.put(("refused", why))
            return
        if not self._submit(f"OPEN PALIFICO by {player}",
                            {"action": "palifico", "player": player, "mode": "open"}) and named:
            # Refused (no palifico round now): the seat still names its player's next press.
            self._name_again((named[0], time.monotonic()))

    def _turned(self, step: int) -> None:
        self._sync_dial()
        with self._lock:
            bid = self.dial.turn(step)
        self._show_dial(bid)

    def _stuck(self, name: str, stuck: bool) -> None:
        # Controls may report a button stuck while it is being built (down at start-up).
        controls = getattr(self, "controls", None)
        stuck_now = sorted(controls.stuck) if controls is not None else [name]
        message = (f"button {', '.join(n.upper() for n in stuck_now)} held down: "
                   "ignored until released (held by nobody? its wire is on the switch's"
                   " normally-closed contact, or its pull_up is wrong in the pin map)"
                   ) if stuck_now else None
        set_fault = getattr(self.table, "set_fault", None)
        try:
            if set_fault is not None:
                set_fault("panel", message)
            else:
                self.table.show("fault", message)
        except Exception:
            logger.exception("could not report the stuck button %r", name)

    def _ignored(self, name: str) -> None:
        # Before (session 92's audit), the press was dropped with no sound, and the stuck
        # fault it raised went with the finger: nothing told the player to press again.
        settle_s = self.controls.settle_s
        again = self._ignored_in_a_row[name] = self._ignored_in_a_row.get(name, 0) + 1
        if again >= 2:
            # Pressed again too soon, or wired so that every press lands just as it is freed
            # ("press it again" could never work there; session 93's audit): both said.
            self._queue.put(("refused", f"{name.upper()} pressed again within {settle_s:g} s"
                             f" of being freed: not taken. Let it rest {settle_s:g} s, then"
                             " press it; refused again, its wire may be on the switch's"
                             " normally-closed contact (or its pull_up wrong in the pin map):"
                             " use the page meanwhile"))
            return
        self._queue.put(("refused", f"{name.upper()} pressed within {settle_s:g} s of being"
                         " freed from a stuck press: not taken. Press it again"))

    def _bid(self, button: str) -> None:
        state = self._state()
        self._sync_dial(state)
        with self._lock:
            bid, named = self.dial.current, self._seat
        player, why = self._who(button, state)
        if player is None or bid is None:
            self._queue.put(("refused", why or f"{button.upper()}: no bid to make now"))
            return
        if not self._submit(f"{button.upper()} {bid} by {player}", {
            "action": "bid", "player": player, "quantity": bid.quantity, "face": bid.face,
        }):
            self._name_again(named, in_doubt=True)

    def _call(self, name: str) -> None:
        with self._lock:
            named = self._seat
        player, why = self._who(name, self._state())
        if player is None:
            self._queue.put(("refused", why))
            return
        if not self._submit(f"{name.upper()} by {player}", {"action": name, "player": player}):
            self._name_again(named, in_doubt=True)

    def _name_again(self, named: tuple[int, float] | None, *, in_doubt: bool = False) -> None:
        """A press a seat named was refused. The seat still names the next press within its
        window (its player's own refused hold, the again button's short push); or, ``in_doubt``
        (a refused bid or call), the next press in that window is refused, not given to anyone:
        was the refused press the seat's player's (Ana pressed her seat, then DUDO, not hers to
        call) or the player to act's, just after that seat (Caro, to act, pushed the dial as
        Ana reached for CALZA)? Caro's CALZA had gone to Ana, or, before that, Ana's to Caro. A
        seat pressed again names the next press as ever."""
        if named is None or time.monotonic() - named[1] > self.seat_window_s:
            return
        with self._lock:
            if self._seat is None and in_doubt:
                self._doubt = named
            elif self._seat is None:
                self._seat = named
        self._show_seat_window(named[1])

    def _show_seat_window(self, since: float) -> None:
        """Show the seats now, and again once the window of a seat pressed at ``since`` has
        ended: its LED blinks while the seat names the next press, then the LEDs are as
        before (a press using it shows them at once)."""
        self._queue.put(("seats",))
        ends = since + self.seat_window_s + 0.05 - time.monotonic()
        timer = threading.Timer(max(0.0, ends), self._queue.put, (("seats",),))
        timer.daemon = True
        timer.start()

    def _armed_seat(self) -> int | None:
        """The seat pressed for the next press (or in doubt), within its window; else None."""
        with self._lock:
            seat = self._seat or self._doubt
        if seat is None or time.monotonic() - seat[1] > self.seat_window_s:
            return None
        return seat[0]

    def _who(self, button: str, state: dict[str, Any]) -> tuple[str | None, str]:
        """Who a press is for: the seat pressed just before (used up by this press), else
        the player to act; or None and why not."""
        with self._lock:
            seat, self._seat = self._seat, None
            doubt, self._doubt = self._doubt, None
        if seat is not None or doubt is not None:
            self._queue.put(("seats",))  # used up: its LED stops blinking
        if seat is not None and time.monotonic() - seat[1] <= self.seat_window_s:
            return _seat_player(seat[0], state, button)
        if doubt is not None and time.monotonic() - doubt[1] <= self.seat_window_s:
            return None, (f"{button.upper()}: whose press? The last one, after seat {doubt[0]}"
                          f" was pressed, was refused: press your own seat, then"
                          f" {button.upper()} again")
        player = state.get("turn")
        # Moved here, two buttons pressed together: closer than anyone answers a beep.
        window = min(self.repeat_s, _TOGETHER_S) if self._moved_here else self.repeat_s
        if player is not None and time.monotonic() - self._moved_at < window:
            # The turn moved by another hand just now (or another button): this press may be
            # for the turn before, or pressed with the bid it would answer.
            return None, (f"{button.upper()}: the turn just moved: "
                          "press again if it is still yours")
        if player is not None:
            return player, ""
        phase = state.get("phase")
        if phase == "reveal":
            return None, f"{button.upper()}: the cups are up: the reveal comes first"
        if phase == "over":
            return None, self._over_reason(button)
        if phase != "bidding":
            return None, f"{button.upper()}: no game: start one on the page"
        return None, (f"{button.upper()}: whose call? nobody is to act; "
                      "press your seat button first")

    def _submit(
        self, what: str, action: dict[str, Any] | Callable[[], OutcomeLike]
    ) -> bool:
        """Submit a record action (or make another call to the table) and answer it;
        whether the table took it."""
        # Events the table sends while it handles this very action are collected here,
        # so that the panel answers the press with one signal, not two.
        self._local.events = []
        try:
            outcome: OutcomeLike | None = (
                action() if callable(action) else self.table.submit(action))
        except Exception:
            logger.exception("%s: the table failed", what)
            outcome = None
        finally:
            events, self._local.events = self._local.events, None
        self._queue.put(("submitted", what, outcome, events))
        return outcome is not None and bool(outcome.ok)

    def _state(self) -> dict[str, Any]:
        try:
            return self.table.state()
        except Exception:
            logger.exception("table.state() failed")
            return {}

    # -- table events (the submitting thread; maybe under the table's lock) --------------

    def _on_event(self, event: EventLike) -> None:
        if event.kind == "capture_start":
            self.signals.set("light", True)
        elif event.kind == "capture_end":
            self.signals.set("light", False)
        elif event.kind == "state":
            collecting = getattr(self._local, "events", None)
            turn = event.state.get("turn")
            if None not in (turn, self._event_turn) and turn != self._event_turn:
                # By a phone, or by this panel: another button pressed with the dial's push
                # (DUDO with the bid it would call) must not land on the bid just made.
                self._moved_at = time.monotonic()
                self._moved_here = collecting is not None
            self._event_turn = turn
            place = (event.state.get("game_id"), event.state.get("round"))
            if place != self._event_game:
                # Another game (a phone started it, or an undo went back to the last): a
                # seat pressed before names nobody in it (the panel's own start clears it too).
                # Another round too: a seat pressed while the cups were up, a hand resting on
                # it, named the next round's first press and had it refused.
                self._event_game = place
                with self._lock:
                    self._seat = self._doubt = None
            if collecting is not None:
                collecting.append(event)
            else:
                self._queue.put(("event", event))

    # -- the worker: LEDs, buzzer, dial --------------------------------------------------

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item[0] == "stop":
                    return
                self._handle(item)
            except Exception:
                logger.exception("panel could not handle %r", item[0])
            finally:
                self._queue.task_done()

    def _handle(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if kind == "sync":
            self._follow(self._state(), [])
        elif kind == "seats":
            self._show_seats(self._state())
        elif kind == "settled":
            item[1].set()
        elif kind == "event":
            event = item[1]
            if self._refusal is not None and _game_key(event.state) != self._refused_in:
                self._refusal = None  # the game moved on: the old reason no longer holds
                self._show("panel", None)
            sound = self._follow(event.state, event.announcements)
            if sound:
                self.signals.play(sound)
        elif kind == "refused":
            self._refuse(item[1])
        elif kind == "dropped":
            self._refuse(item[1], sound=False)
        elif kind == "submitted":
            _, what, outcome, events = item
            if outcome is None or not outcome.ok:
                reason = "the table failed" if outcome is None else outcome.error
                self._refuse(f"{what}: {reason}")
                return
            logger.info("%s accepted", what)
            sound = ""
            for event in events or [outcome]:
                sound = self._follow(event.state, event.announcements) or sound
            if self._refusal is not None:
                self._refusal = None
                self._show("panel", None)
            self.signals.play(sound if sound and sound != "your_turn" else "accepted")

    def _refuse(self, reason: str, sound: bool = True) -> None:
        logger.info("rejected: %s", reason)
        self._refusal = reason
        self._refused_in = _game_key(self._state())
        self._show("panel", reason)
        if not sound:
            return
        # A press refused while the table calls the players (to a phone, to a palifico, to
        # the winner, a player out) does not silence that call: it is played again after
        # the refusal (one beep of "out" and the reject's three sounded as "out").
        calling = tuple(n for n in self.signals.playing()
                        if n in ("look", "palifico", "won", "out"))
        self.signals.play("rejected", *calling)

    def _follow(self, state: dict[str, Any], announcements: Sequence[AnnouncementLike]) -> str:
        """Bring LEDs and dial up to ``state``; return the signal it deserves, or ''."""
        self._show_seats(state)
        if state.get("palifico") and state.get("palifico_mode") == "open":
            self.signals.blink("palifico_led")  # open: each sees the others' dice
        else:
            self.signals.set("palifico_led", bool(state.get("palifico")))

        self._sync_dial()

        turn = state.get("turn")
        kinds = {a.kind for a in announcements}
        turn_moved = turn != self._turn
        self._turn = turn
        # Each time the players' hands become needed, they are called once (kept up to date
        # under a loud signal too: a game won, undone back into its reveal, calls them).
        waiting, called = _waiting_for_the_players(state), self._players_called
        self._players_called = waiting
        for kind, sound in LOUD:
            if kind in kinds:
                return sound
        if waiting and not called:
            return "look"
        return "your_turn" if turn_moved and turn is not None else ""

    def _show_seats(self, state: dict[str, Any]) -> None:
        """The seat LEDs for ``state``: whose turn, the caller at a reveal, the winner, and
        a seat pressed for the next press."""
        phase = state.get("phase")
        turn = state.get("turn")
        seat_of = {p["name"]: p["seat"] for p in state.get("players") or []}
        if phase == "reveal":
            # The cups are up: every seat still in blinks until the dice are read, but the
            # caller's stays lit (a call the panel gave the wrong seat can be undone now).
            caller = seat_of.get((state.get("call") or {}).get("caller"))
            in_play = [seat_of[p["name"]] for p in state.get("players") or []
                       if not p.get("out") and seat_of[p["name"]] != caller]
            self.signals.show_seats(lit=[caller] if caller else [], blinking=in_play)
        elif phase == "over" and state.get("winner") in seat_of:
            # The winner's seat blinks, but for a seat pressed to name the next game's opener.
            armed = self._armed_seat()
            self.signals.show_seats(blinking=[armed or seat_of[state["winner"]]])
        else:
            armed = self._armed_seat()
            self.signals.show_seats(lit=[seat_of[turn]] if turn in seat_of else [],
                                    blinking=[armed] if armed else [])

    def _sync_dial(self, state: dict[str, Any] | None = None) -> None:
        """Send the dial back to the lowest legal raise if the game changed since it was set;
        but for the same player to raise the same bid (another player left, a palifico round
        was declared), it stays on the bid dialed while that is still legal.

        Called with the table's current state (never an older event's) by the worker and
        by every dial press, so a press right after a change already sees the new bids.
        """
        state = self._state() if state is None else state
        key, raising = _game_key(state), _raising(state)
        with self._lock:
            if key == self._game_key:
                return
        try:
            bids = self.table.legal_bids() if state.get("phase") == "bidding" else []
        except Exception:
            logger.exception("table.legal_bids() failed")
            bids = []
        with self._lock:
            self._game_key, kept = key, raising == self._dialed_for
            self._dialed_for = raising
            bid = self.dial.reset(bids, keep=kept)
        self._show_dial(bid)

    def _show_dial(self, bid: DialBid | None) -> None:
        self._show("dial", None if bid is None else str(bid))

    def _show(self, name: str, value: object) -> None:
        try:
            self.table.show(name, value)
        except Exception:
            logger.exception("table.show(%r) failed", name)

    # -- life cycle ----------------------------------------------------------------------

    def settle(self, timeout: float = 5.0) -> bool:
        """Wait until every press and event so far has reached the LEDs and buzzer
        (not until a signal has finished sounding: see ``signals.wait``)."""
        done = threading.Event()
        self._queue.put(("settled", done))
        return done.wait(timeout)

    def close(self) -> None:
        """Stop listening, switch every light off and release every pin."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._worker is not None:
            self._queue.put(("stop",))
            self._worker.join(timeout=5)
            self._worker = None
        self.controls.close()
        for name in list(self.signals.leds):
            self.signals.set(name, False)
        self.signals.close()

    def __enter__(self) -> Panel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _seat_player(seat: int, state: Mapping[str, Any], button: str) -> tuple[str | None, str]:
    """The player in ``seat`` (1-8), or None and why not."""
    for player in state.get("players") or []:
        if player["seat"] == seat:
            return player["name"], ""
    return None, f"{button.upper()}: seat {seat} has no player"


def _raising(state: Mapping[str, Any]) -> str:
    """Who is to raise which bid, in which round of which game (what the dial is set for)."""
    return json.dumps({k: state.get(k) for k in ("game_id", "round", "turn", "bid")},
                      sort_keys=True, default=str)


def _seen(state: Mapping[str, Any]) -> tuple[int, int] | None:
    """The game and how far it has gone in a state (``game_id``, ``moves``), as
    ``Table.submit``'s ``seen`` takes them; None without a game."""
    game_id, moves = state.get("game_id"), state.get("moves")
    return (game_id, moves) if isinstance(game_id, int) and isinstance(moves, int) else None


def _game_key(state: Mapping[str, Any]) -> str:
    """The game itself in a state, not a display value (the dial's own among them) or a fault."""
    return json.dumps({k: state.get(k) for k in GAME_KEYS}, sort_keys=True, default=str)


def _waiting_for_the_players(state: Mapping[str, Any]) -> bool:
    """Whether a reveal waits for the players' hands: the camera has finished and left them
    a reading to confirm, or no reading (it failed, or the table has none): dice to type in.
    """
    if state.get("phase") != "reveal" or state.get("capturing"):
        return False
    reading = state.get("reading")
    return not (reading and reading.get("applied"))
