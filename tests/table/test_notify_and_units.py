"""systemd: sd_notify over a real datagram socket, the unit verified, the Avahi file read."""

from __future__ import annotations

import configparser
import contextlib
import logging
import os
import shutil
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import notify
from companion.table import Table

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[socket.socket]:
    """A Unix datagram socket bound in a temporary directory, as systemd gives one."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(5)
    yield sock
    sock.close()


def test_ready_reaches_the_socket_systemd_names(notify_socket: socket.socket) -> None:
    environ = {"NOTIFY_SOCKET": notify_socket.getsockname()}
    assert notify.notify("READY=1", environ)
    assert notify_socket.recv(256) == b"READY=1"


def test_a_socket_name_starting_with_at_is_in_the_abstract_namespace() -> None:
    name = f"dudo-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(5)
        assert notify.notify("STOPPING=1", {"NOTIFY_SOCKET": "@" + name})
        assert sock.recv(256) == b"STOPPING=1"


def test_without_systemd_notifications_are_quietly_skipped() -> None:
    assert not notify.notify("READY=1", {})
    assert notify.watchdog_interval({}) is None


def test_a_vanished_socket_is_logged_and_does_not_stop_the_companion(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert not notify.notify("WATCHDOG=1", {"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert "sd_notify" in caplog.text


@pytest.mark.parametrize(
    ("environ", "interval"),
    [
        ({"WATCHDOG_USEC": "30000000"}, 7.5),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}, 7.5),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, None),
        ({"WATCHDOG_USEC": "soon"}, None),
        ({}, None),
    ],
    ids=["30 s watchdog", "for this process", "for another process", "not a number", "none"],
)
def test_the_watchdog_pings_at_a_quarter_of_systemds_timeout_so_one_slow_check_is_no_hang(
    environ: dict[str, str], interval: float | None
) -> None:
    assert notify.watchdog_interval({"NOTIFY_SOCKET": "/run/x", **environ}) == interval


def test_the_watchdog_pings_while_the_table_is_healthy_and_stops_when_it_hangs(
    notify_socket: socket.socket,
) -> None:
    table = Table()
    environ = {"NOTIFY_SOCKET": notify_socket.getsockname()}
    dog = notify.Watchdog(lambda: table.healthy(timeout=0.05), 0.05, environ)
    dog.start()
    try:
        assert notify_socket.recv(64) == b"WATCHDOG=1"
        assert notify_socket.recv(64) == b"WATCHDOG=1"
        with table._lock:  # the table hangs: another thread holds its lock
            # Drain what was sent before the hang; then nothing more may come.
            notify_socket.settimeout(0.3)
            with contextlib.suppress(TimeoutError):
                while True:
                    notify_socket.recv(64)
            with pytest.raises(TimeoutError):
                notify_socket.recv(64)
        notify_socket.settimeout(5)
        assert notify_socket.recv(64) == b"WATCHDOG=1"
    finally:
        dog.stop()
        table.close()


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(SYSTEMD / "dudo-companion.service")
    return parser


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [
        ("Service", "Type", "notify"),
        ("Service", "WatchdogSec", "30"),
        ("Service", "Restart", "on-failure"),
        ("Service", "RestartPreventExitStatus", "2"),  # a config mistake: no restart loop
        ("Unit", "StartLimitIntervalSec", "0"),  # any other failure: tried again, never given up
        ("Service", "LimitCORE", "0"),  # a watchdog kill writes no core file on the card
        ("Service", "User", "dudo"),
        ("Service", "SupplementaryGroups", "gpio video"),
        ("Service", "NoNewPrivileges", "yes"),
        ("Service", "ProtectSystem", "strict"),
        ("Service", "PrivateTmp", "yes"),
        ("Service", "UMask", "0027"),  # the journal is no one else's to read (it was 0644)
        ("Install", "WantedBy", "multi-user.target"),
    ],
)
def test_the_unit_runs_as_a_watched_hardened_non_root_service(
    section: str, key: str, value: str
) -> None:
    assert unit()[section][key] == value


def test_the_unit_asks_gpiozero_for_lgpio_so_its_own_error_is_the_one_said() -> None:
    assert "GPIOZERO_PIN_FACTORY=lgpio" in unit()["Service"]["Environment"].split()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_analyze_verifies_the_unit_without_a_warning(tmp_path: Path) -> None:
    # The unit names the Pi's install path; point it at this venv's real `dudo` instead.
    dudo = Path(sys.executable).with_name("dudo")
    text = (SYSTEMD / "dudo-companion.service").read_text()
    assert "/opt/dudo-companion/venv/bin/dudo serve" in text
    copy = tmp_path / "dudo-companion.service"
    copy.write_text(text.replace("/opt/dudo-companion/venv/bin/dudo", str(dudo)))
    result = subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout + result.stderr == ""


def test_phones_find_the_page_by_name_through_avahi() -> None:
    root = ET.parse(SYSTEMD / "dudo-companion.avahi.service").getroot()
    assert root.tag == "service-group"
    assert "%h" in (root.findtext("name") or "")
    assert root.findtext("service/type") == "_http._tcp"
    assert root.findtext("service/port") == "8080"


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here")
def test_the_install_script_is_valid_bash_and_installs_what_the_pi_needs() -> None:
    script = SYSTEMD / "install.sh"
    assert subprocess.run(["bash", "-n", str(script)], timeout=30).returncode == 0
    text = script.read_text()
    for needed in ("python3-picamera2", "python3-opencv", "python3-lgpio",
                   "python3-gpiozero",  # Raspberry Pi OS's, which finds a Pi 5's GPIO chip
                   "--system-site-packages", "usermod -a -G gpio,video",
                   "systemctl enable dudo-companion.service",
                   "( umask 027; cat >",  # the PIN is never readable by all, even briefly
                   "<port>$port</port>"):  # Avahi announces the config's port
        assert needed in text


def test_under_systemd_each_log_line_starts_with_its_priority_for_journald() -> None:
    # Before, every line reached journald as "info", with a second time stamp: `journalctl
    # -p err -u dudo-companion` showed nothing.
    from companion.serve import log_format

    def line(level: int, environ: dict[str, str]) -> str:
        record = logging.LogRecord("companion.camera", level, __file__, 1,
                                   "the camera %r did not start", ("device:0",), None)
        return log_format(environ).format(record)

    journald = {"JOURNAL_STREAM": "8:12345"}
    said = "companion.camera: the camera 'device:0' did not start"
    assert line(logging.ERROR, journald) == f"<3>ERROR {said}"
    assert line(logging.WARNING, journald) == f"<4>WARNING {said}"
    assert line(logging.INFO, journald) == f"<6>INFO {said}"
    # A traceback: every line of it has the priority, the reason on its last line too
    # (before, only its first line: `journalctl -p warning` lost why).
    try:
        raise OSError("no lgpio")
    except OSError:
        record = logging.LogRecord("companion.serve", logging.ERROR, __file__, 1,
                                   "the panel's GPIO did not start", (), sys.exc_info())
    lines = log_format(journald).format(record).splitlines()
    assert len(lines) > 3 and all(ln.startswith("<3>") for ln in lines), lines
    assert lines[-1] == "<3>OSError: no lgpio"
    # In a terminal or a file, each line has its time, and no priority.
    plain = line(logging.ERROR, {})
    assert plain.endswith(f" ERROR {said}") and plain[:4].isdigit()
