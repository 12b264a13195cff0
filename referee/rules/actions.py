"""The five kinds of action, as immutable msgspec structs.

They are the same objects in Python and on the wire: ``Bid(31)`` is
``{"type": "bid", "points": 31}``, ``Play(Tile(3, 5))`` is ``{"type": "play", "tile": [3, 5]}``.
Every action the engine ever offers is one of the interned instances below, so
building legal-action lists allocates nothing.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec

from referee.rules.tiles import SUIT_NAMES, TILES, Tile

#: A trump choice: a number 0-6, ``"doubles"``, or ``"no_trump"`` (doubles high, "follow me").
Trump = Annotated[int, msgspec.Meta(ge=0, le=6)] | Literal["doubles", "no_trump"]
DOUBLES: Final = "doubles"
NO_TRUMP: Final = "no_trump"
TRUMPS: Final[tuple[Trump, ...]] = (0, 1, 2, 3, 4, 5, 6, DOUBLES, NO_TRUMP)

MIN_POINT_BID: Final = 30
MAX_POINT_BID: Final = 41
FIRST_ALL_TRICKS_BIDS: Final = (1, 2)


def counted(number: int, noun: str) -> str:
    """``counted(2, "mark")`` -> ``"2 marks"``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def trump_name(trump: Trump) -> str:
    """``6`` -> ``"sixes"``, ``"no_trump"`` -> ``"no trump"``."""
    if trump == NO_TRUMP:
        return "no trump"
    if trump == DOUBLES:
        return "doubles"
    if type(trump) is int and trump in SUIT_NAMES:
        return SUIT_NAMES[trump]
    return repr(trump)  # not a trump: still printable, so the error about it can be raised


class _Action(
    msgspec.Struct,
    frozen=True,
    tag_field="type",
    forbid_unknown_fields=True,
    omit_defaults=True,
):
    pass


class Pass(_Action, frozen=True, tag="pass"):
    """Decline to bid (bidding only: in play every seat must play a tile)."""

    def __str__(self) -> str:
        return "pass"


class Bid(_Action, frozen=True, tag="bid"):
    """A point bid: the declarers promise at least ``points`` (30-41) hand points; worth 1 mark."""

    points: Annotated[int, msgspec.Meta(ge=30, le=41)]

    def __str__(self) -> str:
        return f"bid {self.points}"


class AllTricksBid(_Action, frozen=True, tag="all_tricks"):
    """A bid to take every trick, stated in ``marks``: 1 or 2 first, then exactly one more."""

    marks: Annotated[int, msgspec.Meta(ge=1)]

    def __str__(self) -> str:
        return f"all tricks for {counted(self.marks, 'mark')}"


class DeclareTrump(_Action, frozen=True, tag="trump"):
    """The declarer's trump; ``piles`` (1 or 2 face-up piles) only for an all-tricks contract."""

    trump: Trump
    piles: Annotated[int, msgspec.Meta(ge=1, le=2)] | None = None

    def __str__(self) -> str:
        shown = f", {counted(self.piles, 'pile')} face up" if self.piles else ""
        return f"trump {trump_name(self.trump)}{shown}"


class Play(_Action, frozen=True, tag="play"):
    """Play a tile to the current trick."""

    tile: Tile

    def __str__(self) -> str:
        return f"play {self.tile}"


Action = Pass | Bid | AllTricksBid | DeclareTrump | Play

PASS: Final = Pass()
POINT_BIDS: Final[dict[int, Bid]] = {p: Bid(p) for p in range(MIN_POINT_BID, MAX_POINT_BID + 1)}
ALL_TRICKS_BIDS: Final[dict[int, AllTricksBid]] = {m: AllTricksBid(m) for m in range(1, 6)}
POINT_DECLARATIONS: Final[tuple[DeclareTrump, ...]] = tuple(DeclareTrump(t) for t in TRUMPS)
ALL_TRICKS_DECLARATIONS: Final[tuple[DeclareTrump, ...]] = tuple(
    DeclareTrump(t, piles) for t in TRUMPS for piles in (1, 2)
)
PLAYS: Final[dict[Tile, Play]] = {t: Play(t) for t in TILES}
