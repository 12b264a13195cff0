"""check-bot's results: every check it runs (what it asks, the fix when a bot falls short),
the report of one bot (a result per check, the bot's timings) and that report as text."""

from __future__ import annotations

import io
from typing import Final, Literal

import msgspec

from referee.match.process import EXIT_GRACE
from referee.match.stderr import StderrTail
from referee.match.stderr_lines import StderrTotals
from referee.rules import Seat
from referee.terminal.escapes import markup, shown

Status = Literal["passed", "failed", "skipped"]
#: What made a check fail under the sandbox: not the sandbox at all; a variable it does not
#: pass; a file outside the allow-list; a system call seccomp refuses; a limit (memory,
#: processes, scratch space) too low for it; another single layer (``layer`` names it); or
#: only the sandbox as a whole.
Cause = Literal["not_sandbox", "environment", "files", "system_call", "limit", "layer", "sandbox"]


class CheckSpec(msgspec.Struct, frozen=True):
    """A check: its name, what it asks of the bot, and the fix when a bot falls short."""

    name: str
    title: str
    fix: str


class SeatCheck(msgspec.Struct, frozen=True, kw_only=True):
    """One seat's part of a check that plays the bot in every seat (``match``, ``matches``):
    ``skipped`` for a seat it did not get to."""

    seat: Seat
    status: Status
    detail: str
    #: When it failed: the end of the bot's stderr in that match, and the whole copy's path.
    stderr: StderrTail | None = None
    #: The reasons of its faults in that seat (``crashed``, ``timeout``...), or, when its
    #: process would not start the match, ``start_failed``.
    faults: list[str] = []
    #: The reasons of its refused answers there, and the rules its illegal actions broke
    #: (``bad_message``, ``illegal_action``, ``must_follow_suit``).
    refused: list[str] = []
    #: The ``match`` check's match, from 1, and its seed (None in the ``matches`` check).
    match: int | None = None
    seed: int | None = None
    #: It failed at being kept for another match (no ready to the next hello, or not fit to
    #: be kept), not in a match's play.
    reuse: bool = False
    #: When a ``match`` check's match failed: the command that plays it again.
    again: str = ""


class Check(msgspec.Struct, frozen=True, kw_only=True):
    """One check's result: ``detail`` says what the bot did (the line it sent, cut short, or
    what happened instead); ``fix`` how to put it right, when it failed. A check that plays
    the bot in every seat also says so seat by seat, in ``seats`` (and a line each in
    ``detail``); the others leave ``seats`` empty."""

    name: str
    title: str
    status: Status
    detail: str
    fix: str = ""
    seats: list[SeatCheck] = []
    #: When it failed: the end of the bot's stderr in that conversation, and its copy's path.
    stderr: StderrTail | None = None
    #: When it went away sandboxed: what its stderr suggests the sandbox withheld, each with
    #: the option that may fix it (a library its loader could not map, named by the file the
    #: referee left out; a variable or a file it names). Guesses: the diagnosis proves them.
    hints: list[str] = []


class Diagnosis(msgspec.Struct, frozen=True, kw_only=True):
    """Whether the sandbox made the first failed check fail: that check run again with the
    sandbox off, then with one layer relaxed at a time, to say which kind of refusal it met
    and the option that lets the bot through."""

    #: The check run again.
    check: str
    cause: Cause
    #: What the runs showed, in words.
    detail: str
    #: The option that fixes it, or how to do without ("" when nothing is to be changed here).
    fix: str
    #: The times the bot was run again to find out.
    runs: int
    #: Whether one of those runs was without the sandbox (the first always is): the bot ran
    #: as you, with your environment.
    ran_unsandboxed: bool = True


class DecisionTimes(msgspec.Struct, frozen=True, kw_only=True):
    """Milliseconds from an ``act`` written to its answer read, over every decision asked of
    the bot (the scripted ones and its seat's in the match); None without any."""

    count: int
    median_ms: float | None
    p99_ms: float | None
    max_ms: float | None


class Met(msgspec.Struct, frozen=True, kw_only=True):
    """A situation (``situations.SITUATIONS``) and how many times the bot met it: in the
    ``match`` check's matches, and the refusal the ``rejected`` check provokes."""

    name: str
    title: str
    count: int


class CheckReport(msgspec.Struct, frozen=True, kw_only=True):
    """Every check of one bot command; ``ok`` only when every one passed."""

    command: str
    ok: bool
    #: The name the bot gave in ``ready`` (None if it gave none).
    name: str | None
    #: Milliseconds from starting the bot to reading its ``ready`` (the start-up check's).
    startup_ms: float | None
    decisions: DecisionTimes
    checks: list[Check]
    #: The sandbox the bot ran under, in the referee's one line.
    sandbox: str
    #: Seconds check-bot took.
    seconds: float
    #: Where each conversation's and match's stderr copy (and each match's log) was kept:
    #: kept only when a check failed.
    kept: str | None = None
    #: Whether the sandbox made the first failed check fail (None: all passed, the sandbox
    #: was off, or this was not asked).
    diagnosis: Diagnosis | None = None
    #: Every situation and how many times the bot met it (0: it did not come up).
    situations: list[Met] = []
    #: The opponents' commands in the ``match`` check's matches, and how many it asked for.
    opponents: list[str] = []
    matches: int = 0
    #: What the bot wrote on stderr over its runs (each conversation and match): no fault.
    stderr: StderrTotals | None = None
    runs: int = 0


_T: Final = "PROTOCOL.md"
_ANSWER: Final = (
    'answer with {"type": "action", "id": <the act\'s id>, "action": <one element of'
    " legal_actions, copied verbatim>}"
)

#: Every check, in the order they run and are reported.
CHECKS: Final[tuple[CheckSpec, ...]] = (
    CheckSpec(
        "startup",
        "hello → ready within the start-up limit, with a valid name",
        'Answer hello at once with one line {"type": "ready", "name": "<1-100 characters, no'
        f' control characters>"}}, before any slow set-up ({_T}: "hello" and "Time").',
    ),
    CheckSpec(
        "bidding",
        "act in the bidding: a legal bid or pass, with the act's id",
        f'In the bidding {_ANSWER} ({_T}: "act").',
    ),
    CheckSpec(
        "declaring",
        "act when naming trump for a point bid",
        f'As declarer {_ANSWER}: one of the nine trumps, with no "piles"'
        f' ({_T}: "Tiles, actions, trump").',
    ),
    CheckSpec(
        "all_tricks",
        "act when naming trump for an all-tricks bid: piles chosen",
        'After an all-tricks bid the trump action must carry "piles" (1 or 2), e.g. {"type":'
        ' "trump", "trump": 6, "piles": 1}: answer one of legal_actions verbatim'
        f' ({_T}: "Tiles, actions, trump").',
    ),
    CheckSpec(
        "playing",
        "act in play, for a whole hand: legal tiles, following suit",
        "Play only a tile from legal_actions: when you hold the suit led you must follow it"
        f' ({_T}: "Tiles, actions, trump").',
    ),
    CheckSpec(
        "rejected",
        "after rejected, answer the fresh act with its new id",
        "On rejected send nothing; answer the fresh act that follows with its own id, never"
        f' the old answer again ({_T}: "rejected").',
    ),
    CheckSpec(
        "unknown_message",
        "ignores messages and events of unknown types",
        "Skip a message or an event whose type you do not know, without answering it or"
        f' failing ({_T}: "Transport").',
    ),
    CheckSpec(
        "unknown_fields",
        "ignores unknown fields in known messages, at every level",
        "Read only the fields you use and never refuse a message for fields you do not know"
        f' ({_T}: "Transport").',
    ),
    CheckSpec(
        "exit",
        f"hand_end, match_end, end of input: exits within {EXIT_GRACE:g} s with status 0",
        "Stop on match_end or at the end of input and exit with status 0 straight away"
        f' ({_T}: "match_end" and "Processes and the sandbox").',
    ),
    CheckSpec(
        "matches",
        'with "matches": "many" in ready: a match in each seat, A to D, in one process',
        'After match_end a bot whose ready says "matches": "many" must read on: a new hello'
        " starts a new match (another seat, seed and limits: forget the last match, your seat"
        " included) and the"
        ' end of input means exit at once. Or leave "matches" out, and be started fresh for'
        f' each match ({_T}: "Playing many matches in one process").',
    ),
    CheckSpec(
        "single_line",
        "every message is one line",
        "Write each message as one line of compact JSON ended by a newline, never"
        " pretty-printed"
        f' ({_T}: "Transport").',
    ),
    CheckSpec(
        "flush",
        "every answer is flushed",
        "Flush stdout after every line (sys.stdout.flush(), fflush(stdout), System.out.flush()):"
        f' a buffered answer never reaches the referee ({_T}: "Transport").',
    ),
    CheckSpec(
        "move_time",
        "every answer within the move time",
        "Answer each act within its time_ms: do slow set-up before ready and bound your search"
        f' ({_T}: "Time").',
    ),
    CheckSpec(
        "stdout",
        "nothing but protocol lines on stdout",
        "Write logs and debug output to stderr: stdout carries only ready and action lines"
        f' ({_T}: "Transport" and "Checklist for a new bot").',
    ),
    CheckSpec(
        "match",
        "full matches through the referee, in seats A to D in turn, on seeds chosen to meet"
        " every situation (below), against the opponents: no fault",
        "Play the match again with the command under the table ('again'), and read the fault"
        f' in its log ({_T}: "Faults").',
    ),
)
SPECS: Final = {spec.name: spec for spec in CHECKS}


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"


def seat_letters(seats: list[Seat] | list[str]) -> str:
    """``["A", "B", "C"]`` as "A, B and C" (and match numbers alike)."""
    return seats[0] if len(seats) == 1 else f"{', '.join(seats[:-1])} and {seats[-1]}"


def seats_text(seats: list[Seat]) -> str:
    """``["C", "D"]`` as "seats C and D"; one seat as "seat C"."""
    return ("seat " if len(seats) == 1 else "seats ") + seat_letters(seats)


def _with_seats(check: Check) -> str:
    """A failed check's name, with the seats it failed in when it plays every seat."""
    failed = sorted({seat.seat for seat in check.seats if seat.status == "failed"})
    return f"{check.name} (in {seats_text(failed)})" if failed else check.name


def report_table(report: CheckReport) -> object:
    """The checks as a rich ``Table`` (typed ``object``: rich is imported only here)."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"check-bot: {markup(report.command)}", header_style="bold")
    fixes = any(check.fix for check in report.checks)
    for column in ("check", "result", "what the bot did", "fix")[: 4 if fixes else 3]:
        table.add_column(column, overflow="fold")
    style = {
        "passed": "[green]passed[/]",
        "failed": "[red]FAILED[/]",
        "skipped": "[yellow]skipped[/]",
    }
    for check in report.checks:
        table.add_row(
            f"{check.name}\n[dim]{escape(check.title)}[/]",
            style[check.status],
            _cell(check.detail),  # may quote the bot's own bytes
            *([_cell(check.fix)] if fixes else []),
        )
    return table


def _cell(text: str) -> str:
    """Text of several lines as a cell of as many lines: each line escaped on its own, so a
    line break shows as one, never as a written ``\\n`` (which a bot's own bytes may be)."""
    return "\n".join(map(markup, text.split("\n")))


def situations_table(report: CheckReport) -> object:
    """The situations the bot met, and how many times, as a rich ``Table``."""
    from rich.markup import escape
    from rich.table import Table

    played = f"{report.matches} match{'es' if report.matches != 1 else ''}"
    table = Table(title=f"situations exercised ({played}; opponents below)", header_style="bold")
    for column in ("situation", "what the bot faced", "times"):
        table.add_column(column, overflow="fold", justify="right" if column == "times" else "left")
    for met in report.situations:
        count = str(met.count) if met.count else "[yellow]0: not met[/]"
        table.add_row(met.name, escape(met.title), count)
    return table


def unmet_line(report: CheckReport) -> str | None:
    """What did not come up, in words, or None when everything did (or no match was asked
    for: ``--no-match``)."""
    unmet = [met.name for met in report.situations if met.count == 0]
    if not report.matches or not unmet:
        return None
    played = any(check.name == "match" and check.status != "skipped" for check in report.checks)
    why = (
        "the bot was not checked there (another --opponent or more --matches may bring them up)"
        if played
        else "the matches were not played"
    )
    return f"not exercised: {', '.join(unmet)}: {why}"


def summary_lines(report: CheckReport) -> list[str]:
    """The lines under the table: name, start-up, decision times, the sandbox, the verdict."""
    times = report.decisions
    failed = [_with_seats(check) for check in report.checks if check.status == "failed"]
    skipped = [check.name for check in report.checks if check.status == "skipped"]
    verdict = (
        "OK: every check passed"
        if report.ok
        else "NOT OK: "
        + "; ".join(
            part
            for part in (
                f"failed {', '.join(failed)}" if failed else "",
                f"skipped {', '.join(skipped)}" if skipped else "",
            )
            if part
        )
    )
    return [
        f"name: {shown(report.name)!r}"
        if report.name is not None
        else "name: none (no valid ready)",
        f"start-up: {_ms(report.startup_ms)}",
        f"decisions: {times.count}; median {_ms(times.median_ms)}, p99 {_ms(times.p99_ms)},"
        f" max {_ms(times.max_ms)}",
        report.sandbox,
        *([f"opponents: {'; '.join(map(shown, report.opponents))}"] if report.opponents else []),
        *(
            [f"kept: {shown(report.kept)} (each conversation's stderr, each match's log)"]
            if report.kept
            else []
        ),
        *filter(None, [unmet_line(report)]),
        *stderr_warning(report),
        f"check-bot took {report.seconds:.2f} s",
        verdict,
    ]


def report_lines(report: CheckReport, width: int = 120, color: bool = False) -> list[str]:
    """The whole report as text lines: the table of checks, then ``summary_lines``."""
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        force_terminal=color,
        color_system="standard" if color else None,
        emoji=False,  # a bot's ":smile:" stays as it wrote it
    )
    console.print(report_table(report))
    if report.matches and report.situations:
        console.print(situations_table(report))
    lines = buffer.getvalue().rstrip("\n").split("\n")
    return lines + why_lines(report) + summary_lines(report)


def why_lines(report: CheckReport) -> list[str]:
    """Why the bot failed, under the table: the end of its stderr in each failed check (and
    seat), and whether the sandbox was the cause. Escaped: print without markup."""
    from referee.match.display import stderr_lines

    lines: list[str] = []
    for check in report.checks:
        if check.stderr is not None:
            lines += [f"{check.name}:", *stderr_lines(check.stderr)]
        lines += [f"  {shown(hint)}" for hint in check.hints]
        for seat in check.seats:
            where = f"seat {seat.seat}" if seat.match is None else f"match {seat.match}"
            if seat.stderr is not None:
                lines += [f"{check.name}, {where}:", *stderr_lines(seat.stderr)]
            if seat.again:
                lines.append(f"again ({where}, seat {seat.seat}): {shown(seat.again)}")
    diagnosis = report.diagnosis
    if diagnosis is not None:
        times = f"{diagnosis.runs} more time{'s' if diagnosis.runs != 1 else ''}"
        lines.append(
            f"was it the sandbox? {shown(diagnosis.detail)} (the {diagnosis.check} check,"
            f" run {times})"
        )
        if diagnosis.fix:
            lines.append(f"  fix: {shown(diagnosis.fix)}")
    return lines


def stderr_warning(report: CheckReport) -> list[str]:
    """A warning, not a failure, when the bot wrote lines shaped like errors on stderr: an
    exception it caught and played on from is charged nothing in a match, yet it is
    probably a bug (escaped: print without markup)."""
    written = report.stderr
    if written is None or not written.error_lines:
        return []
    lines = [
        f"warning: it wrote {written.error_lines} error-like line"
        f"{'s' if written.error_lines != 1 else ''} on stderr in {written.error_matches} of"
        f" {report.runs} runs (no fault, but maybe an error it caught); the most frequent:"
    ]
    lines += [f"  ({count}) {shown(line)}" for line, count in written.most_frequent()]
    return lines
