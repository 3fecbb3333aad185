"""The journal's write-ahead log damaged after a kill: SQLite drops the commits after the
damage without a word; the table's start finds it, sets the journal aside and says so."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.journal import DATABASE_NAME, Journal, KeptReveal
from companion.kept_journal import open_journal
from companion.wal import wal_damage

WAL = DATABASE_NAME + "-wal"


def killed_with_bids(tmp_path: Path, bids: int = 12, picture: bool = False) -> Path:
    """A data folder as a kill leaves it: the journal and its WAL, ``bids`` actions in the
    WAL only (copied while the journal is open, so nothing is folded into the file); with
    ``picture``, a reveal's picture kept last, a transaction of many pages."""
    live = tmp_path / "live"
    journal = Journal.in_directory(live)
    game = journal.start_game({"game": "dudo-record/1", "players": ["Ana", "Ben"]})
    for q in range(1, bids + 1):
        journal.append(game, q, {"action": "bid", "player": ("Ben", "Ana")[q % 2],
                                 "quantity": q, "face": 2})
    if picture:
        journal.keep_reveal(KeptReveal(game, bids, "{}", bytes(range(256)) * 160))
    killed = tmp_path / "killed"
    killed.mkdir()
    for name in (DATABASE_NAME, WAL):
        shutil.copy(live / name, killed / name)
    journal.close()
    return killed


def damaged(data: Path, change: Callable[[bytearray], None]) -> Path:
    wal = bytearray((data / WAL).read_bytes())
    change(wal)
    (data / WAL).write_bytes(wal)
    return data


def middle(wal: bytearray) -> None:
    wal[len(wal) // 2:len(wal) // 2 + 16] = b"X" * 16


def header(wal: bytearray) -> None:
    wal[:32] = bytes(32)


def test_a_killed_table_s_wal_is_whole_and_every_action_comes_back(tmp_path: Path) -> None:
    data = killed_with_bids(tmp_path)
    assert wal_damage(data / WAL) is None
    journal, faults = open_journal(data)
    assert faults == {} and len(journal.record(1).splitlines()) == 1 + 12
    journal.close()


@pytest.mark.parametrize(("change", "said"), [
    (middle, "is damaged at byte"), (header, "has a damaged header")], ids=["middle", "header"])
def test_a_wal_damaged_before_a_commit_is_set_aside_with_the_journal_and_said(
    tmp_path: Path, change: Callable[[bytearray], None], said: str
) -> None:
    # Before, SQLite read up to the damage and the actions after it were gone, nothing said.
    data = damaged(killed_with_bids(tmp_path), change)
    kept = (data / WAL).read_bytes()
    journal, faults = open_journal(data)
    journal.close()
    assert "the journal was damaged" in faults["salvaged"]
    (aside,) = data.glob(f"{DATABASE_NAME}.damaged-*-wal")
    assert aside.read_bytes() == kept  # kept as it was, for whoever mends it by hand
    assert said in (wal_damage(aside) or "")


def test_a_last_write_cut_short_is_not_damage(tmp_path: Path) -> None:
    # A power cut tears at most the last write, never acknowledged: SQLite drops it.
    data = damaged(killed_with_bids(tmp_path), lambda wal: wal.__delitem__(slice(-1000, None)))
    assert wal_damage(data / WAL) is None
    journal, faults = open_journal(data)
    assert faults == {} and len(journal.record(1).splitlines()) == 1 + 11
    journal.close()


def commit_frames(wal: bytearray) -> list[int]:
    """Where each commit frame of the WAL starts (its header says the database's size)."""
    frame = 24 + int.from_bytes(wal[8:12], "big")
    return [at for at in range(32, len(wal) - frame + 1, frame)
            if int.from_bytes(wal[at + 4:at + 8], "big")]


def flipped(wal: bytearray, at: int) -> None:
    """The page of the frame at ``at`` damaged: 500 of its bytes changed."""
    wal[at + 100:at + 600] = bytes(b ^ 0xFF for b in wal[at + 100:at + 600])


def test_a_power_cut_tearing_the_last_transaction_s_pages_is_not_damage(tmp_path: Path) -> None:
    # Its commit frame may reach the card before one of its pages does. Before, the commit
    # after the torn page was taken for an acknowledged one: an ordinary power cut set the
    # whole journal aside as damaged.
    def torn_page(wal: bytearray) -> None:
        *_, before, last = commit_frames(wal)
        frame = 24 + int.from_bytes(wal[8:12], "big")
        assert (last - before) // frame > 3  # the picture's pages
        flipped(wal, before + 2 * frame)

    data = damaged(killed_with_bids(tmp_path, picture=True), torn_page)
    assert wal_damage(data / WAL) is None
    journal, faults = open_journal(data)
    assert faults == {} and len(journal.record(1).splitlines()) == 1 + 12  # every bid
    assert journal.kept_reveal() is None  # the picture was never acknowledged
    journal.close()


def test_a_wal_damaged_in_a_commit_another_follows_is_damage(tmp_path: Path) -> None:
    def last_but_one_commit(wal: bytearray) -> None:
        *_, before, _ = commit_frames(wal)
        flipped(wal, before)

    data = damaged(killed_with_bids(tmp_path), last_but_one_commit)
    assert "is damaged at byte" in (wal_damage(data / WAL) or "")
