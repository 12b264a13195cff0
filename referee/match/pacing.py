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

from typing import Protocol

import trio

from referee.rules.tiles import Seat


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
