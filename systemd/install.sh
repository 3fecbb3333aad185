#!/usr/bin/env bash
# Installs dudo-companion as a service on Raspberry Pi OS (Bookworm or later).
#
#   git clone <this repository> dudo-companion && cd dudo-companion
#   sudo bash systemd/install.sh
#
# What it does (each step is safe to run again):
#   1. apt: Picamera2, OpenCV, lgpio and gpiozero from Raspberry Pi OS, Avahi for the .local name;
#   2. the service user `dudo`, in the gpio and video groups;
#   3. a new venv made with --system-site-packages (so it sees the apt packages), with this
#      checkout installed into it; /opt/dudo-companion/venv then points at it;
#   4. /etc/dudo-companion/config.toml with a random table PIN (kept if it exists);
#   5. the systemd unit and the Avahi service file; the unit enabled and (re)started.
set -euo pipefail

PREFIX=/opt/dudo-companion
CONFIG_DIR=/etc/dudo-companion
DATA_DIR=/var/lib/dudo-companion
SERVICE_USER=dudo
SOURCE=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" -ne 0 ]; then
    echo "install: run me as root: sudo bash $0" >&2
    exit 1
fi
if ! command -v systemctl >/dev/null; then
    echo "install: systemd is needed (Raspberry Pi OS has it)" >&2
    exit 1
fi

echo "install: apt packages"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    python3-venv python3-pip python3-opencv python3-lgpio python3-gpiozero python3-numpy \
    avahi-daemon
# Picamera2 without its recommends, as its manual advises on Raspberry Pi OS Lite: they are
# the desktop's preview stack (Qt, OpenGL), which a table with no screen never uses.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-picamera2

echo "install: service user $SERVICE_USER"
for group in gpio video; do
    getent group "$group" >/dev/null || groupadd --system "$group"
done
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
    useradd --system --home-dir "$DATA_DIR" --no-create-home --shell /usr/sbin/nologin \
        --user-group "$SERVICE_USER"
fi
usermod -a -G gpio,video "$SERVICE_USER"

# Each install builds a new venv beside the one the service runs, and only once it is whole
# and on the card is $PREFIX/venv pointed at it: a power cut during an update leaves the table
# on the old one (before, pip wrote over the venv the running service loaded its code from).
release="$PREFIX/venv-$(date -u +%Y%m%d%H%M%S)"
# Stopped before the switch (PyPI out of reach, say): nothing the table runs has changed.
trap 'rm -rf "$release"; echo "install: stopped before switching to the new venv: the version installed before still runs" >&2' ERR
echo "install: venv in $release (with the system's site packages), then $PREFIX/venv"
mkdir -p "$PREFIX"
rm -rf "$release"
python3 -m venv --system-site-packages "$release"
# Not the `vision` extra: OpenCV comes from apt (python3-opencv), built for the Pi.
# A build left in the checkout by an earlier install would bring back files deleted since.
rm -rf "$SOURCE/build" "$SOURCE"/*.egg-info
# The `onnx` extra (ONNX Runtime, which runs the reader's nets faster) has wheels for 64-bit
# ARM only: elsewhere OpenCV's dnn runs them. At the versions CI last passed with beside
# Debian's numpy and OpenCV (.ci/constraints-pi.txt): the web server builds on waitress's
# own classes, which a newer release may change. Not gpiozero nor colorzero: apt's (above)
# are Raspberry Pi OS's own build, and a pin of PyPI's release had pip put that in the venv,
# in front of apt's (before session 92).
constraints="$release/constraints-pi.txt"
grep -v -i -E '^(gpiozero|colorzero)==' "$SOURCE/.ci/constraints-pi.txt" > "$constraints"
if ! "$release/bin/python" -m pip install -q -c "$constraints" "${SOURCE}[onnx]"; then
    echo "install: ONNX Runtime did not install (no wheel for this system, or PyPI out of reach:" \
         "run this again once online): the reader's nets run on OpenCV's dnn" >&2
    "$release/bin/python" -m pip install -q -c "$constraints" "$SOURCE"
fi
rm -rf "$SOURCE/build" "$SOURCE"/*.egg-info
# ONNX Runtime installed, it must also run here: its wheel for 64-bit ARM crashed as it loaded
# under an emulator, and a crash as the table reads a reveal would restart it at each call.
# Where it cannot run the shipped face reader, it is taken out, and OpenCV's dnn runs the nets.
if "$release/bin/python" -P -c 'import importlib.util as u, sys; sys.exit(u.find_spec("onnxruntime") is None)' \
    && ! "$release/bin/python" -P -c '
import numpy as np
from vision.nets import MODELS_DIR, onnx_runtime
session = onnx_runtime().InferenceSession(str(MODELS_DIR / "face.onnx"), providers=["CPUExecutionProvider"])
given = session.get_inputs()[0]
session.run(None, {given.name: np.zeros([d if isinstance(d, int) else 1 for d in given.shape], np.float32)})'; then
    echo "install: ONNX Runtime does not run the dice reader here (see the messages above):" \
         "taken out again; the reader's nets run on OpenCV's dnn" >&2
    "$release/bin/python" -m pip uninstall -y -q onnxruntime
fi
# gpiozero is apt's where Raspberry Pi OS has it (2.0 or newer, as the project needs).
if "$release/bin/python" -P -c 'import gpiozero, sys; sys.exit(not gpiozero.__file__.startswith(sys.prefix))'; then
    echo "install: warning: the venv's gpiozero is PyPI's, not this system's python3-gpiozero" \
         "(older than 2.0, or not installed): on a Pi 5, check that the buttons answer" >&2
fi
# The commit this venv is built from, for `dudo --version` (none outside a git checkout). As
# root in the pi user's checkout, git asks to be told the folder is safe.
git -c safe.directory="$SOURCE" -C "$SOURCE" log -1 --format='%h %cs' \
    > "$release/dudo-commit" 2>/dev/null || rm -f "$release/dudo-commit"
# The camera's and the pins' libraries (from apt): where the venv the table runs on imports
# them, the new one must too, or the update stops here and the table keeps its camera (a
# package pip brought in can break them: a numpy newer than apt's OpenCV was built for, say).
if ! "$release/bin/python" -P -c 'import cv2, picamera2, lgpio'; then
    if "$PREFIX/venv/bin/python" -c 'import cv2, picamera2, lgpio' >/dev/null 2>&1; then
        echo "install: cv2, picamera2 or lgpio does not import in the new venv (see the" \
             "messages above), where the venv the table runs on imports them" >&2
        false  # set -e: the trap above removes the new venv
    fi
    echo "install: warning: cv2, picamera2 or lgpio does not import; see the messages above" >&2
fi
# The new venv serves the page, or the install stops here (set -e): `dudo rules` alone, the
# check before, ran where Flask or waitress could not even be imported. (-P: the checks import
# what pip installed, not the checkout this is run from.)
"$release/bin/python" -P -c '
import gpiozero
import companion.serve, companion.web.server
from companion.table import Table
from companion.web import create_app
page = create_app(Table(), {"TABLE_PIN": "1234"}).test_client()
assert page.get("/").status_code == 200 and page.get("/api/state").status_code == 200, "no page"'
"$release/bin/dudo" rules >/dev/null
sync
# An install before this layout left a venv folder where the link goes: set aside first.
if [ -d "$PREFIX/venv" ] && [ ! -L "$PREFIX/venv" ]; then
    mv "$PREFIX/venv" "$PREFIX/venv-before-links"
fi
previous=$(readlink "$PREFIX/venv" || echo "$PREFIX/venv-before-links")
ln -sfn "$release" "$PREFIX/venv.link"
mv -T "$PREFIX/venv.link" "$PREFIX/venv"  # a rename: the link is the old venv or the new
trap - ERR
sync

echo "install: config in $CONFIG_DIR/config.toml"
mkdir -p "$CONFIG_DIR" "$DATA_DIR"
if [ ! -f "$CONFIG_DIR/config.toml" ]; then
    pin=$(printf '%04d' $(( $(od -An -N2 -tu2 /dev/urandom) % 10000 )))
    # Made unreadable to others from the start: it holds the PIN.
    ( umask 027; cat > "$CONFIG_DIR/config.toml.part" ) <<TOML
# dudo-companion settings. The hardware reads [pins], the camera [camera] and [vision]:
# see the README. Restart after a change: sudo systemctl restart dudo-companion
[server]
host = "0.0.0.0"
port = 8080
pin = "$pin"

[camera]
source = "picamera2"
TOML
    sync
    mv "$CONFIG_DIR/config.toml.part" "$CONFIG_DIR/config.toml"  # whole, or not there at all
fi
chown root:"$SERVICE_USER" "$CONFIG_DIR/config.toml"
chmod 0640 "$CONFIG_DIR/config.toml"
chown "$SERVICE_USER":"$SERVICE_USER" "$DATA_DIR"
chmod 0750 "$DATA_DIR"

# The port the config names (8080 if it names none): Avahi announces that one. Read as the
# table reads it, as TOML (before, session 92's audit, a pattern took 9_000 for 9).
port=$("$release/bin/python" -c 'import sys, tomllib
print(int(tomllib.load(open(sys.argv[1], "rb")).get("server", {}).get("port", 8080)))' \
    "$CONFIG_DIR/config.toml" 2>/dev/null || true)
port=${port:-8080}

echo "install: systemd unit and Avahi service (port $port)"
# The unit the venv before runs with, kept beside it where an older install kept none.
if [ -d "$previous" ] && [ ! -f "$previous/dudo-companion.service" ] \
    && [ -f /etc/systemd/system/dudo-companion.service ]; then
    cp /etc/systemd/system/dudo-companion.service "$previous/dudo-companion.service"
fi
install -m 0644 "$SOURCE/systemd/dudo-companion.service" /etc/systemd/system/dudo-companion.service
# Each venv keeps the unit it was installed with, put back with it when the table goes back.
install -m 0644 "$SOURCE/systemd/dudo-companion.service" "$release/dudo-companion.service"
mkdir -p /etc/avahi/services
sed "s|<port>8080</port>|<port>$port</port>|; s|\.local:8080/|.local:$port/|" \
    "$SOURCE/systemd/dudo-companion.avahi.service" > /etc/avahi/services/dudo-companion.service
chmod 0644 /etc/avahi/services/dudo-companion.service
systemctl daemon-reload
systemctl enable --now avahi-daemon.service >/dev/null 2>&1 || true
systemctl enable dudo-companion.service
started=yes
systemctl restart dudo-companion.service || started=no
# The last venv the service started on: kept through installs that fail, and gone back to
# when the new one does not start (before, systemd went on restarting a table that could not
# start, until someone pointed the link back by hand).
if [ "$started" = yes ]; then
    ln -sfn "$release" "$PREFIX/started.link"
    mv -T "$PREFIX/started.link" "$PREFIX/started"
fi
# (A Pi installed before that link was kept: the venv before this one.)
good=$(readlink "$PREFIX/started" || echo "$previous")
if [ "$started" = no ] && [ -n "$good" ] && [ -d "$good" ] && [ "$good" != "$release" ]; then
    ln -sfn "$good" "$PREFIX/venv.link"
    mv -T "$PREFIX/venv.link" "$PREFIX/venv"
    if [ -f "$good/dudo-companion.service" ]; then
        install -m 0644 "$good/dudo-companion.service" /etc/systemd/system/dudo-companion.service
        systemctl daemon-reload
    fi
    sync
    if systemctl restart dudo-companion.service; then
        back="it runs on $good, the venv it last started on, again"
    else
        back="nor on $good, the venv it last started on, which it is set to again"
    fi
    echo "install: the service did not start on the new venv $release: $back" >&2
fi
# Kept: the new venv, the one before it and the last that started (to go back to by hand:
# ln -sfn OLD $PREFIX/venv, then restart). Older ones go only now, none of them running.
for old in "$PREFIX"/venv-*; do
    if [ "$old" != "$release" ] && [ "$old" != "$previous" ] && [ "$old" != "$good" ]; then
        rm -rf "$old"
    fi
done

# The PIN as the table reads it (TOML: quoted or not), said whether or not the table started.
pin=$("$PREFIX/venv/bin/python" -c 'import sys, tomllib
print(tomllib.load(open(sys.argv[1], "rb")).get("server", {}).get("pin", ""))' \
    "$CONFIG_DIR/config.toml" 2>/dev/null || true)
echo "install: the table's page: http://$(hostname).local:$port/  PIN: ${pin:-none set ([server] pin in $CONFIG_DIR/config.toml)}"
echo "install: the PIN again later: sudo grep pin $CONFIG_DIR/config.toml"
echo "install: status: systemctl status dudo-companion; log: journalctl -u dudo-companion -f"
if [ "$started" = no ]; then
    echo "install: the service did not start: see journalctl -u dudo-companion -e" >&2
    exit 1
fi
echo "install: done"
