"""The packages' borders: the referee starts on a machine with no camera or GPIO library, and
the reader and the panel know nothing of the rules."""

from __future__ import annotations

import subprocess
import sys

# Imports every module of the packages named, in a fresh interpreter, and prints the
# top-level packages that were imported along the way.
_IMPORT_ALL = """
import importlib, pkgutil, sys
for name in sys.argv[1:]:
    package = importlib.import_module(name)
    for module in pkgutil.walk_packages(package.__path__, name + "."):
        if not module.name.startswith("vision.training"):  # torch, development only
            importlib.import_module(module.name)
print(" ".join(sorted({key.split(".")[0] for key in sys.modules})))
"""


def imported_with(*packages: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", _IMPORT_ALL, *packages], capture_output=True,
                          text=True, timeout=120, check=True)
    return set(done.stdout.split())


def test_the_referee_imports_no_camera_or_gpio_library_until_it_uses_one() -> None:
    # A Pi whose camera or GPIO library is missing or broken still referees: `dudo serve`
    # says so on the page, and `dudo replay` never needs them.
    imported = imported_with("companion")
    assert "companion" in imported
    found = imported & {"cv2", "gpiozero", "picamera2", "lgpio"}
    assert not found, f"imported with the referee's modules: {sorted(found)}"


def test_the_reader_and_the_panel_know_nothing_of_the_rules() -> None:
    imported = imported_with("vision", "hardware")
    assert {"vision", "hardware"} <= imported
    assert "companion" not in imported
