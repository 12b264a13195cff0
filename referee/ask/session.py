"""The bot's process for ``referee ask``: started sandboxed exactly as a match seat is (the
plan ``sandbox.policy.plan`` made, with the log's directory among the paths it may not read;
``MatchJails``; ``BotProcess``), asked its questions, and closed and reaped on every way out.

Its stderr is not written beside the log (the log may not be the asker's to write next to):
its last lines are kept for the report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import trio

from referee.ask.conversation import Answer, Asked, Conversation
from referee.ask.transcript import Question, Transcript
from referee.errors import BotFault, BotStartFailed, reason_code
from referee.match.process import EXIT_GRACE, BotProcess, StderrSink, exit_status
from referee.rules.tiles import Seat
from referee.sandbox.policy import SandboxPlan
from referee.sandbox.seats import MatchJails
from referee.settings import MatchSettings

#: Bytes of the bot's stderr kept for the report: its last lines.
STDERR_TAIL: Final = 4096


class _Tail(StderrSink):
    """A bot's stderr, of which only the end is kept."""

    def __init__(self) -> None:
        super().__init__(None, 0)
        self.kept = bytearray()

    def write(self, data: bytes | bytearray) -> None:
        super().write(data)
        self.kept += data
        del self.kept[:-STDERR_TAIL]

    def text(self) -> str:
        return self.kept.decode("utf-8", "replace")


@dataclass
class Session:
    """What the bot's process did: its answers, the end of its stderr and how it ended."""

    asked: Asked
    stderr: str
    #: How the process ended once closed (``exit status 0``), or why it never started.
    ended: str


async def ask_bot(
    command: str,
    transcript: Transcript,
    questions: list[Question],
    settings: MatchSettings,
    sandbox: SandboxPlan,
    answered: Callable[[Question, Answer], None] | None = None,
) -> Session:
    """Start ``command`` in the transcript's seat, ask it ``questions``, close it."""
    seat: Seat = transcript.seat
    try:
        jails = MatchJails(sandbox)
    except OSError as exc:
        return _never_started(questions, _no_sandbox(exc))
    try:
        try:
            bot = BotProcess.start(seat, command, None, 0, jails.jail(seat))
        except BotStartFailed as exc:
            return _never_started(questions, exc)
        except OSError as exc:
            return _never_started(questions, _no_sandbox(exc))
        tail = bot.stderr = _Tail()
        try:
            asked = await _converse(bot, transcript, questions, settings, answered)
        finally:  # on every way out, an interruption included: closed and reaped
            with trio.CancelScope(shield=True):
                code = await bot.close()  # as a match closes it: SIGTERM, SIGKILL
                if bot.jail is not None:
                    jails.release(bot.jail)
        return Session(asked, tail.text(), exit_status(code))
    finally:
        jails.close()


async def _converse(
    bot: BotProcess,
    transcript: Transcript,
    questions: list[Question],
    settings: MatchSettings,
    answered: Callable[[Question, Answer], None] | None,
) -> Asked:
    """The conversation, while the bot's stderr is read."""
    drained = trio.Event()

    async def drain() -> None:
        try:
            await bot.drain_stderr()
        finally:
            drained.set()

    async def explain(seat: Seat, fault: BotFault) -> BotFault:
        return await bot.explain(fault)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(drain)
        connection = bot.connect(settings.max_line_bytes)
        asked = await Conversation(connection, transcript, settings, explain).ask(
            questions, answered
        )
        with trio.move_on_after(EXIT_GRACE):  # its stderr read to the end once it exits
            await bot.stdin.aclose()
            await bot.process.wait()
            await drained.wait()
        nursery.cancel_scope.cancel()
    return asked


def _no_sandbox(exc: OSError) -> BotStartFailed:
    return BotStartFailed(f"the sandbox for this seat could not be made: {exc.strerror or exc}")


def _never_started(questions: list[Question], fault: BotStartFailed) -> Session:
    hello = Answer(0, "missing", 0.0, reason=reason_code(fault), detail=str(fault))
    gone = f"the bot did not start: {reason_code(fault)}: {fault}"
    asked = Asked([(questions[0], hello)], questions[1:], gone)
    return Session(asked, "", "never started")
