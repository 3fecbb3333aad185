"""Whose die: by colour or seat zone, and every disagreement with the expected counts said."""

from __future__ import annotations

import math

import cv2
import pytest

from vision.calibration import Calibration, SeatZones, sector_zones
from vision.owners import assign_owners
from vision.reading import COLOURS, Die, Reading

# Four seats around a 400x400 picture from under the glass: seat 1 at the bottom, 2 right,
# 3 top, 4 left (the table's clockwise, seen in a mirror).
ZONES = sector_zones(4, 400, 400)
SPOT = {1: (200, 350), 2: (350, 200), 3: (200, 50), 4: (50, 200)}


def die(face: int, colour: str = "white", seat: int = 1, nudge: int = 0) -> Die:
    x, y = SPOT[seat]
    return Die(face, 7 - face, x + nudge, y + nudge, 40, 0.99, colour)


def reading(*dice: Die) -> Reading:
    return Reading(tuple(dice), "below", {"total": 1.0}, 400, 400)


def test_dice_are_given_by_colour_when_every_player_has_one() -> None:
    calibration = Calibration(colours={"Ana": "red", "Ben": "blue"})
    seen = reading(die(1, "red"), die(4, "blue"), die(6, "red", seat=3))
    owners = assign_owners(seen, calibration, {"Ana": 2, "Ben": 1})
    assert owners.by == "colour"
    assert owners.faces() == {"Ana": [1, 6], "Ben": [4]}
    assert owners.agrees
    assert owners.disagreements == []


def test_dice_are_given_by_seat_zone_when_colours_are_not_known() -> None:
    calibration = Calibration(seats=ZONES)
    seen = reading(die(2, seat=1), die(3, seat=1, nudge=20), die(5, seat=2), die(6, seat=4))
    owners = assign_owners(seen, calibration, {"Ana": 2, "Ben": 1, "Caro": 0, "Dan": 1})
    assert owners.by == "seat"
    assert owners.faces() == {"Ana": [2, 3], "Ben": [5], "Caro": [], "Dan": [6]}
    assert owners.agrees


def test_seat_numbers_can_be_given_when_players_do_not_sit_in_order_of_the_expected_counts() -> (
    None
):
    calibration = Calibration(seats=ZONES)
    seen = reading(die(2, seat=3), die(5, seat=1))
    owners = assign_owners(seen, calibration, {"Ana": 1, "Ben": 1}, seat_of={"Ana": 3, "Ben": 1})
    assert owners.faces() == {"Ana": [2], "Ben": [5]}


def test_a_die_of_nobody_s_colour_falls_back_to_its_seat_zone() -> None:
    calibration = Calibration(seats=ZONES, colours={"Ana": "red"})
    seen = reading(die(1, "red", seat=2), die(3, "green", seat=2), die(6, "white", seat=2))
    owners = assign_owners(seen, calibration, {"Ana": 1, "Ben": 2})
    assert owners.by == "colour+seat"
    assert owners.faces() == {"Ana": [1], "Ben": [3, 6]}


def test_two_players_with_the_same_colour_are_told_apart_by_their_seats() -> None:
    calibration = Calibration(seats=ZONES, colours={"Ana": "red", "Ben": "red"})
    seen = reading(die(1, "red", seat=1), die(2, "red", seat=2))
    owners = assign_owners(seen, calibration, {"Ana": 1, "Ben": 1})
    assert owners.faces() == {"Ana": [1], "Ben": [2]}


def test_players_of_one_colour_without_seat_zones_are_told_why_their_dice_are_nobody_s() -> (
    None
):
    # Before, only "Ana should show 1 die, 0 seen ... belong to no player".
    calibration = Calibration(colours={"Ana": "red", "Ben": "red", "Caro": "blue"})
    seen = reading(die(1, "red"), die(2, "red", seat=2), die(3, "blue", seat=3))
    owners = assign_owners(seen, calibration, {"Ana": 1, "Ben": 1, "Caro": 1})
    assert owners.faces()["Caro"] == [3] and not owners.agrees
    assert owners.disagreements[0] == (
        "Ana and Ben both have red dice in [colours]: the camera cannot tell their dice apart"
        " (give each a colour of their own, or calibrate seat zones: dudo calibrate --seats N)")
    # Two players, one colour, and nothing else to tell any die's owner: the same reason
    # (before, it was said only where a third player's colour told some dice apart).
    alike = assign_owners(reading(die(1, "red"), die(2, "red")),
                          Calibration(colours={"Ana": "red", "Ben": "red"}), {"Ana": 1, "Ben": 1})
    assert alike.disagreements == [
        "Ana and Ben both have red dice in [colours]: the camera cannot tell their dice apart"
        " (give each a colour of their own, or calibrate seat zones: dudo calibrate --seats N)"]
    grey = Calibration(colours={"Ana": "grey", "Ben": "Gray", "Caro": "GREY", "Dan": "red"})
    said = assign_owners(reading(die(1, "grey"), die(2, "red")), grey,
                         {"Ana": 1, "Ben": 0, "Caro": 0, "Dan": 1})
    assert said.disagreements[0].startswith("Ana, Ben and Caro all have grey dice in [colours]")


def test_colours_naming_none_of_the_players_are_said_to_tell_no_die_s_owner() -> None:
    # Before, a [colours] table of last week's players gave nobody's dice without a word.
    calibration = Calibration(colours={"Zed": "red", "Yan": "blue"})
    owners = assign_owners(reading(die(1, "red"), die(2, "blue")), calibration,
                           {"Ana": 1, "Ben": 1})
    assert owners.disagreements == [
        "[colours] names none of this game's players (Ana, Ben): whose die is whose is not"
        " known; only the total is compared"]


def test_a_player_is_found_in_the_colours_whatever_the_capitals_of_their_name() -> None:
    # A game holds no two names that differ only in capitals: "ana" can only be Ana.
    calibration = Calibration(colours={"ana": "red", "BEN": "blue"})
    seen = reading(die(1, "red"), die(4, "blue", seat=2))
    owners = assign_owners(seen, calibration, {"Ana": 1, "Ben": 1})
    assert owners.faces() == {"Ana": [1], "Ben": [4]} and owners.agrees


@pytest.mark.parametrize(
    "dice, expected, disagreements",
    [
        (
            [die(1, seat=1), die(2, seat=2), die(3, seat=2), die(4, seat=2)],
            {"Ana": 1, "Ben": 4},
            ["Ben should show 4 dice, 3 seen"],
        ),
        (
            [die(1, seat=1), die(2, seat=1), die(5, seat=2)],
            {"Ana": 1, "Ben": 1},
            ["Ana should show 1 die, 2 seen"],
        ),
        (
            [die(1, seat=1), die(6, seat=3)],
            {"Ana": 1, "Ben": 0},
            ["Caro should show 0 dice, 1 seen"],
        ),
        (
            [],
            {"Ana": 2, "Ben": 1},
            ["Ana should show 2 dice, 0 seen", "Ben should show 1 die, 0 seen"],
        ),
    ],
    ids=["a-die-missing", "a-die-too-many", "dice-at-an-empty-seat", "nothing-seen"],
)
def test_every_difference_with_the_expected_counts_is_said_in_words(
    dice: list[Die], expected: dict[str, int], disagreements: list[str]
) -> None:
    seats = {"Ana": 1, "Ben": 2, "Caro": 3}
    owners = assign_owners(reading(*dice), Calibration(seats=ZONES), expected, seat_of=seats)
    assert owners.disagreements == disagreements
    assert not owners.agrees


def test_a_die_of_one_player_s_colour_in_another_s_zone_is_said_not_settled_on() -> None:
    # Before, colour won without a word: the [colours] of last week's players (or a colour
    # misread as the neighbour's) swapped Ana's and Ben's dice, counts matching, applied at once.
    swapped = Calibration(seats=ZONES, colours={"Ana": "blue", "Ben": "red"})
    seen = reading(die(2, "red", seat=1), die(3, "red", seat=1, nudge=20), die(5, "blue", seat=2))
    owners = assign_owners(seen, swapped, {"Ana": 1, "Ben": 2})
    assert owners.faces() == {"Ana": [5], "Ben": [2, 3]}  # by colour, as the table said
    assert owners.disagreements == [
        "Ben's red die at (200, 350) lies in Ana's seat zone",
        "Ben's red die at (220, 370) lies in Ana's seat zone",
        "Ana's blue die at (350, 200) lies in Ben's seat zone",
    ]
    assert not owners.agrees
    right = Calibration(seats=ZONES, colours={"Ana": "red", "Ben": "blue"})
    assert assign_owners(seen, right, {"Ana": 2, "Ben": 1}).agrees


def test_a_die_outside_every_zone_belongs_to_no_player_and_is_reported() -> None:
    corner = SeatZones(polygons=(((0, 300), (400, 300), (400, 400), (0, 400)),))
    seen = reading(die(3, seat=1), die(4, "blue", seat=3))
    owners = assign_owners(seen, Calibration(seats=corner), {"Ana": 1})
    assert owners.faces() == {"Ana": [3]}
    assert [d.face for d in owners.unowned] == [4]
    assert owners.disagreements == ["1 die belongs to no player: blue at (200, 50)"]


def test_players_seated_past_the_zones_calibrated_are_named_as_the_cause() -> None:
    # Six players at a glass calibrated for four seats: before, only "Eve should show 1 die,
    # 0 seen" and dice of no player, with nothing to say why.
    seats = {"Ana": 1, "Ben": 2, "Caro": 3, "Dan": 4, "Eve": 5, "Finn": 6}
    expected = {"Ana": 1, "Ben": 1, "Caro": 1, "Dan": 1, "Eve": 1, "Finn": 1}
    seen = reading(*(die(3, seat=seat) for seat in range(1, 5)))
    owners = assign_owners(seen, Calibration(seats=ZONES), expected, seat_of=seats)
    assert owners.disagreements == [
        "no seat zone for seats 5 (Eve), 6 (Finn): the glass is calibrated for 4 seats"
        " (dudo calibrate --seats 6)",
        "Eve should show 1 die, 0 seen",
        "Finn should show 1 die, 0 seen",
    ]
    # A player out of dice, or told by a colour of their own, needs no zone.
    by_colour = Calibration(seats=ZONES, colours={"Eve": "red"})
    owners = assign_owners(reading(*seen.dice, die(2, "red", seat=3)), by_colour,
                           {**expected, "Finn": 0}, seat_of=seats)
    assert owners.disagreements == []


def test_without_colours_or_zones_only_the_total_is_checked() -> None:
    owners = assign_owners(reading(die(1), die(2)), Calibration(), {"Ana": 2, "Ben": 1})
    assert owners.by == "none"
    assert owners.dice == {}
    assert len(owners.unowned) == 2
    assert owners.disagreements == ["the table should show 3 dice, 2 seen"]


def test_colour_names_are_matched_whatever_their_case_or_spelling() -> None:
    calibration = Calibration(colours={"Ana": "Gray", "Ben": "violet"})
    seen = reading(die(2, "grey"), die(5, "purple"))
    assert assign_owners(seen, calibration, {"Ana": 1, "Ben": 1}).faces() == {
        "Ana": [2],
        "Ben": [5],
    }


def test_every_colour_the_reader_names_may_be_written_in_the_config() -> None:
    import numpy as np

    from vision.colour import name_colours
    from vision.locate import Candidate

    named = set()
    for hue in range(0, 180, 2):
        for sat, val in ((255, 255), (255, 120), (20, 220), (20, 100), (0, 20)):
            hsv = np.full((8, 8, 3), (hue, sat, val), np.uint8)
            image = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
            named |= set(name_colours(image, [Candidate(4.0, 4.0, 8.0, 1.0)]))
    assert named == set(COLOURS)


def test_a_die_s_colour_is_the_median_of_its_middle_even_or_odd() -> None:
    # Each channel's middle pixel; of an even count, the two middle ones averaged, rounded
    # down: numpy's median made 8-bit, whatever the pixels and their number.
    import numpy as np

    from vision.colour import _median

    rng = np.random.default_rng(7)
    for count in (*range(1, 30), 624, 625):
        for _ in range(10):
            pixels = rng.integers(0, 256, (count, 3), dtype=np.uint8)
            assert np.array_equal(_median(pixels), np.median(pixels, axis=0).astype(np.uint8))


def on_the_line(angle: float, face: int, colour: str = "white") -> Die:
    """A die 130 px from the middle at ``angle`` degrees: seats 1 and 2 meet at 45."""
    x = 200 + 130 * math.cos(math.radians(angle))
    y = 200 + 130 * math.sin(math.radians(angle))
    return Die(face, 7 - face, round(x), round(y), 40, 0.99, colour)


def test_dice_across_the_line_between_two_seat_zones_are_said_when_zones_alone_tell_owners() -> (
    None
):
    # Ana's 6 pushed a little over the line into Ben's zone, Ben's ace into Ana's: each
    # player is seen with two dice, as expected, and the two dice swapped. Said, not settled.
    calibration = Calibration(seats=ZONES)
    seen = reading(die(2, seat=1), on_the_line(40, 6), die(5, seat=2), on_the_line(50, 1))
    owners = assign_owners(seen, calibration, {"Ana": 2, "Ben": 2})
    assert owners.faces() == {"Ana": [1, 2], "Ben": [5, 6]}  # the zones' best guess
    assert owners.disagreements == [
        "the white die at (300, 284) lies on the line between Ben's and Ana's seat zones",
        "the white die at (284, 300) lies on the line between Ana's and Ben's seat zones",
    ]
    # One die alone near a line, or on it with no die of the neighbour's on it back, is its
    # zone's player's: the counts tell a die pushed over alone.
    near = reading(die(2, seat=1), die(5, seat=2), on_the_line(50, 1))
    assert assign_owners(near, calibration, {"Ana": 2, "Ben": 1}).agrees
    over = reading(die(2, seat=1), die(5, seat=2), on_the_line(40, 6))
    assert assign_owners(over, calibration, {"Ana": 2, "Ben": 1}).disagreements == [
        "Ana should show 2 dice, 1 seen", "Ben should show 1 die, 2 seen"]
    # Half a die or more from the line, a die's zone is its owner's, and nothing is said.
    clear = reading(die(2, seat=1), on_the_line(30, 6), die(5, seat=2), on_the_line(60, 1))
    assert assign_owners(clear, calibration, {"Ana": 2, "Ben": 2}).agrees


def test_a_die_of_a_player_s_colour_across_the_line_from_their_zone_is_not_astray() -> None:
    calibration = Calibration(seats=ZONES, colours={"Ana": "red", "Ben": "blue"})
    across = reading(die(2, "red", seat=1), on_the_line(40, 6, "red"), die(5, "blue", seat=2))
    owners = assign_owners(across, calibration, {"Ana": 2, "Ben": 1})
    assert owners.faces() == {"Ana": [2, 6], "Ben": [5]}
    assert owners.agrees
    # Well inside another player's zone, it is said.
    inside = reading(die(2, "red", seat=1), die(6, "red", seat=2), die(5, "blue", seat=2))
    assert assign_owners(inside, calibration, {"Ana": 2, "Ben": 1}).disagreements == [
        "Ana's red die at (350, 200) lies in Ben's seat zone"]


def symbol(middle: str, ring: str, seat: int = 1, nudge: int = 0) -> Die:
    """A six on top seen from below: the set's ace symbol on the glass, its middle named by
    the symbol's colour and the ring round it by the body's."""
    x, y = SPOT[seat]
    return Die(6, 1, x + nudge, y + nudge, 40, 0.99, middle, colour_round=ring)


def test_a_die_whose_ace_symbol_names_another_player_goes_to_the_player_who_lacks_it() -> None:
    # Caro's red die shows its white paco to the camera: its middle names Ana's colour, the
    # ring round it Caro's. Ana's dice are all seen, Caro lacks one: it is Caro's.
    calibration = Calibration(colours={"Ana": "white", "Caro": "red"})
    seen = reading(die(3, "white"), die(4, "white"), die(2, "red"), symbol("white", "red"))
    owners = assign_owners(seen, calibration, {"Ana": 2, "Caro": 2})
    assert owners.faces() == {"Ana": [3, 4], "Caro": [2, 6]}
    assert owners.agrees
    assert [owners.colour(d) for d in seen.dice] == ["white", "white", "red", "red"]
    # A symbol of nobody's colour (a gold paco): the ring alone names a player.
    gold = reading(die(3, "white"), die(4, "white"), die(2, "red"), symbol("yellow", "red"))
    assert assign_owners(gold, calibration, {"Ana": 2, "Caro": 2}).faces() == {
        "Ana": [3, 4], "Caro": [2, 6]}
    # Ana's white die shows her black paco and Ben's black die his white one: whichever
    # goes to whom, each shows an ace and the counts are met.
    both = Calibration(colours={"Ana": "white", "Ben": "black"})
    crossed = reading(die(2, "white"), symbol("black", "white"), die(5, "black"),
                      symbol("white", "black"))
    owners = assign_owners(crossed, both, {"Ana": 2, "Ben": 2})
    assert owners.faces() == {"Ana": [2, 6], "Ben": [5, 6]}
    assert owners.agrees


def test_an_ace_symbol_the_counts_cannot_tell_is_the_middle_s_and_every_count_is_said() -> None:
    # Ana and Caro each lack a die: the ring is no proof (a real die's edge, or the table
    # past it, may show there), so the die is its middle's, as any die, and the counts said.
    calibration = Calibration(colours={"Ana": "white", "Caro": "red"})
    seen = reading(die(3, "white"), die(2, "red"), symbol("white", "red"))
    owners = assign_owners(seen, calibration, {"Ana": 2, "Caro": 2})
    assert owners.faces() == {"Ana": [3, 6], "Caro": [2]}
    assert owners.disagreements == ["Caro should show 2 dice, 1 seen"]
    # Nor is a plain red ace whose ring shows the white table past a turned die's edge
    # given to Ana for the die she lacks: it is Caro's, who lacks it too, and Ana's is said.
    plain = reading(die(3, "white"), die(2, "red"), symbol("red", "white"))
    owners = assign_owners(plain, calibration, {"Ana": 2, "Caro": 2})
    assert owners.faces() == {"Ana": [3], "Caro": [2, 6]}
    assert owners.disagreements == ["Ana should show 2 dice, 1 seen"]


def test_a_seat_zone_tells_whose_an_ace_symbol_is_whatever_the_counts() -> None:
    calibration = Calibration(seats=ZONES, colours={"Ana": "white", "Caro": "red"})
    seen = reading(die(3, "white", seat=1), die(2, "red", seat=3), symbol("white", "red", seat=3))
    owners = assign_owners(seen, calibration, {"Ana": 2, "Caro": 2}, seat_of={"Ana": 1, "Caro": 3})
    assert owners.faces() == {"Ana": [3], "Caro": [2, 6]}
    assert owners.disagreements == ["Ana should show 2 dice, 1 seen"]
    # Where its zone is neither player's, the counts tell, and the die lying astray is said
    # by the colour that named its owner.
    astray = reading(die(3, "white", seat=1), die(4, "white", seat=1), die(2, "red", seat=3),
                     die(5, "blue", seat=2, nudge=20), symbol("white", "red", seat=2))
    owners = assign_owners(astray, calibration, {"Ana": 2, "Ben": 1, "Caro": 2},
                           seat_of={"Ana": 1, "Ben": 2, "Caro": 3})
    assert owners.faces() == {"Ana": [3, 4], "Ben": [5], "Caro": [2, 6]}
    assert owners.disagreements == ["Caro's red die at (350, 200) lies in Ben's seat zone"]


@pytest.mark.parametrize("ace", ["sun", "head"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_perudo_set_s_sixes_are_each_given_to_the_player_whose_dice_they_are(
    ace: str, seed: int
) -> None:
    # Each six on top shows its paco to the camera under the glass, in the pips' colour: a
    # white die's black, a red die's white. Named by their middles, Caro's sixes were Ana's
    # (each reveal said "Ana should show 5 dice, 7 seen") until session 88.
    from vision.reader import read_dice
    from vision.render import RenderOptions
    from vision.simulate import SimulatedCamera

    camera = SimulatedCamera(seed=seed, options=RenderOptions(ace=ace), seats=2)
    camera.set_dice({"Ana": [6, 6, 2, 3, 5], "Caro": [6, 4, 6, 1, 5]},
                    {"Ana": "white", "Caro": "red"}, seated=["Ana", "Caro"])
    seen = read_dice(camera.capture())
    calibration = Calibration(colours={"Ana": "white", "Caro": "red"})
    owners = assign_owners(seen, calibration, {"Ana": 5, "Caro": 5})
    assert owners.faces() == {"Ana": [2, 3, 5, 6, 6], "Caro": [1, 4, 5, 6, 6]}
    assert owners.agrees, owners.disagreements
    # Each die is named by the colour that told whose it is, as the page lists it.
    assert {player: {owners.colour(d) for d in dice} for player, dice in owners.dice.items()} == {
        "Ana": {"white"}, "Caro": {"red"}}
