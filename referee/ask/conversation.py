"""Putting a seat's questions to a bot, and judging its answers as the table judges them.

Every line goes through the bot's ``BotConnection`` and every answer is read by the table's
own ``Exchange``: a line is decoded by ``wire.decode``, judged by ``wire.answers.judge``
(an answer to another act is skipped, as the table ignores it), and an action that is not
among the legal ones is asked of the rules engine for the precise rule it breaks
(``match.exchange.illegal_answer``). The course of the match is the log's, not the bot's: an
answer is read and judged, and whatever it was, the seat is then told what the log says it
was told (a ``rejected`` only where the log refused the answer then).

The clock is the table's: each decision has the move timeout plus what was left of the
seat's time bank at that point of the match (a refused answer does not stop it), the start-up
its own limit, and each ``act`` tells the time left.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import msgspec
import trio

from referee.ask.transcript import Question, Transcript
from referee.errors import BotFault, Rejection, reason_code
from referee.match.clock import time_left_ms
from referee.match.connection import BotConnection
from referee.match.exchange import Exchange, illegal_answer
from referee.match.faults import Explain, explained, gone
from referee.match.seat import SeatState
from referee.record.log import LogWriter
from referee.record.records import IgnoredRecord, LogRecord
from referee.rules import Action
from referee.settings import MatchSettings
from referee.wire.decode import excerpt
from referee.wire.messages import ActionAnswer, BotMessage, Ready

#: ``legal``: a legal action (or a valid ``ready``); ``illegal``: a well-formed action the
#: rules refuse now; ``refused``: a line the table refuses before the rules see it (not UTF-8,
#: not JSON, not an answer of the right shape or type); ``missing``: no answer (a fault).
Verdict = Literal["legal", "illegal", "refused", "missing"]


class Answer(msgspec.Struct, frozen=True, omit_defaults=True):
    """What the bot answered to one question, judged as the table judges it."""

    #: The act answered (0 for ``hello`` and a ``rejected`` before ``ready``).
    id: int
    verdict: Verdict
    #: Milliseconds from the question's write to the answer (or to the fault).
    ms: float
    #: The line it answered with, decoded leniently and cut as the log cuts it.
    raw: str = ""
    #: The action it named, legal or not; the name and ``matches`` of its ``ready``.
    action: Action | None = None
    name: str | None = None
    matches: str | None = None
    #: Why it is not a legal answer, as the table would say: the reason code (a rejection's,
    #: or the fault's), the detail, and the rule an illegal action breaks.
    reason: str | None = None
    detail: str | None = None
    rule: str | None = None
    #: Lines answering another act that were skipped before it, as the table ignores them.
    ignored: list[str] = msgspec.field(default_factory=list)


class _Kept(LogWriter):
    """The records the table's exchange writes while reading answers (the ignored lines)."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO())
        self.records: list[LogRecord] = []

    def write(self, record: LogRecord) -> None:
        self.records.append(record)

    def flush(self) -> None:
        pass


class _Asking(Exchange):
    """One question to the bot, read with the table's exchange: the line that answers it, a
    refused line (raised as its ``Rejection``) or the fault (raised)."""

    REFUSALS = "lines refused"

    async def put(self, question: Question, deadline: float) -> tuple[BotMessage, bytes]:
        connection = self.seat.bot
        try:
            with connection.deadline(deadline):
                await connection.send(question.line(time_left_ms(deadline)))
                self._expect(question.awaited)
                return await self._answer()
        except BotFault as fault:
            failed = self._failed(fault)
            if failed is fault:
                raise
            raise failed from None
        raise AssertionError("unreachable")  # the deadline raises instead of falling through


@dataclass
class Asked:
    """What came of the questions: each one asked with its answer, and those left unasked
    when the bot went away or did not start (``gone`` says which, and why)."""

    answers: list[tuple[Question, Answer]] = field(default_factory=list)
    unasked: list[Question] = field(default_factory=list)
    gone: str | None = None


class Conversation:
    """A bot in the transcript's seat, asked its questions in order."""

    def __init__(
        self,
        connection: BotConnection,
        transcript: Transcript,
        settings: MatchSettings,
        explain: Explain | None = None,
    ) -> None:
        self.seat = SeatState(transcript.seat, connection, bank=0.0)
        self.settings = settings
        self.explain = explain
        self._log = _Kept()

    async def ask(
        self, questions: list[Question], answered: Callable[[Question, Answer], None] | None = None
    ) -> Asked:
        """Every question in turn, until the last, or until the bot goes away or does not
        start (no valid ``ready`` by the first act: at the table it would have forfeited)."""
        asked = Asked()
        deadline = 0.0
        for index, question in enumerate(questions):
            previous = questions[index - 1] if index else None
            if previous is None or question.decision is not previous.decision:
                deadline = self._deadline(question)
            answer, went = await self._put(question, deadline)
            asked.answers.append((question, answer))
            if answered is not None:
                answered(question, answer)
            rest = questions[index + 1 :]
            unstarted = question.decision is None and answer.verdict != "legal"
            if went or (unstarted and (not rest or rest[0].decision is not None)):
                asked.unasked = rest
                why = f"{answer.reason}: {answer.detail}"
                asked.gone = f"the bot {'went away' if went else 'did not start'}: {why}"
                break
        return asked

    def _deadline(self, question: Question) -> float:
        """A decision's clock starts at its first act; the start-up's at ``hello``."""
        now = trio.current_time()
        if question.decision is None:
            return now + self.settings.startup_timeout
        return now + self.settings.move_timeout + question.decision.bank_ms / 1000

    async def _put(self, question: Question, deadline: float) -> tuple[Answer, bool]:
        """The bot's answer, and whether it went away (it exited, or stopped reading)."""
        asking = _Asking(self.seat, self._log, max_rejections=1)
        seen = len(self._log.records)
        started = trio.current_time()

        def answer(
            verdict: Verdict,
            raw: str = "",
            action: Action | None = None,
            reason: str | None = None,
            detail: str | None = None,
            rule: str | None = None,
            ready: Ready | None = None,
        ) -> Answer:
            ignored = [r.raw for r in self._log.records[seen:] if type(r) is IgnoredRecord]
            return Answer(
                question.act_id, verdict, (trio.current_time() - started) * 1000, raw, action,
                None if ready is None else ready.name, None if ready is None else ready.matches,
                reason, detail, rule, ignored,
            )  # fmt: skip

        try:
            message, line = await asking.put(question, deadline)
        except Rejection as rejection:
            reason, detail = reason_code(rejection), str(rejection)
            return answer("refused", raw=rejection.raw, reason=reason, detail=detail), False
        except BotFault as exc:  # explained: a sandbox bound, or how it exited and why
            fault = await explained(self.explain, self.seat.seat, exc)
            return answer("missing", reason=reason_code(fault), detail=str(fault)), gone(exc)
        raw = excerpt(line)
        if type(message) is Ready:
            return answer("legal", raw=raw, ready=message), False
        assert type(message) is ActionAnswer and question.decision is not None
        decision = question.decision
        if message.action in decision.legal_actions:
            return answer("legal", raw=raw, action=message.action), False
        illegal = illegal_answer(decision.hand, decision.seat, message.action)
        return answer(
            "illegal",
            raw=raw,
            action=message.action,
            reason=reason_code(illegal),
            detail=str(illegal),
            rule=illegal.rule,
        ), False
