"""A fourth audit of the referee against RULES.md: the boxed edition's partial reveal, and
jinto's exact call inside a palifico round.

Each test quotes the RULES.md line it checks; the expected outcomes are worked out by hand
from RULES.md, never copied from the engine. Scripts use the notation of ``conftest.py``.
The replay fixture ``tests/games/audit3-payroodo-partial-reveals.jsonl`` plays a whole
boxed-edition game on partial reveals.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.game import Game
from tests.engine.conftest import Script, dice_counts, refused
from tests.engine.test_rules_audit import FOUR, game_of


def reveal(**dice: str) -> dict[str, Any]:
    return {"action": "reveal", "dice": {name: [int(c) for c in f] for name, f in dice.items()}}


# -- RULES.md, Variants: "Partial reveal (boxed edition): cups are lifted one by one from the
# caller's left and counting stops once the bid is reached; the rest need not show." --------
#
# Four players, Ana bids two 5s and Ben doubts: the cups come up Caro, Dan, Ana, Ben.


@pytest.fixture
def ben_doubts_two_fives(play: Script) -> Game:
    game = game_of("payroodo", FOUR)
    play(game, "Ana 2x5; Ben dudo")
    return game


@pytest.mark.parametrize(
    ("shown", "skipped"),
    [({"Ana": "55234"}, "Caro"),
     ({"Dan": "55234"}, "Caro"),
     ({"Caro": "52234", "Ana": "56234"}, "Dan")],
    ids=["only the bidder's cup", "the second cup without the first",
         "a gap before the cup that reaches the bid"],
)  # fmt: skip
def test_partial_reveal_no_cup_on_the_callers_left_is_skipped(
    shown: dict[str, str], skipped: str, ben_doubts_two_fives: Game
) -> None:
    game = ben_doubts_two_fives
    # The dice shown reach the bid, but not from Ben's left cup by cup.
    refused(game, reveal(**shown), f"no dice for {skipped}, who has 5: .* from Ben's left")
    assert game.phase == "reveal"


@pytest.mark.parametrize(
    ("shown", "count"),
    [({"Caro": "51234"}, 2), ({"Caro": "52234", "Dan": "16234"}, 2),
     ({"Caro": "52234", "Dan": "62234", "Ana": "55234"}, 3)],
    ids=["the first cup reaches it", "the second cup reaches it", "the third cup"],
)  # fmt: skip
def test_partial_reveal_the_cups_from_the_callers_left_settle_the_doubt(
    shown: dict[str, str], count: int, ben_doubts_two_fives: Game
) -> None:
    game = ben_doubts_two_fives
    game.apply(reveal(**shown))
    # The bid stands: Ben the caller loses a die and opens the next round.
    assert dice_counts(game) == {"Ana": 5, "Ben": 4, "Caro": 5, "Dan": 5}
    assert (game.turn, game.round) == ("Ben", 2)
    assert game.state()["last_result"]["count"] == count


def test_partial_reveal_after_a_dudo_cruzado_starts_at_the_doubters_left(play: Script) -> None:
    """RULES.md, Variants: "Dudo cruzado: anyone may doubt any bid out of turn"; the cups of
    a partial reveal come up from the caller's left: Caro's left is Dan, then Ana, Ben."""
    game = game_of("payroodo", FOUR, cruzado=True)
    play(game, "Ana 2x5; Caro dudo")  # Ben is to act: Caro doubts out of turn
    refused(game, reveal(Ben="55234"), "no dice for Dan, who has 5: .* from Caro's left")
    refused(game, reveal(Ana="55234"), "no dice for Dan")
    play(game, "reveal Dan:51234")  # Dan's cup alone reaches two 5s
    assert dice_counts(game) == {"Ana": 5, "Ben": 5, "Caro": 4, "Dan": 5}
    assert game.turn == "Caro"


def test_partial_reveal_in_an_anticlockwise_round_still_starts_at_the_callers_left(
    play: Script,
) -> None:
    """RULES.md: "cups are lifted one by one from the caller's left" and "Turn passes to the
    left (clockwise)"; alternating direction reverses the play, not the reveal."""
    game = game_of("payroodo", FOUR, direction="alternating")
    play(game, "Ana 1x2; Ben dudo; reveal Ana:22222 Ben:33333 Caro:44444 Dan:66666")
    assert game.turn == "Ben"  # Ben lost; round 2 runs anticlockwise: Ben, Ana, Dan...
    play(game, "Ben 2x5; Ana dudo")
    # Ana's left is Ben: Dan (her right, next in this round's play) does not come first.
    refused(game, reveal(Dan="55234"), "no dice for Ben, who has 4: .* from Ana's left")
    play(game, "reveal Ben:5523")
    assert dice_counts(game) == {"Ana": 4, "Ben": 4, "Caro": 5, "Dan": 5}


def test_partial_reveal_in_palifico_an_ace_does_not_help_reach_the_bid(play: Script) -> None:
    """RULES.md, Palifico: "Aces are not wild"; the cups come up until the bid is reached."""
    game = game_of("payroodo", dice=2)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")  # Ana 2 -> 1: palifico
    assert game.state()["palifico"] == "Ana"
    play(game, "Ana 2x5; Ben dudo")  # cups: Caro, Ana, Ben
    # Caro's 5 and ace make one 5 in palifico: Ana's cup must come up too.
    refused(game, reveal(Caro="51"), "no dice for Ana, who has 1: the dice shown do not reach")
    play(game, "reveal Ana:5 Caro:51")
    assert dice_counts(game) == {"Ana": 1, "Ben": 1, "Caro": 2}
    assert (game.turn, game.state()["palifico"]) == ("Ben", "Ben")  # Ben's first fall


def test_dudo_replay_stops_at_a_partial_reveal_that_skips_a_cup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DESIGN.md, dudo replay: "An illegal ... action stops the replay: exit status 2 and a
    one-line message on stderr that names the line number and the reason"."""
    lines = [
        '{"game": "dudo-record/1", "rules": "payroodo", "players": ["Ana", "Ben", "Caro"]}',
        '{"action": "bid", "player": "Ana", "quantity": 2, "face": 5}',
        '{"action": "dudo", "player": "Ben"}',
        '{"action": "reveal", "dice": {"Ana": [5, 5, 2, 3, 4]}}',
    ]
    record = tmp_path / "game.jsonl"
    record.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(record)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("line 4: reveal shows no dice for Caro, who has 5")


# -- RULES.md, jinto: "the next player. Exact: the caller takes one die from the bidder
# (bidder -1, caller +1, no cap) ... The winner starts next." in a palifico round ----------


def test_jinto_in_palifico_counts_aces_as_aces_and_may_take_the_palifico_players_last_die(
    play: Script,
) -> None:
    """RULES.md, Palifico: "Aces are not wild"; jinto: "the caller takes one die from the
    bidder"; the house: "next round starts with winner of the round"."""
    game = game_of("jinto", dice=2)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")  # Ana's palifico
    # One 3 exactly: Ben's ace is no 3 in palifico (wild, there would be two).
    play(game, "Ana 1x3; Ben calza; reveal Ana:3 Ben:61 Caro:66")
    assert dice_counts(game) == {"Ana": 0, "Ben": 3, "Caro": 2}
    state = game.state()
    assert state["last_result"]["success"] is True
    assert (game.turn, state["palifico"], state["aces_wild"]) == ("Ben", None, True)


def test_jinto_taking_the_bidder_to_one_die_in_a_palifico_round_makes_the_next_theirs(
    play: Script,
) -> None:
    """RULES.md, palifico trigger (jinto): "every time a player goes 2 -> 1"; opener: "the
    one-die player, even though winners normally start"."""
    game = game_of("jinto", dice=2)
    play(game, "Ana 1x2; Ben dudo; reveal Ana:66 Ben:66 Caro:66")  # Ana's palifico
    # Two 3s exactly (Caro's ace does not count): Caro takes a die from Ben, 2 -> 1.
    play(game, "Ana 1x3; Ben 2x3; Caro calza; reveal Ana:3 Ben:34 Caro:16")
    assert dice_counts(game) == {"Ana": 1, "Ben": 1, "Caro": 3}
    state = game.state()
    assert (game.turn, state["palifico"], state["aces_wild"]) == ("Ben", "Ben", False)
    game.check({"action": "bid", "player": "Ben", "quantity": 1, "face": 1})  # aces may open
