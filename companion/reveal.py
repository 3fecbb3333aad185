"""The reveal as the camera saw it: one frame read, compared with the dice each player must show.

After a call the table takes ONE frame and hands it to a :class:`VisionReader`, which reads the
dice (``vision.reader.read_dice``), tells whose die each is (``vision.owners.assign_owners``)
and returns a :class:`CameraReading`, whose annotated picture (``vision.annotate.annotate``)
is drawn once the table has told the players what it read (:class:`Picture`). The reading
either agrees with the expected dice and is confident (:attr:`CameraReading.matched`: the
table applies it at once) or it waits on the page for the players to confirm it, correct a
face, or take the picture again.

Nothing here is imported from ``vision`` or ``cv2`` at module level: a table with no camera
never loads OpenCV.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from companion.errors import shown

if TYPE_CHECKING:
    import numpy as np

    from vision.calibration import Calibration
    from vision.reading import Reading

logger = logging.getLogger(__name__)
T = TypeVar("T")

JPEG_QUALITY = 85
# A reveal's picture takes well under a second; past this the camera is taken to be stuck.
CAPTURE_TIMEOUT_S = 8.0

# Which picture a reading answers: (game id, actions accepted when it was asked, serial).
Token = tuple[int | None, int, int]


class CameraStuck(RuntimeError):
    """The camera did not give the reveal's picture (or start) in time; ``thread`` is the
    one still waiting on it."""

    def __init__(self, message: str, thread: threading.Thread | None = None) -> None:
        super().__init__(message)
        self.thread = thread


def within(work: Callable[[], T], seconds: float, late: str) -> T:
    """``work()`` on a thread of its own: its result, or its error; CameraStuck ("``late``
    within N s") if it has not ended within ``seconds``. A camera that stops answering waits
    for ever, and the table must go on without it."""
    result: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as err:  # handed to the caller below
            failure.append(err)

    thread = threading.Thread(target=run, name="camera", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise CameraStuck(f"{late} within {seconds:g} s", thread)
    if failure:
        raise failure[0]
    return result[0]


@dataclass(frozen=True)
class SeenDie:
    """One die of a reading: its place in the reading (``index``), its face and where it lies."""

    index: int
    face: int
    confidence: float
    x: int
    y: int
    size: int
    colour: str
    owner: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "index": self.index,
            "face": self.face,
            "confidence": round(self.confidence, 3),
            "x": self.x,
            "y": self.y,
            "size": self.size,
            "colour": self.colour,
            "owner": self.owner,
        }


class Picture:
    """A reveal's annotated picture as a JPEG, drawn once, when first asked for.

    The reader gives the reading with its picture still to draw, so the table tells the
    players the counts first: drawing and encoding a camera's full frame takes 20 ms here,
    60-100 ms on a Pi. The one frame is let go once drawn.
    """

    def __init__(self, jpeg: bytes = b"", draw: Callable[[], bytes] | None = None) -> None:
        self._jpeg = jpeg
        self._draw = draw
        self._lock = threading.Lock()

    def jpeg(self) -> bytes:
        """The JPEG's bytes (empty: no picture, or one that could not be drawn), drawn now
        if not yet."""
        with self._lock:
            if self._draw is not None:
                draw, self._draw = self._draw, None
                try:
                    self._jpeg = draw()
                except Exception:  # the reading stands: the players go without its picture
                    logger.exception("the reveal's picture could not be drawn")
            return self._jpeg


@dataclass(frozen=True)
class CameraReading:
    """What the camera read at one reveal, against the dice each player must show.

    ``expected``: the dice each player has under the glass, all of which the camera sees.
    ``must_show``: when a call is settled on some players' dice only (a called pass: the
    passer's), those players' dice; None: everyone's.
    ``doubt_threshold``: a die below this confidence is doubtful. ``disagreements``: what
    the owners stage reported (counts per player that differ), and why every die of the
    picture is doubted (smeared, dice too small), in words. ``confirmed``: the players
    confirmed it on the page; ``applied``: it became the round's reveal.
    ``drawn``: its annotated picture (:attr:`jpeg`). ``picture``: which picture of the
    table it is (each picture taken has a new number), so
    that a correction made on one picture is never applied to another. ``began``: where the
    round it was taken in began (``Game.began``; -2: not known), so that a reading of a round
    played before an undo took that round's start back is never offered for the dice of the
    round played again.
    """

    dice: tuple[SeenDie, ...]
    expected: Mapping[str, int]
    disagreements: tuple[str, ...] = ()
    doubt_threshold: float = 0.8
    drawn: Picture = field(default_factory=Picture, compare=False)
    round: int = 0
    ms: float = 0.0
    confirmed: bool = False
    applied: bool = False
    corrections: Mapping[int, int] = field(default_factory=dict)
    must_show: Mapping[str, int] | None = None
    picture: int = 0
    began: int = -2

    @property
    def jpeg(self) -> bytes:
        """The annotated picture as a JPEG (empty: none), drawn at the first ask."""
        return self.drawn.jpeg()

    @property
    def doubtful(self) -> tuple[SeenDie, ...]:
        """The dice read with too little confidence to apply without a look."""
        return tuple(d for d in self.dice if d.confidence < self.doubt_threshold)

    @property
    def problems(self) -> list[str]:
        """Every reason not to apply this reading at once, in words (empty: it matched)."""
        problems = list(self.disagreements)
        must_show = sum(self.expected.values())
        if len(self.dice) != must_show:
            problems.append(f"the camera saw {len(self.dice)} dice, {must_show} must show")
        elif self.must_show is not None and self.by_player() is None:
            names = " and ".join(self.must_show)
            problems.append(
                f"the camera cannot tell {names}'s dice from the others': enter them by hand"
            )
        doubtful = self.doubtful
        if len(doubtful) == len(self.dice) > 2:  # a smeared or dark picture: one line, not many
            problems.append(f"all {len(doubtful)} dice are doubtful (marked ?)")
        else:
            problems += [
                f"die {d.index + 1} may not be a {d.face} (the camera is only"
                f" {d.confidence:.0%} sure)"
                for d in doubtful
            ]
        return problems

    @property
    def matched(self) -> bool:
        """Whether the reading agrees with the expected dice and every die is confident."""
        return not self.problems

    def faces(self) -> list[int]:
        """Each die's face, corrections applied, in index order."""
        return [self.corrections.get(d.index, d.face) for d in self.dice]

    def by_player(self) -> dict[str, list[int]] | None:
        """Faces per player when every die has an owner and each player's count agrees."""
        if not self.dice or any(d.owner is None for d in self.dice):
            return None
        faces = self.faces()
        dice: dict[str, list[int]] = {player: [] for player in self.expected}
        for die in self.dice:
            if die.owner not in dice:
                return None
            dice[die.owner].append(faces[die.index])
        if any(len(dice[p]) != n for p, n in self.expected.items()):
            return None
        return dice

    def reveal_action(self) -> dict[str, object]:
        """The record's ``reveal`` action for this reading: per player when owners are known,
        with the dice the players corrected (``corrected``: each one's owner where known, the
        face the camera read and the one it shows), so that the game's history says them."""
        dice = self.by_player()
        action: dict[str, object] = (
            {"action": "reveal", "dice": dice} if dice is not None
            else {"action": "reveal", "faces": self.faces()}
        )
        corrected = [
            ({"player": die.owner} if die.owner is not None else {})
            | {"read": die.face, "face": self.corrections[die.index]}
            for die in self.dice
            if self.corrections.get(die.index, die.face) != die.face
        ]
        if corrected:
            action["corrected"] = corrected
        return action

    def corrected(self, corrections: Mapping[int, int]) -> CameraReading:
        """This reading with faces corrected by die index; ValueError naming a bad index or face."""
        # A die's index counts from 0; the picture and the messages number the dice from 1.
        last = len(self.dice) - 1
        for index, face in corrections.items():
            if type(index) is not int or not 0 <= index <= last:
                raise ValueError(
                    f"correction of die index {shown(index)}: " + (
                        f"the reading's dice have index 0-{last} (numbered 1-{last + 1} on the"
                        " picture)" if self.dice else "the reading has no dice"))
            if type(face) is not int or not 1 <= face <= 6:
                raise ValueError(f"correction of die index {index} (die {index + 1} on the"
                                 f" picture) to face {shown(face)}: faces are 1-6")
        # A die set back to the face the camera read is no longer corrected (an undo, then the
        # same reading confirmed as the camera read it).
        merged = {**self.corrections, **corrections}
        return replace(self, corrections={
            index: face for index, face in merged.items() if face != self.dice[index].face})

    def to_saved(self) -> dict[str, Any]:
        """The reading as the journal keeps it (all but its picture): see :meth:`from_saved`."""
        return {
            "dice": [d.to_json() for d in self.dice],
            "expected": dict(self.expected),
            "disagreements": list(self.disagreements),
            "doubt_threshold": self.doubt_threshold,
            "round": self.round,
            "ms": self.ms,
            "confirmed": self.confirmed,
            "corrections": [[i, f] for i, f in self.corrections.items()],
            "must_show": None if self.must_show is None else dict(self.must_show),
            "picture": self.picture,
            "began": self.began,
            "applied": self.applied,
        }

    @classmethod
    def from_saved(cls, saved: Mapping[str, Any], jpeg: bytes) -> CameraReading:
        """The reading :meth:`to_saved` wrote, with its picture; ValueError, KeyError or
        TypeError where it was not written so."""
        return cls(
            dice=tuple(SeenDie(**d) for d in saved["dice"]),
            expected=dict(saved["expected"]),
            disagreements=tuple(saved["disagreements"]),
            doubt_threshold=float(saved["doubt_threshold"]),
            drawn=Picture(jpeg),
            round=int(saved["round"]),
            ms=float(saved["ms"]),
            confirmed=bool(saved["confirmed"]),
            applied=bool(saved.get("applied", True)),  # before session 64 only applied ones
            corrections={int(i): int(f) for i, f in saved["corrections"]},
            must_show=None if saved["must_show"] is None else dict(saved["must_show"]),
            picture=int(saved["picture"]),
            began=int(saved.get("began", -2)),
        )

    def to_state(self) -> dict[str, object]:
        """The reading as the state JSON carries it (public once the cups are lifted)."""
        faces = self.faces()
        counts = {str(face): 0 for face in range(1, 7)}
        for face in faces:
            counts[str(face)] += 1
        return {
            "round": self.round,
            "picture": self.picture,
            "total": len(self.dice),
            "counts": counts,
            "dice": [{**d.to_json(), "face": faces[d.index]} for d in self.dice],
            "doubtful": [d.index for d in self.doubtful],
            "expected": dict(self.expected),
            "must_show": None if self.must_show is None else dict(self.must_show),
            "matched": self.matched,
            "disagreements": self.problems,
            "confirmed": self.confirmed,
            "applied": self.applied,
            "corrections": {str(i): f for i, f in self.corrections.items()},
            "ms": round(self.ms, 1),
        }


class Reader(Protocol):
    """What the table asks to read a frame: the dice, whose they are, the annotated picture."""

    def read(
        self,
        frame: Any,
        expected: Mapping[str, int],
        seats: Mapping[str, int] | None = None,
        held_by_others: Sequence[str] = (),
    ) -> CameraReading:
        """Read ``frame``; ``expected`` dice per player, ``seats`` each player's seat from 1,
        ``held_by_others`` the players a die of whose another player holds (their colour no
        longer tells whose die it is: ``Game.dice_held_by_others``)."""
        ...


class VisionReader:
    """The real reader: ``vision``'s stages chained for the table.

    ``config_path``: the project TOML (its ``[vision]`` table; None: defaults).
    ``calibration``: the seat zones and colours telling whose die is whose, or a function
    returning them at each reading (the simulated camera's calibration follows its players).
    ``seat_of``: a function giving each player's seat, when the camera seats players in
    its own order (the simulated camera); else the table's seat order is used.
    ``die_size``: the size of the dice in the camera's pictures, in place of the config's
    (the simulated camera's own: the config's is the real camera's). ``view``: where the
    camera looks from, ``below`` the glass (a face counts 7 - its pips) or ``above``.
    """

    def __init__(
        self,
        config_path: str | Path | None = None,
        calibration: Calibration | Callable[[], Calibration] | None = None,
        seat_of: Callable[[], Mapping[str, int]] | None = None,
        die_size: float | None = None,
        view: str = "below",
    ) -> None:
        from vision.config import calibrated_size, load_config

        self.view = view
        self.config = load_config(config_path)
        # The picture size the config's die size and marks were measured at (its [camera]).
        self._calibrated = calibrated_size(config_path)
        # Whether the calibration's camera size is that of the pictures its seat zones are
        # pixels of: not where it was read from a config naming no size (its zones are in
        # its pictures' own size, whatever it is, as `dudo scan` takes them); a calibration
        # given with no config, or a camera's own (the simulated one's), is of its size.
        self._zones_sized = (config_path is None or die_size is not None
                             or self._calibrated is not None)
        if die_size is not None:
            self.config = replace(self.config, die_size=die_size, marks=())
            self._calibrated = None
        self._calibration = calibration
        self._seat_of = seat_of

    def load(self) -> None:
        """Load the models now (they are otherwise loaded at the first reading):
        FileNotFoundError or ValueError for a model missing or made for another part."""
        from vision.nets import load_nets

        load_nets(self.config)

    def calibration(self) -> Calibration | None:
        """The calibration to use for this reading."""
        if callable(self._calibration):
            return self._calibration()
        return self._calibration

    def read_dice(self, frame: np.ndarray) -> Reading:
        """The dice in the frame, seen from ``view`` (``vision.reader.read_dice``); a
        frame of another size than the calibration's is read with its die size and marks
        scaled to it, as ``dudo scan`` does (the seat zones are not:
        ``vision.owners.size_mismatch``)."""
        from vision.reader import read_dice

        config = self.config
        if self._calibrated is not None:
            config = config.at_size(self._calibrated, (frame.shape[1], frame.shape[0]))
        return read_dice(frame, config, view=self.view)

    def read(
        self,
        frame: np.ndarray,
        expected: Mapping[str, int],
        seats: Mapping[str, int] | None = None,
        held_by_others: Sequence[str] = (),
    ) -> CameraReading:
        """Read one frame taken from the camera's ``view``; raises vision's UnreadableImage.

        A die of the colour of a player in ``held_by_others`` may lie in another player's
        cup: their colour is left out of the calibration's, so their dice are told by seat
        zone where there are zones (else they are nobody's, and said so)."""
        import cv2

        from vision.annotate import annotate
        from vision.owners import assign_owners, size_mismatch

        reading = self.read_dice(frame)
        owners: list[str | None] = [None] * len(reading.dice)
        colours = [d.colour for d in reading.dice]
        disagreements: tuple[str, ...] = ()
        # The seat zones drawn on the picture, each with the name of the player taken to sit
        # there (not zones calibrated on pictures of another size: they lie elsewhere).
        zones, names = None, {}
        calibration = self.calibration()
        if calibration is not None:
            if held_by_others:
                held = {p.casefold() for p in held_by_others}  # as [colours] is read
                calibration = replace(calibration, colours={
                    p: c for p, c in calibration.colours.items() if p.casefold() not in held})
            if self._seat_of is not None:
                seats = self._seat_of()
            ownership = assign_owners(reading, calibration, dict(expected), seat_of=seats)
            owners = ownership.owners(reading)
            colours = [ownership.colour(d) for d in reading.dice]
            disagreements = tuple(ownership.disagreements)
            mismatch = size_mismatch(frame.shape[1], frame.shape[0], calibration)
            if self._zones_sized:
                disagreements += mismatch
            if ownership.seats and not (self._zones_sized and mismatch):
                zones = calibration.seats
                names = ownership.seat_names()
        disagreements += reading.pleas
        dice = tuple(
            SeenDie(i, d.face, d.confidence, d.x, d.y, d.size, colours[i], owners[i])
            for i, d in enumerate(reading.dice)
        )

        def draw() -> bytes:
            # The page lists the dice by number.
            picture = annotate(frame, reading, numbered=True, seats=zones, names=names)
            ok, encoded = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
            return encoded.tobytes() if ok else b""

        return CameraReading(
            dice=dice,
            expected=dict(expected),
            disagreements=disagreements,
            doubt_threshold=reading.doubt_threshold,
            drawn=Picture(draw=draw),
            ms=float(reading.ms.get("total", 0.0)),
        )


class RevealCamera:
    """The camera at a reveal: the one picture taken and read on a worker thread.

    Reading a frame may take a second on a Pi; doing it here keeps the table answering. For
    each :meth:`take` the worker waits the seconds asked (the cups come up), calls
    ``started(token)`` (the table says whether the picture is still wanted, and switches
    the light on), takes the frame, calls ``ended()``
    (the light goes off), reads it and calls ``done(token, reading, problem)``: a reading,
    or None and why the players must enter the dice by hand. A take asked for while an
    earlier one still waits for its cups stands for it: the earlier one is dropped at once,
    unphotographed (a call undone and made again is photographed once its own cups are up,
    not once every call before it has waited for its own).
    """

    def __init__(
        self,
        camera: Any,
        reader: Reader | None = None,
        capture_timeout_s: float = CAPTURE_TIMEOUT_S,
    ) -> None:
        self.camera = camera
        self._reader = reader
        self.capture_timeout_s = capture_timeout_s
        self._stuck: threading.Thread | None = None  # a capture that never came back
        self._pending = 0
        self._idle = threading.Condition()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reveal")
        self._closing = threading.Event()
        self._newest = 0  # the number of the last take asked for
        self._asked = threading.Condition()  # told of each take asked for, and of closing

    def reader(self) -> Reader:
        """The reader (the vision package's, loaded at the first reveal, when none was given)."""
        if self._reader is None:
            self._reader = VisionReader()
        return self._reader

    def take(
        self,
        token: Token,
        expected: Mapping[str, int],
        seats: Mapping[str, int],
        *,
        started: Callable[[Token], bool],
        ended: Callable[[], None],
        done: Callable[[Token, CameraReading | None, str], None],
        after_s: float = 0.0,
        held_by_others: Sequence[str] = (),
    ) -> bool:
        """Queue one picture, taken ``after_s`` seconds from now; False when the worker is
        closed. (``held_by_others``: as ``Reader.read``'s.)"""
        with self._idle:
            self._pending += 1
        with self._asked:
            self._newest += 1
            number = self._newest
            self._asked.notify_all()
        try:
            self._worker.submit(
                self._work, number, token, dict(expected), dict(seats), started, ended, done,
                time.monotonic() + after_s, tuple(held_by_others),
            )
        except RuntimeError:
            self._finished()
            return False
        return True

    def _work(
        self,
        number: int,
        token: Token,
        expected: dict[str, int],
        seats: dict[str, int],
        started: Callable[[Token], bool],
        ended: Callable[[], None],
        done: Callable[[Token, CameraReading | None, str], None],
        cups_up_at: float,
        held_by_others: tuple[str, ...],
    ) -> None:
        try:
            if not self._cups_up(number, cups_up_at) or not started(token):
                return
            reading, problem = self._take_and_read(expected, seats, ended, held_by_others)
            done(token, reading, problem)
            if reading is not None:
                reading.drawn.jpeg()  # drawn now, if the table has not (its frame let go)
        except Exception:
            logger.exception("the reveal's picture failed")
            try:
                done(token, None, "the reveal's picture failed: enter the dice by hand")
            except Exception:
                logger.exception("the table could not take the failed picture back")
        finally:
            self._finished()

    def _cups_up(self, number: int, cups_up_at: float) -> bool:
        """Wait until ``cups_up_at`` (``time.monotonic()``); False, at once, when a newer
        take was asked for meanwhile or the worker is closing."""
        with self._asked:
            while number == self._newest and not self._closing.is_set():
                left = cups_up_at - time.monotonic()
                if left <= 0:
                    return True
                self._asked.wait(left)
        return False

    def _take_and_read(
        self, expected: dict[str, int], seats: dict[str, int], ended: Callable[[], None],
        held_by_others: tuple[str, ...],
    ) -> tuple[CameraReading | None, str]:
        try:
            frame = self._capture()
        except Exception as err:
            logger.exception("the camera failed to take the reveal's picture")
            return None, f"the camera failed ({err}): enter the dice by hand"
        finally:
            ended()
        try:
            reading = self.reader().read(frame, expected, seats, held_by_others)
        except Exception as err:
            logger.exception("the reader failed on the reveal's picture")
            return None, f"the picture could not be read ({err}): enter the dice by hand"
        logger.info("reveal read in %.0f ms: %s", reading.ms, reading.problems or "matched")
        return reading, ""

    def _capture(self) -> Any:
        """One frame from the camera, or CameraStuck when it does not come in time.

        A camera can stop sending frames (a loose ribbon cable) and its capture then waits
        for ever. The capture runs on a thread of its own so that the reveal goes on to the
        players' hands; while that capture has not come back, the camera is not asked again.
        """
        if self.stuck:
            raise CameraStuck("it has not answered since an earlier picture")
        try:
            return within(self.camera.capture, self.capture_timeout_s, "no picture")
        except CameraStuck as stuck:
            self._stuck = stuck.thread
            raise

    @property
    def stuck(self) -> bool:
        """Whether a capture that did not come back in time still has not."""
        return self._stuck is not None and self._stuck.is_alive()

    def _finished(self) -> None:
        with self._idle:
            self._pending -= 1
            self._idle.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no picture is being taken or read; False if ``timeout`` passed first."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def close(self) -> None:
        """Stop the worker, waiting for a picture under way (not for the cups to come up)."""
        with self._asked:
            self._closing.set()
            self._asked.notify_all()
        self._worker.shutdown(wait=True)
