"""Train the locator and the face reader on a labelled folder, export ONNX, cross-validate.

    python -m vision.training.train --data ../shared/datasets/dice-top-dev            # ship
    python -m vision.training.train --data ../shared/datasets/dice-top-dev --folds 5  # CV

Shipping trains on every image and writes ``vision/models/{locator,face}.onnx`` (and the
locator's 8-bit copy, ``vision.training.quantize``). With ``--folds K`` it trains K times,
each time on all images but one fold (folds are sets of whole images), and scores the
held-out images with the real reader in both views.
Needs torch (and onnx to export): development only, never at run time.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from vision.nets import CROP_PX, FACE_FILE, LOCATOR_FILE, MODELS_DIR, SECOND_FILE
from vision.training.data import (
    Photo,
    deal_folds,
    face_sample,
    load_photos,
    locator_sample,
    on_a_dark_table,
    on_a_patterned_table,
)
from vision.training.heldout import HELD_OUT_FILE, with_models_of
from vision.training.models import (
    SECOND_WIDTH,
    face_reader_from_onnx,
    make_face_reader,
    make_locator,
)
from vision.training.quantize import quantize_locator

torch: Any = importlib.import_module("torch")
F: Any = importlib.import_module("torch.nn.functional")

logger = logging.getLogger(__name__)

Sample = TypeVar("Sample")


def train_locator(photos: list[Photo], steps: int, seed: int, batch: int = 16) -> Any:
    """The die-centre heatmap net, trained on augmented windows of the photographs."""
    torch.manual_seed(seed)
    net = make_locator()

    def loss(samples: list[Any]) -> Any:
        x = torch.from_numpy(np.stack([s[0] for s in samples]))
        heat = torch.from_numpy(np.stack([s[1] for s in samples]))
        regr = torch.from_numpy(np.stack([s[2] for s in samples]))
        out = net(x)
        return _focal(out[:, 0], heat) + _regression(out[:, 1:4], regr)

    rng = np.random.default_rng(seed)
    batches = _batches(locator_sample, photos, batch, rng, steps)
    return _fit("locator", net, loss, batches, steps, lr=3e-3, weight_decay=1e-4)


def _fit(
    name: str,
    net: Any,
    loss_of: Callable[[list[Any]], Any],
    batches: Iterator[list[Any]],
    steps: int,
    lr: float,
    weight_decay: float,
) -> Any:
    """Train ``net`` on ``steps`` batches (AdamW, one-cycle learning rate), logging the loss."""
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    net.train()
    started = time.time()
    for step, samples in enumerate(batches):
        loss = loss_of(samples)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 200 == 0 or step == steps - 1:
            logger.info(
                "%s step %d/%d loss %.4f (%.0f s)",
                name,
                step,
                steps,
                loss.item(),
                time.time() - started,
            )
    return net.eval()


def _batches(
    make: Callable[[Photo, np.random.Generator], Sample],
    photos: list[Photo],
    batch: int,
    rng: np.random.Generator,
    steps: int,
) -> Iterator[list[Sample]]:
    """``steps`` batches of samples; the next is drawn in a thread while the net learns."""

    def draw() -> list[Sample]:
        return [make(photos[int(i)], rng) for i in rng.integers(len(photos), size=batch)]

    with ThreadPoolExecutor(1) as pool:
        coming = pool.submit(draw)
        for _ in range(steps):
            samples = coming.result()
            coming = pool.submit(draw)
            yield samples


def _focal(logits: Any, heat: Any) -> Any:
    """CenterNet's focal loss: peaks at die centres, soft negatives around them."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    pos_loss = -(torch.log(p) * (1 - p) ** 2 * pos).sum()
    neg_loss = -(torch.log(1 - p) * p**2 * (1 - heat) ** 4 * (1 - pos)).sum()
    return (pos_loss + neg_loss) / pos.sum().clamp(min=1.0)


def _regression(out: Any, target: Any) -> Any:
    mask = target[:, 3:4]
    err = F.smooth_l1_loss(out * mask, target[:, 0:3] * mask, reduction="sum", beta=0.1)
    return err / mask.sum().clamp(min=1.0)


def train_face_reader(
    photos: list[Photo],
    steps: int,
    seed: int,
    batch: int = 168,
    width: float = 1.0,
    start: Path | None = None,
) -> Any:
    """The crop classifier (1..6 pips, not a die), trained on augmented crops; from
    scratch, or further from the reader exported to ``start`` at a tenth of the learning
    rate."""
    torch.manual_seed(seed)
    net = make_face_reader(width) if start is None else face_reader_from_onnx(str(start))

    def loss(samples: list[Any]) -> Any:
        x = torch.from_numpy(np.stack([s[0] for s in samples]))
        y = torch.tensor([s[1] for s in samples])
        return F.cross_entropy(net(x), y, label_smoothing=0.02)

    rng = np.random.default_rng(seed + 1)
    batches = _batches(face_sample, photos, batch, rng, steps)
    lr = 4e-3 if start is None else 4e-4
    return _fit("face", net, loss, batches, steps, lr=lr, weight_decay=5e-4)


def mine_decoys(photos: list[Photo], locator_file: Path) -> list[Photo]:
    """The photographs with the places the trained locator mistakes for dice (its decoys).

    The face reader then learns these as "not a die": hard-negative mining.
    """
    from vision.config import ReaderConfig
    from vision.locate import locate_dice
    from vision.nets import load_nets

    if not locator_file.is_file():
        raise FileNotFoundError(f"no locator to mine decoys with: {locator_file}")
    mined = []
    with tempfile.TemporaryDirectory() as tmp:
        # Only the locator runs here; an untrained face reader completes the pair.
        export_face(make_face_reader().eval(), Path(tmp))
        config = ReaderConfig(
            model_path=str(Path(tmp) / FACE_FILE), detector_path=str(locator_file)
        )
        nets = load_nets(config)
        for photo in photos:
            decoys = [
                (c.x, c.y, c.size)
                for c in locate_dice(photo.image, config, nets)
                if c.score >= 0.1
                and (
                    not len(photo.dice)
                    or (
                        np.hypot(photo.dice[:, 1] - c.x, photo.dice[:, 2] - c.y) / photo.dice[:, 3]
                    ).min()
                    > 0.45
                )
            ]
            mined.append(replace(photo, decoys=np.array(decoys, np.float32).reshape(-1, 3)))
    logger.info("mined %d decoys", sum(len(p.decoys) for p in mined))
    return mined


def with_other_tables(photos: list[Photo], seed: int) -> list[Photo]:
    """Every photograph, once more on a darkened table (``on_a_dark_table``) and once more
    on a patterned one (``on_a_patterned_table``)."""
    rng = np.random.default_rng(seed + 2)
    dark = [on_a_dark_table(p, rng) for p in photos]
    return photos + dark + [on_a_patterned_table(p, rng) for p in photos]


def export_face(face: Any, out_dir: Path, name: str = FACE_FILE) -> None:
    """Write a face reader as an ONNX file the reader loads (``vision.nets``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(
            face,
            torch.zeros(1, 3, CROP_PX, CROP_PX),
            str(out_dir / name),
            input_names=["crops"],
            output_names=["logits"],
            dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
            dynamo=False,
        )


def export_locator(locator: Any, out_dir: Path) -> None:
    """Write the locator as an ONNX file the reader loads (``vision.nets``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(
            locator,
            torch.zeros(1, 3, 256, 256),
            str(out_dir / LOCATOR_FILE),
            input_names=["image"],
            output_names=["maps"],
            dynamic_axes={"image": {2: "height", 3: "width"}},
            dynamo=False,
        )


def cross_validate(root: Path, photos: list[Photo], args: argparse.Namespace) -> int:
    """Train on K-1 folds of images, score the held-out fold with the real reader."""
    from vision.config import ReaderConfig
    from vision.evaluate import Summary, evaluate_folder

    folds = deal_folds(len(photos), args.folds, args.split_seed)
    scores: dict[str, list[Any]] = {"above": [], "below": []}
    for k, held in enumerate(folds):
        if args.fold and k + 1 != args.fold:
            continue
        held_set = {int(i) for i in held}
        train = [p for i, p in enumerate(photos) if i not in held_set]
        names = [photos[int(i)].name for i in held]
        logger.info(
            "fold %d/%d: %d training images, %d held out", k + 1, args.folds, len(train), len(names)
        )
        with tempfile.TemporaryDirectory() as tmp:
            out = args.keep / f"fold-{k + 1}" if args.keep else Path(tmp)
            start = args.start / f"fold-{k + 1}" if args.start else None
            train_and_export(train, args, args.seed + k, out, start)
            if args.keep:  # for ``python -m vision.training.heldout``
                (out / HELD_OUT_FILE).write_text("".join(f"{name}\n" for name in names), "utf-8")
            config = with_models_of(out, ReaderConfig())
            for view in ("above", "below"):
                summary = evaluate_folder(root, view, config, names)
                print("\n".join(summary.lines(f"fold {k + 1} (view {view})")), flush=True)
                scores[view].extend(summary.images)
    for view in ("above", "below"):
        print(
            "\n".join(
                Summary(scores[view]).lines(
                    f"{args.folds}-fold cross-validation, held-out images (view {view})"
                )
            )
        )
    return 0


def train_and_export(
    photos: list[Photo], args: argparse.Namespace, seed: int, out: Path, start: Path | None = None
) -> None:
    """Train what ``--train`` names and write it to ``out`` (the readers further from those
    in ``start``, if given).

    The locator comes first; the face reader and the second reader (the same net
    ``SECOND_WIDTH`` times as wide) then learn the places that locator (the one in ``out``,
    just trained or kept) mistakes for dice as "not a die".
    """
    readers = [(FACE_FILE, 1.0), (SECOND_FILE, SECOND_WIDTH)]
    wanted = {"all": readers, "face": readers[:1], "second": readers[1:]}.get(args.train, [])
    missing = [start / name for name, _ in wanted if start and not (start / name).is_file()]
    if missing:
        raise FileNotFoundError(f"no reader to train further: {missing[0]}")
    trained_on = photos
    photos = with_other_tables(photos, seed)
    written = []
    if args.train in ("all", "locator"):
        export_locator(train_locator(photos, args.locator_steps, seed), out)
        written += [LOCATOR_FILE, quantize_locator(out / LOCATOR_FILE, trained_on).name]
    if wanted:
        photos = mine_decoys(photos, out / LOCATOR_FILE)
    for name, width in wanted:
        begin = start / name if start else None
        net = train_face_reader(photos, args.face_steps, seed, width=width, start=begin)
        export_face(net, out, name)
        written.append(name)
    for name in written:
        logger.info("wrote %s (%.0f kB)", out / name, (out / name).stat().st_size / 1000)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.training.train",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--data", type=Path, required=True, help="folder in the dev set's format")
    parser.add_argument("--out", type=Path, default=MODELS_DIR, help="where to write the models")
    parser.add_argument("--folds", type=int, default=0, help="cross-validate over K folds")
    parser.add_argument("--fold", type=int, default=0, help="with --folds: run only fold K")
    parser.add_argument(
        "--keep", type=Path, help="with --folds: keep each fold's models in DIR/fold-K"
    )
    parser.add_argument(
        "--train",
        choices=("all", "locator", "face", "second"),
        default="all",
        help="all: the locator, then the face reader and the second reader; locator, face or "
        "second: only that one, beside the locator already in --out (with --folds: in each "
        "--keep DIR/fold-K)",
    )
    parser.add_argument("--locator-steps", type=int, default=3000)
    parser.add_argument("--face-steps", type=int, default=7500)
    parser.add_argument(
        "--start",
        type=Path,
        help="train the readers further from those in DIR (with --folds: DIR/fold-K), "
        "--face-steps more at a tenth of the learning rate",
    )
    parser.add_argument("--seed", type=int, default=7, help="training seed (fold K: seed + K - 1)")
    parser.add_argument(
        "--split-seed",
        type=int,
        default=7,
        help="with --folds: the seed that deals the images into folds, kept apart from --seed so "
        "that two training seeds are scored on the same held-out images",
    )
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.set_num_threads(args.threads)
    import cv2

    cv2.setNumThreads(1)
    photos = load_photos(args.data)
    logger.info("%d images, %d dice", len(photos), sum(len(p.dice) for p in photos))
    if args.folds:
        if not 2 <= args.folds <= len(photos):
            print(f"--folds {args.folds}: must be 2..{len(photos)}", file=sys.stderr)
            return 2
        if args.train != "all" and not args.keep:
            print(f"--train {args.train} with --folds: needs --keep DIR", file=sys.stderr)
            return 2
        return cross_validate(args.data, photos, args)
    train_and_export(photos, args, args.seed, args.out, args.start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
