"""The ``dudo`` command: one subcommand per tool, each implemented in its own module.

Every handler is imported only when its subcommand runs, so ``dudo replay`` never loads
OpenCV and ``dudo scan`` never loads Flask.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import sys
from collections.abc import Sequence

# subcommand -> "module:function"; the function takes the parsed namespace, returns an exit code.
HANDLERS = {
    "replay": "companion.record:replay_command",
    "rules": "companion.rules:rules_command",
    "scan": "companion.cli:scan_command",
    "calibrate": "companion.cli:calibrate_command",
    "serve": "companion.serve:serve_command",
    "panel-test": "companion.cli:panel_test_command",
}


# The commit systemd/install.sh built a venv from, beside its Python (``dudo --version``).
COMMIT_FILE = "dudo-commit"


def installed_version() -> str:
    """``dudo-companion 0.1.0 (commit 1a2b3c4 2026-12-03)``: the package's version, and the
    commit systemd/install.sh built this venv from, where it wrote it down."""
    from importlib import metadata
    from pathlib import Path

    said = f"dudo-companion {metadata.version('dudo-companion')}"
    commit = Path(sys.prefix) / COMMIT_FILE
    with contextlib.suppress(OSError):
        said += f" (commit {commit.read_text(encoding='utf-8').strip()})"
    return said


class _Version(argparse.Action):
    """``--version``: what is installed, worked out only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0,
                         help="print the version installed (and its commit) and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(installed_version())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dudo", description="A referee for a real game of Perudo / Dudo / Liar's Dice."
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("replay", help="replay a game record and print the final state")
    p.add_argument("record", metavar="GAME.jsonl")
    p.add_argument("--json", action="store_true", help="print the state as one JSON object")

    p = sub.add_parser("rules", help="print the rule presets and every option")
    p.add_argument("preset", nargs="?", metavar="PRESET",
                   help="one preset's options (default: every preset)")

    p = sub.add_parser("scan", help="read the dice in photographs")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--view", choices=["above", "below"],
                   help="photographed from under the glass (a face is 7 - pips) or from above"
                        " (a face is its pips); default: the config's [camera] view, else"
                        " below")
    p.add_argument("--json", action="store_true", help="one JSON object per image, a line each")
    p.add_argument("--annotate", metavar="DIR", help="write annotated images to DIR")
    p.add_argument("--config", metavar="FILE",
                   help="TOML config ([vision]; with --expect, [seats] and [colours] too)")
    p.add_argument("--expect", metavar="PLAYER=DICE", action="append",
                   help="the dice a player must show, each player in seat order (give it once"
                        " for each): every die is given to a player by the config's [colours]"
                        " or [seats], as at the table, and what disagrees is said")

    p = sub.add_parser("calibrate", help="calibrate the camera under the glass")
    p.add_argument("--config", metavar="FILE", default=None,
                   help="TOML config to write (default: dudo.toml in this folder; the service"
                        " reads /etc/dudo-companion/config.toml)")
    p.add_argument("--source", default=None,
                   help="frame source: picamera2, device:N or device:PATH, folder:DIR or sim,"
                        " written to the config as the table's camera (without it: the"
                        " photographs of --empty and --dice)")
    p.add_argument("--empty", metavar="IMAGE", help="a photograph of the empty glass")
    p.add_argument("--dice", metavar="IMAGE", help="a photograph with dice on the glass")
    p.add_argument("--seats", type=int, default=0,
                   help="seat zones to mark, 1-20 equal sectors (default 0: keep the config's)")

    p = sub.add_parser("serve", help="run the companion: referee, page and table hardware")
    p.add_argument("--sim", action="store_true", help="mock pins and a simulated camera")
    p.add_argument("--pin", metavar="PIN",
                   help="the table PIN (default: the config's, else a random one)")
    p.add_argument("--host", default=None,
                   help="address to listen on (default: the config's, else 0.0.0.0)")
    p.add_argument("--port", type=int, default=None,
                   help="port to listen on (default: the config's, else 8080)")
    p.add_argument("--data", metavar="DIR", default=None,
                   help="data directory, the journal (default: the config's, else $DUDO_DATA,"
                        " else ~/.local/share/dudo-companion)")
    p.add_argument("--config", metavar="FILE", default=None,
                   help="TOML config (the options above, given, win over it; default: none,"
                        " not even the dudo.toml dudo calibrate writes)")
    p.add_argument("--seed", type=_seed, default=None,
                   help="repeatable simulated rolls (for tests: whoever knows N knows every roll)")

    p = sub.add_parser("panel-test", help="check the table's wiring on a real Pi")
    p.add_argument("--config", metavar="FILE", default=None,
                   help="TOML config with [pins] (default: none, the default pin map)")
    p.add_argument("--mock", action="store_true", help="run on gpiozero's mock pins")
    return parser


def _seed(text: str) -> int:
    """A ``--seed``: a whole number from 0 (argparse names the option in its message)."""
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if seed < 0:
        raise argparse.ArgumentTypeError(f"{text}: a seed is a whole number from 0")
    return seed


# The commands whose output is what they are run for: with it closed, they do not run.
_OUTPUT_IS_THE_POINT = ("scan", "replay", "rules")


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    help_text = io.StringIO()  # argparse would drop it, unsaid, where it cannot be written
    try:
        with contextlib.redirect_stdout(help_text):
            args = build_parser().parse_args(argv)
    except SystemExit as done:  # --help (its text is the output), or a usage error on stderr
        code = done.code if isinstance(done.code, int) else 2
        if not help_text.getvalue():
            return code
        asked = f"{argv[0]} --help" if argv and argv[0] in HANDLERS else "--help"
        return _help_written(asked, help_text.getvalue())
    module_name, function_name = HANDLERS[args.command].split(":")
    handler = getattr(importlib.import_module(module_name), function_name)
    if sys.stderr is None:  # started with `2>&-`: print(file=None) would write to stdout
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (for the whole run)
    if sys.stdout is None and args.command in _OUTPUT_IS_THE_POINT:  # `dudo scan x.jpg >&-`
        print(f"dudo {args.command}: the standard output is closed", file=sys.stderr)
        return 2
    for stream in (sys.stdout, sys.stderr):  # a player's name the terminal cannot show
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        code = int(handler(args))
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 0  # `dudo scan *.jpg | head`: the reader has what it wanted
    try:
        return _output_written(args.command, code, args.command in _OUTPUT_IS_THE_POINT)
    except KeyboardInterrupt:  # Ctrl-C as the last lines are written: the command is done
        return 130


def _help_written(asked: str, text: str) -> int:
    """0 once ``dudo ASKED`` (``--help``, ``scan --help``) has printed ``text``, its help;
    2 and one line on stderr where the standard output is closed or cannot take it."""
    if sys.stdout is None:  # `dudo --help >&-`
        print(f"dudo {asked}: the standard output is closed", file=sys.stderr)
        return 2
    try:
        code = print_output(asked, text.removesuffix("\n"))
    except BrokenPipeError:
        code = 0  # `dudo --help | head`: the reader has what it wanted
    return _output_written(asked, code, output_is_the_point=True)


def _output_written(command: str, code: int, output_is_the_point: bool) -> int:
    """``code``, once what the command printed is written; where it cannot be (a full disk,
    a reader gone), what is left goes nowhere (``vision.output.discard_output``), and a
    command whose output is the point, which had not said so, says it."""
    from vision.output import flush_output

    failed = flush_output()
    if failed is None or isinstance(failed, BrokenPipeError):
        return code
    if code == 0 and output_is_the_point:
        return _cannot_write(command, failed.strerror or str(failed))
    return code


def print_output(command: str, text: str) -> int:
    """Print ``text``, what ``dudo COMMAND`` is run for: 0, or 2 and one line on stderr where
    the standard output cannot take it (a full disk). A reader gone (`| head`) raises
    BrokenPipeError, which ends the command quietly (``main``)."""
    from vision.output import print_output as printed

    return printed(f"dudo {command}", text)


def _cannot_write(command: str, reason: str) -> int:
    """Say, on stderr, that the output could not be written; the status to exit with (2)."""
    from vision.output import cannot_write

    return cannot_write(f"dudo {command}", reason)


def _config_refused(command: str, path: str | None) -> bool:
    """Whether a config given is one ``dudo serve`` would refuse at start (a table misspelt,
    ``[colors]``, ``[gpio]``), said on stderr."""
    from pathlib import Path

    from companion.config import load_config

    if path and Path(path).is_file():
        try:
            load_config(path)
        except ValueError as err:
            print(f"dudo {command}: {err}", file=sys.stderr)
            return True
    return False


def scan_command(args: argparse.Namespace) -> int:
    """``dudo scan`` (vision's), once a config given is read as ``dudo serve`` reads it: a
    table misspelt is said, not passed over (the scan said only that the config had no
    ``[colours]``)."""
    from vision.scan import scan_command as scan

    return 2 if _config_refused("scan", args.config) else int(scan(args))


def panel_test_command(args: argparse.Namespace) -> int:
    """``dudo panel-test`` (hardware's), once a config given is read as ``dudo serve`` reads
    it: a pins table misnamed is said, not passed over for the default panel's wiring, which
    the table would then refuse to start with."""
    from hardware.panel_test import panel_test_command as panel_test

    return 2 if _config_refused("panel-test", args.config) else int(panel_test(args))


def calibrate_command(args: argparse.Namespace) -> int:
    """``dudo calibrate`` (vision's), once the config's other tables are read as ``dudo
    serve`` reads them at start: a mistake in one is said now, and nothing is written, not
    a calibration the table's service would then refuse to start with."""
    from pathlib import Path

    from companion.config import load_config
    from hardware.pins import pin_map_from_config
    from vision.calibrate import DEFAULT_CONFIG
    from vision.calibrate import calibrate_command as calibrate
    from vision.calibration import load_calibration
    from vision.config import load_config as load_reader_config

    path = Path(args.config or DEFAULT_CONFIG)
    if path.is_file():
        try:
            load_config(path)
            pin_map_from_config(path)
            load_calibration(path)
            load_reader_config(path)
        except ValueError as err:
            print(f"dudo calibrate: {err}: mend it first, or the table would not start with"
                  f" it; nothing written to {path}", file=sys.stderr)
            return 2
    return int(calibrate(args))


if __name__ == "__main__":
    sys.exit(main())
