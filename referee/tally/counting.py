"""One log counted: a single walk through ``record.walk``, seat by seat and side by side.

What a seat did — its contracts as declarer, its decision times, its faults and refused
answers — is counted per seat; what a partnership got — hands, marks, contracts defended and
set — per side. ``tally`` then gives each seat's numbers to the entrant that sat there.

The result of every hand comes from the rules engine as the walk plays the moves, never from
the log's own ``hand_end`` records; a move the rules refuse stops the count (``Uncountable``),
and none of such a log is added. A decision's time is the one its record gives: the accepted
answer's ``latency_ms`` (the whole decision: the clock runs on through refused answers), or
the fault's when it ended in one (a timeout counts at the time it took). A forced move, the
fault policy's, has no time of its own. ``start-up`` is the time from ``hello`` to ``ready``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Final, Literal

from referee.errors import IllegalAction
from referee.record.log import LogFile
from referee.record.records import (
    ActRecord,
    BotReady,
    DealRecord,
    EndReason,
    FaultRecord,
    IgnoredRecord,
    MatchEndRecord,
    MoveRecord,
    RejectedRecord,
    Timing,
)
from referee.record.walk import LogWalk
from referee.rules import AllTricksBid, Bid, HandEnded, HandResult, Trump
from referee.rules.tiles import PARTNERSHIPS, SEATS, Partnership, Seat

Phase = Literal["start-up", "bidding", "declaring", "playing"]
#: The phases decision times are kept by, in the order a match goes through them.
PHASES: Final[tuple[Phase, ...]] = ("start-up", "bidding", "declaring", "playing")

#: The bid that won the auction: a point bid or an all-tricks bid.
WinningBid = Bid | AllTricksBid
#: A contract as counted: the winning bid, the trump, and whether it was made.
ContractKey = tuple[WinningBid, Trump, bool]


class Uncountable(Exception):
    """A log whose numbers cannot be trusted; the message says why (and where)."""


@dataclass
class SeatCounts:
    """What the bot in one seat did."""

    contracts: Counter[ContractKey] = field(default_factory=Counter)
    #: Milliseconds per decision, by phase.
    times: dict[Phase, list[float]] = field(default_factory=lambda: {p: [] for p in PHASES})
    faults: Counter[str] = field(default_factory=Counter)
    #: Refused answers by reason, and ``ignored`` ones (a stale or wrong id): not faults.
    refused: Counter[str] = field(default_factory=Counter)


@dataclass
class SideCounts:
    """What one partnership got: hands finished (passed ones among them), marks scored, and
    the opponents' contracts it defended and set."""

    hands: int = 0
    passed: int = 0
    marks: int = 0
    defended: int = 0
    set: int = 0


@dataclass
class LogCounts:
    """A whole log's counts, by seat and by side."""

    #: The name each seat's bot gave in ``ready``; the command for a bot that never did.
    names: dict[Seat, str]
    seats: dict[Seat, SeatCounts] = field(default_factory=lambda: {s: SeatCounts() for s in SEATS})
    sides: dict[Partnership, SideCounts] = field(
        default_factory=lambda: {p: SideCounts() for p in PARTNERSHIPS}
    )
    end: EndReason | None = None
    #: The seat whose fault lost the match, if one did.
    forfeit: Seat | None = None

    @property
    def void(self) -> bool:
        """Bots of both sides failed to start: no match was played."""
        return self.end == "void"

    def hand_ended(self, result: HandResult) -> None:
        for side in self.sides.values():
            side.hands += 1
        contract = result.contract
        if result.outcome == "passed" or contract is None:
            for side in self.sides.values():
                side.passed += 1
            return
        made = result.outcome == "made"
        if result.winner is not None:
            self.sides[result.winner].marks += result.marks
        self.seats[contract.declarer].contracts[contract.bid, contract.trump, made] += 1
        defenders = self.sides[contract.defenders]
        defenders.defended += 1
        defenders.set += not made


#: The phase of the hand a decision was asked in (a hand is never over while one is asked).
_PHASE: Final[dict[str, Phase]] = {
    "bidding": "bidding",
    "declaring": "declaring",
    "playing": "playing",
    "over": "playing",
}


def _latency(timing: Timing | None) -> float | None:
    return None if timing is None else timing.latency_ms


def count_log(log: LogFile) -> LogCounts:
    """Walk ``log`` once and count it; ``Uncountable`` for a move the rules refuse."""
    counts = LogCounts(names=dict(log.header.bots))
    seats = counts.seats
    dealt = False
    for at in LogWalk(log.records):
        record = at.record
        if isinstance(record, ActRecord):
            continue  # the most common record, and nothing to count
        if isinstance(record, MoveRecord):
            latency = None if record.forced else _latency(record.timing)
            if latency is not None:
                seats[record.seat].times[_PHASE[at.hand.phase]].append(latency)
            try:
                events = at.play()
            except IllegalAction as exc:
                raise Uncountable(f"line {at.line}: a move the rules refuse ({exc})") from None
            for event in events:
                if isinstance(event, HandEnded):
                    counts.hand_ended(event.result)
        elif isinstance(record, DealRecord):
            dealt = True
        elif isinstance(record, FaultRecord):
            seats[record.seat].faults[record.reason] += 1
            latency = _latency(record.timing)
            if latency is not None:
                phase = _PHASE[at.hand.phase] if dealt else "start-up"
                seats[record.seat].times[phase].append(latency)
        elif isinstance(record, RejectedRecord):
            seats[record.seat].refused[record.reason] += 1
        elif isinstance(record, IgnoredRecord):
            seats[record.seat].refused["ignored"] += 1
        elif isinstance(record, BotReady):
            if record.name:
                counts.names[record.seat] = record.name
            latency = _latency(record.timing)
            if latency is not None:
                seats[record.seat].times["start-up"].append(latency)
        elif isinstance(record, MatchEndRecord):
            counts.end = record.end
            counts.forfeit = record.forfeit.seat if record.forfeit else None
    return counts
