"""Damage in the journal's write-ahead log that SQLite itself passes over in silence.

SQLite reads a WAL frame by frame, each checked by a running checksum, and takes the first
frame that fails the check for the end of the log: every commit after it is dropped without
a word. A power cut tears at most the last transaction, which was never acknowledged (its
frames may reach the card in any order, its commit before one of its pages); a commit after
a bad frame that another commit follows, or a log whose header is unreadable though frames
follow it, was acknowledged and is lost: a card that damaged what it held. (A header torn
by a power cut as the log started again over its folded frames is taken for damage too: the
journal is set aside and salvaged whole, nothing lost, with a notice.) The format is SQLite's
(https://www.sqlite.org/fileformat2.html#walformat): a 32-byte header, then frames of a
24-byte header and a page each, numbers big-endian.
"""

from __future__ import annotations

import struct
from pathlib import Path

_HEADER = 32
_FRAME_HEADER = 24
_MAGIC = (0x377F0682, 0x377F0683)  # checksums of little- or big-endian words
_MAX_PAGE = 65536


def wal_damage(wal: Path) -> str | None:
    """What is wrong with the WAL at ``wal`` such that SQLite would drop acknowledged
    commits without a word, or None (no WAL, an empty one, a torn last transaction)."""
    try:
        data = wal.read_bytes()
    except FileNotFoundError:
        return None
    if len(data) <= _HEADER:
        return None  # no frame: nothing could be lost
    magic, _, page, _, salt1, salt2, sum1, sum2 = struct.unpack(">8I", data[:_HEADER])
    big = magic == _MAGIC[1]
    if (magic not in _MAGIC or not 512 <= page <= _MAX_PAGE or page & (page - 1)
            or _checksum(data[:24], 0, 0, big) != (sum1, sum2)):
        return f"its WAL {wal.name} has a damaged header, with {len(data) - _HEADER} bytes after it"
    frame = _FRAME_HEADER + page
    s1, s2 = sum1, sum2
    at = _HEADER
    while at + frame <= len(data):
        number, _, fsalt1, fsalt2, fsum1, fsum2 = struct.unpack(
            ">6I", data[at:at + _FRAME_HEADER])
        if (fsalt1, fsalt2) != (salt1, salt2):
            break  # the end of this log (frames of an earlier one may follow), or a torn frame
        s1, s2 = _checksum(data[at:at + 8], s1, s2, big)
        s1, s2 = _checksum(data[at + _FRAME_HEADER:at + frame], s1, s2, big)
        if number == 0 or (s1, s2) != (fsum1, fsum2):
            break
        at += frame
    else:
        return None  # read to its end (a last frame cut short was never committed)
    # SQLite stops here. A power cut tears only the last transaction, whose frames may reach
    # the card in any order (its commit frame before one of its pages): never acknowledged.
    # A transaction is begun only once the one before it is synced and acknowledged, so a
    # commit of this log from here on that another follows was acknowledged, and is lost.
    commits = []
    for later in range(at, len(data) - frame + 1, frame):
        _, commit, fsalt1, fsalt2 = struct.unpack(">4I", data[later:later + 16])
        if commit and (fsalt1, fsalt2) == (salt1, salt2):
            commits.append(later)
    if len(commits) > 1:
        return (f"its WAL {wal.name} is damaged at byte {at}, before a commit at byte"
                f" {commits[0]} that SQLite would drop")
    return None


def _checksum(data: bytes, s1: int, s2: int, big: bool) -> tuple[int, int]:
    """SQLite's WAL checksum of ``data`` (a multiple of 8 bytes), going on from (s1, s2)."""
    words = struct.unpack(f"{'>' if big else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s1 = (s1 + words[i] + s2) & 0xFFFFFFFF
        s2 = (s2 + words[i + 1] + s1) & 0xFFFFFFFF
    return s1, s2
