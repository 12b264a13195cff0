"""Writing a tournament's report from its results file: every match's viewer page with a
progress bar (each log is verified first), then the report linking them."""

from __future__ import annotations

import errno
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from referee.pages.page import PageError, write_page
from referee.pages.report_page import MatchRow, match_pages, report_page
from referee.pages.time_plot import decision_times
from referee.running.results import MatchResult, ResultsError, ResultsHeader, read_results
from referee.tally.summary import summarize
from referee.tally.tally import Tally
from referee.terminal.progress import LongWork
from referee.tournament.sprt import Sprt


@dataclass(frozen=True)
class Written:
    """Where the report went, and the matches that got no viewer page (and why)."""

    report: Path
    matches: int
    without_page: list[MatchRow]

    def missing_lines(self) -> list[str]:
        """A line for each match that got no page, saying why."""
        return [
            f"  no page for {row.result.match_id}: {row.why_no_page}" for row in self.without_page
        ]


def write_report(results: Path, out: Path | None, sprt: Sprt | None, err: Console) -> Written:
    """Write the report of ``results`` to ``out`` (default: ``report.html`` beside it).

    Raises ``ResultsError`` for a file that is not a tournament's results, ``PageError``
    for an ``out`` that would replace it, ``OSError`` when the report cannot be written.
    """
    out = out if out is not None else results.with_name("report.html")
    if out.resolve() == results.resolve():
        raise PageError(f"{out} is the results file; choose another OUT.html")
    if not out.parent.is_dir():
        raise OSError(errno.ENOENT, "no such folder", str(out.parent))
    header, matches = read_results(results)
    _check(header, matches, results)
    if sprt is not None and len(header.settings.entrants) != 2:
        raise ResultsError("--sprt compares exactly two entrants; this tournament has more")
    tally = Tally()
    tally.verified = True  # match_pages verifies every log it counts
    tally.add_results(header, matches, results)
    with LongWork("match pages", len(matches), err, transient=True) as work:
        rows = match_pages(header, matches, results, out, work.update, tally)
    page = report_page(header, matches, rows, sprt, summarize(tally), decision_times(tally))
    write_page(out, page, source=results)
    return Written(out, len(matches), [row for row in rows if row.page is None])


def report_lines(results: Path, sprt: Sprt | None, err: Console) -> list[str]:
    """Write the report at the end of ``referee tournament --report``; the lines to say of it.
    A report that cannot be written is said, never raised: the tournament itself is done."""
    try:
        written = write_report(results, None, sprt, err)
    except OSError as exc:
        return [f"no report: cannot write {exc.filename}: {exc.strerror}"]
    except ValueError as exc:  # the results file changed under us, or a page would replace it
        return [f"no report: {exc}"]
    return [f"report: {written.report}", *written.missing_lines()]


def _check(header: ResultsHeader, matches: list[MatchResult], path: Path) -> None:
    """A results file is data like any other: refuse one whose matches name entrants the
    tournament does not have, or marks of no partnership."""
    names = {entrant.name for entrant in header.settings.entrants}
    if len(names) < 2:
        raise ResultsError(f"{path}: its tournament has fewer than two entrants")
    for match in matches:
        named = {match.first, match.second} | ({match.winner} if match.winner else set())
        if not named <= names or match.first == match.second:
            raise ResultsError(
                f"{path}: match {match.match_id!r} names entrants this tournament does not have"
            )
        if set(match.marks) != {"AC", "BD"}:
            raise ResultsError(f"{path}: match {match.match_id!r} has no marks for A+C and B+D")
