"""Verify's checks of the decisions asked of the bots once the match is dealt: each ``act``
(its id, seat and legal actions), the answers refused or ignored, the faults and what they
cost, and the move that settles the decision (a bot's answer or the fault policy's choice)."""

from __future__ import annotations

from referee.errors import (
    BadMessage,
    IllegalAction,
    IllegalActionAnswer,
    InvalidUtf8,
    Rejection,
    reason_code,
)
from referee.record.checking import Disagreement, check_rejection_count, expect, show
from referee.record.records import (
    ActRecord,
    FaultRecord,
    IgnoredRecord,
    MoveRecord,
    RejectedRecord,
)
from referee.rules import Action, Match
from referee.rules.deal import Stream
from referee.rules.tiles import SEATS, Seat
from referee.settings import forced_action, penalty
from referee.wire.answers import MAX_IGNORED, awaiting_action, ignored, judge
from referee.wire.decode import decode_bot_line
from referee.wire.messages import ActionAnswer, Limits


class Decisions:
    """The decision in progress and what the faults have cost; each ``on_`` method checks one
    record against ``match`` as it stands before that record."""

    def __init__(self, limits: Limits, fault_stream: Stream) -> None:
        self.limits = limits
        self.fault_stream = fault_stream
        self.last_id = 0
        self.act: ActRecord | None = None  # the act now waiting for an answer
        self.refused = False  # the current act's answer was refused
        self.rejections = 0  # refused answers to the current decision
        self.ignored = 0  # answers ignored while the current act awaits its answer
        self.strikes: dict[Seat, int] = dict.fromkeys(SEATS, 0)
        self.forced_by: FaultRecord | None = None  # a random-policy fault awaiting its move
        self.forfeit_by: FaultRecord | None = None

    def on_act(self, record: ActRecord, match: Match) -> None:
        if self.forced_by is not None:
            raise Disagreement("an act where the fault policy's forced move was due")
        expect("act id", self.last_id + 1, record.id)
        self.last_id = record.id
        expect("seat to act", match.turn, record.seat)
        expect("legal actions", match.legal_actions(), record.legal_actions)
        if self.act is not None and not self.refused:
            raise Disagreement("an act asked again without a rejection of the one before")
        if self.act is None:
            self.rejections = 0
        self.act = record
        self.refused = False
        self.ignored = 0

    def on_rejected(self, record: RejectedRecord, match: Match) -> None:
        act = self.act
        if act is None:
            raise Disagreement("a rejection with no act before it")
        expect("rejected id (the last act)", act.id, record.id)
        expect("rejected seat", act.seat, record.seat)
        self.refused = True
        self.rejections += 1
        if self.rejections > self.limits.max_rejections:
            raise Disagreement(
                f"more than {self.limits.max_rejections} rejections for one decision"
            )
        _check_rejection(record, act, match)

    def on_ignored(self, record: IgnoredRecord) -> None:
        if self.act is None:
            raise Disagreement("an ignored answer with no act before it")
        expect("seat of the ignored answer", self.act.seat, record.seat)
        expect("expected id", self.act.id, record.expected_id)
        _check_ignored(record)
        self.ignored += 1
        if self.ignored > MAX_IGNORED:
            raise Disagreement(f"more than {MAX_IGNORED} ignored answers to one act")

    def on_fault(self, record: FaultRecord, match: Match) -> None:
        expect("faulted seat (the seat to act)", match.turn, record.seat)
        limits = self.limits
        check_rejection_count(record.reason, limits.max_rejections, self.rejections, self.ignored)
        if self.act is not None and self.act.seat == record.seat:
            expect("id of the faulted act", self.act.id, record.id)
        cost, self.strikes[record.seat] = penalty(
            limits.on_fault, self.strikes[record.seat], limits.max_strikes
        )
        expect("penalty", cost, record.penalty)
        expect("strikes", self.strikes[record.seat], record.strikes)
        if cost == "forfeit":
            self.forfeit_by = record
        else:
            self.forced_by = record

    def on_move(self, record: MoveRecord, match: Match) -> None:
        """The move settles the decision; the caller then plays it."""
        if self.forfeit_by is not None:
            raise Disagreement("a move where none can be")
        legal = match.legal_actions()
        expect("seat to act", match.turn, record.seat)
        if record.action not in legal:
            raise Disagreement(f"an illegal action was applied: {show(record.action)}")
        if record.forced:
            if self.forced_by is None:
                raise Disagreement("a forced move without a fault")
            chosen: Action = forced_action(self.fault_stream, legal)
            expect("the fault policy's seeded choice", chosen, record.action)
            self.forced_by = None
        else:
            if self.forced_by is not None:
                raise Disagreement("the fault policy's forced move is missing")
            if self.act is None or self.act.seat != record.seat:
                raise Disagreement("a move that answers no act")
            if self.refused:
                raise Disagreement("a move answering an act whose answer was refused")
            expect("id of the answered act", self.act.id, record.id)
        self.act = None
        self.rejections = 0


def _check_ignored(record: IgnoredRecord) -> None:
    """Where the ignored line was kept whole, it must be one the referee ignores: an action
    answering another act than the one awaited."""
    if record.raw.endswith("…"):
        return  # cut to the bound: not enough left to judge
    try:
        answer = decode_bot_line(record.raw.encode("utf-8"))
    except Rejection:
        raise Disagreement("an ignored line that is not an answer") from None
    if not ignored(judge(awaiting_action(record.expected_id), answer)):
        raise Disagreement("an ignored answer that answers the act awaited, or is no action")


def _check_rejection(record: RejectedRecord, act: ActRecord, match: Match) -> None:
    """Where the refused line was kept whole, refuse it again and compare the reasons."""
    if record.raw.endswith("…"):
        return  # cut to the bound: not enough left to judge
    raw = record.raw.encode("utf-8")
    if record.reason == reason_code(InvalidUtf8):
        return  # decoded leniently for the log: the bad bytes are gone
    try:
        answer = decode_bot_line(raw)
        verdict = judge(awaiting_action(act.id), answer)
        if verdict == "wrong_type":  # a ready where an action was asked
            expect("rejection reason of a ready message", reason_code(BadMessage), record.reason)
            return
        if ignored(verdict):
            raise Disagreement(f"a rejection of an answer to be ignored ({verdict})")
        assert isinstance(answer, ActionAnswer)
    except Rejection as exc:
        expect("rejection reason", reason_code(exc), record.reason)
        return
    if record.reason != reason_code(IllegalActionAnswer):
        raise Disagreement(f"a {record.reason} rejection of a well-formed action message")
    if answer.action in match.legal_actions():
        raise Disagreement(f"a rejection of a legal action: {show(answer.action)}")
    try:
        match.hand.clone().apply(act.seat, answer.action)
    except IllegalAction as exc:
        expect("the broken rule", reason_code(exc), record.rule)
