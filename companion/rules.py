"""The table's rules: one frozen ``Rules`` value of named options, and the four presets.

Variants are data, not copies: every option of RULES.md is a field of ``Rules`` under its
option name (``raise`` and ``pass`` are Python keywords, so their fields are ``raise_`` and
``pass_``). ``make_rules(preset, options)`` builds the rules a record header asks for, and
``rules_command`` prints them for ``dudo rules``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.errors import MalformedAction, shown


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of RULES.md, plus the preset it started from and its player limits."""

    preset: str = "perudo"
    dice: int = 5
    wild_aces: bool = True
    raise_: str = "quantity_or_face"
    to_aces: str = "ceil_half"
    open_on_aces: str = "never"
    exact_call: str = "none"
    pass_: bool = False
    starter: str = "loser"
    palifico: str = "once"
    palifico_face_change: str = "nobody"
    palifico_choice: bool = False
    loss: str = "one"
    cruzado: bool = False
    direction: str = "clockwise"
    lost_dice_visible: bool = True
    # Not options: the preset's table size (the boxed editions hold six cups), and who opens
    # a game: the winner of a roll-off (a record's "first"), or player 1, the first seat.
    min_players: int = 2
    max_players: int | None = 6
    first_starter: str = "roll-off"

    def options(self) -> dict[str, Any]:
        """Every option under its record name, e.g. ``{"dice": 5, "raise": ..., ...}``."""
        return {name: getattr(self, _FIELD[name]) for name in OPTIONS}

    def overrides(self) -> dict[str, Any]:
        """The options that differ from this rules' preset, as a record header lists them."""
        base = PRESETS[self.preset].options() if self.preset in PRESETS else {}
        return {k: v for k, v in self.options().items() if base.get(k, _MISSING) != v}

    def players_text(self) -> str:
        """The number of players the preset seats, e.g. ``"2-6"`` or ``"2+"``."""
        if self.max_players is None:
            return f"{self.min_players}+"
        return f"{self.min_players}-{self.max_players}"


_MISSING = object()


@dataclass(frozen=True, slots=True)
class Option:
    """One option's allowed values (a tuple, or an int range for ``dice``) and meaning."""

    name: str
    values: tuple[object, ...]
    meaning: str

    def values_text(self) -> str:
        """The allowed values as ``dudo rules`` prints them."""
        if self.name == "dice":
            return f"{self.values[0]}-{self.values[-1]}"
        return ", ".join(_show(v) for v in self.values)


def _show(value: object) -> str:
    # Options are printed the way a record's JSON spells them.
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_BOOL = (True, False)
OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        Option("dice", tuple(range(1, 11)), "dice per player at the start"),
        Option("wild_aces", _BOOL, "aces count for every face outside palifico"),
        Option("raise", ("quantity_or_face", "quantity"), "what a raise must increase"),
        Option(
            "to_aces",
            ("ceil_half", "half_plus_one"),
            "least quantity of aces over a face bid of q: ceil(q/2) or floor(q/2)+1",
        ),
        Option(
            "open_on_aces",
            ("never", "one_die"),
            "whether an opening bid may be on aces outside palifico "
            "(one_die: only by a player with one die)",
        ),
        Option(
            "exact_call",
            ("none", "calza", "spot_on", "exactomundo", "jinto"),
            "which exact call the table plays",
        ),
        Option("pass", _BOOL, "the encyclopedia's pass"),
        Option("starter", ("loser", "winner"), "who opens the next round"),
        Option(
            "palifico",
            ("none", "once", "every_time"),
            "when a player reaching one die starts a palifico round",
        ),
        Option(
            "palifico_face_change", ("nobody", "one_die"), "who may change the face in palifico"
        ),
        Option("palifico_choice", _BOOL, "the one-die player declares an open or closed round"),
        Option("loss", ("one", "difference"), "dice lost on a failed bid or doubt"),
        Option("cruzado", _BOOL, "dudo cruzado: anyone may doubt any bid out of turn"),
        Option("direction", ("clockwise", "alternating"), "direction of play each round"),
        Option("lost_dice_visible", _BOOL, "whether the page shows how many dice remain in play"),
    )
}
_FIELD = {name: {"raise": "raise_", "pass": "pass_"}.get(name, name) for name in OPTIONS}

PRESETS: dict[str, Rules] = {
    "perudo": Rules(preset="perudo"),
    "dudo": Rules(
        preset="dudo",
        open_on_aces="one_die",
        exact_call="spot_on",
        pass_=True,
        palifico_face_change="one_die",
        palifico_choice=True,
        max_players=None,
    ),
    "payroodo": Rules(
        preset="payroodo",
        to_aces="half_plus_one",
        palifico_face_change="one_die",
    ),
    "jinto": Rules(
        preset="jinto",
        dice=3,
        raise_="quantity",
        exact_call="jinto",
        starter="winner",
        palifico="every_time",
        max_players=20,
        first_starter="player 1",
    ),
}

# The exact call a preset plays when a record turns it on with ``"calza": true``.
EXACT_CALL_OPTION = {
    "perudo": "calza", "dudo": "spot_on", "payroodo": "exactomundo", "jinto": "jinto",
}  # fmt: skip

PRESET_TITLES = {
    "perudo": "the Asmodée edition as an online table plays it (default)",
    "dudo": "the encyclopedia's Dudo",
    "payroodo": "the boxed PayRoodo edition",
    "jinto": "a club's house rules, with jinto",
}


def make_rules(preset: str = "perudo", options: Mapping[str, object] | None = None) -> Rules:
    """The rules of ``preset`` with ``options`` overriding it by option name.

    An unknown preset, option name or value is a MalformedAction naming it and what is allowed.
    """
    if not isinstance(preset, str) or preset not in PRESETS:
        raise MalformedAction(f"unknown preset {shown(preset)} (presets: {', '.join(PRESETS)})")
    if options is None:
        return PRESETS[preset]
    if not isinstance(options, Mapping):
        raise MalformedAction(
            f"options must be a JSON object of option: value, not {shown(options)}"
        )
    changes: dict[str, object] = {}
    for name, value in options.items():
        if name == "calza" and type(value) is not bool:
            raise MalformedAction(
                f"option calza: unknown value {shown(value)} (values: true, false)"
            )
        if name == "calza":
            # DESIGN.md's record example spells the exact call {"calza": true}: the preset's
            # exact call (perudo: calza, payroodo: exactomundo); false: none.
            name, value = "exact_call", EXACT_CALL_OPTION[preset] if value else "none"
            said = options.get("exact_call", value)
            if said != value:
                raise MalformedAction(
                    f"options calza = {_show(options['calza'])} ({value}) and exact_call = "
                    f"{shown(said)} disagree: give one"
                )
        option = OPTIONS.get(name)
        if option is None:
            raise MalformedAction(f"unknown option {shown(name)} (options: {', '.join(OPTIONS)})")
        # 1 == True in Python: compare types too, so "dice": true is refused.
        if not any(type(value) is type(v) and value == v for v in option.values):
            raise MalformedAction(
                f"option {name}: unknown value {shown(value)} "
                f"(values: {option.values_text()})"
            )
        changes[_FIELD[name]] = value
    return dataclasses.replace(PRESETS[preset], **changes)  # type: ignore[arg-type]


def describe(rules: Rules) -> str:
    """A readable table of one set of rules: each option, its value and its meaning."""
    lines = [f"{rules.preset}: {PRESET_TITLES.get(rules.preset, '')}".rstrip(": ")]
    lines.append(f"  {'(players)':<22}{rules.players_text():<18}how many may sit at the table"
                 " (fixed by the preset, no option)")
    lines.append(f"  {'(first starter)':<22}{rules.first_starter:<18}who opens a game's first"
                 " round (fixed by the preset, no option)")
    for name, value in rules.options().items():
        lines.append(f"  {name:<22}{_show(value):<18}{OPTIONS[name].meaning}")
    return "\n".join(lines)


def overview() -> str:
    """Every preset side by side with every option and its allowed values."""
    names = list(PRESETS)
    width = max(len(n) for n in OPTIONS) + 2
    col = max(max(len(_show(v)) for r in PRESETS.values() for v in r.options().values()), 8) + 2
    lines = ['Presets (a record\'s "rules"):']
    lines += [f"  {name:<10}{PRESET_TITLES[name]}" for name in names]
    lines.append("")
    lines.append(f"{'option':<{width}}" + "".join(f"{n:<{col}}" for n in names) + "values")
    players = [PRESETS[n].players_text() for n in names]
    lines.append(f"{'(players)':<{width}}" + "".join(f"{p:<{col}}" for p in players) + "fixed")
    starters = [PRESETS[n].first_starter for n in names]
    lines.append(f"{'(first starter)':<{width}}" + "".join(f"{p:<{col}}" for p in starters)
                 + "fixed")
    for name, option in OPTIONS.items():
        row = "".join(f"{_show(PRESETS[n].options()[name]):<{col}}" for n in names)
        lines.append(f"{name:<{width}}{row}{option.values_text()}")
    lines.append("")
    lines.append("Meaning:")
    lines += [f"  {name:<{width}}{option.meaning}" for name, option in OPTIONS.items()]
    lines.append("")
    lines.append(
        'A record header\'s "options" overrides any option by name, e.g. '
        '{"rules": "perudo", "options": {"exact_call": "calza"}}; '
        "{\"calza\": true} turns on the preset's exact call (DESIGN.md's spelling)."
    )
    return "\n".join(lines)


def rules_command(args: argparse.Namespace) -> int:
    """``dudo rules [PRESET]``: print every preset and option, or one preset's options."""
    from companion.cli import print_output

    preset = getattr(args, "preset", None)
    if preset is None:
        return print_output("rules", overview())
    if preset not in PRESETS:
        print(
            f"dudo rules: unknown preset {preset!r} (presets: {', '.join(PRESETS)})",
            file=sys.stderr,
        )
        return 2
    return print_output("rules", describe(PRESETS[preset]))
