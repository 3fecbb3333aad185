"""The table's camera and dice reader, as ``dudo serve`` opens them.

A camera that is missing or does not start leaves the reveal to be typed in by hand, and is
tried again at each call (:class:`CameraOpener`); a mistake in the config's camera, seat,
colour or vision tables, or ``--seed`` without ``--sim``, stops the start with a
:class:`~companion.start_errors.StartError`.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from companion.config import Config
from companion.reveal import CameraStuck, VisionReader, within
from companion.start_errors import StartError

if TYPE_CHECKING:
    from vision.calibration import CameraSettings

logger = logging.getLogger(__name__)

# How long a camera may take to start: longer, and the table starts without it (a source that
# hangs when opened would otherwise keep the page from ever answering).
CAMERA_START_S = 20.0


def open_camera(
    config: Config, *, sim: bool, seed: int | None
) -> tuple[Any, VisionReader | None, str | None, CameraOpener | None]:
    """The started camera and its reader: (camera, reader, None, None). Without one: (None,
    None, why the reveal is typed by hand, None); or, for a camera that did not start,
    (None, its reader, why, the :class:`CameraOpener` that tries it again at each call)."""
    try:
        from vision.calibration import load_calibration

        # Read with --sim too: a config checked on a laptop is one the Pi can start with.
        calibration = load_calibration(config.path)
        if sim:
            from vision.simulate import SimulatedCamera

            camera: Any = SimulatedCamera(seed=seed)
            reader = VisionReader(
                config.path, calibration=lambda: camera.calibration, seat_of=camera.seat_of,
                die_size=camera.options.die_size,
            )
        else:
            reader = VisionReader(config.path, calibration=calibration,
                                  view=calibration.camera.view)
    except ValueError as err:  # a bad [camera], [seats], [colours] or [vision] table
        raise StartError(str(err)) from err
    except ImportError as err:
        return None, None, f"the camera cannot be used ({err}): enter the reveal by hand", None
    spec = "sim" if sim else calibration.camera.source
    if seed is not None and spec != "sim":
        raise StartError(f"--seed {seed} makes the simulated rolls repeatable: give it with"
                         f" --sim (or [camera] source = 'sim'), not for this table's camera"
                         f" ({spec})")
    if spec == "none":
        return None, None, None, None
    unreadable = _models_unreadable(config, reader)
    if unreadable:
        # The referee needs no reader: the table starts, and says so at once.
        logger.error("%s", unreadable)
        return None, None, f"{unreadable}: enter the reveal by hand", None
    if sim:
        camera.start()
        return camera, reader, None, None
    opener = CameraOpener(spec, calibration.camera, seed)
    try:
        camera, why = opener()
    except ValueError as err:
        raise StartError(f"[camera] source: {err}") from err
    if camera is None:
        return None, reader, why, opener
    return camera, reader, None, None


class CameraOpener:
    """Opens the config's camera: at start, and again at each call while the table has none
    (one missing at start, or failing as it started, its cable reseated since).

    Called, it gives the started camera, or None and why the reveal is typed by hand. A
    camera that did not start within CAMERA_START_S (hung as it opens) is not tried again
    while that start still hangs; once it ends, the camera is taken if it started, else
    closed and opened anew. ValueError for a source spec that names no camera. The camera
    it opened last is closed by :meth:`close`.
    """

    def __init__(self, spec: str, settings: CameraSettings, seed: int | None) -> None:
        self.spec, self.settings, self.seed = spec, settings, seed
        self.camera: Any = None
        self._hung: threading.Thread | None = None
        self._late: Any = None  # the camera whose start hung
        self._late_started = threading.Event()
        self._why: str | None = None

    def __call__(self) -> tuple[Any, str | None]:
        """The started camera and None, or None and why the reveal is typed by hand."""
        from vision.sources import open_source

        if self._hung is not None:
            if self._hung.is_alive():
                return None, self._why
            late, self._hung, self._late = self._late, None, None
            if self._late_started.is_set():
                # Before, it was left open, unused, and held the camera (Picamera2 keeps
                # every camera it opened): each later open found it busy (a helper's audit).
                logger.warning("the camera %r started late: taken now", self.spec)
                self.camera = late
                return late, None
            _close_quietly(late)
        started = self._late_started = threading.Event()
        camera = None
        try:
            camera = open_source(self.spec, settings=self.settings, seed=self.seed)

            def start() -> None:
                camera.start()
                started.set()

            within(start, CAMERA_START_S, "it did not start")
        except ValueError:
            raise  # a setting the source refuses: a mistake in the config
        except Exception as err:
            if isinstance(err, CameraStuck):
                self._hung, self._late = err.thread, camera
            elif camera is not None:
                _close_quietly(camera)
            logger.error("the camera %r did not start: %s", self.spec, err)
            self._why = f"no camera: {err}; enter the reveal by hand"
            return None, self._why
        self.camera = camera
        return camera, None

    def close(self) -> None:
        """Close the camera it opened, if any (one whose start still hangs is left to it)."""
        if self.camera is not None:
            self.camera.close()


def _close_quietly(camera: Any) -> None:
    """Close a camera that did not start, whatever it says."""
    try:
        camera.close()
    except Exception as err:  # noqa: BLE001 (it failed already: said where it did)
        logger.warning("the camera that did not start did not close either: %s", err)


def _models_unreadable(config: Config, reader: VisionReader) -> str | None:
    """Why the reader's models cannot be loaded (a file missing, or made for another part),
    naming the config's [vision] table; None once they are loaded. Loaded at start, a
    wrong model is said before the first reveal, which is then read without that wait."""
    try:
        reader.load()
    except ImportError as err:
        return f"the dice reader cannot be used ({err})"
    except (FileNotFoundError, ValueError) as err:
        return f"{config.path or 'the shipped models'}: [vision]: {err}"
    return None
