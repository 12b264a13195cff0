"""Verifying a replay log: re-simulate the match with the rules engine, record by record.

``verify`` trusts nothing in the log but the seed and the limits in its header. It checks the
chain (no record edited, removed, duplicated or moved; nothing cut off), then replays the
match: every deal and dealer, every legal-action list, that every accepted action was legal
and answered the act it names (or was the fault policy's own seeded choice), every rejection's
reason and rule, every trick's winner and points, every early end, every hand's marks, the
fault and strike counts, the winner, and the game digest. The first record that disagrees
raises ``VerificationError`` with its line and what was expected there.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import msgspec

from referee.errors import IllegalAction, LogError, Rejection, VerificationError, reason_code
from referee.record.events import deal_record, event_record
from referee.record.log import LogFile
from referee.record.records import (
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
    game_digest,
)
from referee.rules import Action, Match
from referee.rules.tiles import OPPONENTS_OF, PARTNERSHIP_OF, SEATS, Partnership, Seat
from referee.settings import fault_stream, forced_action, penalty
from referee.wire.decode import decode_bot_line
from referee.wire.messages import ActionAnswer

_REJECTION_REASONS = frozenset({"invalid_utf8", "invalid_json", "bad_message", "illegal_action"})


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


def _show(value: object) -> str:
    return msgspec.json.encode(value).decode()


class _Replay:
    """The walk through the log; ``line`` is the 1-based line of the record being checked."""

    def __init__(self, log: LogFile) -> None:
        self.log = log
        self.header = log.header
        self.limits = self.header.limits
        self.match = Match(self.header.seed)
        self.fault_stream = fault_stream(self.header.seed)
        self.line = 1
        self.started = False
        self.expected: list[LogRecord] = []
        self.last_id = 0
        self.act: ActRecord | None = None  # the act now waiting for an answer
        self.refused = False  # the current act's answer was refused
        self.rejections = 0  # refused answers to the current decision
        self.faults: dict[Seat, Counter[str]] = {seat: Counter() for seat in SEATS}
        self.strikes: dict[Seat, int] = dict.fromkeys(SEATS, 0)
        self.startup_failed: list[Seat] = []
        self.restarted: list[Seat] = []  # kept processes replaced at the start
        self.late: set[Seat] = set()  # seats whose answers were ignored before their ready
        self.ready: list[Seat] = []
        self.startup_rejections: Counter[Seat] = Counter()
        self.forced_by: FaultRecord | None = None  # a random-policy fault awaiting its move
        self.forfeit_by: FaultRecord | None = None
        self.deals = 0

    def fail(self, message: str) -> VerificationError:
        return VerificationError(self.line, message)

    def expect(self, what: str, expected: object, found: object) -> None:
        if expected != found:
            raise self.fail(f"{what}: expected {_show(expected)}, found {_show(found)}")

    def run(self) -> Verified:
        records = self.log.records
        for index, record in enumerate(records[1:], start=2):
            self.line = index
            if isinstance(record, Header):
                raise self.fail("a second header record")
            if self.expected and not self.stopped_by_hand_limit(record):
                self.check_expected(record)
                continue
            if isinstance(record, MatchEndRecord):
                if index != len(records):
                    raise self.fail("records after match_end")
                return self.check_end(record)
            handler = getattr(self, f"on_{type(record).__name__}", None)
            if handler is None:
                raise self.fail(f"a {_show(record)[:60]}… record is not expected here")
            handler(record)
        raise self.fail("no match_end record")  # read_log reports this as truncated first

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
        self.expect(f"the {type(wanted).__name__} that follows from the rules", wanted, record)
        self.expected.pop(0)
        if isinstance(record, DealRecord):
            self.deals += 1

    def after_move(self, hand_number: int, events: list[object]) -> None:
        """The records the table writes after a move: its tricks, hand end, next deal."""
        for event in events:
            record = event_record(event, self.match, hand_number)
            if record is not None:
                self.expected.append(record)

    # -- start-up ----------------------------------------------------------------------------

    def on_BotReady(self, record: BotReady) -> None:
        if self.started or self.startup_failed:
            raise self.fail("a ready record after the start-up")
        if self.ready and record.seat <= self.ready[-1]:
            raise self.fail(
                f"ready records out of seat order: {record.seat} after {self.ready[-1]}"
            )
        self.ready.append(record.seat)
        self.expect("reused (previous matches > 0)", record.previous_matches > 0, record.reused)
        if record.seat in self.restarted and record.reused:
            raise self.fail(f"{record.seat}'s process was replaced, yet its ready says reused")
        if record.seat in self.late and not record.reused:
            raise self.fail(f"an answer ignored before {record.seat}'s ready from a fresh process")

    def on_DealRecord(self, record: DealRecord) -> None:
        if self.started:
            raise self.fail("a deal that does not follow from the moves before it")
        if self.startup_failed:
            raise self.fail("a deal after a bot failed to start")
        self.expect("seats that answered hello", list(SEATS), self.ready)
        self.expect("the first deal from the seed", deal_record(self.match.hand), record)
        self.started = True
        self.deals = 1

    # -- one decision ------------------------------------------------------------------------

    def on_ActRecord(self, record: ActRecord) -> None:
        if not self.started:
            raise self.fail("an act before the first deal")
        if self.forced_by is not None:
            raise self.fail("an act where the fault policy's forced move was due")
        self.expect("act id", self.last_id + 1, record.id)
        self.last_id = record.id
        self.expect("seat to act", self.match.turn, record.seat)
        self.expect("legal actions", self.match.legal_actions(), record.legal_actions)
        if self.act is not None and not self.refused:
            raise self.fail("an act asked again without a rejection of the one before")
        if self.act is None:
            self.rejections = 0
        self.act = record
        self.refused = False

    def on_RejectedRecord(self, record: RejectedRecord) -> None:
        if record.reason not in _REJECTION_REASONS:
            raise self.fail(f"unknown rejection reason {record.reason!r}")
        self.faults[record.seat][record.reason] += 1
        if not self.started:
            self.expect("id of a start-up rejection", 0, record.id)
            if record.seat in self.ready or record.seat in self.startup_failed:
                raise self.fail(f"a start-up rejection for {record.seat} after its start-up ended")
            self.startup_rejections[record.seat] += 1
            if self.startup_rejections[record.seat] > self.limits.max_rejections:
                raise self.fail("more start-up rejections than max_rejections")
            return
        if self.act is None:
            raise self.fail("a rejection with no act before it")
        self.expect("rejected id (the last act)", self.act.id, record.id)
        self.expect("rejected seat", self.act.seat, record.seat)
        self.refused = True
        self.rejections += 1
        if self.rejections > self.limits.max_rejections:
            raise self.fail(f"more than {self.limits.max_rejections} rejections for one decision")
        self.check_rejection(record)

    def check_rejection(self, record: RejectedRecord) -> None:
        """Where the refused line was kept whole, refuse it again and compare the reasons."""
        if record.raw.endswith("…"):
            return  # cut to the bound: not enough left to judge
        raw = record.raw.encode("utf-8")
        if record.reason == "invalid_utf8":
            return  # decoded leniently for the log: the bad bytes are gone
        try:
            answer = decode_bot_line(raw)
            if not isinstance(answer, ActionAnswer):  # a ready where an action was asked
                self.expect("rejection reason of a ready message", "bad_message", record.reason)
                return
        except Rejection as exc:
            self.expect("rejection reason", reason_code(exc), record.reason)
            return
        if record.reason != "illegal_action":
            raise self.fail(f"a {record.reason} rejection of a well-formed action message")
        if answer.action in self.match.legal_actions():
            raise self.fail(f"a rejection of a legal action: {_show(answer.action)}")
        try:
            self.match.hand.clone().apply(self.act.seat, answer.action)  # type: ignore[union-attr]
        except IllegalAction as exc:
            self.expect("the broken rule", reason_code(exc), record.rule)

    def on_IgnoredRecord(self, record: IgnoredRecord) -> None:
        self.faults[record.seat]["ignored"] += 1
        if self.started:
            if self.act is None:
                raise self.fail("an ignored answer with no act before it")
            self.expect("seat of the ignored answer", self.act.seat, record.seat)
            self.expect("expected id", self.act.id, record.expected_id)
            return
        # Before the start: a kept bot's late answer to its last match (its ready says reused).
        self.expect("expected id of an answer before ready", 0, record.expected_id)
        if record.seat in self.ready or record.seat in self.startup_failed:
            raise self.fail(f"an ignored answer from {record.seat} after its start-up ended")
        self.late.add(record.seat)

    def on_FaultRecord(self, record: FaultRecord) -> None:
        self.faults[record.seat][record.reason] += 1
        if not self.started and record.penalty == "restart":
            if self.ready or self.startup_failed:
                raise self.fail(f"a restart of {record.seat} after the start-up ended")
            self.expect("strikes of a restart", 0, record.strikes)
            if record.seat in self.restarted:
                raise self.fail(f"a second restart of {record.seat}")
            self.check_rejection_count(record, self.startup_rejections[record.seat])
            self.restarted.append(record.seat)
            self.startup_rejections[record.seat] = 0  # the fresh process has its own
            return
        if not self.started:
            self.expect("penalty of a start-up fault", "forfeit", record.penalty)
            if record.seat in self.ready or record.seat in self.startup_failed:
                raise self.fail(f"a start-up fault for {record.seat}, which already started")
            if self.startup_failed and record.seat <= self.startup_failed[-1]:
                raise self.fail("start-up faults out of seat order")
            self.check_rejection_count(record, self.startup_rejections[record.seat])
            self.startup_failed.append(record.seat)
            return
        self.expect("faulted seat (the seat to act)", self.match.turn, record.seat)
        self.check_rejection_count(record, self.rejections)
        if self.act is not None and self.act.seat == record.seat:
            self.expect("id of the faulted act", self.act.id, record.id)
        limits = self.limits
        cost, self.strikes[record.seat] = penalty(
            limits.on_fault, self.strikes[record.seat], limits.max_strikes
        )
        self.expect("penalty", cost, record.penalty)
        self.expect("strikes", self.strikes[record.seat], record.strikes)
        if cost == "forfeit":
            self.forfeit_by = record
        else:
            self.forced_by = record

    def check_rejection_count(self, record: FaultRecord, rejections: int) -> None:
        """``too_many_rejections`` comes exactly at ``max_rejections`` refused answers."""
        refused = record.reason == "too_many_rejections" and "refused" in record.detail
        if refused:
            self.expect("rejections before the fault", self.limits.max_rejections, rejections)

    def on_MoveRecord(self, record: MoveRecord) -> None:
        if not self.started or self.forfeit_by is not None:
            raise self.fail("a move where none can be")
        legal = self.match.legal_actions()
        self.expect("seat to act", self.match.turn, record.seat)
        if record.action not in legal:
            raise self.fail(f"an illegal action was applied: {_show(record.action)}")
        if record.forced:
            if self.forced_by is None:
                raise self.fail("a forced move without a fault")
            chosen: Action = forced_action(self.fault_stream, legal)
            self.expect("the fault policy's seeded choice", chosen, record.action)
            self.forced_by = None
        else:
            if self.forced_by is not None:
                raise self.fail("the fault policy's forced move is missing")
            if self.act is None or self.act.seat != record.seat:
                raise self.fail("a move that answers no act")
            if self.refused:
                raise self.fail("a move answering an act whose answer was refused")
            self.expect("id of the answered act", self.act.id, record.id)
        self.act = None
        self.rejections = 0
        hand_number = self.match.hand.hand_number
        self.after_move(hand_number, list(self.match.apply(record.seat, record.action)))

    # -- the end -----------------------------------------------------------------------------

    def check_end(self, record: MatchEndRecord) -> Verified:
        match = self.match
        end = record.end
        winner: Partnership | None = None
        if end == "marks":
            if not match.is_over:
                raise self.fail("the match ends on marks, but no side has 7 marks")
            winner = match.winner
        elif end == "forfeit":
            fault = self.forfeit_by or (self.startup_failed and self._startup_forfeit())
            if not fault:
                raise self.fail("a forfeit without a fault that forfeits")
            assert isinstance(fault, FaultRecord)
            self.expect("forfeiting seat", fault.seat, record.forfeit and record.forfeit.seat)
            self.expect("forfeit reason", fault.reason, record.forfeit and record.forfeit.reason)
            winner = OPPONENTS_OF[PARTNERSHIP_OF[fault.seat]]
        elif end == "void":
            sides = {PARTNERSHIP_OF[seat] for seat in self.startup_failed}
            if len(sides) != 2:
                raise self.fail("a void match, but bots of both sides did not fail to start")
        elif end == "max_hands":
            self.expect("hands at the hand limit", self.header.max_hands, self.deals)
        elif match.is_over:
            raise self.fail(f"the match ends {end!r} after a side reached 7 marks")
        self.expect("winner", winner, record.winner)
        self.expect("marks", match.marks, record.marks)
        self.expect("hands dealt", self.deals, record.hands)
        counted = {seat: dict(sorted(self.faults[seat].items())) for seat in SEATS}
        self.expect("fault counts", counted, record.faults)
        digest = game_digest(game_record(self.log.records))
        self.expect("game digest", digest, record.game_digest)
        return Verified(
            records=len(self.log.records),
            hands=self.deals,
            end=end,
            winner=record.winner,
            marks=dict(record.marks),
            game_digest=digest,
            log_digest=self.log.head,
        )

    def _startup_forfeit(self) -> FaultRecord | None:
        for record in self.log.records:
            if (
                isinstance(record, FaultRecord)
                and record.seat == self.startup_failed[0]
                and record.penalty == "forfeit"
            ):
                return record
        return None
