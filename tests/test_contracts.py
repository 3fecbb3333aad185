"""The external contracts of ../shared/DESIGN.md and RULES.md's option names, under hostile input.

Only what the other test files leave open: hostile input to ``dudo replay`` and the HTTP
API (huge numbers, deep nesting, unusual names), the record round trip through
``/api/record`` over random games with undo/leave/faces/palifico, ``dudo scan`` on files
that are not images, and the option names' error messages.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.cli import main
from companion.table import Table
from companion.web import create_app
from tests.engine.test_rules_audit import OPTION_VALUES

PIN = "2468"
PINH = {"X-Table-Pin": PIN}
HEADER: dict[str, Any] = {
    "game": "dudo-record/1",
    "rules": "perudo",
    "players": ["Ana", "Ben", "Caro"],
    "first": "Ana",
}
DESIGN_KEYS = {
    "rules", "phase", "round", "players", "dice_in_play", "dice_lost", "turn", "bid",
    "palifico", "winner", "last_result",
}
DEV_PHOTO = (
    Path(__file__).resolve().parents[2]
    / "shared" / "datasets" / "dice-top-dev" / "images" / "IMG_20191208_111228.jpg"
)
_SCRIPT = Path(sys.executable).with_name("dudo")
# The installed console command when there is one, else the same entry point by module.
DUDO = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "companion.cli"]


# -- helpers ------------------------------------------------------------------------------


def write_record(tmp_path: Path, *lines: str, name: str = "game.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def run_dudo(*argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The real console entry point in a subprocess (tracebacks show up on stderr)."""
    return subprocess.run(
        [*DUDO, *argv], capture_output=True, text=True, timeout=timeout,
        cwd=Path(__file__).resolve().parents[1],
    )


def assert_bad_line(result: subprocess.CompletedProcess[str], line: int) -> None:
    """DESIGN.md: exit status 2 and a one-line message on stderr naming the line."""
    assert "Traceback" not in result.stderr, result.stderr[-600:]
    assert result.returncode == 2, (result.returncode, result.stderr[-300:])
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"line {line}: "), lines[0]


H = json.dumps(HEADER)


@pytest.fixture
def app(table: Table) -> Flask:
    # TESTING off: an unhandled exception becomes the 500 a phone would really get.
    return create_app(table, {"TABLE_PIN": PIN, "TESTING": False})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def started(client: FlaskClient) -> FlaskClient:
    answer = client.post("/api/game", json=HEADER, headers=PINH)
    assert answer.status_code == 201, answer.get_json()
    return client


def snapshot(client: FlaskClient) -> tuple[str, str]:
    state = client.get("/api/state").get_json()
    state.pop("version", None)
    return json.dumps(state, sort_keys=True), client.get("/api/record").get_data(as_text=True)


# == dudo replay: hostile records =========================================================


@pytest.mark.parametrize(
    "action",
    [
        '{"action": "bid", "player": "Ana", "quantity": 1e400, "face": 4}',
        '{"action": "bid", "player": "Ana", "quantity": NaN, "face": 4}',
        '{"action": "bid", "player": "Ana", "quantity": -Infinity, "face": 4}',
        '{"action": "bid", "player": "Ana", "quantity": true, "face": 4}',
        '{"action": "bid", "player": "Ana", "quantity": 3.0, "face": 4}',
        '{"action": "bid", "player": "Ana", "quantity": "3", "face": 4}',
        '{"action": "bid", "player": "Ana", "quantity": 0, "face": 4}',
        '{"action": "bid", "player": "Ana", "quantity": 3, "face": 0}',
        '{"action": "bid", "player": "Ana", "quantity": 3, "face": [4]}',
        '{"action": "bid", "player": ["Ana"], "quantity": 3, "face": 4}',
        '{"action": "bid", "player": {"n": 1}, "quantity": 3, "face": 4}',
        '{"action": ["bid"], "player": "Ana", "quantity": 3, "face": 4}',
        '{"action": null}',
        "{}",
        "[1, 2]",
        "null",
        '"bid"',
        "42",
        '{"action": "bid", "player": "Ana", "quantity": 3, "face": 4} {"x": 1}',
        '{"action": "bid", "player": "Ana", "quantity": 3, "face": 4',
        '{"action": "reveal", "dice": {"Ana": [1]}}',
        '{"action": "reveal", "faces": "12345"}',
        '{"action": "palifico", "player": "Ana", "mode": "open"}',
        '{"action": "leave", "player": "Zed"}',
        '{"action": "undo"}',
        '{"action": "dudo", "player": "Ben"}',
    ],
)
def test_replay_a_bad_second_line_is_exit_2_and_one_line_naming_it(
    tmp_path: Path, action: str
) -> None:
    result = run_dudo("replay", str(write_record(tmp_path, H, action)), "--json")
    assert_bad_line(result, 2)


@pytest.mark.parametrize(
    "header",
    [
        "[]",
        "null",
        "{}",
        '{"game": "dudo-record/2", "rules": "perudo", "players": ["Ana", "Ben"]}',
        '{"game": "dudo-record/1", "rules": ["perudo"], "players": ["Ana", "Ben"]}',
        '{"game": "dudo-record/1", "rules": "perudo", "players": "AnaBen"}',
        '{"game": "dudo-record/1", "rules": "perudo", "players": [1, 2]}',
        '{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ana"]}',
        '{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "  "]}',
        '{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"], "first": ["Ana"]}',
        '{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"], "options": []}',
        '{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"],'
        ' "options": {"dice": 1e400}}',
    ],
)
def test_replay_a_bad_header_is_exit_2_and_one_line_naming_line_1(
    tmp_path: Path, header: str
) -> None:
    result = run_dudo("replay", str(write_record(tmp_path, header)))
    assert_bad_line(result, 1)


def test_replay_an_integer_too_long_for_python_is_line_n_not_a_traceback(
    tmp_path: Path,
) -> None:
    """Python refuses to parse ints of over 4300 digits with a ValueError that is not a
    JSONDecodeError: the replay must still say ``line 2: ...`` and exit 2."""
    action = '{"action": "bid", "player": "Ana", "quantity": %s, "face": 4}' % ("9" * 5000)
    result = run_dudo("replay", str(write_record(tmp_path, H, action)), "--json")
    assert_bad_line(result, 2)


def test_replay_a_header_option_too_long_for_python_is_line_1_not_a_traceback(
    tmp_path: Path,
) -> None:
    header = ('{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"],'
              ' "options": {"dice": %s}}' % ("9" * 5000))
    result = run_dudo("replay", str(write_record(tmp_path, header)))
    assert_bad_line(result, 1)


def test_replay_deeply_nested_json_is_line_n_not_a_traceback(tmp_path: Path) -> None:
    action = '{"action": ' + "[" * 100_000 + "]" * 100_000 + "}"
    result = run_dudo("replay", str(write_record(tmp_path, H, action)), "--json")
    assert_bad_line(result, 2)


def test_replay_a_player_name_with_a_lone_surrogate_never_gives_a_traceback(
    tmp_path: Path,
) -> None:
    """``"\\ud800"`` is valid JSON but no text: either refuse the header (line 1) or print it."""
    header = '{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "B\\ud800"]}'
    result = run_dudo("replay", str(write_record(tmp_path, header)))
    assert "Traceback" not in result.stderr, result.stderr[-400:]
    assert result.returncode in (0, 2)
    if result.returncode == 2:
        assert result.stderr.startswith("line 1: ")


def test_replay_the_error_message_stays_one_line_whatever_the_players_names(
    tmp_path: Path,
) -> None:
    """A name with a newline is accepted in the header; the error naming it must still be
    the one-line ``line N: reason`` (or the header refused)."""
    header = '{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "B\\nen"]}'
    action = '{"action": "bid", "player": "B\\nen", "quantity": 1, "face": 3}'
    result = run_dudo("replay", str(write_record(tmp_path, header, action)))
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1, repr(result.stderr)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"", "line 1"),
        (b"\n\n   \n", "line 1"),
        (b"\xff\xfe\x00garbage", "line 1: not UTF-8 text (byte 0xff, byte 1 of the line)"),
    ],
)
def test_replay_an_empty_or_undecodable_file_is_exit_2_and_a_clear_message(
    tmp_path: Path, content: bytes, needle: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    result = run_dudo("replay", str(path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert needle in result.stderr and len(result.stderr.splitlines()) == 1


def test_replay_a_directory_or_a_missing_file_is_exit_2_and_a_clear_message(
    tmp_path: Path,
) -> None:
    for target in (tmp_path, tmp_path / "missing.jsonl"):
        result = run_dudo("replay", str(target), "--json")
        assert result.returncode == 2
        assert "Traceback" not in result.stderr
        assert str(target) in result.stderr and result.stdout == ""


def test_replay_json_is_exactly_one_object_on_stdout_with_design_keys(tmp_path: Path) -> None:
    lines = [
        '{"game": "dudo-record/1", "rules": "perudo", "options": {"calza": true},'
        ' "players": ["Zoë", "Ben 🎲", "名前"], "first": "Zoë"}',
        '{"action": "bid", "player": "Zoë", "quantity": 3, "face": 4}',
        '{"action": "dudo", "player": "Ben 🎲"}',
    ]
    result = run_dudo("replay", str(write_record(tmp_path, *lines)), "--json")
    assert result.returncode == 0 and result.stderr == ""
    out = result.stdout
    assert out.endswith("\n") and out.count("\n") == 1
    state = json.loads(out)
    assert isinstance(state, dict) and set(state) >= DESIGN_KEYS
    assert state["phase"] == "reveal" and state["turn"] is None
    assert state["options"]["exact_call"] == "calza"
    assert state["bid"]["player"] == "Zoë"
    assert {"player", "quantity", "face"} <= set(state["bid"])
    for player in state["players"]:
        assert {"name", "dice", "out", "palifico_used"} <= set(player)
        assert type(player["dice"]) is int and type(player["out"]) is bool
    # and the text form prints the unicode names too
    text = run_dudo("replay", str(tmp_path / "game.jsonl"))
    assert text.returncode == 0 and "名前" in text.stdout


def test_replay_turn_is_null_and_winner_set_once_over(tmp_path: Path) -> None:
    lines = [
        '{"game": "dudo-record/1", "rules": "perudo", "options": {"dice": 1},'
        ' "players": ["Ana", "Ben"]}',
        '{"action": "bid", "player": "Ana", "quantity": 2, "face": 6}',
        '{"action": "dudo", "player": "Ben"}',
        '{"action": "reveal", "dice": {"Ana": [2], "Ben": [3]}}',
    ]
    result = run_dudo("replay", str(write_record(tmp_path, *lines)), "--json")
    state = json.loads(result.stdout)
    assert state["phase"] == "over" and state["turn"] is None and state["winner"] == "Ben"
    assert state["last_result"]


# == option names (RULES.md) ==============================================================


def test_a_bad_value_of_the_calza_spelling_is_not_called_an_unknown_option(
    tmp_path: Path,
) -> None:
    """``"calza"`` is a known name (DESIGN.md's record example): ``{"calza": 1}`` is a bad
    value, and the message should say so rather than that the name is unknown."""
    header = ('{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"],'
              ' "options": {"calza": 1}}')
    result = run_dudo("replay", str(write_record(tmp_path, header)))
    assert result.returncode == 2
    assert "unknown option 'calza'" not in result.stderr, result.stderr


def test_conflicting_calza_and_exact_call_do_not_depend_on_key_order(tmp_path: Path) -> None:
    """``{"calza": true, "exact_call": "jinto"}`` names the exact call twice; the outcome
    must not silently depend on which key comes last (a clear error, or one answer)."""
    outcomes = []
    for options in ('{"calza": true, "exact_call": "jinto"}',
                    '{"exact_call": "jinto", "calza": true}'):
        header = ('{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"],'
                  f' "options": {options}}}')
        result = run_dudo("replay", str(write_record(tmp_path, header)), "--json")
        outcomes.append(
            result.returncode if result.returncode else json.loads(result.stdout)["options"]
        )
    assert outcomes[0] == outcomes[1], outcomes


@pytest.mark.parametrize(
    ("preset", "value", "expected"),
    [("perudo", True, "calza"), ("payroodo", True, "exactomundo"), ("dudo", True, "spot_on"),
     ("jinto", True, "jinto"), ("perudo", False, "none"), ("jinto", False, "none")],
)
def test_the_calza_spelling_turns_the_presets_exact_call_on_or_off(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, preset: str, value: bool, expected: str
) -> None:
    header = json.dumps({"game": "dudo-record/1", "rules": preset, "players": ["Ana", "Ben"],
                         "options": {"calza": value}})
    assert main(["replay", str(write_record(tmp_path, header)), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["options"]["exact_call"] == expected




@pytest.mark.parametrize("name", sorted(OPTION_VALUES))
def test_every_option_takes_each_value_of_rules_md_and_refuses_others(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    for value in OPTION_VALUES[name]:
        header = json.dumps({"game": "dudo-record/1", "rules": "dudo",
                             "players": ["Ana", "Ben"], "options": {name: value}})
        assert main(["replay", str(write_record(tmp_path, header)), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["options"][name] == value
    for bad in ("yes", 1.5, None, [], {}, 0 if name != "dice" else 11, "TRUE"):
        header = json.dumps({"game": "dudo-record/1", "rules": "dudo",
                             "players": ["Ana", "Ben"], "options": {name: bad}})
        assert main(["replay", str(write_record(tmp_path, header))]) == 2
        err = capsys.readouterr().err
        assert err.startswith("line 1: ") and name in err, err


def test_dudo_rules_prints_every_option_name_with_each_value(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for name, values in OPTION_VALUES.items():
        row = next(line for line in out.splitlines() if line.startswith(name + " "))
        if name == "dice":
            assert "1-10" in row
        else:
            for value in values:
                shown = json.dumps(value).strip('"')
                assert shown in row, (name, shown, row)


# == dudo scan =============================================================================


def test_scan_files_that_are_not_images_are_each_one_clear_line_and_a_nonzero_exit(
    tmp_path: Path,
) -> None:
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    text = tmp_path / "text.jpg"
    text.write_text("not a picture\n")
    folder = tmp_path / "folder.png"
    folder.mkdir()
    noise = tmp_path / "noise.png"
    noise.write_bytes(bytes(range(256)) * 3)
    missing = tmp_path / "missing.jpg"
    names = [empty, text, folder, noise, missing]
    result = run_dudo("scan", *map(str, names), "--json")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == len(names), result.stderr
    for name, line in zip(names, lines, strict=True):
        assert str(name) in line


def test_scan_a_tiny_image_is_a_message_naming_the_file(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    path = tmp_path / "tiny.png"
    cv2.imwrite(str(path), np.zeros((1, 1, 3), np.uint8))
    result = run_dudo("scan", str(path))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "tiny.png" in result.stderr


def test_scan_json_lines_follow_the_contract_in_both_views(tmp_path: Path) -> None:
    """One object per image a line, the keys of DESIGN.md, face = pips from above and
    7 - pips from below, counts summing to total; a unicode file name is kept as given."""
    if not DEV_PHOTO.exists():
        pytest.fail(f"the dev photograph {DEV_PHOTO} is missing")
    named = tmp_path / "ünï cødé.jpg"
    named.write_bytes(DEV_PHOTO.read_bytes())
    for view in ("above", "below"):
        result = run_dudo("scan", str(named), str(named), "--view", view, "--json",
                          "--annotate", str(tmp_path / "out"))
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        assert len(lines) == 2
        for line in lines:
            reading = json.loads(line)
            assert set(reading) == {"image", "view", "total", "counts", "dice", "ms"}
            assert reading["image"] == str(named) and reading["view"] == view
            assert list(reading["counts"]) == ["1", "2", "3", "4", "5", "6"]
            assert sum(reading["counts"].values()) == reading["total"] == len(reading["dice"])
            for die in reading["dice"]:
                assert set(die) == {"face", "pips", "x", "y", "size", "confidence", "colour"}
                expect = die["pips"] if view == "above" else 7 - die["pips"]
                assert die["face"] == expect
        assert (tmp_path / "out" / named.name).is_file()


def test_scan_annotate_into_a_file_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    result = run_dudo("scan", str(tmp_path / "none.jpg"), "--annotate", str(blocker))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "--annotate" in result.stderr


# == HTTP API ==============================================================================


def test_api_deeply_nested_json_is_a_4xx_and_changes_nothing(started: FlaskClient) -> None:
    before = snapshot(started)
    raw = '{"action": ' + "[" * 100_000 + "]" * 100_000 + "}"
    for path in ("/api/actions", "/api/game", "/api/login", "/api/reading"):
        answer = started.post(path, data=raw, content_type="application/json", headers=PINH)
        assert 400 <= answer.status_code < 500, (path, answer.status_code)
        assert answer.get_json()["error"]
    assert snapshot(started) == before


def test_api_an_integer_too_long_for_python_is_a_4xx_and_changes_nothing(
    started: FlaskClient,
) -> None:
    before = snapshot(started)
    raw = '{"action": "bid", "player": "Ana", "quantity": %s, "face": 4}' % ("9" * 5000)
    answer = started.post("/api/actions", data=raw, content_type="application/json",
                          headers=PINH)
    assert 400 <= answer.status_code < 500 and answer.get_json()["error"]
    assert snapshot(started) == before


@pytest.mark.parametrize(
    "raw",
    [
        '{"action": "bid", "player": "Ana", "quantity": NaN, "face": 4}',
        '{"action": "bid", "player": "Ana", "quantity": 1e999, "face": 4}',
        '{"action": "bid", "player": "Ana", "quantity": -1, "face": 4}',
        '{"action": "bid", "player": "\\ud800", "quantity": 3, "face": 4}',
        '{"action": "BID", "player": "Ana", "quantity": 3, "face": 4}',
        '{"action": "reveal", "faces": [1, 2]}',
        '{"action": "palifico", "player": "Ana", "mode": "open"}',
        '{"game": "dudo-record/1", "rules": "perudo", "players": ["A", "B"]}',
        "{}",
    ],
)
def test_api_a_refused_action_is_json_4xx_and_changes_nothing(
    started: FlaskClient, raw: str
) -> None:
    before = snapshot(started)
    answer = started.post("/api/actions", data=raw, content_type="application/json",
                          headers=PINH)
    assert 400 <= answer.status_code < 500
    assert set(answer.get_json()) == {"error"} and answer.get_json()["error"]
    assert snapshot(started) == before


def test_api_an_action_carrying_a_lone_surrogate_is_a_4xx_and_changes_nothing(
    started: FlaskClient,
) -> None:
    before = snapshot(started)
    raw = '{"action": "bid", "player": "Ana", "quantity": 3, "face": 4, "note": "\\ud800"}'
    answer = started.post("/api/actions", data=raw, content_type="application/json",
                          headers=PINH)
    assert 400 <= answer.status_code < 500, answer.status_code
    assert snapshot(started) == before


def test_api_a_new_game_with_a_lone_surrogate_name_is_a_4xx(started: FlaskClient) -> None:
    before = snapshot(started)
    raw = '{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "B\\ud800"]}'
    answer = started.post("/api/game", data=raw, content_type="application/json", headers=PINH)
    assert 400 <= answer.status_code < 500, answer.status_code
    assert snapshot(started) == before


def test_after_a_refused_new_game_the_journal_still_saves_every_action(
    started: FlaskClient, table: Table, data_dir: Path
) -> None:
    """A rejected request changes nothing, the journal included: afterwards a new game can
    be started and each acknowledged action is committed (seen by another connection)."""
    raw = '{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "B\\ud800"]}'
    started.post("/api/game", data=raw, content_type="application/json", headers=PINH)
    answer = started.post("/api/actions", headers=PINH,
                          json={"action": "bid", "player": "Ana", "quantity": 3, "face": 4})
    assert answer.status_code == 200
    assert table.journal is not None
    other = sqlite3.connect(table.journal.database, timeout=0.5)
    try:
        rows = other.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
    finally:
        other.close()
    assert rows == 1, "the acknowledged bid is not committed to the journal"
    again = started.post("/api/game", json=HEADER, headers=PINH)
    assert again.status_code == 201, again.get_json()


def test_api_the_new_game_hint_example_is_itself_accepted(client: FlaskClient) -> None:
    """The 4xx for a malformed /api/game body gives an example header: it should be one the
    table accepts (DESIGN.md: the body is a record header, with its "game" line)."""
    answer = client.post("/api/game", data=b"{", content_type="application/json",
                         headers=PINH)
    assert answer.status_code == 400
    message = answer.get_json()["error"]
    example = json.loads(message[message.index("{"):])
    retry = client.post("/api/game", json=example, headers=PINH)
    assert retry.status_code == 201, (example, retry.get_json())


def test_api_control_needs_the_pin_and_a_refusal_changes_nothing(started: FlaskClient) -> None:
    before = snapshot(started)
    bid = {"action": "bid", "player": "Ana", "quantity": 3, "face": 4}
    for headers, status in (({}, 401), ({"X-Table-Pin": "0000"}, 403)):
        for path, body in (("/api/actions", bid), ("/api/game", HEADER)):
            answer = started.post(path, json=body, headers=headers)
            assert answer.status_code == status and set(answer.get_json()) == {"error"}
    assert snapshot(started) == before


def test_api_reading_and_picture_are_absent_before_a_reveal(started: FlaskClient) -> None:
    started.post("/api/actions", headers=PINH,
                 json={"action": "bid", "player": "Ana", "quantity": 3, "face": 4})
    started.post("/api/actions", headers=PINH, json={"action": "dudo", "player": "Ben"})
    state = started.get("/api/state").get_json()
    assert state["phase"] == "reveal" and state["turn"] is None
    assert "reading" not in state
    picture = started.get("/api/reveal.jpg")
    assert picture.status_code == 404 and picture.get_json()["error"]


def test_api_events_stream_starts_with_the_state(client: FlaskClient) -> None:
    stream = client.get("/api/events", buffered=False)
    assert stream.status_code == 200
    assert stream.mimetype == "text/event-stream"
    first = next(iter(stream.response)).decode()
    assert "event: state" in first
    payload = json.loads(next(ln[5:] for ln in first.splitlines() if ln.startswith("data:")))
    assert payload["state"]["phase"] == "setup"
    stream.close()


# -- random games through the API: the record must replay to the same state ----------------


SETUPS = [
    {"rules": "perudo", "options": {"calza": True, "dice": 2}},
    {"rules": "dudo", "options": {"dice": 2}},
    {"rules": "payroodo", "options": {"exact_call": "exactomundo", "dice": 2}},
    {"rules": "jinto", "options": {"dice": 2}},
    {"rules": "dudo", "options": {"dice": 2, "loss": "difference", "cruzado": True,
                                  "direction": "alternating"}},
]
NAMES = ["Zoë", "Ben 🎲", "名前", "Dan", "Eve"]


def random_action(rng: random.Random, state: dict[str, Any], bids: list[dict[str, Any]],
                  players: list[str]) -> dict[str, Any]:
    roll = rng.random()
    if roll < 0.05:
        return {"action": "undo"}
    if roll < 0.08:
        alive = [p["name"] for p in state["players"] if not p["out"]]
        return {"action": "leave", "player": rng.choice(alive or players)}
    if state["phase"] == "reveal":
        expected = state.get("expected_dice") or {}
        if rng.random() < 0.3:
            return {"action": "reveal",
                    "faces": [rng.randint(1, 6) for _ in range(sum(expected.values()))]}
        return {"action": "reveal",
                "dice": {n: [rng.randint(1, 6) for _ in range(k)] for n, k in expected.items()}}
    if state["palifico"] and not state["bids"] and rng.random() < 0.5:
        return {"action": "palifico", "player": state["palifico"],
                "mode": rng.choice(["open", "closed"])}
    calls = [(kind, who) for kind, names in (state.get("can_call") or {}).items()
             for who in names]
    if calls and (rng.random() < 0.35 or not bids):
        kind, who = rng.choice(calls)
        return {"action": kind, "player": who}
    if bids:
        bid = rng.choice(bids[:6])
        return {"action": "bid", "player": state["turn"], "quantity": bid["quantity"],
                "face": bid["face"]}
    return {"action": "bid", "player": state["turn"], "quantity": 1, "face": 2}


@pytest.mark.parametrize("seed", range(10))
def test_random_games_through_the_api_replay_to_the_same_state(
    client: FlaskClient, tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int
) -> None:
    rng = random.Random(seed)
    setup = SETUPS[seed % len(SETUPS)]
    players = NAMES[: 3 + seed % 3]
    header = {"game": "dudo-record/1", **setup, "players": players}
    assert client.post("/api/game", json=header, headers=PINH).status_code == 201
    for _ in range(160):
        state = client.get("/api/state").get_json()
        phase = state["phase"]
        assert phase in ("bidding", "reveal", "over")
        assert (state["turn"] is None) == (phase in ("reveal", "over")), state
        assert (state["winner"] is not None) == (phase == "over")
        if phase == "over" and rng.random() < 0.7:
            break
        bids = client.get("/api/bids").get_json()["bids"]
        action = random_action(rng, state, bids, players)
        before = snapshot(client)
        answer = client.post("/api/actions", json=action, headers=PINH)
        assert answer.status_code in (200, 422), (action, answer.status_code)
        if answer.status_code == 422:
            assert set(answer.get_json()) == {"error"}
            assert snapshot(client) == before, action
    record = client.get("/api/record")
    assert record.status_code == 200
    path = tmp_path / "api.jsonl"
    path.write_bytes(record.data)
    assert main(["replay", str(path), "--json"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    replayed = json.loads(out)
    live = client.get("/api/state").get_json()
    for key in DESIGN_KEYS:
        assert replayed[key] == live[key], key


# -- the virtual panel (--sim) -----------------------------------------------------------


@pytest.fixture
def sim_client(table: Table) -> Iterator[FlaskClient]:
    from hardware.panel import Panel
    from hardware.sim import MockPanelDriver, mock_pin_factory

    panel = Panel(table, pin_factory=mock_pin_factory())
    app = create_app(table, {"TABLE_PIN": PIN, "TESTING": False,
                             "SIM_DRIVER": MockPanelDriver(panel)})
    client = app.test_client()
    assert client.post("/api/game", json=HEADER, headers=PINH).status_code == 201
    assert panel.settle()
    yield client
    panel.close()


@pytest.mark.parametrize(
    ("path", "raw"),
    [
        ("/api/sim/press", '{"button": ["dudo"]}'),
        ("/api/sim/press", '{"button": {"a": 1}}'),
        ("/api/sim/press", '{"button": "dudo", "seat": "2"}'),
        ("/api/sim/press", '{"button": "dudo", "seat": 0}'),
        ("/api/sim/press", '{"button": "dudo", "seat": 99999999999999999999999}'),
        ("/api/sim/press", '{"button": "dudo", "hold_s": NaN}'),
        ("/api/sim/press", '{"button": "dudo", "hold_s": -1}'),
        ("/api/sim/press", '{"button": "dudo", "hold_s": Infinity}'),
        ("/api/sim/press", '{"button": "dudo", "hold_s": "1"}'),
        ("/api/sim/press", '{"button": "dial_a"}'),
        ("/api/sim/press", '{}'),
        ("/api/sim/dial", '{"steps": true}'),
        ("/api/sim/dial", '{"steps": 99999999999999999999999}'),
        ("/api/sim/dial", '{"steps": NaN}'),
        ("/api/sim/dial", '{"steps": "3"}'),
        ("/api/sim/dial", '[3]'),
    ],
)
def test_sim_a_bad_press_or_turn_is_json_4xx_and_changes_nothing(
    sim_client: FlaskClient, path: str, raw: str
) -> None:
    before = snapshot(sim_client)
    answer = sim_client.post(path, data=raw, content_type="application/json", headers=PINH)
    assert 400 <= answer.status_code < 500, answer.status_code
    assert answer.get_json()["error"]
    assert snapshot(sim_client) == before


def test_sim_press_and_dial_drive_the_real_panel(sim_client: FlaskClient) -> None:
    assert sim_client.post("/api/sim/dial", json={"steps": 3}, headers=PINH).status_code == 200
    answer = sim_client.post("/api/sim/press", headers=PINH,
                             json={"button": "dial", "hold_s": 0})
    assert answer.status_code == 200
    state = sim_client.get("/api/state").get_json()
    assert state["bid"]["player"] == "Ana" and state["turn"] == "Ben"
    answer = sim_client.post("/api/sim/press", headers=PINH,
                             json={"button": "dudo", "seat": 2, "hold_s": 0})
    assert answer.status_code == 200
    state = sim_client.get("/api/state").get_json()
    assert state["phase"] == "reveal" and state["turn"] is None


# -- hidden dice with --sim: during the cups-up wait, and a call undone within it ----------


@pytest.fixture
def two_sim_tables(tmp_path: Path) -> Iterator[list[Any]]:
    from contextlib import ExitStack

    from companion.config import load_config
    from companion.serve import build

    with ExitStack() as stack:
        yield [build(load_config(data=tmp_path / f"seed{seed}"), sim=True, seed=seed,
                     stack=stack) for seed in (1, 2)]


def test_sim_nothing_served_depends_on_the_cups_until_the_camera_looks(
    two_sim_tables: list[Any],
) -> None:
    """/api/sim/pins and the rest, right after a call (cups-up wait) and after that call is
    undone within the wait: the same on two tables with different dice, no reading, no
    picture, and none of the hidden dice anywhere."""
    import re
    import time

    gets = ["/api/state", "/api/bids", "/api/sim/pins", "/api/history", "/api/record"]
    bodies: list[list[str]] = []
    for companion in two_sim_tables:
        app = create_app(companion.table, {"TABLE_PIN": PIN, "SIM_CUPS": companion.cups,
                                           "SIM_DRIVER": companion.driver})
        client = app.test_client()
        seen: list[str] = []
        assert client.post("/api/game", json=HEADER, headers=PINH).status_code == 201
        assert companion.panel.settle()
        for action in ({"action": "bid", "player": "Ana", "quantity": 3, "face": 4},
                       {"action": "dudo", "player": "Ben"}):
            assert client.post("/api/actions", json=action, headers=PINH).status_code == 200
            assert companion.panel.settle()
        # The call's beep sounded out on both tables (CI found one still sounding): the pins
        # then hold what the game shows, whatever the time a host takes.
        assert companion.panel.signals.wait(timeout=5)
        state = client.get("/api/state").get_json()
        assert state["phase"] == "reveal" and "reading" not in state
        assert client.get("/api/reveal.jpg").status_code == 404
        seen += [client.get(p).get_data(as_text=True) for p in gets]
        assert client.post("/api/actions", json={"action": "undo"},
                           headers=PINH).status_code == 200
        time.sleep(companion.table.cups_up_s + 1.0)
        companion.table.wait_idle(10)
        assert companion.panel.settle()
        assert companion.panel.signals.wait(timeout=5)
        state = client.get("/api/state").get_json()
        assert state["phase"] == "bidding" and "reading" not in state
        assert client.get("/api/reveal.jpg").status_code == 404
        seen += [client.get(p).get_data(as_text=True) for p in gets]
        # The start time and the run's name differ between any two tables, dice or not.
        bodies.append([re.sub(r'"(started|run)": ?"[^"]+"', "", b) for b in seen])
        dice = companion.cups.dice()
        for body in seen:
            assert json.dumps(dice) not in body
    assert bodies[0] == bodies[1]


def test_sim_press_takes_every_button_name_design_md_lists(two_sim_tables: list[Any]) -> None:
    """The default panel has a dial, not the +/- and BID buttons of a table without one,
    but the simulated table takes them too: on mock pins nothing needs wiring."""
    companion = two_sim_tables[0]
    app = create_app(companion.table, {"TABLE_PIN": PIN, "SIM_CUPS": companion.cups,
                                       "SIM_DRIVER": companion.driver})
    client = app.test_client()
    assert client.post("/api/game", json=HEADER, headers=PINH).status_code == 201
    assert companion.panel.settle()

    def press(button: str) -> None:
        answer = client.post("/api/sim/press", json={"button": button}, headers=PINH)
        assert answer.status_code == 200, answer.get_json()

    press("bid")
    first = client.get("/api/state").get_json()["bid"]
    assert first["player"] == "Ana"
    press("qty_up")
    press("qty_up")
    press("qty_down")
    press("face_up")
    press("face_down")
    press("face_up")
    time.sleep(companion.panel.repeat_s)  # a second BID within it would be a double press
    press("bid")
    second = client.get("/api/state").get_json()["bid"]
    assert second["player"] == "Ben"
    assert (second["quantity"], second["face"]) > (first["quantity"], first["face"])
    for button in ("dial", "seat1", "seat6"):
        press(button)
    assert client.post("/api/sim/dial", json={"steps": 1}, headers=PINH).status_code == 200
