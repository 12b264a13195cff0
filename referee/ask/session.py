"""The bot's process for ``referee ask``: started sandboxed exactly as a match seat is (the
plan ``sandbox.policy.plan`` made, with the log's directory among the paths it may not read;
``MatchJails``; ``BotProcess``), asked its questions, and closed and reaped on every way out.

Its stderr is not written beside the log (the log may not be the asker's to write next to):
its last lines are kept for the report (``StderrSink`` keeps them without a copy).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import trio

from referee.ask.conversation import Answer, Asked, Conversation
from referee.ask.transcript import Question, Transcript
from referee.errors import BotFault, BotStartFailed, reason_code
from referee.match.process import EXIT_GRACE, BotProcess, exit_status
from referee.match.stderr import StderrTail
from referee.match.trace import WireTrace
from referee.rules.tiles import Seat
from referee.sandbox.policy import SandboxPlan
from referee.sandbox.seats import MatchJails
from referee.settings import MatchSettings


@dataclass
class Session:
    """What the bot's process did: its answers, the end of its stderr and how it ended."""

    asked: Asked
    stderr: StderrTail
    #: How the process ended once closed (``exit status 0``), or why it never started.
    ended: str


async def ask_bot(
    command: str,
    transcript: Transcript,
    questions: list[Question],
    settings: MatchSettings,
    sandbox: SandboxPlan,
    answered: Callable[[Question, Answer], None] | None = None,
    trace: WireTrace | None = None,
) -> Session:
    """Start ``command`` in the transcript's seat, ask it ``questions``, close it; ``trace``
    (``--debug``) is told every line to and from it."""
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
        bot.trace = trace
        try:
            asked = await _converse(bot, transcript, questions, settings, answered)
        finally:  # on every way out, an interruption included: closed and reaped
            with trio.CancelScope(shield=True):
                code = await bot.close()  # as a match closes it: SIGTERM, SIGKILL
                if bot.jail is not None:
                    jails.release(bot.jail)
        return Session(asked, bot.stderr.tail(), exit_status(code))
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

    async def explain(seat: Seat, fault: BotFault) -> BotFault:
        return await bot.explain(fault)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(bot.drain_stderr)
        connection = bot.connect(settings.max_line_bytes)
        asked = await Conversation(connection, transcript, settings, explain).ask(
            questions, answered
        )
        with trio.move_on_after(EXIT_GRACE):  # its stderr read to the end once it exits
            await bot.stdin.aclose()
            await bot.process.wait()
            await bot.stderr_read(EXIT_GRACE)
        nursery.cancel_scope.cancel()
    return asked


def _no_sandbox(exc: OSError) -> BotStartFailed:
    return BotStartFailed(f"the sandbox for this seat could not be made: {exc.strerror or exc}")


def _never_started(questions: list[Question], fault: BotStartFailed) -> Session:
    hello = Answer(0, "missing", 0.0, reason=reason_code(fault), detail=str(fault))
    gone = f"the bot did not start: {reason_code(fault)}: {fault}"
    asked = Asked([(questions[0], hello)], questions[1:], gone)
    return Session(asked, StderrTail(path=None, lines=[], total=0), "never started")
