"""A match for people: its outcome, and why a bot failed — the end of its stderr and, when it
ran sandboxed, what the sandbox may have withheld and the check-bot command that finds out.
Printed through ``referee.terminal``; bots' text goes through ``markup`` or ``shown``.
"""

from __future__ import annotations

import shlex

from rich.table import Table

from referee.match.outcome import BotFailure, MatchOutcome
from referee.match.stderr import StderrTail
from referee.match.stderr_lines import StderrSummary, StderrTotals, most_frequent
from referee.record.records import split_counts
from referee.rules.contract import side_name
from referee.rules.tiles import PARTNERSHIP_OF, SEATS, Seat
from referee.sandbox.hints import SANDBOX_SUSPECTS, hints
from referee.settings import SandboxSettings
from referee.terminal.escapes import markup, shown
from referee.terminal.tables import counts_text, people_console, print_table


def print_outcome(
    outcome: MatchOutcome, commands: dict[Seat, str], sandbox: SandboxSettings | None = None
) -> None:
    """The match for people; ``sandbox``: the settings its bots ran under (for the advice on
    a bot that failed sandboxed)."""
    # Names, commands, details and paths come from bots and users: printed through
    # ``markup`` (escaped controls, no rich markup) and without emoji codes (``:x:``).
    console = people_console()
    console.print(f"[bold]Texas 42 match[/bold] — seed {outcome.seed}")
    seats = Table(box=None, show_header=True, header_style="bold")
    for column in ("seat", "side", "bot", "command", "faults", "refused", "stderr"):
        seats.add_column(column)
    faults, refused = split_counts(outcome.faults)
    for seat in SEATS:
        seats.add_row(
            seat,
            side_name(PARTNERSHIP_OF[seat]),
            markup(outcome.names[seat]) or "(not ready)",
            markup(commands[seat]),
            counts_text(faults[seat]) or "—",
            counts_text(refused[seat]) or "—",
            stderr_said(outcome.stderr.get(seat)),
        )
    print_table(console, seats)
    marks = f"A+C {outcome.marks['AC']}, B+D {outcome.marks['BD']}"
    winner = side_name(outcome.winner) if outcome.winner else "nobody"
    console.print(f"hands played: {outcome.hands}   marks: {marks}")
    console.print(f"[bold]winner: {winner}[/bold] ({outcome.end}: {markup(outcome.detail)})")
    said: dict[tuple[str, str, tuple[str, ...]], Seat] = {}
    for seat, failure in outcome.failures.items():
        sandboxed = outcome.sandbox is not None and bool(outcome.sandbox.seats.get(seat))
        key = (commands[seat], failure.reason, tuple(failure.stderr.lines))
        like = said.get(key)
        under = (sandbox or SandboxSettings()) if sandboxed else None
        lines = failure_lines(
            f"seat {seat}", failure, commands[seat], under, like and f"seat {like}"
        )
        said.setdefault(key, seat)
        for line in lines:
            console.print(line, markup=False, highlight=False)
    for seat, summary in outcome.stderr.items():
        if summary.error_lines and seat not in outcome.failures:
            console.print(
                f"seat {seat}'s bot wrote error-like lines on stderr (no fault):",
                markup=False, highlight=False,
            )  # fmt: skip
            for line, count in most_frequent(summary.errors):
                console.print(f"  ({count}) {shown(line)}", markup=False, highlight=False)
    console.print(f"game digest: {outcome.game_digest}")
    if outcome.log:
        console.print(f"log: {markup(outcome.log)}")
    console.print(f"log digest: {outcome.log_digest}")


def failure_lines(
    who: str,
    failure: BotFailure,
    command: str,
    sandbox: SandboxSettings | None,
    like: str | None = None,
) -> list[str]:
    """Why a bot failed, for people (already escaped; print without markup): its fault, the
    last lines of its stderr and where the whole copy is, and — when it ran sandboxed
    (``sandbox``: under which settings) and went away or silent — what its stderr suggests
    the sandbox withheld and the check-bot command that finds out whether it was the cause.
    ``like`` names a seat that failed the same way, whose lines are not repeated."""
    lines = [f"{who} failed: {failure.reason}: {shown(failure.detail)}"]
    lines += stderr_lines(failure.stderr, like)
    if sandbox is not None and failure.reason in SANDBOX_SUSPECTS and like is None:
        lines += [f"  {shown(hint)}" for hint in hints(failure.stderr.lines, command, sandbox)]
        lines.append(
            f"  it ran sandboxed: {shown(check_bot_line(command, sandbox))} tells whether the"
            " sandbox is the cause (it runs the bot again without the sandbox: only for a bot"
            " you trust)"
        )
    return lines


def check_bot_line(command: str, sandbox: SandboxSettings) -> str:
    """The ``referee check-bot`` command that checks ``command`` under the same sandbox."""
    words = ["referee", "check-bot", command]
    if sandbox.mode != "auto":
        words += ["--sandbox", sandbox.mode]
    for path in sandbox.allow:
        words += ["--sandbox-allow", path]
    for name in sandbox.env:
        words += ["--sandbox-env", name]
    return shlex.join(words)


def stderr_lines(tail: StderrTail, like: str | None = None) -> list[str]:
    """The end of a bot's stderr for people (escaped), under a line that says how much of it
    this is and where all of it is; ``like`` names one whose lines were the same."""
    where = f"all of it in {shown(tail.path)}" if tail.path else ""
    if like is not None:
        return [f"  its stderr ends as {like}'s{f' ({where})' if where else ''}"]
    if not tail.lines:
        return [
            f"  its stderr: {shown(tail.where)}" if tail.total else "  it wrote nothing on stderr"
        ]
    count = len(tail.lines)
    part = f", the last {count} of {tail.total} lines" if tail.total > count else ""
    return [
        f"  its stderr{part}{f' ({where})' if where else ''}:",
        *(f"  │ {shown(line)}" for line in tail.lines),
    ]


def stderr_said(summary: StderrSummary | None) -> str:
    """A seat's stderr in a cell: ``12 lines (3 error-like)``, or ``—``."""
    if summary is None or not summary.lines:
        return "—"
    errors = f" ({summary.error_lines} error-like)" if summary.error_lines else ""
    return f"{summary.lines} lines{errors}"


def stderr_table(totals: dict[str, StderrTotals], matches: dict[str, int]) -> Table:
    """What each entrant's bots wrote on stderr over the matches (``matches``: each one's
    count), faults or not: a bot that catches its own errors and plays on is charged
    nothing, and this is where its author sees them."""
    grid = Table(title="What bots wrote on stderr (not faults)", header_style="bold")
    columns = ("entrant", "matches", "lines", "error-like", "most frequent error-like lines")
    for index, column in enumerate(columns):
        grid.add_column(column, justify="right" if index in (1, 2, 3) else "left")
    for name, total in sorted(totals.items()):
        frequent = total.most_frequent()
        grid.add_row(
            markup(name),
            f"{total.matches} of {matches.get(name, total.matches)}",
            str(total.lines),
            str(total.error_lines),
            "\n".join(f"({count}) {markup(line)}" for line, count in frequent) or "—",
        )
    return grid
