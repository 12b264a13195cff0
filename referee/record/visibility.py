"""What each perspective may see of a match: ``all`` (everything, for after the match), one
seat (what the match showed it), and ``public`` (what everyone may see).

The text renderings (``render``), the viewer's steps (``pages.steps``) and the live table's
match end all ask here, so a rule about who sees what is written once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Final, Literal

from referee.rules.tiles import SEATS, Seat, Tile

if TYPE_CHECKING:
    from referee.record.records import Forfeit, MatchEndRecord
    from referee.rules.hand import Hand

Perspective = Literal["all", "public", "A", "B", "C", "D"]
PERSPECTIVES: Final[tuple[Perspective, ...]] = ("all", "public", "A", "B", "C", "D")


def sees_everything(perspectives: Iterable[str]) -> bool:
    """The seed, the digests and a forfeit's full detail are for ``all`` alone: the seed deals
    every hand; each digest hashes the deals, so a reader who knows every played tile could
    try the few ways the unplayed ones of a hand that ended early may lie; and a forfeit's
    detail can quote a refused play, which names tiles the seat held."""
    return "all" in perspectives


def reads_in_full(perspective: str, seat: Seat) -> bool:
    """A refused answer, an ignored line or a fault of ``seat``: ``all`` and that seat read it
    in full; any other perspective learns only what happened, never what was sent (a refused
    answer can name a tile its author holds)."""
    return perspective == "all" or perspective == seat


def may_time(perspectives: Iterable[str], seat: Seat) -> bool:
    """How long a seat took is for ``all`` and for that seat alone: a bot that thinks longer
    with more choices would tell how many tiles it could play."""
    shown = tuple(perspectives)
    return "all" in shown or seat in shown


def tiles_in_hand(perspective: Perspective, hand: Hand) -> dict[Seat, list[Tile]]:
    """The tiles in hand ``perspective`` sees: every seat's for ``all``, a seat's own from its
    view (``Match.view``), none for ``public``."""
    if perspective == "all":
        return {seat: list(hand.hands[seat]) for seat in SEATS}
    if perspective == "public":
        return {}
    return {perspective: list(hand.view(perspective).hand)}


def public_detail(detail: str, forfeit: Forfeit | None) -> str:
    """A match end's detail as every seat may read it: a forfeit's only says who and why —
    its full text can quote a refused play, which names tiles the seat held."""
    return detail if forfeit is None else f"{forfeit.seat} forfeits: {forfeit.reason}"


def end_detail(end: MatchEndRecord, everything: bool) -> str:
    """A match end's detail in full for ``all`` (``everything``), as ``public_detail`` says
    for everyone else."""
    return end.detail if everything else public_detail(end.detail, end.forfeit)
