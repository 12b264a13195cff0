"""Turns for a final: messages released on a public beat, and idle seats stopped.

A seat learns nothing from *when* its messages come only if that time depends on nothing but
the public state. Under ``--pace`` every decision's deadline lies on a fixed grid — the play
begins at the start-up deadline, and each decision ends one move timeout after the one before
— and the referee holds the outcome (the next ``act`` to whoever acts next, a forfeit's
``match_end``) until that deadline: a partner that answers at once and one that thinks to the
last millisecond look the same to everyone else. What remains is what the rules make public
anyway: a bot that overruns is charged a timeout, and every seat is told of the fault.

Under ``--freeze-idle`` a seat's processes are stopped while it is not its turn, so partners
never run at the same time (no CPU contention between them, and nothing computed while the
other acts); its clock starts once it runs again.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Protocol

import trio

from referee.match.seat import SeatState
from referee.rules.tiles import Seat
from referee.settings import MatchLimits


class IdleSeats(Protocol):
    """What stops and restarts a seat's processes (``SIGSTOP`` and ``SIGCONT`` to its group)."""

    def freeze(self, seat: Seat) -> None: ...

    def thaw(self, seat: Seat) -> None: ...


class Beat:
    """The grid of deadlines under ``--pace``: one move timeout apart, from the start-up
    deadline on."""

    __slots__ = ("last", "period")

    def __init__(self, period: float) -> None:
        self.period = period
        #: The deadline of the last decision (the start-up deadline before the first).
        self.last: float | None = None

    def start(self, when: float) -> None:
        self.last = when

    def deadline(self) -> float:
        """The next decision's deadline: one period after the last, or after now when the
        referee has fallen behind the grid (only after a decision that had no deadline, a
        person's)."""
        now = trio.current_time()
        behind = self.last is None or self.last < now - self.period
        self.last = (now if behind or self.last is None else self.last) + self.period
        return self.last

    @staticmethod
    async def release(when: float) -> None:
        """Hold what comes next until ``when``."""
        await trio.sleep_until(when)


class Turns:
    """When each seat hears and runs, for the table: the beat (``--pace``) and the stopping
    of idle seats (``--freeze-idle``), each only when asked."""

    def __init__(
        self, limits: MatchLimits, seats: Mapping[Seat, SeatState], idle: IdleSeats | None
    ) -> None:
        self.beat = Beat(limits.move_timeout) if limits.pace else None
        self.idle = idle if limits.freeze_idle else None
        self.seats = seats

    async def open(self, opening: float) -> None:
        """Before the first decision: under pace, wait for ``opening`` (the start-up deadline:
        how long the bots took to start is nobody's business); then stop every seat."""
        if self.beat is not None:
            self.beat.start(opening)
            await self.beat.release(opening)
        if self.idle is not None:
            for seat, state in self.seats.items():
                if state.dead is None and state.connection is not None:
                    self.idle.freeze(seat)

    def begin(self, state: SeatState, deadline: float) -> float:
        """The seat is to decide: it runs again; its deadline (the beat's, under pace)."""
        if self.idle is not None and state.dead is None:
            self.idle.thaw(state.seat)
        if self.beat is not None and deadline != math.inf:
            return self.beat.deadline()
        return deadline

    def answered(self, seat: Seat) -> None:
        """The seat's decision is over (its answer read, or its fault): it stops."""
        if self.idle is not None:
            self.idle.freeze(seat)

    def explaining(self, deadline: float) -> AbstractContextManager[object]:
        """Under pace, how a bot went away is looked into only until the deadline: a bot that
        closes its output and exits when it likes must not move the outcome off the grid
        (past the deadline its fault is charged as it was seen)."""
        if self.beat is not None and deadline != math.inf:
            return trio.move_on_at(deadline)
        return contextlib.nullcontext()

    async def release(self, deadline: float) -> None:
        """Hold the decision's outcome until its deadline, under pace."""
        if self.beat is not None and deadline != math.inf:
            await self.beat.release(deadline)

    def close(self) -> None:
        """Every seat running again: to hear the end, or to be closed."""
        if self.idle is not None:
            for seat in self.seats:
                self.idle.thaw(seat)
