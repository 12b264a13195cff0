"""A tournament on the terminal: notes and a live progress bar with the standings on stderr,
the final tables on stdout (or, ``--json``, the standings as one JSON document)."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import Final

from rich.console import Group
from rich.live import Live
from rich.table import Table

from referee.match.display import failure_lines, stderr_table
from referee.running.results import MatchResult
from referee.stats import marks_per_match, signed_elo
from referee.terminal.escapes import json_text, markup
from referee.terminal.progress import LongWork
from referee.terminal.tables import head_to_head_grid, people_console, print_table
from referee.tournament.output import Ending
from referee.tournament.standings import Standings, standings

#: Kinds of failure whose first case is shown with its bot's stderr at the end.
SHOWN_FAILURES: Final = 6
#: Seconds between redraws of the live standings (ratings are recomputed for each).
REDRAW: float = 1.0


class TerminalOutput:
    """The ``TournamentOutput`` of ``referee tournament``."""

    def __init__(self) -> None:
        #: Names and errors are printed through ``markup``: a bot's words are not obeyed.
        self.err = people_console(stderr=True)
        self._names: list[str] = []
        self._work: LongWork | None = None
        self._live: Live | None = None
        self._shown = 0.0

    def note(self, line: str) -> None:
        self.err.print(markup(line))

    def started(self, names: list[str], planned: int, results: Sequence[MatchResult]) -> None:
        self._names = names
        self._work = LongWork("matches", planned, self.err, done=len(results))
        if self._work.bar is not None:  # a terminal: the bar and the standings, live
            self._live = Live(
                self._view(results), console=self.err, refresh_per_second=4, transient=True
            )
            self._live.start(refresh=True)

    def match_done(self, results: Sequence[MatchResult]) -> None:
        assert self._work is not None
        self._work.advance()
        now = time.monotonic()
        if self._live is not None and now - self._shown >= REDRAW:
            self._shown = now
            self._live.update(self._view(results))

    def stopped(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
        if self._work is not None:
            self._work.finish()

    def standings(self, ending: Ending) -> None:
        out = people_console()
        print_table(out, standings_table(ending.table, live=False))
        print_table(out, head_to_head_table(ending.table, ending.names))
        report = ending.sprt_report()
        if report is not None:
            for line in report.lines():
                out.print(line, markup=False, highlight=False)
        if ending.failures:
            print_table(out, failures_table(ending))
            for kind in ending.failures[:SHOWN_FAILURES]:
                who = f"{kind.entrant} in {kind.match_id} (seat {kind.seat})"
                sandbox = ending.sandbox if kind.sandboxed else None
                for line in failure_lines(who, kind.first, kind.command, sandbox):
                    out.print(line, markup=False, highlight=False)
            if len(ending.failures) > SHOWN_FAILURES:
                out.print(
                    f"and {len(ending.failures) - SHOWN_FAILURES} more kinds of failure: each"
                    " match's failures (with the end of the bots' stderr) are in the results"
                    " file, under failures",
                    markup=False,
                )
        if ending.stderr:
            print_table(out, stderr_table(ending.stderr, _matches(ending)))
            out.print(
                "each match's stderr is kept beside its log (<log>.<seat>.stderr); the"
                " results file has each match's count under stderr",
                markup=False,
            )
        out.print(f"results: {markup(str(ending.results_path))}; logs: {markup(str(ending.logs))}")

    def _view(self, results: Sequence[MatchResult]) -> Group:
        assert self._work is not None and self._work.bar is not None
        table = standings(self._names, list(results))
        return Group(self._work.bar, standings_table(table, live=True))


class JsonOutput(TerminalOutput):
    """``referee tournament --json``: the same on stderr, the standings as JSON on stdout."""

    def standings(self, ending: Ending) -> None:
        sys.stdout.write(json_text(ending.document()) + "\n")


def standings_table(table: Standings, live: bool) -> Table:
    """The standings, one row an entrant, best first: ordered by the rating's low end
    (mu - 3 sigma), which the rating column shows (mu ± 3 sigma); titled at the end, not
    while live. Void matches in a column of their own, in no other count but the faults."""
    title = None if live else "Standings (ordered by rating μ - 3σ)"
    grid = Table(title=title, header_style="bold")
    columns = (
        "entrant", "matches", "wins", "unfinished", "win rate (95% CI)", "marks/match",
        "rating μ ± 3σ", "Elo vs field (95%)", "faults", "forfeits", "void",
    )  # fmt: skip
    for column in columns:
        grid.add_column(column, justify="left" if column == "entrant" else "right")
    for row in table.standings:
        grid.add_row(
            markup(row.name),
            str(row.matches),
            str(row.wins),
            str(row.unfinished),
            f"{row.win_rate:.1%} ({row.win_rate_low:.1%} to {row.win_rate_high:.1%})",
            marks_per_match(row.marks_per_match),
            f"{row.rating:.1f} ± {3 * row.rating_sigma:.1f}",
            elo_text(row.elo, row.elo_low, row.elo_high),
            str(row.faults),
            str(row.forfeits),
            str(row.void),
        )
    return grid


def elo_text(elo: float | None, low: float | None, high: float | None) -> str:
    """``+35 (+12 to +60)``: an Elo and its 95% interval, ±∞ where unbounded (every pair
    won or lost); — before a whole pair."""
    if elo is None or low is None or high is None:
        return "—"
    return f"{signed_elo(elo, 0)} ({signed_elo(low, 0)} to {signed_elo(high, 0)})"


def head_to_head_table(table: Standings, names: list[str]) -> Table:
    """Each entrant's score against each other, of the matches they played."""
    return head_to_head_grid(table.head_to_head, table.head_to_head_matches, names)


def failures_table(ending: Ending) -> Table:
    """Each entrant's failures by reason: in how many matches, and the first of them."""
    grid = Table(title="Why bots failed", header_style="bold")
    for column in ("entrant", "fault", "matches", "first", "its stderr"):
        grid.add_column(column, justify="right" if column == "matches" else "left")
    for kind in ending.failures:
        grid.add_row(
            markup(kind.entrant),
            kind.reason,
            str(kind.matches),
            f"{markup(kind.match_id)} seat {kind.seat}",
            markup(kind.first.stderr.where),
        )
    return grid


def _matches(ending: Ending) -> dict[str, int]:
    """Each entrant's matches, void ones too (a bot may write before a match is voided)."""
    return {row.name: row.matches + row.void for row in ending.table.standings}
