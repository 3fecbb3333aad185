"""``python -m companion.evening``: the table's memory over games, as it prints it."""

from __future__ import annotations

import re

import pytest

from companion.evening import main


@pytest.mark.slow
def test_the_evening_prints_the_table_s_memory_at_the_start_and_as_the_games_go(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--games", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    figures = r"\d+ MB resident \(peak \d+ MB\), \d+ threads, \d+ open files"
    assert re.fullmatch("start: " + figures, lines[0]), lines
    assert re.fullmatch("2 games: " + figures, lines[-2]), lines
    assert re.fullmatch(r"\d+ requests answered", lines[-1]), lines


def test_an_evening_of_no_games_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--games", "0"])
    assert "--games 0: at least one game" in capsys.readouterr().err
