"""Readable summaries for people (``--json`` is for scripts)."""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table as RichTable

from referee.match.outcome import MatchOutcome
from referee.record.records import split_counts
from referee.rules.contract import side_name
from referee.rules.tiles import PARTNERSHIP_OF, SEATS, Seat
from referee.terminal import markup


def counts_text(counts: Mapping[str, int]) -> str:
    """Counts by kind in words: ``timeout 2, crashed 1`` ("" for none)."""
    return ", ".join(f"{kind} {n}" for kind, n in counts.items())


def print_outcome(outcome: MatchOutcome, commands: dict[Seat, str]) -> None:
    # Names, commands, details and paths come from bots and users: printed through
    # ``markup`` (escaped controls, no rich markup) and without emoji codes (``:x:``).
    console = Console(soft_wrap=True, emoji=False)
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
    console.print(seats)
    marks = f"A+C {outcome.marks['AC']}, B+D {outcome.marks['BD']}"
    winner = side_name(outcome.winner) if outcome.winner else "nobody"
    console.print(f"hands played: {outcome.hands}   marks: {marks}")
    console.print(f"[bold]winner: {winner}[/bold] ({outcome.end}: {markup(outcome.detail)})")
    console.print(f"game digest: {outcome.game_digest}")
    if outcome.log:
        console.print(f"log: {markup(outcome.log)}")
    console.print(f"log digest: {outcome.log_digest}")


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
