"""The project's TOML config: the ``[server]`` and ``[table]`` tables the companion reads.

One file configures the whole table. This module reads ``[server]`` (host, port, PIN, data
directory) and ``[table]`` (the defaults the page offers for a new game). The ``[pins]``,
``[vision]``, ``[camera]``, ``[seats]`` and ``[colours]`` tables belong to the hardware and
vision loaders: :class:`Config` keeps the file's path so they can read it themselves.

Example::

    [server]
    host = "0.0.0.0"
    port = 8080
    pin = "4821"
    data = "/var/lib/dudo-companion"

    [table]
    rules = "perudo"
    players = ["Ana", "Ben", "Caro"]
    options = { exact_call = "calza" }
    cups_up_s = 3.0
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from companion.errors import MalformedAction
from companion.game import Game, check_new_players
from companion.rules import make_rules
from vision.config import read_toml

DEFAULT_HOST = "0.0.0.0"
DEFAULT_PORT = 8080
PIN_PATTERN = re.compile(r"^[0-9]{4,12}$")

_SERVER_KEYS = ("host", "port", "pin", "data")
_TABLE_KEYS = ("rules", "options", "players", "cups_up_s")
# Seconds from a call to the camera's picture: the cups come up, and a mis-pressed call can
# still be undone before the camera has seen a die.
DEFAULT_CUPS_UP_S = 3.0
# Tables read by other loaders (hardware, vision): accepted here, passed on untouched.
_OTHER_TABLES = ("pins", "vision", "camera", "seats", "colours")


def default_data_dir() -> Path:
    """Where the journal lives when neither ``--data`` nor the config says:
    ``$DUDO_DATA``, else ``$XDG_DATA_HOME/dudo-companion`` (``~/.local/share/dudo-companion``).
    """
    if os.environ.get("DUDO_DATA"):
        return Path(os.environ["DUDO_DATA"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "dudo-companion"


def check_pin(pin: str, source: str = "--pin") -> str:
    """The PIN if it is 4 to 12 digits, else a ValueError saying so."""
    if not PIN_PATTERN.fullmatch(pin):  # "4821\n" too: no phone could type it
        raise ValueError(f"{source} {pin!r}: a table PIN is 4 to 12 digits")
    return pin


@dataclass(frozen=True)
class TableDefaults:
    """What the page's new-game form starts from, and how long the cups take to come up."""

    rules: str = "perudo"
    options: Mapping[str, object] = field(default_factory=dict)
    players: tuple[str, ...] = ()
    cups_up_s: float = DEFAULT_CUPS_UP_S


@dataclass(frozen=True)
class Config:
    """The companion's settings, after the command line has overridden the file.

    ``path`` is the TOML file (None: no file), for the hardware and vision loaders.
    """

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    pin: str | None = None
    data: Path = field(default_factory=default_data_dir)
    table: TableDefaults = field(default_factory=TableDefaults)
    path: Path | None = None


def load_config(
    path: str | Path | None = None,
    *,
    host: str | None = None,
    port: int | None = None,
    pin: str | None = None,
    data: str | Path | None = None,
) -> Config:
    """Read the config file (None: defaults only); the keyword values, when given, win.

    Raises ValueError naming the file, the table, the key and the value for anything wrong:
    an unknown table or key, a value of the wrong type, a port out of range, a bad PIN.
    """
    source = str(path) if path is not None else "config"
    document = read_toml(path) if path is not None else {}
    unknown = sorted(set(document) - {"server", "table", *_OTHER_TABLES})
    if unknown:
        raise ValueError(
            f"{source}: unknown table(s) {', '.join(unknown)} "
            f"(known: server, table, {', '.join(_OTHER_TABLES)})"
        )
    server = _table(document, "server", _SERVER_KEYS, source)
    table = _table(document, "table", _TABLE_KEYS, source)

    file_host = _string(server, "host", source)
    file_port = server.get("port")
    if file_port is not None and (isinstance(file_port, bool) or not isinstance(file_port, int)):
        raise ValueError(f"{source}: [server] port = {file_port!r}: must be a whole number")
    file_pin = server.get("pin")
    if file_pin is not None and not isinstance(file_pin, str):
        raise ValueError(f'{source}: [server] pin = {file_pin!r}: write it as a string ("0042")')
    file_data = _string(server, "data", source)

    # The file's values are checked even where an option overrides them: the file is what
    # the service starts with.
    for where, given in ((f"{source}: [server] port =", file_port), ("--port", port)):
        if given is not None and not 1 <= given <= 65535:
            raise ValueError(f"{where} {given}: a port is 1-65535")
    for where, code in ((f"{source}: [server] pin =", file_pin), ("--pin", pin)):
        if code is not None:
            check_pin(code, where)
    for option, value in (("--host", host), ("--data", data)):
        if isinstance(value, str) and not value.strip():
            raise ValueError(f"{option} {value!r}: empty (leave the option out for the config's"
                             " or the default)")
    chosen_port = port if port is not None else file_port
    chosen_pin = pin if pin is not None else file_pin
    chosen_data = data if data is not None else file_data

    return Config(
        host=host or file_host or DEFAULT_HOST,
        port=chosen_port if chosen_port is not None else DEFAULT_PORT,
        pin=chosen_pin,
        data=Path(chosen_data).expanduser() if chosen_data else default_data_dir(),
        table=_table_defaults(table, source),
        path=Path(path) if path is not None else None,
    )


def _table(
    document: Mapping[str, object], name: str, known: tuple[str, ...], source: str
) -> dict[str, object]:
    table = document.get(name, {})
    if not isinstance(table, dict):
        raise ValueError(f"{source}: [{name}] must be a table, not {table!r}")
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ValueError(
            f"{source}: unknown key(s) in [{name}]: {', '.join(unknown)} "
            f"(known: {', '.join(known)})"
        )
    return table


def _string(table: Mapping[str, object], key: str, source: str) -> str | None:
    value = table.get(key)
    if value is not None and (not isinstance(value, str) or not value):
        raise ValueError(f"{source}: [server] {key} = {value!r}: must be a non-empty string")
    return value


def _table_defaults(table: Mapping[str, object], source: str) -> TableDefaults:
    rules = table.get("rules", "perudo")
    if not isinstance(rules, str) or not rules:
        raise ValueError(f"{source}: [table] rules = {rules!r}: must be a preset name")
    options = table.get("options", {})
    if not isinstance(options, dict):
        raise ValueError(f"{source}: [table] options = {options!r}: must be a table")
    players = table.get("players", [])
    if not isinstance(players, list) or not all(isinstance(p, str) and p for p in players):
        raise ValueError(f"{source}: [table] players = {players!r}: must be a list of names")
    cups_up = table.get("cups_up_s", DEFAULT_CUPS_UP_S)
    if isinstance(cups_up, bool) or not isinstance(cups_up, int | float) or not 0 <= cups_up <= 30:
        raise ValueError(f"{source}: [table] cups_up_s = {cups_up!r}: must be 0-30 seconds")
    # The engine's own check of the preset, options and names, now rather than at the first
    # game; the options as a record's header writes them (`calza = true` is `exact_call`).
    try:
        made = make_rules(rules, options)
        options = made.overrides()
        check_new_players(players)
        if players:
            Game(made, players)  # and as many as the preset seats
    except MalformedAction as err:
        raise ValueError(f"{source}: [table] {err}") from None
    return TableDefaults(
        rules=rules, options=dict(options), players=tuple(players), cups_up_s=float(cups_up)
    )
