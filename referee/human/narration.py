"""The public events of a match told as sentences for the person at the table.

Bids, passes and trump are told as they come; the tiles of a trick are gathered and told
once the trick is taken, with who played what and who took it (the trick still on the table
is drawn by the screen from the view). Only public events are told here: what every seat is
sent, never a tile before it is played.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.rules.actions import AllTricksBid, Bid, DeclareTrump, Pass, Play, counted
from referee.rules.contract import side_name
from referee.rules.events import Acted, HandStarted, TrickTaken
from referee.rules.tiles import Seat, Tile
from referee.wire.messages import Forced, PublicEvent


@dataclass(frozen=True)
class NewHand:
    """A hand was dealt: the screen draws a rule across."""

    number: int
    dealer: Seat


class Narrator:
    """Tells the events one by one, remembering the plays of the trick in progress."""

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        #: The plays of the trick in progress, in order.
        self.trick: list[tuple[Seat, Tile]] = []

    def who(self, seat: Seat) -> str:
        return "you" if seat == self.seat else seat

    def _verb(self, seat: Seat, verb: str) -> str:
        """``you pass`` but ``C passes``."""
        if seat == self.seat:
            return f"you {verb}"
        return f"{seat} {verb}{'es' if verb.endswith('ss') else 's'}"

    def tell(self, event: PublicEvent) -> str | NewHand | None:
        """The sentence for ``event`` (None for a play: it is told with its trick)."""
        if isinstance(event, HandStarted):
            self.trick = []
            return NewHand(event.hand_number, event.dealer)
        if isinstance(event, Forced):
            return f"the referee plays for {self.who(event.seat)} ({event.reason})"
        if isinstance(event, TrickTaken):
            return self._trick(event)
        return self._acted(event)

    def _acted(self, event: Acted) -> str | None:
        seat, action = event.seat, event.action
        if isinstance(action, Play):
            self.trick.append((seat, action.tile))
            return None
        if isinstance(action, Pass):
            return self._verb(seat, "pass")
        if isinstance(action, Bid):
            return f"{self._verb(seat, 'bid')} {action.points}"
        if isinstance(action, AllTricksBid):
            return f"{self._verb(seat, 'bid')} all tricks for {counted(action.marks, 'mark')}"
        assert isinstance(action, DeclareTrump)
        return f"{self._verb(seat, 'name')} {action}"

    def _trick(self, event: TrickTaken) -> str:
        plays = " · ".join(f"{self.who(seat)} {tile}" for seat, tile in self.trick)
        self.trick = []
        taker = "you take" if event.winner == self.seat else f"{event.winner} takes"
        points = counted(event.points, "point")
        return f"trick {event.trick}: {plays} → {taker} it, {points} for {side_name(event.side)}"
