"""The steps every scripted conversation is made of: greet the bot, ask it to act, judge its
answer, see it exit; ``converse`` runs one conversation with a new process of the bot.

A step that finds the bot at fault raises ``Stop`` with the conversation's verdict, so a
conversation reads as the exchange it scripts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import trio

from referee.errors import BotStartFailed
from referee.match.process import EXIT_GRACE
from referee.match.stderr import StderrTail
from referee.match.trace import WireTrace
from referee.rules import Action
from referee.sandbox.policy import SandboxPlan
from referee.settings import MatchSettings
from referee.wire.messages import ActionAnswer, Ready, encode_line

from . import script as scripts
from .results import SeatCheck, Status
from .script import SEAT, Script, extended, first_legal
from .session import Answer, Findings, Session, started

#: Seconds a bot has to exit after ``match_end`` and the end of its input: the referee's
#: own grace before it ends the bot (then SIGTERM, and SIGKILL), so that check-bot asks what
#: a match does.
EXIT_LIMIT: Final = EXIT_GRACE
#: A conversation's verdict when the answer it waited for never left the bot's buffer.
STUCK: Final = "not judged: the bot's answer stayed in its output buffer (see flush)"


@dataclass(frozen=True)
class Verdict:
    """One check's result, before it is written into the report with its title and fix."""

    status: Status
    detail: str
    #: Seat by seat, for a check that plays the bot in every seat.
    seats: tuple[SeatCheck, ...] = ()
    #: The end of the bot's stderr, when it failed.
    stderr: StderrTail | None = None
    #: It failed because the bot went away, went silent or could not start: what a sandbox
    #: can cause (a wrong answer it cannot), so what check-bot's diagnosis looks into.
    silent: bool = False


class Stop(Exception):
    """Ends a conversation with its verdict."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.detail)
        self.verdict = verdict


#: What the bot did that a sandbox can cause: nothing, or went away.
SILENT: Final = frozenset({"exited", "silent", "not_reading"})


def failed(detail: str, silent: bool = False) -> Stop:
    """The ``Stop`` of a conversation the bot failed, saying how (``silent``: it went away
    or said nothing, rather than something wrong)."""
    return Stop(Verdict("failed", detail, silent=silent))


@dataclass
class Context:
    """What every conversation of one check-bot run shares: the bot, its sandbox, the match
    settings it is greeted with, and the findings its lines add to."""

    command: str
    sandbox: SandboxPlan
    settings: MatchSettings
    findings: Findings
    #: Where each conversation's stderr copy and each match's log go (None: nowhere).
    kept: Path | None = None
    #: ``--debug``: every line to and from the bot, and its stderr.
    trace: WireTrace | None = None
    #: The whole matches the ``match`` check plays (``seeds``: their seeds and seats).
    matches: int = 8
    #: The opponents' commands, seated in turn around the bot (empty: the bundled heuristic
    #: and random bots).
    opponents: tuple[str, ...] = ()

    def stderr_file(self, name: str) -> Path | None:
        """Where the stderr of the conversation ``name`` is copied."""
        return None if self.kept is None else self.kept / f"{name}.stderr"


def in_ms(seconds: float) -> str:
    """Seconds as the report's milliseconds."""
    return f"{seconds * 1000:.1f} ms"


async def greet(session: Session, context: Context, line: bytes | None = None) -> Answer:
    """``hello`` (``line`` if given) and its ``ready``; ``Stop`` when none comes."""
    hello = line if line is not None else encode_line(scripts.hello(context.settings))
    what = "hello" if line is None else "hello with unknown fields"
    answer = await session.exchange(hello, Ready, context.settings.startup_timeout, what)
    if answer.kind == "unflushed":
        raise Stop(Verdict("skipped", STUCK))
    if answer.kind == "malformed" or (answer.kind == "message" and type(answer.message) is Ready):
        return answer  # a refused ready is the start-up check's business
    raise failed(f"{what}: {answer.text}", answer.kind in SILENT)


async def ask(
    session: Session,
    context: Context,
    script: Script,
    act_id: int,
    *,
    before: bytes = b"",
    extra: Callable[[dict[str, Any]], None] | None = None,
    limit: float | None = None,
    stale_ok: bool = True,
) -> Answer:
    """One ``act`` from the script's state (``before`` written with it, as ``hand_end`` is).
    An answer to an earlier act is ignored, as the referee does, unless not ``stale_ok``."""
    limit = context.settings.move_timeout if limit is None else limit
    act = script.act(act_id, round(limit * 1000))
    line = encode_line(act) if extra is None else extended(act, extra)
    stale_before = act_id if stale_ok else None
    answer = await session.exchange(
        before + line, ActionAnswer, limit, f"act {act_id}", stale_before
    )
    message = answer.message
    if answer.kind == "message" and type(message) is ActionAnswer and message.id == act_id:
        context.findings.decisions.append(answer.seconds)
        if answer.seconds > limit:
            context.findings.late.append(
                f"act {act_id}: answered after {answer.seconds:.2f} s; its time_ms was"
                f" {round(limit * 1000)}"
            )
    return answer


def expect(answer: Answer, act_id: int, script: Script, *, legal: bool) -> Action | None:
    """The action the bot answered act ``act_id`` with; ``Stop`` for anything but an action
    answering that id (or, when ``legal``, anything but one of the legal actions). None
    for an illegal action when legality is not this check's business."""
    if answer.kind == "unflushed":
        raise Stop(Verdict("skipped", STUCK))
    where = f"act {act_id} ({script.hand.phase})"
    if answer.kind != "message":
        raise failed(f"{where}: {answer.text}", answer.kind in SILENT)
    message = answer.message
    if type(message) is not ActionAnswer:
        raise failed(f"{where}: {answer.text}: a ready where an action was asked")
    if message.id != act_id:
        raise failed(
            f"{where}: {answer.text}: answered id {message.id} while id {act_id} was asked"
        )
    if message.action in script.hand.legal_actions():
        return message.action
    if legal:
        raise failed(
            f"{where}: {answer.text}: not one of legal_actions"
            f" ({script.why_illegal(message.action)})"
        )
    return None


def play_on(script: Script, action: Action | None) -> None:
    """Apply the bot's action (the first legal one in its place when it was illegal)."""
    script.apply(SEAT, action if action is not None else first_legal(script.hand))


async def exits(session: Session, sent: float, what: str) -> float:
    """Close the bot's input, ``what`` having been sent at ``sent``: the seconds from then to
    its exit with status 0, or ``Stop``."""
    await session.close_input()
    await session.read_rest(sent + EXIT_LIMIT, f"after {what}")
    with trio.move_on_at(sent + EXIT_LIMIT):
        await session.bot.process.wait()
    code = session.bot.process.returncode
    if code is None:
        raise failed(f"still running {EXIT_LIMIT:g} s after {what} and the end of its input")
    if code != 0:
        raise failed(f"after {what} it {await session.ending()}", silent=True)
    return trio.current_time() - sent


Conversation = Callable[[Session, Context], Awaitable[Verdict]]


async def converse(context: Context, conversation: Conversation, name: str) -> Verdict:
    """Run one conversation (the check ``name``) with a new process of the bot; a failed
    one carries the end of the bot's stderr, read once the bot is closed."""
    if context.trace is not None:
        context.trace.heading(f"check {name}: a new process of the bot")
    try:
        async with started(
            context.command,
            context.sandbox,
            context.settings,
            context.findings,
            context.stderr_file(name),
            context.trace,
        ) as session:
            try:
                verdict = await conversation(session, context)
            except Stop as stop:
                verdict = stop.verdict
            finally:
                await session.finish("end of the conversation")
        if verdict.status == "failed":
            verdict = replace(verdict, stderr=session.bot.stderr.tail())
        return verdict
    except BotStartFailed as exc:
        return Verdict("failed", f"could not be started: {exc}", silent=True)
    except OSError as exc:
        return Verdict(
            "failed", f"its sandbox could not be made: {exc.strerror or exc}", silent=True
        )
