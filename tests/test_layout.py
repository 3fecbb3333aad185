"""The packages' borders: the referee starts on a machine with no camera or GPIO library, and
the reader and the panel know nothing of the rules."""

from __future__ import annotations

import subprocess
import sys

# Imports every module of the packages named, in a fresh interpreter, and prints each module
# it imported, then each top-level name asked for on the way, whether or not it was found (a
# library that is not installed here, tried in a ``try``, is asked for all the same).
_IMPORT_ALL = """
import importlib, pkgutil, sys

asked = set()

class Asked:
    def find_spec(self, name, path=None, target=None):
        asked.add(name.split(".")[0])
        return None  # the next finder finds it, or no one does

sys.meta_path.insert(0, Asked())
for name in sys.argv[1:]:
    package = importlib.import_module(name)
    for module in pkgutil.walk_packages(package.__path__, name + "."):
        if not module.name.startswith("vision.training"):  # torch, development only
            importlib.import_module(module.name)
print(" ".join(sorted(sys.modules)))
print(" ".join(sorted(asked)))
"""


def import_all(*packages: str) -> tuple[set[str], set[str]]:
    """The modules imported with every module of ``packages``, and the top-level names
    asked for on the way."""
    done = subprocess.run([sys.executable, "-c", _IMPORT_ALL, *packages], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    imported, asked = done.stdout.splitlines()
    return set(imported.split()), set(asked.split())


def test_the_referee_imports_no_camera_or_gpio_library_until_it_uses_one() -> None:
    # A Pi whose camera or GPIO library is missing or broken still referees: `dudo serve`
    # says so on the page, and `dudo replay` never needs them.
    imported, asked = import_all("companion")
    assert {"companion.serve", "companion.web.api", "companion.table"} <= imported
    found = asked & {"cv2", "gpiozero", "picamera2", "lgpio", "libcamera"}
    assert not found, f"asked for by the referee's modules as they are imported: {sorted(found)}"


def test_the_reader_and_the_panel_know_nothing_of_the_rules() -> None:
    imported, asked = import_all("vision", "hardware")
    assert {"vision.reader", "vision.sources", "hardware.panel", "hardware.pins"} <= imported
    assert "companion" not in asked
