"""A tiny TOML writer: replaces whole top-level tables of a file and keeps the others' text.

Only what the calibration needs: strings, numbers, booleans, arrays and nested tables.
Every table not replaced keeps its text, comments included; a replaced table keeps the
comments of each key it still has. The result is parsed again before it replaces the file,
so a file is never left half-written or unreadable.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import stat
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from vision.config import toml_mistake


def save_tables(path: str | Path, tables: Mapping[str, Mapping[str, object]]) -> None:
    """Replace (or add) the given top-level tables of a TOML file; keep every other table.

    The other tables keep their text, comments included; the comment lines just above a
    replaced table's header stay with it, and so do those above each of its keys, and at
    the end of its lines, where the new table still has that key. The result is parsed again
    before it replaces the file, which keeps its permissions and owner (it may hold the
    table's PIN), so a file is never left half-written, unreadable or open to others.
    OSError names the file.
    """
    path = Path(path)
    if path.exists() and not path.is_file():  # a link is followed; a device is no config
        raise ValueError(f"{path}: not a config file: give the TOML file itself")
    path = path.resolve() if path.is_symlink() else path
    old_text = path.read_text(encoding="utf-8-sig") if path.exists() else ""  # no BOM
    try:
        old_data = tomllib.loads(old_text) if old_text else {}
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{path}: not valid TOML: {toml_mistake(err, path)}; file left"
                         " unchanged") from None
    kept, leading, notes = _strip_tables(old_text, set(tables))
    pieces = [kept.rstrip("\n")] if kept.strip() else []
    pieces.extend(
        leading.get(name, "") + _dump((name,), dict(table), notes)
        for name, table in tables.items()
    )
    new_text = "\n\n".join(p.rstrip("\n") for p in pieces) + "\n"
    try:
        new_data = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError:
        # A table written inline (`camera = {...}`) or with dotted keys (`camera.width = 1`)
        # is not a [table] section this writer can replace.
        names = ", ".join(f"[{name}]" for name in tables)
        raise ValueError(
            f"{path}: could not rewrite {names}: write each as a table of its own ([camera] "
            "on a line, then its keys), not inline or with dotted keys; file left unchanged"
        ) from None
    for name, value in old_data.items():
        if name not in tables and new_data.get(name) != value:
            raise ValueError(f"{path}: could not keep [{name}] intact; file left unchanged")
    _replace(path, new_text)


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a file beside it, renamed over it once on disk.

    The file beside it is readable by its owner alone until it is written: the config holds
    the table's PIN. It then takes the old file's mode and owner (a new file, the umask's).
    """
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.unlink(missing_ok=True)  # a copy left by a run cut short keeps its own mode
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w",
                       encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if path.exists():
            old = path.stat()
            os.chmod(tmp, stat.S_IMODE(old.st_mode))
            if (old.st_uid, old.st_gid) != (tmp.stat().st_uid, tmp.stat().st_gid):
                os.chown(tmp, old.st_uid, old.st_gid)
        else:
            umask = os.umask(0o022)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        tmp.replace(path)
    except BaseException as err:  # Ctrl-C too: no copy is left beside the config
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise OSError(err.errno, f"cannot write {path}: {err.strerror}") from None
        raise


_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_\-\"'. ]+?)\s*\]\]?\s*(#.*)?$")
_KEY_LINE = re.compile(r"""^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*=""")

# A key's comments in a replaced table: the comment lines above it and the one at the end of
# its line, by (table path, key); a header's own line comment has the key "".
Notes = dict[tuple[tuple[str, ...], str], tuple[list[str], str]]


def _strip_tables(text: str, names: set[str]) -> tuple[str, dict[str, str], Notes]:
    """The TOML text without the tables (and their sub-tables) named in ``names``, the
    comment lines found just above each of those tables' first header, and the comments of
    those tables' keys.

    Comment lines belong to the header that follows them: those above a kept table stay,
    even after a table that is dropped; those right above a dropped one go with it.
    """
    out: list[str] = []
    leading: dict[str, str] = {}
    notes: Notes = {}
    pending: list[str] = []  # comment and blank lines not yet given to a header
    skipping = False
    section: tuple[str, ...] = ()
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            pending.append(line)
            continue
        match = _HEADER.match(line)
        if match:
            section = tuple(part.strip().strip("\"'") for part in match.group(1).split("."))
            skipping = section[0] in names
            if skipping:
                # The comment lines right above the header (no blank line between) go
                # with the table; the lines before them stay where they are.
                cut = len(pending)
                while cut and pending[cut - 1].strip():
                    cut -= 1
                above = [p.strip() for p in pending[cut:]]
                if len(section) > 1:  # a sub-table's: kept with its header, as a key's
                    notes[section, ""] = (above, match.group(2) or "")
                else:
                    if above and section[0] not in leading:
                        leading[section[0]] = "\n".join(above) + "\n"
                    notes[section, ""] = ([], match.group(2) or "")
                out.extend(pending[:cut])
                pending = []
        elif skipping and (key := _KEY_LINE.match(line)):
            name = key.group(1)
            if name[0] in "\"'":
                name = tomllib.loads(f"k = {name}")["k"]
            above = [p.strip() for p in pending if p.strip()]
            notes[section, name] = (above, _line_comment(line[key.end():]))
        if not skipping:
            out.extend(pending)
            out.append(line)
        pending = []
    out.extend(pending)
    return "\n".join(out), leading, notes


def _line_comment(value: str) -> str:
    """The comment at the end of a key's line (its ``# ...``), or ""."""
    quote = ""
    escaped = False
    for i, ch in enumerate(value):
        if escaped:
            escaped = False
        elif quote:
            if ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return value[i:].rstrip()
    return ""


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _string(key)


def _string(value: str) -> str:
    escaped = []
    for ch in value:
        if ch == "\\":
            escaped.append("\\\\")
        elif ch == '"':
            escaped.append('\\"')
        elif ch == "\n":
            escaped.append("\\n")
        elif ch == "\t":
            escaped.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            escaped.append(f"\\u{ord(ch):04x}")
        else:
            escaped.append(ch)
    return '"' + "".join(escaped) + '"'


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Sequence):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} ({type(value).__name__}) as a TOML value")


def dumps_table(name: str, table: Mapping[str, object]) -> str:
    """One TOML table as text: its plain keys, then each nested table as ``[name.sub]``."""
    return _dump((name,), table, {})


def _dump(path: tuple[str, ...], table: Mapping[str, object], notes: Notes) -> str:
    """:func:`dumps_table`, each key with the comments ``notes`` keeps for it."""

    def commented(line: str, key: str) -> list[str]:
        above, end = notes.get((path, key), ([], ""))
        return [*above, f"{line}  {end}" if end else line]

    lines = commented("[" + ".".join(_key(part) for part in path) + "]", "")
    nested = []
    for key, value in table.items():
        if isinstance(value, Mapping):
            nested.append((key, value))
        else:
            lines.extend(commented(f"{_key(key)} = {_value(value)}", key))
    text = "\n".join(lines) + "\n"
    for key, value in nested:
        text += "\n" + _dump((*path, key), value, notes)
    return text
