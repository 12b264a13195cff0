"""Verify's checks of a match's start-up, the records before its first deal: each seat's
``ready`` in seat order, the lines refused or ignored before it, the start-up faults, and the
restart of a kept process that failed to start its next match."""

from __future__ import annotations

from collections import Counter

from referee.record.checking import Disagreement, check_rejection_count, expect
from referee.record.records import BotReady, FaultRecord, IgnoredRecord, RejectedRecord
from referee.rules.tiles import SEATS, Seat
from referee.wire.answers import MAX_IGNORED
from referee.wire.messages import Limits


class StartUp:
    """What the start-up has shown so far; each ``on_`` method checks one record."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.ready: list[Seat] = []
        #: The start-up faults, in seat order: each forfeits (both sides: a void match).
        self.failed: list[FaultRecord] = []
        self.restarted: list[Seat] = []  # kept processes replaced at the start
        self.late: set[Seat] = set()  # seats whose answers were ignored before their ready
        self.rejections: Counter[Seat] = Counter()
        self.ignored: Counter[Seat] = Counter()  # late answers before each seat's ready

    @property
    def failed_seats(self) -> list[Seat]:
        return [fault.seat for fault in self.failed]

    def _ended_for(self, seat: Seat) -> bool:
        return seat in self.ready or seat in self.failed_seats

    def on_ready(self, record: BotReady) -> None:
        if self.failed:
            raise Disagreement("a ready record after the start-up")
        if self.ready and record.seat <= self.ready[-1]:
            raise Disagreement(
                f"ready records out of seat order: {record.seat} after {self.ready[-1]}"
            )
        self.ready.append(record.seat)
        expect("reused (previous matches > 0)", record.previous_matches > 0, record.reused)
        if record.seat in self.restarted and record.reused:
            raise Disagreement(f"{record.seat}'s process was replaced, yet its ready says reused")
        if record.seat in self.late and not record.reused:
            raise Disagreement(
                f"an answer ignored before {record.seat}'s ready from a fresh process"
            )

    def check_first_deal(self) -> None:
        """The first deal comes once every seat answered ``hello``."""
        if self.failed:
            raise Disagreement("a deal after a bot failed to start")
        expect("seats that answered hello", list(SEATS), self.ready)

    def on_rejected(self, record: RejectedRecord) -> None:
        expect("id of a start-up rejection", 0, record.id)
        if self._ended_for(record.seat):
            raise Disagreement(f"a start-up rejection for {record.seat} after its start-up ended")
        self.rejections[record.seat] += 1
        if self.rejections[record.seat] > self.limits.max_rejections:
            raise Disagreement("more start-up rejections than max_rejections")

    def on_ignored(self, record: IgnoredRecord) -> None:
        """A kept bot's late answer to its last match (its ready says reused)."""
        expect("expected id of an answer before ready", 0, record.expected_id)
        if self._ended_for(record.seat):
            raise Disagreement(f"an ignored answer from {record.seat} after its start-up ended")
        self.late.add(record.seat)
        self.ignored[record.seat] += 1
        if self.ignored[record.seat] > MAX_IGNORED:
            raise Disagreement(f"more than {MAX_IGNORED} ignored answers before a ready")

    def on_fault(self, record: FaultRecord) -> None:
        refused, ignored = self.rejections[record.seat], self.ignored[record.seat]
        if record.penalty == "restart":
            if self.ready or self.failed:
                raise Disagreement(f"a restart of {record.seat} after the start-up ended")
            expect("strikes of a restart", 0, record.strikes)
            if record.seat in self.restarted:
                raise Disagreement(f"a second restart of {record.seat}")
            check_rejection_count(record.reason, self.limits.max_rejections, refused, ignored)
            self.restarted.append(record.seat)
            self.rejections[record.seat] = 0  # the fresh process has its own
            self.ignored[record.seat] = 0
            self.late.discard(record.seat)  # the late answers were the replaced process's
            return
        expect("penalty of a start-up fault", "forfeit", record.penalty)
        if self._ended_for(record.seat):
            raise Disagreement(f"a start-up fault for {record.seat}, which already started")
        if self.failed and record.seat <= self.failed[-1].seat:
            raise Disagreement("start-up faults out of seat order")
        check_rejection_count(record.reason, self.limits.max_rejections, refused, ignored)
        self.failed.append(record)
