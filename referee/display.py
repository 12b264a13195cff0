"""Readable output for people (``--json`` is for scripts): the one console, tables printed
whole, and the one progress display of long work, on a terminal and off it.

Off a terminal — a pipe, a file, a CI log — rich would cut a table to 80 columns (headers
``entra…``, commands ``random_b…``) and draw no progress at all. Here a table is printed at
its natural width there, and on a terminal its columns wrap without cutting a header word;
long work prints a line every ``PROGRESS_EVERY`` seconds when its bar cannot be drawn.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Mapping
from typing import Final

from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table as RichTable

from referee.match.outcome import BotFailure, MatchOutcome
from referee.match.process import StderrTail
from referee.record.records import split_counts
from referee.rules.contract import side_name
from referee.rules.tiles import PARTNERSHIP_OF, SEATS, Seat
from referee.sandbox.hints import SANDBOX_SUSPECTS, hints
from referee.settings import SandboxSettings
from referee.terminal import markup, shown


def counts_text(counts: Mapping[str, int]) -> str:
    """Counts by kind in words: ``timeout 2, crashed 1`` ("" for none)."""
    return ", ".join(f"{kind} {n}" for kind, n in counts.items())


def print_outcome(
    outcome: MatchOutcome, commands: dict[Seat, str], sandbox: SandboxSettings | None = None
) -> None:
    """The match for people; ``sandbox``: the settings its bots ran under (for the advice on
    a bot that failed sandboxed)."""
    # Names, commands, details and paths come from bots and users: printed through
    # ``markup`` (escaped controls, no rich markup) and without emoji codes (``:x:``).
    console = people_console()
    console.print(f"[bold]Texas 42 match[/bold] — seed {outcome.seed}")
    seats = RichTable(box=None, show_header=True, header_style="bold")
    for column in ("seat", "side", "bot", "command", "faults", "refused"):
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


#: Seconds between progress lines when stderr is not a terminal (``REFEREE_PROGRESS_EVERY``
#: overrides it, e.g. for a CI log that wants fewer).
PROGRESS_EVERY: Final = 5.0


def head_to_head_grid(
    scores: Mapping[str, Mapping[str, float]],
    played: Mapping[str, Mapping[str, int]],
    names: list[str],
) -> RichTable:
    """The head-to-head table of a tournament or a league: each row's score against each
    column over the matches they played (a pair that never met is left blank)."""
    grid = RichTable(title="Head to head (row's score against column)", header_style="bold")
    grid.add_column("")
    for name in names:
        grid.add_column(markup(name), justify="right")
    for row in names:
        cells = []
        for column in names:
            if row == column:
                cells.append("—")
                continue
            count = played.get(row, {}).get(column, 0)
            score = scores.get(row, {}).get(column, 0.0)
            cells.append(f"{score:g}/{count}" if count else "")
        grid.add_row(markup(row), *cells)
    return grid


def people_console(stderr: bool = False) -> Console:
    """A console for people. Names, commands, details and paths come from bots and users:
    they are printed through ``markup`` (escaped controls, no rich markup), and emoji codes
    (``:x:``) stay as written."""
    return Console(stderr=stderr, soft_wrap=True, emoji=False)


def print_table(console: Console, table: RichTable) -> None:
    """Print ``table`` with every word whole where it can be.

    Off a terminal it is printed at its natural width, one line a row, so that a file or a
    pipe gets every header and command. On a terminal each column is given at least its
    longest word (its header's included) and the room left is shared by what each would take
    more — rich alone narrows the widest columns, words or not, and cuts them (``entra…``);
    on a terminal narrower than the words, cells fold but header words stay whole, and
    narrower than those, everything folds at its edge (a table wider than the window would
    be broken by the terminal itself).
    """
    least, most, overhead = _measures(console, table)
    for column in table.columns:
        if column.overflow == "ellipsis":
            column.overflow = "fold"
    if not console.is_terminal:
        width = console.width
        console.width = max(width, sum(most) + overhead)
        try:
            console.print(table)
        finally:
            console.width = width
        return
    room = console.width - overhead
    headers = [max(map(len, str(column.header).split() or [""])) for column in table.columns]
    if sum(most) > room:  # too wide: the words whole if they fit, else the headers' words
        for low in (least, headers):
            if sum(low) <= room:
                _allot(table, low, most, room)
                break
    console.print(table)


def _allot(table: RichTable, least: list[int], most: list[int], room: int) -> None:
    """Each column at least ``least`` wide, the rest of ``room`` shared by what each would
    take more."""
    spare = room - sum(least)
    wanting = [high - low for low, high in zip(least, most, strict=True)]
    total = sum(wanting) or 1
    for column, low, want in zip(table.columns, least, wanting, strict=True):
        column.width = low + spare * want // total


def _measures(console: Console, table: RichTable) -> tuple[list[int], list[int], int]:
    """Each column's narrowest width (its longest word) and widest (its longest cell), and
    the cells a row takes beyond its columns' (padding and rules)."""
    options = console.options.update_width(1 << 16)
    least: list[int] = []
    most: list[int] = []
    for column in table.columns:
        low, high = 1, 1
        for cell in (column.header, *column.cells):
            measured = Measurement.get(console, options, cell)
            low, high = max(low, measured.minimum), max(high, measured.maximum)
        least.append(low)
        most.append(high)
    natural = Measurement.get(console, options, table).maximum
    return least, most, max(0, natural - sum(most))


class LongWork:
    """The one progress display of long work: a rich bar on a terminal (``bar``, which a
    caller may show inside a live view of its own), and off a terminal a plain line every
    ``every`` seconds — ``matches: 12 of 40 (30%), 0:12 elapsed, about 0:28 left`` — and
    one at the end, so that a log or a pipe still shows the work moving."""

    def __init__(
        self,
        what: str,
        total: int,
        console: Console,
        *,
        done: int = 0,
        transient: bool = False,
        every: float | None = None,
    ) -> None:
        self.what = what
        self.total = total
        self.done = done
        self.console = console
        self.every = progress_every() if every is None else every
        self.bar: Progress | None = None
        self._task = None
        if console.is_terminal:
            self.bar = progress_bar(what, console, transient)
            self._task = self.bar.add_task(what, total=total, completed=done)
        self._started = time.monotonic()
        self._first = done
        self._said = self._started
        self._printed = False  # off a terminal: whether a progress line has been printed
        self._finished = False

    def __enter__(self) -> LongWork:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()

    def advance(self, count: int = 1) -> None:
        self.update(self.done + count, self.total)

    def update(self, done: int, total: int) -> None:
        """``done`` of ``total`` (a total found as the work goes)."""
        self.done, self.total = done, total
        if self.bar is not None:
            assert self._task is not None
            self.bar.update(self._task, completed=done, total=total)
            return
        now = time.monotonic()
        if now - self._said >= self.every:
            self._said = now
            self._printed = True
            self.console.print(self.line(now), markup=False, highlight=False)

    def finish(self) -> None:
        """The bar stops; off a terminal, work that printed progress lines ends with one that
        says how far it went (work shorter than an interval prints nothing)."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
        elif not self._finished and self._printed:
            self.console.print(self.line(time.monotonic(), end=True), markup=False, highlight=False)
        self._finished = True

    def line(self, now: float, end: bool = False) -> str:
        """The progress line at ``now``."""
        elapsed = now - self._started
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        text = f"{self.what}: {self.done} of {self.total}{share}, {_clock(elapsed)} elapsed"
        made = self.done - self._first
        if not end and made > 0 and self.done < self.total:
            left = elapsed / made * (self.total - self.done)
            text += f", about {_clock(left)} left"
        return text


def progress_every() -> float:
    """``PROGRESS_EVERY``, or the seconds ``REFEREE_PROGRESS_EVERY`` gives."""
    try:
        every = float(os.environ.get("REFEREE_PROGRESS_EVERY", PROGRESS_EVERY))
    except ValueError:
        return PROGRESS_EVERY
    return every if every >= 0 else PROGRESS_EVERY


def _clock(seconds: float) -> str:
    """``0:12``, ``12:05``, ``1:02:03``."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def progress_bar(what: str, console: Console, transient: bool = False) -> Progress:
    """The one progress bar of long work: what it counts, a bar, done of total, time left."""
    return Progress(
        TextColumn(f"[bold]{escape(what)}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=transient,
    )
