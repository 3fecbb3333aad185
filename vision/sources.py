"""Frame sources behind one small interface: Picamera2, an OpenCV device, a folder, the simulator.

A source is started once and kept running; ``capture()`` takes one frame (BGR, uint8)
when asked, which at the table is only when a call is made. ``open_source(spec)`` builds
one from its spec: ``picamera2``, ``device:N`` (or ``device:PATH`` for a video file or
stream), ``folder:DIR`` or ``sim``. A camera that cannot be opened is a ``CameraUnavailable``
naming the source; nothing is imported from picamera2 until a Picamera2 source starts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import stat
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from vision.calibration import CameraSettings, source_parts
from vision.reader import load_image
from vision.reading import IMAGE_SUFFIXES, is_photograph
from vision.render import RenderOptions
from vision.simulate import SimulatedCamera

logger = logging.getLogger(__name__)

# libcamera's enumerations: AeStateSearching, and ExposureTimeModeManual / AnalogueGainModeManual,
# and AfModeManual (the lens held where it is put).
_AE_SEARCHING = 1
_MANUAL = 1
_AF_MANUAL = 0


class CameraUnavailable(RuntimeError):
    """The camera named by a source spec cannot be opened or gives no frame."""


@runtime_checkable
class FrameSource(Protocol):
    """Anything that gives one BGR frame on request."""

    name: str

    def start(self) -> None:
        """Open the camera and keep it running (idempotent)."""

    def capture(self) -> np.ndarray:
        """One frame, BGR uint8, taken now (starts the source first if needed)."""
        ...

    def close(self) -> None:
        """Release the camera (idempotent)."""


def open_source(
    spec: str, *, settings: CameraSettings | None = None, seed: int | None = None
) -> FrameSource:
    """The frame source a spec names, not yet started.

    ``settings`` gives the frame size and the exposure locked at calibration (used by
    Picamera2 and, where the driver allows it, by OpenCV devices); ``seed`` makes the
    simulator repeatable. An unknown spec is a ValueError that lists the known ones.
    """
    kind, rest = source_parts(spec)
    if kind == "picamera2":
        return PicameraSource(settings)
    if kind == "device":
        target: int | str = int(rest) if rest.isdigit() else rest  # ASCII, 0-999: source_parts
        return DeviceSource(target, settings)
    if kind == "folder":
        return FolderSource(Path(rest))
    if kind == "sim":  # looking from where the config's camera looks
        view = settings.view if settings is not None else "below"
        return SimulatedCamera(seed=seed, options=RenderOptions(view=view))
    raise ValueError(f"frame source {spec!r}: no camera (a table that types its reveals in)")


class PicameraSource:
    """The Raspberry Pi camera through Picamera2, in a still configuration, kept running.

    ``start`` configures full-resolution stills (BGR in memory, as OpenCV wants), starts the
    camera and, when calibration locked them, fixes exposure, gain and white balance so
    every reveal is lit the same. ``capture`` waits for the frames to come (none kept from
    before the request) and drops ``discard`` of them first, the frame in flight.
    ``camera_factory`` builds the Picamera2 object (default: ``picamera2.Picamera2``).
    """

    def __init__(
        self,
        settings: CameraSettings | None = None,
        *,
        camera_factory: Callable[[], Any] | None = None,
        discard: int = 1,
    ) -> None:
        self.name = "picamera2"
        self.discard = discard
        self.settings = settings or CameraSettings()
        self._factory = camera_factory
        self._camera: Any = None

    def start(self) -> None:
        """Open and start the camera once; later calls do nothing."""
        if self._camera is not None:
            return
        factory = self._factory or _picamera2_class()
        try:
            camera = factory()
        except (IndexError, RuntimeError, OSError) as err:
            # Picamera2() raises IndexError when libcamera lists no camera at all, and
            # RuntimeError when it cannot acquire one (another program holds it).
            busy = "" if isinstance(err, IndexError) else ", or another program holds it"
            raise CameraUnavailable(
                f"picamera2: no camera found{busy} ({err or type(err).__name__})"
            ) from err
        try:
            size = (self.settings.width, self.settings.height)
            # RGB888 is B, G, R in memory: exactly OpenCV's BGR, no conversion per frame.
            # The calibrated exposure and white balance go in the configuration, so that they
            # hold from the first frame (set after the start, they take a few frames).
            known = getattr(camera, "camera_controls", None) or {}
            controls = {**(self.locked_controls(known) if self.settings.locked else {}),
                        **self.focus_controls(known)}
            locked = {"controls": controls} if controls else {}
            # queue=False: Picamera2 would otherwise hold the last frame finished and hand
            # it out at once, a frame taken before the request (before the light came on).
            config = camera.create_still_configuration(
                main={"size": size, "format": "RGB888"}, buffer_count=2, queue=False, **locked
            )
            camera.configure(config)
            camera.start()
        except Exception as err:
            camera.close()
            raise CameraUnavailable(f"picamera2: could not start the camera: {err}") from err
        self._camera = camera
        logger.info("picamera2 started at %dx%d", *size)

    def locked_controls(self, known: Mapping[str, object] | None = None) -> dict[str, object]:
        """Controls that fix exposure, gain and white balance to the calibrated values.

        The values themselves turn the automatic controls off: ``AeEnable`` and ``AwbEnable``
        are sent only where no value stands in their place, as Picamera2's maintainers advise
        (sent beside the values, libcamera may apply them last and keep the exposure it had
        instead; picamera2 issue #933). Since libcamera 0.5 a fixed exposure and gain also
        need their modes set to manual (``ExposureTimeMode``, ``AnalogueGainMode``: 1),
        where the camera lists those controls (``known``: Picamera2's ``camera_controls``);
        Picamera2 0.3.27 on sets them itself, an older one on a newer libcamera may not.
        """
        s, known = self.settings, known or {}
        controls: dict[str, object] = {}
        if s.exposure_us is not None:
            controls["ExposureTime"] = s.exposure_us
            if "ExposureTimeMode" in known:
                controls["ExposureTimeMode"] = _MANUAL
        if s.analogue_gain is not None:
            controls["AnalogueGain"] = s.analogue_gain
            if "AnalogueGainMode" in known:
                controls["AnalogueGainMode"] = _MANUAL
        if s.exposure_us is None or s.analogue_gain is None:
            controls["AeEnable"] = False  # what is not given stays as it is now
        if s.colour_gains is not None:
            controls["ColourGains"] = s.colour_gains
        else:
            controls["AwbEnable"] = False
        return controls

    def focus_controls(self, known: Mapping[str, object] | None = None) -> dict[str, object]:
        """Controls that hold the lens where calibration focused it (a camera that focuses
        itself, listing ``AfMode``; none for a camera of fixed focus, or before calibration,
        where the lens stays where libcamera puts it)."""
        lens = self.settings.lens_position
        if lens is None or "AfMode" not in (known or {}):
            return {}
        return {"AfMode": _AF_MANUAL, "LensPosition": lens}

    def focus(self) -> tuple[float | None, bool]:
        """Focus the lens on what lies on the glass now (the dice, at calibration): its
        position in dioptres and whether the camera says it is in focus; (None, True) for
        a camera of fixed focus (no ``AfMode`` among its controls)."""
        self.start()
        if "AfMode" not in (getattr(self._camera, "camera_controls", None) or {}):
            return None, True
        try:
            focused = bool(self._camera.autofocus_cycle())
            lens = self._camera.capture_metadata()["LensPosition"]
            return float(lens), focused
        except (KeyError, TypeError, ValueError, RuntimeError) as err:
            raise CameraUnavailable(f"picamera2: the lens could not focus ({err})") from err

    def exposure(self, settle_s: float = 1.0, give_up_s: float = 5.0) -> CameraSettings:
        """The exposure the camera's automatic control settled on, to lock at calibration:
        after ``settle_s``, the first frame whose metadata says the control has settled
        (``_settled``), or the last within ``give_up_s`` more."""
        self.start()
        time.sleep(settle_s)
        try:  # (a camera failing here said a traceback: session 92's audit)
            metadata, before = self._camera.capture_metadata(), None
            deadline = time.monotonic() + give_up_s
            while not _settled(metadata, before) and time.monotonic() < deadline:
                before, metadata = metadata, self._camera.capture_metadata()
        except RuntimeError as err:
            raise CameraUnavailable(f"picamera2: the exposure could not be metered ({err})"
                                    ) from err
        try:
            gains = metadata["ColourGains"]
            # The rest of the settings kept: a lens focused at an earlier calibration stays
            # held (it was dropped, and the camera left to focus at about a metre).
            return dataclasses.replace(
                self.settings,
                source="picamera2",
                exposure_us=int(metadata["ExposureTime"]),
                analogue_gain=float(metadata["AnalogueGain"]),
                colour_gains=(float(gains[0]), float(gains[1])),
            )
        except (KeyError, TypeError, IndexError) as err:
            raise CameraUnavailable(f"picamera2: no exposure in the metadata ({err})") from err

    def capture(self) -> np.ndarray:
        """One still frame, BGR, wholly exposed after this call began.

        A camera that fails here (its cable pulled and pushed back in) is closed: the next
        capture starts it anew, as at the first."""
        self.start()
        try:
            # The frame in flight may have started before the light under the glass came on
            # (rolling shutter: dark bands); drop it and keep the next one.
            for _ in range(self.discard):
                self._camera.capture_array("main")
            frame = self._camera.capture_array("main")
            if frame is None or frame.size == 0:
                raise CameraUnavailable("picamera2: the camera gave an empty frame")
        except Exception as err:
            with contextlib.suppress(Exception):  # a camera that failed may fail to stop
                self.close()
            if isinstance(err, CameraUnavailable):
                raise
            raise CameraUnavailable(f"picamera2: the camera failed ({err})") from err
        return np.ascontiguousarray(frame[:, :, :3])

    def close(self) -> None:
        """Stop and release the camera."""
        if self._camera is not None:
            camera, self._camera = self._camera, None
            try:
                camera.stop()
            finally:
                camera.close()  # released even when stopping failed


def _settled(metadata: Mapping[str, Any], before: Mapping[str, Any] | None) -> bool:
    """Whether a frame's metadata says the automatic exposure has settled: ``AeLocked``
    (libcamera before 0.5), ``AeState`` other than searching (0.5 on, which has no
    ``AeLocked``: before, its absence passed for settled, and calibration locked the first
    frame's exposure), or, with neither, the same exposure and gain as the frame before."""
    if "AeLocked" in metadata:
        return metadata["AeLocked"] is True
    if "AeState" in metadata:
        return bool(metadata["AeState"] != _AE_SEARCHING)
    exposure = ("ExposureTime", "AnalogueGain")
    return before is not None and all(metadata.get(k) == before.get(k) for k in exposure)


def _picamera2_class() -> Callable[[], Any]:
    try:
        from picamera2 import Picamera2
    except ImportError as err:
        raise CameraUnavailable(
            "picamera2: the picamera2 module is not installed "
            "(on Raspberry Pi OS: apt install python3-picamera2, venv with --system-site-packages)"
        ) from err
    return Picamera2


class DeviceSource:
    """An OpenCV ``VideoCapture``: a camera by index, or a video file or stream by path.

    A live camera keeps a few frames queued; ``capture`` drops them so the frame is the
    table as it is now. A video file loops when it ends.
    """

    def __init__(self, target: int | str, settings: CameraSettings | None = None) -> None:
        self.name = f"device:{target}"
        self.target = target
        self.settings = settings
        self._capture: cv2.VideoCapture | None = None

    @property
    def live(self) -> bool:
        """A camera (by index, or a device node such as /dev/video0 or a /dev/v4l/by-id link
        to one) rather than a file: its queued frames are stale."""
        if isinstance(self.target, int):
            return True
        try:
            return stat.S_ISCHR(os.stat(self.target).st_mode)
        except OSError:
            return False

    def start(self) -> None:
        """Open the device once; a device that will not open is CameraUnavailable."""
        if self._capture is not None:
            return
        # OpenCV's backends each log why they could not open it: the one message is ours.
        level = cv2.getLogLevel()
        cv2.setLogLevel(0)  # silent
        try:
            capture = cv2.VideoCapture(self.target)
        finally:
            cv2.setLogLevel(level)
        if not capture.isOpened():
            capture.release()
            # A device node that is missing (the camera unplugged) is a camera still, not a video.
            camera = self.live or str(self.target).startswith("/dev/")
            what = ("cannot open video" if not camera
                    else "no camera at index" if isinstance(self.target, int) else "no camera at")
            raise CameraUnavailable(f"{self.name}: {what} {self.target} (cv2.VideoCapture)")
        if self.live and self.settings is not None:
            self._apply(capture, self.settings)
        self._capture = capture

    @staticmethod
    def _apply(capture: cv2.VideoCapture, settings: CameraSettings) -> None:
        # Drivers ignore what they do not support: these are requests, not guarantees.
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, settings.width)
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, settings.height)
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        if settings.exposure_us is not None:
            capture.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)  # V4L2: 1 is manual exposure
            capture.set(cv2.CAP_PROP_EXPOSURE, settings.exposure_us / 100)  # V4L2: 100 us units
        if settings.colour_gains is not None:
            capture.set(cv2.CAP_PROP_AUTO_WB, 0)

    def capture(self) -> np.ndarray:
        """The next frame (a live camera: the newest one)."""
        self.start()
        assert self._capture is not None
        if self.live:
            for _ in range(4):  # V4L2 queues up to 4 buffers by default
                self._capture.grab()
        ok, frame = self._capture.read()
        if not ok and not self.live:
            self._capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self._capture.read()
        if not ok or frame is None:
            self.close()  # opened again at the next capture (a camera unplugged, plugged back)
            raise CameraUnavailable(f"{self.name}: the device gave no frame")
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        return np.asarray(frame)

    def close(self) -> None:
        """Release the device."""
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class FolderSource:
    """The photographs of a folder, in name order, one per capture, cycling at the end."""

    def __init__(self, folder: Path) -> None:
        self.name = f"folder:{folder}"
        self.folder = folder
        self.files: list[Path] = []
        self._next = 0

    def start(self) -> None:
        """List the folder's images; a missing or image-less folder is CameraUnavailable."""
        if self.files:
            return
        if not self.folder.is_dir():
            raise CameraUnavailable(f"{self.name}: no such folder")
        self.files = sorted(p for p in self.folder.iterdir() if is_photograph(p))
        if not self.files:
            raise CameraUnavailable(
                f"{self.name}: no images ({', '.join(IMAGE_SUFFIXES)}) in the folder"
            )

    def capture(self) -> np.ndarray:
        """The next image; a file that cannot be decoded is UnreadableImage naming it."""
        self.start()
        path = self.files[self._next % len(self.files)]
        self._next += 1
        return load_image(path)

    def close(self) -> None:
        """Nothing to release; the next start lists the folder again."""
        self.files = []
        self._next = 0
