"""A tournament's report: one self-contained page from its results file — the standings and
head to head the text commands print (``referee.tournament.standings``, the one source),
each entrant's win rate with its interval, the rating over the course of the tournament, the
SPRT's statistic against its bounds, faults, and a viewer page for each match.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from referee.errors import LogError, VerificationError
from referee.log import read_log
from referee.pages.match_page import match_page
from referee.pages.page import PageError, page, write_page
from referee.pages.plots import intervals, lines
from referee.records import split_counts
from referee.tournament.plan import pairings
from referee.tournament.results import MatchResult, ResultsHeader
from referee.tournament.standings import (
    Sprt,
    in_plan_order,
    pair_scores,
    rating_history,
    standings,
)


@dataclass(frozen=True)
class MatchRow:
    """A match as the report lists it, with its viewer page (or why it has none)."""

    result: MatchResult
    page: str | None
    why_no_page: str | None
    faults: str


def match_pages(
    results: list[MatchResult],
    results_file: Path,
    relative_to: Path,
    progress: Callable[[], None] = lambda: None,
) -> list[MatchRow]:
    """Write each match's viewer page beside its log (``LOG.html``, as ``replay --html``
    does), linked relative to ``relative_to``. A log that cannot be found, does not verify,
    or is not the match's (its digest differs from the result's) gets no page, and its row
    says why."""
    rows = []
    for result in in_plan_order(results):
        counted, _ = split_counts(result.faults)
        faults = "; ".join(
            f"{seat}: " + ", ".join(f"{kind} {n}" for kind, n in reasons.items())
            for seat, reasons in counted.items()
            if reasons
        )
        link, why = None, None
        try:
            log_path = find_log(result, results_file)
            log = read_log(log_path)
            if log.head != result.log_digest:
                raise LogError(f"{log_path} is another match's log (its digest differs)")
            page = match_page(log)
        except (OSError, LogError, ValueError) as exc:
            why = f"the log cannot be read: {exc}"
        except VerificationError as exc:
            why = f"the log does not verify: {exc}"
        else:
            target = log_path.with_name(log_path.stem + ".html")
            try:
                write_page(target, page, source=log_path)
                link = "./" + quote(Path(os.path.relpath(target, relative_to)).as_posix())
            except (OSError, PageError) as exc:
                why = f"the page cannot be written: {exc}"
        rows.append(MatchRow(result, link, why, faults))
        progress()
    return rows


def find_log(result: MatchResult, results_file: Path) -> Path:
    """Where a result's log is: its path as recorded (relative to where the tournament ran),
    else in the results file's folder or its ``logs/`` (a tournament moved or reported from
    elsewhere). The caller checks the digest, so a wrong guess is never shown as this match."""
    recorded = Path(result.log)
    if not recorded.name:
        raise ValueError(f"match {result.match_id}: no log path recorded")
    folder = results_file.parent
    for candidate in (recorded, folder / recorded.name, folder / "logs" / recorded.name):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{recorded} is not there, nor beside {results_file}")


def report_page(
    header: ResultsHeader,
    results: list[MatchResult],
    rows: list[MatchRow],
    sprt: Sprt | None = None,
) -> str:
    """The report's HTML."""
    settings = header.settings
    names = [entrant.name for entrant in settings.entrants]
    table = standings(names, results)
    rate_plot = intervals(
        [(row.name, row.win_rate_low, row.win_rate, row.win_rate_high) for row in table.standings]
    )
    history = rating_history(names, results)
    rating_plot = lines(
        [(name, [(i + 1, after[name]) for i, after in enumerate(history)]) for name in names],
        "matches played",
        "rating (openskill mu)",
    )
    sprt_view = None
    if sprt is not None and len(names) == 2:
        scores = pair_scores(results, names[0])
        course = [(k, sprt.llr(scores[:k])) for k in range(1, len(scores) + 1)]
        llr = course[-1][1] if course else 0.0
        sprt_view = {
            "sprt": sprt,
            "llr": llr,
            "verdict": sprt.verdict(llr),
            "pairs": len(scores),
            "plot": lines(
                [(f"{names[0]} vs {names[1]}", course)],
                "duplicate pairs",
                "log-likelihood ratio",
                bounds=[
                    (sprt.upper, f"H1 {sprt.upper:.2f}"),
                    (sprt.lower, f"H0 {sprt.lower:.2f}"),
                ],
            ),
        }
    return page(
        "report",
        title=f"Texas 42 tournament — {', '.join(names)}",
        header=header,
        names=names,
        table=table,
        planned=2
        * header.settings.seeds
        * len(pairings(header.settings.entrants, header.settings.format)),
        played=len(results),
        rate_plot=rate_plot,
        rating_plot=rating_plot,
        sprt=sprt_view,
        rows=rows,
    )
