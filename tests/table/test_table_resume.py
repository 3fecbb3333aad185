"""After a power cut: the game resumes, a torn last write is dropped, a bad disk refuses."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from companion.journal import DATABASE_NAME, Journal, JournalError, checksum
from companion.kept_journal import open_journal
from companion.table import Table


def restart(data_dir: Path) -> tuple[Table, Journal]:
    """A new table on the journal of the data directory, as after a power cut."""
    journal = Journal.in_directory(data_dir)
    return Table(journal=journal), journal


def rewrite_row(data_dir: Path, seq: int, body: str, *, fix_checksum: bool) -> None:
    """Change a stored action row behind the journal's back (as a torn write leaves it)."""
    with sqlite3.connect(data_dir / DATABASE_NAME) as db:
        (game_id,) = db.execute("SELECT MAX(id) FROM games").fetchone()
        if fix_checksum:
            db.execute(
                "UPDATE actions SET body = ?, checksum = ? WHERE game_id = ? AND seq = ?",
                (body, checksum(game_id, seq, body), game_id, seq),
            )
        else:
            db.execute(
                "UPDATE actions SET body = ? WHERE game_id = ? AND seq = ?", (body, game_id, seq)
            )


def spoilt(table: Table, journal: Journal, data_dir: Path, header: dict[str, Any], play: Any,
           actions: list[dict[str, Any]], seq: int,
           body: str = '{"action": "dudo", "player": "Caro"}') -> None:
    """A game of ``actions`` played, the table stopped, and row ``seq`` spoilt by the card:
    its text changed, its checksum not."""
    table.new_game(header)
    play(table, actions)
    journal.close()
    rewrite_row(data_dir, seq, body, fix_checksum=False)


def rows(data_dir: Path, table_name: str = "actions") -> list[tuple[Any, ...]]:
    with sqlite3.connect(data_dir / DATABASE_NAME) as db:
        return db.execute(f"SELECT seq, body FROM {table_name} ORDER BY seq").fetchall()


def test_a_restarted_table_resumes_the_game_exactly_where_it_stopped(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any,
) -> None:
    table.new_game(header)
    play(table, [*opening, {"action": "bid", "player": "Ben", "quantity": 2, "face": 6}])
    before = table.state()
    journal.close()
    resumed, journal2 = restart(data_dir)
    try:
        after = resumed.state()
        for key in ("phase", "round", "players", "turn", "bid", "dice_lost", "game_id"):
            assert after[key] == before[key], key
        assert resumed.record() == table.record()
        assert resumed.submit({"action": "dudo", "player": "Caro"}).ok
    finally:
        journal2.close()


def test_a_game_an_earlier_version_saved_resumes_with_the_names_and_bids_it_holds(
    data_dir: Path,
) -> None:
    # Names a new game now refuses (spaces at an end, two that look alike) and a bid past the
    # largest the page now takes, as an earlier version of the table saved them.
    players = [" Ana", "Ana Maria", "Ana  Maria"]
    journal = Journal.in_directory(data_dir)
    game_id = journal.start_game({"game": "dudo-record/1", "rules": "perudo", "players": players})
    journal.append(game_id, 1, {"action": "bid", "player": " Ana", "quantity": 10**16, "face": 3})
    journal.close()
    resumed, journal2 = restart(data_dir)
    try:
        state = resumed.state()
        assert [p["name"] for p in state["players"]] == players
        assert (state["bid"]["quantity"], state["turn"]) == (10**16, "Ana Maria")
        assert resumed.submit({"action": "dudo", "player": "Ana Maria"}).ok
        # A new game is held to today's names.
        refused = resumed.new_game({"game": "dudo-record/1", "players": ["Ana", " Ana"]})
        assert not refused.ok and "spaces at its start or end" in str(refused.error)
    finally:
        journal2.close()


def test_a_game_cut_in_the_middle_of_a_reveal_resumes_in_the_reveal(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any,
) -> None:
    table.new_game(header)
    play(table, opening[:2])
    journal.close()
    resumed, journal2 = restart(data_dir)
    try:
        assert resumed.state()["phase"] == "reveal"
        assert resumed.submit(opening[2]).ok
    finally:
        journal2.close()


@pytest.mark.parametrize(
    ("torn_body", "fix_checksum", "reason"),
    [
        ('{"action": "bid", "player": "Ben", "quantity": 2, "face": 6}', False, "checksum"),
        ('{"action": "bid", "player": "Ben", "quan', True, "not valid JSON"),
        ('{"action": "bid", "player": "Caro", "quantity": 2, "face": 6}', True, "engine refuses"),
    ],
    ids=["checksum", "half a line of JSON", "an action the engine refuses"],
)
def test_a_torn_last_write_is_dropped_the_page_says_so_and_the_game_goes_on(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any, caplog: pytest.LogCaptureFixture,
    torn_body: str, fix_checksum: bool, reason: str,
) -> None:
    table.new_game(header)
    play(table, [*opening, {"action": "bid", "player": "Ben", "quantity": 2, "face": 5}])
    journal.close()
    rewrite_row(data_dir, 4, torn_body, fix_checksum=fix_checksum)

    resumed, journal2 = restart(data_dir)
    try:
        state = resumed.state()
        assert state["round"] == 2 and state["bid"] is None and state["turn"] == "Ben"
        # The players are told an action was left out, to enter it again.
        told = state["faults"]["left_out"]
        assert "could not be read back" in told and "enter it again" in told
        assert torn_body[:30] in told
        assert "torn last row 4 of game 1" in caplog.text and reason in caplog.text
        assert [seq for seq, _ in rows(data_dir)] == [1, 2, 3]
        assert rows(data_dir, "dropped") == [(4, torn_body)]  # kept aside, not lost
        # The next action takes the dropped row's place in the journal, and the notice goes.
        assert resumed.submit({"action": "bid", "player": "Ben", "quantity": 2, "face": 6}).ok
        assert [seq for seq, _ in rows(data_dir)] == [1, 2, 3, 4]
        assert resumed.state()["faults"] == {}
    finally:
        journal2.close()


def test_a_torn_last_row_is_still_said_after_a_second_restart_until_the_game_moves_on(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any,
) -> None:
    table.new_game(header)
    play(table, [*opening, {"action": "bid", "player": "Ben", "quantity": 2, "face": 5}])
    journal.close()
    rewrite_row(data_dir, 4, '{"action": "bid", "player": "Ben", "quan', fix_checksum=True)
    first, journal2 = restart(data_dir)
    told = first.state()["faults"]["left_out"]
    journal2.close()

    # The table restarts again before anyone enters the action: it is still said.
    again, journal3 = restart(data_dir)
    try:
        assert again.state()["faults"]["left_out"] == told
        assert rows(data_dir, "dropped") == [(4, '{"action": "bid", "player": "Ben", "quan')]
        assert again.submit({"action": "bid", "player": "Ben", "quantity": 2, "face": 6}).ok
        assert "left_out" not in again.state()["faults"]
    finally:
        journal3.close()
    # Once the game has moved on, a restart no longer says it.
    last, journal4 = restart(data_dir)
    try:
        assert last.state()["faults"] == {}
        assert last.state()["bid"]["text"] == "2x6"
    finally:
        journal4.close()


LATER = [{"action": "bid", "player": "Ben", "quantity": 2, "face": 5},
         {"action": "bid", "player": "Caro", "quantity": 3, "face": 5},
         {"action": "bid", "player": "Ana", "quantity": 4, "face": 5},
         {"action": "bid", "player": "Ben", "quantity": 5, "face": 5}]
OPENING_IN_WORDS = ["Ben called dudo", "the dice shown (Ana 1 4 4 5 6, Ben 2 3 3 6 6, Caro 1 1"
                    " 2 5 6)", "Ben bid 2x5", "Caro bid 3x5", "Ana bid 4x5", "Ben bid 5x5"]


@pytest.mark.parametrize(("damage", "seq", "kept", "what", "words"), [
    ("checksum", 2, 1, "row 2 of the game is damaged (its checksum does not match its text)",
     ["Caro called dudo (as read from the damaged row, perhaps not as made)",
      *OPENING_IN_WORDS[1:]]),
    ("JSON", 2, 1, "row 2 of the game is damaged (its text is not valid JSON)",
     ["row 2, which cannot be read", *OPENING_IN_WORDS[1:]]),
    ("missing", 2, 1, "row 2 of the game is missing",
     ["an action that is lost", *OPENING_IN_WORDS[1:]]),
    # Not a torn last write: Ana's 4x5 is lost too, and said.
    ("missing", 6, 5, "row 6 of the game is missing", ["an action that is lost", "Ben bid 5x5"]),
], ids=["checksum", "JSON", "a row missing", "the row before the last missing"])
def test_a_damaged_or_missing_row_before_the_last_sets_aside_the_rest_and_the_game_goes_on(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any,
    damage: str, seq: int, kept: int, what: str, words: list[str],
) -> None:
    table.new_game(header)
    play(table, [*opening, *LATER])
    journal.close()
    stored = rows(data_dir)
    if damage == "missing":
        with sqlite3.connect(data_dir / DATABASE_NAME) as db:
            db.execute("DELETE FROM actions WHERE seq = ?", (seq,))
    else:  # a card that spoilt row 2's text
        spoilt = ('{"action": "dudo", "player": "Caro"}' if damage == "checksum" else
                  '{"action": "dudo", "play')
        rewrite_row(data_dir, seq, spoilt, fix_checksum=damage == "JSON")
        stored[seq - 1] = (seq, spoilt)

    resumed, journal2 = restart(data_dir)
    try:
        state = resumed.state()
        # The game goes on from before the damage.
        assert state["moves"] == kept and "resume" not in state["faults"]
        assert state["faults"]["left_out"] == (
            f"{7 - kept} actions recorded before the restart could not be read back: {what}. The"
            f" game goes on from before it: enter again those that were made: {'; '.join(words)}"
            " (kept aside in the journal)")
        # Nothing is lost: every row is in the game or set aside, each with its reason.
        assert rows(data_dir) == stored[:kept]
        assert rows(data_dir, "dropped") == [row for row in stored[kept:] if row[0] != seq
                                             or damage != "missing"]
        with sqlite3.connect(data_dir / DATABASE_NAME) as db:
            reasons = [r for (r,) in db.execute("SELECT reason FROM dropped ORDER BY seq")]
        assert all("after row" in r for r in reasons[0 if damage == "missing" else 1:])
        # The game's record is whole again, and replays to where the game goes on.
        assert journal2.record(1).count("\n") == 1 + kept
    finally:
        journal2.close()


def test_the_actions_set_aside_are_told_until_the_game_has_as_many_moves_again(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any,
) -> None:
    spoilt(table, journal, data_dir, header, play, [*opening, *LATER], 2)
    first, journal2 = restart(data_dir)
    told = first.state()["faults"]["left_out"]
    # Before, the list went at the first action entered again, the rest with it.
    play(first, [*opening[1:], *LATER[:1]])
    assert first.state()["faults"]["left_out"] == told
    journal2.close()
    # Still told after a restart, until the game has its seven moves again.
    again, journal3 = restart(data_dir)
    try:
        assert again.state()["faults"]["left_out"] == told
        play(again, LATER[1:3])
        assert again.state()["faults"]["left_out"] == told
        play(again, LATER[3:])
        assert "left_out" not in again.state()["faults"]
    finally:
        journal3.close()
    last, journal4 = restart(data_dir)
    try:
        assert last.state()["faults"] == {} and last.state()["bid"]["text"] == "5x5"
    finally:
        journal4.close()


def test_a_second_damage_before_the_game_moves_on_tells_both_lists(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any,
) -> None:
    spoilt(table, journal, data_dir, header, play, [*opening, *LATER], 5,
           '{"action": "bid", "player": "Caro", "quantity": 3, "face": 6}')
    first, journal2 = restart(data_dir)
    earlier = first.state()["faults"]["left_out"]
    assert earlier.startswith("3 actions recorded") and "Ben bid 5x5" in earlier
    journal2.close()
    rewrite_row(data_dir, 2, '{"action": "dudo", "player": "Caro"}', fix_checksum=False)
    again, journal3 = restart(data_dir)
    try:
        told = again.state()["faults"]["left_out"]
        # Before, the first list was forgotten: Caro's, Ana's and Ben's bids went unsaid.
        assert told.startswith("3 actions recorded") and "Ben bid 2x5 (kept aside" in told
        assert told.endswith(f". Before that restart: {earlier}")
        play(again, [*opening[1:], *LATER[:3]])
        assert again.state()["faults"]["left_out"] == told
        play(again, LATER[3:])
        assert "left_out" not in again.state()["faults"]
    finally:
        journal3.close()


def test_rows_a_read_only_card_could_not_set_aside_are_once_it_can_be_written(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any,
) -> None:
    spoilt(table, journal, data_dir, header, play, [*opening, *LATER], 2)
    read_only, journal2 = read_only_table(data_dir)
    try:
        assert "enter again those that were made" in read_only.state()["faults"]["left_out"]
        assert len(rows(data_dir)) == 7  # nothing could be moved
        # The card can be written again (as `dudo serve` finds it every 10 s).
        journal3 = Journal.in_directory(data_dir)
        assert read_only.take_journal(journal3) is journal2
        assert len(rows(data_dir)) == 1 and len(rows(data_dir, "dropped")) == 6
        # Before, every action was refused: "UNIQUE constraint failed".
        play(read_only, opening[1:])
        assert read_only.state()["round"] == 2
    finally:
        journal2.close()
        journal3.close()


def test_a_whole_row_the_engine_refuses_before_the_last_stops_the_resume_and_keeps_the_journal(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any,
) -> None:
    # As a version that does not know an action, or a rule changed since, would find it.
    table.new_game(header)
    play(table, opening)
    journal.close()
    rewrite_row(data_dir, 2, '{"action": "dudo", "player": "Caro"}', fix_checksum=True)
    stored = rows(data_dir)

    resumed, journal2 = restart(data_dir)
    try:
        state = resumed.state()
        assert state["phase"] == "setup"
        assert "cannot resume game 1: the engine refuses row 2 of 3" in state["fault"]
        assert "whose text is whole" in state["fault"]
        assert "the journal is kept" in state["faults"]["resume"]
        assert rows(data_dir) == stored and rows(data_dir, "dropped") == []
        # The table still works: a new game starts beside the one it could not take up,
        # and the notice of that game goes.
        assert resumed.new_game(header).ok
        assert [g.id for g in journal2.games()] == [2, 1]
        assert "resume" not in resumed.state()["faults"]
    finally:
        journal2.close()


@pytest.mark.parametrize(("query", "said"), [
    ("UPDATE actions SET body = '{\"action\": \"dudo\", \"player\": \"Caro\"}'"
     " WHERE game_id = 1 AND seq = 2", "row 2 of 3 is damaged"),
    ("DELETE FROM actions WHERE game_id = 1 AND seq = 2", "row 2 is missing"),
], ids=["damaged", "missing"])
def test_the_record_of_a_game_with_a_damaged_or_missing_row_is_not_given_as_if_whole(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any, query: str, said: str,
) -> None:
    table.new_game(header)
    play(table, opening)
    table.new_game(header)  # the damaged game is an earlier one, not taken up at a restart
    journal.close()
    with sqlite3.connect(data_dir / DATABASE_NAME) as db:
        db.execute(query)
    journal2 = Journal.in_directory(data_dir)
    try:
        # It would not replay, or would replay another game (a missing row was given so).
        with pytest.raises(JournalError, match=f"game 1's record cannot be given: {said}"):
            journal2.record(1)
    finally:
        journal2.close()


def test_a_damaged_header_stops_the_resume_with_a_clear_message(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any]
) -> None:
    table.new_game(header)
    journal.close()
    with sqlite3.connect(data_dir / DATABASE_NAME) as db:
        db.execute("UPDATE games SET header = ? WHERE id = 1", ('{"game": "dudo-rec',))
    resumed, journal2 = restart(data_dir)
    try:
        assert resumed.state()["phase"] == "setup"
        assert "the header of game 1 is damaged" in resumed.state()["fault"]
        assert resumed.state()["fault"].endswith("start a new game (the journal is kept as it is)")
    finally:
        journal2.close()


def read_only_table(data_dir: Path, query: str = "mode=ro") -> tuple[Table, Journal]:
    """The table on its journal opened read-only, as on a card the kernel made read-only."""
    journal = Journal(f"file:{data_dir / DATABASE_NAME}?{query}", uri=True)
    return Table(journal=journal), journal


# The two ways `dudo serve` opens a journal it cannot write (the second for a WAL database
# whose -shm file cannot be created on a read-only file system).
@pytest.mark.parametrize("query", ["mode=ro", "mode=ro&immutable=1"])
def test_a_read_only_card_makes_the_table_refuse_actions_and_say_so(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any, query: str,
) -> None:
    table.new_game(header)
    play(table, opening[:1])
    journal.close()

    stuck, ro_journal = read_only_table(data_dir, query)
    try:
        before = stuck.state()
        assert before["turn"] == "Ben"  # the game still shows
        outcome = stuck.submit({"action": "dudo", "player": "Ben"})
        assert not outcome.ok
        assert outcome.error is not None
        assert outcome.error.startswith("cannot save the game: ")
        assert "readonly" in outcome.error and outcome.error.endswith("nothing was changed")
        state = stuck.state()
        assert state["fault"] == outcome.error
        assert state["phase"] == "bidding" and state["turn"] == "Ben"
        assert stuck.record() == table.record()
        assert not stuck.new_game(header).ok
        assert [g.id for g in ro_journal.games()] == [1]
    finally:
        ro_journal.close()


def test_a_journal_another_program_holds_refuses_the_action_naming_that_not_the_card(
    table: Table, journal: Journal, header: dict[str, Any]
) -> None:
    # An engineer's sqlite3 shell writing the journal: before (session 93's audit), the
    # refusal asked for the folder to be made the service user's, on a card not read-only.
    import sqlite3

    table.new_game(header)
    journal._db.execute("PRAGMA busy_timeout = 100")  # the table waits 5 s; a test need not
    bid = {"action": "bid", "player": table.state()["turn"], "quantity": 2, "face": 3}
    other = sqlite3.connect(journal.path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        refused = table.submit(bid)
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert not refused.ok
    assert (refused.error or "").endswith(
        f"another program holds the journal in {journal.path.parent}: close it (another dudo,"
        " a database tool), then act again; nothing was changed")
    assert table.submit(bid).ok and table.state()["faults"] == {}


def test_a_full_disk_refuses_the_action_and_the_table_recovers_once_there_is_room(
    table: Table, journal: Journal, header: dict[str, Any]
) -> None:
    table.new_game(header)
    db = journal._db  # the real SQLite connection: cap its file at its current size
    (pages,) = db.execute("PRAGMA page_count").fetchone()
    db.execute(f"PRAGMA max_page_count = {pages}")
    refused = None
    for quantity in range(1, 200):
        player = table.state()["turn"]
        outcome = table.submit({"action": "bid", "player": player, "quantity": quantity,
                                "face": 2, "note": "x" * 2000})
        if not outcome.ok:
            refused = outcome
            break
    assert refused is not None and "disk is full" in (refused.error or "")
    assert (refused.error or "").endswith(": the card is full: free some space on it; nothing"
                                          " was changed")
    assert table.state()["faults"]["journal"] == refused.error
    assert len(table.state()["bids"]) == quantity - 1
    db.execute("PRAGMA max_page_count = 1000000")
    assert table.submit({"action": "bid", "player": table.state()["turn"],
                         "quantity": quantity, "face": 2}).ok
    assert table.state()["faults"] == {}


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through file permissions; "
                    "the read-only card is tested with a read-only SQLite connection above")
def test_a_journal_file_without_write_permission_refuses_actions(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any]
) -> None:
    table.new_game(header)
    journal.close()
    (data_dir / DATABASE_NAME).chmod(0o444)
    data_dir.chmod(0o555)
    try:
        # As `dudo serve` opens it: read-only, and `immutable` as SQLite cannot make the WAL's
        # -shm file in a folder it may not write (`mode=ro` alone fails there).
        journal2, faults = open_journal(data_dir)
        assert "the journal can only be read" in faults["journal"]
        stuck = Table(journal=journal2)
        assert stuck.state()["players"][0]["name"] == "Ana"  # the game still shows
        outcome = stuck.submit({"action": "bid", "player": "Ana", "quantity": 1, "face": 2})
        assert not outcome.ok and "cannot save the game" in (outcome.error or "")
        journal2.close()
    finally:
        data_dir.chmod(0o755)


def test_the_journal_lists_every_game_and_gives_each_record_for_replay(
    table: Table, journal: Journal, header: dict[str, Any], opening: list[dict[str, Any]],
    play: Any,
) -> None:
    table.new_game(header)
    play(table, opening)
    (game,) = journal.games()
    assert (game.id, game.players, game.rules, game.finished) == (
        1, ["Ana", "Ben", "Caro"], "perudo", False)
    lines = journal.record(1).splitlines()
    assert json.loads(lines[0])["players"] == ["Ana", "Ben", "Caro"]
    assert [json.loads(line) for line in lines[1:]] == opening


def test_a_journal_closed_under_a_request_says_why_it_cannot_answer(tmp_path: Path) -> None:
    # A read-only card's journal, replaced once the card can be written, is closed while a
    # phone's /api/games may still read it: before, SQLite's own error came out (a 500).
    journal = Journal.in_directory(tmp_path)
    journal.close()
    with pytest.raises(JournalError, match="Cannot operate on a closed database"):
        journal.games()


def test_a_journal_moved_away_while_the_table_runs_refuses_actions_until_it_is_back(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any,
) -> None:
    # Before, SQLite wrote on in the file it had open and the table said yes: every action
    # after the move was gone at the next start, the folder being empty.
    table.new_game(header)
    play(table, opening[:1])
    moved = data_dir.with_name("moved")
    data_dir.rename(moved)
    bid = {"action": "bid", "player": "Ben", "quantity": 4, "face": 6}
    refused = table.submit(bid)
    assert not refused.ok
    where = data_dir / DATABASE_NAME
    assert refused.error == (
        f"cannot save the game: cannot save action 2 of game 1: the journal {where} was"
        " moved or removed while the table ran: put it back, or start the"
        " table again (a new journal, without the games that were in it); nothing was changed")
    assert table.state()["faults"]["journal"] == refused.error
    assert len(table.state()["bids"]) == 1
    moved.rename(data_dir)  # put back
    assert table.submit(bid).ok
    assert table.state()["faults"] == {}
    journal.close()
    again, again_journal = restart(data_dir)
    try:
        assert len(again.state()["bids"]) == 2
    finally:
        again_journal.close()


def test_a_journal_removed_while_the_table_runs_acknowledges_nothing_more(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any,
) -> None:
    table.new_game(header)
    play(table, opening[:1])
    shutil.rmtree(data_dir)
    refused = table.submit({"action": "bid", "player": "Ben", "quantity": 4, "face": 6})
    assert not refused.ok and "was moved or removed while the table ran" in (refused.error
                                                                            or "")
    assert not table.new_game(header).ok


# Debian's own Python: the project's may live where another user cannot go (root's home).
_OTHER_USER = (["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
               if os.geteuid() == 0 else [])


@pytest.mark.skipif(os.geteuid() == 0 and shutil.which("setpriv") is None,
                    reason="root writes through file permissions, and setpriv is missing")
def test_a_journal_the_table_may_not_write_is_refused_as_it_is_opened() -> None:
    # Before, SQLite opened another user's journal (one `sudo dudo serve` left behind) to be
    # read without a word: the page showed no fault, and each action was refused as a bare
    # "attempt to write a readonly database", with no way back but a restart.
    folder = Path(tempfile.mkdtemp(prefix="dudo-other-user-"))  # not in root's 0700 tmp
    try:
        _may_not_write(folder)
    finally:
        shutil.rmtree(folder)


def _may_not_write(folder: Path) -> None:
    package = folder / "code" / "companion"
    package.mkdir(parents=True)
    for name in ("__init__.py", "journal.py", "wal.py"):
        shutil.copy(Path(__file__).parents[2] / "companion" / name, package / name)
    data = folder / "data"
    journal = Journal.in_directory(data)
    Table(journal=journal).new_game({"game": "dudo-record/1", "rules": "perudo",
                                     "players": ["Ana", "Ben"]})
    journal.close()
    (data / DATABASE_NAME).chmod(0o444)
    data.chmod(0o777)  # the folder may be written: SQLite makes its WAL there
    for step in (folder, folder / "code", package):
        step.chmod(0o755)
    opening = ("import sys; sys.path.insert(0, sys.argv[1])\n"
               "from companion.journal import Journal, JournalError\n"
               "try:\n    Journal.in_directory(sys.argv[2])\n"
               "except JournalError as err:\n    print(err)\n")
    python = "/usr/bin/python3" if _OTHER_USER else sys.executable
    done = subprocess.run([*_OTHER_USER, python, "-c", opening, str(folder / "code"),
                           str(data)], capture_output=True, text=True, timeout=60, cwd=folder)
    assert done.stderr == ""
    assert done.stdout == (f"cannot open the journal {data / DATABASE_NAME}: attempt to write"
                           " a readonly database\n")


def test_a_card_failing_as_the_action_is_written_says_the_action_may_come_back(
    table: Table, journal: Journal, data_dir: Path, header: dict[str, Any],
    opening: list[dict[str, Any]], play: Any,
) -> None:
    # A write that fails half way (SQLite's I/O error, not a full card): the row may be on
    # the card all the same. Before, "nothing was changed", and a restart played it.
    import resource
    import signal

    table.new_game(header)
    play(table, opening[:1])
    wal = data_dir / (DATABASE_NAME + "-wal")
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (wal.stat().st_size, limits[1]))
    try:  # no file of this process may grow: the WAL's next frame fails to be written
        refused = table.submit({"action": "bid", "player": "Ben", "quantity": 4, "face": 6})
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, handler)
    assert not refused.ok
    assert refused.error == (
        "cannot save the game: cannot save action 2 of game 1: disk I/O error: the card fails"
        " to write (full, or failing): free some space on it, or put in another; the action"
        " was not taken, but a card failing as it writes may keep it: started again, the"
        " table shows whether it did")
    assert len(table.state()["bids"]) == 1
    assert table.submit({"action": "bid", "player": "Ben", "quantity": 4, "face": 6}).ok
