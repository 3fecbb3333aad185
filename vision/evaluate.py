"""Score the reader on a labelled folder: ``python -m vision.evaluate DIR [--view below]``.

The folder is in the dev set's format: ``images/NAME.jpg`` and ``labels/NAME.txt`` (YOLO:
``class cx cy w h``, class k = k+1 pips seen from above; as in YOLO, an image without a label
file shows no dice). With ``--view below`` every
photograph is mirrored and its labels become 7 - x, as a camera under the glass sees them.
Prints per-die accuracy, the share of images whose face counts are all exact, the accuracy
on the ace and the median time per image; ``--csv`` writes one row per image with its error.
A photograph that cannot be read is named on stderr and scored with every die of it missed,
the others still read (exit status 1; 2 for a label file or counts.csv that cannot be read).
``--degrade NAME`` first changes every photograph as another camera or table would
(``vision.degrade``). ``--calibrated [FACTOR]`` reads each photograph as a calibrated table
does: with ``[vision] die_size`` set to the median size of the dice it shows when read
without one (times FACTOR, for a calibration of dice lying otherwise).
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import os
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from vision.config import ReaderConfig, load_config, within_die_sizes
from vision.output import discard_output, print_output
from vision.reading import FACES, Reading, UnreadableImage, is_photograph

# The fields of a label line (YOLO).
_FIELDS = ("class", "cx", "cy", "w", "h")
# A reading matches a labelled die when its centre is within this share of the die's size.
MATCH_RADIUS = 0.5


@dataclass(frozen=True)
class LabelledDie:
    """A die as the label says: the face that counts in this view, centre and size."""

    face: int
    x: float
    y: float
    size: float


@dataclass
class ImageScore:
    """How the reader did on one photograph.

    ``confident_errors``: errors the reading does not flag itself (a wrong or extra die at
    or above the doubt threshold, or a missed die); ``confidently_wrong``: those of them
    that are a die read wrong or a die that is not there (a missed die still shows, as a
    total below the dice the referee expects). ``labelled``: the image had a label file (a
    YOLO folder leaves it out for an image of no dice); ``readable``: the photograph could be
    read at all (if not, every labelled die counts as missed, and ``errors`` says why).
    """

    image: str
    labelled: bool = True
    readable: bool = True
    dice: int = 0
    found: int = 0
    right: int = 0
    wrong: int = 0
    missed: int = 0
    extra: int = 0
    aces: int = 0
    aces_right: int = 0
    read_as_ace: int = 0
    read_as_ace_right: int = 0
    doubtful: int = 0
    confident_errors: int = 0
    confidently_wrong: int = 0
    exact: bool = False
    ms: float = 0.0
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Summary:
    """The scores of a whole folder; ``lone_labels``: its label files that no photograph
    has (their dice are not scored); ``not_read``: what else ``images/`` holds, not scored
    (folders, named with a ``/``, and files that are no photographs); ``miscounted``: the
    photographs whose label file holds another number of dice than counts.csv lists, in
    words (scored by the label file)."""

    images: list[ImageScore]
    lone_labels: tuple[str, ...] = ()
    not_read: tuple[str, ...] = ()
    miscounted: tuple[str, ...] = ()

    def _sum(self, name: str) -> int:
        return sum(int(getattr(s, name)) for s in self.images)

    @property
    def dice(self) -> int:
        return self._sum("dice")

    @property
    def die_accuracy(self) -> float:
        """Labelled dice read right (found and the right face) over all labelled dice."""
        return self._sum("right") / max(1, self.dice)

    @property
    def exact_share(self) -> float:
        """Share of images whose six face counts are all exact."""
        return self._sum("exact") / max(1, len(self.images))

    def _unlabelled(self) -> str:
        k = sum(not s.labelled for s in self.images)
        notes = [f"{k} without a label file, taken as tables with no dice"] if k else []
        bad = sum(not s.readable for s in self.images)
        if bad:
            notes.append(f"{bad} that could not be read, every die of them counted as missed")
        return f" ({'; '.join(notes)})" if notes else ""

    def lines(self, title: str) -> list[str]:
        """The summary as printed by the command."""
        n = len(self.images)
        ms = [s.ms for s in self.images if s.readable]
        return [
            f"{title}",
            f"  images: {n}, labelled dice: {self.dice}" + self._unlabelled(),
            f"  dice right: {self._sum('right')}/{self.dice} = {100 * self.die_accuracy:.2f}%"
            f" (wrong face {self._sum('wrong')}, missed {self._sum('missed')},"
            f" extra {self._sum('extra')})",
            f"  images exact (all six counts): {self._sum('exact')}/{n}"
            f" = {100 * self.exact_share:.2f}%",
            f"  aces read right: {self._sum('aces_right')}/{self._sum('aces')};"
            f" dice read as aces that are aces: "
            f"{self._sum('read_as_ace_right')}/{self._sum('read_as_ace')}",
            f"  doubtful dice flagged: {self._sum('doubtful')};"
            f" errors not flagged: {self._sum('confident_errors')}"
            f" (of which confidently wrong or extra: {self._sum('confidently_wrong')},"
            f" the rest missed)",
            f"  median ms per image: {statistics.median(ms) if ms else 0.0:.1f}",
        ]


def load_labels(path: Path, width: int, height: int, view: str) -> list[LabelledDie]:
    """The labelled dice of one image, in the given view (mirrored and 7 - x from below).

    ValueError names the file, the line and what is wrong with it.
    """
    text = _utf8_text(path)
    dice = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        pips, cx, cy, bw, bh = _label_line(f"{path}:{number}", line)
        if view == "below":
            cx = 1.0 - cx
        face = 7 - pips if view == "below" else pips
        # The root of each side, not of their product: that of a tiny box could round to 0.
        size = math.sqrt(bw * width) * math.sqrt(bh * height)
        dice.append(LabelledDie(face, cx * width, cy * height, size))
    return dice


def _utf8_text(path: Path) -> str:
    """The text of a label file or counts.csv; ValueError names the file and why it cannot be
    read (and the line that is not UTF-8)."""
    try:
        data = path.read_bytes()
    except OSError as err:  # permissions, a folder of that name
        raise ValueError(f"{path}: cannot be read ({err.strerror})") from None
    try:
        return data.decode("utf-8-sig")  # a byte-order mark, as some editors write, is not a line
    except UnicodeDecodeError as err:
        number = data[: err.start].count(b"\n") + 1
        raise ValueError(f"{path}:{number}: not UTF-8 text") from None


def _label_line(where: str, line: str) -> tuple[int, float, float, float, float]:
    """One line of a label file checked: the pips of the die and its box (centre, width and
    height, relative to the image's size). A polygon, as YOLO's segmentation labels give a
    die (``class x1 y1 x2 y2 ...``, three points or more), is taken for the box around it.
    ValueError starts with ``where`` (file:line)."""
    fields = line.split()
    polygon = len(fields) >= 7 and len(fields) % 2 == 1
    if len(fields) != len(_FIELDS) and not polygon:
        raise ValueError(f"{where}: expected 'class cx cy w h' (or a polygon 'class x1 y1 x2 y2"
                         f" x3 y3 ...'), found {len(fields)} field{'s' * (len(fields) != 1)}")
    try:
        values = [float(v) for v in fields]
    except ValueError:
        raise ValueError(f"{where}: expected 'class cx cy w h', numbers") from None
    names = _FIELDS if not polygon else ("class", *(
        f"{axis}{i}" for i in range(1, len(fields) // 2 + 1) for axis in "xy"))
    for name, text, value in zip(names, fields, values, strict=True):
        if not math.isfinite(value):
            problem = "not a finite number"
        elif name == "class" and not (value.is_integer() and value + 1 in FACES):
            problem = "not a die face (0..5)"  # class k is a die showing k + 1 pips
        elif (name in ("cx", "cy") or polygon and name != "class") and not 0 <= value <= 1:
            problem = "outside the image (0..1)"
        elif name in ("w", "h") and not 0 < value <= 1:
            problem = "not a size within the image (above 0, at most 1)"
        else:
            continue
        raise ValueError(f"{where}: {name} {text} is {problem}")
    pips = int(values[0]) + 1
    if not polygon:
        return pips, values[1], values[2], values[3], values[4]
    xs, ys = values[1::2], values[2::2]
    if max(xs) == min(xs) or max(ys) == min(ys):
        raise ValueError(f"{where}: the polygon encloses nothing (its points in one line)")
    return (pips, (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2, max(xs) - min(xs),
            max(ys) - min(ys))


def unreadable_score(
    name: str, labels: list[LabelledDie], labelled: bool, why: str
) -> ImageScore:
    """The score of a photograph that could not be read: every labelled die missed."""
    return ImageScore(name, labelled, readable=False, dice=len(labels), missed=len(labels),
                      confident_errors=len(labels), aces=sum(lab.face == 1 for lab in labels),
                      errors=[f"unreadable: {why}"])


def score_image(name: str, labels: list[LabelledDie], reading: Reading) -> ImageScore:
    """Match the reading's dice to the labels (nearest first) and count every kind of error."""
    score = ImageScore(name, dice=len(labels), found=reading.total, ms=reading.ms["total"])
    pairs = sorted(
        (math.hypot(d.x - lab.x, d.y - lab.y) / lab.size, i, j)
        for i, lab in enumerate(labels)
        for j, d in enumerate(reading.dice)
    )
    label_of: dict[int, int] = {}
    die_of: dict[int, int] = {}
    for dist, i, j in pairs:
        if dist <= MATCH_RADIUS and i not in label_of and j not in die_of:
            label_of[i], die_of[j] = j, i
    threshold = reading.doubt_threshold
    score.doubtful = len(reading.doubtful)
    for i, lab in enumerate(labels):
        score.aces += lab.face == 1
        if i not in label_of:
            score.missed += 1
            score.confident_errors += 1
            score.errors.append(f"missed a {lab.face} at ({lab.x:.0f},{lab.y:.0f})")
            continue
        die = reading.dice[label_of[i]]
        if die.face == lab.face:
            score.right += 1
            score.aces_right += lab.face == 1
        else:
            score.wrong += 1
            score.confident_errors += die.confidence >= threshold
            score.confidently_wrong += die.confidence >= threshold
            score.errors.append(
                f"read {die.face} for a {lab.face} at ({die.x},{die.y}),"
                f" confidence {die.confidence:.2f}"
            )
    for j, die in enumerate(reading.dice):
        score.read_as_ace += die.face == 1
        if j in die_of:
            score.read_as_ace_right += die.face == 1 and labels[die_of[j]].face == 1
        else:
            score.extra += 1
            score.confident_errors += die.confidence >= threshold
            score.confidently_wrong += die.confidence >= threshold
            score.errors.append(
                f"extra {die.face} at ({die.x},{die.y}), confidence {die.confidence:.2f}"
            )
    truth = {f: sum(lab.face == f for lab in labels) for f in FACES}
    score.exact = truth == reading.counts
    return score


def evaluate_folder(
    root: Path,
    view: str = "above",
    config: ReaderConfig | None = None,
    names: Sequence[str] | None = None,
    degradation: str | None = None,
    calibrated: float | None = None,
) -> Summary:
    """Read every image of a folder (or only ``names``) and score each one against its
    labels (none: a table with no dice).

    ``degradation``: each photograph is first changed so (see ``vision.degrade``).
    ``calibrated``: each photograph is read with the die size its own dice measure, read
    without one, times this (``calibrated_size``).
    """
    import cv2

    from vision.degrade import degrade
    from vision.reader import load_image, read_dice

    config = config or ReaderConfig()
    if not root.exists():
        raise ValueError(f"{root}: no such folder")
    if not root.is_dir():
        raise ValueError(f"{root}: not a folder: give the folder that holds images/ and labels/")
    if not (root / "images").is_dir():
        sets = sorted(f"{p.name}/" for p in root.iterdir() if (p / "images").is_dir())
        hint = (f": give {root.parent}, the folder that holds it" if root.name == "images"
                else f": give one of the folders in it that hold one ({', '.join(sets[:5])})"
                if sets  # a Roboflow export: train/, valid/ and test/, each its own set
                else ": give the folder that holds images/ and labels/ (the dev set's format)")
        raise ValueError(f"{root}: no images/ folder in it{hint}")
    images, others = _photographs(root / "images")
    if names is not None:
        wanted = set(names)
        images, others = [p for p in images if p.name in wanted], []
    listed = _dice_listed(root / "counts.csv")
    labels_dir = root / "labels"
    if labels_dir.exists() and not labels_dir.is_dir():
        # Before (session 92's audit), taken for a folder of no labels: every photograph
        # scored as an empty table, exit 0.
        raise ValueError(f"{labels_dir}: a file, not a folder: the dev set's format keeps each"
                         " photograph's label file in labels/, beside images/")
    photographed = {p.stem for p in images}
    if not labels_dir.exists() and any(p.suffix == ".txt" and p.stem in photographed
                                       for p in others):
        raise ValueError(f"{root}: no labels/ folder, but {root / 'images'} holds the"
                         " photographs' .txt files: the dev set's format keeps each label file"
                         " in labels/, beside images/")
    # A file in a format the reader does not read (a phone's HEIC), with labels or listed
    # dice, is a photograph: scored as one that cannot be read, not left out unsaid; unless
    # a photograph has its name (an iPhone's IMG_1.AAE of edits, a Live Photo's IMG_1.MOV).
    unread = [p for p in others if p.is_file() and p.stem not in photographed and (
        (labels_dir / (p.stem + ".txt")).is_file() or listed.get(p.name, 0))]
    not_read = tuple(p.name + "/" if p.is_dir() else p.name for p in others if p not in unread)
    if not images and not unread:
        folders = [name for name in not_read if name.endswith("/")]
        inside = (f": it holds only folders ({', '.join(folders[:5])}); the dev set's format"
                  " keeps the photographs in images/ itself, their labels in labels/"
                  if folders else "")
        raise ValueError(f"{root}: no images in {root / 'images'}{inside}")
    if not labels_dir.exists() and not listed:
        # Before, every die was scored as extra: "0/0 dice right", exit 0.
        raise ValueError(f"{root}: no labels/ folder beside images/, and no photograph"
                         " listed in counts.csv: every one would be scored as a table with no dice"
                         " (for photographs of empty tables, make labels/ and leave it empty)")
    scores, miscounted = [], []
    for path in unread + images:
        label_path = labels_dir / (path.stem + ".txt")
        labelled = label_path.is_file()
        if labelled and path.name in listed:
            held = len(load_labels(label_path, 1, 1, view))
            if held != listed[path.name]:
                miscounted.append(f"{path.name}: its label file holds {held} dice, counts.csv"
                                  f" lists {listed[path.name]}")
        if not labelled and label_path.exists():  # scored as a table with no dice, before
            raise ValueError(f"{path.name}: its label file {label_path} is not a file")
        if not labelled and listed.get(path.name, 0):
            raise ValueError(
                f"{path.name}: no label file {label_path}, but counts.csv lists"
                f" {listed[path.name]} dice"
            )
        if path in unread:
            scores.append(unreadable_score(
                path.name, load_labels(label_path, 1, 1, view) if labelled else [], labelled,
                f"{path}: not a format the reader reads ({path.suffix or 'no suffix'}): give it"
                " as JPEG or PNG"))
            continue
        try:
            image = load_image(path)
        except UnreadableImage as err:
            # One photograph that cannot be read is scored, not the end of the run.
            labels = load_labels(label_path, 1, 1, view) if labelled else []
            scores.append(unreadable_score(path.name, labels, labelled, str(err)))
            continue
        if view == "below":
            image = np.ascontiguousarray(cv2.flip(image, 1))
        labels = load_labels(label_path, image.shape[1], image.shape[0], view) if labelled else []
        if degradation:
            image = degrade(image, degradation, [(lab.x, lab.y, lab.size) for lab in labels])
            # Relative to the photograph's size, the labels hold for a scaled one too.
            if labelled:
                labels = load_labels(label_path, image.shape[1], image.shape[0], view)
        try:
            seen_with = config
            if calibrated is not None:
                seen_with = replace(config, die_size=calibrated_size(image, config, view,
                                                                    calibrated))
            reading = read_dice(image, seen_with, view)
        except UnreadableImage as err:  # decoded, but no photograph to read (10 x 10 pixels)
            scores.append(unreadable_score(path.name, labels, labelled, f"{path}: {err}"))
            continue
        score = score_image(path.name, labels, reading)
        score.labelled = labelled
        scores.append(score)
    lone: tuple[str, ...] = ()
    if names is None and labels_dir.is_dir():
        seen = photographed | {p.stem for p in unread}
        lone = tuple(sorted(p.name for p in labels_dir.glob("*.txt")
                            if p.stem not in seen and not p.name.startswith(".")))
    return Summary(sorted(scores, key=lambda s: s.image), lone, not_read, tuple(miscounted))


def _photographs(folder: Path) -> tuple[list[Path], list[Path]]:
    """The photographs of ``folder`` (``is_photograph``) and what else it holds but hidden
    files, each sorted."""
    photographs: list[Path] = []
    others: list[Path] = []
    for p in sorted(folder.iterdir()):
        if is_photograph(p):
            photographs.append(p)
        elif not p.name.startswith("."):
            others.append(p)
    return photographs, others


def calibrated_size(
    image: np.ndarray, config: ReaderConfig, view: str, factor: float = 1.0
) -> float | None:
    """The die size a calibration on this photograph's own dice measures
    (``vision.calibrate.measured_sizes``, their median), times ``factor``, within the sizes a
    config allows; None where no die is read."""
    from vision.calibrate import measured_sizes

    sizes = measured_sizes(image, config, view)
    if not sizes:
        return None
    return within_die_sizes(factor * float(statistics.median(sizes)))


def _dice_listed(path: Path) -> dict[str, int]:
    """How many dice ``counts.csv`` (the dev set's per-image counts) lists for each image,
    if the folder has one. Rows with every field empty (a spreadsheet's tail) are none;
    ValueError names the header, or the line, that is not so."""
    if not path.is_file():
        return {}
    rows = csv.DictReader(io.StringIO(_utf8_text(path), newline=""))  # a BOM too, as saved
    if rows.fieldnames is None:                                         # by a spreadsheet
        return {}  # an empty file lists nothing
    if not {"image", "n_dice"} <= set(rows.fieldnames):
        raise ValueError(f"{path}: expected columns image, n_dice, ... with counts (separated"
                         f" by commas); its first line: {','.join(rows.fieldnames)!r}")
    listed = {}
    try:
        for row in rows:
            if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
                continue
            try:
                listed[row["image"]] = int(row["n_dice"])
            except (TypeError, ValueError):
                problem = ("no n_dice (the row ends before it)" if row["n_dice"] is None
                           else f"n_dice {row['n_dice']!r} is not a whole number")
                raise ValueError(f"{path}:{rows.line_num}: {problem} for {row['image']!r}"
                                 ) from None
    except csv.Error as err:  # a quote left open takes the rest (a traceback: session 92)
        raise ValueError(f"{path}:{rows.line_num}: {err}") from None
    return listed


def write_csv(summary: Summary, out: Path) -> None:
    """One row per image: its counts of each kind of error and what the errors were."""
    columns = [
        "image",
        "dice",
        "found",
        "right",
        "wrong",
        "missed",
        "extra",
        "exact",
        "doubtful",
        "confident_errors",
        "ms",
        "error",
    ]
    with out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        for s in summary.images:
            writer.writerow(
                [
                    s.image,
                    s.dice,
                    s.found,
                    s.right,
                    s.wrong,
                    s.missed,
                    s.extra,
                    int(s.exact),
                    s.doubtful,
                    s.confident_errors,
                    f"{s.ms:.1f}",
                    "; ".join(s.errors),
                ]
            )


def main(argv: Sequence[str] | None = None) -> int:
    from vision.degrade import DEGRADATIONS

    parser = argparse.ArgumentParser(prog="python -m vision.evaluate", description=__doc__)
    parser.add_argument("folder", type=Path, metavar="DIR")
    parser.add_argument("--view", choices=["above", "below"], default="above")
    parser.add_argument("--csv", type=Path, metavar="OUT", help="one row per image")
    parser.add_argument("--config", metavar="FILE", help="TOML config ([vision] table)")
    parser.add_argument(
        "--degrade",
        metavar="NAME",
        choices=DEGRADATIONS,
        help="change every photograph first, as another camera would: "  # % is argparse's
        + "; ".join(f"{name}: {what}" for name, (what, _) in DEGRADATIONS.items())
        .replace("%", "%%"),
    )
    add_calibrated_option(parser)
    args = parser.parse_args(argv)
    if sys.stdout is None:  # `>&-`: the summary is what the run is for
        print("evaluate: error: the standard output is closed", file=sys.stderr)
        return 2
    try:
        return _run(args)
    except KeyboardInterrupt:  # Ctrl-C: quietly, as ``dudo scan``
        return 130
    except BrokenPipeError:
        return reader_gone()


def reader_gone() -> int:
    """0, the output's reader gone (`| head`: it has what it wanted), quietly, as ``dudo
    scan``: what Python would still write at exit goes nowhere, not into a traceback."""
    discard_output()
    return 0


def _run(args: argparse.Namespace) -> int:
    """The command once its arguments are parsed: the summary, and the CSV if asked."""
    import cv2

    cv2.setNumThreads(1)
    try:
        config = load_config(args.config)
        if args.csv:
            _check_csv_target(args.csv, args.folder)
        summary = evaluate_folder(args.folder, args.view, config, degradation=args.degrade,
                                  calibrated=args.calibrated)
    except (ValueError, OSError) as err:  # a label file or counts.csv that cannot be read
        print(f"evaluate: error: {err}", file=sys.stderr)
        return 2
    if args.csv:  # first, so that a reader of the summary gone (`| head`) takes nothing
        try:
            write_csv(summary, args.csv)
        except OSError as err:
            print(f"evaluate: error: --csv {args.csv}: {err.strerror}", file=sys.stderr)
            return 2
    read_as = how_read(args.degrade, args.calibrated)
    lines = summary.lines(f"{args.folder} (view {args.view}{read_as})")
    if args.csv:
        lines.append(f"  per-image rows: {args.csv}")
    # Flushed here, where a reader gone or a full disk is seen, not as Python exits.
    try:
        if print_output("evaluate: error", "\n".join(lines)):
            return 2
    except BrokenPipeError:  # `| head`: quietly, but what could not be read is still said
        discard_output()
    if summary.lone_labels:  # a photograph lost, or named otherwise: its dice would go unseen
        lone = summary.lone_labels
        print(f"evaluate: {len(lone)} label file{'' if len(lone) == 1 else 's'} with no"
              f" photograph, not scored: {', '.join(lone[:5])}{', ...' if len(lone) > 5 else ''}",
              file=sys.stderr)
    if summary.not_read:  # a folder of train/ and val/, a photograph in another format
        skipped = summary.not_read
        print(f"evaluate: {args.folder / 'images'}: {len(skipped)} not photographs, not read:"
              f" {', '.join(skipped[:5])}{', ...' if len(skipped) > 5 else ''}",
              file=sys.stderr)
    for said in summary.miscounted:  # a label lost or a row stale: the labels are scored
        print(f"evaluate: {said} (scored by the label file)", file=sys.stderr)
    unread = [s for s in summary.images if not s.readable]
    for s in unread:  # scored as every die missed; named, as ``dudo scan`` names them
        print(f"evaluate: {s.image}: {s.errors[0]}", file=sys.stderr)
    return 1 if unread else 0


def add_calibrated_option(parser: argparse.ArgumentParser) -> None:
    """``--calibrated [FACTOR]``, shared with ``vision.training.heldout``."""

    def factor(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not 0.1 <= value <= 10.0:
            raise argparse.ArgumentTypeError(f"{text}: must be 0.1..10 (times the dice's size)")
        return value

    parser.add_argument(
        "--calibrated", nargs="?", const=1.0, type=factor, metavar="FACTOR",
        help="read each photograph with the die size its own dice measure (times FACTOR, "
        "default 1), as a calibrated table reads",
    )


def how_read(degradation: str | None, calibrated: float | None) -> str:
    """The words a summary's title adds for a degradation and a calibrated die size."""
    degraded = f", degraded: {degradation}" if degradation else ""
    if calibrated is None:
        return degraded
    return degraded + (", calibrated" if calibrated == 1.0 else f", calibrated x{calibrated:g}")


def _check_csv_target(out: Path, scored: Path) -> None:
    """ValueError unless ``out`` can be written: checked before the run, not after it, and
    never one of the ``scored`` folder's own photographs, labels or counts."""
    from vision.scan import resolved

    where, inputs = resolved(out), resolved(scored)
    if where == inputs / "counts.csv" or any(
            where.is_relative_to(inputs / part) for part in ("images", "labels")):
        raise ValueError(f"--csv {out}: inside the folder being scored ({scored}): its rows"
                         " would replace a photograph, a label or counts.csv; write them"
                         " elsewhere")
    folder = out.parent
    if not folder.exists():
        raise ValueError(f"--csv {out}: no such folder {folder}")
    if not folder.is_dir():
        raise ValueError(f"--csv {out}: {folder} is not a folder")
    if out.is_dir():
        raise ValueError(f"--csv {out}: is a folder")
    if not os.access(out if out.exists() else folder, os.W_OK):
        raise ValueError(f"--csv {out}: cannot be written (permission denied)")


if __name__ == "__main__":
    sys.exit(main())
