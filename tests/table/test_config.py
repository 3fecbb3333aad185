"""The TOML config of ``dudo serve``: the file's settings, the command line winning over them."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.config import DEFAULT_PORT, load_config

FILE = """
[server]
host = "127.0.0.1"
port = 9000
pin = "0042"
data = "/srv/dudo"

[table]
rules = "dudo"
players = ["Ana", "Ben"]
options = { pass = true }
cups_up_s = 1.5

[pins]
dudo = 17

[camera]
source = "device:0"
"""


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(FILE)
    return path


def test_the_file_sets_the_server_and_the_new_game_defaults(config_file: Path) -> None:
    config = load_config(config_file)
    assert (config.host, config.port, config.pin, config.data) == (
        "127.0.0.1", 9000, "0042", Path("/srv/dudo"))
    assert config.table.rules == "dudo"
    assert config.table.players == ("Ana", "Ben")
    assert dict(config.table.options) == {}  # pass = true is the encyclopedia's own
    assert config.table.cups_up_s == 1.5
    assert config.path == config_file  # the hardware and vision loaders read the rest


def test_the_new_game_defaults_are_options_as_a_record_writes_them_and_names_a_phone_tells_apart(
    tmp_path: Path,
) -> None:
    path = tmp_path / "dudo.toml"
    path.write_text('[table]\nrules = "perudo"\noptions = { calza = true, dice = 4 }\n')
    assert dict(load_config(path).table.options) == {"dice": 4, "exact_call": "calza"}
    path.write_text('[table]\nplayers = ["Ana", "Ana "]\n')
    with pytest.raises(ValueError, match=r"\[table\] player name 'Ana ': spaces at its start"):
        load_config(path)


def test_the_command_line_wins_over_the_file(config_file: Path, tmp_path: Path) -> None:
    config = load_config(config_file, host="0.0.0.0", port=8081, pin="9999",
                         data=tmp_path / "d")
    assert (config.host, config.port, config.pin, config.data) == (
        "0.0.0.0", 8081, "9999", tmp_path / "d")


def test_without_a_file_the_page_is_on_every_address_at_8080_with_no_pin_yet(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DUDO_DATA", str(tmp_path))
    config = load_config(None)
    assert (config.host, config.port, config.pin, config.data) == (
        "0.0.0.0", DEFAULT_PORT, None, tmp_path)
    assert config.table.cups_up_s == 3.0  # time to undo a mis-pressed call, unseen


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[server]\nport = '8080'\n", "[server] port = '8080': must be a whole number"),
        ("[server]\npin = 42\n", 'write it as a string ("0042")'),
        ("[server]\npin = '42'\n", "a table PIN is 4 to 12 digits"),
        ('[server]\npin = "4821\\n"\n', "pin = '4821\\n': a table PIN is 4 to 12 digits"),
        ("[table]\nplayers = 'Ana'\n", "[table] players = 'Ana': must be a list of names"),
        ("[tabel]\nrules = 'dudo'\n", "unknown table(s) tabel"),
        ("server = 3\n", "[server] must be a table"),
        ("[table]\ncups_up_s = -1\n", "[table] cups_up_s = -1: must be 0-30 seconds"),
        ("[table]\ncups_up_s = '3'\n", "[table] cups_up_s = '3': must be 0-30 seconds"),
        ("[table]\nrules = 'perudoo'\n", "[table] unknown preset 'perudoo' (presets: perudo,"),
        ("[table]\noptions = { exact_calls = 'calza' }\n", "[table] unknown option 'exact_calls'"),
        ("[table]\noptions = { dice = 0 }\n", "[table] option dice"),
        ("[table]\nplayers = ['A', 'B', 'C', 'D', 'E', 'F', 'G']\n",
         "[table] 7 players: perudo seats 2-6 players"),
        ("[table]\nplayers = ['Ana']\n", "[table] 1 player: perudo seats 2-6 players"),
    ],
    ids=["port as text", "pin as a number", "short pin", "pin ending a line", "players not a list",
         "typo table",
         "server not a table", "cups up in negative time", "cups up as text", "typo preset",
         "typo option", "bad option value", "too many players", "one player"],
)
def test_a_bad_value_names_the_file_the_table_and_the_key(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "table.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=str(path)) as err:
        load_config(path)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("options", "text", "message"),
    [
        ({"host": ""}, None, "--host '': empty (leave the option out for the config's or the"
                             " default)"),
        ({"data": ""}, None, "--data '': empty"),
        ({"pin": "4821"}, "[server]\npin = '12'\n",
         "[server] pin = '12': a table PIN is 4 to 12 digits"),
        ({"port": 8080}, "[server]\nport = 0\n", "[server] port = 0: a port is 1-65535"),
    ],
    ids=["empty host (was every address)", "empty data (was the home folder)",
         "a bad pin in the file, given as an option", "a bad port in the file, given as one"],
)
def test_a_setting_given_empty_or_overridden_is_still_checked(
    tmp_path: Path, options: dict[str, object], text: str | None, message: str
) -> None:
    # The file is what the service starts with: its mistakes count even where an option
    # given by hand overrides them.
    path = None
    if text is not None:
        path = tmp_path / "table.toml"
        path.write_text(text)
    with pytest.raises(ValueError) as err:
        load_config(path, **options)  # type: ignore[arg-type]
    assert message in str(err.value)


def test_a_config_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_bytes(b"[table]\nplayers = ['Jos\xe9']\n")  # saved as Latin-1
    with pytest.raises(ValueError, match=f"{path}: not UTF-8 text"):
        load_config(path)


def test_a_config_saved_by_notepad_with_a_byte_order_mark_is_read_whole(tmp_path: Path) -> None:
    from hardware.pins import pin_map_from_config
    from vision.calibration import load_calibration
    from vision.tomlwrite import save_tables

    path = tmp_path / "dudo.toml"
    path.write_bytes(b'\xef\xbb\xbf[server]\r\nport = 9001\r\n[pins]\r\ndudo = 5\r\n'
                     b'[camera]\r\nsource = "none"\r\n')
    assert load_config(path).port == 9001
    assert pin_map_from_config(path)["dudo"].pin == 5
    assert load_calibration(path).camera.source == "none"
    save_tables(path, {"seats": {"count": 2, "centre": [1, 2]}})  # as dudo calibrate writes
    assert load_config(path).port == 9001 and load_calibration(path).seats.count == 2
