"""Frame sources: one frame per request from a camera, a video, a folder or the simulator."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.calibration import CameraSettings
from vision.reading import UnreadableImage
from vision.simulate import SimulatedCamera
from vision.sources import (
    CameraUnavailable,
    DeviceSource,
    FolderSource,
    FrameSource,
    PicameraSource,
    open_source,
)


def solid(value: int, size: tuple[int, int] = (48, 64)) -> np.ndarray:
    return np.full((*size, 3), value, np.uint8)


@pytest.mark.parametrize(
    "spec, kind",
    [
        ("picamera2", PicameraSource),
        ("device:0", DeviceSource),
        ("device:/tmp/table.avi", DeviceSource),
        ("folder:/tmp/photos", FolderSource),
        ("sim", SimulatedCamera),
    ],
)
def test_each_spec_opens_its_kind_of_source(spec: str, kind: type) -> None:
    source = open_source(spec)
    assert isinstance(source, kind)
    assert isinstance(source, FrameSource)
    assert source.name == spec


@pytest.mark.parametrize("spec", ["webcam", "device:", "folder:", "picamera2:1", "sim:3", ""])
def test_an_unknown_spec_is_refused_with_the_known_ones(spec: str) -> None:
    with pytest.raises(ValueError, match="use picamera2, device:N .* folder:DIR, sim or none"):
        open_source(spec)


# -- folder ----------------------------------------------------------------------------------


def test_a_folder_gives_its_images_in_name_order_and_starts_again(tmp_path: Path) -> None:
    for name, value in [("b.png", 20), ("a.jpg", 10), ("c.bmp", 30)]:
        cv2.imwrite(str(tmp_path / name), solid(value))
    (tmp_path / "notes.txt").write_text("not a photograph")
    (tmp_path / "._a.jpg").write_bytes(b"\x00\x05\x16\x07")  # a Mac's copy of its own
    source = open_source(f"folder:{tmp_path}")
    source.start()
    levels = [int(np.median(source.capture())) for _ in range(4)]
    assert levels == [10, 20, 30, 10]
    source.close()


def test_a_missing_folder_is_an_error_naming_it(tmp_path: Path) -> None:
    source = open_source(f"folder:{tmp_path / 'nowhere'}")
    with pytest.raises(CameraUnavailable, match=r"folder:.*nowhere: no such folder"):
        source.start()


def test_a_folder_without_images_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "readme.txt").write_text("no photographs here")
    with pytest.raises(CameraUnavailable, match="no images"):
        open_source(f"folder:{tmp_path}").capture()


def test_a_corrupt_image_in_a_folder_is_unreadable_and_named(tmp_path: Path) -> None:
    (tmp_path / "a.jpg").write_bytes(b"\xff\xd8\xff\xe0 this is not really a jpeg")
    cv2.imwrite(str(tmp_path / "b.png"), solid(99))
    source = open_source(f"folder:{tmp_path}")
    with pytest.raises(UnreadableImage, match="a.jpg"):
        source.capture()
    assert int(np.median(source.capture())) == 99  # the next image still comes


# -- OpenCV VideoCapture ---------------------------------------------------------------------


@pytest.fixture
def video(tmp_path: Path) -> Path:
    """An MJPG AVI of five frames, grey levels 40, 80, .. 200."""
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (64, 48))
    assert writer.isOpened()
    for level in (40, 80, 120, 160, 200):
        writer.write(solid(level))
    writer.release()
    return path


def test_a_video_device_gives_its_frames_in_order_and_loops(video: Path) -> None:
    source = open_source(f"device:{video}")
    source.start()
    frames = [source.capture() for _ in range(6)]
    source.close()
    assert all(f.shape == (48, 64, 3) and f.dtype == np.uint8 for f in frames)
    levels = [int(np.median(f)) for f in frames]
    assert levels == pytest.approx([40, 80, 120, 160, 200, 40], abs=3)


def test_a_device_that_gave_no_frame_is_opened_again_at_the_next_capture(
    tmp_path: Path, video: Path
) -> None:
    # A USB camera unplugged gives no frame, and plugged back in, nothing more to the
    # VideoCapture that had it open: the next reveal opens the device anew. (A video that
    # holds no frame, then the five frames, written over it, stand for the camera here.)
    path = tmp_path / "camera.avi"
    cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (64, 48)).release()
    source = open_source(f"device:{path}")
    with pytest.raises(CameraUnavailable, match="the device gave no frame"):
        source.capture()
    path.write_bytes(video.read_bytes())
    assert int(np.median(source.capture())) == pytest.approx(40, abs=3)
    source.close()


def test_a_camera_index_that_does_not_exist_is_an_error_naming_it() -> None:
    with pytest.raises(CameraUnavailable, match="device:57: no camera at index 57"):
        open_source("device:57").start()


def test_a_camera_named_by_its_device_node_is_a_live_camera_not_a_video_file(
    video: Path,
) -> None:
    # /dev/video0, or a /dev/v4l/by-id link to it: its queued frames are stale, and the
    # calibrated size and exposure are asked of it, as of a camera by index.
    assert DeviceSource("/dev/null").live and DeviceSource(0).live
    assert not DeviceSource(str(video)).live
    with pytest.raises(CameraUnavailable, match="device:/dev/null: no camera at /dev/null"):
        open_source("device:/dev/null").start()
    # Unplugged, its node is gone: still a camera missing, not a video file that will not open.
    with pytest.raises(CameraUnavailable, match="device:/dev/video97: no camera at /dev/video97"):
        open_source("device:/dev/video97").start()


def test_a_video_file_that_does_not_exist_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(CameraUnavailable, match="cannot open video"):
        open_source(f"device:{tmp_path / 'missing.avi'}").capture()


# -- Picamera2 -------------------------------------------------------------------------------


class RecordingPicamera2:
    """Stands in for picamera2.Picamera2 (the library ships no test double): records calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.camera_controls: dict[str, Any] = {}  # Picamera2's: name to (min, max, default)

    def create_still_configuration(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("create_still_configuration", kwargs))
        return {"still": kwargs}

    def configure(self, config: dict[str, Any]) -> None:
        self.calls.append(("configure", config))

    def start(self) -> None:
        self.calls.append(("start", None))

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append(("set_controls", controls))

    def capture_metadata(self) -> dict[str, Any]:
        return {"ExposureTime": 8000, "AnalogueGain": 1.5, "ColourGains": (1.9, 1.6)}

    def capture_array(self, stream: str) -> np.ndarray:
        self.calls.append(("capture_array", stream))
        return solid(len(self.calls))

    def stop(self) -> None:
        self.calls.append(("stop", None))

    def close(self) -> None:
        self.calls.append(("close", None))

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


def test_picamera2_is_started_once_in_a_still_configuration_and_gives_one_frame_per_request() -> (
    None
):
    camera = RecordingPicamera2()
    source = PicameraSource(CameraSettings(width=2028, height=1520), camera_factory=lambda: camera)
    source.start()
    source.start()
    frames = [source.capture(), source.capture()]
    source.close()
    assert camera.names() == [
        "create_still_configuration",
        "configure",
        "start",
        "capture_array",  # the frame in flight when asked, dropped
        "capture_array",
        "capture_array",
        "capture_array",
        "stop",
        "close",
    ]
    assert camera.calls[0][1]["main"] == {"size": (2028, 1520), "format": "RGB888"}
    # Picamera2 keeps no finished frame to hand out at once (queue=True would: a frame taken
    # before the request, before the light came on); the first one to come is dropped.
    assert camera.calls[0][1]["queue"] is False
    assert [f.shape for f in frames] == [(48, 64, 3), (48, 64, 3)]


def test_picamera2_that_fails_is_closed_and_started_anew_at_the_next_capture() -> None:
    # Its ribbon cable pushed back in after a reveal it failed: the next reveal's picture
    # comes from the camera started again, as at the first.
    cameras: list[RecordingPicamera2] = []

    def factory() -> RecordingPicamera2:
        cameras.append(RecordingPicamera2())
        return cameras[-1]

    source = PicameraSource(camera_factory=factory)
    source.capture()

    def timed_out(stream: str) -> np.ndarray:
        raise RuntimeError("Camera frontend has timed out!")

    cameras[0].capture_array = timed_out  # type: ignore[method-assign]
    with pytest.raises(CameraUnavailable, match="picamera2: the camera failed "
                                                r"\(Camera frontend has timed out!\)"):
        source.capture()
    assert cameras[0].names()[-2:] == ["stop", "close"]
    assert source.capture().shape == (48, 64, 3)
    assert len(cameras) == 2 and cameras[1].names()[:3] == [
        "create_still_configuration", "configure", "start"]


def test_picamera2_locks_exposure_and_white_balance_from_the_calibration() -> None:
    camera = RecordingPicamera2()
    settings = CameraSettings(exposure_us=8000, analogue_gain=1.5, colour_gains=(1.9, 1.6))
    PicameraSource(settings, camera_factory=lambda: camera).start()
    # In the configuration: held from the first frame, not a few frames after the start.
    assert camera.names()[:3] == ["create_still_configuration", "configure", "start"]
    # The values alone: AeEnable and AwbEnable sent beside them may be applied last by
    # libcamera, which then keeps the exposure it had (picamera2 issue #933).
    assert camera.calls[0][1]["controls"] == {
        "ExposureTime": 8000,
        "AnalogueGain": 1.5,
        "ColourGains": (1.9, 1.6),
    }


def test_picamera2_on_libcamera_0_5_sets_the_exposure_and_gain_modes_to_manual() -> None:
    # libcamera 0.5 holds a fixed exposure and gain only with their modes set to manual (1);
    # a camera that lists those controls is told so in the configuration.
    camera = RecordingPicamera2()
    camera.camera_controls = {"ExposureTimeMode": (0, 1, 0), "AnalogueGainMode": (0, 1, 0),
                              "ExposureTime": (1, 66666, 20000)}
    settings = CameraSettings(exposure_us=8000, analogue_gain=1.5, colour_gains=(1.9, 1.6))
    PicameraSource(settings, camera_factory=lambda: camera).start()
    controls = camera.calls[0][1]["controls"]
    assert (controls["ExposureTimeMode"], controls["AnalogueGainMode"]) == (1, 1)
    assert (controls["ExposureTime"], controls["AnalogueGain"]) == (8000, 1.5)


def test_picamera2_calibrated_without_a_gain_keeps_the_gain_it_has() -> None:
    # A config written by hand with the exposure alone: the automatic control is turned off,
    # so the gain stays as it is rather than follow the light.
    camera = RecordingPicamera2()
    settings = CameraSettings(exposure_us=8000, colour_gains=(1.9, 1.6))
    PicameraSource(settings, camera_factory=lambda: camera).start()
    assert camera.calls[0][1]["controls"] == {
        "ExposureTime": 8000, "AeEnable": False, "ColourGains": (1.9, 1.6)}


def test_picamera2_without_a_calibration_leaves_the_automatic_exposure_on() -> None:
    camera = RecordingPicamera2()
    PicameraSource(camera_factory=lambda: camera).start()
    assert "set_controls" not in camera.names()
    assert "controls" not in camera.calls[0][1]


def test_picamera2_is_released_even_when_stopping_it_fails() -> None:
    camera = RecordingPicamera2()

    def stop() -> None:
        raise RuntimeError("camera stop failed")

    camera.stop = stop  # type: ignore[method-assign]
    source = PicameraSource(camera_factory=lambda: camera)
    source.start()
    with pytest.raises(RuntimeError):
        source.close()
    assert camera.names()[-1] == "close"


def test_picamera2_reports_the_exposure_it_settled_on_for_calibration() -> None:
    source = PicameraSource(camera_factory=RecordingPicamera2)
    settings = source.exposure(settle_s=0)
    assert (settings.exposure_us, settings.analogue_gain, settings.colour_gains) == (
        8000,
        1.5,
        (1.9, 1.6),
    )
    assert settings.locked


def test_picamera2_failing_as_its_exposure_is_metered_is_said_not_a_traceback() -> None:
    camera = RecordingPicamera2()

    def failing() -> dict[str, Any]:
        raise RuntimeError("Camera frontend has timed out!")

    camera.capture_metadata = failing  # type: ignore[method-assign]
    with pytest.raises(CameraUnavailable, match="picamera2: the exposure could not be metered"
                       r" \(Camera frontend has timed out!\)"):
        PicameraSource(camera_factory=lambda: camera).exposure(settle_s=0)


def test_picamera2_calibration_waits_for_the_automatic_exposure_to_settle() -> None:
    camera = RecordingPicamera2()
    frames = iter([{"AeLocked": False, "ExposureTime": 30000, "AnalogueGain": 6.0,
                    "ColourGains": (1.0, 1.0)}] * 3)
    settled = {"AeLocked": True, "ExposureTime": 8000, "AnalogueGain": 1.5,
               "ColourGains": (1.9, 1.6)}
    camera.capture_metadata = lambda: next(frames, settled)  # type: ignore[method-assign]
    settings = PicameraSource(camera_factory=lambda: camera).exposure(settle_s=0)
    assert (settings.exposure_us, settings.analogue_gain) == (8000, 1.5)


@pytest.mark.parametrize(
    ("searching", "converged"),
    [
        # libcamera 0.5 on: no AeLocked, AeState 1 while searching, 2 once converged. Before,
        # the missing AeLocked passed for settled and the first frame's exposure was locked.
        ({"AeState": 1}, {"AeState": 2}),
        # Neither: settled once a frame's exposure and gain are those of the frame before.
        ({}, {}),
    ],
)
def test_picamera2_calibration_waits_for_the_exposure_to_settle_whatever_libcamera_says(
    searching: dict[str, Any], converged: dict[str, Any]
) -> None:
    camera = RecordingPicamera2()
    frames = iter([{**searching, "ExposureTime": e, "AnalogueGain": g, "ColourGains": (1.0, 1.0)}
                   for e, g in ((30000, 6.0), (20000, 4.0), (12000, 2.0))])
    settled = {**converged, "ExposureTime": 8000, "AnalogueGain": 1.5, "ColourGains": (1.9, 1.6)}
    camera.capture_metadata = lambda: next(frames, settled)  # type: ignore[method-assign]
    settings = PicameraSource(camera_factory=lambda: camera).exposure(settle_s=0)
    assert (settings.exposure_us, settings.analogue_gain, settings.colour_gains) == (
        8000, 1.5, (1.9, 1.6))


def test_picamera2_with_no_camera_attached_is_an_error_naming_it() -> None:
    def no_camera() -> None:
        raise IndexError("list index out of range")

    with pytest.raises(CameraUnavailable, match=r"picamera2: no camera found \(list index"):
        PicameraSource(camera_factory=no_camera).start()


def test_picamera2_held_by_another_program_is_an_error_saying_so() -> None:
    def held() -> None:  # Picamera2() when acquiring the camera fails (dudo serve holds it)
        raise RuntimeError("Camera __init__ sequence did not complete.")

    with pytest.raises(CameraUnavailable, match="no camera found, or another program holds it"):
        PicameraSource(camera_factory=held).start()


def test_picamera2_not_installed_is_an_error_saying_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 now fails
    with pytest.raises(CameraUnavailable, match="picamera2: .*apt install python3-picamera2"):
        open_source("picamera2").start()


# -- simulator -------------------------------------------------------------------------------


def test_the_simulator_is_a_source_that_renders_the_dice_last_set() -> None:
    source = open_source("sim", seed=1)
    assert isinstance(source, SimulatedCamera)
    source.set_dice({"Ana": [2, 3]})
    source.start()
    frame = source.capture()
    source.close()
    assert frame.shape == (960, 1280, 3)
    assert source.last_scene is not None
    assert sorted(d.face for d in source.last_scene.dice) == [2, 3]


@pytest.mark.parametrize("spec", ["device:\u00b2", "device:99999999999999999999", "device:1000"])
def test_a_device_number_out_of_reason_is_refused_plainly(spec: str) -> None:
    with pytest.raises(ValueError, match="a device's number is 0 to 999"):
        open_source(spec)
