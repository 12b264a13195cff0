"""What one seat was told in a logged match, rebuilt from the log: every line the table sent it
up to its last decision, byte for byte but for the time each ``act`` allowed.

Nothing is encoded a second way. The log is walked with the rules engine (``record.walk``);
the seat's public events and hand ends are queued by the live table's own ``Broadcast`` on
``SeatState`` objects, as in the match; the greeting is ``match.startup.hello``, a refusal's
line ``match.exchange.told_rejection``, the views the engine's ``Match.view``, and every line
``wire.messages.encode_line``.

The transcript is a list of questions: the messages the seat answered in the log — ``hello``,
each ``act``, and a ``rejected`` sent before its ``ready`` (the bot then sent another line) —
each with the lines it was sent first, which need no answer (``hand_end``, a ``rejected``
after an act). Each act belongs to a decision: one turn of the seat, asked again with a new id
after each refused answer, and settled by a move (the bot's answer, or the fault policy's)
or a forfeit.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from referee.match.broadcast import Broadcast
from referee.match.exchange import told_rejection
from referee.match.outcome import MatchOver
from referee.match.seat import SeatState
from referee.match.startup import hello
from referee.record.log import LogWriter
from referee.record.records import (
    ActRecord,
    DealRecord,
    FaultRecord,
    Header,
    IgnoredRecord,
    LogRecord,
    MoveRecord,
    RejectedRecord,
    Timing,
)
from referee.record.walk import LogWalk, Moment
from referee.rules import Action, Hand
from referee.rules.tiles import SEATS, Seat
from referee.rules.views import View
from referee.wire.answers import Awaited, awaiting_action, awaiting_ready
from referee.wire.messages import Act, Hello, Limits, Rejected, encode_line


class _Unwritten(LogWriter):
    """The table's parts write the log as they go; rebuilding what a seat was told, the log
    is already written."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO())

    def write(self, record: LogRecord) -> None:
        pass


@dataclass(frozen=True)
class Logged:
    """What the log says became of the seat's answer to one act."""

    #: ``played``: it was applied; ``refused``: it was refused (the act was asked again, or
    #: the refusals were a fault); ``fault``: no answer counted (a timeout, a crash...);
    #: ``unanswered``: the log ends first (an interrupted match).
    kind: Literal["played", "refused", "fault", "unanswered"]
    action: Action | None = None
    #: A refusal's or a fault's reason code, its detail, the rule an illegal action broke.
    reason: str = ""
    detail: str = ""
    rule: str | None = None
    #: The refused line as logged (cut to 200 characters).
    raw: str = ""


@dataclass(eq=False)
class Decision:
    """One turn of the seat in the log: its acts (one more after each refused answer), what
    the seat saw, and how it was settled."""

    seat: Seat
    view: View
    legal_actions: list[Action]
    #: The hand as it stood, to ask the engine why an answer is illegal.
    hand: Hand
    #: Milliseconds left in the seat's time bank when the decision began.
    bank_ms: int
    ids: list[int] = field(default_factory=list)
    #: What became of the answer to each act, as ``ids``.
    logged: list[Logged] = field(default_factory=list)
    #: Answers with another id the table ignored meanwhile.
    ignored: int = 0
    #: The action applied (None after a forfeit, or when the log ends first) and whether the
    #: fault policy chose it.
    played: Action | None = None
    forced: bool = False
    #: The fault that settled it, if any.
    fault: FaultRecord | None = None

    @property
    def first_id(self) -> int:
        return self.ids[0]

    @property
    def hand_number(self) -> int:
        return self.view.hand_number

    def logged_at(self, act_id: int) -> Logged:
        return self.logged[self.ids.index(act_id)]


@dataclass(frozen=True)
class Question:
    """A message the seat answered in the log, after the lines it was sent first."""

    before: bytes
    message: Hello | Act | Rejected
    awaited: Awaited
    #: The decision an act belongs to (None for ``hello`` and a ``rejected`` before ``ready``).
    decision: Decision | None = None

    @property
    def act_id(self) -> int:
        """The act's id; 0 before ``ready``, as the table counts it."""
        return self.awaited.act_id

    def line(self, time_ms: int) -> bytes:
        """The bytes to send: the lines before, then the message; an act tells ``time_ms``
        (the only field the log does not fix)."""
        message = self.message
        if type(message) is Act:
            message = msgspec.structs.replace(message, time_ms=time_ms)
        return self.before + encode_line(message)


@dataclass
class Transcript:
    """A seat's questions in order, and its decisions."""

    seat: Seat
    limits: Limits
    questions: list[Question] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)

    def decision_of(self, act_id: int) -> Decision | None:
        return next((d for d in self.decisions if act_id in d.ids), None)

    def through(self, act_id: int | None) -> list[Question]:
        """The questions up to act ``act_id`` (all of them for None)."""
        if act_id is None:
            return list(self.questions)
        last = next(i for i, q in enumerate(self.questions) if q.act_id == act_id and q.decision)
        return self.questions[: last + 1]


def seat_of_act(records: Sequence[LogRecord], act_id: int) -> Seat | None:
    """The seat asked act ``act_id`` (None: no such act in the log)."""
    return next((r.seat for r in records if type(r) is ActRecord and r.id == act_id), None)


def transcript(records: Sequence[LogRecord], seat: Seat) -> Transcript:
    """What ``seat`` was told in the logged match, from a log that verifies."""
    return _Builder(records, seat).run()


class _Builder:
    """The walk through the log, with the table's broadcast queuing every seat's news."""

    def __init__(self, records: Sequence[LogRecord], seat: Seat) -> None:
        header = records[0]
        assert isinstance(header, Header)
        self.seat = seat
        self.walk = LogWalk(records)
        self.states = {s: SeatState(s, None, bank=0.0) for s in SEATS}
        self.broadcast = Broadcast(_Unwritten(), self.states, header.seed, header.max_hands)
        self.greeting = Question(b"", hello(header.seed, seat, header.limits), awaiting_ready())
        self.result = Transcript(seat, header.limits, [self.greeting])
        #: Lines to the seat since its last question that need no answer, but hand ends.
        self.before = bytearray()
        self.bank_ms = header.limits.time_bank_ms
        self.current: Decision | None = None
        self.dealt = False

    def run(self) -> Transcript:
        for moment in self.walk:
            record = moment.record
            if type(record) is DealRecord and not self.dealt:
                self.dealt = True
                self.broadcast.first_deal(self.walk.match)
            elif type(record) is ActRecord and record.seat == self.seat:
                self.on_act(record, moment)
            elif type(record) is RejectedRecord and record.seat == self.seat:
                self.on_rejected(record)
            elif type(record) is IgnoredRecord and record.seat == self.seat and self.current:
                self.current.ignored += 1
            elif type(record) is FaultRecord:
                self.on_fault(record)
            elif type(record) is MoveRecord:
                self.on_move(record, moment)
        return self.result

    def on_act(self, record: ActRecord, moment: Moment) -> None:
        match = moment.match
        decision = self.current
        if decision is None:
            decision = self.current = Decision(
                self.seat, match.view(self.seat), record.legal_actions, match.hand.clone(),
                self.bank_ms,
            )  # fmt: skip
            self.result.decisions.append(decision)
        decision.ids.append(record.id)
        decision.logged.append(Logged("unanswered"))
        state = self.states[self.seat]
        before = bytes(self.before) + state.take_outbox()
        self.before.clear()
        act = Act(
            id=record.id,
            events=state.take_events(),
            view=decision.view,
            legal_actions=record.legal_actions,
            time_ms=0,
        )
        self.result.questions.append(Question(before, act, awaiting_action(record.id), decision))

    def on_rejected(self, record: RejectedRecord) -> None:
        told = told_rejection(record)
        if not self.dealt:  # before ready: the bot sent another line after it
            self.result.questions.append(Question(b"", told, awaiting_ready()))
            return
        self.before += encode_line(told)
        if self.current is not None and record.id in self.current.ids:
            refused = Logged("refused", None, record.reason, record.detail, record.rule, record.raw)
            self._log_answer(record.id, refused)

    def on_fault(self, record: FaultRecord) -> None:
        if not self.dealt:
            if record.seat == self.seat and record.penalty == "restart":
                # A fresh process took the seat: it was greeted again, from the start.
                self.result.questions[:] = [self.greeting]
            return
        if record.penalty == "random":
            self.broadcast.forced(record.seat, record.reason)
        if record.seat != self.seat:
            return
        self._bank(record.timing)
        decision = self.current
        if decision is None:
            return  # a seat whose bot went away is asked nothing more
        decision.fault = record
        if record.id is not None and decision.logged_at(record.id).kind == "unanswered":
            self._log_answer(record.id, Logged("fault", None, record.reason, record.detail))
        if record.penalty == "forfeit":
            self.current = None

    def on_move(self, record: MoveRecord, moment: Moment) -> None:
        if record.seat == self.seat:
            self._bank(record.timing)
            decision = self.current
            if decision is not None:
                decision.played, decision.forced = record.action, record.forced
                if record.id is not None:
                    self._log_answer(record.id, Logged("played", record.action))
                self.current = None
        for event in moment.play():
            try:
                self.broadcast.event(event, self.walk.match)
            except MatchOver:  # the hand limit: the match ends here
                break

    def _log_answer(self, act_id: int, logged: Logged) -> None:
        assert self.current is not None
        self.current.logged[self.current.ids.index(act_id)] = logged

    def _bank(self, timing: Timing | None) -> None:
        if timing is not None and timing.bank_ms is not None:
            self.bank_ms = round(timing.bank_ms)
