"""The annotated picture: every die outlined with its face, doubtful dice marked apart."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from vision.annotate import annotate
from vision.calibration import SeatZones, sector_zones
from vision.reading import Die, Reading
from vision.simulate import RenderOptions, SimulatedCamera, render_dice

GREEN = np.array([60, 200, 40])
ORANGE = np.array([0, 140, 255])


def reading_of(dice: list[Die], threshold: float = 0.8) -> Reading:
    return Reading(tuple(dice), "below", {"total": 5.0}, 640, 480, threshold)


def share_of(image: np.ndarray, colour: np.ndarray, box: tuple[int, int, int, int]) -> float:
    x0, y0, x1, y1 = box
    patch = image[y0:y1, x0:x1].astype(int)
    return float(np.mean(np.abs(patch - colour).sum(axis=2) < 40))


def outline_box(d: Die) -> tuple[int, int, int, int]:
    half = int(d.size * 0.6)
    return (max(0, d.x - half - 3), max(0, d.y - half - 40), d.x + half + 4, d.y + half + 4)


@pytest.fixture
def table() -> np.ndarray:
    return np.full((480, 640, 3), 128, np.uint8)


def test_the_picture_is_a_copy_and_the_original_is_untouched(table: np.ndarray) -> None:
    before = table.copy()
    out = annotate(table, reading_of([Die(3, 4, 300, 200, 40, 0.99, "red")]))
    assert np.array_equal(table, before)
    assert out.shape == table.shape
    assert not np.array_equal(out, table)


def test_a_sure_die_is_outlined_in_green_and_a_doubtful_one_in_orange(table: np.ndarray) -> None:
    sure = Die(3, 4, 150, 200, 40, 0.99, "red")
    doubtful = Die(5, 2, 450, 300, 40, 0.42, "blue")
    out = annotate(table, reading_of([sure, doubtful]))
    assert share_of(out, GREEN, outline_box(sure)) > 0.05
    assert share_of(out, ORANGE, outline_box(sure)) == 0
    assert share_of(out, ORANGE, outline_box(doubtful)) > 0.03
    assert share_of(out, GREEN, outline_box(doubtful)) == 0


@pytest.mark.parametrize("threshold, marked", [(0.5, GREEN), (0.95, ORANGE)])
def test_the_doubt_threshold_can_be_given(
    table: np.ndarray, threshold: float, marked: np.ndarray
) -> None:
    d = Die(2, 5, 300, 240, 40, 0.9, "white")
    out = annotate(table, reading_of([d]), doubtful_threshold=threshold)
    assert share_of(out, marked, outline_box(d)) > 0.03


def test_every_die_of_a_full_table_is_marked(table: np.ndarray) -> None:
    dice = [
        Die(1 + i % 6, 6 - i % 6, 60 + 90 * (i % 6), 80 + 110 * (i // 6), 36, 0.95, "red")
        for i in range(24)
    ]
    out = annotate(table, reading_of(dice))
    assert all(share_of(out, GREEN, outline_box(d)) > 0.03 for d in dice)


def test_an_empty_table_still_gets_its_banner_and_nothing_else(table: np.ndarray) -> None:
    out = annotate(table, reading_of([]))
    changed = np.any(out != table, axis=2)
    rows = np.nonzero(changed.any(axis=1))[0]
    assert rows.size and rows.max() < 40  # only the banner at the top


@pytest.mark.parametrize(
    "why",
    ["too_dark", "burnt_out", "out_of_focus", "smeared", "too_small", "slanted", "hard_to_read"])
def test_a_picture_whose_dice_are_doubted_for_the_picture_says_why_in_its_banner(
    table: np.ndarray, why: str
) -> None:
    dice = [Die(4, 3, 300, 240, 40, 0.5, "red")]
    judged, doubted = reading_of(dice), replace(reading_of(dice), **{why: True})
    banner = [np.any(annotate(table, r)[:30] != table[:30], axis=(0, 2)) for r in (judged, doubted)]
    # The same words, and more after them: the banner reaches further along.
    assert np.nonzero(banner[1])[0].max() > np.nonzero(banner[0])[0].max() + 100


def test_the_face_written_differs_with_the_face_read(table: np.ndarray) -> None:
    one = annotate(table, reading_of([Die(1, 6, 300, 240, 40, 0.99, "red")]))
    six = annotate(table, reading_of([Die(6, 1, 300, 240, 40, 0.99, "red")]))
    label = (slice(180, 220), slice(270, 310))
    assert not np.array_equal(one[label], six[label])


def test_a_die_at_the_edge_of_the_picture_is_drawn_without_error() -> None:
    frame = render_dice([4], seed=1, width=200, height=150, die_size=40).image
    out = annotate(frame, reading_of([Die(4, 3, 5, 3, 40, 0.3, "white")]))
    assert out.shape == frame.shape


@pytest.mark.parametrize("x", [6, 634])
def test_a_die_cut_by_a_side_of_the_picture_has_its_face_written_in_it(
    table: np.ndarray, x: int
) -> None:
    # The label sits on the box's top-left corner: for a die the picture's left edge cuts, it
    # lay off the picture, a green tab with no face (a helper's audit).
    out = annotate(table, reading_of([Die(3, 4, x, 240, 40, 0.99, "red")]))
    above = out[180:216, max(0, x - 40) : x + 40]
    assert (np.abs(above.astype(int) - 255).sum(axis=2) < 30).any()  # the face's white ink
    assert share_of(above, GREEN, (0, 0, above.shape[1], above.shape[0])) > 0.1


def number_patch(image: np.ndarray, die: Die) -> np.ndarray:
    """The place under the box's bottom-right corner where a die's number is written."""
    half = int(round(die.size * 0.6))
    x1, top = die.x + half, die.y + half
    return image[top + 4 : top + 12, x1 - 9 : x1 - 3]  # clear of the box's own line


def test_a_die_filling_the_picture_has_its_face_written_inside_it(table: np.ndarray) -> None:
    # A die photographed close: no room above its box nor under it. The green label with its
    # white face sits inside the box's top-left corner, not off the picture.
    die = Die(4, 3, 320, 240, 380, 0.99, "red")
    out = annotate(table, reading_of([die]))
    half = int(round(die.size * 0.6))
    x0, y0 = die.x - half + 20, die.y - half + 20  # inside the box's line, 17 px thick
    corner = out[y0 : y0 + 30, x0 : x0 + 30]
    assert share_of(corner, GREEN, (0, 0, corner.shape[1], corner.shape[0])) > 0.3
    assert (np.abs(corner.astype(int) - 255).sum(axis=2) < 30).any()  # the face's white ink


def test_a_die_filling_the_picture_to_its_top_has_its_face_written_under_the_banner(
    table: np.ndarray,
) -> None:
    die = Die(4, 3, 320, 200, 380, 0.99, "red")  # its box's top edge off the picture
    out = annotate(table, reading_of([die]))
    rows = darkened_rows(out, table)
    inside = die.x - int(round(die.size * 0.6)) + 20  # right of the box's left line
    assert rows.size and not greenish(out[: rows.max() + 1, inside : inside + 30]).any()
    under = out[rows.max() + 1 : rows.max() + 31, inside : inside + 30]
    assert greenish(under).mean() > 0.3


def test_the_page_picture_numbers_each_die_and_the_scan_picture_does_not(
    table: np.ndarray,
) -> None:
    # The page lists the dice of a reading by number, so a correction finds its die.
    dice = [Die(3, 4, 100, 100, 40, 0.99, "red"), Die(5, 2, 300, 220, 40, 0.4, "blue")]
    plain = annotate(table, reading_of(dice))
    numbered = annotate(table, reading_of(dice), numbered=True)
    for die in dice:
        assert (number_patch(plain, die) == 128).all()  # `dudo scan --annotate`: faces only
        patch = number_patch(numbered, die)
        assert (patch < 60).any() and (patch > 200).any()  # a dark label, white digits


def darkened_rows(out: np.ndarray, table: np.ndarray) -> np.ndarray:
    """The rows where the banner's band darkens the grey table at the picture's left edge."""
    return np.nonzero((out[:, 2] < table[:, 2] * 0.5).all(axis=1))[0]


def greenish(patch: np.ndarray) -> np.ndarray:
    """Where a green label or outline shows, however darkened (the banner's ink is white)."""
    b, g, r = (patch[..., c].astype(int) for c in range(3))
    return (g > b + 15) & (g > r + 15)


def test_the_banner_moves_to_the_bottom_when_dice_lie_under_the_top(table: np.ndarray) -> None:
    # Dice in the top-left corner, where the counts are written: their faces stay bright
    # and readable, and the counts go to the bottom of the picture instead.
    dice = [Die(6, 1, 40, 30, 40, 0.99, "red"), Die(3, 4, 110, 40, 40, 0.99, "red")]
    out = annotate(table, reading_of(dice))
    rows = darkened_rows(out, table)
    assert rows.size and rows.min() > 400
    for die in dice:
        assert share_of(out, GREEN, outline_box(die)) > 0.05


def test_no_face_is_written_under_the_banner(table: np.ndarray) -> None:
    # Dice along the top and the bottom edges alike: the banner stays on top, and the face of a
    # die under it is written under that die's box, clear of the band.
    top = [Die(6, 1, 40 + 70 * i, 45, 40, 0.99, "red") for i in range(4)]
    bottom = [Die(2, 5, 40 + 70 * i, 440, 40, 0.99, "red") for i in range(5)]
    out = annotate(table, reading_of(top + bottom))
    rows = darkened_rows(out, table)
    assert rows.size and rows.max() < 40
    above_boxes = 45 - 24 - 2  # the band also reaches over the boxes' top lines
    assert not greenish(out[:above_boxes, :300]).any()  # no label, even darkened, in the band
    for die in top:
        half = int(round(die.size * 0.6))
        under = (die.x - half, die.y + half, die.x + half, die.y + half + 20)
        assert share_of(out, GREEN, under) > 0.2


def test_a_picture_of_small_dice_is_drawn_enlarged_so_its_labels_leave_them_seen() -> None:
    # Dice 10 px across in a 160x120 picture: a label (at least 12 px tall) on each hid the
    # die and its neighbours. Drawn three times as large, every pixel a square of 3x3.
    frame = np.full((120, 160, 3), 200, np.uint8)
    die = Die(4, 3, 80, 70, 10, 0.99, "red")
    out = annotate(frame, reading_of([die]))
    assert out.shape == (360, 480, 3)
    assert share_of(out, GREEN, outline_box(replace(die, x=241, y=211, size=30))) > 0.05
    untouched = out[300:, 300:]  # far from the die and the banner: the picture, enlarged
    assert (untouched == 200).all()


def test_a_large_picture_of_small_dice_is_enlarged_no_further_than_2048_px() -> None:
    frame = np.full((750, 1000, 3), 200, np.uint8)  # dice of 5 px: 6 times, but 2 at most
    assert annotate(frame, reading_of([Die(4, 3, 500, 400, 5, 0.99, "red")])).shape == (
        1500, 2000, 3)
    frame = np.full((1520, 2028, 3), 200, np.uint8)
    out = annotate(frame, reading_of([Die(4, 3, 800, 700, 10, 0.99, "red")]))
    assert out.shape == frame.shape


def test_the_banner_of_a_narrow_picture_fits_its_words_in_smaller_letters() -> None:
    # 128x96, five dice of 8 px, too small to read surely: drawn four times as large (512
    # px), the counts and "dice too small: take it closer" took 563 px and were cut off.
    frame = np.full((96, 128, 3), 200, np.uint8)
    dice = [Die(f, f, 30 + 15 * f, 60, 8, 0.5, "red") for f in range(1, 6)]
    out = annotate(frame, replace(reading_of(dice), too_small=True))
    assert out.shape == (384, 512, 3)
    band = out[:20]  # the band is about 22 rows tall
    assert (band[:, :, 2] > 100).any()  # the words, in orange on the darkened band
    assert not (band[:, -5:, 2] > 100).any()  # none of them running off the picture


def test_the_banner_of_a_narrow_picture_says_its_plea_whole_on_a_line_of_its_own() -> None:
    # 300 px wide, seven dice doubted as the picture is out of focus: at the smallest letters
    # the banner ended "7 doubtful   out of", the plea cut off (a helper's audit).
    frame = np.full((480, 300, 3), 200, np.uint8)
    dice = [Die(1, 6, 40 + 30 * k, 300, 40, 0.5, "red") for k in range(7)]
    plain = annotate(frame, reading_of(dice))
    out = annotate(frame, replace(reading_of(dice), out_of_focus=True))
    assert out.shape == frame.shape
    one, two = (len(darkened_rows(image, frame)) for image in (plain, out))
    assert 1.6 * one < two < 2.4 * one, (one, two)  # the band two lines tall
    band = out[:two]
    assert (band[:, :, 2] > 100).any()  # the words, in orange on the darkened band
    assert not (band[:, -5:, 2] > 100).any()  # none of them running off the picture
    # Three pleas too long for a line together: each on its own (a second audit).
    three = annotate(frame, replace(reading_of(dice), smeared=True, too_small=True,
                                    hard_to_read=True))
    rows = len(darkened_rows(three, frame))
    assert rows > 3 * one, (one, rows)  # four lines
    assert not (three[:rows, -5:, 2] > 100).any()


def name_place(image: np.ndarray, seats: SeatZones, names: dict[int, str], dice: list[Die]
               ) -> tuple[float, float, tuple[int, int, int, int]]:
    """Where the names are written: the middle and the box of the pixels that differ from
    the same picture drawn with the zones and no names."""
    reading = reading_of(dice)
    bare = annotate(image, reading, seats=seats, names={})
    named = annotate(image, reading, seats=seats, names=names)
    ys, xs = np.nonzero(np.abs(named.astype(int) - bare).sum(axis=2) > 60)
    assert len(xs), "no name written"
    return float(xs.mean()), float(ys.mean()), (xs.min(), ys.min(), xs.max(), ys.max())


@pytest.mark.parametrize("seat", [1, 2, 3, 4])
def test_each_player_s_name_is_written_in_the_seat_zone_the_referee_takes_them_to_sit_in(
    table: np.ndarray, seat: int
) -> None:
    # Players seated otherwise than the zones were taken for see it at the first picture:
    # every count agreeing (five dice each), nothing else tells them.
    seats = sector_zones(4, 640, 480)
    x, y, _ = name_place(table, seats, {seat: "Ana"}, [])
    assert seats.seat_at(x, y) == seat
    # Written by hand, the zones are polygons: the name is in its own.
    halves = SeatZones(polygons=(((0, 0), (320, 0), (320, 480), (0, 480)),
                                 ((320, 0), (640, 0), (640, 480), (320, 480))))
    x, y, _ = name_place(table, halves, {1 + seat % 2: "Ana"}, [])
    assert halves.seat_at(x, y) == 1 + seat % 2


def test_the_zones_borders_are_drawn_and_a_name_leaves_the_dice_seen(table: np.ndarray) -> None:
    seats = sector_zones(4, 640, 480)
    plain = annotate(table, reading_of([]))
    zoned = annotate(table, reading_of([]), seats=seats, names={})
    # A border runs from the centre between seats 1 and 2 (135 degrees less 45: to the
    # bottom right in the picture).
    border = [(320 + r * 0.7071, 240 + r * 0.7071) for r in (60, 120, 180)]
    for bx, by in border:
        spot = (slice(int(by) - 2, int(by) + 3), slice(int(bx) - 2, int(bx) + 3))
        assert np.abs(zoned[spot].astype(int) - plain[spot]).max() > 40
    # Dice where the name would go first: it is written beside them, not over them.
    _, _, free = name_place(table, seats, {1: "Ana"}, [])
    dice = [Die(3, 4, (free[0] + free[2]) // 2 + dx, (free[1] + free[3]) // 2, 40, 0.99, "red")
            for dx in (-40, 0, 40)]
    x, y, box = name_place(table, seats, {1: "Ana"}, dice)
    assert seats.seat_at(x, y) == 1
    for d in dice:
        assert not (box[0] < d.x + d.size and d.x - d.size < box[2]
                    and box[1] < d.y + d.size and d.y - d.size < box[3])


def test_an_enlarged_picture_keeps_each_name_in_its_zone() -> None:
    # Dice of 10 px: the picture is drawn three times as large, the zones with it.
    small = np.full((200, 300, 3), 128, np.uint8)
    seats = sector_zones(3, 300, 200)
    dice = [Die(2, 5, 150, 40, 10, 0.99, "white")]
    reading = reading_of(dice)
    for seat in (1, 2, 3):
        bare = annotate(small, reading, seats=seats, names={})
        named = annotate(small, reading, seats=seats, names={seat: "Caro"})
        assert named.shape[1] == 900
        ys, xs = np.nonzero(np.abs(named.astype(int) - bare).sum(axis=2) > 60)
        assert seats.seat_at(xs.mean() / 3, ys.mean() / 3) == seat


def test_a_name_the_font_cannot_write_is_written_without_question_marks(table: np.ndarray) -> None:
    # OpenCV's font has no accents nor Chinese: "Zoë" is written "Zoe", and a name of none
    # of its letters as the seat's number alone (the page shows each player's), never "???".
    seats = sector_zones(4, 640, 480)

    def drawn(name: str) -> np.ndarray:
        return annotate(table, reading_of([]), seats=seats, names={2: name})

    assert np.array_equal(drawn("Zoë"), drawn("Zoe"))
    assert np.array_equal(drawn("李"), drawn("王"))
    assert np.array_equal(drawn("李"), drawn("😀"))
    assert not np.array_equal(drawn("李"), annotate(table, reading_of([]), seats=seats))


def full_table(seed: int, players: list[str], **options: Any) -> Iterator[tuple[
        np.ndarray, Reading, SeatZones, dict[int, np.ndarray]]]:
    """Reveals of a simulated table of 2028x1520 frames, five dice each and a seat zone each:
    each frame, its dice as read (surely, where they lie), the zones, and the pixels each
    seat's name alone changes in its picture, by seat."""
    camera = SimulatedCamera(seed=seed, options=RenderOptions(width=2028, height=1520, **options),
                             seats=len(players))
    camera.set_dice({p: [1, 2, 3, 4, 5] for p in players})
    seats = camera.calibration.seats
    while True:
        frame = camera.capture()
        assert camera.last_scene is not None
        dice = [Die(d.face, d.pips, round(d.x), round(d.y), round(d.size), 0.99, d.colour)
                for d in camera.last_scene.dice]
        reading = Reading(tuple(dice), "below", {"total": 1.0}, 2028, 1520, 0.8)
        bare = annotate(frame, reading, seats=seats, names={})
        written = {}
        for seat, name in enumerate(players, start=1):
            named = annotate(frame, reading, seats=seats, names={seat: name})
            written[seat] = np.argwhere(np.abs(named.astype(int) - bare).sum(axis=2) > 60)
            assert len(written[seat]), f"{name}'s name not written"
        yield frame, reading, seats, written


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_at_a_full_table_no_name_is_written_over_a_die(seed: int) -> None:
    # Six players of five large dice on a 2028x1520 frame: each name finds room in its zone
    # (before, tried at a few places along its middle, 13 of 90 names lay on a die).
    reveals = full_table(seed, [f"P{seat}abcdef" for seat in range(1, 7)], die_size=76)
    for _, reading, seats, written in itertools.islice(reveals, 3):
        for seat, pixels in written.items():
            (y0, x0), (y1, x1) = pixels.min(axis=0), pixels.max(axis=0)
            assert seats.seat_at((x0 + x1) / 2, (y0 + y1) / 2) == seat
            for d in reading.dice:
                half = 0.6 * d.size
                assert not (x0 < d.x + half and d.x - half < x1 and y0 < d.y + half
                            and d.y - half < y1), (seat, d)


@pytest.mark.parametrize("seed", [1, 3, 5])
def test_a_name_with_no_room_in_its_narrow_zone_lies_mostly_in_it(seed: int) -> None:
    # Ten players of long names and five dice each: seat 6's narrow zone at the top is
    # crowded. Its name, with no room wholly in the zone off the dice, was written across the
    # picture's middle, in four zones (14-28% of its letters in its own); now as much of it
    # as can be lies in its own zone (65-100%).
    _, _, seats, written = next(full_table(seed, [f"Player{i:02d}xyz" for i in range(10)]))
    for seat, pixels in written.items():
        inside = np.mean([seats.seat_at(x, y) == seat for y, x in pixels])
        assert inside >= 0.6, (seat, inside)


def test_zones_reaching_far_beyond_the_picture_are_drawn_at_once(table: np.ndarray) -> None:
    # A centre or a corner written by hand far off (a slip of the keyboard): the dice's
    # picture is drawn as ever, at once (the names were looked for along the whole ray).
    for seats in (SeatZones(count=4, centre=(1e10, 240.0)),
                  SeatZones(polygons=(((0, 0), (1e10, 0), (0, 480)),))):
        out = annotate(table, reading_of([Die(3, 4, 300, 200, 40, 0.99, "red")]), seats=seats,
                       names={1: "Ana", 2: "Ben"})
        assert share_of(out, GREEN, outline_box(Die(3, 4, 300, 200, 40, 0.99, "red"))) > 0.05
