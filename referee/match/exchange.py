"""One exchange with a bot — ``hello`` and its ``ready``, or ``act`` and its action — as an
object with explicit states, in the manner of python-chess's engine commands.

An exchange sends its question, then reads the bot's lines and judges each one
(``referee.wire.answers``): the answer ends it (``DONE``); an answer to another act is
logged as ignored and the wait goes on; a refused line is logged, the bot is told
(``REFUSED``) and, for an ``act``, asked again with a fresh id. Any fault — the deadline,
a crash, too many refused or ignored lines — ends it ``FAILED`` and is raised to the table,
whose fault policy decides what it costs.
"""

from __future__ import annotations

import enum
from typing import ClassVar, Final

from referee.errors import (
    BotFault,
    BotTimeout,
    IllegalAction,
    IllegalActionAnswer,
    Rejection,
    TooManyRejections,
    reason_code,
)
from referee.match.clock import time_left_ms
from referee.match.seat import SeatState
from referee.record.log import LogWriter
from referee.record.records import ActRecord, IgnoredRecord, RejectedRecord
from referee.rules import Action, Hand, Match
from referee.rules.tiles import Seat
from referee.rules.views import View
from referee.wire.answers import (
    MAX_IGNORED,
    Awaited,
    awaiting_action,
    awaiting_ready,
    ignored,
    judge,
    refusal,
)
from referee.wire.decode import decode_bot_line, excerpt
from referee.wire.messages import Act, ActionAnswer, BotMessage, Hello, Ready, Rejected, encode_line

#: What an exchange awaits before its question is out.
_NOTHING_YET: Final = awaiting_ready()
#: Lines of the bot's a fault carries, at most.
_SAID_LINES: Final = 8


class State(enum.Enum):
    """Where an exchange stands."""

    #: Made; nothing sent yet.
    NEW = "new"
    #: The question is out; the bot's lines are being read.
    WAITING = "waiting"
    #: The last line was refused and the bot told why; it is waited for (asked again) still.
    REFUSED = "refused"
    #: The answer came.
    DONE = "done"
    #: A fault ended it.
    FAILED = "failed"


class Exchange:
    """What a greeting and a decision share: reading and judging the bot's lines."""

    #: What a fault of too many refusals says was refused.
    REFUSALS: ClassVar[str]

    def __init__(self, seat: SeatState, log: LogWriter, max_rejections: int) -> None:
        self.seat = seat
        self.log = log
        self.max_rejections = max_rejections
        self.state = State.NEW
        #: Lines refused so far.
        self.refused = 0
        self._ignored = 0
        #: The id of the last answer ignored since the question went out.
        self._ignored_id: int | None = None
        self._awaited = _NOTHING_YET
        #: The last lines refused, cut short: a fault carries them (``BotFault.said``).
        self._refused_lines: list[str] = []

    def _expect(self, awaited: Awaited) -> None:
        self._awaited = awaited
        self._ignored = 0
        self._ignored_id = None
        self.state = State.WAITING

    def _failed(self, fault: BotFault) -> BotFault:
        """The fault that ends the exchange, carrying the lines the bot wrote in it (what it
        said may name a bound it went over). A timeout after an answer with another id says
        so first, since that answer, not silence, is what lost the decision."""
        self.state = State.FAILED
        unread = [excerpt(line) for line in self.seat.bot.unread()]
        said = tuple(self._refused_lines + unread)[-_SAID_LINES:]
        if type(fault) is BotTimeout and self._ignored_id is not None:
            awaited = self._awaited
            asked = f"id {awaited.act_id}" if awaited.kind == "action" else "'ready'"
            more = f" ({self._ignored} answers ignored)" if self._ignored > 1 else ""
            fault = BotTimeout(
                f"answered id {self._ignored_id} while {asked} was asked{more}, then {fault}"
            )
        fault.said = said
        return fault

    def _accepted(self) -> None:
        self.state = State.DONE
        self.seat.bot.answered()

    async def _answer(self) -> tuple[BotMessage, bytes]:
        """The next line that answers the question, and the message it holds.

        Lines answering another question are logged and skipped, up to ``MAX_IGNORED``; a
        refused line raises its ``Rejection``, carrying the line in ``raw``.
        """
        connection = self.seat.bot
        while True:
            line = await connection.receive_line()
            try:
                message = decode_bot_line(line)
                verdict = judge(self._awaited, message)
                if verdict == "wrong_type":
                    raise refusal(self._awaited, message)
            except Rejection as rejection:
                rejection.raw = excerpt(line)
                self._refused_lines = [*self._refused_lines[-_SAID_LINES:], rejection.raw]
                raise
            if not ignored(verdict):
                return message, line
            self.seat.faults["ignored"] += 1
            assert type(message) is ActionAnswer
            self._ignored_id = message.id
            expected_id = self._awaited.act_id
            self.log.write(
                IgnoredRecord(seat=self.seat.seat, expected_id=expected_id, raw=excerpt(line))
            )
            self._ignored += 1
            if self._ignored >= MAX_IGNORED:
                raise TooManyRejections(
                    f"{self._ignored} answers with a stale or wrong id to one decision"
                )

    async def _refuse(self, rejection: Rejection) -> None:
        """Log the refusal and tell the bot why; the fault once ``max_rejections`` are."""
        self.state = State.REFUSED
        self.refused += 1
        seat = self.seat
        code = reason_code(rejection)
        rule = getattr(rejection, "rule", None)
        seat.faults[code] += 1
        act_id = self._awaited.act_id
        record = RejectedRecord(
            id=act_id, seat=seat.seat, reason=code, detail=str(rejection), raw=rejection.raw,
            rule=rule,
        )  # fmt: skip
        self.log.write(record)
        self.log.flush()
        await seat.bot.send(encode_line(told_rejection(record)))
        if self.refused >= self.max_rejections:
            raise TooManyRejections(
                f"{self.refused} {self.REFUSALS} (last: {code}: {rejection})"
            ) from None


class Greeting(Exchange):
    """``hello``, then lines until a ``ready`` within the start-up limit.

    A refused line is answered with ``rejected`` and the wait goes on; a process kept from
    an earlier match may still be answering that match's last act, which is ignored.
    """

    REFUSALS = "lines refused before 'ready'"

    def __init__(self, seat: SeatState, log: LogWriter, max_rejections: int, hello: Hello) -> None:
        super().__init__(seat, log, max_rejections)
        self.hello = hello

    async def run(self, deadline: float) -> Ready:
        connection = self.seat.bot
        try:
            with connection.deadline(deadline):
                await connection.send(encode_line(self.hello))
                self._expect(awaiting_ready(kept=self.seat.previous_matches > 0))
                while True:
                    try:
                        ready, _ = await self._answer()
                    except Rejection as rejection:
                        await self._refuse(rejection)
                        continue
                    assert type(ready) is Ready
                    self._accepted()
                    return ready
        except BotFault as fault:
            failed = self._failed(fault)
            if failed is fault:
                raise
            raise failed from None
        raise AssertionError("unreachable")  # the deadline raises instead of falling through


class Decision(Exchange):
    """``act`` until the bot answers with one of the legal actions, under one deadline.

    The first ``act`` goes out before anything else is done (the deadline's scope, the log):
    whatever can wait for the bot's answer is done while the bot thinks. A refused answer
    is asked again with a fresh id; the clock does not stop.
    """

    REFUSALS = "answers refused for one decision"

    def __init__(
        self,
        seat: SeatState,
        log: LogWriter,
        max_rejections: int,
        match: Match,
        legal: list[Action],
        deadline: float,
        last_id: int,
    ) -> None:
        super().__init__(seat, log, max_rejections)
        self.match = match
        self.legal = legal
        self.deadline = deadline
        #: The last act id of the match (each ``act`` takes the next one).
        self.last_id = last_id
        #: The id of this decision's latest ``act`` (None before the first).
        self.act_id: int | None = None

    async def run(self) -> Action:
        """The legal action the bot answered with."""
        seat = self.seat
        connection = seat.bot
        view = self.match.view(seat.seat)
        try:
            line = self._act(view)
            try:
                unsent = connection.send_now(seat.take_outbox() + line)
            finally:
                self._log_act()
            self.match.deal_ahead()
            with connection.deadline(self.deadline):
                if unsent:
                    await connection.send(unsent)
                while True:
                    try:
                        answer, line = await self._answer()
                        assert type(answer) is ActionAnswer
                        if answer.action not in self.legal:
                            illegal = self._illegal(answer.action)
                            illegal.raw = excerpt(line)
                            raise illegal
                        self._accepted()
                        return answer.action
                    except Rejection as rejection:
                        await self._refuse(rejection)
                    line = self._act(view)
                    self._log_act()
                    await connection.send(line)
        except BotFault as fault:
            failed = self._failed(fault)
            if failed is fault:
                raise
            raise failed from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _act(self, view: View) -> bytes:
        """A fresh ``act`` (with the events the seat has not been told yet), awaited."""
        self.last_id += 1
        self.act_id = self.last_id
        act = Act(
            id=self.last_id,
            events=self.seat.take_events(),
            view=view,
            legal_actions=self.legal,
            time_ms=time_left_ms(self.deadline),
        )
        self._expect(awaiting_action(self.last_id))
        return encode_line(act)

    def _log_act(self) -> None:
        self.log.write(ActRecord(id=self.last_id, seat=self.seat.seat, legal_actions=self.legal))
        self.log.flush()

    def _illegal(self, action: Action) -> IllegalActionAnswer:
        return illegal_answer(self.match.hand, self.seat.seat, action)


def illegal_answer(hand: Hand, seat: Seat, action: Action) -> IllegalActionAnswer:
    """Why ``seat``'s ``action`` is not legal, in the engine's own words (tried on a copy)."""
    try:
        hand.clone().apply(seat, action)
    except IllegalAction as exc:
        return IllegalActionAnswer(str(exc), reason_code(exc))
    return IllegalActionAnswer(f"{action} is not among the legal actions", "not_offered")


def told_rejection(record: RejectedRecord) -> Rejected:
    """The ``rejected`` a bot is sent for a refusal the log records: the broken rule, if
    any, follows the detail."""
    detail = f"{record.detail} ({record.rule})" if record.rule else record.detail
    return Rejected(id=record.id, reason=record.reason, detail=detail)
