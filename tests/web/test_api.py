"""The HTTP API through Flask's test client: what a phone or a script gets back."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

import companion
from companion.game import Game
from companion.record import replay
from companion.table import Table
from companion.web import create_app
from tests.web.conftest import HEADER, PLAYERS


def replay_record(text: str) -> Game:
    """Replay a JSON Lines record through the engine, as ``dudo replay`` does."""
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    game = Game.from_header(lines[0])
    for action in lines[1:]:
        game.apply(action)
    return game


def test_the_page_is_served_with_its_script_and_style(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert '<meta name="csrf-token"' in html
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200


@pytest.mark.parametrize("name", ["app.js", "style.css", "setup.js"])
def test_a_phone_that_takes_gzip_gets_the_page_s_files_in_a_third_of_the_bytes(
    client: FlaskClient, name: str
) -> None:
    whole = (Path(companion.__file__).parent / "static" / name).read_bytes()
    sent = client.get(f"/static/{name}", headers={"Accept-Encoding": "gzip, deflate"})
    assert sent.status_code == 200
    assert sent.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in sent.headers["Vary"]
    assert int(sent.headers["Content-Length"]) == len(sent.data) < len(whole) / 2
    assert gzip.decompress(sent.data) == whole
    # Its next visit is told "not modified", as for the file sent as it is, under the same
    # weak ETag: the gzip is not the file byte for byte, and a cache keeps its copy by it.
    assert sent.headers["ETag"].startswith('W/"')
    again = client.get(f"/static/{name}", headers={
        "Accept-Encoding": "gzip", "If-None-Match": sent.headers["ETag"]})
    assert again.status_code == 304 and not again.data
    assert again.headers["ETag"] == sent.headers["ETag"]


def test_a_phone_that_takes_no_gzip_gets_the_files_as_they_are(client: FlaskClient) -> None:
    whole = (Path(companion.__file__).parent / "static" / "app.js").read_bytes()
    for asked in ({}, {"Accept-Encoding": "identity"}, {"Accept-Encoding": "gzip;q=0, br"}):
        sent = client.get("/static/app.js", headers=asked)
        assert sent.status_code == 200 and "Content-Encoding" not in sent.headers, asked
        assert sent.data == whole and not sent.headers["ETag"].startswith("W/")
        assert "Accept-Encoding" in sent.headers["Vary"]  # a cache keeps both apart
    # A part asked for by Range is a part of the file itself.
    part = client.get("/static/app.js", headers={"Accept-Encoding": "gzip", "Range": "bytes=0-99"})
    assert part.status_code == 206 and "Content-Encoding" not in part.headers
    assert part.data == whole[:100]
    # The API's answers are never gzipped (its live feed must flow as it is written).
    assert "Content-Encoding" not in client.get(
        "/api/state", headers={"Accept-Encoding": "gzip"}).headers


def test_a_file_changed_on_disk_is_sent_gzipped_as_it_is_now(
    table: Table, tmp_path: Path
) -> None:
    app = create_app(table, {"TESTING": True})
    app.static_folder = str(tmp_path)
    script = tmp_path / "app.js"
    script.write_text("let first = 1;\n" * 100)
    client = app.test_client()
    first = client.get("/static/app.js", headers={"Accept-Encoding": "gzip"})
    assert gzip.decompress(first.data) == script.read_bytes()
    script.write_text("let other = 1;\n" * 100)  # an update copied in, of the same size
    later = script.stat().st_mtime_ns + 2_000_000_000
    os.utime(script, ns=(later, later))
    second = client.get("/static/app.js", headers={"Accept-Encoding": "gzip"})
    assert gzip.decompress(second.data) == script.read_bytes()
    assert second.headers["ETag"] != first.headers["ETag"]


def test_before_any_game_the_state_says_so_and_there_is_no_record(client: FlaskClient) -> None:
    state = client.get("/api/state").get_json()
    assert state["phase"] == "setup"
    assert state["players"] == []
    assert "reading" not in state
    assert client.get("/api/record").status_code == 404
    assert client.get("/api/reveal.jpg").status_code == 404


def test_a_reveal_typed_in_has_no_picture_and_the_answer_says_why(
    client: FlaskClient, pin: dict[str, str], game: dict[str, Any]
) -> None:
    for action in ({"action": "bid", "player": "Ana", "quantity": 3, "face": 4},
                   {"action": "dudo", "player": "Ben"},
                   {"action": "reveal", "faces": [4, 4, 4, 1, 2] * 4}):
        assert client.post("/api/actions", json=action, headers=pin).status_code == 200
    answer = client.get("/api/reveal.jpg")
    assert answer.status_code == 404 and "typed in" in answer.get_json()["error"]


def test_a_new_game_shows_every_player_with_a_full_cup(game: dict[str, Any]) -> None:
    assert [p["name"] for p in game["players"]] == PLAYERS
    assert all(p["dice"] == 5 and not p["out"] for p in game["players"])
    assert game["turn"] == "Ana"
    assert game["dice_in_play"] == 20


def test_a_bid_from_the_api_becomes_the_standing_bid_with_its_odds(
    client: FlaskClient, pin: dict[str, str], game: dict[str, Any]
) -> None:
    answer = client.post(
        "/api/actions", json={"action": "bid", "player": "Ana", "quantity": 3, "face": 4},
        headers=pin,
    )
    assert answer.status_code == 200
    state = client.get("/api/state").get_json()
    assert (state["bid"]["player"], state["bid"]["quantity"], state["bid"]["face"]) == (
        "Ana", 3, 4
    )
    assert state["turn"] == "Ben"
    # 20 dice, fours or aces (1/3 each): three or more is nearly certain.
    assert 0.95 < state["odds"]["chance"] < 1.0
    assert state["odds"]["expected"] == pytest.approx(20 / 3)
    assert [a["kind"] for a in answer.get_json()["announcements"]] == ["bid"]


def test_the_bid_picker_gets_every_legal_bid_lowest_first(
    client: FlaskClient, pin: dict[str, str], table: Table, game: dict[str, Any]
) -> None:
    client.post(
        "/api/actions", json={"action": "bid", "player": "Ana", "quantity": 3, "face": 4},
        headers=pin,
    )
    bids = client.get("/api/bids").get_json()
    assert bids["turn"] == "Ben"
    offered = [(b["quantity"], b["face"]) for b in bids["bids"]]
    assert offered == [(b.quantity, b.face) for b in table.legal_bids()]
    assert offered[0] == (3, 5)  # the lowest raise: same quantity, next face
    assert (2, 1) in offered and (1, 1) not in offered  # ceil(3/2) aces at least
    assert (3, 4) not in offered
    chances = {(b["quantity"], b["face"]): b["odds"]["chance"] for b in bids["bids"]}
    assert chances[(20, 6)] < chances[(4, 6)]


def test_the_bids_are_worked_out_once_a_state_however_many_phones_ask(
    client: FlaskClient, pin: dict[str, str], table: Table, game: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each phone with the PIN asks at each move: the table worked every bid's odds out again
    # for each (2.5 ms a phone here, 3-5 times that on a Pi, in the moment after each move).
    worked: list[int] = []
    legal_bids = table.legal_bids
    monkeypatch.setattr(table, "legal_bids", lambda: (worked.append(1), legal_bids())[1])
    answers = [client.get("/api/bids").get_data() for _ in range(6)]
    assert len(set(answers)) == 1 and len(worked) == 1
    move = {"action": "bid", "player": "Ana", "quantity": 3, "face": 4}
    assert client.post("/api/actions", json=move, headers=pin).status_code == 200
    moved = client.get("/api/bids").get_json()
    assert moved["turn"] == "Ben" and moved["bids"][0]["text"] != json.loads(answers[0])[
        "bids"][0]["text"]
    assert len(worked) == 2


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ({"action": "bid", "player": "Ben", "quantity": 3, "face": 4}, "turn"),
        ({"action": "bid", "player": "Ana", "quantity": 3, "face": 7}, "face 7"),
        ({"action": "bid", "player": "Ana", "quantity": 0, "face": 3}, "quantity"),
        ({"action": "dudo", "player": "Ben"}, "bid"),
        ({"action": "bid", "player": "Zed", "quantity": 3, "face": 4}, "Zed"),
        ({"action": "shout", "player": "Ana"}, "unknown action"),
        ({"player": "Ana"}, "action"),
        ({"action": "reveal", "faces": [1, 2, 3]}, ""),
    ],
)
def test_an_illegal_action_is_refused_with_its_reason_and_changes_nothing(
    client: FlaskClient, pin: dict[str, str], table: Table, game: dict[str, Any],
    action: dict[str, Any], reason: str,
) -> None:
    before, record = table.state(), table.record()
    answer = client.post("/api/actions", json=action, headers=pin)
    assert answer.status_code == 422
    assert reason in answer.get_json()["error"]
    assert table.state() == before
    assert table.record() == record


@pytest.mark.parametrize(
    ("path", "body", "content_type", "status", "reason"),
    [
        ("/api/actions", b'{"action": "bid", ', "application/json", 400, "not valid JSON"),
        ("/api/actions", b'["bid", 3, 4]', "application/json", 400, "must be a JSON object"),
        ("/api/actions", b'"dudo"', "application/json", 400, "must be a JSON object"),
        ("/api/actions", b"null", "application/json", 400, "must be a JSON object"),
        ("/api/actions", b"action=dudo&player=Ben", "application/x-www-form-urlencoded", 400,
         "not valid JSON"),
        ("/api/game", b"{players: [Ana]}", "application/json", 400, "not valid JSON"),
        ("/api/actions", b'{"action": "bid", "player": "Ren\xe9e"}', "application/json", 400,
         "the body is not UTF-8 text (byte 0xe9, byte 33 of the body)"),
        ("/api/actions", b'{"action": "bid", "player": "Ana", "quantity": 1%s, "face": 4}'
         % (b"0" * 4300), "application/json", 400,
         "the body holds a number of 4,301 digits: a record holds numbers of at most 4,300"),
        ("/api/actions", b'{"note": %s1%s, "action": "undo"}' % (b"[" * 3000, b"]" * 3000),
         "application/json", 400, "the body is nested too deeply to read"),
        ("/api/actions", b'{"action": "undo", "action": "dudo", "player": "Ben"}',
         "application/json", 400, "the body holds a key given twice: 'action'"),
        ("/api/game", b"", "text/plain", 400, "not valid JSON"),
        ("/api/reading", b"[]", "application/json", 400, "must be a JSON object"),
    ],
)
def test_a_malformed_body_is_a_clear_4xx_and_changes_nothing(
    client: FlaskClient, pin: dict[str, str], table: Table, game: dict[str, Any],
    path: str, body: bytes, content_type: str, status: int, reason: str,
) -> None:
    before = table.state()
    answer = client.post(path, data=body, content_type=content_type, headers=pin)
    assert answer.status_code == status
    assert reason in answer.get_json()["error"]
    assert table.state() == before


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "text/plain", None])
def test_a_script_sending_the_pin_header_is_read_as_json_whatever_type_it_names(
    client: FlaskClient, pin: dict[str, str], table: Table, game: dict[str, Any],
    content_type: str | None,
) -> None:
    # `curl -H 'X-Table-Pin: ...' -d '{...}'` names a form's type; the bid is still the bid.
    body = json.dumps({"action": "bid", "player": "Ana", "quantity": 3, "face": 4})
    answer = client.post("/api/actions", data=body, content_type=content_type, headers=pin)
    assert answer.status_code == 200, answer.get_json()
    assert table.state()["bid"]["text"] == "3x4"


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ({**HEADER, "rules": "yahtzee"}, "yahtzee"),
        ({**HEADER, "players": ["Ana"]}, "player"),
        ({**HEADER, "options": {"dice": 11}}, "dice"),
        ({**HEADER, "first": "Zed"}, "Zed"),
        ({"rules": "perudo", "players": PLAYERS}, "dudo-record/1"),
        # A script's misspelt key (it started a game of five dice without a word).
        ({**HEADER, "option": {"dice": 2}}, "unknown key 'option' in the header: did you mean"
                                            " 'options'?"),
    ],
)
def test_a_bad_new_game_is_refused_and_the_game_goes_on(
    client: FlaskClient, pin: dict[str, str], table: Table, game: dict[str, Any],
    header: dict[str, Any], reason: str,
) -> None:
    before = table.state()
    answer = client.post("/api/game", json=header, headers=pin)
    assert answer.status_code == 422
    assert reason in answer.get_json()["error"]
    assert table.state() == before


@pytest.mark.parametrize(
    ("players", "colours", "about"),
    [
        (["Ana", "Ben", "Ana"], None, {"player": "Ana", "field": "name"}),
        (["Ana", "Ben", "ana"], None, {"player": "ana", "field": "name"}),
        (["Ana", "Ben\u200b"], None, {"player": "Ben\u200b", "field": "name"}),
        (["Ana", "Ben", "Caro"], {"Ana": "#dd3333", "Ben": "#2a6ef0", "Caro": "#dd3334"},
         {"player": "Caro", "field": "colour"}),
        (["Ana"], None, None),  # too few players: no one entry to change
    ],
)
def test_a_new_game_refused_for_one_entry_names_it_for_the_form(
    client: FlaskClient, pin: dict[str, str], players: list[str],
    colours: dict[str, str] | None, about: dict[str, str] | None,
) -> None:
    header: dict[str, Any] = {"game": "dudo-record/1", "rules": "perudo", "players": players}
    if colours:
        header["colours"] = colours
    answer = client.post("/api/game", json=header, headers=pin)
    assert answer.status_code == 422
    body = answer.get_json()
    assert body["error"].startswith("cannot start the game:")
    assert {k: body[k] for k in ("player", "field") if k in body} == (about or {})
    assert client.get("/api/state").get_json()["players"] == []


def test_the_record_replays_to_the_same_state(
    client: FlaskClient, pin: dict[str, str], table: Table, game: dict[str, Any]
) -> None:
    for action in (
        {"action": "bid", "player": "Ana", "quantity": 3, "face": 4},
        {"action": "bid", "player": "Ben", "quantity": 4, "face": 4},
        {"action": "dudo", "player": "Caro"},
        {"action": "reveal", "faces": [4] * 6 + [2] * 14},
    ):
        assert client.post("/api/actions", json=action, headers=pin).status_code == 200
    answer = client.get("/api/record")
    assert answer.status_code == 200
    assert answer.mimetype == "application/x-ndjson"
    # Saved under the name the games list gives the same game's record.
    game_id = table.state()["game_id"]
    assert f'filename="dudo-game-{game_id}.jsonl"' in answer.headers["Content-Disposition"]
    listed = client.get("/api/games").get_json()["games"][0]
    assert client.get(listed["record"]).headers["Content-Disposition"] == \
        answer.headers["Content-Disposition"]
    replayed = replay_record(answer.get_data(as_text=True))
    assert replayed.state() == {k: v for k, v in table.state().items() if k in replayed.state()}
    assert replayed.state()["players"][2]["dice"] == 4  # Caro doubted six 4s: she lost


def test_the_history_tells_the_game_so_far(
    client: FlaskClient, pin: dict[str, str], game: dict[str, Any]
) -> None:
    client.post(
        "/api/actions", json={"action": "bid", "player": "Ana", "quantity": 3, "face": 4},
        headers=pin,
    )
    client.post("/api/actions", json={"action": "dudo", "player": "Ben"}, headers=pin)
    history = client.get("/api/history").get_json()
    said = history["announcements"]
    assert [a["kind"] for a in said][:3] == ["round", "bid", "dudo"]
    assert said[0]["text"] == "Round 1: Ana opens"  # the first round's opener is said too
    assert all(a["text"] for a in said)
    # Up to which move of which game, as the state counts them (a page skips those moves'
    # announcements when the live feed brings them late).
    state = client.get("/api/state").get_json()
    assert (history["game_id"], history["moves"]) == (state["game_id"], state["moves"]) != (None, 0)


def test_undo_from_the_api_takes_the_last_bid_back(
    client: FlaskClient, pin: dict[str, str], game: dict[str, Any]
) -> None:
    client.post(
        "/api/actions", json={"action": "bid", "player": "Ana", "quantity": 3, "face": 4},
        headers=pin,
    )
    assert client.post("/api/actions", json={"action": "undo"}, headers=pin).status_code == 200
    state = client.get("/api/state").get_json()
    assert state["bid"] is None and state["turn"] == "Ana"


@pytest.mark.parametrize(
    ("body", "status", "reason"),
    [
        ({"confirm": True}, 422, "no reveal"),
        ({"retake": True}, 422, "reveal"),
        ({"confirm": False}, 400, "confirm"),
        ({"confirm": True, "corrections": [5]}, 400, "corrections"),
        ({"confirm": True, "corrections": {"x": 5}}, 400, "die index"),
        ({"confirm": True, "corrections": {"\u00b2": 5}}, 400, "die index"),  # "²"
        ({"confirm": True, "corrections": {"\u0663": 5}}, 400, "die index"),  # "٣"
        ({"confirm": True, "corrections": {"9" * 5000: 5}}, 400, "die index"),
        ({"confirm": True, "corrections": {"0": "5"}}, 400, "die index"),
        ({"confirm": True, "retake": True}, 400, "confirm"),
        ({"confirm": True, "picture": "2"}, 400, "picture '2'"),
    ],
)
def test_a_reading_cannot_be_confirmed_or_retaken_outside_a_reveal(
    client: FlaskClient, pin: dict[str, str], table: Table, game: dict[str, Any],
    body: dict[str, Any], status: int, reason: str,
) -> None:
    before = table.state()
    answer = client.post("/api/reading", json=body, headers=pin)
    assert answer.status_code == status
    assert reason in answer.get_json()["error"]
    assert table.state() == before


def test_two_phones_pressing_undo_for_one_mistake_take_back_one_action(
    client: FlaskClient, pin: dict[str, str], table: Table, game: dict[str, Any]
) -> None:
    for action in ({"action": "bid", "player": "Ana", "quantity": 3, "face": 4},
                   {"action": "bid", "player": "Ben", "quantity": 9, "face": 4}):  # a slip
        assert client.post("/api/actions", json=action, headers=pin).status_code == 200
    state = client.get("/api/state").get_json()
    seen = {**pin, "X-Table-Seen": f"{state['game_id']}/{state['moves']}"}
    first = client.post("/api/actions", json={"action": "undo"}, headers=seen)
    assert first.status_code == 200
    second = client.post("/api/actions", json={"action": "undo"}, headers=seen)
    assert second.status_code == 422 and "moved on" in second.get_json()["error"]
    assert table.state()["bid"]["quantity"] == 3  # Ana's bid stands
    for odd in ("latest", "1/\u00b2", "1/" + "9" * 5000):  # "²" is a digit to str.isdigit
        bad = client.post("/api/actions", json={"action": "undo"},
                          headers={**pin, "X-Table-Seen": odd.encode("utf-8").decode("latin-1")})
        assert bad.status_code == 400 and "GAME/MOVES" in bad.get_json()["error"]
    assert table.state()["bid"]["quantity"] == 3


def test_a_new_game_sent_twice_or_from_two_phones_starts_one_game(
    client: FlaskClient, pin: dict[str, str], table: Table
) -> None:
    # No game yet ("0/0"): the first form starts game 1; the same form again (a retry after
    # no answer came, or a second phone's) is refused, and game 1 goes on untouched.
    seen = {**pin, "X-Table-Seen": "0/0"}
    assert client.post("/api/game", json=HEADER, headers=seen).status_code == 201
    assert client.post("/api/actions", json={"action": "bid", "player": "Ana", "quantity": 3,
                                             "face": 4}, headers=pin).status_code == 200
    again = client.post("/api/game", json=HEADER, headers=seen)
    assert again.status_code == 422 and "a new game was started" in again.get_json()["error"]
    state = table.state()
    assert (state["game_id"], state["bid"]["quantity"]) == (1, 3)
    # A phone that shows game 1, mid-game, starts the next one: its moves are no matter.
    other = {**HEADER, "players": ["Eve", "Fay"], "first": "Eve"}
    assert client.post("/api/game", json=other, headers={**pin, "X-Table-Seen": "1/0"}
                       ).status_code == 201
    assert table.state()["players"][0]["name"] == "Eve"
    bad = client.post("/api/game", json=HEADER, headers={**pin, "X-Table-Seen": "latest"})
    assert bad.status_code == 400 and "GAME/MOVES" in bad.get_json()["error"]


def test_finished_games_are_listed_newest_first_and_downloadable(
    client: FlaskClient, pin: dict[str, str], game: dict[str, Any]
) -> None:
    two = {**HEADER, "players": ["Eve", "Fay"], "first": "Eve", "options": {"dice": 1}}
    assert client.post("/api/game", json=two, headers=pin).status_code == 201
    for action in (
        {"action": "bid", "player": "Eve", "quantity": 1, "face": 5},
        {"action": "dudo", "player": "Fay"},
        {"action": "reveal", "faces": [2, 3]},
    ):
        assert client.post("/api/actions", json=action, headers=pin).status_code == 200
    listed = client.get("/api/games").get_json()["games"]
    assert [g["players"] for g in listed] == [["Eve", "Fay"], PLAYERS]
    assert listed[0]["finished"] and listed[0]["winner"] == "Fay"
    assert not listed[1]["finished"]
    download = client.get(listed[0]["record"])
    assert download.status_code == 200
    assert "attachment" in download.headers["Content-Disposition"]
    assert replay_record(download.get_data(as_text=True)).state()["winner"] == "Fay"
    missing = client.get("/api/games/99/record")
    assert missing.status_code == 404 and "99" in missing.get_json()["error"]


def test_a_table_with_many_games_lists_them_a_page_at_a_time(
    client: FlaskClient, pin: dict[str, str], game: dict[str, Any]
) -> None:
    for _ in range(24):
        assert client.post("/api/game", json=HEADER, headers=pin).status_code == 201
    first = client.get("/api/games").get_json()
    assert [g["id"] for g in first["games"]] == list(range(25, 5, -1))  # the newest 20
    second = client.get(first["more"]).get_json()
    assert [g["id"] for g in second["games"]] == [5, 4, 3, 2, 1]
    assert second["more"] is None
    small = client.get("/api/games?limit=3&before=10").get_json()
    assert [g["id"] for g in small["games"]] == [9, 8, 7]
    for query, reason in (("limit=0", "limit='0'"), ("limit=501", "limit='501'"),
                          ("limit=x", "limit='x'"), ("before=-1", "before='-1'"),
                          ("before=" + "9" * 23, "before='" + "9" * 23),
                          ("limit=" + "9" * 5000, "limit='" + "9" * 20)):
        answer = client.get(f"/api/games?{query}")
        assert answer.status_code == 400
        assert reason in answer.get_json()["error"] and "whole number" in answer.get_json()["error"]
    assert client.get("/api/games?before=abc").get_json()["error"] == (
        "before='abc': a whole number, 1 or more")
    assert client.get("/api/games?limit=0").get_json()["error"] == (
        "limit='0': a whole number, from 1 to 500")
    huge = client.get("/api/games/9223372036854775808/record")  # past SQLite's integers
    assert huge.status_code == 404 and "no game 9223372036854775808" in huge.get_json()["error"]


def test_the_new_game_form_gets_every_preset_and_option(client: FlaskClient) -> None:
    rules = client.get("/api/rules").get_json()
    assert set(rules["presets"]) == {"perudo", "dudo", "payroodo", "jinto"}
    assert rules["presets"]["jinto"]["dice"] == 3
    assert rules["options"]["exact_call"] == ["none", "calza", "spot_on", "exactomundo", "jinto"]
    assert rules["options"]["pass"] == "bool"


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [("GET", "/api/nothing", 404), ("DELETE", "/api/state", 405), ("GET", "/api/actions", 405)],
)
def test_unknown_api_paths_answer_in_json(
    client: FlaskClient, method: str, path: str, status: int
) -> None:
    answer = client.open(path, method=method)
    assert answer.status_code == status
    assert answer.get_json()["error"]


def test_the_page_shows_the_address_the_pi_has_now(table: Table) -> None:
    # A DHCP lease may give the Pi another address while the companion runs for months.
    addresses = iter(["http://192.0.2.7:8080/", "http://192.0.2.99:8080/"])
    client = create_app(table, {"PUBLIC_URL": lambda: next(addresses)}).test_client()
    assert "http://192.0.2.7:8080/" in client.get("/").get_data(as_text=True)
    assert "http://192.0.2.99:8080/" in client.get("/").get_data(as_text=True)


def test_the_join_qr_code_is_an_svg_of_the_page_address(client: FlaskClient) -> None:
    answer = client.get("/qr.svg", base_url="http://192.0.2.7:8080/")
    assert answer.status_code == 200
    assert answer.mimetype == "image/svg+xml"
    assert b"<svg" in answer.data
    assert "http://192.0.2.7:8080/" in client.get("/", base_url="http://192.0.2.7:8080/").get_data(
        as_text=True
    )
    # Drawn once an address: the Pi given another one, the code is of that one.
    again = client.get("/qr.svg", base_url="http://192.0.2.7:8080/").data
    moved = client.get("/qr.svg", base_url="http://192.0.2.99:8080/").data
    assert again == answer.data and b"<svg" in moved and moved != answer.data


def test_where_the_counts_are_hidden_the_record_of_the_game_on_is_for_the_pin_holder(
    client: FlaskClient, pin: dict[str, str], table: Table
) -> None:
    header = {**HEADER, "options": {"lost_dice_visible": False}, "players": ["Ana", "Ben"]}
    assert client.post("/api/game", json=header, headers=pin).status_code == 201
    game_id = table.state()["game_id"]
    for action in ({"action": "bid", "player": "Ana", "quantity": 1, "face": 4},
                   {"action": "dudo", "player": "Ben"},
                   {"action": "reveal", "dice": {"Ana": [1, 2, 3, 5, 6], "Ben": [2] * 5}}):
        assert client.post("/api/actions", json=action, headers=pin).status_code == 200
    assert table.state()["players"][0]["dice"] is None  # the page is told no count
    # Nor the bids offered: up to the ten dice of the start, not the nine in play (the highest
    # quantity offered said how many dice remain).
    offered = client.get("/api/bids").get_json()["bids"]
    assert max(b["quantity"] for b in offered) == 10
    assert all(b["odds"] is None for b in offered)
    referee = replay((table.record() or "").splitlines())  # the referee's own account
    assert max(b.quantity for b in referee.legal_bids()) == 9  # RULES.md: the dice in play
    # Replayed, the record would count Ana's four dice: a watching phone is refused it.
    for path in ("/api/record", f"/api/games/{game_id}/record"):
        refused = client.get(path)
        assert refused.status_code == 403 and "hides how many dice" in refused.get_json()["error"]
        assert client.get(path, headers=pin).status_code == 200
    # Once the game is over (Ben leaves the table: Ana wins) it is open to all.
    leave = {"action": "leave", "player": "Ben"}
    assert client.post("/api/actions", json=leave, headers=pin).status_code == 200
    assert table.state()["phase"] == "over"
    assert client.get("/api/record").status_code == 200
    assert client.get(f"/api/games/{game_id}/record").status_code == 200
