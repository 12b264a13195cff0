"""The match's clock: the start-up limit, the move timeout and each seat's time bank.

One deadline covers a whole decision (a refused answer does not stop the clock): the move
timeout plus what is left of the seat's bank, which only the overrun past the move timeout
is taken from.

A seat played by a person (``referee play``) is untimed: its decisions have no deadline and
its bank is never drawn on; the other seats keep their clocks.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import Final

import trio

from referee.match.seat import SeatState
from referee.record.records import Timing
from referee.rules.tiles import Seat
from referee.settings import MatchLimits

#: What an ``act`` to an untimed seat says is left: about 24 days, the most a 32-bit integer
#: holds (an untimed seat is in the referee's own process, which does not read it).
UNTIMED_MS: Final = 2**31 - 1


class Clock:
    """The limits of time a match is played under (read from its settings once)."""

    __slots__ = ("move_timeout", "startup_timeout", "time_bank", "untimed")

    def __init__(self, limits: MatchLimits, untimed: Collection[Seat] = ()) -> None:
        self.move_timeout = limits.move_timeout
        self.startup_timeout = limits.startup_timeout
        #: Each seat's bank at the start of the match.
        self.time_bank = limits.time_bank
        #: The seats whose decisions have no time limit (a person's).
        self.untimed = frozenset(untimed)

    def startup_deadline(self, started: float) -> float:
        """When a bot greeted at ``started`` must have said ``ready``."""
        return started + self.startup_timeout

    def deadline(self, seat: SeatState, started: float) -> float:
        """When the seat's decision begun at ``started`` must have been answered (never, for
        an untimed seat)."""
        if seat.seat in self.untimed:
            return math.inf
        return started + self.move_timeout + seat.bank

    def debit(self, seat: SeatState, started: float) -> Timing:
        """Stop the seat's clock: its bank pays for the overrun; the decision's timing."""
        elapsed = trio.current_time() - started
        if seat.seat not in self.untimed:
            overrun = max(0.0, elapsed - self.move_timeout)
            seat.bank = max(0.0, seat.bank - overrun)
        relay = seat.connection.relay if seat.connection is not None else None
        relay_ms = relay.take() if relay is not None else None
        return Timing(latency_ms=elapsed * 1000, bank_ms=seat.bank * 1000, relay_ms=relay_ms)


def time_left_ms(deadline: float) -> int:
    """Whole milliseconds until ``deadline``, as an ``act`` tells them (never negative;
    ``UNTIMED_MS`` for an untimed seat's)."""
    if deadline == math.inf:
        return UNTIMED_MS
    return max(0, int((deadline - trio.current_time()) * 1000))
