"""``dudo scan IMAGE... [--view above|below] [--json] [--annotate DIR] [--config FILE]
[--expect PLAYER=DICE ...]``.

Reads the dice in each photograph and prints, per image, the counts of each face (or,
with ``--json``, one JSON object a line as DESIGN.md specifies). An image that cannot be
read is a one-line message on stderr; the other images are still read, and the exit
status is 1 when any image could not be read or annotated, 2 when nothing could be
read at all (a bad config, a reader model missing).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import sys
import zlib
from pathlib import Path
from typing import NamedTuple, TextIO

from vision.calibration import Calibration, SeatZones, load_calibration
from vision.config import ReaderConfig, calibrated_size, load_config
from vision.owners import Ownership, assign_owners, size_mismatch
from vision.reading import Reading, UnreadableImage

# Said where --expect names several players and the config cannot tell their dice apart.
_NO_OWNERS = ("whose die is whose is not known: no [colours] or [seats] (the table's config"
              " gives them: --config FILE); only the total is compared")
# The formats an annotated copy is written in; any other image is annotated as a PNG.
_WRITABLE = (".jpg", ".jpeg", ".png")
# Written into every annotated copy (a JPEG comment, a PNG text chunk): a later run may write
# over a file that carries it, and over no other.
_MARK = b"written by dudo scan --annotate"


class CannotWrite(OSError):
    """An annotated image could not be written (the folder is full or read-only)."""


def scan_command(args: argparse.Namespace) -> int:
    """Read every image named in ``args.images``; print one result per image."""
    try:
        config = load_config(args.config)
        calibrated = calibrated_size(args.config)
        calibration = load_calibration(args.config)
        owners = None
        if args.expect:
            owners = Owners(calibration, expected_dice(args.expect))
    except ValueError as err:
        print(f"dudo scan: {err}", file=sys.stderr)
        return 2
    if args.annotate == "":
        print("dudo scan: --annotate needs a folder, not an empty name", file=sys.stderr)
        return 2
    annotate_dir = Path(args.annotate) if args.annotate is not None else None
    # The folder is made with the first annotated copy: a run that reads nothing makes none.
    # Whether it can be made is known now, before any image is read.
    problem = None if annotate_dir is None else _folder_problem(annotate_dir)
    if problem is not None:
        print(f"dudo scan: --annotate {annotate_dir}: {problem}", file=sys.stderr)
        return 2
    # As the table reads them: from where the config's camera looks, else under the glass.
    view = args.view or calibration.camera.view
    failures = 0
    # Not to be written over: this run's photographs and the annotated copies it wrote.
    taken = {resolved(Path(name)) for name in args.images}
    for name in args.images:
        try:
            scan_one(name, config, view, args.json, annotate_dir, sys.stdout, taken,
                     calibrated=calibrated, owners=owners)
        except (UnreadableImage, CannotWrite) as err:
            failures += 1
            print(f"dudo scan: {err}", file=sys.stderr)
        except MemoryError:  # decoded, but too large to read or annotate here
            failures += 1
            print(f"dudo scan: {name}: too large to read in the memory available",
                  file=sys.stderr)
        except BrokenPipeError:
            # The reader of the output has gone (`| head`): the command ends quietly, with the
            # status of what it read before (an image it could not read is still a failure).
            return 1 if failures else 0
        except (OSError, ValueError) as err:
            # Not this image's fault (a reader model missing or broken, a disk error): stop.
            print(f"dudo scan: {err}", file=sys.stderr)
            return 2
    return 1 if failures else 0


class Owners(NamedTuple):
    """What ``--expect`` tells whose die is whose by: the config's calibration (``[seats]``,
    ``[colours]``) and the dice each player must show, the players in seat order."""

    calibration: Calibration
    expected: dict[str, int]


def expected_dice(given: list[str]) -> dict[str, int]:
    """``--expect`` as given (``Ana=5``, once a player, in seat order): each player's dice;
    ValueError naming the one that is wrong."""
    expected: dict[str, int] = {}
    for each in given:
        player, sign, dice = each.partition("=")
        player = player.strip()
        if not sign or not player:
            raise ValueError(f"--expect {each!r}: give PLAYER=DICE, as --expect Ana=5")
        if player in expected:
            raise ValueError(f"--expect {each!r}: {player} is given twice")
        # (ASCII digits alone: "²" is a digit to Python, and int() refused it unnamed.)
        if not (dice.strip().isascii() and dice.strip().isdigit()) or int(dice) > 1000:
            raise ValueError(f"--expect {each!r}: DICE must be a whole number of dice, 0 to 1000")
        expected[player] = int(dice)
    return expected


def _folder_problem(folder: Path) -> str | None:
    """Why annotated copies cannot be written into ``folder``, made if missing; None if they
    can (as far as can be told before writing one)."""
    try:
        if folder.exists():
            if not folder.is_dir():
                return "not a folder"
            return None if os.access(folder, os.W_OK | os.X_OK) else "the folder is read-only"
        if folder.is_symlink():
            return "a link to nothing (or a loop of links)"
        made_in = folder.absolute().parent
        while not made_in.exists():
            if made_in.is_symlink():
                return f"cannot make the folder: {made_in} is a link to nothing"
            made_in = made_in.parent
    except OSError as err:  # a folder on the way that cannot be opened
        return f"cannot make the folder: {err.strerror}"
    if not made_in.is_dir():
        return f"cannot make the folder: {made_in} is not a folder"
    if not os.access(made_in, os.W_OK | os.X_OK):
        return f"cannot make the folder: {made_in} is read-only"
    return None


def scan_one(
    name: str,
    config: ReaderConfig,
    view: str,
    as_json: bool,
    annotate_dir: Path | None,
    out: TextIO,
    taken: set[Path] | None = None,
    *,
    calibrated: tuple[int, int] | None = None,
    owners: Owners | None = None,
) -> Reading:
    """Read one image, print its result to ``out`` and write its annotated copy if asked.

    ``taken``: paths the annotated copy must not be written to (see ``annotated_path``).
    ``calibrated``: the picture size the config's die size and marks were measured at; a
    photograph of another size is read with them scaled to it. ``owners``: each die given
    to a player, as at the table (``vision.owners``), and what disagrees said.
    """
    from vision.reader import load_image, read_dice

    image = load_image(name)
    if calibrated is not None:
        config = config.at_size(calibrated, (image.shape[1], image.shape[0]))
    try:
        reading = read_dice(image, config, view=view)
    except UnreadableImage as err:  # decoded, but no photograph to read (1 x 1 pixels)
        raise UnreadableImage(f"{name}: {err}") from None
    # With --expect and seat zones, the annotated copy draws the zones, each with its player.
    zones: SeatZones | None = None
    names: dict[int, str] = {}
    if owners is None:
        line = json.dumps(reading.to_json(name)) if as_json else describe(name, reading)
    else:
        # Zones of a config that gives the camera's size are pixels of its pictures; else of
        # whatever picture is read, as the table takes them.
        mismatch = () if calibrated is None else size_mismatch(
            image.shape[1], image.shape[0], owners.calibration)
        line, ownership = _with_owners(name, reading, owners, mismatch, as_json)
        if ownership.seats and not mismatch:
            zones, names = owners.calibration.seats, ownership.seat_names()
    try:
        out.write(line + "\n")
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as err:  # a full disk or a device that takes nothing (`> /dev/full`)
        raise OSError(f"cannot write the results to the output: {err.strerror}") from None
    if annotate_dir is not None:
        _write_annotated(name, image, reading, annotated_path(name, annotate_dir, taken),
                         zones, names)
    return reading


def describe(name: str, reading: Reading) -> str:
    """One line for a person: the total, the view (the faces counted from below are 7 minus
    the pips seen: a photograph taken from above, read without ``--view above``, has its
    counts turned over), each face's count, the time, doubtful dice (and why, where the
    picture is to blame: smeared, its dice too small, taken slantwise)."""
    counts = " ".join(f"{face}:{n}" for face, n in reading.counts.items())
    noun = "die" if reading.total == 1 else "dice"
    line = (f"{name}: {reading.total} {noun} from {reading.view}  {counts}"
            f"  ({reading.ms.get('total', 0.0):.1f} ms)")
    doubtful = reading.doubtful
    if doubtful:
        spots = ", ".join(f"{d.face}? at ({d.x}, {d.y}) {d.confidence:.2f}" for d in doubtful)
        line += f"  doubtful: {spots}"
    for plea in reading.pleas:
        line += f"  ({plea})"
    return line


def _with_owners(name: str, reading: Reading, owners: Owners, mismatch: tuple[str, ...],
                 as_json: bool) -> tuple[str, Ownership]:
    """The result line with whose each die is and what disagrees (in JSON, each die's
    ``owner`` (null: nobody's), ``owners`` (each player's faces) and ``disagreements``), and
    the dice shared out."""
    ownership = assign_owners(reading, owners.calibration, owners.expected)
    disagreements = [*ownership.disagreements, *mismatch]
    if as_json:
        result = reading.to_json(name)
        result["dice"] = [{**die.to_json(), "colour": ownership.colour(die), "owner": owner}
                          for die, owner in zip(reading.dice, ownership.owners(reading),
                                                strict=True)]
        result["owners"] = ownership.faces()
        result["disagreements"] = disagreements
        return json.dumps(result), ownership
    line = describe(name, reading)
    if ownership.by != "none":
        line += "  " + "; ".join(f"{player}: {' '.join(map(str, faces)) or 'none'}"
                                 for player, faces in ownership.faces().items())
    elif len(owners.expected) > 1 and not owners.calibration.colours:
        line += f"  ({_NO_OWNERS})"
    return line + "".join(f"  ({why})" for why in disagreements), ownership


def annotated_path(name: str, folder: Path, taken: set[Path] | None = None) -> Path:
    """Where the annotated copy of the image ``name`` goes: its own file name in ``folder``.

    Never over the photograph itself, a path in ``taken`` (the run's other photographs and
    the copies it wrote: ``--annotate`` naming the images' own folder, two images of one name
    from two folders) or a file an earlier run did not write (an unrelated photograph of the
    same name); then ``NAME-annotated``, ``NAME-annotated-2``, ... The path chosen is added
    to ``taken``. A JPEG is annotated as a JPEG, any other image as a PNG.
    """
    source = Path(name)
    suffix = source.suffix if source.suffix.lower() in _WRITABLE else ".png"
    taken = set() if taken is None else taken
    for n in itertools.count():
        tail = "" if n == 0 else "-annotated" if n == 1 else f"-annotated-{n}"
        target = folder / f"{source.stem}{tail}{suffix}"
        if target.is_symlink() and not target.exists():
            continue  # a link to nothing, or a loop of links: not this run's to replace
        if (resolved(target) not in taken and resolved(target) != resolved(source)
                and (not target.exists() or _annotated_earlier(target))):
            taken.add(resolved(target))
            return target
    raise AssertionError("unreachable")


def resolved(path: Path) -> Path:
    """``path`` with its links followed; as it is (made absolute) when they loop."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: Python 3.11's "Symlink loop"
        return path.absolute()


def _annotated_earlier(path: Path) -> bool:
    """Whether ``path`` is an annotated copy an earlier run wrote (it carries the mark)."""
    try:
        with path.open("rb") as f:
            return _MARK in f.read(4096)
    except OSError:
        return False


def _write_annotated(name: str, image: object, reading: Reading, target: Path,
                     zones: SeatZones | None = None, names: dict[int, str] | None = None) -> None:
    import cv2
    import numpy as np

    from vision.annotate import annotate

    marked = annotate(np.asarray(image), reading, seats=zones, names=names)
    ok, encoded = cv2.imencode(target.suffix, marked)
    if not ok:
        raise CannotWrite(f"{name}: could not encode the annotated image {target}")
    # Written beside it, then renamed over it: a full disk leaves no half-written copy.
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:  # no copy can be written there: the run stops, as for a bad option
        raise OSError(f"--annotate {target.parent}: cannot make the folder: {err.strerror}"
                      ) from None
    part = target.with_name(f".{target.name}.part")
    try:
        part.write_bytes(_with_mark(encoded.tobytes(), target.suffix.lower()))
        os.replace(part, target)
    except OSError as err:
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)
        raise CannotWrite(f"{name}: could not write the annotated image {target}: "
                          f"{err.strerror}") from None


def _with_mark(data: bytes, suffix: str) -> bytes:
    """The encoded image with ``_MARK`` in it: a JPEG comment after the start of image, or a
    PNG text chunk after the header chunk."""
    if suffix in (".jpg", ".jpeg"):
        return data[:2] + b"\xff\xfe" + (len(_MARK) + 2).to_bytes(2, "big") + _MARK + data[2:]
    body = b"Software\x00" + _MARK
    chunk = (len(body).to_bytes(4, "big") + b"tEXt" + body
             + zlib.crc32(b"tEXt" + body).to_bytes(4, "big"))
    return data[:33] + chunk + data[33:]  # the 8-byte signature, then IHDR's 25 bytes
