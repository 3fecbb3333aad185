"""systemd/install.sh run for real in a folder standing for the Pi's disk: apt, systemctl
and the user commands are stand-ins that log their arguments, every path the script writes
is moved under the folder, and the venv is made and the checkout installed into it by pip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

STAND_IN = """#!/bin/bash
echo "$(basename "$0") $*" >> "{log}"
if [ "$(basename "$0")" = systemctl ] && [ "$1" = restart ] && [ -n "$FAIL_RESTART" ]; then
    exit 1
fi
if [ "$(basename "$0")" = id ] && [ "$1" = -u ]; then echo 0; fi
exit 0
"""


@pytest.fixture
def pi(tmp_path: Path) -> Path:
    """The install script, its paths moved under ``tmp_path/root``, beside its stand-ins."""
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for name in ("apt-get", "useradd", "usermod", "groupadd", "getent", "chown", "systemctl",
                 "id"):
        (bin_ / name).write_text(STAND_IN.format(log=tmp_path / "calls.log"))
        (bin_ / name).chmod(0o755)
    # Raspberry Pi OS's own gpiozero (apt's python3-gpiozero 2.0.1), in the system's site
    # packages that a venv made with them sees.
    apt = tmp_path / "apt"
    (apt / "gpiozero").mkdir(parents=True)
    (apt / "gpiozero" / "__init__.py").write_text('"""apt: python3-gpiozero."""\n')
    (apt / "gpiozero-2.0.1.dist-info").mkdir()
    (apt / "gpiozero-2.0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: gpiozero\nVersion: 2.0.1\n")
    site = f"lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"
    # The Pi's python3 (this machine's, whichever makes this test's venv).
    (bin_ / "python3").write_text(f"""#!/bin/sh
"{sys._base_executable}" "$@" || exit $?
if [ "$1 $2 $3" = "-m venv --system-site-packages" ]; then
    echo "{apt}" > "$4/{site}/apt-packages.pth"
fi
""")
    (bin_ / "python3").chmod(0o755)
    script = (ROOT / "systemd" / "install.sh").read_text()
    for path, moved in (("PREFIX=/opt", f"PREFIX={root}/opt"),
                        ("CONFIG_DIR=/etc", f"CONFIG_DIR={root}/etc"),
                        ("DATA_DIR=/var", f"DATA_DIR={root}/var"),
                        ("/etc/systemd/system/", f"{root}/etc/"),
                        ("/etc/avahi/services", f"{root}/avahi")):
        assert path in script, path
        script = script.replace(path, moved)
    # A copy of the checkout (the script cleans its build files out of it) with the script.
    source = tmp_path / "source"
    for part in ("companion", "vision", "hardware", "systemd"):
        shutil.copytree(ROOT / part, source / part,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    for part in ("pyproject.toml", "README.md", ".ci/constraints-pi.txt"):
        (source / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / part, source / part)
    (source / "systemd" / "install.sh").write_text(script)
    pinned = source / ".ci" / "constraints-pi.txt"
    older, n = re.subn(r"(?m)^waitress==.*$", "waitress==3.0.1", pinned.read_text())
    assert n == 1
    pinned.write_text(older)
    return tmp_path


def install(pi: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``sudo bash systemd/install.sh`` from the checkout's copy, on the stand-in Pi."""
    return subprocess.run(
        ["bash", str(pi / "source" / "systemd" / "install.sh")], capture_output=True,
        text=True, timeout=600, env={**os.environ, "PATH": f"{pi / 'bin'}:/usr/bin:/bin", **env},
    )


def imports_onnx_runtime(venv: Path) -> bool:
    return subprocess.run([str(venv / "bin" / "python"), "-c", "import onnxruntime"],
                          capture_output=True, timeout=60).returncode == 0


def test_an_update_switches_to_a_whole_new_venv_and_keeps_the_one_before(pi: Path) -> None:
    prefix = pi / "root" / "opt" / "dudo-companion"
    # An install from before venvs were linked: its venv folder is set aside, not lost.
    (prefix / "venv").mkdir(parents=True)
    (prefix / "venv" / "old").write_text("the venv the table ran on")
    # The checkout a git repository, as on the Pi: the venv knows the commit it was built from.
    git = ["git", "-C", str(pi / "source"), "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the checkout"]):
        subprocess.run([*git, *args], check=True, capture_output=True, timeout=60)
    commit = subprocess.run([*git, "log", "-1", "--format=%h %cs"], check=True,
                            capture_output=True, text=True, timeout=60).stdout.strip()
    # On this Pi ONNX Runtime crashes as it loads, as its ARM wheel did under an emulator: a
    # stand-in that aborts on import, found before the one pip installs.
    crashing = pi / "crashing" / "onnxruntime"
    crashing.mkdir(parents=True)
    (crashing / "__init__.py").write_text("import os\nos.abort()\n")
    first = install(pi, PYTHONPATH=str(crashing.parent))
    assert first.returncode == 0, first.stderr
    linked = (prefix / "venv").resolve()
    # Taken out again: the table's nets run on OpenCV's dnn, not on a runtime that would
    # crash the table at every reveal.
    assert "ONNX Runtime does not run the dice reader here" in first.stderr
    assert not imports_onnx_runtime(linked)
    assert (prefix / "venv").is_symlink() and linked.name.startswith("venv-")
    assert (prefix / "venv-before-links" / "old").exists()
    dudo = prefix / "venv" / "bin" / "dudo"
    assert subprocess.run([str(dudo), "rules"], capture_output=True, timeout=60).returncode == 0
    version = subprocess.run([str(dudo), "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout == f"dudo-companion 0.1.0 (commit {commit})\n", version
    config = pi / "root" / "etc" / "dudo-companion" / "config.toml"
    pin = tomllib.loads(config.read_text())["server"]["pin"]
    assert f"PIN: {pin}" in first.stdout
    assert not config.with_name("config.toml.part").exists()

    # Installed at the versions of .ci/constraints-pi.txt, CI's beside Debian's numpy and
    # OpenCV (the checkout's copy names an older waitress: before, pip took the newest).
    freeze = subprocess.run([str(linked / "bin" / "python"), "-m", "pip", "freeze", "--local"],
                            capture_output=True, text=True, timeout=120).stdout.lower()
    assert "waitress==3.0.1\n" in freeze
    # gpiozero is apt's, as the README says (before, pip put PyPI's in front of it).
    assert "gpiozero" not in freeze
    where = subprocess.run([str(linked / "bin" / "python"), "-c",
                            "import gpiozero; print(gpiozero.__file__)"],
                           capture_output=True, text=True, timeout=60).stdout
    assert where == f"{pi / 'apt' / 'gpiozero' / '__init__.py'}\n"
    assert "gpiozero is PyPI's" not in first.stderr

    # The update: a new venv, the link moved to it once whole; the last one kept to go back
    # to, the older ones gone; the config (and its PIN) as it was. The service does not start
    # this time: the PIN is still said, with where to look, the table goes back to the venv
    # it last started on (before, it stayed on the new one, restarted in vain by systemd),
    # and the install fails.
    # The port as the table reads it, in TOML: before (session 92's audit), a pattern read
    # 9_000 as 9, which Avahi announced and the address printed.
    config.write_text(config.read_text().replace("port = 8080", "port = 9_000"))
    second = install(pi, FAIL_RESTART="1")
    assert f":9000/  PIN: {pin}" in second.stdout
    assert "<port>9000</port>" in (pi / "root" / "avahi" / "dudo-companion.service").read_text()
    assert second.returncode == 1
    assert "the service did not start: see journalctl -u dudo-companion" in second.stderr
    assert f"PIN: {pin}" in second.stdout
    assert (prefix / "venv").resolve() == linked
    (failed,) = [p for p in prefix.glob("venv-*") if p != linked]
    assert (f"install: the service did not start on the new venv {failed}: nor on {linked},"
            " the venv it last started on, which it is set to again") in second.stderr
    # Where ONNX Runtime runs, it stays.
    assert "ONNX Runtime does not run" not in second.stderr and imports_onnx_runtime(failed)
    assert sorted(p.name for p in prefix.iterdir()) == sorted(
        ["venv", "started", linked.name, failed.name])
    assert tomllib.loads(config.read_text())["server"]["pin"] == pin
    assert subprocess.run([str(dudo), "rules"], capture_output=True, timeout=60).returncode == 0

    # Tried again, failing again: the venv the service last started on is still kept (before,
    # only the one before was, the failed one, and the last good venv was removed).
    third = install(pi, FAIL_RESTART="1")
    assert third.returncode == 1
    assert (prefix / "started").resolve() == linked == (prefix / "venv").resolve()
    (newest,) = [p for p in prefix.glob("venv-*") if p != linked]
    assert newest != failed and f"did not start on the new venv {newest}" in third.stderr
    assert sorted(p.name for p in prefix.iterdir()) == sorted(
        ["venv", "started", linked.name, newest.name])

    # An update with the package index out of reach stops before the switch, says the
    # version before still runs, and leaves no half-built venv on the card.
    running = sorted(p.name for p in prefix.iterdir())
    offline = install(pi, PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_RETRIES="0",
                      PIP_TIMEOUT="2", PIP_NO_CACHE_DIR="1")
    assert offline.returncode != 0
    assert ("install: stopped before switching to the new venv: the version installed before"
            " still runs") in offline.stderr
    assert sorted(p.name for p in prefix.iterdir()) == running
    # An update whose venv cannot serve the page (a Flask that cannot be imported: `dudo
    # rules`, the check before, ran all the same) stops before the switch too.
    broken = pi / "broken" / "flask"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('a Flask release that breaks')\n")
    cannot_serve = install(pi, PYTHONPATH=str(broken.parent))
    assert cannot_serve.returncode != 0
    assert "a Flask release that breaks" in cannot_serve.stderr
    assert ("install: stopped before switching to the new venv: the version installed before"
            " still runs") in cannot_serve.stderr
    assert sorted(p.name for p in prefix.iterdir()) == running

    # A Pi installed before the link to the venv that last started was kept: the table goes
    # back to the venv before (before, it stayed on the new one), and with it the unit it
    # was installed with (before, the new unit stayed, which that venv might not run on).
    unit = pi / "root" / "etc" / "dudo-companion.service"
    installed = unit.read_text()
    (prefix / "started").unlink()
    (linked / "dudo-companion.service").unlink()  # installed before venvs kept their units
    (pi / "source" / "systemd" / "dudo-companion.service").write_text(
        installed.replace("[Service]", "[Service]\nEnvironment=A_NEW_SETTING=1"))
    no_link = install(pi, FAIL_RESTART="1")
    assert no_link.returncode == 1
    assert (prefix / "venv").resolve() == linked
    assert f"nor on {linked}, the venv it last started on" in no_link.stderr
    assert unit.read_text() == installed
    calls = (pi / "calls.log").read_text()
    assert "systemctl restart dudo-companion.service" in calls


def test_an_update_whose_venv_loses_the_camera_stops_and_the_table_keeps_its_own(pi: Path) -> None:
    # The venv the table runs on imports OpenCV, Picamera2 and lgpio: a stand-in for one, whose
    # python answers every import. This machine has no Picamera2, so the new venv cannot
    # import it, as when a package pip brings in breaks apt's OpenCV on the Pi.
    if subprocess.run([sys._base_executable, "-c", "import picamera2"],
                      capture_output=True, timeout=60).returncode == 0:
        pytest.skip("this machine's python imports picamera2: no venv here lacks it")
    prefix = pi / "root" / "opt" / "dudo-companion"
    running = prefix / "venv-20260101000000"
    (running / "bin").mkdir(parents=True)
    (running / "bin" / "python").write_text("#!/bin/sh\nexit 0\n")
    (running / "bin" / "python").chmod(0o755)
    (prefix / "venv").symlink_to(running)

    update = install(pi)
    assert update.returncode != 0
    assert ("cv2, picamera2 or lgpio does not import in the new venv (see the messages above),"
            " where the venv the table runs on imports them") in update.stderr
    assert ("install: stopped before switching to the new venv: the version installed before"
            " still runs") in update.stderr
    assert (prefix / "venv").resolve() == running
    assert sorted(p.name for p in prefix.iterdir()) == ["venv", running.name]
    assert "systemctl restart" not in (pi / "calls.log").read_text()
