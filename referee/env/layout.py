"""The layouts of the two tensors a seat gets: its information state and its observation.

Both are flat float32 vectors of 0s and 1s (marks and hand sizes are fractions of 7), in
blocks named here once: the encoders write by these offsets, ``docs/env.md`` prints these
tables, and a test holds the two equal. Seats are always *relative* to the seat the tensor
is for — 0 itself, 1 the seat on its left (next to act after it), 2 its partner, 3 the seat
on its right — so one network serves every seat. "us" is the seat's partnership.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from referee.env.actions import BIDDING_ACTIONS, FIRST_POINT_TRUMP, SIZE
from referee.rules.actions import TRUMPS
from referee.rules.tiles import TILES

TILE_COUNT: Final = len(TILES)
#: Acted events in one hand at most: 4 bids, 1 declaration, 28 plays.
MAX_ACTED: Final = 4 + 1 + TILE_COUNT
#: A history slot: who acted (4, relative) then the action's index (one-hot over 73).
ACTED_SIZE: Final = 4 + SIZE
#: A pile slot: taken, seen, won by us, won by them, its tiles (28).
PILE_SIZE: Final = 4 + TILE_COUNT
#: A trick slot: who played (4, relative) then the tile (28).
PLAYED_SIZE: Final = 4 + TILE_COUNT
#: A contract: declarer (4, relative), the bid (index 1-17 at 0-16), trump (9), piles (2).
CONTRACT_SIZE: Final = 4 + (FIRST_POINT_TRUMP - 1) + len(TRUMPS) + 2


class Field(NamedTuple):
    """One block of a tensor: its name, where it starts, how many floats, what they mean."""

    name: str
    offset: int
    size: int
    meaning: str


class Layout:
    """Named blocks laid end to end; ``layout["hand"]`` is a block's ``Field``."""

    def __init__(self, name: str, blocks: list[tuple[str, int, str]]) -> None:
        self.name = name
        fields: list[Field] = []
        offset = 0
        for field_name, size, meaning in blocks:
            fields.append(Field(field_name, offset, size, meaning))
            offset += size
        self.fields: tuple[Field, ...] = tuple(fields)
        self.size = offset
        self._by_name = {f.name: f for f in fields}

    def __getitem__(self, name: str) -> Field:
        return self._by_name[name]

    def table(self) -> str:
        """The layout as a Markdown table (``docs/env.md`` holds it; a test compares)."""
        rows = ["| offset | size | block | meaning |", "| ---: | ---: | --- | --- |"]
        rows += [f"| {f.offset} | {f.size} | `{f.name}` | {f.meaning} |" for f in self.fields]
        return "\n".join(rows)


_SEAT = "one-hot over the 4 relative seats"

INFORMATION_STATE: Final = Layout(
    "information state",
    [
        ("dealer", 4, f"the dealer, {_SEAT}"),
        ("marks", 2, "marks before this hand: us, them (each marks / 7)"),
        ("dealt", TILE_COUNT, "the seven tiles this seat was dealt (one per tile, `TILES` order)"),
        (
            "history",
            MAX_ACTED * ACTED_SIZE,
            f"every `acted` event of the hand in order, {MAX_ACTED} slots of {ACTED_SIZE}:"
            f" who acted ({_SEAT}), then the action's index (one-hot over {SIZE});"
            " slots after the last event are zero",
        ),
    ],
)

OBSERVATION: Final = Layout(
    "observation",
    [
        ("dealer", 4, f"the dealer, {_SEAT}"),
        ("marks", 2, "marks before this hand: us, them (each marks / 7)"),
        ("phase", 4, "bidding, declaring, playing, over (one-hot)"),
        ("turn", 4, f"the seat to act, {_SEAT}; zero once the hand is over"),
        ("hand", TILE_COUNT, "the tiles this seat holds now (one per tile, `TILES` order)"),
        ("hand_sizes", 4, "tiles each relative seat holds (count / 7)"),
        (
            "bids",
            4 * BIDDING_ACTIONS,
            f"the bids in bidding order (the first is left of the dealer), 4 slots of"
            f" {BIDDING_ACTIONS}: the action's index 0-{BIDDING_ACTIONS - 1} one-hot",
        ),
        (
            "contract",
            CONTRACT_SIZE,
            f"declarer ({_SEAT}), the winning bid (index 1-{FIRST_POINT_TRUMP - 1} one-hot at"
            f" 0-{FIRST_POINT_TRUMP - 2}), trump (0-6, doubles, no trump), piles face up (1, 2);"
            " zero before trump is declared",
        ),
        (
            "trick",
            4 * PLAYED_SIZE,
            f"the trick in progress in play order, 4 slots of {PLAYED_SIZE}: who ({_SEAT}),"
            " the tile (one-hot)",
        ),
        (
            "piles",
            7 * PILE_SIZE,
            f"captured tricks by number, 7 slots of {PILE_SIZE}: taken, seen (not covered),"
            " won by us, won by them, its tiles (covered piles: taken only)",
        ),
    ],
)
