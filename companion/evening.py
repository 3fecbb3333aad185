"""``python -m companion.evening [--games 60] [--seed N]``: the table's memory over an evening.

Starts ``dudo serve --sim`` as the crash test does (``companion.crashtest``: a fresh data
directory, a short cups-up wait) and plays its scripted games through the HTTP API, the
simulated camera photographing and reading every reveal it can, with nobody killing it.
Prints the server's resident memory, its peak, its threads and open files at the start and
after each tenth of the games: what a Pi must hold for an evening at the table.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from companion.crashtest import Companion, Player


def figures(pid: int) -> str:
    """The process's resident memory and its peak (MB), threads and open files, in words."""
    status = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    rss, peak = (int(status[key].split()[0]) / 1024 for key in ("VmRSS", "VmHWM"))
    files = len(list(Path(f"/proc/{pid}/fd").iterdir()))
    return (f"{rss:.0f} MB resident (peak {peak:.0f} MB), {status['Threads'].strip()} threads,"
            f" {files} open files")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.evening", description=__doc__)
    parser.add_argument("--games", type=int, default=60, help="games to play (60)")
    parser.add_argument("--seed", type=int, default=1, help="the random seed (1)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games {args.games}: at least one game")
    with tempfile.TemporaryDirectory(prefix="dudo-evening-") as tmp:
        companion = Companion(Path(tmp) / "data", args.seed, Path(tmp) / "serve.log")
        player = Player(random.Random(args.seed))
        try:
            client = companion.start()
            assert companion.process is not None
            pid = companion.process.pid
            print(f"start: {figures(pid)}", flush=True)
            step = max(1, args.games // 10)
            while player.games <= args.games:  # the next game started: the last one is over
                started = player.games
                player.step(client)
                finished = player.games - 1
                if player.games != started and finished and finished % step == 0:
                    print(f"{finished} games: {figures(pid)}", flush=True)
            print(f"{player.acknowledged} requests answered")
        finally:
            companion.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
