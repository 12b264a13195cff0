"""The checks of whole matches, seat by seat: ``matches`` (a bot whose ready says "many"
plays a match in each seat in one process) and ``match`` (a new process of the bot in each
of the real matches on the seeds chosen for it, ``seeds``, run by the referee as ``referee
match`` runs one)."""

from __future__ import annotations

import contextlib
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Final

import msgspec
import trio

from referee.match.outcome import MatchOutcome
from referee.match.runner import BUNDLED_BOTS, run_match
from referee.record.log import read_log
from referee.record.records import BotReady, LogRecord, MoveRecord, RejectedRecord, split_counts
from referee.record.sandbox import Layer
from referee.rules import SEATS, Seat
from referee.sandbox.hints import SANDBOX_SUSPECTS
from referee.sandbox.policy import plan
from referee.wire.messages import Ready

from .opponents import CheckedSeat, play_among_random_bots
from .results import SeatCheck, seat_letters, seats_text
from .seeds import DEFAULT_OPPONENTS, seat_of, seating, seed_of
from .session import Findings, Session
from .situations import faced
from .steps import Context, Stop, Verdict, converse, exits, in_ms


def bundled_command(name: str) -> str:
    """The command of a bundled bot (``heuristic``, ``random``) with this Python."""
    return shlex.join([sys.executable, str(BUNDLED_BOTS / f"{name}_bot.py")])


#: The bundled random bot's command.
RANDOM_BOT: Final = bundled_command("random")
#: The sandbox bounds among the match limits: a diagnosis raises them in its plan.
_BOUNDS: Final = ("memory_mb", "cpu_seconds", "max_processes", "file_size_mb", "scratch_mb")
#: The prefix of a match's folder when nothing is kept.
_TEMP: Final = "texas42-check-bot-"
#: Ordinals for a ``many`` bot's hellos: one a match, and a match in each seat.
_NTH: Final = ("first", "second", "third", "fourth")


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
    silent = any(
        SANDBOX_SUSPECTS & set(check.faults) for check in seats if check.status == "failed"
    )
    return Verdict("failed", "\n".join([head, *lines]), tuple(seats), silent=silent)


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
            idle=CheckedSeat(seat, session.bot),
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
                    faults=[forfeit.reason],
                    reuse=True,
                )
            )
            break
        trouble = _trouble(outcome, seat)
        if trouble is not None:
            faults = sorted(split_counts(outcome.faults)[0][seat])
            refused = _refusals(match.records, seat)
            seats.append(
                SeatCheck(
                    seat=seat,
                    status="failed",
                    detail=f"{where}: {trouble}",
                    faults=faults,
                    refused=refused,
                )
            )
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
            seats.append(SeatCheck(seat=seat, status="failed", detail=why, reuse=True))
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
        took = await exits(session, ended, "the last match_end")
    except Stop as stop:  # every match passed: the end is the bot's failure, in no seat
        return Verdict("failed", _by_seat(seats, stop.verdict.detail).detail, tuple(seats))
    return _by_seat(
        seats,
        f'ready said "many": one process played {seats_text(_played(seats))}, a match each'
        f" after its own hello{closing}, no fault; it exited {in_ms(took)} after the end of its"
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
    return await converse(context, seat_matches, "matches")


def opponent_commands(context: Context) -> tuple[str, ...]:
    """The commands of the bot's opponents: ``--opponent``'s, or the bundled bots'."""
    return context.opponents or tuple(map(bundled_command, DEFAULT_OPPONENTS))


async def match_check(context: Context) -> Verdict:
    """``context.matches`` real matches, the bot in seats A to D in turn on the seeds chosen
    for it (``seeds``), a new process of it in each, its opponents (the bundled heuristic and
    random bots) around it, all started and sandboxed by the referee as ``referee match``
    does. Every match is played, so the report names each one that fails; the situations the
    bot met in them are counted into ``context.findings``."""
    played = [await match_in(context, number) for number in range(context.matches)]
    failed = [check for check in played if check.status == "failed"]
    lines = [f"{_match_words(check)}: {check.detail}" for check in played]
    if not failed:
        seats = sorted({check.seat for check in played})
        head = f"{_count(len(played), 'match', 'matches')} in {seats_text(seats)}: no fault"
        return Verdict("passed", "\n".join([head, *lines]), tuple(played))
    numbers = seat_letters([str(check.match) for check in failed])
    where = seats_text(sorted({check.seat for check in failed}))
    passed = len(played) - len(failed)
    head = f"failed in match{'es' if len(failed) > 1 else ''} {numbers} ({where}"
    head += f"; passed in {_count(passed, 'other match', 'others')})" if passed else ")"
    silent = any(SANDBOX_SUSPECTS & set(check.faults) for check in failed)
    return Verdict("failed", "\n".join([head, *lines]), tuple(played), silent=silent)


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def _match_words(check: SeatCheck) -> str:
    return f"match {check.match} (seat {check.seat}, seed {check.seed})"


def _refusals(records: list[LogRecord], seat: Seat) -> list[str]:
    """The reasons of the seat's refused answers, and the rules they broke, once each."""
    found: dict[str, None] = {}
    for record in records:
        if type(record) is RejectedRecord and record.seat == seat:
            found[record.reason] = None
            if record.rule is not None:
                found[record.rule] = None
    return list(found)


async def match_in(context: Context, number: int) -> SeatCheck:
    """Match ``number`` (from 0) of the ``match`` check: its seed and seating (``seeds``)."""
    seat, seed = seat_of(number), seed_of(number)
    # the bounds of the context's sandbox, which a diagnosis may have raised
    bounds = {name: getattr(context.sandbox.limits, name) for name in _BOUNDS}
    settings = msgspec.structs.replace(context.settings, seed=seed, **bounds)
    table = seating(number, context.command, opponent_commands(context))
    commands = {seat: table[seat] for seat in SEATS}
    with contextlib.ExitStack() as stack:
        if context.kept is not None:
            folder = context.kept / f"match-{number + 1}-{seat}"
        else:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=_TEMP)))
        log = folder / "match.jsonl"
        sandbox = plan(context.sandbox.settings, settings, commands, [log.parent])
        # and the layers a diagnosis lifted from it (its plan seats the bot everywhere)
        lifted = set(sandbox.report.seats[seat]) - set(context.sandbox.report.seats["A"])
        if lifted:
            sandbox = sandbox.lifted(tuple(map(Layer, lifted)))
        trace = None
        if context.trace is not None:
            context.trace.heading(
                f"check match {number + 1}: a new process of the bot in seat {seat}, seed {seed}"
            )
            trace = context.trace.for_seat(seat)
        outcome = await run_match(settings, commands, log, sandbox, trace=trace)
        try:
            records = read_log(log).records
        except Exception:  # the outcome below says what went wrong
            records = []
        _seat_times(records, seat, context.findings)
        context.findings.situations.update(faced(records, seat))
        context.findings.wrote(outcome.stderr.get(seat))
        trouble = _trouble(outcome, seat)
        failure = outcome.failures.get(seat)
        stderr = failure.stderr if failure is not None else None
    played = SeatCheck(seat=seat, status="passed", detail="", match=number + 1, seed=seed)
    if trouble is not None:
        return msgspec.structs.replace(
            played,
            status="failed",
            detail=trouble,
            stderr=stderr,
            faults=sorted(split_counts(outcome.faults)[0][seat]),
            refused=_refusals(records, seat),
            again=shlex.join(["referee", "match", "--seed", str(seed), *commands.values()]),
        )
    summary = f"{outcome.hands} hands, {outcome.end}: {outcome.detail}"
    return msgspec.structs.replace(played, detail=f"{summary}, no fault{_refused(outcome, seat)}")
