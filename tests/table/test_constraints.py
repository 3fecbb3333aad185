"""The versions `.ci/setup` and `.ci/pi-stack` install: every package the project names is
pinned, at a version the project allows, so that a fresh clone runs its tests on what CI
passed with (a newer ruff or mypy finds new faults; a newer Playwright may need a newer
Chromium than Debian's)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def pins(name: str) -> dict[str, Version]:
    """The ``name==version`` lines of a constraints file, by canonical name."""
    found = {}
    for line in (ROOT / ".ci" / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            package, _, version = line.partition("==")
            assert version, f"{name}: {line!r} is not pinned to one version"
            found[canonicalize_name(package)] = Version(version)
    return found


def requirements(*extras: str) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    named = [*project["dependencies"]]
    for extra in extras:
        named += project["optional-dependencies"][extra]
    return [Requirement(r) for r in named]


def test_every_package_of_the_dev_install_is_pinned_at_a_version_the_project_allows() -> None:
    pinned = pins("constraints.txt")
    for requirement in requirements("dev"):
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{requirement.name} is not in .ci/constraints.txt"
        assert pinned[name] in requirement.specifier, (
            f".ci/constraints.txt pins {requirement.name} {pinned[name]}, outside {requirement}")
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    for requirement in map(Requirement, build):
        assert pinned.get(canonicalize_name(requirement.name)) in requirement.specifier, (
            f"the build's {requirement} is not pinned in .ci/constraints.txt")


def test_the_pi_stack_pins_its_own_packages_and_leaves_numpy_and_opencv_to_apt() -> None:
    pinned = pins("constraints-pi.txt")
    for requirement in requirements("onnx"):
        name = canonicalize_name(requirement.name)
        if name == "numpy":
            assert name not in pinned, "the Pi stack's numpy is apt's: a pin would replace it"
            continue
        assert name in pinned, f"{requirement.name} is not in .ci/constraints-pi.txt"
        assert pinned[name] in requirement.specifier
    for name in ("pytest", "pytest-xdist", "hypothesis"):
        assert name in pinned, f"{name} is not in .ci/constraints-pi.txt"
    assert "opencv-python-headless" not in pinned
