"""The four presets as RULES.md sets them, options by name, and ``dudo rules``."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from companion.cli import main
from companion.errors import MalformedAction
from companion.rules import OPTIONS, PRESETS, make_rules

# RULES.md, "Options, and which preset sets what", column by column.
PRESET_TABLE = {
    "perudo": {
        "dice": 5, "raise": "quantity_or_face", "to_aces": "ceil_half", "open_on_aces": "never",
        "exact_call": "none", "pass": False, "starter": "loser", "palifico": "once",
        "palifico_face_change": "nobody", "palifico_choice": False, "loss": "one",
    },
    "dudo": {
        "dice": 5, "raise": "quantity_or_face", "to_aces": "ceil_half", "open_on_aces": "one_die",
        "exact_call": "spot_on", "pass": True, "starter": "loser", "palifico": "once",
        "palifico_face_change": "one_die", "palifico_choice": True, "loss": "one",
    },
    "payroodo": {
        "dice": 5, "raise": "quantity_or_face", "to_aces": "half_plus_one",
        "open_on_aces": "never", "exact_call": "none", "pass": False, "starter": "loser",
        "palifico": "once", "palifico_face_change": "one_die", "palifico_choice": False,
        "loss": "one",
    },
    "jinto": {
        "dice": 3, "raise": "quantity", "to_aces": "ceil_half", "open_on_aces": "never",
        "exact_call": "jinto", "pass": False, "starter": "winner", "palifico": "every_time",
        "palifico_face_change": "nobody", "palifico_choice": False, "loss": "one",
    },
}  # fmt: skip


@pytest.mark.parametrize("preset", sorted(PRESET_TABLE))
def test_each_preset_sets_the_options_of_the_rules_table(preset: str) -> None:
    options = PRESETS[preset].options()
    assert {k: options[k] for k in PRESET_TABLE[preset]} == PRESET_TABLE[preset]
    assert options["wild_aces"] and not options["cruzado"]
    assert options["direction"] == "clockwise"


def test_perudo_is_the_default_and_options_override_a_preset_by_name() -> None:
    assert make_rules() == PRESETS["perudo"]
    rules = make_rules("perudo", {"exact_call": "calza", "pass": True})
    assert (rules.exact_call, rules.pass_, rules.preset) == ("calza", True, "perudo")
    assert rules.overrides() == {"exact_call": "calza", "pass": True}


def test_every_option_of_rules_md_has_a_name_and_values() -> None:
    assert list(OPTIONS) == [
        "dice", "wild_aces", "raise", "to_aces", "open_on_aces", "exact_call", "pass", "starter",
        "palifico", "palifico_face_change", "palifico_choice", "loss", "cruzado", "direction",
        "lost_dice_visible",
    ]  # fmt: skip
    for name, option in OPTIONS.items():
        for value in option.values:
            assert make_rules("perudo", {name: value}).options()[name] == value


def test_an_unknown_option_value_is_malformed_and_lists_the_values() -> None:
    with pytest.raises(MalformedAction, match=r"option loss: unknown value 'all' \(values: one, "):
        make_rules("dudo", {"loss": "all"})


def test_calza_true_and_exact_call_may_be_given_together_only_when_they_agree() -> None:
    # DESIGN.md spells the exact call {"calza": true}; RULES.md names it exact_call.
    agreed = make_rules("payroodo", {"calza": True, "exact_call": "exactomundo"})
    assert agreed.exact_call == "exactomundo"
    with pytest.raises(MalformedAction, match="options calza = true \\(calza\\) and "
                       "exact_call = 'jinto' disagree: give one"):
        make_rules("perudo", {"exact_call": "jinto", "calza": True})


def test_dudo_rules_prints_every_preset_and_every_option_with_its_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for name in PRESETS:
        assert name in out
    for name, option in OPTIONS.items():
        assert f"{name} " in out
        assert option.values_text() in out
        assert option.meaning in out
    assert "none, calza, spot_on, exactomundo, jinto" in out


def test_dudo_rules_with_a_preset_prints_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "jinto"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("jinto: a club's house rules")
    assert "exact_call            jinto" in out
    # Not an option a record's "options" takes: marked so, as the whole table marks it.
    assert ("(players)             2-20              how many may sit at the table (fixed by"
            " the preset, no option)") in out
    assert ("(first starter)       player 1          who opens a game's first round (fixed by"
            " the preset, no option)") in out


@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "PYTHONUNBUFFERED"])
def test_dudo_rules_to_an_output_that_takes_nothing_says_so_in_one_line(unbuffered: str) -> None:
    # Before, buffered (as on a player's machine): Python's own "Exception ignored ... No
    # space left on device" as it exited, status 120; unbuffered (as under systemd): a
    # traceback, status 1.
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered} if unbuffered else None
    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, "-m", "companion.cli", "rules", "perudo"],
                             stdout=full, stderr=subprocess.PIPE, text=True, timeout=60, env=env)
    assert (run.returncode, run.stderr) == (
        2, "dudo rules: cannot write the output: No space left on device\n")


@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "PYTHONUNBUFFERED"])
@pytest.mark.parametrize("asked", [["--help"], ["rules", "--help"], ["scan", "--help"],
                                   ["replay", "--help"]], ids=" ".join)
def test_dudo_help_to_an_output_that_takes_nothing_says_so_in_one_line(
    asked: list[str], unbuffered: str
) -> None:
    # Before: Python's own "Exception ignored ... No space left on device", status 120;
    # unbuffered, nothing said and status 0 (argparse drops what it cannot write); closed,
    # the help on stderr and status 0.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, "-m", "companion.cli", *asked], stdout=full,
                             stderr=subprocess.PIPE, text=True, timeout=60, env=env)
    assert (run.returncode, run.stderr) == (
        2, f"dudo {' '.join(asked)}: cannot write the output: No space left on device\n")
    closed = subprocess.run([sys.executable, "-m", "companion.cli", *asked],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            timeout=60, env=env, preexec_fn=lambda: os.close(1))
    assert (closed.returncode, closed.stderr) == (
        2, f"dudo {' '.join(asked)}: the standard output is closed\n")
    # Written where it can be, the help and nothing else; a mistyped command still says why.
    shown = subprocess.run([sys.executable, "-m", "companion.cli", *asked], capture_output=True,
                           text=True, timeout=60, env=env)
    assert (shown.returncode, shown.stderr) == (0, "") and shown.stdout.startswith("usage: ")
    wrong = subprocess.run([sys.executable, "-m", "companion.cli", "rulez"], capture_output=True,
                           text=True, timeout=60, env=env)
    assert wrong.returncode == 2 and "invalid choice: 'rulez'" in wrong.stderr


def test_dudo_rules_with_an_unknown_preset_exits_2_with_a_clear_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rules", "poker"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "unknown preset 'poker' (presets: perudo, dudo, payroodo, jinto)" in captured.err
