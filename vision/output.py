"""The standard output of a command whose output is the point (``dudo scan``, ``dudo replay``,
``python -m vision.evaluate``): written whole, or one line on stderr saying why not."""

from __future__ import annotations

import contextlib
import os
import sys


def print_output(command: str, text: str) -> int:
    """Print ``text``, what ``command`` is run for, and flush it: 0, or 2 and one line on
    stderr where the standard output cannot take it (a full disk). A reader gone (`| head`)
    raises BrokenPipeError, which ends the command quietly."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        raise
    except OSError as err:
        discard_output()
        return cannot_write(command, err.strerror or str(err))
    return 0


def cannot_write(command: str, reason: str) -> int:
    """Say, on stderr, that ``command``'s output could not be written; the status to exit
    with (2)."""
    with contextlib.suppress(OSError):  # stderr may take nothing either
        print(f"{command}: cannot write the output: {reason}", file=sys.stderr)
    return 2


def flush_output() -> OSError | None:
    """Flush the standard output: None once what was printed is written (or there is no
    standard output), else why not (BrokenPipeError: its reader gone), what is left then
    sent nowhere (``discard_output``)."""
    try:
        if sys.stdout is not None and not sys.stdout.closed:
            sys.stdout.flush()
        return None
    except OSError as err:
        discard_output()
        return err


def discard_output() -> None:
    """Send what the standard output still holds, and all printed to it, nowhere.

    Python writes the standard output's buffer once more as it exits: where that fails it
    says so on stderr ("Exception ignored ...") and exits with status 120, after the command
    has given its own message and status. (With PYTHONUNBUFFERED set nothing is left to
    write, which is why a terminal may never show it.) A closed stream Python leaves alone.
    """
    with contextlib.suppress(OSError, ValueError, AttributeError):  # closed, or None
        nowhere = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(nowhere, sys.stdout.fileno())
        finally:
            os.close(nowhere)
