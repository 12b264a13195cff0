"""The scripted conversations and the matches, and ``check_bot`` that runs them all.

Each scripted conversation is a new process of the bot in seat A (so one failure does not
hide the next), sandboxed exactly as a match seat is (``sandbox.policy.plan`` and
``MatchJails``). A conversation stops at the bot's first fault and says what the bot did.
The whole matches seat the bot in every seat, A to D: a bot that breaks only in C forfeits
its first real match from there. Everything runs one thing after another, so a decision's
time is the bot's alone.
"""

from __future__ import annotations

import re
import shlex
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Final

import msgspec
import trio

from referee.errors import BotStartFailed
from referee.match.runner import BUNDLED_BOTS, run_match, stderr_path
from referee.match.table import MatchOutcome
from referee.record.log import read_log
from referee.record.records import BotReady, LogRecord, MoveRecord, split_counts
from referee.rules import SEATS, Action, Seat
from referee.sandbox.policy import SandboxPlan, plan
from referee.settings import MatchLimits, MatchSettings, SandboxSettings
from referee.stats import percentile
from referee.wire.messages import ActionAnswer, Ready, Rejected, encode_line

from . import script as scripts
from .opponents import play_among_random_bots
from .report import (
    CHECKS,
    SPECS,
    Check,
    CheckReport,
    DecisionTimes,
    SeatCheck,
    Status,
    seat_letters,
    seats_text,
)
from .script import SEAT, Script, extended, first_legal, future_fields, unknown_event
from .session import Answer, Findings, Session, cut, started

#: Seconds a bot has to exit after ``match_end`` and the end of its input.
EXIT_LIMIT: Final = 2.0
#: The bundled bot in the other seats of each ``match``.
RANDOM_BOT: Final = shlex.join([sys.executable, str(BUNDLED_BOTS / "random_bot.py")])
#: Ordinals for a ``many`` bot's hellos: one a match, and a match in each seat.
_NTH: Final = ("first", "second", "third", "fourth")
#: The checks that play whole matches, which ``match=False`` (``--no-match``) leaves out.
WHOLE_MATCHES: Final = frozenset({"matches", "match"})


@dataclass(frozen=True)
class Verdict:
    status: Status
    detail: str
    #: Seat by seat, for a check that plays the bot in every seat.
    seats: tuple[SeatCheck, ...] = ()


class Stop(Exception):
    """Ends a conversation with its verdict."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.detail)
        self.verdict = verdict


def _failed(detail: str) -> Stop:
    return Stop(Verdict("failed", detail))


_STUCK: Final = "not judged: the bot's answer stayed in its output buffer (see flush)"


@dataclass
class Context:
    command: str
    sandbox: SandboxPlan
    settings: MatchSettings
    findings: Findings

    @property
    def move_ms(self) -> int:
        return round(self.settings.move_timeout * 1000)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


# -- the steps of a conversation -------------------------------------------------------------


async def greet(session: Session, context: Context, line: bytes | None = None) -> Answer:
    """``hello`` (``line`` if given) and its ``ready``; ``Stop`` when none comes."""
    hello = line if line is not None else encode_line(scripts.hello(context.settings))
    what = "hello" if line is None else "hello with unknown fields"
    answer = await session.exchange(hello, Ready, context.settings.startup_timeout, what)
    if answer.kind == "unflushed":
        raise Stop(Verdict("skipped", _STUCK))
    if answer.kind == "malformed" or (answer.kind == "message" and type(answer.message) is Ready):
        return answer  # a refused ready is the start-up check's business
    raise _failed(f"{what}: {answer.text}")


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
        raise Stop(Verdict("skipped", _STUCK))
    where = f"act {act_id} ({script.hand.phase})"
    if answer.kind != "message":
        raise _failed(f"{where}: {answer.text}")
    message = answer.message
    if type(message) is not ActionAnswer:
        raise _failed(f"{where}: {answer.text}: a ready where an action was asked")
    if message.id != act_id:
        raise _failed(f"{where}: {answer.text}: answered id {message.id}, not {act_id}")
    if message.action in script.hand.legal_actions():
        return message.action
    if legal:
        raise _failed(
            f"{where}: {answer.text}: not one of legal_actions"
            f" ({script.why_illegal(message.action)})"
        )
    return None


def _fix(advice: str, verdict: Verdict) -> str:
    """The check's own advice, and first of all, when the bot died, where to see why (an
    exit with status 0 was the bot's own idea: the advice says what it should have done)."""
    if verdict.status != "failed":
        return ""
    if re.search(r"exit(ed with)? status [1-9]", verdict.detail) or "killed by" in verdict.detail:
        return f"The bot exited here: its stderr (in the detail) says why. {advice}"
    return advice


def play_on(script: Script, action: Action | None) -> None:
    """Apply the bot's action (the first legal one in its place when it was illegal)."""
    script.apply(SEAT, action if action is not None else first_legal(script.hand))


# -- the conversations -----------------------------------------------------------------------


async def _one_decision(
    make: Callable[[], Script], what: str, session: Session, context: Context
) -> Verdict:
    await greet(session, context)
    script = make()
    answer = await ask(session, context, script, 3)
    expect(answer, 3, script, legal=True)
    return Verdict("passed", f"act 3 ({what}): {answer.text} in {_ms(answer.seconds)}")


async def playing(session: Session, context: Context) -> Verdict:
    await greet(session, context)
    script = scripts.playing()
    act_id, first = 3, ""
    while script.advance():
        answer = await ask(session, context, script, act_id)
        play_on(script, expect(answer, act_id, script, legal=True))
        first = first or f"act 3 (must follow sixes): {answer.text}"
        act_id += 2
    asked = (act_id - 3) // 2
    return Verdict("passed", f"{first}; all {asked} plays of the hand legal")


async def rejected(session: Session, context: Context) -> Verdict:
    await greet(session, context)
    script = scripts.bidding()
    answer = await ask(session, context, script, 5)
    expect(answer, 5, script, legal=False)
    # A copy of that answer already on its way (a bot that writes each answer twice) is not
    # a reply to the refusal: let it arrive first.
    await session.read_rest(trio.current_time() + 0.1, "act 5")
    refusal = Rejected(
        id=5,
        reason="illegal_action",
        detail="check-bot refuses this answer on purpose: answer the fresh act that follows",
    )
    # Here a repeat of the refused answer is the bug this check looks for: not ignored.
    again = await ask(session, context, script, 6, before=encode_line(refusal), stale_ok=False)
    message = again.message
    if again.kind == "message" and type(message) is ActionAnswer and message.id == 5:
        raise _failed(f"after rejected 5 and act 6: {again.text}: the old id 5 again")
    expect(again, 6, script, legal=False)
    return Verdict("passed", f"after rejected 5 and act 6: {again.text}")


async def unknown_message(session: Session, context: Context) -> Verdict:
    await greet(session, context)
    script = scripts.bidding()
    asked: list[int] = []
    act_id = 3
    while script.advance() and len(asked) < 2:
        answer = await ask(
            session, context, script, act_id, before=scripts.UNKNOWN_MESSAGES, extra=unknown_event
        )
        message = answer.message
        if answer.kind == "message" and type(message) is ActionAnswer and message.id == 999:
            raise _failed(f"{answer.text}: it answered a message of an unknown type as an act")
        play_on(script, expect(answer, act_id, script, legal=False))
        asked.append(act_id)
        act_id += 2
    return Verdict(
        "passed",
        "answered acts "
        + " and ".join(map(str, asked))
        + ", each after two messages of unknown types and with an event of an unknown type",
    )


async def unknown_fields(session: Session, context: Context) -> Verdict:
    await greet(session, context, extended(scripts.hello(context.settings), future_fields))
    script = scripts.playing()
    act_id = 3
    while script.advance():
        answer = await ask(session, context, script, act_id, extra=future_fields)
        play_on(script, expect(answer, act_id, script, legal=False))
        act_id += 2
    assert script.hand_end is not None
    hand_end = extended(script.hand_end, future_fields)
    script = scripts.second_hand(script.marks_after)
    answer = await ask(session, context, script, act_id, before=hand_end, extra=future_fields)
    expect(answer, act_id, script, legal=False)
    return Verdict(
        "passed",
        f"answered all {(act_id - 1) // 2} acts with unknown fields in hello, limits, act, view,"
        " bids, trick, piles, contract, events, hand_end and review",
    )


async def exit_check(session: Session, context: Context) -> Verdict:
    await greet(session, context)
    script = scripts.last_play({"AC": 6, "BD": 6})
    answer = await ask(session, context, script, 3)
    play_on(script, expect(answer, 3, script, legal=False))
    assert script.hand_end is not None
    end = scripts.match_end(script)
    failed = await session.send(encode_line(script.hand_end) + encode_line(end))
    if failed is not None:
        raise _failed(f"hand_end and match_end could not be written: {failed.text}")
    took = await _exits(session, trio.current_time(), "match_end")
    return Verdict("passed", f"exited with status 0, {_ms(took)} after match_end")


async def _exits(session: Session, sent: float, what: str) -> float:
    """Close the bot's input, ``what`` having been sent at ``sent``: the seconds from then to
    its exit with status 0, or ``Stop``."""
    await session.close_input()
    await session.read_rest(sent + EXIT_LIMIT, f"after {what}")
    with trio.move_on_at(sent + EXIT_LIMIT):
        await session.bot.process.wait()
    code = session.bot.process.returncode
    if code is None:
        raise _failed(f"still running {EXIT_LIMIT:g} s after {what} and the end of its input")
    if code != 0:
        raise _failed(f"after {what} it {await session.ending()}")
    return trio.current_time() - sent


Conversation = Callable[[Session, Context], Awaitable[Verdict]]

#: The scripted conversations after start-up, by check name.
CONVERSATIONS: Final[dict[str, Conversation]] = {
    "bidding": partial(_one_decision, scripts.bidding, "bidding over 31"),
    "declaring": partial(_one_decision, scripts.declaring, "trump for a bid of 30"),
    "all_tricks": partial(_one_decision, scripts.all_tricks, "trump for all tricks, 2 marks"),
    "playing": playing,
    "rejected": rejected,
    "unknown_message": unknown_message,
    "unknown_fields": unknown_fields,
    "exit": exit_check,
}


async def converse(context: Context, conversation: Conversation) -> Verdict:
    """Run one conversation with a new process of the bot."""
    try:
        async with started(
            context.command, context.sandbox, context.settings, context.findings
        ) as session:
            try:
                return await conversation(session, context)
            except Stop as stop:
                return stop.verdict
            finally:
                await session.finish("end of the conversation")
    except BotStartFailed as exc:
        return Verdict("failed", f"could not be started: {exc}")
    except OSError as exc:
        return Verdict("failed", f"its sandbox could not be made: {exc.strerror or exc}")


async def startup(context: Context) -> tuple[Verdict, Ready | None, float | None, bool]:
    """hello -> ready: the verdict, the valid ready (None without one), the seconds from the
    bot's start to its ready, and whether it answered hello at all (a refused ready is an
    answer)."""
    began = trio.current_time()
    ready: Ready | None = None
    seconds: float | None = None
    responded = False

    async def talk(session: Session, context: Context) -> Verdict:
        nonlocal ready, seconds, responded
        answer = await greet(session, context)
        responded = True
        limit = context.settings.startup_timeout
        if answer.kind == "malformed":
            raise _failed(f"hello: {answer.text}")
        assert type(answer.message) is Ready
        ready, seconds = answer.message, trio.current_time() - began
        if seconds > limit:
            raise _failed(f"ready after {seconds:.2f} s, over the {limit:g} s start-up limit")
        return Verdict("passed", f"{answer.text} {_ms(seconds)} after its start")

    return await converse(context, talk), ready, seconds, responded


def _seat_times(records: list[LogRecord], seat: Seat, findings: Findings) -> None:
    """The seat's decision times in a logged match, into ``findings`` (forced moves left out)."""
    for record in records:
        if type(record) is MoveRecord and record.seat == seat and not record.forced:
            latency = None if record.timing is None else record.timing.latency_ms
            if latency is not None:
                findings.decisions.append(latency / 1000)


def _trouble(outcome: MatchOutcome, seat: Seat) -> str | None:
    """What went wrong for ``seat`` in a match — a fault (refused and ignored answers are
    not faults), or an end that is no result — or None."""
    faults = split_counts(outcome.faults)[0][seat]
    summary = f"{outcome.hands} hands, {outcome.end}: {outcome.detail}"
    if faults:
        counts = ", ".join(f"{kind} x{count}" for kind, count in sorted(faults.items()))
        return f"faults of seat {seat}: {counts} ({summary})"
    if outcome.end not in ("marks", "max_hands"):
        return summary
    return None


def _by_seat(seats: list[SeatCheck], passed: str = "") -> Verdict:
    """A check's verdict from its seats': failed when one failed, each seat on a line of its
    own under a first line that names the seats that failed (``passed`` when none did)."""
    failed = [check.seat for check in seats if check.status == "failed"]
    lines = [f"seat {check.seat}: {check.detail}" for check in seats]
    if not failed:
        return Verdict("passed", "\n".join([passed, *lines]), tuple(seats))
    others = [
        f"{words} in {seat_letters(found)}"
        for status, words in (("passed", "passed"), ("skipped", "not played"))
        if (found := [check.seat for check in seats if check.status == status])
    ]
    head = f"failed in {seats_text(failed)}" + (f" ({'; '.join(others)})" if others else "")
    return Verdict("failed", "\n".join([head, *lines]), tuple(seats))


async def seat_matches(session: Session, context: Context) -> Verdict:
    """One match in each seat, A to D, in one process, each after its own ``hello`` at a
    real table among random bots; then the end of its input. Between matches, as a
    tournament does, whatever the bot wrote is dropped unread. A match that fails ends the
    check (a tournament would not keep the process), and so does a later ``ready`` that says
    ``one`` (allowed: the process is closed after that match): the seats after it are not
    played."""
    first = context.settings.seed
    seats: list[SeatCheck] = []
    ended = 0.0
    closing = ""
    for number, seat in enumerate(SEATS, start=1):
        settings = msgspec.structs.replace(context.settings, seed=(first + number - 1) % 2**64)
        where = f"match {number} (seed {settings.seed})"
        match = await play_among_random_bots(
            settings,
            seat,
            session.connection if number == 1 else session.bot.connect(settings.max_line_bytes),
            context.command,
            context.sandbox.report,
            session.bot.explain,
            previous_matches=number - 1,  # each after the first judged as a tournament would
        )
        ended = trio.current_time()
        _seat_times(match.records, seat, context.findings)
        outcome = match.outcome
        readies = [r for r in match.records if type(r) is BotReady and r.seat == seat]
        if number > 1 and not readies:
            forfeit = outcome.forfeit
            assert forfeit is not None  # a seat without ready forfeits its start
            if session.bot.process.returncode is None:
                what = f"{forfeit.reason}: {forfeit.detail}"
            else:
                what = f"it {await session.ending()}"
            nth = _NTH[number - 1]
            why = f"after match {number - 1}'s match_end, got no ready: {what}"
            seats.append(
                SeatCheck(
                    seat=seat,
                    status="failed",
                    detail=f'{where}: ready said "matches": "many", but the {nth} hello, {why}',
                )
            )
            break
        trouble = _trouble(outcome, seat)
        if trouble is not None:
            seats.append(SeatCheck(seat=seat, status="failed", detail=f"{where}: {trouble}"))
            break
        said = readies[0].matches
        played = f"{where}: {outcome.hands} hands, {outcome.end}{_refused(outcome, seat)}"
        if number > 1 and said == "one":
            seats.append(SeatCheck(seat=seat, status="passed", detail=played))
            closing = f' (its ready in match {number} said "one": closed after it)'
            break
        if number < len(SEATS) and not match.reusable:
            why = "match_end did not reach it" if said == "many" else f'its ready said "{said}"'
            why = f"{where}: a tournament would not keep the process: {why}"
            seats.append(SeatCheck(seat=seat, status="failed", detail=why))
            break
        seats.append(SeatCheck(seat=seat, status="passed", detail=played))
    stopped = f"match {len(seats)} (seat {seats[-1].seat})"
    why = f"the process was closed after {stopped}" if closing else f"{stopped} failed"
    seats += [
        SeatCheck(seat=seat, status="skipped", detail=f"not played: {why}")
        for seat in SEATS[len(seats) :]
    ]
    if any(check.status == "failed" for check in seats):
        return _by_seat(seats)
    try:
        took = await _exits(session, ended, "the last match_end")
    except Stop as stop:  # every match passed: the end is the bot's failure, in no seat
        return Verdict("failed", _by_seat(seats, stop.verdict.detail).detail, tuple(seats))
    return _by_seat(
        seats,
        f'ready said "many": one process played {seats_text(_played(seats))}, a match each'
        f" after its own hello{closing}, no fault; it exited {_ms(took)} after the end of its"
        " input",
    )


def _played(seats: list[SeatCheck]) -> list[Seat]:
    return [check.seat for check in seats if check.status != "skipped"]


def _refused(outcome: MatchOutcome, seat: Seat) -> str:
    """The seat's refused answers in a match, if any, as words to add: no fault, but worth
    knowing in one seat and not the others (answers to earlier acts, ignored, are left out:
    a bot that writes each answer twice conforms)."""
    refused = split_counts(outcome.faults)[1][seat]
    counts = ", ".join(
        f"{kind} x{count}" for kind, count in sorted(refused.items()) if kind != "ignored"
    )
    return f" (answers refused: {counts})" if counts else ""


async def matches_check(context: Context, ready: Ready | None, match: bool) -> Verdict:
    """What ``ready`` said about reuse, checked: ``many`` plays a whole match in each seat in
    one process (unless ``match`` is off: no whole matches); ``one`` is started fresh for
    each (the ``exit`` check covers its end)."""
    if ready is None:
        return Verdict("skipped", "not run: no valid ready said how many matches it plays")
    if ready.matches == "one":
        return Verdict(
            "passed",
            'ready says "matches": "one" (the default): it is started fresh for each match and'
            " closed after it, as the exit check expects",
        )
    if not match:
        return Verdict(
            "skipped", 'not asked for: ready said "many", checked by a match in each seat'
        )
    return await converse(context, seat_matches)


async def match_check(context: Context) -> Verdict:
    """A real match in each seat, A to D: a new process of the bot in it, the bundled random
    bot in the three others, all started and sandboxed by the referee as ``referee match``
    does. Every seat is played, so the report names each one that fails."""
    seats = [await _match_in(context, seat) for seat in SEATS]
    return _by_seat(seats, f"seed {context.settings.seed}: no fault in any seat")


async def _match_in(context: Context, seat: Seat) -> SeatCheck:
    commands = dict.fromkeys(SEATS, RANDOM_BOT) | {seat: context.command}
    with tempfile.TemporaryDirectory(prefix="texas42-check-bot-") as folder:
        log = Path(folder) / "match.jsonl"
        sandbox = plan(context.sandbox.settings, context.settings, commands, [log.parent])
        outcome = await run_match(context.settings, commands, log, sandbox)
        try:
            records = read_log(log).records
        except Exception:  # the outcome below says what went wrong
            records = []
        _seat_times(records, seat, context.findings)
        trouble = _trouble(outcome, seat)
        stderr = stderr_path(log, seat)
        if trouble is not None and stderr.exists():
            lines = [line for line in stderr.read_text(errors="replace").splitlines() if line]
            if lines and lines[-1] not in trouble:  # the fault's detail may quote it already
                trouble += f"; its stderr ends: {cut(lines[-1])}"
    if trouble is not None:
        return SeatCheck(seat=seat, status="failed", detail=trouble)
    summary = f"{outcome.hands} hands, {outcome.end}: {outcome.detail}"
    return SeatCheck(
        seat=seat, status="passed", detail=f"{summary}, no fault{_refused(outcome, seat)}"
    )


def _spanning(findings: Findings, answered: bool) -> dict[str, Verdict]:
    """The checks over every line of every conversation."""

    def judge(offences: list[str], good: str) -> Verdict:
        if offences:
            more = f" (and {len(offences) - 1} more)" if len(offences) > 1 else ""
            return Verdict("failed", offences[0] + more)
        if not answered:
            return Verdict("skipped", "nothing to judge: the bot answered nothing")
        return Verdict("passed", good)

    slowest = max(findings.decisions, default=0.0)
    return {
        "single_line": judge(findings.multiline, "every message was one line"),
        "flush": judge(findings.unflushed, "every answer came as soon as it was written"),
        "move_time": judge(findings.late, f"slowest scripted answer {_ms(slowest)}"),
        "stdout": judge(findings.junk, "no line but ready and action messages"),
    }


async def check_bot_async(
    command: str,
    *,
    sandbox: SandboxSettings | None = None,
    limits: MatchLimits | None = None,
    seed: int = 1,
    match: bool = True,
) -> CheckReport:
    """``check_bot`` inside a running trio loop."""
    clock = time.monotonic()
    settings = (limits or MatchLimits()).for_seed(seed)
    sandbox_settings = sandbox or SandboxSettings()
    everywhere = dict.fromkeys(SEATS, command)
    context = Context(command, plan(sandbox_settings, settings, everywhere), settings, Findings())
    verdicts: dict[str, Verdict] = {}
    verdicts["startup"], ready, startup_seconds, began = await startup(context)
    if began:
        for check, conversation in CONVERSATIONS.items():
            verdicts[check] = await converse(context, conversation)
        verdicts["matches"] = await matches_check(context, ready, match)
    else:
        why = "its ready stayed in its output buffer (see flush)"
        if verdicts["startup"].status != "skipped":
            why = "the bot did not answer hello"
        for check in (*CONVERSATIONS, "matches"):
            verdicts[check] = Verdict("skipped", f"not run: {why}")
    answered = began or bool(context.findings.decisions)
    verdicts.update(_spanning(context.findings, answered))
    if not match:
        verdicts["match"] = Verdict("skipped", "not asked for")
    elif all(verdict.status == "passed" for verdict in verdicts.values()):
        verdicts["match"] = await match_check(context)
    else:
        verdicts["match"] = Verdict("skipped", "not run: the checks above must pass first")
    checks = [
        Check(
            name=spec.name,
            title=spec.title,
            status=verdicts[spec.name].status,
            detail=verdicts[spec.name].detail,
            fix=_fix(spec.fix, verdicts[spec.name]),
            seats=list(verdicts[spec.name].seats),
        )
        for spec in CHECKS
    ]
    times = [seconds * 1000 for seconds in context.findings.decisions]
    return CheckReport(
        command=command,
        # Matches left out on purpose (--no-match) are no failure; skipped for a failure they are.
        ok=all(
            check.status == "passed" or (check.name in WHOLE_MATCHES and not match)
            for check in checks
        ),
        name=None if ready is None else ready.name,
        startup_ms=None if startup_seconds is None else startup_seconds * 1000,
        decisions=DecisionTimes(
            count=len(times),
            median_ms=percentile(times, 0.5) if times else None,
            p99_ms=percentile(times, 0.99) if times else None,
            max_ms=max(times) if times else None,
        ),
        checks=checks,
        sandbox=context.sandbox.report.summary(),
        seconds=time.monotonic() - clock,
    )


def check_bot(
    command: str,
    *,
    sandbox: SandboxSettings | None = None,
    limits: MatchLimits | None = None,
    seed: int = 1,
    match: bool = True,
) -> CheckReport:
    """Check that ``command`` speaks the protocol: start it sandboxed as a match would (with
    ``sandbox`` and the bounds and timeouts of ``limits``), run every scripted conversation
    (in seat A), then — when they all pass and ``match`` — a real match in each seat, A to
    D, against the bundled random bot in the three others (seed ``seed`` each time); a bot
    whose ``ready`` says ``"matches": "many"`` first plays four more, one in each seat, in
    one process (seeds ``seed`` to ``seed + 3``) when ``match``. Raises ``SandboxRefused``
    under ``--sandbox strict`` when a layer is missing, like ``referee match``."""
    return trio.run(
        partial(check_bot_async, command, sandbox=sandbox, limits=limits, seed=seed, match=match)
    )


assert set(SPECS) == {"startup", *CONVERSATIONS, "matches", "single_line", "flush", "move_time",
                      "stdout", "match"}  # fmt: skip
