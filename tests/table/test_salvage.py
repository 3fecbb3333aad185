"""A damaged journal mended: every row that can still be read is in the new journal, its
games up to their first damaged row, the rest kept among its set-aside rows."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest

from companion import salvage
from companion.journal import Journal, damage
from companion.salvage import NOTICE, finish, mend, notice
from tests.table.conftest import write_over

ACTIONS = 199


def a_long_game(path: Path) -> None:
    journal = Journal(path)
    game = journal.start_game({"game": "dudo-record/1", "players": ["Ana", "Ben"]})
    for seq in range(1, ACTIONS + 1):
        journal.append(game, seq, {"action": "bid", "player": "Ana", "quantity": seq,
                                   "face": 2, "pad": "y" * 60})
    journal.close()


def leaves(path: Path) -> list[tuple[int, int]]:
    """The actions table's leaf pages in row order: (page number, rows on it)."""
    with closing(sqlite3.connect(path)) as db:
        return [(int(page), int(cells)) for page, cells in db.execute(
            "SELECT pageno, ncell FROM dbstat WHERE name = 'actions' AND pagetype = 'leaf'"
            " ORDER BY path")]


def held(path: Path) -> str | None:
    """The salvage's notice the journal at ``path`` keeps for the players."""
    journal = Journal(path)
    try:
        return journal.notice(NOTICE)
    finally:
        journal.close()


def test_every_row_that_can_be_read_is_kept_the_one_before_the_damage_too(
    tmp_path: Path,
) -> None:
    # Before, the row just before a damaged page was lost (Python reads a row ahead), and
    # the rows after it were left in the damaged file alone.
    path = tmp_path / "journal.sqlite3"
    a_long_game(path)
    pages = leaves(path)
    assert len(pages) >= 4
    page, lost = pages[2]
    first_lost = pages[0][1] + pages[1][1] + 1  # rows are stored in the order they came
    write_over(path, page)
    assert damage(path) is not None
    mend(path)
    assert held(path) == ("a new one holds the 1 game read from it, each up to its first damaged"
                         " row (1 stop at a damaged row; the rows read past it are kept aside"
                         " in the new journal)")
    mended = Journal(path)
    try:
        assert [row.seq for row in mended.game(1).rows] == list(range(1, first_lost))
    finally:
        mended.close()
    with closing(sqlite3.connect(path)) as db:
        aside = [seq for (seq,) in db.execute("SELECT seq FROM dropped ORDER BY seq")]
    assert aside == list(range(first_lost + lost, ACTIONS + 1))


@pytest.mark.parametrize("pages_lost", [1, 3])
def test_a_journal_cut_short_keeps_every_row_on_the_pages_left(
    tmp_path: Path, pages_lost: int
) -> None:
    # A card's last writes lost leave the file short of the pages its header counts. Before,
    # SQLite found the schema malformed, and the salvage read no game at all from it.
    path = tmp_path / "journal.sqlite3"
    a_long_game(path)
    pages = leaves(path)
    with closing(sqlite3.connect(path)) as db:
        (page_size,) = db.execute("PRAGMA page_size").fetchone()
    size = path.stat().st_size
    os.truncate(path, size - pages_lost * page_size)
    left = size // page_size - pages_lost  # pages are numbered from 1
    first_lost = 1
    for page, rows in pages:
        if page > left:
            break
        first_lost += rows
    assert damage(path) is not None
    mend(path)
    mended = Journal(path)
    try:
        assert [row.seq for row in mended.game(1).rows] == list(range(1, first_lost))
    finally:
        mended.close()
    assert first_lost > ACTIONS // 2  # most of the game, whatever lay on the pages lost


def many_games(path: Path, games: int, actions: int) -> None:
    """A journal of ``games`` games of ``actions`` bids each, written in one transaction."""
    from companion.journal import checksum, encode

    Journal(path).close()
    names = ["Ana", "Ben", "Caro"]
    header = encode({"game": "dudo-record/1", "rules": "perudo", "players": names})
    with closing(sqlite3.connect(path)) as db, db:
        for game in range(1, games + 1):
            db.execute("INSERT INTO games (id, started, header, checksum) VALUES (?, ?, ?, ?)",
                       (game, "2026-01-01T00:00:00+00:00", header, checksum(game, 0, header)))
            for seq in range(1, actions + 1):
                bid = encode({"action": "bid", "player": names[(seq - 1) % 3],
                              "quantity": seq, "face": 2})
                db.execute("INSERT INTO actions VALUES (?, ?, ?, ?)",
                           (game, seq, bid, checksum(game, seq, bid)))
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


@pytest.mark.parametrize("kept", [500_000, 1_000_000])
def test_a_long_journal_cut_short_is_mended_in_bounded_time_and_memory(
    tmp_path: Path, kept: int
) -> None:
    # Read past a file's end, SQLite gives rows of id 0 holding nothing: before (session 93's
    # audit), the salvage stepped back to the table's start each time and read it again and
    # again, until the memory ran out (24 GB here; a Pi has 1), at every start.
    import subprocess
    import sys

    path = tmp_path / "journal.sqlite3"
    many_games(path, 200, 100)  # 2.1 MB
    os.truncate(path, kept)
    script = ("import resource, sys; from pathlib import Path;"
              " resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30));"
              " from companion.salvage import mend; mend(Path(sys.argv[1]))")
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    mended = Journal(path)
    try:
        latest = mended.latest()
        assert latest is not None and latest.id >= 200 * kept / 2_100_000 * 0.8
    finally:
        mended.close()


def test_an_empty_journal_is_set_aside_with_its_wal_kept_as_it_was(tmp_path: Path) -> None:
    # The file cut to nothing, its WAL whole (the games since the last checkpoint): SQLite
    # opening an empty file deletes the WAL beside it, even read-only, and the salvage did
    # (session 93's audit): the games were gone for whoever would mend it by hand.
    import shutil

    live = tmp_path / "live"
    live.mkdir()
    journal = Journal(live / "journal.sqlite3")
    game = journal.start_game({"game": "dudo-record/1", "players": ["Ana", "Ben"]})
    journal.append(game, 1, {"action": "bid", "player": "Ana", "quantity": 2, "face": 3})
    path = tmp_path / "journal.sqlite3"  # as a power cut leaves it: the WAL not folded in
    for ending in ("", "-wal"):
        shutil.copyfile(live / f"journal.sqlite3{ending}", tmp_path / f"journal.sqlite3{ending}")
    journal.close()
    wal = (tmp_path / "journal.sqlite3-wal").read_bytes()
    assert len(wal) > 0
    os.truncate(path, 0)
    assert damage(path) == "the file is empty: cut to nothing"
    mend(path)
    kept = [p for p in tmp_path.glob("journal.sqlite3.damaged-*") if p.name.endswith("-wal")]
    assert len(kept) == 1 and kept[0].read_bytes() == wal


def leaf_pages(path: Path, table: str) -> list[int]:
    with closing(sqlite3.connect(path)) as db:
        return [page for (page,) in db.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path",
            (table,))]


def test_a_row_read_out_of_order_is_passed_over_and_the_games_after_it_kept(
    tmp_path: Path,
) -> None:
    # One cell pointer of the games table pointing at another cell (a failing card's few
    # bytes): SQLite reads a game twice, out of order. Session 93's first mend stopped there,
    # keeping 35 of 300 games (the one being played left out); now only the row lost is.
    path = tmp_path / "journal.sqlite3"
    many_games(path, 300, 5)
    leaf = leaf_pages(path, "games")[1]
    with path.open("r+b") as f:
        f.seek((leaf - 1) * 4096)
        page = bytearray(f.read(4096))
        page[18:20] = page[8:10]  # the 6th cell's pointer: the 1st cell's
        f.seek((leaf - 1) * 4096)
        f.write(page)
    assert damage(path) is not None
    mend(path)
    mended = Journal(path)
    try:
        latest = mended.latest()
        assert latest is not None and latest.id == 300 and len(mended.games()) == 299
    finally:
        mended.close()


def garble_first_row(path: Path, leaf: int, garbled: str) -> None:
    """Garble the first row on the actions page ``leaf``, its record still adding up (as
    random bytes on a card may): its game id read as a text of as many bytes, or its checksum
    as null (its 16 bytes then the body's end)."""
    with path.open("r+b") as f:
        f.seek((leaf - 1) * 4096)
        page = bytearray(f.read(4096))
        cell = int.from_bytes(page[8:10], "big")  # the page's first row
        at = cell + 1 + (2 if page[cell + 1] & 0x80 else 1)  # its record's header
        game_id = page[at + 1]  # 9: the constant 1, no bytes; 1: a one-byte integer
        assert page[at] == 6 and game_id in (1, 9) and page[at + 5] == 0x2D
        if garbled == "game id":
            page[at + 1] = 13 if game_id == 9 else 15
        else:
            body = ((page[at + 3] & 0x7F) << 7 | page[at + 4]) + 32  # 16 bytes longer...
            page[at + 3:at + 6] = bytes([0x80 | body >> 7, body & 0x7F, 0])  # ...checksum null
        f.seek((leaf - 1) * 4096)
        f.write(page)


@pytest.mark.parametrize("garbled", ["game id", "checksum"])
@pytest.mark.parametrize("where", ["in a page read whole", "just past a damaged page"])
def test_a_garbled_row_is_left_out_not_a_failure_at_every_start(
    tmp_path: Path, garbled: str, where: str
) -> None:
    # A row whose game id reads as text (random bytes on a page), or whose checksum reads as
    # null: before (session 93's audits), the first was a traceback at every start, the second
    # a copy refused for ever ("could not be mended now"); a row read by its id alone past the
    # damage was kept whole even after the first mend.
    from companion.kept_journal import open_journal

    path = tmp_path / "journal.sqlite3"
    many_games(path, 20, 30)
    actions = leaf_pages(path, "actions")
    if where == "just past a damaged page":
        garble_first_row(path, actions[3], garbled)
        write_over(path, actions[2])
    else:
        garble_first_row(path, actions[0], garbled)
        # And a page written over, so that the start mends the journal: the games' one,
        # where the actions are all set aside, for the null checksum.
        write_over(path, leaf_pages(path, "games")[0] if garbled == "checksum" else actions[-1])
    journal, faults = open_journal(tmp_path)
    journal.close()
    assert "kept as" in faults["salvaged"] and "could not be mended" not in faults["salvaged"]
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM (SELECT game_id, checksum FROM actions UNION ALL"
                          " SELECT game_id, checksum FROM dropped) WHERE typeof(game_id) !="
                          " 'integer' OR checksum IS NULL").fetchone() == (0,)


def test_a_salvage_the_card_cannot_hold_leaves_the_damaged_journal_and_no_part_behind(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    path = tmp_path / "journal.sqlite3"
    a_long_game(path)
    page, _ = leaves(path)[2]
    write_over(path, page)
    damaged = path.read_bytes()
    # The card fills as the new journal is written: its index file fits, its rows do not.
    cut_off = f"""
import resource, signal, sys
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (33_000, 33_000))
from companion.salvage import NOTICE, mend
from tests.table.conftest import write_over
try:
    mend(Path({str(path)!r}))
except Exception as err:
    sys.exit(f"refused: {{err}}")
"""
    result = subprocess.run([sys.executable, "-c", cut_off], capture_output=True, text=True,
                            check=False, timeout=60)
    assert result.returncode == 1 and result.stderr.startswith("refused: "), result.stderr
    assert path.read_bytes() == damaged
    assert sorted(p.name for p in tmp_path.iterdir() if ".salvag" in p.name) == []
    mend(path)  # room again: mended
    assert "the 1 game read from it" in (held(path) or "")


def test_a_set_aside_cut_off_after_the_wal_moved_puts_the_file_beside_its_wal(
    tmp_path: Path,
) -> None:
    from companion.salvage import set_aside

    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"the damaged file")
    moved = tmp_path / "journal.sqlite3.damaged-20261127-230000-wal"
    moved.write_bytes(b"its WAL, moved before the power went")
    kept = set_aside(path)
    assert kept.name == "journal.sqlite3.damaged-20261127-230000"  # one name for the pair
    assert kept.read_bytes() == b"the damaged file" and not path.exists()


def test_a_new_game_ends_the_notice_in_the_write_that_starts_it(tmp_path: Path) -> None:
    # Before, the notice was cleared in a write of its own after the game's first row: a
    # power cut between the two said it again during the new game.
    path = tmp_path / "journal.sqlite3"
    journal = Journal(path)
    try:
        journal.set_notice(NOTICE, "a new one holds the 1 game read from it")
        journal.start_game({"game": "dudo-record/1", "players": ["Ana", "Ben"]})
    finally:
        journal.close()
    assert held(path) is None


def test_a_journal_from_before_notices_starts_games_and_has_none(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal(path).close()
    with closing(sqlite3.connect(path)) as db:
        db.execute("DROP TABLE IF EXISTS notices")  # as session 46 made it
    journal = Journal(path)
    try:
        assert journal.notice(NOTICE) is None
        assert journal.start_game({"game": "dudo-record/1", "players": ["Ana", "Ben"]}) == 1
    finally:
        journal.close()



def clock_at(when: datetime) -> type[datetime]:
    """A ``datetime`` whose clock says ``when``."""

    class Clock(datetime):
        @classmethod
        def now(cls, tz: object = None) -> Clock:
            return cls.fromtimestamp(when.timestamp(), UTC)

    return Clock


def told(path: Path) -> str | None:
    """What the players are told of the salvage that made the journal at ``path``."""
    journal = Journal(path)
    try:
        return notice(path, journal)
    finally:
        journal.close()


def damaged_again(path: Path, monkeypatch: pytest.MonkeyPatch, when: datetime,
                  what: str) -> Path:
    """The journal at ``path`` written over with ``what`` and mended, the clock at ``when``;
    the file its notice says the damaged one is kept as."""
    path.write_text(what * 300)
    assert damage(path) is not None
    monkeypatch.setattr(salvage, "datetime", clock_at(when))
    mend(path)
    said = told(path) or ""
    assert said.startswith("the journal was damaged (the card?): it is kept as "), said
    return Path(said.removeprefix("the journal was damaged (the card?): it is kept as ")
                .split("; ")[0])


@pytest.mark.parametrize(
    "second",
    [datetime(2025, 3, 1, 8, 0, 0, tzinfo=UTC), datetime(2026, 11, 27, 23, 0, 0, tzinfo=UTC)],
    ids=["the clock went back", "the same second"],
)
def test_the_notice_names_the_file_this_salvage_set_aside_whatever_the_clock_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, second: datetime
) -> None:
    # Before, it named the last file by name: after the clock went back (a Pi without a
    # clock of its own starts at an old time until the network sets it), an older one.
    path = tmp_path / "journal.sqlite3"
    first = damaged_again(path, monkeypatch, datetime(2026, 11, 27, 23, 0, 0, tzinfo=UTC),
                          "the first damaged file\n")
    kept = damaged_again(path, monkeypatch, second, "the second damaged file\n")
    assert kept != first and kept.parent == tmp_path
    # Each kept whole: the second never written over the first.
    assert first.read_text() == "the first damaged file\n" * 300
    assert kept.read_text() == "the second damaged file\n" * 300
    kept.rename(tmp_path / "sent-to-be-mended")  # the first is still there: not named
    assert told(path) == (
        f"the journal was damaged (the card?): it was kept beside it as {kept.name}, moved or"
        " removed since; a new one holds no game: none could be read from it")


def test_a_salvage_finished_at_the_next_start_sets_aside_under_the_name_its_notice_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Cut off once the new journal was complete, before the damaged one was set aside; the
    # next start, the clock gone back, finishes it under the name chosen before.
    path = tmp_path / "journal.sqlite3"
    path.write_text("the damaged file\n" * 300)
    monkeypatch.setattr(salvage, "datetime", clock_at(datetime(2026, 11, 27, 23, 0, 0,
                                                                tzinfo=UTC)))

    def power_cut(path: Path, kept: Path | None = None) -> Path:
        raise OSError("the power went")

    with monkeypatch.context() as cut:
        cut.setattr(salvage, "set_aside", power_cut)
        with pytest.raises(OSError, match="the power went"):
            mend(path)
    assert (tmp_path / "journal.sqlite3.salvaged").is_file()
    (tmp_path / "journal.sqlite3.damaged-20250301-080000").write_text("another, older")
    monkeypatch.setattr(salvage, "datetime", clock_at(datetime(2025, 3, 1, 8, 0, 0,
                                                                tzinfo=UTC)))
    assert finish(path)
    kept = tmp_path / "journal.sqlite3.damaged-20261127-230000"
    assert kept.read_text() == "the damaged file\n" * 300
    assert told(path) == (f"the journal was damaged (the card?): it is kept as {kept}; a new"
                          " one holds no game: none could be read from it")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "journal.sqlite3", "journal.sqlite3.damaged-20250301-080000",
        "journal.sqlite3.damaged-20261127-230000"]


def test_a_salvage_keeps_the_list_of_actions_a_resume_set_aside(tmp_path: Path) -> None:
    # Before, the salvage copied the games and rows but not the notices: the players were no
    # longer told which actions to enter again.
    from companion.table import Table

    path = tmp_path / "journal.sqlite3"
    a_long_game(path)  # game 1, long enough to have pages of its own
    journal = Journal(path)
    table = Table(journal=journal)
    assert table.new_game({"game": "dudo-record/1", "rules": "perudo",
                           "players": ["Ana", "Ben", "Caro"]}).ok
    for quantity in (1, 2, 3):
        player = ["Ana", "Ben", "Caro"][quantity - 1]
        assert table.submit({"action": "bid", "player": player, "quantity": quantity,
                             "face": 5}).ok
    table.close()
    journal.close()
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE actions SET body = ? WHERE game_id = 2 AND seq = 2",
                   ('{"action": "bid", "player": "Ben", "quantity": 9, "face": 5}',))
    journal = Journal(path)
    told = Table(journal=journal).state()["faults"]["left_out"]  # rows 2 and 3 set aside
    journal.close()
    assert told.startswith("2 actions recorded before the restart")
    write_over(path, leaves(path)[1][0])  # the card spoils a page of game 1
    assert damage(path) is not None
    mend(path)
    journal = Journal(path)
    try:
        assert Table(journal=journal).state()["faults"]["left_out"] == told
    finally:
        journal.close()
