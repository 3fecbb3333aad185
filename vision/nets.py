"""The reader's small models (ONNX, shipped in ``vision/models/``), run by ONNX Runtime where
it is installed (the ``vision`` extra), else by OpenCV's dnn."""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import logging
import math
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType

import numpy as np

from vision.config import ReaderConfig

logger = logging.getLogger(__name__)

MODELS_DIR = Path(__file__).resolve().parent / "models"
LOCATOR_FILE = "locator.onnx"
FACE_FILE = "face.onnx"
SECOND_FILE = "face-second.onnx"

# The geometry both models were trained with (see vision/training/models.py).
DETECT_DIE_PX = 16.0
STRIDE = 4
CROP_PX = 48
CROP_DIE_PX = 32.0
NOT_A_DIE = 6
# The face reader's first look at a die at least this sure is not checked in the mirror
# (``Nets.glance``): held out, every degradation and both views read die for die as with
# both looks, and the dev photographs take about 30% fewer of the face reader's looks.
GLANCE_SURE = 0.99

# The most crops a face reader is given in one call: a frame of hundreds of things that look
# like dice (a chessboard, printed text) gave the second reader 3,472 crops at once, and
# the process 1.4 GB (9.7 GB at 2028x1520). A crop reads the same alone or among others.
MOST_CROPS = 128

# A function that runs one model: its input blob in, its first output out.
Forward = Callable[[np.ndarray], np.ndarray]

# glibc's mallopt setting for the memory kept at the top of the heap when freed (M_TOP_PAD),
# and how much the reader asks it to keep (see _keep_freed_memory).
_M_TOP_PAD = -2
_KEPT_BYTES = 64 << 20


@dataclass(frozen=True)
class Nets:
    """The loaded locator, face reader and second reader (or None), each a ``Forward``;
    their calls are serialised by a lock.

    Every net looks at its input as given and mirrored, and the two answers are averaged:
    a die shows the same face in a mirror, so the reader reads a photograph from above and
    the same photograph seen from under the glass alike, and two looks err less than one.
    The face reader's first look at a die is the one exception (``glance``): a look near
    certain is not checked in the mirror, and that look is the same from either side.

    ONNX Runtime runs the locator's 8-bit copy where one lies beside it (``eight_bit_copy``,
    made by ``python -m vision.training.quantize``; ``[vision] eight_bit_locator``): less than
    half the float net's time, the same dice held out. OpenCV's dnn runs the float net (4.6
    cannot read the copy; 4.10 runs it no faster).

    The second reader is a wider face reader, about twice as slow: it reads again only the
    dice the face reader is unsure of. ``coarse_locator`` is the locator loaded once more,
    for the coarse first look of a search (``vision.locate``): OpenCV's dnn plans a net for
    one input size, and planning it again for every other size costs more than that look
    (ONNX Runtime plans none: there it is None).
    """

    locator: Forward
    face: Forward
    lock: threading.Lock
    second: Forward | None = None
    coarse_locator: Forward | None = None

    def locate(self, blob: np.ndarray, coarse: bool = False) -> np.ndarray:
        """Locator output (1, 4, H/4, W/4) for a normalised (1, 3, H, W) input (``coarse``:
        a coarse first look)."""
        net = self.coarse_locator if coarse and self.coarse_locator is not None else self.locator
        import cv2  # only here: importing vision.nets must not load OpenCV

        # One look at a time: the shipped locator takes one image (a batch of 1).
        out = self._forward(net, blob)
        # OpenCV mirrors the blob's rows in a third of the time numpy copies a reversed view.
        flipped = cv2.flip(blob.reshape(-1, blob.shape[-1]), 1).reshape(blob.shape)
        mirrored = self._forward(net, flipped)[..., ::-1].copy()
        mirrored[:, 2] *= -1.0  # the x offset within a cell, seen in the mirror
        return (out + mirrored) / 2.0

    def read(self, crops: np.ndarray) -> np.ndarray:
        """Face reader probabilities (N, 7) for normalised (N, 3, CROP_PX, CROP_PX) crops."""
        return self._probabilities(self.face, crops)

    def glance(self, crops: np.ndarray) -> np.ndarray:
        """Face reader probabilities (N, 7) for normalised (N, 3, CROP_PX, CROP_PX) crops:
        one look at each, and where it is less sure than ``GLANCE_SURE``, its mirror image's
        too, averaged.

        The one look is at the crop or at its mirror image, whichever is the brighter on its
        left, so a die and its mirror image are looked at alike: a photograph from above and
        the same photograph from under the glass are read the same way. (A crop as bright on
        either side is read both ways.) The column sums of a crop and of its mirror image are
        the same numbers reversed, and ``math.fsum`` adds them exactly. (The crops of a
        photograph and of its mirror image differ by the warp's rounding, a few grey levels,
        so their probabilities differ in the second or third decimal, as with two looks.)
        The first looks are taken in one call, the mirror looks in another: a crop reads the
        same alone or among others, and one call costs less than many.
        """
        probs = np.empty((len(crops), NOT_A_DIE + 1))
        looks, at = [], []
        for i, crop in enumerate(crops):
            columns = crop.sum(axis=(0, 1), dtype=np.float64)
            half = len(columns) // 2
            left, right = math.fsum(columns[:half]), math.fsum(columns[-half:])
            if left == right:
                probs[i] = self.read(crop[None])[0]
            else:
                looks.append(crop if left > right else crop[..., ::-1])
                at.append(i)
        if looks:
            looked = np.stack(looks)
            first = _softmax(self._forward(self.face, looked))
            unsure = first.max(axis=1) < GLANCE_SURE
            if unsure.any():
                mirrored = _softmax(self._forward(self.face, looked[unsure][..., ::-1]))
                first[unsure] = (first[unsure] + mirrored) / 2.0
            probs[at] = first
        return probs

    def read_again(self, crops: np.ndarray) -> np.ndarray:
        """The second reader's probabilities for the crops (the face reader's, if none)."""
        return self._probabilities(self.face if self.second is None else self.second, crops)

    def _probabilities(self, net: Forward, crops: np.ndarray) -> np.ndarray:
        probs = _softmax(self._forward(net, np.concatenate([crops, crops[..., ::-1]])))
        return (probs[: len(crops)] + probs[len(crops) :]) / 2.0

    def _forward(self, net: Forward, blob: np.ndarray) -> np.ndarray:
        if len(blob) <= MOST_CROPS:
            return self._run(net, blob)
        return np.concatenate([self._run(net, blob[i: i + MOST_CROPS])
                               for i in range(0, len(blob), MOST_CROPS)])

    def _run(self, net: Forward, blob: np.ndarray) -> np.ndarray:
        with self.lock:
            return net(np.ascontiguousarray(blob))


def _softmax(logits: np.ndarray) -> np.ndarray:
    """Probabilities (N, 7) from a face reader's outputs (N, 7)."""
    logits = logits.astype(np.float64)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    return probs / probs.sum(axis=1, keepdims=True)


def load_nets(config: ReaderConfig) -> Nets:
    """The nets named by the config (or the shipped ones), loaded once per set of paths.

    A config that names its own face reader (``model_path``) and no second reader
    (``second_model_path``) reads every look with that face reader.
    """
    face = Path(config.model_path) if config.model_path else MODELS_DIR / FACE_FILE
    if config.second_model_path:
        second: Path | None = Path(config.second_model_path)
    else:
        second = None if config.model_path else MODELS_DIR / SECOND_FILE
    return _load(str(locator_file(config)), str(face), str(second) if second else None,
                 runtime_of(config.runtime))


def locator_file(config: ReaderConfig) -> Path:
    """The locator the config runs: where ONNX Runtime runs it, its 8-bit copy if one lies
    beside it (unless ``eight_bit_locator`` is false); else the float net."""
    locator = Path(config.detector_path) if config.detector_path else MODELS_DIR / LOCATOR_FILE
    copy = eight_bit_copy(locator) if locator.name else locator  # "/" has no copy beside it
    if (config.eight_bit_locator and runtime_of(config.runtime) == "onnxruntime"
            and copy.is_file() and _copy_of(copy, locator)):
        return copy
    return locator


def _copy_of(copy: Path, locator: Path) -> bool:
    """Whether ``copy`` was made from the net at ``locator``: it names that net's digest
    (``vision.training.quantize`` writes it). A copy left beside a net put there since is
    not run, and said once: it would read with the other net's weights."""
    try:
        copy_stat, locator_stat = copy.stat(), locator.stat()
    except OSError:  # the net itself missing: the float net's load says so
        return False
    return _made_from(str(copy), str(locator), (copy_stat.st_mtime_ns, copy_stat.st_size,
                                                locator_stat.st_mtime_ns, locator_stat.st_size))


@lru_cache(maxsize=8)
def _made_from(copy: str, locator: str, _stats: tuple[int, ...]) -> bool:
    try:
        made = locator_digest(Path(locator)).encode("ascii") in Path(copy).read_bytes()
    except OSError:
        return False
    if not made:
        logger.warning("%s was not made from %s: the float net is run (python -m "
                       "vision.training.quantize makes its 8-bit copy again)", copy, locator)
    return made


def locator_digest(locator: Path) -> str:
    """The SHA-256 of the net at ``locator``, which its 8-bit copy names."""
    return hashlib.sha256(locator.read_bytes()).hexdigest()


def runtime_of(asked: str) -> str:
    """The runtime a config's ``runtime`` names: "onnxruntime" or "opencv" ("auto": ONNX
    Runtime where it is installed); ValueError where ONNX Runtime is asked for and missing."""
    if asked == "opencv":
        return asked
    try:
        onnx_runtime()
    except ImportError:
        if asked == "onnxruntime":
            raise ValueError("[vision] runtime = 'onnxruntime', but ONNX Runtime is not "
                             "installed: pip install onnxruntime (or runtime = 'auto')") from None
        return "opencv"
    return "onnxruntime"


def onnx_runtime() -> ModuleType:
    """ONNX Runtime, imported with its usage telemetry off: from 1.29 on it otherwise sends
    it from Linux and keeps a device identifier under ~/.cache (a warning on stderr where the
    home cannot be written), from the moment it is imported; a referee at a games table has
    no business calling out. A user's own ``ORT_DISABLE_TELEMETRY`` is kept."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime

    return onnxruntime


def eight_bit_copy(locator: Path) -> Path:
    """Where the 8-bit copy of the locator at ``locator`` lies: beside it, "-int8" added to
    its name."""
    return locator.with_name(f"{locator.stem}-int8{locator.suffix}")


@lru_cache(maxsize=4)
def _load(locator_path: str, face_path: str, second_path: str | None, runtime: str) -> Nets:
    _keep_freed_memory()
    load = _onnxruntime_forward if runtime == "onnxruntime" else _opencv_forward
    nets: list[Forward | None] = []
    for path, role in ((locator_path, LOCATOR), (face_path, FACE_READER),
                       (second_path, FACE_READER)):
        if path is None:
            nets.append(None)
            continue
        if not Path(path).is_file():
            if Path(path).is_dir():
                raise FileNotFoundError(f"dice reader model {path}: a folder, not a model file")
            if Path(path).exists():  # /dev/null, a pipe: it was said to be missing
                raise FileNotFoundError(f"dice reader model {path}: not a file")
            raise FileNotFoundError(f"dice reader model missing: {path}")
        nets.append(_checked(load(path), path, role))
    locator, face, second = nets
    assert locator is not None and face is not None
    coarse = _opencv_forward(locator_path) if runtime == "opencv" else None
    return Nets(locator, face, threading.Lock(), second, coarse)


@dataclass(frozen=True)
class _Role:
    """What a model is for: an input as the reader gives it (the locator one photograph, a
    face reader a crop and its mirror image) and the output that input must give."""

    name: str
    given: tuple[int, int, int, int]
    gives: tuple[int, ...]


LOCATOR = _Role("die locator", (1, 3, 64, 64), (1, 4, 64 // STRIDE, 64 // STRIDE))
FACE_READER = _Role("face reader", (2, 3, CROP_PX, CROP_PX), (2, NOT_A_DIE + 1))


def _checked(net: Forward, path: str, role: _Role) -> Forward:
    """The net, once it has read a blank input of its role as the reader will: a model made
    for another role (a locator named as the face reader, say) is a clear ValueError here,
    not a failure in the middle of a reading."""
    try:
        shape = tuple(np.asarray(net(np.zeros(role.given, np.float32))).shape)
    except Exception as err:  # each runtime has its own errors, with no common base class
        # The first line says what (ONNX Runtime's after its error code, "... : 2 : ... : ").
        reason = str(err).strip().splitlines()[0].split(" : ")[-1] if str(err).strip() else ""
        raise ValueError(f"dice reader model {path} is not a {role.name}: it cannot read a"
                         f" {_dims(role.given)} input ({reason or type(err).__name__})") from None
    if shape != role.gives:
        raise ValueError(f"dice reader model {path} is not a {role.name}: a {_dims(role.given)}"
                         f" input gives {_dims(shape)}, where it must give {_dims(role.gives)}")
    return net


def _dims(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape))


def _onnxruntime_forward(path: str) -> Forward:
    """The model at ``path`` run by ONNX Runtime, on as many threads as OpenCV's (one under
    ``cv2.setNumThreads(1)``, as the bench and the evaluation run)."""
    import cv2  # only here: importing vision.nets must not load OpenCV

    onnxruntime = onnx_runtime()

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = max(1, cv2.getNumThreads())
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: no warnings on the console
    # Threads that wait for work sleep instead of spinning: the page's server shares the cores.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # No arena of ONNX Runtime's own: it never gives back what it took, and grows by doubling
    # when a read needs more than it holds. Over 1,000 reveals of 2-40 dice it took the
    # reader from 192 to 356 MB in two steps (a table with phones following crept from 184 to
    # 251 MB in 40 minutes); without it 153 to 159 MB, as fast (python -m vision.memory).
    options.enable_cpu_mem_arena = False
    try:
        session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    except Exception as err:  # ONNX Runtime's own errors share no base class
        reason = str(err).strip().splitlines()[-1] if str(err).strip() else type(err).__name__
        raise ValueError(f"dice reader model {path} cannot be loaded "
                         f"(not an ONNX model ONNX Runtime reads: {reason})") from None
    name = session.get_inputs()[0].name

    def forward(blob: np.ndarray) -> np.ndarray:
        return np.asarray(session.run(None, {name: blob})[0])

    return forward


def _opencv_forward(path: str) -> Forward:
    """The model at ``path`` run by OpenCV's dnn."""
    import cv2  # only here: importing vision.nets must not load OpenCV

    try:
        net = cv2.dnn.readNetFromONNX(path)
    except cv2.error as err:
        # OpenCV's own words end its message: "... in function 'readNet...'".
        reason = (err.err or str(err)).strip().splitlines()[-1]
        raise ValueError(f"dice reader model {path} cannot be loaded "
                         f"(not an ONNX model OpenCV reads: {reason})") from None

    def forward(blob: np.ndarray) -> np.ndarray:
        # One image at a time: OpenCV plans the net again for every new input shape, and a
        # face reader is given as many crops as a photograph has candidates, or doubts
        # (``Nets.glance``, ``Nets.read_again``; a re-plan costs about two looks).
        outs = []
        for image in blob:
            net.setInput(image[None])
            outs.append(np.asarray(net.forward()))
        return np.concatenate(outs)

    return forward


def normalise(x: np.ndarray) -> np.ndarray:
    """Float CHW input of all the nets: each image standardised on its own (exposure-proof).

    The nets learn on what this gives (``vision.training.data``). OpenCV's mean and
    standard deviation, a third of numpy's time on a photograph.
    """
    import cv2  # only here: importing vision.nets must not load OpenCV

    mean, std = cv2.meanStdDev(np.ascontiguousarray(x).reshape(-1, 1))
    x = (x.astype(np.float32) - np.float32(mean[0, 0])) / np.float32(std[0, 0] + 8.0)
    return np.ascontiguousarray(x.transpose(2, 0, 1))


def _keep_freed_memory() -> None:
    """Ask glibc to keep up to ``_KEPT_BYTES`` of freed memory at the top of its heap for the
    next read.

    Every read makes and frees arrays of a few megabytes (a photograph scaled, its blob for
    the locator). Asked this, glibc also stops raising the size from which it maps an array
    on its own as such arrays are freed (left to raise it, it most likely carves them from
    its heap and keeps the holes). Over 1,000 reads (``python -m vision.memory``) the reader
    then stayed at 160 MB (peak 268) where without it it grew in steps to 219-283 MB (peak
    325-340). Reads are as fast either way here (``python -m vision.bench``). Nothing is
    done where the C library has no ``mallopt`` (not glibc).
    """
    # The process's own symbols, the C library's among them (no search for its file, which
    # would start ldconfig).
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).mallopt(_M_TOP_PAD, _KEPT_BYTES)
