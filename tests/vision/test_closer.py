"""Close views: windows of a labelled folder where the dice are larger, with their labels."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.closer import main
from vision.evaluate import load_labels

from .conftest import DEV


def test_close_views_show_the_dice_at_the_share_asked_with_their_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "dev"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    names = sorted(p.name for p in (DEV / "images").glob("*.jpg"))[:4]
    for name in names:
        shutil.copy(DEV / "images" / name, folder / "images")
        shutil.copy(DEV / "labels" / (name[:-4] + ".txt"), folder / "labels")
    out = tmp_path / "close"
    assert main([str(folder), "0.15", str(out)]) == 0
    written = sorted(p.name for p in (out / "images").iterdir())
    assert f"{len(written)} close views written" in capsys.readouterr().out
    assert len(written) >= 3 and set(written) <= set(names)
    for name in written:
        whole = load_labels(DEV / "labels" / (name[:-4] + ".txt"), 640, 640, "above")
        close = load_labels(out / "labels" / (name[:-4] + ".txt"), 640, 640, "above")
        assert 0 < len(close) <= len(whole)
        assert {d.face for d in close} <= {d.face for d in whole}
        # The window is set by the median die of the whole photograph.
        assert np.median([d.size for d in close]) / 640 == pytest.approx(0.15, rel=0.25)
        assert all(d.size / 2 <= d.x <= 640 - d.size / 2 for d in close)


@pytest.mark.parametrize("share", ["0", "0.9", "x"])
def test_a_share_out_of_range_is_refused(tmp_path: Path, share: str) -> None:
    with pytest.raises(SystemExit) as stop:
        main([str(DEV), share, str(tmp_path / "close")])
    assert stop.value.code == 2
    assert not (tmp_path / "close").exists()
