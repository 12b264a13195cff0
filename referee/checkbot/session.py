"""One scripted conversation's bot: started sandboxed like a match seat, read line by line.

Every line the bot writes is classified: a protocol message (``ready``, ``action``), a
malformed attempt at one (JSON with ``"type": "ready"`` or ``"action"`` that the referee
would refuse), one message spread over several lines, or junk (anything else: debug prints,
banners). Junk and multi-line answers are noted in ``Findings`` and skipped, so that the
conversation's own check judges the answer itself. When nothing comes in time, the bot's
input is closed: an answer that then comes out as it exits had waited in its output buffer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

import msgspec
import trio

from referee.errors import (
    BotCrashed,
    BotFault,
    BotNotReading,
    BotTimeout,
    LineTooLong,
    Rejection,
    reason_code,
)
from referee.match.process import BotProcess, exit_status
from referee.match.stderr_lines import StderrSummary, StderrTotals
from referee.match.trace import WireTrace
from referee.sandbox.policy import SandboxPlan
from referee.sandbox.seats import MatchJails
from referee.settings import MatchSettings
from referee.wire.answers import awaiting_action, judge
from referee.wire.decode import decode_bot_line
from referee.wire.messages import ActionAnswer, BotMessage, Ready

from .script import SEAT

#: Seconds past a limit an answer is still waited for: it is then judged late, not missing.
GRACE: Final = 1.0
#: Seconds a bot whose input was closed has to let out what it still holds.
FLUSH_WAIT: Final = 1.0
#: Longest excerpt of a bot's line in a report.
EXCERPT: Final = 120
#: Undecodable lines kept to be tried as parts of one message spread over lines.
_MAX_PENDING: Final = 64

_JSON: Final = msgspec.json.Decoder()


def cut(line: bytes | str, limit: int = EXCERPT) -> str:
    """A bot's line for a report: decoded leniently, without its line end, cut short."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    text = text.rstrip("\r\n")
    return repr(text if len(text) <= limit else text[:limit] + "…")


@dataclass
class Findings:
    """What the checks spanning every conversation collect (one entry per offence)."""

    junk: list[str] = field(default_factory=list)
    multiline: list[str] = field(default_factory=list)
    unflushed: list[str] = field(default_factory=list)
    late: list[str] = field(default_factory=list)
    #: Answers to an earlier act, which the referee ignores as well (not an offence).
    ignored: list[str] = field(default_factory=list)
    #: Seconds per decision: ``act`` written to the answer read.
    decisions: list[float] = field(default_factory=list)
    #: The situations the bot met (``situations.SITUATIONS``), each with how many times.
    situations: Counter[str] = field(default_factory=Counter)
    #: What it wrote on stderr in each run (a conversation or a match): no fault, yet an
    #: error it caught is for its author to see.
    stderr: StderrTotals = field(default_factory=StderrTotals)
    runs: int = 0

    def wrote(self, summary: StderrSummary | None) -> None:
        """One more run, and what the bot wrote on stderr in it."""
        self.runs += 1
        self.stderr.add([summary] if summary is not None else [])


Kind = Literal["message", "malformed", "silent", "unflushed", "exited", "too_long", "not_reading"]


@dataclass
class Answer:
    """What the bot did when an answer was due."""

    kind: Kind
    #: For the report: what the bot did, in words.
    text: str
    message: BotMessage | None = None
    line: bytes = b""
    seconds: float = 0.0


class Session:
    """A started bot, its connection and the findings its lines add to."""

    def __init__(self, bot: BotProcess, settings: MatchSettings, findings: Findings) -> None:
        self.bot = bot
        self.settings = settings
        self.findings = findings
        self.connection = bot.connect(settings.max_line_bytes)
        self._pending: list[bytes] = []
        self.input_closed = False

    # -- writing ---------------------------------------------------------------------------

    async def send(self, data: bytes) -> Answer | None:
        """Write ``data``; an ``Answer`` saying why when the bot cannot take it."""
        try:
            await self.connection.send(data, trio.current_time() + self.settings.move_timeout)
        except BotCrashed:
            return await self.exited()
        except BotNotReading:
            return Answer(
                "not_reading", "stopped reading its input (a message could not be written)"
            )
        return None

    async def close_input(self) -> None:
        self.input_closed = True
        with suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self.bot.stdin.aclose()

    # -- reading ---------------------------------------------------------------------------

    async def exchange(
        self,
        data: bytes,
        kind: type[Ready | ActionAnswer],
        limit: float,
        what: str,
        act_id: int | None = None,
    ) -> Answer:
        """Write ``data`` and wait for the message of ``kind`` it asks for (``limit``
        seconds, judged late after that, missing after ``GRACE`` more)."""
        started = trio.current_time()
        failed = await self.send(data)
        if failed is not None:
            return failed
        return await self.receive(kind, started, limit, what, act_id)

    async def receive(
        self,
        kind: type[Ready | ActionAnswer],
        started: float,
        limit: float,
        what: str,
        act_id: int | None = None,
    ) -> Answer:
        """As the referee does, an answer to an earlier act than ``act_id`` is ignored and the
        wait goes on (``answers.judge`` calls it stale); if nothing else comes, that stale
        answer is what the bot did. Any other answer is the bot's, for the check to judge."""
        awaited = None if act_id is None else awaiting_action(act_id)
        deadline = started + limit + GRACE
        stale: Answer | None = None
        while True:
            try:
                line = await self.connection.receive_line(deadline)
            except BotTimeout:
                if stale is not None:
                    return stale
                return await self._silent(kind, trio.current_time() - started, what)
            except BotCrashed:
                return await self.exited()
            except LineTooLong as exc:
                return Answer("too_long", f"sent {exc}")
            elapsed = trio.current_time() - started
            answer = self._classify(line, elapsed)
            if answer is None:
                continue
            message = answer.message
            if awaited is not None and message is not None and judge(awaited, message) == "stale":
                self.findings.ignored.append(f"{what}: {answer.text} (ignored)")
                stale = stale or answer
                continue
            self._pending_is_junk(what)
            if elapsed > limit:
                self.findings.late.append(
                    f"{what}: answered after {elapsed:.2f} s, over the {limit:g} s limit"
                )
            return answer

    def _classify(self, line: bytes, elapsed: float) -> Answer | None:
        try:
            message = decode_bot_line(line)
        except Rejection as rejection:
            joined = self._joined(line, elapsed)
            if joined is not None:
                return joined
            if _looks_like_protocol(line):
                return Answer(
                    "malformed",
                    f"sent {cut(line)}: the referee refuses it"
                    f" ({reason_code(rejection)}: {rejection})",
                    line=line,
                    seconds=elapsed,
                )
            self._pending.append(line)
            del self._pending[:-_MAX_PENDING]
            return None
        return Answer("message", f"sent {cut(line)}", message, line, elapsed)

    def _joined(self, line: bytes, elapsed: float) -> Answer | None:
        """``line`` as the last of several that make one message, if they do."""
        for start in range(len(self._pending)):
            parts = [*self._pending[start:], line]
            try:
                message = decode_bot_line(b"\n".join(part.rstrip(b"\r\n") for part in parts))
            except Rejection:
                continue
            del self._pending[start:]
            text = b" ".join(part.strip() for part in parts)
            self.findings.multiline.append(
                f"one message written as {len(parts)} lines: {cut(parts[0])} … {cut(line)}"
            )
            return Answer("message", f"sent {cut(text)} over {len(parts)} lines", message, text,
                          elapsed)  # fmt: skip
        return None

    def _pending_is_junk(self, when: str) -> None:
        for line in self._pending:
            self.findings.junk.append(f"{when}: {cut(line)}")
        self._pending.clear()

    async def _silent(self, kind: type[Ready | ActionAnswer], waited: float, what: str) -> Answer:
        """Nothing in time: close the bot's input and see whether the answer comes out as
        it exits (it was written but never flushed)."""
        nothing = f"nothing within {waited:.1f} s"
        await self.close_input()
        deadline = trio.current_time() + FLUSH_WAIT
        while True:
            try:
                line = await self.connection.receive_line(deadline)
            except (BotFault, LineTooLong):
                break
            try:
                message = decode_bot_line(line)
            except Rejection:
                self._pending.append(line)
                continue
            if type(message) is kind:
                self._pending.clear()
                text = (
                    f"{nothing}; when its input closed it wrote {cut(line)} as it exited: the"
                    " line had waited in its output buffer"
                )
                self.findings.unflushed.append(f"{what}: {text}")
                return Answer("unflushed", text, message, line, waited)
        self._pending_is_junk(what)
        return Answer("silent", nothing, seconds=waited)

    async def exited(self) -> Answer:
        """The bot closed its output: how it ended, with the end of its stderr."""
        return Answer("exited", await self.ending())

    async def ending(self) -> str:
        bot = self.bot
        with trio.move_on_after(0.5):
            await bot.process.wait()
        await bot.stderr_read(0.5)
        code = bot.process.returncode
        if code is None:
            return "closed its output but is still running"
        if bot.jail is not None:
            unexplained = BotCrashed("")
            precise = bot.jail.explain(unexplained, code, (), tuple(bot.stderr.since_mark()))
            if precise is not unexplained:
                return f"was stopped by the sandbox: {reason_code(precise)}: {precise}"
        tail = bot.stderr.last_line()
        how = f"exited with status {code}" if code >= 0 else f"was {exit_status(code)}"
        return how + (f"; stderr ends: {tail!r}" if tail else "")

    async def finish(self, what: str) -> None:
        """Lines still waiting undecoded are junk."""
        self._pending_is_junk(what)

    async def read_rest(self, deadline: float, what: str) -> None:
        """Read until the bot's output ends (or ``deadline``): every line is unsolicited."""
        while True:
            try:
                line = await self.connection.receive_line(deadline)
            except (BotFault, LineTooLong):
                return
            try:
                late = type(decode_bot_line(line)) is ActionAnswer
            except Rejection:
                late = False
            if late:  # a repeated or late answer: the referee ignores it, and so do we
                self.findings.ignored.append(f"{what}: {cut(line)} (ignored)")
            else:
                self.findings.junk.append(f"{what}: {cut(line)}")


def _looks_like_protocol(line: bytes) -> bool:
    """JSON meant as a bot message (``"type": "ready"`` or ``"action"``), refused all the same."""
    try:
        value = _JSON.decode(line)
    except (msgspec.DecodeError, RecursionError, MemoryError):
        return False
    return isinstance(value, dict) and value.get("type") in ("ready", "action")


@asynccontextmanager
async def started(
    command: str,
    sandbox: SandboxPlan,
    settings: MatchSettings,
    findings: Findings,
    stderr: Path | None = None,
    trace: WireTrace | None = None,
) -> AsyncIterator[Session]:
    """A new sandboxed process of ``command`` in seat A, closed (and reaped) on the way out;
    its stderr copied to ``stderr``.

    Raises ``BotStartFailed`` when it cannot be started, ``OSError`` when its sandbox cannot
    be made."""
    jails = MatchJails(sandbox)
    try:
        bot = BotProcess.start(SEAT, command, stderr, settings.stderr_limit, jails.jail(SEAT))
        bot.trace = trace
        async with trio.open_nursery() as nursery:
            nursery.start_soon(bot.drain_stderr)
            session = Session(bot, settings, findings)
            try:
                yield session
            finally:
                with trio.CancelScope(shield=True):
                    await bot.close()
                findings.wrote(bot.stderr.scan.summary())
                nursery.cancel_scope.cancel()
    finally:
        jails.close()
