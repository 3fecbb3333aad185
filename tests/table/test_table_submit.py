"""The table as players meet it: actions accepted or refused, the page and panel told."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from companion.journal import Journal
from companion.record import replay
from companion.table import Table, TableEvent


def test_an_accepted_action_is_in_the_journal_before_any_subscriber_hears_of_it(
    table: Table, journal: Journal, header: dict[str, Any]
) -> None:
    table.new_game(header)
    seen_in_journal: list[str] = []

    def look(event: TableEvent) -> None:
        seen_in_journal.append(journal.record(event.state["game_id"]))

    table.subscribe(look)
    bid = {"action": "bid", "player": "Ana", "quantity": 3, "face": 4}
    assert table.submit(bid).ok
    assert '"quantity": 3, "face": 4' in seen_in_journal[-1]


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ({"action": "bid", "player": "Ben", "quantity": 3, "face": 4}, "not Ben's turn"),
        ({"action": "bid", "player": "Ana", "quantity": 3, "face": 7}, "face 7"),
        ({"action": "bid", "player": "Zed", "quantity": 3, "face": 4}, "Zed"),
        ({"action": "shout", "player": "Ana"}, "shout"),
        ({"action": "reveal", "faces": [1, 2, 3]}, "reveal"),
        (["bid", 3, 4], "JSON object"),
    ],
    ids=["out of turn", "face 7", "unknown player", "unknown action", "reveal too early",
         "not an object"],
)
def test_a_refused_action_changes_nothing_and_says_why(
    table: Table,
    journal: Journal,
    header: dict[str, Any],
    heard: Any,
    action: Any,
    reason: str,
) -> None:
    table.new_game(header)
    before = table.state()
    record_before = journal.record(before["game_id"])
    outcome = table.submit(action)
    assert not outcome.ok
    assert reason in (outcome.error or "")
    assert table.state() == before
    assert journal.record(before["game_id"]) == record_before
    assert heard.kinds[-1] == "rejected"


def test_an_action_without_a_game_is_refused_with_a_hint_to_start_one(table: Table) -> None:
    outcome = table.submit({"action": "dudo", "player": "Ben"})
    assert not outcome.ok
    assert outcome.error == "there is no game: start a new game first"
    assert table.state()["phase"] == "setup"


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ({"game": "dudo-record/1", "rules": "poker", "players": ["Ana", "Ben"]}, "poker"),
        ({"game": "dudo-record/1", "players": ["Ana"]}, "player"),
        ({"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"],
          "options": {"dice": 11}}, "dice"),
        ({"rules": "perudo", "players": ["Ana", "Ben"]}, "dudo-record/1"),
        ({"game": "dudo-record/1", "players": ["Ana", "Ben"],
          "colours": {"Ana": "#DD3333", "Ben": "#dd3333"}},
         "Ana and Ben have the same colour (#dd3333)"),
        ({"game": "dudo-record/1", "players": ["Ana", "Ben", "Caro"],
          "colours": {"Ana": "#dd3333", "Ben": "#2a6ef0", "Caro": "#DD3335"}},
         "Ana and Caro have colours too alike to tell apart (#dd3333, #dd3335)"),
        ({"game": "dudo-record/1", "players": ["Ana", "B" * 100_000]}, "at most 40"),
    ],
    ids=["unknown preset", "one player", "eleven dice", "not a record header", "one colour",
         "two reds", "a name of 100,000 characters"],
)
def test_a_bad_new_game_is_refused_and_the_journal_keeps_no_trace_of_it(
    table: Table, journal: Journal, header: dict[str, Any], reason: str
) -> None:
    outcome = table.new_game(header)
    assert not outcome.ok
    assert reason in (outcome.error or "")
    assert journal.games() == []
    assert table.state()["phase"] == "setup"


def test_a_failing_subscriber_never_stops_the_table_nor_the_others(
    table: Table, header: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    def broken(event: TableEvent) -> None:
        raise RuntimeError("the buzzer fell off")

    later: list[str] = []
    table.subscribe(broken)
    table.subscribe(lambda event: later.append(event.kind))
    assert table.new_game(header).ok
    assert table.submit({"action": "bid", "player": "Ana", "quantity": 2, "face": 3}).ok
    assert later == ["state", "state"]
    assert "the buzzer fell off" in caplog.text


def test_an_unsubscribed_listener_hears_nothing_more(table: Table, header: dict[str, Any]) -> None:
    heard: list[str] = []
    unsubscribe = table.subscribe(lambda event: heard.append(event.kind))
    table.new_game(header)
    unsubscribe()
    table.submit({"action": "bid", "player": "Ana", "quantity": 2, "face": 3})
    assert heard == ["state"]


def test_each_accepted_action_is_announced_with_the_new_state(
    table: Table, header: dict[str, Any], opening: list[dict[str, Any]], heard: Any, play: Any
) -> None:
    table.new_game(header)
    play(table, opening)
    last = heard.events[-1]
    assert last.kind == "state"
    assert last.state["round"] == 2 and last.state["turn"] == "Ben"
    assert [a.kind for a in last.announcements] == ["reveal", "lose", "round"]


def test_the_state_is_a_snapshot_a_caller_cannot_spoil(
    table: Table, header: dict[str, Any]
) -> None:
    table.new_game(header)
    spoiled = table.state()
    spoiled["players"][0]["dice"] = 99
    spoiled["turn"] = "Zed"
    assert table.state()["players"][0]["dice"] == 5
    assert table.state()["turn"] == "Ana"


def test_the_state_answers_while_another_thread_holds_the_table(
    table: Table, header: dict[str, Any]
) -> None:
    table.new_game(header)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with table._lock:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    try:
        answers: list[dict[str, Any]] = []
        reader = threading.Thread(target=lambda: answers.append(table.state()))
        reader.start()
        reader.join(5)
        assert answers and answers[0]["turn"] == "Ana"
        assert not table.healthy(timeout=0.05)
    finally:
        release.set()
        holder.join()
    assert table.healthy(timeout=1.0)


def test_show_puts_a_value_on_the_page_that_is_never_journaled(
    table: Table, journal: Journal, header: dict[str, Any], heard: Any
) -> None:
    table.new_game(header)
    record = journal.record(table.state()["game_id"])
    table.show("dial", "4x5")
    assert table.state()["display"] == {"dial": "4x5"}
    assert heard.events[-1].kind == "state"
    assert heard.events[-1].state["display"] == {"dial": "4x5"}
    told = len(heard.events)
    table.show("dial", "4x5")  # the dial turned at its end: nothing new for the phones
    assert len(heard.events) == told
    table.show("dial", None)
    assert table.state()["display"] == {}
    assert journal.record(table.state()["game_id"]) == record


def test_legal_bids_start_at_the_lowest_raise_and_stop_outside_bidding(
    table: Table, header: dict[str, Any], play: Any
) -> None:
    assert table.legal_bids() == []
    table.new_game(header)
    play(table, [{"action": "bid", "player": "Ana", "quantity": 3, "face": 4}])
    assert str(table.legal_bids()[0]) == "3x5"
    play(table, [{"action": "dudo", "player": "Ben"}])
    assert table.legal_bids() == []


def test_a_new_game_leaves_the_unfinished_one_listed_in_the_journal(
    table: Table, journal: Journal, header: dict[str, Any], play: Any
) -> None:
    table.new_game(header)
    play(table, [{"action": "bid", "player": "Ana", "quantity": 3, "face": 4}])
    table.new_game({**header, "players": ["Dani", "Eli"]})
    games = journal.games()
    assert [(g.id, g.players, g.finished) for g in games] == [
        (2, ["Dani", "Eli"], False),
        (1, ["Ana", "Ben", "Caro"], False),
    ]
    assert journal.record(1).count("\n") == 2
    assert table.state()["players"][0]["name"] == "Dani"


def test_a_finished_game_is_listed_with_its_winner_and_its_record_replays(
    table: Table, journal: Journal, play: Any
) -> None:
    table.new_game({"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"],
                    "options": {"dice": 1}})
    play(table, [
        {"action": "bid", "player": "Ana", "quantity": 1, "face": 6},
        {"action": "dudo", "player": "Ben"},
        {"action": "reveal", "dice": {"Ana": [2], "Ben": [3]}},
    ])
    assert table.state()["winner"] == "Ben"
    (game,) = journal.games()
    assert game.finished and game.winner == "Ben"
    assert replay(journal.record(game.id).splitlines()).winner == "Ben"
    assert table.record() == journal.record(game.id)


def test_undo_after_the_end_makes_the_game_unfinished_again(
    table: Table, journal: Journal, play: Any
) -> None:
    table.new_game({"game": "dudo-record/1", "rules": "perudo", "players": ["Ana", "Ben"],
                    "options": {"dice": 1}})
    play(table, [
        {"action": "bid", "player": "Ana", "quantity": 1, "face": 6},
        {"action": "dudo", "player": "Ben"},
        {"action": "reveal", "dice": {"Ana": [2], "Ben": [3]}},
        {"action": "undo"},
    ])
    assert table.state()["phase"] == "reveal"
    (game,) = journal.games()
    assert not game.finished and game.winner is None


def test_play_again_starts_the_finished_game_s_table_afresh_and_only_once_it_is_over(
    table: Table, journal: Journal, play: Any
) -> None:
    # No game yet, then a game under way: refused, nothing changes.
    assert not table.play_again().ok
    header = {"game": "dudo-record/1", "rules": "perudo", "options": {"dice": 1},
              "players": ["Ana", "Ben"], "colours": {"Ana": "#c0392b", "Ben": "#2e86c1"}}
    assert table.new_game(header).ok
    first_game = table.state()["game_id"]
    refused = table.play_again()
    assert not refused.ok and "the game is not over" in (refused.error or "")
    assert table.state()["game_id"] == first_game
    play(table, [{"action": "bid", "player": "Ana", "quantity": 1, "face": 3},
                 {"action": "dudo", "player": "Ben"},
                 {"action": "reveal", "dice": {"Ana": [2], "Ben": [4]}}])
    assert table.state()["winner"] == "Ben"
    # Over: the same players, rules, options and colours, in a new journalled game.
    unknown = table.play_again("Zed")
    assert not unknown.ok and "Zed" in (unknown.error or "")
    assert table.play_again("Ben").ok
    state = table.state()
    assert state["game_id"] != first_game and state["turn"] == "Ben"
    assert [p["dice"] for p in state["players"]] == [1, 1]
    again = replay(journal.record(state["game_id"]).splitlines())
    assert again.header == {**header, "first": "Ben"}
    assert replay(journal.record(first_game).splitlines()).winner == "Ben"  # the old game stays


def test_play_again_seats_no_player_who_left_the_table(
    table: Table, journal: Journal, play: Any
) -> None:
    # Before, a player who had got up and gone sat again with five dice.
    header = {"game": "dudo-record/1", "rules": "perudo", "options": {"dice": 1},
              "players": ["Ana", "Ben", "Caro"], "first": "Caro",
              "colours": {"Ana": "#c0392b", "Ben": "#2e86c1", "Caro": "#27ae60"}}
    assert table.new_game(header).ok
    play(table, [{"action": "leave", "player": "Caro"},
                 {"action": "bid", "player": "Ana", "quantity": 1, "face": 3},
                 {"action": "dudo", "player": "Ben"},
                 {"action": "reveal", "dice": {"Ana": [2], "Ben": [4]}}])
    assert table.state()["winner"] == "Ben"
    gone = table.play_again("Caro")
    assert not gone.ok and gone.error == ("Caro left the table: press the seat of a player still"
                                          " here, or none")
    assert table.play_again().ok
    state = table.state()
    assert [p["name"] for p in state["players"]] == ["Ana", "Ben"] and state["turn"] == "Ana"
    again = replay(journal.record(state["game_id"]).splitlines())
    assert again.header["colours"] == {"Ana": "#c0392b", "Ben": "#2e86c1"}
    assert again.header.get("first", "Ana") == "Ana"  # Caro opened the last: the first seat


def test_play_again_at_jinto_opens_with_player_1_still_at_the_table(
    table: Table, play: Any
) -> None:
    # RULES.md: at jinto "player 1" opens a game; there is no roll-off's winner to name.
    assert table.new_game({"game": "dudo-record/1", "rules": "jinto", "options": {"dice": 1},
                           "players": ["Ana", "Ben", "Caro"]}).ok
    play(table, [{"action": "leave", "player": "Ana"},
                 {"action": "bid", "player": "Ben", "quantity": 1, "face": 3},
                 {"action": "dudo", "player": "Caro"},
                 {"action": "reveal", "dice": {"Ben": [2], "Caro": [4]}}])
    assert table.state()["winner"] == "Caro"
    named = table.play_again("Caro")
    assert not named.ok and named.error == (
        "cannot start the game: at a jinto table player 1 opens the game: 'first' names"
        " 'Caro', player 1 is 'Ben' (the first of 'players')")
    assert table.play_again().ok
    assert table.state()["turn"] == "Ben"  # Ana, player 1 before, left: Ben is player 1 now


def test_play_again_with_one_player_still_at_the_table_says_so(
    table: Table, play: Any
) -> None:
    assert table.new_game({"game": "dudo-record/1", "players": ["Ana", "Ben"]}).ok
    play(table, [{"action": "leave", "player": "Ben"}])
    assert table.state()["winner"] == "Ana"
    refused = table.play_again()
    assert not refused.ok and refused.error == (
        "only Ana still at the table: start a game on the page")


def test_a_new_bid_past_what_a_phone_counts_exactly_is_refused_and_changes_nothing(
    table: Table, header: dict[str, Any]
) -> None:
    table.new_game(header)
    before = table.record()
    too_many = 2**53  # one past the largest whole number a phone's page counts exactly
    refused = table.submit({"action": "bid", "player": "Ana", "quantity": too_many, "face": 3})
    assert not refused.ok and table.record() == before
    assert refused.error == ("malformed bid: quantity 9007199254740992 (the table takes bids of"
                             " up to 9,007,199,254,740,991 dice)")
    assert table.submit({"action": "bid", "player": "Ana", "quantity": too_many - 1,
                         "face": 3}).ok


def test_the_journal_keeps_an_action_as_the_record_does_without_keys_it_does_not_need(
    table: Table, journal: Journal, header: dict[str, Any]
) -> None:
    table.new_game(header)
    noted = {"action": "bid", "player": "Ana", "quantity": 2, "face": 3, "note": "x" * 60_000}
    assert table.submit(noted).ok
    assert table.submit({"action": "undo", "player": "Zed"}).ok  # undo needs no player
    kept = journal.record(table.state()["game_id"]).splitlines()[1:]
    assert [json.loads(line) for line in kept] == [
        {"action": "bid", "player": "Ana", "quantity": 2, "face": 3}, {"action": "undo"}]
    assert "\n".join(kept) == "\n".join(table.record().splitlines()[1:])
