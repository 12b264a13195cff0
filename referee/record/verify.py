"""Verifying a replay log: re-simulate the match with the rules engine, record by record.

``verify`` trusts nothing in the log but the seed and the limits in its header. It checks the
chain (no record edited, removed, duplicated or moved; nothing cut off), then replays the
match: every deal and dealer, every legal-action list, that every accepted action was legal
and answered the act it names (or was the fault policy's own seeded choice), every rejection's
reason and rule, every trick's winner and points, every early end, every hand's marks, the
fault and strike counts, the winner, and the game digest. The first record that disagrees
raises ``VerificationError`` with its line and what was expected there.

The re-simulation is the log walk (``record.walk``); the checks on top of it are the start-up's
(``record.startup``), the decisions' (``record.decisions``) and the end's, here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from referee.errors import LogError, Resigned, VerificationError, reason_code
from referee.record.checking import Disagreement, expect, show
from referee.record.decisions import Decisions
from referee.record.events import deal_record, event_record
from referee.record.log import LogFile
from referee.record.records import (
    REJECTION_REASONS,
    ActRecord,
    BotReady,
    DealRecord,
    FaultRecord,
    GameForfeit,
    GameHand,
    GameMove,
    GameRecord,
    HandEndRecord,
    Header,
    IgnoredRecord,
    LogRecord,
    MatchEndRecord,
    MoveRecord,
    RejectedRecord,
    TrickRecord,
    game_digest,
)
from referee.record.startup import StartUp
from referee.record.walk import LogWalk, Moment
from referee.rules.tiles import OPPONENTS_OF, PARTNERSHIP_OF, SEATS, Partnership, Seat
from referee.settings import fault_stream

#: The reasons a ``rejected`` record may give (``ignored`` answers have records of their own).
_REFUSED: Final = REJECTION_REASONS - {"ignored"}


@dataclass(frozen=True)
class Verified:
    """What a verified log says, for the summary line."""

    records: int
    hands: int
    end: str
    winner: Partnership | None
    marks: dict[Partnership, int]
    game_digest: str
    log_digest: str


def verify(log: LogFile) -> Verified:
    """Check the whole log; raise ``VerificationError`` at the first record that disagrees."""
    if log.broken_at is not None:
        raise VerificationError(
            log.broken_at,
            "the chain does not match: this record was edited, or a record before it was"
            " removed, duplicated or moved",
        )
    if log.truncated is not None:
        raise VerificationError(len(log.records) + 1, f"the log is truncated: {log.truncated}")
    return _Replay(log).run()


def game_record(records: list[LogRecord]) -> GameRecord:
    """The canonical game record — what ``game_digest`` hashes — rebuilt from a log."""
    header = records[0]
    assert isinstance(header, Header)
    record = GameRecord(seed=header.seed)
    for line, entry in enumerate(records, start=1):
        if isinstance(entry, MoveRecord | HandEndRecord) and not record.hands:
            raise LogError(f"line {line}: a move or hand end before any deal")
        if isinstance(entry, DealRecord):
            record.hands.append(GameHand(hand=entry.hand, dealer=entry.dealer, deal=entry.hands))
        elif isinstance(entry, MoveRecord):
            move = GameMove(seat=entry.seat, action=entry.action, forced=entry.forced)
            record.hands[-1].moves.append(move)
        elif isinstance(entry, HandEndRecord):
            record.hands[-1].result = entry.result
            record.marks = dict(entry.marks)
        elif isinstance(entry, MatchEndRecord):
            record.winner, record.end = entry.winner, entry.end
            forfeit = entry.forfeit
            record.forfeit = (
                GameForfeit(seat=forfeit.seat, reason=forfeit.reason) if forfeit else None
            )
            record.marks = dict(entry.marks)
    return record


class _Replay:
    """Verify's walk through the log: the records that follow from a move (its tricks, the
    hand's end, the next deal) are expected in order; every other record goes to its check in
    ``HANDLERS``, the start-up's (``StartUp``) before the first deal, the decisions'
    (``Decisions``) after it."""

    def __init__(self, log: LogFile) -> None:
        self.log = log
        self.header = log.header
        self.walk = LogWalk(log.records)
        self.match = self.walk.match
        self.startup = StartUp(self.header.limits)
        self.decisions = Decisions(self.header.limits, fault_stream(self.header.seed))
        self.started = False
        self.expected: list[LogRecord] = []
        self.faults: dict[Seat, Counter[str]] = {seat: Counter() for seat in SEATS}
        self.deals = 0
        self.verified: Verified | None = None

    def run(self) -> Verified:
        line = 1
        for at in self.walk:
            line = at.line
            if line == 1:
                continue  # the header: its seed and limits are what the walk starts from
            try:
                self.check(at)
            except Disagreement as disagreement:
                raise VerificationError(line, str(disagreement)) from None
            if self.verified is not None:
                return self.verified
        raise VerificationError(line, "no match_end record")  # read_log says truncated first

    def check(self, at: Moment) -> None:
        record = at.record
        if self.expected and type(record) is not Header and not self.stopped_by_hand_limit(record):
            self.check_expected(record)
            return
        HANDLERS[type(record)](self, record, at)

    # -- records that follow from a move ----------------------------------------------------

    def stopped_by_hand_limit(self, record: LogRecord) -> bool:
        """The next deal is due but past ``max_hands``: the match ends there instead."""
        wanted = self.expected[0]
        if (
            isinstance(wanted, DealRecord)
            and wanted.hand > self.header.max_hands
            and isinstance(record, MatchEndRecord)
        ):
            self.expected.clear()
            return True
        return False

    def check_expected(self, record: LogRecord) -> None:
        wanted = self.expected[0]
        expect(f"the {type(wanted).__name__} that follows from the rules", wanted, record)
        self.expected.pop(0)
        if isinstance(record, DealRecord):
            self.deals += 1

    # -- each record type -------------------------------------------------------------------

    def on_header(self, record: Header, at: Moment) -> None:
        raise Disagreement("a second header record")

    def on_unexpected(self, record: TrickRecord | HandEndRecord, at: Moment) -> None:
        raise Disagreement(f"a {show(record)[:60]}… record is not expected here")

    def on_ready(self, record: BotReady, at: Moment) -> None:
        if self.started:
            raise Disagreement("a ready record after the start-up")
        self.startup.on_ready(record)

    def on_deal(self, record: DealRecord, at: Moment) -> None:
        if self.started:
            raise Disagreement("a deal that does not follow from the moves before it")
        self.startup.check_first_deal()
        expect("the first deal from the seed", deal_record(at.match.hand), record)
        self.started = True
        self.deals = 1

    def on_act(self, record: ActRecord, at: Moment) -> None:
        if not self.started:
            raise Disagreement("an act before the first deal")
        self.decisions.on_act(record, at.match)

    def on_rejected(self, record: RejectedRecord, at: Moment) -> None:
        if record.reason not in _REFUSED:
            raise Disagreement(f"unknown rejection reason {record.reason!r}")
        self.faults[record.seat][record.reason] += 1
        if self.started:
            self.decisions.on_rejected(record, at.match)
        else:
            self.startup.on_rejected(record)

    def on_ignored(self, record: IgnoredRecord, at: Moment) -> None:
        self.faults[record.seat]["ignored"] += 1
        if self.started:
            self.decisions.on_ignored(record)
        else:
            self.startup.on_ignored(record)

    def on_fault(self, record: FaultRecord, at: Moment) -> None:
        person = record.seat in (self.header.people or ())
        if (record.reason == reason_code(Resigned)) != person:
            raise Disagreement(
                f"a {record.reason} fault of seat {record.seat}: only a person resigns, and a"
                " person does nothing else a fault is charged for"
            )
        self.faults[record.seat][record.reason] += 1
        if self.started:
            self.decisions.on_fault(record, at.match)
        else:
            self.startup.on_fault(record)

    def on_move(self, record: MoveRecord, at: Moment) -> None:
        if not self.started:
            raise Disagreement("a move where none can be")
        self.decisions.on_move(record, at.match)
        for event in at.play():  # what the table writes after it: tricks, hand end, next deal
            follows = event_record(event, self.match, at.hand_number)
            if follows is not None:
                self.expected.append(follows)

    def on_end(self, record: MatchEndRecord, at: Moment) -> None:
        if at.line != len(self.log.records):
            raise Disagreement("records after match_end")
        self.verified = self.check_end(record)

    # -- the end -----------------------------------------------------------------------------

    def check_end(self, record: MatchEndRecord) -> Verified:
        match = self.match
        end = record.end
        winner: Partnership | None = None
        if end == "marks":
            if not match.is_over:
                raise Disagreement("the match ends on marks, but no side has 7 marks")
            winner = match.winner
        elif end == "forfeit":
            failed = self.startup.failed
            fault = self.decisions.forfeit_by or (failed[0] if failed else None)
            if fault is None:
                raise Disagreement("a forfeit without a fault that forfeits")
            expect("forfeiting seat", fault.seat, record.forfeit and record.forfeit.seat)
            expect("forfeit reason", fault.reason, record.forfeit and record.forfeit.reason)
            winner = OPPONENTS_OF[PARTNERSHIP_OF[fault.seat]]
        elif end == "void":
            sides = {PARTNERSHIP_OF[seat] for seat in self.startup.failed_seats}
            if len(sides) != 2:
                raise Disagreement("a void match, but bots of both sides did not fail to start")
        elif end == "max_hands":
            expect("hands at the hand limit", self.header.max_hands, self.deals)
        elif match.is_over:
            raise Disagreement(f"the match ends {end!r} after a side reached 7 marks")
        expect("winner", winner, record.winner)
        expect("marks", match.marks, record.marks)
        expect("hands dealt", self.deals, record.hands)
        counted = {seat: dict(sorted(self.faults[seat].items())) for seat in SEATS}
        expect("fault counts", counted, record.faults)
        digest = game_digest(game_record(self.log.records))
        expect("game digest", digest, record.game_digest)
        return Verified(
            records=len(self.log.records),
            hands=self.deals,
            end=end,
            winner=record.winner,
            marks=dict(record.marks),
            game_digest=digest,
            log_digest=self.log.head,
        )


#: The check of each record type: explicit, so that renaming a record class cannot leave one
#: unchecked (a test holds this to every member of ``LogRecord``).
HANDLERS: Final[dict[type[LogRecord], Callable[[_Replay, Any, Moment], None]]] = {
    Header: _Replay.on_header,
    BotReady: _Replay.on_ready,
    DealRecord: _Replay.on_deal,
    ActRecord: _Replay.on_act,
    MoveRecord: _Replay.on_move,
    RejectedRecord: _Replay.on_rejected,
    IgnoredRecord: _Replay.on_ignored,
    FaultRecord: _Replay.on_fault,
    TrickRecord: _Replay.on_unexpected,
    HandEndRecord: _Replay.on_unexpected,
    MatchEndRecord: _Replay.on_end,
}
