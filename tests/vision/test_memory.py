"""``python -m vision.memory``: the reader's resident memory over many reveals, as it prints
it (the figures themselves are read off a run of the command, not tested)."""

from __future__ import annotations

import re

import pytest

from vision.memory import main


def test_the_memory_bench_prints_the_start_each_tenth_and_the_growth(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--reads", "20"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"start: \d+ MB resident", lines[0]), lines
    assert [line.split(":")[0] for line in lines[1:-1]] == [f"{n} reads" for n in range(2, 21, 2)]
    assert all(re.fullmatch(r"\d+ reads: \d+ MB resident", line) for line in lines[1:-1])
    assert re.fullmatch(r"grown since the first tenth: [+-]\d+ MB \(peak \d+ MB\)", lines[-1])


def test_fewer_than_ten_reads_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--reads", "9"])
    assert "--reads 9: at least 10" in capsys.readouterr().err
