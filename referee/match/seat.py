"""One seat at the table: its bot's connection and everything the match keeps about it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from referee.errors import BotFault, reason_code
from referee.match.connection import BotConnection
from referee.record.records import FaultRecord, Timing
from referee.rules.tiles import Seat
from referee.settings import Penalty
from referee.wire.messages import Matches, PublicEvent


@dataclass(eq=False, slots=True)
class SeatState:
    """A seat's bot and its standing in this match.

    A seat without a connection failed to start (``dead`` says why).
    """

    seat: Seat
    connection: BotConnection | None
    #: Seconds of time bank left.
    bank: float
    #: The matches its process played before this one (0: started for it).
    previous_matches: int = 0
    #: The name its ``ready`` gave.
    name: str = ""
    #: Faults and refused and ignored answers, by reason (as ``match_end`` counts them).
    faults: Counter[str] = field(default_factory=Counter)
    strikes: int = 0
    #: The first fault charged against it in this match (why its bot failed, if it did).
    first_fault: FaultRecord | None = None
    #: Why its bot can no longer play (it failed to start, crashed or stopped reading).
    dead: BotFault | None = None
    #: What its ``ready`` said it can play; with ``charged`` and ``delivered`` it says whether
    #: the process may be kept for another match.
    declared: Matches | None = None
    charged: bool = False
    delivered: bool = False
    #: Public events it has not been told yet (they go out with its next message).
    pending: list[PublicEvent] = field(default_factory=list)
    #: ``hand_end`` lines waiting to go out in the same write as its next message: one write
    #: and one wake-up of the bot fewer per seat and hand.
    outbox: bytearray = field(default_factory=bytearray)

    @property
    def bot(self) -> BotConnection:
        assert self.connection is not None
        return self.connection

    def take_events(self) -> list[PublicEvent]:
        events, self.pending = self.pending, []
        return events

    def take_outbox(self) -> bytes:
        """Messages that need no answer (``hand_end``), waiting to go with the next one."""
        lines = bytes(self.outbox)
        self.outbox.clear()
        return lines

    def charge(
        self, fault: BotFault, penalty: Penalty, act_id: int | None, timing: Timing | None
    ) -> FaultRecord:
        """Count the fault against the seat; its record for the log."""
        code = reason_code(fault)
        self.faults[code] += 1
        if penalty != "restart":  # a restart's fault is the process's it replaced
            self.charged = True
        record = FaultRecord(
            seat=self.seat,
            reason=code,
            detail=str(fault),
            penalty=penalty,
            strikes=self.strikes,
            id=act_id,
            timing=timing,
        )
        if self.first_fault is None:
            self.first_fault = record
        return record
