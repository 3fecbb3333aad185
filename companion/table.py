"""The table: the one owner of the game while the companion runs.

Every change of the game, whatever its origin (a button, the page, the camera), goes through
:meth:`Table.submit` under one lock: the engine checks the action, the journal stores it
(synced to disk), the engine applies it, a new state snapshot is published and the
subscribers (the page, the LEDs, the buzzer) are told. A rejected action changes nothing and
says why; a journal that cannot write makes the table refuse actions, never drop them.

After a call the table takes one picture (when it has a camera), reads it and applies the
reveal at once when the reading agrees with the dice each player must show; otherwise the
reading waits for the players (:meth:`Table.confirm_reading`, :meth:`Table.retake`, or a
``reveal`` action typed in by hand).
"""

from __future__ import annotations

import copy
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.announcement import Announcement
from companion.bid import MAX_QUANTITY, Bid
from companion.errors import shown
from companion.game import Game, check_new_game
from companion.journal import (
    Journal,
    JournalError,
    JournalGone,
    KeptReveal,
    Row,
    checksum,
    encode,
    sqlite_reason,
    what_to_do,
)
from companion.resume import LeftOut, resume_latest
from companion.reveal import CAPTURE_TIMEOUT_S, CameraReading, Reader, RevealCamera, Token
from companion.rounds import opening

logger = logging.getLogger(__name__)

# The state a table shows before its first game: the same keys as a game's, all empty.
_NO_GAME: dict[str, Any] = {
    "rules": None,
    "phase": "setup",
    "round": 0,
    "players": [],
    "dice_in_play": 0,
    "dice_lost": 0,
    "turn": None,
    "bid": None,
    "palifico": None,
    "winner": None,
    "last_result": None,
}


@dataclass(frozen=True)
class Outcome:
    """What became of a request: ``ok``, else the reason; the state after it; what to announce.
    ``about``: a refused new game's one entry to change, ``{"player": ..., "field": "name"|
    "colour"}``, where one is at fault."""

    ok: bool
    error: str | None
    state: dict[str, Any]
    announcements: list[Announcement] = field(default_factory=list)
    about: dict[str, str] | None = None


@dataclass(frozen=True)
class TableEvent:
    """What subscribers hear: ``state``, ``capture_start``, ``capture_end`` or ``rejected``."""

    kind: str
    state: dict[str, Any]
    announcements: list[Announcement] = field(default_factory=list)


Subscriber = Callable[[TableEvent], None]


class Table:
    """The one owner of the game: engine, journal, camera and subscribers behind one lock.

    ``journal``: where accepted actions are stored before they are acknowledged (None: not
    stored); with a journal the most recent game is resumed at once by replaying it.
    ``camera``: a started frame source (``capture() -> frame``), or None for manual reveals.
    ``reader``: reads a frame at a reveal (default: :class:`companion.reveal.VisionReader`).
    ``cups_up_s``: seconds from a call to its picture; an undo within them takes the call
    back before the camera has looked (a picture taken again, or after a restart, is at once).
    ``capture_timeout_s``: a camera that gives no picture within it is stuck: the players
    enter the dice by hand.
    ``reopen``: while the table has no camera (it could not be opened at start), what opens
    it, tried at each call on a thread of its own: the started camera, or (None, the camera
    fault to show). Once it opens, the call's picture is taken as usual and the camera kept.
    """

    def __init__(
        self,
        journal: Journal | None = None,
        camera: Any = None,
        reader: Reader | None = None,
        cups_up_s: float = 0.0,
        capture_timeout_s: float = CAPTURE_TIMEOUT_S,
        reopen: Callable[[], tuple[Any, str | None]] | None = None,
    ) -> None:
        self.journal = journal
        self.camera = camera
        self.cups_up_s = cups_up_s
        self._reader, self._capture_timeout_s = reader, capture_timeout_s
        self._reopen = reopen
        self._opening: threading.Thread | None = None  # the camera being opened again
        self._cups_up_at = 0.0  # when the cups of the latest call are up (time.monotonic)
        self._closed = False
        self._lock = threading.RLock()
        self._subscribers: list[Subscriber] = []
        self._game: Game | None = None
        self._game_id: int | None = None
        self._games_started = 0
        self._display: dict[str, object] = {}
        self._faults: dict[str, str] = {}
        self._reading: CameraReading | None = None
        self._last_reveal: CameraReading | None = None  # the last reveal's reading, for an undo
        # The rounds of this game whose reveals the players typed in by hand, in this run (an
        # undo back to an earlier round's result finds it said as it was), each with whether
        # the dice typed in took the place of the camera's reading of them.
        self._typed_rounds: dict[int, bool] = {}
        self._capture_token: Token | None = None
        # Actions a resume set aside, which the players are told of (fault ``left_out``) until
        # the game has as many moves as before the restart (see :mod:`companion.resume`).
        self._left_out: LeftOut | None = None
        # Each picture's number, counted from a random start: a picture of this run never
        # bears the number of one an earlier run showed (a phone may still show it).
        self._capture_serial = secrets.randbelow(2**30)
        self._version = 0
        self._run = secrets.token_hex(4)  # this run of the table: versions count within it
        self._photographer = (
            RevealCamera(camera, reader, capture_timeout_s) if camera is not None else None
        )
        self._snapshot: dict[str, Any] = {}
        self._publish()
        if journal is not None:
            self._resume(journal)

    # -- reading the table ----------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The latest state snapshot: the game's public state plus the table's own keys.

        Never waits on the lock. Besides ``game.state()``: ``game_id``, ``version`` (counts
        every change) and ``run`` (names this run of the table: a restart counts anew),
        ``moves`` (the number of actions of the game so far),
        ``display``, ``faults`` (name -> message) and ``fault`` (the first of them, or None),
        ``camera`` (True when reveals are read by the camera), ``capturing``, and ``reading``
        after a reveal's picture (absent before it).
        """
        return copy.deepcopy(self._snapshot)

    def dice_under_cups(self) -> dict[str, int]:
        """Each player's dice count, even where the table hides them: what each player holds
        under their own cup (the simulated cups roll so many). Never served to a page."""
        with self._lock:
            if self._game is None:
                return {}
            return {p["name"]: p["dice"] for p in self._game.state(referee=True)["players"]}

    def legal_bids(self) -> list[Bid]:
        """Every legal next bid for the player to act, ascending (empty outside bidding).

        Quantities go up to the dice in play; at a table that hides how many remain
        (``lost_dice_visible`` off), up to the dice at the start: the highest bid the page
        and the dial offer would tell it."""
        with self._lock:
            game = self._game
            if game is None or game.phase != "bidding":
                return []
            hidden = not game.rules.lost_dice_visible
            return game.legal_bids(up_to=game.rules.dice * len(game.players) if hidden else None)

    def record(self) -> str | None:
        """The current game's record (JSON Lines, as ``dudo replay`` reads), or None."""
        current = self.identified_record()
        return current[1] if current is not None else None

    def identified_record(self) -> tuple[int, str] | None:
        """The current game's id (the state's ``game_id``) and its record, read together."""
        with self._lock:
            if self._game is None or self._game_id is None:
                return None
            lines = [encode(self._game.header)] + [encode(a) for a in self._game.actions]
            return self._game_id, "\n".join(lines) + "\n"

    def reveal_picture(self) -> bytes | None:
        """The annotated JPEG of the reading in the state, or None when there is none."""
        reading = self._reading
        return reading.jpeg if reading is not None and reading.jpeg else None

    def healthy(self, timeout: float = 1.0) -> bool:
        """Whether the table's lock can be taken within ``timeout`` seconds (the watchdog)."""
        if not self._lock.acquire(timeout=timeout):
            return False
        self._lock.release()
        return True

    def camera_stuck(self) -> bool:
        """Whether the camera has not answered since a picture it did not give in time."""
        return self._photographer is not None and self._photographer.stuck

    # -- subscribers and display ----------------------------------------------------------

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(event)`` at every event; returns the function that unsubscribes."""
        with self._lock:
            self._subscribers = [*self._subscribers, callback]

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers = [s for s in self._subscribers if s is not callback]

        return unsubscribe

    def show(self, name: str, value: object) -> None:
        """Show a non-game value on the page (``state()["display"][name]``); None removes it.

        The same value again changes nothing and tells no one (a dial turned at its end).
        """
        with self._lock:
            if self._display.get(name) == value:
                return
            if value is None:
                self._display.pop(name, None)
            else:
                self._display[name] = value
            self._publish()
            self._emit("state")

    def set_fault(self, name: str, message: str | None) -> None:
        """Show a fault on the page (``camera``, ``gpio``...), or clear it with None."""
        with self._lock:
            if self._set_fault(name, message):
                self._publish()
                self._emit("state")

    def take_journal(self, journal: Journal) -> Journal | None:
        """Store actions in ``journal`` from now on, the same file as the table's journal
        opened anew (one that can be written, where the first could only be read); its fault
        is cleared. Returns the journal it replaces, for the caller to close. The rows a
        resume could not set aside in the first are set aside in it before: JournalError if
        they cannot be, and the table keeps the journal it has.

        A ``journal`` opened to be read only (:attr:`Journal.read_only`) only replaces the
        one the table reads, its fault kept."""
        with self._lock:
            if journal.read_only:
                replaced, self.journal = self.journal, journal
                return replaced
            left_out = self._left_out
            if left_out is not None and left_out.unsaved is not None:
                journal.set_aside(*left_out.unsaved)  # JournalError if it cannot: none taken
                self._left_out = replace(left_out, unsaved=None)
            replaced, self.journal = self.journal, journal
            self.set_fault("journal", None)
        return replaced

    # -- changing the game ----------------------------------------------------------------

    def new_game(self, header: Mapping[str, Any], *, seen_game: int | None = None) -> Outcome:
        """Start a new game from a record header; an unfinished game stays in the journal.

        ``seen_game``: the game (``game_id``, 0 for none) the sender's page showed; refused
        if another game was started since (a form sent twice, or from two phones, starts one
        game, and never ends the one just started).
        """
        with self._lock:
            if seen_game is not None and seen_game != (self._game_id or 0):
                return self._reject("a new game was started since this phone showed the table"
                                    " (another phone, or this one's request sent again): look"
                                    " again before starting another")
            try:
                game = Game.from_header(dict(header))
                check_new_game(game)
            except (TypeError, ValueError) as err:
                player, part = getattr(err, "player", None), getattr(err, "field", None)
                about = None if player is None else {"player": player, "field": part}
                return self._reject(f"cannot start the game: {err}", about=about)
            game_id: int | None
            if self.journal is not None:
                try:
                    game_id = self.journal.start_game(game.header)
                except JournalError as err:
                    return self._journal_failed(err)
            else:
                game_id = self._games_started + 1
            logger.info("new game %s: %s", game_id, encode(game.header))
            self._games_started += 1
            self._set_fault("journal", None)
            self._told_left_out(None)
            self._set_fault("salvaged", None)  # said since the start: a new game has begun
            self._set_fault("resume", None)
            self._game, self._game_id = game, game_id
            self._reading = self._last_reveal = None
            self._typed_rounds = {}
            self._capture_token = None
            self._publish()
            said = opening(game)
            self._emit("state", said)
            return Outcome(True, None, self.state(), said)

    def play_again(self, first: str | None = None) -> Outcome:
        """Start a new game set up as the finished one was: its players in their seats but
        those who left the table, its rules, options and colours. ``first`` (who won the
        roll-off) opens it, else the same player as before (the first seat, if they left).
        Refused unless the game is over."""
        with self._lock:
            if self._game is None or self._game.phase != "over":
                return self._reject("the game is not over: a new game is started on the page")
            header = dict(self._game.header)
            gone = self._game.leavers
            if first in gone:
                return self._reject(f"{first} left the table: press the seat of a player"
                                    " still here, or none")
            if gone:
                # Those still here keep their seats (their seat buttons on the panel).
                header["seats"] = [n for p, n in zip(header["players"], self._game.seats,
                                                     strict=True) if p not in gone]
                header["players"] = [p for p in header["players"] if p not in gone]
                if len(header["players"]) < self._game.rules.min_players:
                    return self._reject(f"only {', '.join(header['players'])} still at the"
                                        " table: start a game on the page")
                if "colours" in header:
                    header["colours"] = {p: c for p, c in header["colours"].items()
                                         if p not in gone}
                if header.get("first") in gone:
                    del header["first"]
            if first is not None:
                header["first"] = first
            return self.new_game(header)

    def submit(self, action: Mapping[str, Any], *, seen: tuple[int, int] | None = None) -> Outcome:
        """Check, journal, apply and announce one record action; a rejection changes nothing.

        ``seen``: the game (``game_id``) and its number of actions (``moves``) the sender
        acted on, as the state showed them; refused if the game has moved since (two phones
        pressing Undo for one mistake take back one action, not two).
        """
        with self._lock:
            if seen is not None and seen != (self._game_id, self._moves()):
                return self._reject("the game moved on since this was pressed (another "
                                    "phone or the panel acted): look again, then press again")
            quantity = action.get("quantity") if isinstance(action, Mapping) else None
            if type(quantity) is int and quantity > MAX_QUANTITY:  # bool is no quantity
                return self._reject(f"malformed bid: quantity {shown(quantity)} (the table takes"
                                    f" bids of up to {MAX_QUANTITY:,} dice)")
            return self._submit(action)

    def _moves(self) -> int:
        return len(self._game.actions) if self._game is not None else 0

    def confirm_reading(
        self, corrections: Mapping[int, int] | None = None, picture: int | None = None
    ) -> Outcome:
        """Apply the pending reading as the reveal, faces corrected by die index first.

        ``picture``: the reading's ``picture`` the players looked at; refused if the picture
        was taken again since (its dice are numbered afresh).
        """
        with self._lock:
            reading = self._reading
            if self._game is None or self._game.phase != "reveal":
                return self._reject("there is no reveal to confirm now")
            if reading is None or reading.applied:
                return self._reject("there is no reading to confirm: retake it or enter the dice")
            if picture is not None and picture != reading.picture:
                return self._reject("the picture was taken again since: check the new reading, "
                                    "then confirm it")
            try:
                reading = reading.corrected(dict(corrections or {}))
            except ValueError as err:
                return self._reject(str(err))
            return self._submit(reading.reveal_action(), reading=replace(reading, confirmed=True))

    def retake(self, cups_up: bool = False) -> Outcome:
        """Take the reveal's picture again (only while the reveal waits).

        At a reveal an undo went back to, its dice may have been rolled for the next round
        since, under the cups: the picture is taken only if the players say the cups are up
        on this round's dice again (``cups_up``); the page asks them first.
        """
        with self._lock:
            if self._game is None or self._game.phase != "reveal":
                return self._reject("a picture is taken only at a reveal, after a call")
            if self.camera is None:
                return self._reject("there is no camera: enter the dice by hand")
            if self._undone_into_reveal() and not cups_up:
                return self._reject(
                    "this reveal was taken back by an undo: its dice may have been rolled for"
                    " the next round, under the cups; take the picture again only once every"
                    " cup is lifted on this round's dice (cups_up), or enter the dice by hand")
            self._reading = None
            # Not before the call's cups are up: a call undone within them is taken back
            # before the camera has seen a die (a retake asked at once looked at once).
            self._start_capture(after_s=max(0.0, self._cups_up_at - time.monotonic()))
            self._publish()
            self._emit("state")
            return Outcome(True, None, self.state())

    def resume_reveal(self) -> bool:
        """After a restart in the middle of a reveal, take its picture if it is still due;
        whether one was started.

        It is due when the call (or a player leaving while the cups were up) was the last
        action: the cups are up on the dice it was made on. Not after an undo back into the
        reveal: that reveal was photographed before, and its dice may have been rolled again
        since, hidden under the cups; the players type them in, or ask for a new picture.
        """
        with self._lock:
            # Nor while the players are told of actions set aside at the restart: the dice
            # on the glass may be another round's, whose count would match the call's.
            return self._left_out is None and self._picture_due() and self.retake().ok

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no camera is being opened again and no picture is being taken or read;
        False if ``timeout`` passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        opening = self._opening
        if opening is not None:
            opening.join(timeout)
            if opening.is_alive():
                return False
        photographer = self._photographer
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        return photographer is None or photographer.wait_idle(left)

    def close(self) -> None:
        """Stop the reveal worker (waiting for a reading under way) and drop the subscribers;
        a camera being opened again is not waited for."""
        with self._lock:
            self._closed = True
        if self._photographer is not None:
            self._photographer.close()
        with self._lock:
            self._subscribers = []

    # -- inside the lock ------------------------------------------------------------------

    def _submit(
        self, action: Mapping[str, Any], *, reading: CameraReading | None = None
    ) -> Outcome:
        game = self._game
        if game is None:
            return self._reject("there is no game: start a new game first")
        if not isinstance(action, Mapping):
            return self._reject(f"an action is a JSON object, not {shown(action)}")
        action = dict(action)
        try:
            encode(action)
            record = game.check(action)
        except (TypeError, ValueError) as err:
            return self._reject(str(err))
        if self.journal is not None:
            assert self._game_id is not None
            try:
                # As the record keeps it: a key the action does not need (any size, in a
                # body up to 64 KiB) is no part of the game, in the journal or its download.
                self.journal.append(self._game_id, len(game.actions) + 1, record)
            except JournalError as err:
                return self._journal_failed(err)
        phase_before, accepted_before = game.phase, list(game.actions)
        on_glass_before = self._under_glass()
        try:
            announcements = game.apply(action)
        except Exception as err:
            # check() passed, so this is a bug in the engine: undo everything and say so.
            logger.exception("the engine failed to apply %s after accepting it", action)
            self._take_back(action, accepted_before, f"the engine failed on it: {err}")
            self._set_fault("engine", f"internal error applying {action}: {err}")
            self._publish()
            self._emit("state")
            return Outcome(False, f"internal error: {err}; nothing was changed", self.state())
        self._set_fault("journal", None)
        if self._left_out is not None and len(game.actions) >= self._left_out.until:
            self._told_left_out(None)
        self._after_action(action, phase_before, reading, on_glass_before)
        self._mark_finished(phase_before)
        self._publish()
        self._emit("state", announcements)
        if reading is not None and self._reading is not None:
            # Kept for a restart once the phones have the counts: writing the picture to a
            # Pi's card is no part of the reveal (a power cut before it loses the picture
            # alone; the reveal is in the journal).
            self._keep_reveal(self._reading)
        return Outcome(True, None, self.state(), announcements)

    def _after_action(
        self, action: dict[str, Any], phase_before: str, reading: CameraReading | None,
        on_glass_before: dict[str, int],
    ) -> None:
        """Keep, clear or start the reading after an accepted action (``on_glass_before``:
        the dice each player had on the glass before it)."""
        assert self._game is not None
        phase, kind = self._game.phase, action.get("action")
        round_now = self._game.round
        if phase != "reveal":
            self._capture_token = None  # a picture under way no longer applies
        if reading is not None:
            # The camera's (or the confirmed) reading became the reveal.
            self._reading = replace(reading, applied=True)
            self._typed_rounds.pop(self._game.settled_round or 0, None)
        elif phase == "reveal" and self._undone_into_reveal():
            # At a reveal of a round whose end an undo took back (the undo itself, the call
            # made again, a player leaving there or its undo): no picture, the next round's
            # dice may be under the cups; the round's reading, of the dice as they were,
            # waits to be confirmed again, or the players type the dice in (or ask for a
            # picture once the cups show these dice again).
            kept = self._reading or self._last_reveal
            self._reading = None if kept is None else self._waiting_again(kept)
        elif kind in ("leave", "undo") and phase == phase_before == "reveal":
            # A player left while the cups are up, or such a leave was taken back: the dice
            # on the glass have changed, so a picture under way or a reading waiting no
            # longer holds (at a called pass too, whose reading reads every die there). Look
            # again, once the call's cups are up (before, at once: a leave in the cups' wait
            # had the camera look before a mis-pressed call could be taken back). A player
            # knocked out before takes no die from the glass.
            if self._under_glass() != on_glass_before:
                self._reading = None
                if self.camera is not None:
                    self._start_capture(
                        after_s=max(0.0, self._cups_up_at - time.monotonic()))
        elif kind == "undo":
            if phase != "reveal" and phase_before == "reveal":
                # The call was taken back: nothing may be shown (kept for the call made
                # again, where the round was reopened: no new picture may be taken there).
                self._last_reveal = self._reading or self._last_reveal
                self._reading = None
        elif phase == "reveal" and phase_before != "reveal":
            # A call: the cups come up, the camera takes its one picture.
            self._reading = None
            self._cups_up_at = time.monotonic() + self.cups_up_s
            if self.camera is not None:
                self._start_capture(after_s=self.cups_up_s)
            elif self._reopen is not None:
                self._open_camera_again()
        elif kind == "reveal" or kind == "leave" and phase_before == "reveal":
            # The dice were typed in: a reading the players passed over is shown no more. Or
            # a player left, and with them the reveal (the game won, a called pass void): a
            # reading that never counted is shown no more either (kept for an undo, as the
            # one before it where there is none: a reopened round's, a player left before).
            passed_over = self._reading is not None
            self._last_reveal = self._reading or self._last_reveal
            self._reading = None
            if kind == "reveal":
                self._typed_rounds[self._game.settled_round or 0] = passed_over
        elif kind in ("bid", "pass"):
            self._reading = None  # the next round's first say: the last reveal is over
        if self._reading is not None and self._reading.round == 0:
            self._reading = replace(self._reading, round=round_now, began=self._game.began)
        if phase_before == "reveal" and phase != "reveal":
            if kind != "undo" and self._reading is not None:
                self._last_reveal = self._reading  # for an undo back into this reveal
            if self.camera is not None:
                self._set_fault("camera", None)  # this reveal's camera fault is over

    def _waiting_again(self, kept: CameraReading) -> CameraReading | None:
        """A reading of this round's dice, taken before an undo took the round's end back, as
        it waits to be confirmed again for the call that stands now; None if it is another
        round's, or the dice under the glass have changed since (a player left)."""
        assert self._game is not None
        game = self._game
        if (kept.round, kept.began) != (game.round, game.began) \
                or kept.expected != self._under_glass():
            return None
        must_show = game.expected_dice()
        return replace(kept, applied=False, confirmed=False,
                       must_show=None if must_show == kept.expected else must_show)

    def _under_glass(self) -> dict[str, int]:
        """The dice each player in the game has on the glass, every one of which the camera
        sees (even when the call is settled on the passer's alone)."""
        assert self._game is not None
        game = self._game
        return {player: game.dice(player) for player in game.players if game.dice(player)}

    def _take_back(
        self, action: dict[str, Any], accepted_before: list[dict[str, Any]], reason: str
    ) -> None:
        """Rebuild the game without ``action`` and move its journal row aside."""
        assert self._game is not None
        game = Game.from_header(self._game.header)
        for accepted in accepted_before:
            game.apply(accepted)
        self._game = game
        if self.journal is not None and self._game_id is not None:
            seq = len(accepted_before) + 1
            body = encode(action)
            try:
                self.journal.drop(Row(self._game_id, seq, body, checksum(self._game_id, seq, body)),
                                  reason)
            except JournalError as err:
                logger.error("journal: %s", err)

    def _mark_finished(self, phase_before: str) -> None:
        """Keep the journal's finished flag in step (a cache: resuming recomputes it)."""
        assert self._game is not None
        phase = self._game.phase
        if (
            self.journal is None
            or self._game_id is None
            or (phase == "over") == (phase_before == "over")
        ):
            return
        winner = self._game.state().get("winner") if phase == "over" else None
        try:
            self.journal.set_finished(self._game_id, winner)
        except JournalError as err:
            logger.warning("journal: %s", err)

    def _journal_failed(self, err: JournalError) -> Outcome:
        assert self.journal is not None
        said = self._faults.get("journal")
        if self.journal.read_only and said is not None:
            # Opened to be read only at the start: its fault says why and what to do.
            logger.error("cannot save the game: %s", err)
            self._emit("rejected")
            return Outcome(False, f"cannot save the game: {said}", self.state())
        if isinstance(err, JournalGone):
            message = f"cannot save the game: {err}; nothing was changed"
        else:
            message = f"cannot save the game: {err}: {what_to_do(err, self.journal.path.parent)}"
            message += ("; the action was not taken, but a card failing as it writes may keep"
                        " it: started again, the table shows whether it did"
                        if sqlite_reason(err).startswith("SQLITE_IOERR")
                        else "; nothing was changed")
        logger.error("%s", message)
        self._set_fault("journal", message)
        self._publish()
        self._emit("state")
        self._emit("rejected")
        return Outcome(False, message, self.state())

    def _reject(self, message: str, about: dict[str, str] | None = None) -> Outcome:
        self._emit("rejected")
        return Outcome(False, message, self.state(), about=about)

    def _set_fault(self, name: str, message: str | None) -> bool:
        """Set or clear one fault; True when it changed."""
        if self._faults.get(name) == message:
            return False
        if message is None:
            del self._faults[name]
        else:
            self._faults[name] = message
        return True

    def _publish(self) -> None:
        """Build the new immutable snapshot that ``state()`` serves."""
        if self._game is None:
            state: dict[str, Any] = copy.deepcopy(_NO_GAME)
        else:
            state = self._game.state()
        self._version += 1
        state["game_id"] = self._game_id
        state["version"] = self._version
        state["run"] = self._run
        state["moves"] = self._moves()
        state["display"] = dict(self._display)
        state["faults"] = dict(self._faults)
        state["fault"] = next(iter(self._faults.values()), None)
        state["camera"] = self.camera is not None and "camera" not in self._faults
        state["capturing"] = self._capture_token is not None
        state["undone_into_reveal"] = self._undone_into_reveal()
        state["undo_takes_back"] = self._game.undoable() if self._game is not None else None
        # Whether the last reveal's dice were typed in by hand, not read by the camera (the
        # page said so of every reveal once its picture went, at the next round's first bid).
        # An undo of that reveal brings back the round before's result.
        # And whether they took the place of the camera's reading (not said after a restart).
        # (A call made void, the passer gone, shows no dice: no reveal typed. Session 92.)
        settled = self._game.settled_round if self._game is not None else None
        state["reveal_typed"] = settled in self._typed_rounds and not (
            state.get("last_result") or {}).get("void", False)
        state["reveal_typed_over_reading"] = state["reveal_typed"] and self._typed_rounds.get(
            settled or 0, False)
        if self._reading is not None:
            state["reading"] = self._reading.to_state()
        self._snapshot = state

    def _emit(self, kind: str, announcements: list[Announcement] | None = None) -> None:
        """Tell every subscriber; one that fails is logged and the others still hear."""
        # One copy per event, shared by its subscribers: none of them can spoil the snapshot.
        event = TableEvent(kind, self.state(), list(announcements or []))
        for callback in self._subscribers:
            try:
                callback(event)
            except Exception:
                logger.exception("a table subscriber failed on a %r event", kind)

    # -- the camera at a reveal -----------------------------------------------------------

    def _picture_due(self) -> bool:
        """Whether the reveal's picture is due, a camera at hand: the game at a reveal whose
        call (or a player leaving while the cups were up) was the last action. Not after an
        undo back into the reveal: its dice may have been rolled again since, under the cups."""
        game = self._game
        if game is None or game.phase != "reveal" or self.camera is None:
            return False
        return not self._undone_into_reveal()

    def _undone_into_reveal(self) -> bool:
        """Whether the game is at a reveal of a round whose end an undo took back (a reveal,
        a call void once the passer left, the game won; whatever came since: a player
        leaving, its undo, the call itself taken back and made again): its dice may have
        been rolled again since, for the next round, under the cups."""
        game = self._game
        return game is not None and game.phase == "reveal" and game.round in game.reopened

    def _open_camera_again(self) -> None:
        """Open the camera the table has not got, on a thread of its own (the call is not kept
        waiting; one attempt at a time, which serves every call made while it runs)."""
        if self._closed or (self._opening is not None and self._opening.is_alive()):
            return
        self._opening = threading.Thread(target=self._opened_again, name="camera-open",
                                         daemon=True)
        self._opening.start()

    def _opened_again(self) -> None:
        """Keep the camera opened again and take the call's picture once the cups are up, if
        it is still due; or show why there is still no camera."""
        assert self._reopen is not None
        try:
            camera, why = self._reopen()
        except Exception:  # noqa: BLE001 (the fault shown stays: the table goes on)
            logger.exception("the camera could not be opened again")
            camera, why = None, None
        with self._lock:
            if self._closed:
                return  # what ``reopen`` opened is its own to close (``dudo serve``'s)
            if camera is None:
                if why is not None and self._set_fault("camera", why):
                    self._publish()
                    self._emit("state")
                return
            logger.info("the camera opened at this call: the reveals are read by it again")
            self.camera = camera
            self._photographer = RevealCamera(camera, self._reader, self._capture_timeout_s)
            self._set_fault("camera", None)
            if self._picture_due():
                self._start_capture(after_s=max(0.0, self._cups_up_at - time.monotonic()))
            self._publish()
            self._emit("state")

    def _start_capture(self, after_s: float = 0.0) -> None:
        """Ask for the one picture of this reveal, ``after_s`` seconds from now (taken and
        read on the reveal worker)."""
        assert self._game is not None and self._photographer is not None
        self._capture_serial += 1
        token = (self._game_id, len(self._game.actions), self._capture_serial)
        self._capture_token = token
        game = self._game
        # Each player's own seat: after a player left, the others play again on theirs, and
        # the calibration's seat zones are the glass's places, not the players' order.
        seats = dict(zip(game.players, game.seats, strict=True))
        # Whose die is whose is told from all of them, even when the call is settled on the
        # passer's alone.
        under_glass = self._under_glass()
        if not self._photographer.take(
            token, under_glass, seats,
            started=self._capture_started, ended=self._capture_ended, done=self._capture_done,
            after_s=after_s, held_by_others=game.dice_held_by_others(),
        ):
            self._capture_token = None  # the table is closing

    def _capture_started(self, token: Token) -> bool:
        """Whether the picture is still wanted; if so the light goes on (``capture_start``)."""
        with self._lock:
            if self._capture_token != token:
                return False  # taken back before the picture: the camera does not look
            # Under the lock, so subscribers hear events one at a time, in order.
            self._emit("capture_start")
            return True

    def _capture_ended(self) -> None:
        with self._lock:
            self._emit("capture_end")

    def _capture_done(self, token: Token, reading: CameraReading | None, problem: str) -> None:
        """Apply the reading, or leave it (or the camera's fault) for the players."""
        with self._lock:
            game = self._game
            if self._capture_token != token or game is None:
                return  # a newer picture was asked for, or the call was taken back
            self._capture_token = None
            waiting: CameraReading | None = None
            if (self._game_id, len(game.actions)) != token[:2]:
                pass  # the game moved on while the picture was read: it no longer applies
            elif reading is None:
                self._set_fault("camera", problem)
            else:
                self._set_fault("camera", None)
                must_show = game.expected_dice()
                reading = replace(
                    reading,
                    round=game.round,
                    began=game.began,
                    must_show=None if must_show == reading.expected else must_show,
                    picture=token[2],
                )
                if reading.matched:
                    outcome = self._submit(reading.reveal_action(), reading=reading)
                    if outcome.ok:
                        return
                    reading = replace(
                        reading, disagreements=(*reading.disagreements, outcome.error or "")
                    )
                self._reading = waiting = reading
            self._publish()
            self._emit("state")
            if waiting is not None:
                self._keep_reveal(waiting)  # a restart shows it again (once the phones have it)

    # -- resuming after a restart ---------------------------------------------------------

    def _resume(self, journal: Journal) -> None:
        """Take up the journal's most recent game (see :mod:`companion.resume`)."""
        resumed = resume_latest(journal)
        if resumed.fault is not None:
            self._set_fault("resume", resumed.fault)
        self._told_left_out(resumed.left_out)
        if resumed.game is not None:
            self._game, self._game_id = resumed.game, resumed.game_id
            self._games_started = resumed.game_id or 0
            self._reading, self._last_reveal, by_camera = self._kept_reveal(journal)
            # The last reveal was typed in by hand unless the camera's reading the journal
            # kept is of its round, became it and still stands (before, the page lost "Typed
            # in by hand" at a restart; and where an earlier round's reading stood). The
            # journal keeps the latest reading alone: where a later round's call was read
            # and taken back, the settled round's is not known, and not said.
            settled, kept = self._game.settled_round, self._last_reveal
            if settled is not None and (kept is None or kept.round < settled or (
                    kept.round == settled and not by_camera)):
                self._typed_rounds = {settled: False}
        self._publish()

    def _keep_reveal(self, reading: CameraReading) -> None:
        """Keep the camera's last reading and its picture in the journal, applied or waiting
        for the players, so that after a restart they are shown as before it (an applied one
        until the next round's first say, as ever; and again by an undo back into the
        reveal)."""
        if self.journal is None or self._game_id is None or self._game is None:
            return
        kept = KeptReveal(self._game_id, len(self._game.actions), encode(reading.to_saved()),
                          reading.jpeg)
        try:
            self.journal.keep_reveal(kept)
        except JournalError as err:  # the reveal itself is saved: only its picture is lost
            logger.warning("the reveal's picture is not kept for a restart: %s", err)

    def _told_left_out(self, left_out: LeftOut | None) -> None:
        """Tell the players of the actions a resume set aside (None: no more)."""
        self._left_out = left_out
        self._set_fault("left_out", None if left_out is None else left_out.said)

    def _kept_reveal(
        self, journal: Journal
    ) -> tuple[CameraReading | None, CameraReading | None, bool]:
        """The reading the journal kept of the resumed game's last reveal, as it was before
        the restart: what is shown (``_reading``), what an undo back into that reveal brings
        back (``_last_reveal``), and whether it became the reveal and still stands."""
        assert self._game is not None
        try:
            kept = journal.kept_reveal()
            if kept is None or kept.game_id != self._game_id or kept.moves > len(
                    self._game.actions):
                return None, None, False
            reading = CameraReading.from_saved(json.loads(kept.reading), kept.picture)
            reading.to_state()  # every value as the page shows it: a damaged one raises here
        except Exception as err:  # noqa: BLE001 (a damaged row must not stop the table)
            logger.warning("the last reveal's picture cannot be shown again: %s", err)
            return None, None, False
        if not reading.applied:
            # It waited for the players at its reveal: it waits again there (a retake's, or
            # a reopened round's), if it is still that round's and the dice under the glass
            # are still those; elsewhere it was passed over, or its call taken back.
            at_it = self._game.phase == "reveal"
            return (self._waiting_again(reading) if at_it else None), reading, False
        since = self._game.actions[kept.moves:]
        standing, stands = 0, True  # how many of the actions since it stand; whether it does
        for action in since:
            if action.get("action") != "undo":
                standing += 1
            elif standing:
                standing -= 1
            else:
                stands = False  # the reveal itself taken back
                break
        else:
            if all(a.get("action") in ("leave", "palifico", "undo") for a in since):
                # Still shown, as before the restart: until the next round's first say (even
                # if an undo took that back) or an undo back into the reveal.
                return reading, reading, True
        if self._undone_into_reveal():
            # The reveal was taken back: its reading waits to be confirmed again.
            return self._waiting_again(reading), reading, stands
        return None, reading, stands
