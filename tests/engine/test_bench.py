"""The benchmark command plays real games through ``Game.apply`` and prints its figures."""

from __future__ import annotations

import random
import re

import pytest

from companion.bench import main, play_random_game
from companion.rules import PRESETS


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_random_benchmark_game_is_played_to_its_winner(preset: str) -> None:
    actions = play_random_game(PRESETS[preset], ["A", "B", "C", "D", "E", "F"], random.Random(3))
    assert actions > 6 * PRESETS[preset].dice


def test_the_benchmark_prints_each_run_and_the_median(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--games", "5", "--runs", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("5 random games of 6 players x 5 dice (perudo), 3 runs")
    assert [line.split(":")[0] for line in out[1:4]] == ["run 1", "run 2", "run 3"]
    assert re.fullmatch(r"median: [\d,]+ games/s, [\d,]+ actions/s.*", out[-2])
    assert re.fullmatch(r"odds of the 1,190 bids offered at a table of 200 dice: median"
                        r" [\d.]+ ms \(max [\d.]+, 5 runs\)", out[-1])
