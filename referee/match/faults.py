"""The fault policy at the table: what a bot's fault costs, and the action played for it.

The rules of the policy (strikes, the fault stream, the forced choice) are
``referee.settings``'s, shared with verify; this applies them to a seat.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Literal

from referee.errors import BotCrashed, BotFault, BotNotReading, Resigned
from referee.match.seat import SeatState
from referee.rules.actions import Action
from referee.rules.tiles import Seat
from referee.sandbox.overruns import explicable
from referee.settings import MatchSettings, fault_stream, forced_action, penalty

#: How the runner explains a bot's going away: ``(seat, fault) -> the fault to charge``.
Explain = Callable[[Seat, BotFault], Awaitable[BotFault]]


def gone(fault: BotFault) -> bool:
    """Did the bot go away (crashed, stopped reading)? It cannot answer again, and the runner
    may know precisely why (a sandbox bound, its exit status)."""
    return isinstance(fault, BotCrashed | BotNotReading)


def people_resign(explain: Explain | None, people: Collection[Seat]) -> Explain | None:
    """``explain``, where a person's seat that went away has resigned: a person's connection
    (``referee play``) closes only when they leave the match."""
    if not people:
        return explain

    async def resigned(seat: Seat, fault: BotFault) -> BotFault:
        if seat in people:  # no process: nothing else explains a person's fault
            return Resigned(f"the person playing {seat} left the match") if gone(fault) else fault
        return fault if explain is None else await explain(seat, fault)

    return resigned


async def explained(explain: Explain | None, seat: Seat, fault: BotFault) -> BotFault:
    """A bot that went away (crashed, stopped reading), or whose answers were refused or too
    long, is charged precisely (a sandbox bound it went over, its exit status); a timeout is
    looked into too (a seat on another machine may have been lost, which is no bot's fault:
    ``SeatLost`` is raised then)."""
    if explain is None or not explicable(fault):
        return fault
    return await explain(seat, fault)


class FaultPolicy:
    """The match's ``on_fault`` policy, its strikes and its seeded stream of forced actions."""

    __slots__ = ("_stream", "max_strikes", "on_fault")

    def __init__(self, settings: MatchSettings) -> None:
        self.on_fault = settings.on_fault
        self.max_strikes = settings.max_strikes
        self._stream = fault_stream(settings.seed)

    def penalty(self, seat: SeatState) -> Literal["forfeit", "random"]:
        """What the seat's fault costs; a strike is counted against it under ``random``."""
        cost, seat.strikes = penalty(self.on_fault, seat.strikes, self.max_strikes)
        return cost

    def forced(self, legal: list[Action]) -> Action:
        """The action played for a faulted seat that does not forfeit."""
        return forced_action(self._stream, legal)
