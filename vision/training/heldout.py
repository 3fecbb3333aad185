"""Score the kept cross-validation models on the photographs each one never saw.

    python -m vision.training.heldout ../shared/datasets/dice-top-dev              # both views
    python -m vision.training.heldout ../shared/datasets/dice-top-dev --view below --degrade grey
    python -m vision.training.heldout CLOSE-VIEWS --partial    # made by python -m vision.closer

``vision/training/folds/fold-K`` holds what ``python -m vision.training.train --folds 3
--keep DIR`` kept of fold K: its locator and face reader, trained on the other folds'
photographs only, and ``held-out.txt``, the photographs of fold K. Each fold's models read
their own held-out photographs with the real reader (the settings of ``--config`` but the
fold's models) and the scores are summed: the held-out figures of the README, in seconds
and without torch. A change that learns nothing (a threshold, joining, the extra looks,
a degradation to measure) is scored so; a change to training needs the folds trained again.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from vision.config import ReaderConfig, load_config
from vision.evaluate import (
    Summary,
    add_calibrated_option,
    evaluate_folder,
    how_read,
    reader_gone,
    write_csv,
)
from vision.nets import FACE_FILE, LOCATOR_FILE, SECOND_FILE
from vision.output import print_output

FOLDS_DIR = Path(__file__).with_name("folds")
HELD_OUT_FILE = "held-out.txt"


def fold_dirs(folds: Path) -> list[Path]:
    """The ``fold-K`` folders of ``folds``, in order; ValueError naming what is missing."""
    if not folds.is_dir():
        raise ValueError(f"{folds}: no such folder of fold models")
    found = sorted(
        (p for p in folds.iterdir() if p.is_dir() and p.name.startswith("fold-")),
        key=lambda p: (len(p.name), p.name),  # fold-2 before fold-10
    )
    if not found:
        raise ValueError(f"{folds}: no fold-K folders")
    for fold in found:
        for name in (LOCATOR_FILE, FACE_FILE, HELD_OUT_FILE):
            if not (fold / name).is_file():
                raise ValueError(f"{fold}: no {name}")
    return found


def held_out_names(fold: Path, images: Path, partial: bool = False) -> list[str]:
    """The photographs ``fold``'s models never saw; each must be in ``images`` (``partial``:
    those that are, for a folder made from some of them, such as ``vision.closer``'s)."""
    names = [line.strip() for line in (fold / HELD_OUT_FILE).read_text("utf-8").splitlines()]
    names = [n for n in names if n]
    missing = [n for n in names if not (images / n).is_file()]
    if partial:
        return [n for n in names if n not in missing]
    if missing:
        raise ValueError(
            f"{fold / HELD_OUT_FILE}: {len(missing)} photograph(s) not in {images}, "
            f"first {missing[0]}: these folds were dealt over another folder"
        )
    return names


def with_models_of(folder: Path, config: ReaderConfig) -> ReaderConfig:
    """The config reading with the models kept in ``folder`` (its second reader if it has one)."""
    second = folder / SECOND_FILE
    return replace(
        config,
        model_path=str(folder / FACE_FILE),
        detector_path=str(folder / LOCATOR_FILE),
        second_model_path=str(second) if second.is_file() else None,
    )


def score_held_out(
    root: Path,
    view: str,
    folds: Path = FOLDS_DIR,
    config: ReaderConfig | None = None,
    degradation: str | None = None,
    partial: bool = False,
    calibrated: float | None = None,
) -> list[tuple[str, Summary]]:
    """Each fold's summary on its held-out photographs, then ("all", their sum); ``partial``:
    on those of them ``root`` holds (ValueError if it holds none)."""
    config = config or ReaderConfig()
    summaries = []
    dealt = [(fold, held_out_names(fold, root / "images", partial)) for fold in fold_dirs(folds)]
    if not any(names for _, names in dealt):
        raise ValueError(f"{root / 'images'}: none of the folds' photographs")
    for fold, names in dealt:
        fold_config = with_models_of(fold, config)
        summaries.append((fold.name, evaluate_folder(root, view, fold_config, names, degradation,
                                                     calibrated)
                          if names else Summary([])))
    everything = Summary([image for _, summary in summaries for image in summary.images])
    return [*summaries, ("all", everything)]


def main(argv: Sequence[str] | None = None) -> int:
    from vision.degrade import DEGRADATIONS

    parser = argparse.ArgumentParser(
        prog="python -m vision.training.heldout",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "folder", type=Path, metavar="DIR", help="the folder the folds were dealt over"
    )
    parser.add_argument("--view", choices=["above", "below"], help="only this view (default both)")
    parser.add_argument("--folds", type=Path, default=FOLDS_DIR, help="the fold-K folders")
    parser.add_argument("--config", metavar="FILE", help="TOML config ([vision] table)")
    parser.add_argument("--degrade", metavar="NAME", choices=DEGRADATIONS)
    parser.add_argument("--csv", type=Path, metavar="OUT", help="one row per image (one view)")
    parser.add_argument(
        "--partial", action="store_true",
        help="DIR holds only some of the photographs (close views: python -m vision.closer)",
    )
    add_calibrated_option(parser)
    args = parser.parse_args(argv)
    if args.csv and not args.view:
        parser.error("--csv needs --view (one row per image of one view)")
    if sys.stdout is None:  # `>&-`: the summary is what the run is for
        print("heldout: error: the standard output is closed", file=sys.stderr)
        return 2
    import cv2

    cv2.setNumThreads(1)
    try:
        config = load_config(args.config)
        for view in [args.view] if args.view else ["above", "below"]:
            scores = score_held_out(
                args.folder, view, args.folds, config, args.degrade, args.partial, args.calibrated
            )
            if args.csv:  # first, so that a reader of the summary gone (`| head`) takes nothing
                write_csv(scores[-1][1], args.csv)  # every fold's photographs
            for name, summary in scores:
                title = f"{name} held out (view {view}{how_read(args.degrade, args.calibrated)})"
                if print_output("heldout: error", "\n".join(summary.lines(title))):
                    return 2  # said: the output takes nothing (a full disk)
    except BrokenPipeError:
        return reader_gone()
    except (ValueError, OSError) as err:
        print(f"heldout: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
