"""What the reader returns: the dice it saw in one photograph, and why it may fail."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

FACES = (1, 2, 3, 4, 5, 6)
VIEWS = ("above", "below")
# A die below this confidence is "doubtful": the page asks the players to confirm it.
DEFAULT_DOUBT_THRESHOLD = 0.8
# Why every die of a smeared photograph is doubted, in the players' words.
SMEARED = "the picture is smeared (the camera or the table moved): take it again"
# Why every die of a photograph whose dice are too small to read surely is doubted.
TOO_SMALL = "the dice are too small in the picture to read surely: take it closer"
# Why the dice a slantwise picture squashes most are doubted.
SLANTED = "the picture is taken slantwise (some dice squashed): take it square to the table"
# Why the dice that lean most are doubted where the dice together are squashed one way (the
# reader cannot tell a camera looking slantwise from a tool stretching the picture).
SQUASHED = ("the picture's dice are squashed one way (taken slantwise, or stretched by a tool):"
            " take it square to the table, and use it unstretched")
# Why every die of a picture too dark, burnt out or out of focus is doubted.
TOO_DARK = "the picture is too dark to read (is the light under the glass on?): take it again"
BURNT_OUT = "the picture is burnt out, white all over (too much light): take it again"
OUT_OF_FOCUS = "the picture is out of focus: take it again"
# Why every die is doubted where the reader doubts most of them on their own.
HARD_TO_READ = "most dice in the picture are hard to read: take it again"
# The colour names the reader gives a die's body, and the other spellings a player may write
# in ``[colours]`` for them.
COLOURS = ("white", "grey", "black", "brown", "red", "orange", "yellow", "green", "blue",
           "purple", "pink")
COLOUR_SPELLINGS = {"gray": "grey", "violet": "purple", "ivory": "white", "cream": "white"}
# The photographs a folder may hold (what OpenCV decodes), for a folder source and evaluation.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".jpe", ".png", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm",
                  ".pbm", ".pnm")


def is_photograph(path: Path) -> bool:
    """Whether a folder of photographs holds ``path`` as one: a file of a suffix OpenCV
    decodes (in any case: ``.JPG``), not hidden (a Mac copying a folder to another disk adds
    a ``._NAME.jpg`` of its own beside each photograph, which is none)."""
    return (path.suffix.lower() in IMAGE_SUFFIXES and not path.name.startswith(".")
            and path.is_file())


class UnreadableImage(ValueError):
    """A file or frame that cannot be read as a photograph (missing, corrupt, empty)."""


@dataclass(frozen=True)
class Die:
    """One die as the camera saw it.

    ``pips`` is what the camera saw; ``face`` is the value that counts (``7 - pips`` seen
    from below the glass, ``pips`` seen from above). ``x``, ``y`` are the centre and
    ``size`` the side of the die, in pixels of the photograph. ``colour_round``: for a die
    seen with one pip, the colour round its middle where it differs from ``colour`` (the
    middle's), which a set's ace symbol may fill; whose die it is weighs both.
    """

    face: int
    pips: int
    x: int
    y: int
    size: int
    confidence: float
    colour: str
    colour_round: str | None = None

    def to_json(self) -> dict[str, object]:
        """The die as in the ``dudo scan --json`` contract."""
        return {
            "face": self.face,
            "pips": self.pips,
            "x": self.x,
            "y": self.y,
            "size": self.size,
            "confidence": round(self.confidence, 3),
            "colour": self.colour,
        }


@dataclass(frozen=True)
class Reading:
    """Every die seen in one photograph, the view it was read from, and stage times in ms.

    ``smeared``: the photograph is smeared one way (the camera or the table moved as it was
    taken), so every die is doubted: another picture would read better. ``too_small``: its
    dice are too few pixels across to be read surely, so every die is doubted too; or some
    of them are, and those are doubted.
    ``slanted``: taken slantwise, the dice it squashes most are doubted (not all of them).
    ``squashed``: its dice together are squashed one way (the camera looked slantwise, or a
    tool stretched the photograph to a square); the dice ``slanted`` doubts are told so.
    ``too_dark``, ``burnt_out``, ``out_of_focus``: its light or focus is too poor to read
    any die surely (:mod:`vision.light`), so every die is doubted; said even where no die
    was read (focus then judged at the places the locator is sure of, if a few).
    ``hard_to_read``: the reader doubted most of its dice on their own, so the few it read
    surely are doubted with them (unless read ``each_die_alone``, see ``read_dice``).
    """

    dice: tuple[Die, ...]
    view: str
    ms: dict[str, float] = field(default_factory=dict)
    width: int = 0
    height: int = 0
    doubt_threshold: float = DEFAULT_DOUBT_THRESHOLD
    smeared: bool = False
    too_small: bool = False
    slanted: bool = False
    squashed: bool = False
    too_dark: bool = False
    burnt_out: bool = False
    out_of_focus: bool = False
    hard_to_read: bool = False

    @property
    def pleas(self) -> tuple[str, ...]:
        """Why the picture's dice are doubted, in the players' words (none where each die is
        judged on its own)."""
        return ((TOO_DARK,) * self.too_dark + (BURNT_OUT,) * self.burnt_out
                + (OUT_OF_FOCUS,) * self.out_of_focus + (SMEARED,) * self.smeared
                + (TOO_SMALL,) * self.too_small
                + (SQUASHED if self.squashed else SLANTED,) * self.slanted
                + (HARD_TO_READ,) * self.hard_to_read)

    @property
    def counts(self) -> dict[int, int]:
        """How many dice show each face that counts, faces 1..6, zeros included."""
        counts = dict.fromkeys(FACES, 0)
        for die in self.dice:
            counts[die.face] += 1
        return counts

    @property
    def total(self) -> int:
        """How many dice were seen."""
        return len(self.dice)

    @property
    def doubtful(self) -> tuple[Die, ...]:
        """The dice read with a confidence below the config's threshold."""
        return tuple(d for d in self.dice if d.confidence < self.doubt_threshold)

    def to_json(self, image_name: str) -> dict[str, object]:
        """The reading as one ``dudo scan --json`` object; ``pleas`` (an extension of the
        contract) only where the picture's dice are doubted for the picture."""
        result: dict[str, object] = {
            "image": image_name,
            "view": self.view,
            "total": self.total,
            "counts": {str(face): n for face, n in self.counts.items()},
            "dice": [die.to_json() for die in self.dice],
            "ms": round(self.ms.get("total", 0.0), 1),
        }
        if self.pleas:  # a black frame is no empty table: a script is told why
            result["pleas"] = list(self.pleas)
        return result
