"""The reader reads the simulated camera under the glass: every face, colour and trouble.

A degraded frame (dark, overexposed, blurred, glare, noise) may make the reader unsure,
but it must never be confidently wrong: every die is either read right or flagged doubtful.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision.bench import large_frames
from vision.config import ReaderConfig
from vision.evaluate import LabelledDie, score_image
from vision.reader import Reading, read_dice
from vision.simscore import COLOURS, tally
from vision.simulate import ACE_SYMBOLS, Scene, render_dice


def score(scene: Scene, reading: Reading):  # type: ignore[no-untyped-def]
    labels = [LabelledDie(d.face, d.x, d.y, d.size) for d in scene.dice]
    return score_image("sim", labels, reading)


def faces_for(seed: int, count: int) -> list[int]:
    return [int(f) for f in np.random.default_rng(seed).integers(1, 7, count)]


@pytest.mark.parametrize("colour", COLOURS)
def test_every_face_of_every_colour_is_read_from_below(colour: str) -> None:
    faces = [1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]
    scene = render_dice(faces, colours=colour, seed=COLOURS.index(colour), width=960,
                        height=720, die_size=48)
    reading = read_dice(scene.image, view="below")
    result = score(scene, reading)
    assert reading.counts == scene.counts, result.errors
    assert result.confident_errors == 0, result.errors


@pytest.mark.parametrize("pips", ["white", "black", "red"])
def test_pips_of_any_colour_are_counted(pips: str) -> None:
    faces = faces_for(11, 10)
    body = "white" if pips != "white" else "blue"
    scene = render_dice(faces, colours=body, pip_colours=pips, seed=5, width=960, height=720)
    reading = read_dice(scene.image, view="below")
    assert reading.counts == scene.counts, score(scene, reading).errors


def test_a_black_die_s_two_red_pips_are_never_read_surely_as_one() -> None:
    # Black dice with red pips, their size given a little under their side (as `dudo
    # calibrate` may measure such dice): the locator boxed one pip of a 2 alone, read surely
    # as an ace (a 6 from below) in 15 of 60 frames before (session 93's audit).
    wrong = 0
    for seed in range(70000, 70013):
        scene = render_dice(faces_for(seed, 12), colours="black", pip_colours="red", seed=seed,
                            die_size=48.0)
        reading = read_dice(scene.image, ReaderConfig(die_size=45.0), view="below")
        wrong += score(scene, reading).confident_errors
    assert wrong == 0


def test_seen_from_above_the_face_is_the_pips() -> None:
    scene = render_dice(faces_for(4, 12), colours="red", seed=4, view="above")
    reading = read_dice(scene.image, view="above")
    assert reading.counts == scene.counts, score(scene, reading).errors


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_touching_dice_are_told_apart(seed: int) -> None:
    faces = faces_for(seed, 16)
    colours = ["red"] * 8 + ["white"] * 8
    scene = render_dice(faces, colours=colours, seed=seed, touching_pairs=8)
    reading = read_dice(scene.image, view="below")
    assert reading.total == 16, score(scene, reading).errors
    assert reading.counts == scene.counts, score(scene, reading).errors


def test_touching_pairs_are_told_apart_nearly_always() -> None:
    # Today's level over simscore's 10 frames of 8 touching pairs: 160/160 dice, 10 frames
    # exact. (Two dice pushed together come out of the locator too large and too close: only
    # half a die of the photograph's own size keeps them apart.)
    t = tally("touching")
    assert t.right >= 0.98 * t.dice and t.exact >= 9, t.errors


def test_mixed_reveals_are_read_nearly_die_for_die() -> None:
    # Today's level over 24 mixed reveals (colours, sizes, glass, light, blur, translucent
    # dice, touching pairs; 288/288 dice, 24 exact), so that no change makes the reader
    # worse unnoticed.
    t = tally("mixed")
    assert t.right >= 0.98 * t.dice and t.exact >= 21, t.errors


def test_the_few_dice_left_at_the_end_of_a_game_are_read_nearly_always() -> None:
    # Today's level over simscore's 48 reveals of one or two dice, no die size given (72/72
    # dice, 48 exact; 66 and 44 while a lamp's glare could set the scale, and 69 and 46
    # while a translucent die could pass for a cluster of small dice, below).
    t = tally("few")
    assert t.right >= 0.98 * t.dice and t.exact >= 47, t.errors


@pytest.mark.parametrize(("share", "side"), [(0.5, 640), (0.65, 640), (0.8, 640), (0.95, 640),
                                           (0.8, 2560)])
def test_one_die_filling_most_of_a_photograph_taken_close_is_read(share: float, side: int) -> None:
    # A phone held right over one die: the die half the photograph's side or more, sharp.
    # Rendered at 380 px (a third of the frame, the simulator's largest), cut out so that it
    # is ``share`` of the side, as a photograph ``side`` px across, once for each face and
    # colour (at 2560 px, a die of 2,048 px: looked for in the photograph shrunk). Looked
    # for at most a quarter of the side (and shrunk to no less than 48 px), the die went
    # unseen or was read as its pips: none of these photographs was read right at any of
    # these shares (docs/dice-reader-log.md, "Photographs taken closer still").
    import cv2

    right = 0
    for seed, colour in enumerate(COLOURS):
        scene = render_dice([seed % 6 + 1], colours=colour, seed=seed, width=1200,
                            height=1200, die_size=380)
        die = scene.dice[0]
        window = int(die.size / share)
        x0 = int(np.clip(die.x - window / 2, 0, 1200 - window))
        y0 = int(np.clip(die.y - window / 2, 0, 1200 - window))
        photo = cv2.resize(scene.image[y0 : y0 + window, x0 : x0 + window], (side, side),
                           interpolation=cv2.INTER_AREA if side < window else cv2.INTER_CUBIC)
        reading = read_dice(photo, view="below")
        right += reading.counts == scene.counts
    assert right >= len(COLOURS) - 1, right  # all 8 at each share


@pytest.mark.parametrize("seed", [50, 187, 202, 235, 238, 250])
def test_ace_dice_far_apart_are_not_taken_for_the_pips_of_one_die(seed: int) -> None:
    # Two to four dice, each showing an ace to a camera above, 24-150 px, far apart (or a
    # pair touching) on the dark, light or grey glass, no die size given: each ace read
    # surely, the close-up looks for a die 3.5, 2.5 and 6 times an ace, and one look found
    # two aces and the glass between them as one die showing two or four pips, read surely.
    # A die has an outline all round it; the glass between two dice has none.
    rng = np.random.default_rng(seed)
    count = 2 + seed % 3
    size = float(np.exp(rng.uniform(np.log(24), np.log(150))))
    width, height = (640, 480) if seed % 2 else (960, 720)
    scene = render_dice([1] * count, colours=[COLOURS[(i + seed) % 8] for i in range(count)],
                        seed=seed, width=width, height=height,
                        die_size=min(size, height / (2.2 + count)),
                        background=("dark", "light", "grey")[seed % 3], view="above",
                        touching_pairs=1 if seed % 4 == 0 else 0)
    reading = read_dice(scene.image, view="above")
    assert [d.face for d in reading.dice] == [1] * count, reading.dice


@pytest.mark.parametrize("seed", [10, 22])
def test_a_die_and_its_pips_seen_in_one_look_are_one_die(seed: int) -> None:
    # A black 5 seen from below (two white pips) on the grey glass, 40% of a close
    # photograph's side: the look that finds the die also finds its two pips, each read
    # surely as an ace; one or both were counted as more dice. No die lies inside another.
    import cv2

    scene = render_dice([5], colours="black", seed=seed, width=1200, height=1200,
                        die_size=220, background="grey")
    die = scene.dice[0]
    window = int(die.size / 0.4)
    x0 = int(np.clip(die.x - window / 2, 0, 1200 - window))
    y0 = int(np.clip(die.y - window / 2, 0, 1200 - window))
    photo = cv2.resize(scene.image[y0 : y0 + window, x0 : x0 + window], (640, 640),
                       interpolation=cv2.INTER_AREA)
    reading = read_dice(photo, view="below")
    assert [d.face for d in reading.dice] == [5], reading.dice


def test_a_translucent_die_is_no_cluster_of_smaller_dice() -> None:
    # Looked at twice as close, as a cluster of small dice is, each of these dice breaks into
    # the pips that show through it, as a cluster breaks into its dice; both were missed.
    # The face reader reads each surely as one die: no cluster.
    scene = render_dice([1, 3], colours=["green", "blue"], seed=35, die_size=62.0,
                        translucent=True)
    result = score(scene, read_dice(scene.image, view="below"))
    assert result.exact and result.confident_errors == 0, result.errors


@pytest.mark.parametrize(
    ("faces", "colour", "size", "seed"), [([2], "purple", 40.7, 38), ([5, 1], "green", 38.0, 3)]
)
def test_a_lamp_s_glare_on_light_glass_is_no_die_to_set_the_scale_by(
    faces: list[int], colour: str, size: float, seed: int
) -> None:
    # The glare's blobs are the size of dice a coarse look sees whole; the one or two dice on
    # the table are not. Taken for dice, the blobs set the scale, and the dice, read at
    # twice their size, came out as 6s.
    scene = render_dice(faces, colours=colour, seed=seed, die_size=size, background="light")
    result = score(scene, read_dice(scene.image, view="below"))
    assert result.exact and result.confident_errors == 0, result.errors


def test_a_black_die_seen_only_by_its_pips_is_read_as_one_die() -> None:
    # simscore's first black frame: the 5 at (515, 240) shows two white pips on a black body
    # on the dark glass, and the locator takes each pip for a small die of its own.
    scene = render_dice([1, 2, 3, 4, 5, 6] * 2, colours="black", seed=0, width=960,
                        height=720, die_size=48)
    truth = next(d for d in scene.dice if abs(d.x - 515) < 5 and abs(d.y - 240) < 5)
    reading = read_dice(scene.image, view="below")
    there = [d for d in reading.dice if np.hypot(d.x - truth.x, d.y - truth.y) < truth.size]
    assert [d.face for d in there] == [5], there


@pytest.mark.parametrize(("frame", "x", "y", "face"), [(10, 826, 587, 3), (1, 1858, 273, 1)])
def test_a_black_die_seen_whole_and_in_pieces_is_read_once(
    frame: int, x: int, y: int, face: int
) -> None:
    # The bench's big frames (vision.bench.large_frames), on the dark glass: frame 10's black
    # 3 is seen as two pips and a larger piece; the pips, joined, were read as the 3, the
    # piece (0.43 of a die from their middle) surely as a 5. Frame 1's black ace is seen whole
    # and as a piece beside it, read as a second ace.
    scene = large_frames(frame + 1)[frame]
    truth = next(d for d in scene.dice if abs(d.x - x) < 5 and abs(d.y - y) < 5)
    reading = read_dice(scene.image, view="below")
    there = [d for d in reading.dice
             if np.hypot(d.x - truth.x, d.y - truth.y) < 0.6 * truth.size and d.colour == "black"]
    assert [d.face for d in there] == [truth.face] == [face], there
    assert reading.counts == scene.counts


def test_black_dice_on_the_dark_glass_are_read_nearly_die_for_die() -> None:
    # Today's level over simscore's 8 frames of 12 black dice: 96/96 dice, 8 frames exact
    # (95/96 and 7 before each net also looked in the mirror); with the previous locator
    # 92/96 and 3, and without joining split dice, 76/96 and none.
    t = tally("black")
    assert t.right >= 0.97 * t.dice and t.exact >= 6, t.errors


def test_large_frames_of_thirty_dice_are_read_nearly_die_for_die() -> None:
    # Today's level over the 20 frames of 2028x1520 (the camera's half-resolution still),
    # 30 dice each, some touching: 597/600 dice and 17 frames exact (a black die on the dark
    # glass is now and then seen as a die and a piece of it, or read wrong).
    t = tally("large")
    assert t.right >= 0.98 * t.dice and t.exact >= 16, t.errors


# Not yet: the sun (a disc ringed with twelve short rays) seen from above is still read as a 3
# or a 4 now and then, some confidently (from below it is read right since session 20); a big
# pip from above is now and then not taken for a die at all, or read doubtfully as a 5
# (simscore big-pip: 234/240 dice, none of the misreads sure). In both, the locator takes the
# big symbol for the whole die (session 37, the log).
_NOT_YET = pytest.mark.xfail(strict=True, reason="this ace is not yet read surely")
_ACES_NOT_YET = {("sun", "above"), ("big pip", "above")}
# (In the roundel frame seen from above, a black 2 on the dark glass, split into a lone pip
# and a 2, was read twice until session 24: the pip is now dropped as a piece of the 2.)


def _marked(ace: str, view: str) -> object:
    if (ace, view) in _ACES_NOT_YET:
        return pytest.param(ace, view, marks=_NOT_YET)
    return (ace, view)


@pytest.mark.parametrize(
    ("ace", "view"), [_marked(ace, view) for ace in ACE_SYMBOLS for view in ("below", "above")]
)
def test_a_set_s_ace_symbol_is_read_as_an_ace(ace: str, view: str) -> None:
    # Perudo sets print the ace as a paco (a star, a bird, a head), other sets as one big pip:
    # from above it is the ace, from below every six on top shows it to the camera. Six of
    # the twelve dice show it.
    aces = [6 if view == "below" else 1] * 6
    scene = render_dice(aces + [1, 2, 3, 4, 5, 6], colours=COLOURS[:6] * 2, seed=5, width=960,
                        height=720, die_size=52, ace=ace, view=view)
    reading = read_dice(scene.image, view=view)
    result = score(scene, reading)
    assert reading.counts == scene.counts, result.errors
    assert result.confident_errors == 0, result.errors


@pytest.mark.parametrize("ace", ACE_SYMBOLS)
def test_a_table_calibrated_at_its_dice_s_side_reads_every_ace_symbol(ace: str) -> None:
    # `dudo calibrate` measures the dice's upright boxes, up to 1.41 times the side of a die
    # lying turned; at the least, their side. Cut out within a fifth of that side, a sun the
    # locator took for the whole die was read surely as three pips, and a big pip taken for
    # no die, until the reveal's own dice set the size (session 38).
    scene = render_dice([6] * 6 + [1, 2, 3, 4, 5, 6], colours=COLOURS[:6] * 2, seed=5,
                        width=960, height=720, die_size=52, ace=ace, view="below")
    reading = read_dice(scene.image, ReaderConfig(die_size=52.0), view="below")
    result = score(scene, reading)
    assert reading.counts == scene.counts, result.errors
    assert result.confident_errors == 0, result.errors


@pytest.mark.parametrize("ace", ["sun", "big pip"])
@pytest.mark.parametrize("seed", [1, 6, 9, 17, 19])
def test_the_last_dice_of_a_game_show_their_ace_symbol_to_a_calibrated_table(
    ace: str, seed: int
) -> None:
    # One or two dice, too few to measure their own size: each is cut out at no less than
    # the calibrated size. Cut at 0.8 of the dice's side (session 37's reader), the sun was
    # read surely as three pips and the big pip missed, in each of these reveals.
    rng = np.random.default_rng(seed)
    side = float(rng.uniform(40, 64))
    faces = [6] if seed % 2 == 0 else [6, int(rng.integers(1, 7))]
    scene = render_dice(faces, colours=[COLOURS[(seed + i) % 8] for i in range(len(faces))],
                        seed=seed, width=960, height=720, die_size=side, ace=ace, view="below")
    reading = read_dice(scene.image, ReaderConfig(die_size=side), view="below")
    result = score(scene, reading)
    assert reading.counts == scene.counts, result.errors
    assert result.confident_errors == 0, result.errors


def test_a_calibrated_table_reads_sets_whose_ace_is_one_big_pip() -> None:
    # Today's level over simscore's 20 reveals of big-pip sets, the die size calibrated at
    # the dice's side: 239/240 dice, 19 frames exact (231 and 12 before session 38).
    t = tally("big-pip", calibrated=True)
    assert t.right >= 0.98 * t.dice and t.exact >= 17, t.errors


def test_perudo_sets_are_read_nearly_die_for_die() -> None:
    # Today's level over simscore's 20 reveals of Perudo sets, from below: 239/240 dice, 19
    # frames exact (the face reader that knew only pips: 201/240 and 2).
    t = tally("paco")
    assert t.right >= 0.96 * t.dice and t.exact >= 15, t.errors


@pytest.mark.parametrize(
    "trouble",
    [
        {"exposure": 0.3},
        {"exposure": 0.15},
        {"exposure": 2.0},
        {"exposure": 3.5},
        {"motion_blur": 6.0},
        {"motion_blur": 14.0},
        {"noise": 12.0},
        {"noise": 30.0},
        {"blur": 2.5},
        {"translucent": True},
        {"background": "light"},
        {"background": "grey", "glare": True},
    ],
    ids=lambda t: ",".join(f"{k}={v}" for k, v in t.items()),
)
def test_a_degraded_frame_is_read_right_or_flagged_never_confidently_wrong(
    trouble: dict[str, object],
) -> None:
    for seed in (1, 2):
        faces = faces_for(100 + seed, 12)
        colours = [COLOURS[(i + seed) % len(COLOURS)] for i in range(12)]
        scene = render_dice(faces, colours=colours, seed=seed, touching_pairs=2, **trouble)
        reading = read_dice(scene.image, view="below")
        result = score(scene, reading)
        # A missed die is not flagged by the reader but by the total: fewer dice than the
        # referee expects is shown to the players. A die read wrong must be doubtful.
        assert result.confidently_wrong == 0, result.errors
        assert reading.total >= 0.75 * len(faces), result.errors


def test_the_reader_names_the_colour_of_each_die() -> None:
    colours = ["red", "green", "blue", "yellow", "white", "black"]
    scene = render_dice([2] * 6, colours=colours, seed=8, background="grey")
    reading = read_dice(scene.image, view="below")
    seen = {(round(d.x), round(d.y)): d.colour for d in reading.dice}
    for die in scene.dice:
        nearest = min(seen, key=lambda p: (p[0] - die.x) ** 2 + (p[1] - die.y) ** 2)
        assert seen[nearest] == die.colour


def test_only_a_smaller_die_read_less_surely_within_half_a_die_is_dropped_as_a_piece() -> None:
    from vision.classify import FaceRead
    from vision.locate import Candidate
    from vision.pieces import drop_pieces

    def die(x: float, size: float, probability: float) -> tuple[Candidate, FaceRead]:
        return Candidate(x, 100.0, size, 0.9), FaceRead(3, probability, 1.0, True)

    table = [die(1000.0 + 100 * k, 64.0, 0.99) for k in range(3)]  # the table's die: 64 px
    for near, size, probability, dropped in [
        (20.0, 40.0, 0.70, True),  # a piece beside a die read more surely
        (20.0, 40.0, 0.995, False),  # read more surely than the die: not a piece of it
        (20.0, 60.0, 0.70, False),  # a die's size: two dice read, both shown
        (40.0, 40.0, 0.70, False),  # further than half a die: a small die of its own
    ]:
        pairs = [*table, die(1000.0 + near, size, probability)]
        kept, read = drop_pieces([c for c, _ in pairs], [f for _, f in pairs])
        assert len(kept) == len(read) == (3 if dropped else 4), (near, size, probability)
