"""Tiles, seats, partnerships and the fixed facts of the double-six set.

Seats and partnerships are plain strings ("A".."D", "AC"/"BD") because they are
what a bot reads on the wire and what a person reads in a log; the tables below
make every rule lookup a single dict access.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal, NamedTuple

import msgspec

Seat = Literal["A", "B", "C", "D"]
Partnership = Literal["AC", "BD"]

SEATS: Final[tuple[Seat, ...]] = ("A", "B", "C", "D")
PARTNERSHIPS: Final[tuple[Partnership, ...]] = ("AC", "BD")

#: The next seat clockwise ("left of X").
LEFT_OF: Final[dict[Seat, Seat]] = {"A": "B", "B": "C", "C": "D", "D": "A"}
PARTNER_OF: Final[dict[Seat, Seat]] = {"A": "C", "B": "D", "C": "A", "D": "B"}
PARTNERSHIP_OF: Final[dict[Seat, Partnership]] = {"A": "AC", "B": "BD", "C": "AC", "D": "BD"}
OPPONENTS_OF: Final[dict[Partnership, Partnership]] = {"AC": "BD", "BD": "AC"}


def seats_from(first: Seat) -> tuple[Seat, Seat, Seat, Seat]:
    """The four seats in clockwise order, starting with ``first``."""
    i = SEATS.index(first)
    return (SEATS[i], SEATS[(i + 1) % 4], SEATS[(i + 2) % 4], SEATS[(i + 3) % 4])


class Tile(NamedTuple):
    """One domino, always ``low <= high``; written ``[low|high]`` and sent as ``[low, high]``."""

    low: Annotated[int, msgspec.Meta(ge=0, le=6)]
    high: Annotated[int, msgspec.Meta(ge=0, le=6)]

    def __str__(self) -> str:
        return f"[{self.low}|{self.high}]"

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    @property
    def points(self) -> int:
        """Hand points this tile is worth to the partnership that captures it."""
        return COUNT[self]


#: The 28 tiles in canonical order: by low half, then high half ([0|0], [0|1], ... [6|6]).
TILES: Final[tuple[Tile, ...]] = tuple(Tile(lo, hi) for lo in range(7) for hi in range(lo, 7))

#: Count tiles and their value; every other tile is worth nothing.
COUNT: Final[dict[Tile, int]] = {t: 0 for t in TILES} | {
    Tile(0, 5): 5,
    Tile(1, 4): 5,
    Tile(2, 3): 5,
    Tile(4, 6): 10,
    Tile(5, 5): 10,
}

POINTS_PER_TRICK: Final = 1
TOTAL_POINTS: Final = 42  # 35 in count tiles + 7 tricks
TRICKS_PER_HAND: Final = 7
MARKS_TO_WIN: Final = 7

SUIT_NAMES: Final[dict[int, str]] = {
    0: "blanks",
    1: "ones",
    2: "twos",
    3: "threes",
    4: "fours",
    5: "fives",
    6: "sixes",
}


def tile(text: str) -> Tile:
    """Parse ``"[3|5]"``, ``"3|5"``, ``"5-3"`` or ``"35"`` into a tile (halves in any order)."""
    digits = [int(c) for c in text if c.isdigit()]
    if len(digits) != 2 or max(digits) > 6:
        raise ValueError(f"not a double-six tile: {text!r}")
    lo, hi = sorted(digits)
    return Tile(lo, hi)
