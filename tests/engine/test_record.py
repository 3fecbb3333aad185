"""The game record: whole games replayed from ``tests/games``, and ``dudo replay``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.cli import main
from companion.errors import IllegalAction, MalformedAction
from companion.game import Game, check_new_players
from companion.record import dumps, replay, replay_file
from companion.rules import make_rules

GAMES = Path(__file__).parent.parent / "games"
RECORDS = sorted(GAMES.glob("*.jsonl"))
HEADER = '{"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben", "Caro"]}'


def test_there_are_a_handful_of_games_for_every_preset() -> None:
    presets = [json.loads(p.read_text().splitlines()[0])["rules"] for p in RECORDS]
    assert {preset: presets.count(preset) >= 2 for preset in presets} == {
        "perudo": True, "dudo": True, "payroodo": True, "jinto": True,
    }  # fmt: skip


@pytest.mark.parametrize("record", RECORDS, ids=[p.stem for p in RECORDS])
def test_each_recorded_game_replays_to_its_expected_final_state(record: Path) -> None:
    expected = json.loads(record.with_name(record.stem + ".expected.json").read_text())
    state = replay_file(record).state()
    assert {key: state[key] for key in expected} == expected


@pytest.mark.parametrize("record", RECORDS, ids=[p.stem for p in RECORDS])
def test_a_replayed_game_writes_back_the_same_record(record: Path) -> None:
    lines = record.read_text().splitlines()
    game = replay(lines)
    assert [json.loads(line) for line in dumps(game).splitlines()[1:]] == [
        json.loads(line) for line in lines[1:]
    ]


def test_a_record_header_without_first_or_options_starts_with_the_first_listed_player() -> None:
    game = replay([HEADER])
    assert game.turn == "Ana"
    assert game.header == {
        "game": "dudo-record/1", "rules": "perudo", "options": {},
        "players": ["Ana", "Ben", "Caro"], "first": "Ana",
    }  # fmt: skip


def test_a_header_key_given_null_is_a_key_not_given() -> None:
    # As the README says, and as in an action: "rules": null was refused as an unknown
    # preset, "colours" and "seats" null as no map and no list (session 93's audits).
    for key in ("rules", "options", "first", "colours", "seats"):
        header = json.loads(HEADER) | {key: None}
        assert replay([json.dumps(header)]).state() == replay([HEADER]).state(), key


def test_a_new_games_header_lists_only_the_options_that_differ_from_its_preset() -> None:
    game = Game(make_rules("dudo", {"dice": 3, "pass": True}), ["Ana", "Ben"], first="Ben")
    assert game.header["options"] == {"dice": 3}
    assert replay([json.dumps(game.header)]).state() == game.state()


def test_the_players_colours_chosen_for_a_new_game_stay_with_its_record_and_state() -> None:
    header = {"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"],
              "colours": {"Ana": "#d62828", "Ben": "#1d4ed8"}}  # fmt: skip
    game = replay([json.dumps(header)])
    assert game.state()["colours"] == {"Ana": "#d62828", "Ben": "#1d4ed8"}
    again = replay(dumps(game).splitlines())
    assert again.state()["colours"] == {"Ana": "#d62828", "Ben": "#1d4ed8"}
    assert replay([HEADER]).state()["colours"] == {}


def test_the_players_seats_stay_with_the_record_and_default_to_one_two_three() -> None:
    # Another game of the same table, Ben (seat 2) having left: Caro keeps seat 3.
    header = {"game": "dudo-record/1", "players": ["Ana", "Caro"], "seats": [1, 3]}
    game = replay([json.dumps(header)])
    assert [(p["name"], p["seat"]) for p in game.state()["players"]] == [("Ana", 1), ("Caro", 3)]
    assert replay(dumps(game).splitlines()).state()["players"] == game.state()["players"]
    assert [p["seat"] for p in replay([HEADER]).state()["players"]] == [1, 2, 3]
    assert (replay([HEADER]).seats, game.seats) == ([1, 2, 3], [1, 3])  # the panel's buttons
    assert "seats" not in replay([HEADER]).header


@pytest.mark.parametrize(
    ("lines", "error", "message"),
    [
        ([], MalformedAction, "line 1: empty record: the header line is missing"),
        (['{"game": "dudo-record/1", "players": ["Ana", "Ben"], "seats": [1]}'],
         MalformedAction, "line 1: header 'seats' must give each of the 2 players a seat"
                          " number, in their order, not [1]"),
        (['{"game": "dudo-record/1", "players": ["Ana", "Ben"], "seats": [3, 2]}'],
         MalformedAction, "line 1: header 'seats' [3, 2]: seat numbers rise from 1 in the"
                          " players' order (the order of play)"),
        (['{"game": "dudo-record/1", "players": ["Ana", "Ben"], "seats": [0, 2]}'],
         MalformedAction, "line 1: header 'seats' [0, 2]: seat numbers rise from 1"),
        (['{"game": "dudo-record/1", "players": ["Ana", "Ben"], "seats": [2, 2]}'],
         MalformedAction, "line 1: header 'seats' [2, 2]: seat numbers rise from 1"),
        (['{"game": "dudo-record/1", "players": ["Ana", "Ben"], "seats": [1, true]}'],
         MalformedAction, "line 1: header 'seats' must give each of the 2 players"),
        (["{not json"], MalformedAction, "line 1: bad JSON: Expecting property name"),
        ([HEADER, '{"action": "bid", "player": "Ana", "quantity": 3, "face": 7}'],
         MalformedAction, "line 2: malformed bid: face 7 (faces are 1-6)"),
        ([HEADER, "", '{"action": "bid", "player": "Ana", "quantity": 3}'],
         MalformedAction, "line 3: bid needs a 'face'"),
        ([HEADER, "[1, 2]"], MalformedAction, "line 2: an action must be a JSON object"),
        ([HEADER, '{"action": "shout", "player": "Ana"}'], MalformedAction,
         "line 2: unknown action 'shout'"),
        ([HEADER, '{"action": "bid", "player": "Ana", "quantity": 5, "face": 3}',
          '{"action": "bid", "player": "Ben", "quantity": 4, "face": 3}'],
         IllegalAction, "line 3: illegal bid 4x3 over 5x3: quantity must rise"),
        (['{"game": "dudo-record/1", "rules": "poker", "players": ["Ana", "Ben"]}'],
         MalformedAction, "line 1: unknown preset 'poker'"),
        (['{"game": "dudo-record/1", "players": ["Ana", "Ben"], "colours": {"Ana": "red"}}'],
         MalformedAction, "line 1: header 'colours': Ana's colour 'red' is not a #rrggbb colour"),
        (['{"game": "dudo-record/1", "players": ["Ana", "Ben"], "colours": {"Eve": "#ff0000"}}'],
         MalformedAction, "line 1: header 'colours': 'Eve' is not a player"),
        # A name that looks the same but is written otherwise (an accent apart) says so.
        (['{"game": "dudo-record/1", "players": ["Zo\u00eb", "Ben"]}',
          '{"action": "bid", "player": "Zoe\u0308", "quantity": 3, "face": 4}'],
         MalformedAction, "line 2: unknown player 'Zoe\u0308' (written 'Zoe\\u0308': the"
                          " game's 'Zo\u00eb' is written 'Zo\\xeb')"),
        # A line cut short by a power cut names its own end, not the next line's start.
        ([HEADER + "\n", '{"action": "bid", "player": "Ana", "quantity": 3, "face": 4\n'],
         MalformedAction, "line 2: bad JSON: Expecting ',' delimiter (column 60)"),
        ([HEADER + "\n", '"abc\n'],
         MalformedAction, "line 2: bad JSON: Unterminated string starting at (column 1)"),
        # The players are a list: not an object of them, nor names that look alike.
        (['{"game": "dudo-record/1", "players": {"Ana": 1, "Ben": 2}}'],
         MalformedAction, "line 1: players must be a list of names, not {'Ana': 1, 'Ben': 2}"),
        (['{"game": "dudo-record/1", "players": null}'],  # a key given null is not given
         MalformedAction, "line 1: the header needs 'players'"),
        (['{"game": "dudo-record/1", "players": ["Ana\\n", "Ben"]}'],
         MalformedAction, "line 1: player name 'Ana\\n': only printable characters"),
        (['{"game": "dudo-record/1", "players": ["Ana"]}'],
         MalformedAction, "line 1: 1 player: perudo seats 2-6 players"),
        # A key given twice is refused, never read as its last value (a line garbled, two
        # edits run together).
        ([HEADER, '{"action": "bid", "player": "Ana", "quantity": 1, "face": 4, "quantity": 2}'],
         MalformedAction, "line 2: a key given twice: 'quantity'"),
        (['{"game": "dudo-record/1", "players": ["Ana", "Ben"],'
          ' "options": {"dice": 3, "dice": 5}}'],
         MalformedAction, "line 1: a key given twice: 'dice'"),
        # Messages are one line in JSON's words, whatever the input held.
        (['{"game": "dudo-record/1", "players": ["Ana", "Ben"], "options": {"dice": null}}'],
         MalformedAction, "line 1: option dice: unknown value null (values: 1-10)"),
        ([HEADER, '{"action": "palifico", "player": "Ana", "mode": false}'],
         MalformedAction, "line 2: palifico mode false (modes: open, closed)"),
        ([HEADER, json.dumps({"action": "bid", "player": "A" * 100_000, "quantity": 2, "face": 3})],
         MalformedAction, f"line 2: unknown player '{'A' * 59}… (100,000 characters)"),
        # Bids have no upper bound, but one the referee could not say is refused.
        # Bids have no upper bound: one of thousands of digits is said by its length.
        ([HEADER, '{"action": "bid", "player": "Ana", "quantity": 5, "face": 4}',
          '{"action": "bid", "player": "Ben", "quantity": %s, "face": 1}' % ("9" * 4300),
          '{"action": "bid", "player": "Caro", "quantity": 3, "face": 5}'],
         IllegalAction, "line 4: illegal bid 3x5 over (a number of 4,300 digits)x1: leaving"
                        " aces needs at least (a number of over 4,300 digits)x5"),
    ],
)  # fmt: skip
def test_the_first_bad_line_stops_the_replay_with_its_number_and_reason(
    lines: list[str], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        replay(lines)
    assert str(caught.value).startswith(message)


def test_a_reveal_keeps_the_dice_the_players_corrected_and_the_history_says_them() -> None:
    # Since session 61 the table writes, with a camera reading confirmed after the players
    # corrected it, which dice those were (the history said only what was counted, and the
    # picture is kept for the last reveal only).
    lines = (GAMES / "perudo-corrected-reading.jsonl").read_text().splitlines()
    game = replay(lines[:3])
    said = game.apply(json.loads(lines[3]))
    assert [(a.kind, a.text) for a in said[:2]] == [
        ("corrected", "The players corrected the camera: Ana's die read as 5 is a 4;"
                      " Caro's die read as 2 is a 1"),
        ("reveal", "Dudo by Ben on Ana's four 4s: 5 counted (aces wild), the bid stands"),
    ]
    assert game.state()["last_result"]["text"] == (
        "Dudo by Ben on Ana's four 4s: 5 counted (aces wild), the bid stands. Ben loses a die.")
    for line in lines[4:6]:
        game.apply(json.loads(line))
    said = game.apply(json.loads(lines[6]))  # one flat list: the die is nobody's in words
    assert said[0].text == "The players corrected the camera: a die read as 5 is a 6"
    assert json.loads(dumps(game).splitlines()[-1])["corrected"] == [{"read": 5, "face": 6}]


@pytest.mark.parametrize(
    ("corrected", "message"),
    [
        ("4 to 6", "reveal: corrected must be a list of dice, not '4 to 6'"),
        ([[5, 4]], "reveal: a corrected die is an object with 'read' and 'face', not [5, 4]"),
        ([{"read": 5}], "reveal: a corrected die needs its 'face' (the face it shows)"),
        ([{"read": 7, "face": 4}], "reveal: corrected die's read 7 (faces are 1-6)"),
        ([{"read": 4, "face": 0}], "reveal: corrected die's face 0 (faces are 1-6)"),
        ([{"read": 4, "face": 4}], "reveal: a corrected die read as 4 and shown as 4 was not"
                                   " corrected"),
        ([{"player": "Zed", "read": 5, "face": 4}], "reveal: corrected die: unknown player 'Zed'"),
        ([{"read": 2, "face": 3}] * 3, "reveal: 3 dice corrected to 3, the reveal shows 2"),
        ([{"player": "Ben", "read": 5, "face": 4}], "reveal: 1 of Ben's dice corrected to 4,"
                                                   " Ben's dice show 0"),
    ],
)  # fmt: skip
def test_a_correction_that_cannot_be_stops_the_replay_naming_it(
    corrected: object, message: str
) -> None:
    lines = (GAMES / "perudo-corrected-reading.jsonl").read_text().splitlines()
    reveal = json.loads(lines[3])
    reveal["corrected"] = corrected
    game = replay(lines[:3])
    before = game.state()
    with pytest.raises(MalformedAction) as caught:
        replay([*lines[:3], json.dumps(reveal)])
    assert str(caught.value) == f"line 4: {message}"
    with pytest.raises(MalformedAction):
        game.apply(reveal)
    assert game.state() == before


def test_a_die_corrected_for_a_player_with_no_dice_in_play_is_refused() -> None:
    # Dan left before the call: a flat list of faces cannot hold a die of his (a list by
    # player already said "Dan's dice show 0").
    header = json.dumps({"game": "dudo-record/1", "rules": "perudo",
                         "players": ["Ana", "Ben", "Caro", "Dan"]})
    lines = [header, '{"action": "bid", "player": "Ana", "quantity": 4, "face": 4}',
             '{"action": "leave", "player": "Dan"}', '{"action": "dudo", "player": "Ben"}']
    faces = [1, 4, 4, 5, 6, 2, 3, 3, 6, 6, 1, 2, 4, 5, 6]
    reveal = {"action": "reveal", "faces": faces,
              "corrected": [{"player": "Dan", "read": 2, "face": 5}]}
    with pytest.raises(MalformedAction) as caught:
        replay([*lines, json.dumps(reveal)])
    assert str(caught.value) == (
        "line 5: reveal: a die of Dan's corrected, but Dan has no dice in play")
    reveal["corrected"] = [{"player": "Caro", "read": 2, "face": 5}]  # Caro is in play
    said = replay(lines).apply(reveal)
    assert said[0].text == "The players corrected the camera: Caro's die read as 2 is a 5"


def test_dudo_replay_prints_the_final_state_readably(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(GAMES / "jinto-house.jsonl")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "jinto r9 Ana:0 Ben:3 Caro:0 winner=Ben"
    assert out[1] == "rules jinto, round 9, over"
    assert "  Ben   3 dice" in out
    assert out[-1] == "winner: Ben"


def test_dudo_replay_says_one_die_not_one_dice(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(GAMES / "dudo-open-on-aces-with-one-die.jsonl")]) == 0
    out = capsys.readouterr().out
    assert " 1 die " in out or out.count(" 1 die\n")
    assert " 1 dice" not in out


def test_dudo_replay_json_prints_one_object_the_games_state(
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = GAMES / "perudo-calza-leave.jsonl"
    assert main(["replay", str(record), "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert json.loads(out) == replay_file(record).state()


def test_dudo_replay_of_a_bad_record_exits_2_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "bad.jsonl"
    record.write_text(
        HEADER + "\n"
        '{"action": "bid", "player": "Ana", "quantity": 5, "face": 3}\n'
        '{"action": "bid", "player": "Ben", "quantity": 4, "face": 3}\n'
    )
    assert main(["replay", str(record)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "line 3: illegal bid 4x3 over 5x3: quantity must rise\n"


def test_dudo_replay_of_a_missing_file_exits_2_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "dudo replay: no such file:" in capsys.readouterr().err


def test_dudo_replay_names_the_line_of_a_byte_that_is_not_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "latin1.jsonl"
    record.write_bytes(
        HEADER.encode() + b"\n"
        b'{"action": "bid", "player": "Ana", "quantity": 2, "face": 3}\n'
        b'{"action": "bid", "player": "B\xe9n", "quantity": 3, "face": 3}\n'
    )
    assert main(["replay", str(record)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "line 3: not UTF-8 text (byte 0xe9, byte 31 of the line)\n"


def test_dudo_replay_given_the_tables_journal_says_where_a_record_is_had(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # DESIGN.md calls the record the journal's content: the journal itself is the likely
    # mistake. Before: "line 1: not UTF-8 text (byte 0xf3, byte 114 of the line)".
    from companion.journal import Journal

    Journal.in_directory(tmp_path).close()
    assert main(["replay", str(tmp_path / "journal.sqlite3")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "this is the table's journal (an SQLite database of every game), not a game's record:"
        " download each game's record from the page's Games list (GET /api/games/ID/record)\n")


def test_dudo_replay_reads_a_record_saved_with_a_byte_order_mark_and_crlf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "notepad.jsonl"
    record.write_bytes(
        b"\xef\xbb\xbf" + HEADER.encode() + b"\r\n"
        b'{"action": "bid", "player": "Ana", "quantity": 2, "face": 3}\r\n'
    )
    assert main(["replay", str(record), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bid"]["text"] == "2x3"


def test_names_written_with_joiners_are_names_as_players_type_them() -> None:
    # An emoji sequence joined by U+200D, a Persian name with U+200C: each shows as one name.
    players = ["\U0001f469\u200d\U0001f680 Ana", "\u0645\u0647\u200c\u0646\u0627\u0632"]
    game = replay([json.dumps({"game": "dudo-record/1", "players": players})])
    assert game.players == players


@pytest.mark.parametrize(
    ("names", "refused"),
    [
        (["\U0001f469\u200d\U0001f680 Ana", "\U0001f3f4\U000e0067\U000e0062\U000e0065"
          "\U000e006e\U000e0067\U000e007f"], None),  # an astronaut; England's flag
        (["Ana", " Ana"], "player name ' Ana': spaces at its start or end"),
        (["Ana\u200b", "Ben"], "player name 'Ana\\u200b': it holds U+200B, a character that"
                                " does not show"),
        (["\u200d", "Ben"], "it holds U+200D"),  # a joiner joining nothing
        (["Ana", "Ana\u200dX", "AnaX"], "player 'AnaX' looks the same as 'Ana\\u200dX'"),
        (["\u2764\ufe0f Ana", "1\ufe0f\u20e3 Ben", "\u845b\U000e0100"], None),  # ❤️, 1️⃣, 葛󠄀
        (["\u2764\ufe0f", "\u2764"], "player '\\u2764' looks the same as '\\u2764\\ufe0f'"),
        (["Ana", "Ana\ufe0f"], "it holds U+FE0F"),  # after a letter it selects nothing
        (["Ana", "Ana\U000e0100"], "it holds U+E0100"),
        (["Ana", "An\u034fa"], "it holds U+034F"),  # a combining grapheme joiner
        (["\u3164", "\u3164\u3164"], "it holds U+3164"),  # a Hangul filler: a blank name
        (["Ana", "Ben\u2800"], "it holds U+2800"),  # the blank braille cell
        (["Ana", "Ben\u17b5"], "it holds U+17B5"),
        (["Ana", "\u0410na"], "player '\\u0410na' looks the same as 'Ana'"),  # Cyrillic А
        # Cyrillic һ, ԁ, ӏ, ү and Greek ϲ (session 92's audit: each was another player).
        (["John", "Jo\u04bbn"], "player 'Jo\\u04bbn' looks the same as 'John'"),
        (["Ada", "A\u0501a"], "player 'A\\u0501a' looks the same as 'Ada'"),
        (["Sally", "Sa\u04cf\u04cfy"], "looks the same as 'Sally'"),
        (["Lucy", "Lu\u03f2y"], "player 'Lu\\u03f2y' looks the same as 'Lucy'"),
        (["Amy", "Am\u04af"], "player 'Am\\u04af' looks the same as 'Amy'"),
        (["\u0391\u03bdna", "Anna", "Ben"], None),  # a Greek ν is no Latin n
        (["\u0410\u043d\u043d\u0430", "\u0418\u0432\u0430\u043d"], None),  # Анна, Иван
        (["Zo\u00eb", "Zoe\u0308"], "player 'Zoe\\u0308' looks the same as 'Zo\\xeb'"),
        (["Ana Maria", "Ana  Maria"], "player 'Ana  Maria' looks the same as 'Ana Maria'"),
        (["Ana", "Ben", "ana"], "player 'ana' differs only in capitals from 'Ana'"),
        (["A" * 41, "Ben"], f"player name '{'A' * 20}'…: 41 characters, at most 40"),
        (["B" * 60, "Ben"], f"player name '{'B' * 20}'…: 60 characters, at most 40"),
        (["A" * 40, "Ben"], None),
        (["Ana\u200d", "Ben"], "it holds U+200D"),  # a joiner joins nothing at either end
        (["\u200dAna", "Ben"], "it holds U+200D"),
        (["\ufe0fAna 2", "Ben"], "it holds U+FE0F"),  # nor selects before anything
        (["Ana", "\u05d0\ufe0f"], "it holds U+FE0F"),  # after a letter not an ideograph
        (["Stra\u00dfe", "STRASSE"], "player 'STRASSE' differs only in capitals from"),
        (["ANA  MARIA", "ana maria"], "player 'ana maria' differs only in capitals from"),
    ],
)  # fmt: skip
def test_a_new_games_players_can_be_told_apart_on_a_phone(
    names: list[str], refused: str | None
) -> None:
    if refused is None:
        check_new_players(names)
    else:
        with pytest.raises(MalformedAction, match=re.escape(refused)):
            check_new_players(names)


@pytest.mark.parametrize(
    ("colours", "refused"),
    [
        ({"Ana": "#000000", "Ben": "#ff0000", "Caro": "#00ff00", "Dan": "#0000ff"}, None),
        ({"Ana": "#000000", "Ben": "#280000"}, None),  # 40 apart: told apart, just
        ({"Ana": "#C0392B", "Ben": "#c0392b"}, "Ana and Ben have the same colour (#c0392b)"),
        ({"Ana": "#c0392b", "Ben": "#c4392b"}, "Ana and Ben have colours too alike to tell"
                                               " apart (#c0392b, #c4392b)"),
        ({"Ana": "#10e0e0", "Ben": "#14e0e0"}, "colours too alike"),
        ({"Ana": "#e010e0", "Ben": "#e014e0"}, "colours too alike"),
        ({"Ana": "#e0e010", "Ben": "#e0e014"}, "colours too alike"),
    ],
)  # fmt: skip
def test_a_new_games_colours_can_be_told_apart_on_a_phone(
    colours: dict[str, str], refused: str | None
) -> None:
    # Each channel weighs alike: two colours apart in red, green or blue alone are told apart,
    # two a step apart in any one of them are not.
    if refused is None:
        check_new_players(list(colours), colours)
    else:
        with pytest.raises(MalformedAction, match=re.escape(refused)):
            check_new_players(list(colours), colours)


def test_a_carriage_return_inside_a_line_is_no_line_break_and_a_mark_on_each_file_is_read(
    tmp_path: Path,
) -> None:
    record = tmp_path / "joined.jsonl"
    record.write_text(
        HEADER + "\r\r\n"  # CRLF, after a stray CR
        + '{"action": "bid",\r"player": "Ana", "quantity": 3, "face": 4}\n'  # CR: whitespace
        + '\ufeff{"action": "bid", "player": "Ben", "quantity": 2, "face": 4}\n',  # BOM: joined
        encoding="utf-8", newline="",
    )
    with pytest.raises(IllegalAction, match="^line 3: illegal bid 2x4 over 3x4: quantity must"):
        replay_file(record)


def test_a_record_of_huge_numbers_is_refused_in_words_a_player_reads() -> None:
    huge = 10**25
    raised = '{"action": "bid", "player": "%s", "quantity": %d, "face": %d}'
    with pytest.raises(IllegalAction) as caught:
        replay([HEADER, raised % ("Ana", huge, 4), raised % ("Ben", huge, 3)])
    assert str(caught.value) == ("line 3: illegal bid (a number of 26 digits)x3 over (a number"
                                 " of 26 digits)x4: same quantity needs a higher face")
    longest = '{"action": "bid", "player": "Ana", "quantity": 1%s, "face": 4}' % ("0" * 4999)
    with pytest.raises(MalformedAction) as caught:
        replay([HEADER, longest])
    assert str(caught.value) == ("line 2: a number of 5,000 digits: a record holds numbers of at"
                                 " most 4,300 digits")
    marked = "\ufeff\ufeff" + raised % ("Ana", 3, 4)  # two files' marks, each joined twice
    assert replay([HEADER, marked]).state()["bid"]["text"] == "3x4"


def test_the_largest_bid_the_referee_takes_can_be_left_for_aces_and_said() -> None:
    most = 2**53 - 1
    game = replay([HEADER, '{"action": "bid", "player": "Ana", "quantity": 5, "face": 4}',
                   f'{{"action": "bid", "player": "Ben", "quantity": {most}, "face": 1}}'])
    assert game.state()["bid"]["text"] == f"{most}x1"
    with pytest.raises(IllegalAction, match=f"leaving aces needs at least {2 * most + 1}x5"):
        game.apply({"action": "bid", "player": "Caro", "quantity": 5, "face": 5})
    assert game.legal_bids() == []  # Caro may doubt: no raise to offer past the largest
    # The bidder leaves: still no raise to offer (the page and the dial offer none), rather
    # than the offer failing; Caro may call the bid.
    game.apply({"action": "leave", "player": "Ben"})
    assert game.legal_bids() == [] and game.can_call()["dudo"] == ["Caro"]


def test_records_of_earlier_versions_replay_with_the_names_and_bids_they_hold() -> None:
    # Names a new game refuses (spaces at an end, two that look alike) and a bid past the
    # largest the page takes now: what earlier versions wrote, kept as written.
    players = [" Ana", "Ana Maria", "Ana  Maria", "Zo\u00eb", "Zoe\u0308"]
    game = replay([json.dumps({"game": "dudo-record/1", "rules": "dudo", "players": players}),
                   json.dumps({"action": "bid", "player": " Ana", "quantity": 10**10, "face": 3})])
    assert game.players == players and game.state()["bid"]["quantity"] == 10**10


def test_a_round_of_many_bids_keeps_its_past_once_not_a_copy_per_bid() -> None:
    # Every bid's undo snapshot holds the round so far: 20,000 bids in one round (a record
    # typed or built by hand) took 1.9 GB when each snapshot had its own copy.
    lines = ['{"game": "dudo-record/1", "players": ["Ana", "Ben"]}'] + [
        json.dumps({"action": "bid", "player": "Ana" if q % 2 else "Ben", "quantity": q,
                    "face": 4})
        for q in range(1, 20_001)
    ]
    game = replay(lines)
    assert len(game.state()["bids"]) == 20_000
    assert game.state()["bids"][0] == {"action": "bid", "player": "Ana", "quantity": 1, "face": 4}
    assert tracemalloc_peak(lambda: replay(lines)) < 60_000_000


def tracemalloc_peak(run: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_dudo_replay_says_what_it_cannot_write_or_read_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = GAMES / "jinto-house.jsonl"
    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(record)],
                             stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert (run.returncode, run.stderr) == (
        2, "dudo replay: cannot write the output: No space left on device\n")
    # A terminal that cannot show a player's name gets it escaped, not a traceback.
    names = tmp_path / "names.jsonl"
    names.write_text('{"game": "dudo-record/1", "players": ["Zo\u00eb", "\u674e"]}\n')
    run = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(names)],
                         capture_output=True, env={**os.environ, "PYTHONIOENCODING": "ascii"},
                         timeout=60)
    assert (run.returncode, run.stderr) == (0, b"")
    assert run.stdout.splitlines()[0] == b"perudo r1 Zo\\xeb:5* \\u674e:5"
    # Errors never go to the output, even with no place to go.
    bad = tmp_path / "bad.jsonl"
    bad.write_text(HEADER + '\n{"action": "shout"}\n')
    run = subprocess.run(
        [sys.executable, "-m", "companion.cli", "replay", str(bad)],
        capture_output=True, text=True, timeout=60, preexec_fn=lambda: os.close(2))
    assert (run.returncode, run.stdout) == (2, "")
    for argv, said in ((["replay", ""], "dudo replay: an empty file name: name a record\n"),
                       (["replay", str(tmp_path)], f"dudo replay: cannot read {tmp_path}:"
                                                   " Is a directory\n")):
        assert main(argv) == 2
        assert capsys.readouterr().err == said


def test_a_record_with_keys_of_another_tool_replays_but_a_misspelt_key_stops_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = json.loads(HEADER) | {"note": "Friday at Ana's"}
    timed = {"action": "bid", "player": "Ana", "quantity": 2, "face": 3, "t": "21:04:11"}
    record = tmp_path / "timed.jsonl"
    record.write_text(json.dumps(header) + "\n" + json.dumps(timed) + "\n")
    assert main(["replay", str(record), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bid"]["text"] == "2x3"
    misspelt = {"action": "bid", "player": "Ana", "qunatity": 2, "face": 3}
    record.write_text(json.dumps(header) + "\n" + json.dumps(misspelt) + "\n")
    assert main(["replay", str(record)]) == 2
    assert capsys.readouterr().err.strip() == (
        "line 2: unknown key 'qunatity' in the bid: did you mean 'quantity'?")
    # A key that may be left out, misspelt, would change the game without a word: five dice
    # each, not two; the palifico player's choice closed, not open; no colours on the page.
    for line, key, said in (
        (1, {"optoins": {"dice": 2}}, "unknown key 'optoins' in the header: did you mean"
                                      " 'options'?"),
        (1, {"colors": {"Ana": "#dd3333"}}, "unknown key 'colors' in the header: did you mean"
                                            " 'colours'?"),
    ):
        record.write_text(json.dumps(header | key) + "\n" + json.dumps(timed) + "\n")
        assert main(["replay", str(record)]) == 2
        assert capsys.readouterr().err.strip() == f"line {line}: {said}"


def test_dudo_replay_gives_the_dice_counts_a_table_that_hides_them_kept_from_its_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "hidden.jsonl"
    record.write_text(
        '{"game": "dudo-record/1", "rules": "perudo", "options": {"lost_dice_visible": false},'
        ' "players": ["Ana", "Ben", "Caro"]}\n'
        '{"action": "bid", "player": "Ana", "quantity": 2, "face": 3}\n'
        '{"action": "dudo", "player": "Ben"}\n'
        '{"action": "reveal", "faces": [6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6]}\n'
    )
    assert main(["replay", str(record), "--json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert [p["dice"] for p in state["players"]] == [4, 5, 5]
    assert (state["dice_in_play"], state["dice_lost"]) == (14, 1)
    assert [p["dice"] for p in replay_file(record).state()["players"]] == [None, None, None]
    # And so does its text, for a person.
    assert main(["replay", str(record)]) == 0
    text = capsys.readouterr().out
    assert "  Ana   4 dice  to act\n" in text and "dice in play 14, lost 1" in text


def test_a_reveal_is_recorded_with_its_players_in_seat_order() -> None:
    game = Game(make_rules("perudo", {"dice": 1}), ["Ana", "Ben", "Caro"])
    for action in (
        {"action": "bid", "player": "Ana", "quantity": 1, "face": 2},
        {"action": "dudo", "player": "Ben"},
        {"action": "reveal", "dice": {"Caro": [6], "Ana": [2], "Ben": [5]}},
    ):
        game.apply(action)
    assert list(game.actions[-1]["dice"]) == ["Ana", "Ben", "Caro"]
