"""``check_bot``: every check, one after another, and the report they make.

Each scripted conversation is a new process of the bot in seat A (so one failure does not
hide the next), sandboxed exactly as a match seat is (``sandbox.policy.plan`` and
``MatchJails``). A conversation stops at the bot's first fault and says what the bot did.
The whole matches seat the bot in every seat, A to D: a bot that breaks only in C forfeits
its first real match from there. Everything runs one thing after another, so a decision's
time is the bot's alone.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Final

import trio

from referee.match.trace import WireTrace
from referee.rules import SEATS
from referee.sandbox.hints import hints
from referee.sandbox.policy import plan
from referee.settings import MatchLimits, SandboxSettings
from referee.stats import percentile
from referee.wire.messages import Ready

from .advice import advice
from .conversations import CONVERSATIONS, startup
from .diagnosis import Rerun, diagnose
from .matches import match_check, match_in, matches_check, opponent_commands
from .results import CHECKS, Check, CheckReport, CheckSpec, DecisionTimes, Diagnosis, Met
from .seeds import DEFAULT_MATCHES
from .session import Findings
from .situations import SITUATIONS
from .steps import Context, Verdict, converse, in_ms

#: The checks that play whole matches, which ``match=False`` (``--no-match``) leaves out.
WHOLE_MATCHES: Final = frozenset({"matches", "match"})


def _fix(spec: CheckSpec, verdict: Verdict) -> str:
    """What to fix, a line each. A check of whole matches whose seats failed in play: the
    advice of each reason they were charged with (``advice``; ``match``'s own last). Any
    other: the check's own advice, and first of all, when the bot died, where to see why (an
    exit with status 0 was the bot's own idea: the advice says what it should have done)."""
    if verdict.status != "failed":
        return ""
    failed = [seat for seat in verdict.seats if seat.status == "failed"]
    if failed and not any(seat.reuse for seat in failed):
        faults = [fault for seat in failed for fault in seat.faults]
        refused = [reason for seat in failed for reason in seat.refused]
        lines = advice(faults, refused)
        if lines:
            return "\n".join(lines + ([spec.fix] if spec.name == "match" else []))
    if re.search(r"exit(ed with)? status [1-9]", verdict.detail) or "killed by" in verdict.detail:
        return f"The bot exited here: its stderr (in the detail) says why.\n{spec.fix}"
    return spec.fix


def _hints(context: Context, verdict: Verdict) -> list[str]:
    """What a bot's stderr suggests its sandbox withheld, when it went away sandboxed."""
    if verdict.status != "failed" or not verdict.silent or verdict.stderr is None:
        return []
    if context.sandbox.off:
        return []
    return hints(verdict.stderr.lines, context.command, context.sandbox.settings)


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
        "move_time": judge(findings.late, f"slowest scripted answer {in_ms(slowest)}"),
        "stdout": judge(findings.junk, "no line but ready and action messages"),
    }


async def check_bot_async(
    command: str,
    *,
    sandbox: SandboxSettings | None = None,
    limits: MatchLimits | None = None,
    seed: int = 1,
    match: bool = True,
    matches: int = DEFAULT_MATCHES,
    opponents: tuple[str, ...] = (),
    diagnose: bool = True,
    trace: WireTrace | None = None,
    say: Callable[[str], None] | None = None,
) -> CheckReport:
    """``check_bot`` inside a running trio loop; ``say`` is told, as it happens, what is
    done that the report alone would tell too late (the bot run again without its sandbox).

    What the conversations and matches leave (stderr copies, logs) is kept in a folder of
    its own when a check failed, and removed otherwise — an interruption included."""
    clock = time.monotonic()
    settings = (limits or MatchLimits()).for_seed(seed)
    sandbox_settings = sandbox or SandboxSettings()
    kept = Path(tempfile.mkdtemp(prefix="texas42-check-bot-"))
    try:
        context = Context(
            command,
            plan(sandbox_settings, settings, dict.fromkeys(SEATS, command), [kept]),
            settings,
            Findings(),
            kept,
            trace,
            matches=matches if match else 0,
            opponents=opponents,
        )
        report = await _checked(context, match, diagnose, say, clock)
    except BaseException:
        shutil.rmtree(kept, ignore_errors=True)
        raise
    if report.ok:
        shutil.rmtree(kept, ignore_errors=True)
    return report


async def _checked(
    context: Context,
    match: bool,
    diagnose: bool,
    say: Callable[[str], None] | None,
    clock: float,
) -> CheckReport:
    """Every check in turn, their report; what they leave goes into ``context.kept``."""
    command = context.command
    verdicts: dict[str, Verdict] = {}
    verdicts["startup"], ready, startup_seconds, began = await startup(context)
    if began:
        for check, conversation in CONVERSATIONS.items():
            verdicts[check] = await converse(context, conversation, check)
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
            fix=_fix(spec, verdicts[spec.name]),
            seats=list(verdicts[spec.name].seats),
            stderr=verdicts[spec.name].stderr,
            hints=_hints(context, verdicts[spec.name]),
        )
        for spec in CHECKS
    ]
    ok = all(
        check.status == "passed" or (check.name in WHOLE_MATCHES and not match) for check in checks
    )
    diagnosis = None
    if not ok and diagnose and not context.sandbox.off:
        diagnosis = await _diagnosis(context, checks, verdicts, ready, say)
    times = [seconds * 1000 for seconds in context.findings.decisions]
    met = context.findings.situations
    return CheckReport(
        command=command,
        # Matches left out on purpose (--no-match) are no failure; skipped for a failure they are.
        ok=ok,
        name=None if ready is None else ready.name,
        startup_ms=None if startup_seconds is None else startup_seconds * 1000,
        decisions=DecisionTimes(
            count=len(times),
            median_ms=percentile(times, 0.5) if times else None,
            p99_ms=percentile(times, 0.99) if times else None,
            max_ms=max(times) if times else None,
        ),
        checks=checks,
        sandbox=context.sandbox.report.brief(),
        seconds=time.monotonic() - clock,
        kept=None if ok else str(context.kept),
        diagnosis=diagnosis,
        situations=[
            Met(name=situation.name, title=situation.title, count=met[situation.name])
            for situation in SITUATIONS
        ],
        opponents=list(opponent_commands(context)) if match else [],
        matches=context.matches,
        stderr=context.findings.stderr,
        runs=context.findings.runs,
    )


async def _diagnosis(
    context: Context,
    checks: list[Check],
    verdicts: dict[str, Verdict],
    ready: Ready | None,
    say: Callable[[str], None] | None,
) -> Diagnosis | None:
    """Whether the sandbox made the first failed check fail (one that talks to the bot:
    the checks over every line are judged from the others) — when the bot went away or
    silent there: a wrong answer is no sandbox's doing, and running a bot without its
    sandbox is not done for nothing."""
    for check in checks:
        if check.status != "failed":
            continue
        rerun = _rerun(check, ready)
        if rerun is None:
            continue
        if not verdicts[check.name].silent:
            return None
        seat = next((seat for seat in check.seats if seat.status == "failed"), None)
        tail = check.stderr if seat is None else seat.stderr
        return await diagnose(context, check.name, rerun, tail, say)
    return None


def _rerun(check: Check, ready: Ready | None) -> Rerun | None:
    """How to run ``check`` again in another context (None for the checks over every line)."""
    name = check.name
    if name == "startup":

        async def again(context: Context) -> Verdict:
            return (await startup(context))[0]

        return again
    if name in CONVERSATIONS:
        return partial(converse, conversation=CONVERSATIONS[name], name=name)
    if name == "matches":
        return partial(matches_check, ready=ready, match=True)
    if name == "match":
        number = next(seat.match for seat in check.seats if seat.status == "failed")
        assert number is not None

        async def again(context: Context) -> Verdict:
            played = await match_in(context, number - 1)
            return Verdict(played.status, played.detail)

        return again
    return None


def check_bot(
    command: str,
    *,
    sandbox: SandboxSettings | None = None,
    limits: MatchLimits | None = None,
    seed: int = 1,
    match: bool = True,
    matches: int = DEFAULT_MATCHES,
    opponents: tuple[str, ...] = (),
    diagnose: bool = True,
    trace: WireTrace | None = None,
    say: Callable[[str], None] | None = None,
) -> CheckReport:
    """Check that ``command`` speaks the protocol: start it sandboxed as a match would (with
    ``sandbox`` and the bounds and timeouts of ``limits``), run every scripted conversation
    (in seat A, seed ``seed``), then — when they all pass and ``match`` — ``matches`` real
    matches, the bot in seats A to D in turn on the seeds chosen for it (``seeds``), against
    ``opponents`` (commands; none: the bundled heuristic and random bots), counting the
    situations it met; a bot whose ``ready`` says ``"matches": "many"`` first plays four
    more, one in each seat, in one process among random bots (seeds ``seed`` to ``seed +
    3``) when ``match``. Raises ``SandboxRefused`` under ``--sandbox strict`` when a layer
    is missing, like ``referee match``. ``diagnose``: when a check fails sandboxed, find out
    whether the sandbox was the cause. ``trace`` (``--debug``) is told every line to and
    from the bot."""
    return trio.run(
        partial(
            check_bot_async,
            command,
            sandbox=sandbox,
            limits=limits,
            seed=seed,
            match=match,
            matches=matches,
            opponents=opponents,
            diagnose=diagnose,
            trace=trace,
            say=say,
        )
    )
