"""``python -m companion.bench``: random full games per second on one core.

Each game seats 6 players with 5 dice (by default) and is played to its winner through the
public ``Game.apply`` with its full validation: random bids (mostly a raise of one on the
same face, sometimes a new face, sometimes aces), dudo more likely as the bid nears the
dice in play, the table's exact call now and then, and reveals of random dice. Prints each
run and the median of the runs; then how long the odds of every bid the page offers take
on a table of 200 dice (20 players x 10), none known before (as at each round's start).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence

from companion import odds
from companion.bidding import aces_needed
from companion.errors import IllegalAction
from companion.game import Game
from companion.rules import PRESETS, Rules, make_rules


def roll(rnd: random.Random, n: int) -> list[int]:
    """``n`` fair dice: random bytes below 252 (= 6 x 42) taken modulo 6, others redrawn.

    About twice as fast as ``rnd.choices`` for the bench's one roll per reveal.
    """
    faces: list[int] = []
    while len(faces) < n:
        faces += [b % 6 + 1 for b in rnd.randbytes(n - len(faces)) if b < 252]
    return faces


def play_random_game(rules: Rules, names: Sequence[str], rnd: random.Random) -> int:
    """Play one game to its winner with random legal actions; return the actions applied."""
    game = Game(rules, names)
    apply = game.apply
    random_ = rnd.random
    exact = rules.exact_call != "none"
    actions = 0
    while True:
        # The dice in play and the wild aces change only between rounds.
        in_play, wild = game.dice_in_play, game.aces_wild
        q, f = int(random_() * (in_play // 3 + 1)) + 1, int(random_() * 5) + 2
        apply({"action": "bid", "player": game.turn, "quantity": q, "face": f})
        actions += 1
        while True:
            player = game.turn
            if random_() < 2.0 * q / in_play - 0.35:
                apply({"action": "dudo", "player": player})
                break
            if exact and random_() < 0.05 and _try(game, {"action": "calza", "player": player}):
                break
            if wild and f != 1 and random_() < 0.1:
                q, f = aces_needed(rules, q), 1
            elif wild and f == 1:
                q, f = 2 * q + 1, int(random_() * 5) + 2
            elif wild and random_() < 0.4:
                q, f = q + 1, int(random_() * 5) + 2
            else:
                q += 1
            apply({"action": "bid", "player": player, "quantity": q, "face": f})
            actions += 1
        # One roll of every die under the cups, then each player's share of it.
        expected = game.expected_dice()
        faces = roll(rnd, sum(expected.values()))
        shown, start = {}, 0
        for name, n in expected.items():
            shown[name] = faces[start : start + n]
            start += n
        apply({"action": "reveal", "dice": shown})
        actions += 2
        if game.phase == "over":
            return actions


def _try(game: Game, action: dict[str, str | None]) -> bool:
    try:
        game.apply(action)
    except IllegalAction:
        return False  # this exact call is not this player's to make now
    return True


def run(rules: Rules, games: int, players: int, seed: int) -> tuple[float, float, int]:
    """Play ``games`` random games: (wall seconds, CPU seconds of this process, actions)."""
    rnd = random.Random(seed)
    names = [f"P{i + 1}" for i in range(players)]
    wall, cpu = time.perf_counter(), time.process_time()
    actions = sum(play_random_game(rules, names, rnd) for _ in range(games))
    return time.perf_counter() - wall, time.process_time() - cpu, actions


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.bench", description=__doc__)
    parser.add_argument("--rules", default="perudo", choices=list(PRESETS))
    parser.add_argument("--games", type=int, default=1000, help="games per run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--dice", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rules = make_rules(args.rules, {"dice": args.dice})
    games, wall_rates, cpu_rates, action_rates = args.games, [], [], []
    print(
        f"{games} random games of {args.players} players x {args.dice} dice "
        f"({args.rules}), {args.runs} runs, one core"
    )
    for i in range(args.runs):
        wall, cpu, actions = run(rules, games, args.players, args.seed + i)
        wall_rates.append(games / wall)
        cpu_rates.append(games / cpu if cpu else 0.0)
        action_rates.append(actions / wall)
        print(
            f"run {i + 1}: {wall:.3f} s, {games / wall:,.0f} games/s, {actions / wall:,.0f} "
            f"actions/s ({actions / games:.1f} actions a game); "
            f"by CPU time {cpu_rates[-1]:,.0f} games/s"
        )
    # Wall time is what a table would see; CPU time leaves out other processes sharing
    # the core, so the two differ on a busy machine.
    print(
        f"median: {statistics.median(wall_rates):,.0f} games/s, "
        f"{statistics.median(action_rates):,.0f} actions/s "
        f"(by CPU time {statistics.median(cpu_rates):,.0f} games/s)"
    )
    bids, times = odds_of_every_bid()
    print(f"odds of the {bids:,} bids offered at a table of 200 dice: median"
          f" {statistics.median(times) * 1000:.1f} ms (max {max(times) * 1000:.1f},"
          f" {len(times)} runs)")
    return 0


def odds_of_every_bid(runs: int = 5) -> tuple[int, list[float]]:
    """The bids offered after an opening bid at a jinto table of 20 players x 10 dice, and
    the seconds their odds took in each run, nothing cached before."""
    names = [f"P{i + 1}" for i in range(20)]
    game = Game.from_header({"game": "dudo-record/1", "rules": "jinto",
                             "options": {"dice": 10}, "players": names})
    game.apply({"action": "bid", "player": names[0], "quantity": 2, "face": 3})
    bids = game.legal_bids()
    times = []
    for _ in range(runs):
        odds._at_least.cache_clear()
        odds._tails.cache_clear()
        start = time.perf_counter()
        for bid in bids:
            odds.bid_odds(game, bid.quantity, bid.face)
        times.append(time.perf_counter() - start)
    return len(bids), times


if __name__ == "__main__":
    sys.exit(main())
