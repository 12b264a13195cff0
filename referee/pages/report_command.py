"""Writing a tournament's report from its results file: every match's viewer page with a
progress bar (each log is verified first), then the report linking them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from referee.pages.report_page import MatchRow, match_pages, report_page
from referee.tournament.results import ResultsError, read_results
from referee.tournament.standings import Sprt


@dataclass(frozen=True)
class Written:
    """Where the report went, and the matches that got no viewer page (and why)."""

    report: Path
    matches: int
    without_page: list[MatchRow]


def write_report(results: Path, out: Path | None, sprt: Sprt | None, err: Console) -> Written:
    """Write the report of ``results`` to ``out`` (default: ``report.html`` beside it).

    Raises ``ResultsError`` for a file that is not a tournament's results, ``OSError`` when
    a page cannot be written.
    """
    header, matches = read_results(results)
    if sprt is not None and len(header.settings.entrants) != 2:
        raise ResultsError("--sprt compares exactly two entrants; this tournament has more")
    out = out if out is not None else results.with_name("report.html")
    progress = Progress(
        TextColumn("[bold]match pages"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    with progress:
        task = progress.add_task("pages", total=len(matches))
        rows = match_pages(matches, out.parent, lambda: progress.advance(task))
    out.write_text(report_page(header, matches, rows, sprt), encoding="utf-8")
    return Written(out, len(matches), [row for row in rows if row.page is None])
