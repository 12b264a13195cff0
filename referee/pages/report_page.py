"""A tournament's report: one self-contained page from its results file — the standings and
head to head the text commands print (``referee.tournament.standings``, the one source),
each entrant's win rate with its interval, the rating over the course of the tournament, the
SPRT's statistic against its bounds, faults, and a viewer page for each match.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from referee.errors import LogError, VerificationError
from referee.pages.match_page import match_page, page_path
from referee.pages.page import PageError, page, write_page
from referee.pages.palette import colours
from referee.pages.plots import intervals, lines, rates_by_category
from referee.pages.time_plot import spreads, time_chart
from referee.record.log import LogFile
from referee.record.records import split_counts
from referee.running.logs import disagreement, own_log
from referee.running.results import MatchResult, ResultsHeader, in_plan_order
from referee.tally.counting import Uncountable
from referee.tally.summary import Summary, bid_label, bid_order
from referee.tally.tables import inputs_lines, tables
from referee.tally.tally import Tally
from referee.terminal.progress import Progress, unwatched
from referee.terminal.tables import counts_text
from referee.tournament.plan import pairings
from referee.tournament.sprt import Sprt, sprt_report
from referee.tournament.standings import pair_scores, played, rating_history, standings


@dataclass(frozen=True)
class MatchRow:
    """A match as the report lists it, with its viewer page (or why it has none)."""

    result: MatchResult
    page: str | None
    why_no_page: str | None
    faults: str
    #: The results line says otherwise than its verified log: the file was edited.
    disagrees: bool = False


def match_pages(
    header: ResultsHeader,
    results: list[MatchResult],
    results_file: Path,
    report: Path,
    progress: Progress = unwatched,
    tally: Tally | None = None,
) -> list[MatchRow]:
    """Write each match's viewer page beside its log (``LOG.html``, as ``replay --html``
    does), linked relative to the ``report``. A match whose log cannot be found, does not
    verify or says otherwise than its results line gets no page, and its row says why. A
    page never replaces the results, the report, or a file that is not a viewer page.

    ``tally`` counts each log read and verified for its page (so no log is read twice);
    the others it lists with the row's reason."""
    commands = {entrant.name: entrant.command for entrant in header.settings.entrants}
    return match_rows(in_plan_order(results), results_file, report, commands, progress, tally)


def match_rows(
    results: list[MatchResult],
    results_file: Path,
    report: Path,
    commands: dict[str, str],
    progress: Progress = unwatched,
    tally: Tally | None = None,
) -> list[MatchRow]:
    """``match_pages`` for results in the order given, each entrant's program in
    ``commands`` (a league's page shares it: ``results_file`` is then its database)."""
    keep = {results_file.resolve(), report.resolve()}
    rows = []
    for result in results:
        verified: list[LogFile] = []
        row = _row(result, results_file, report.parent, keep, commands, verified.append)
        if tally is not None:
            _count(tally, result, verified, row)
        rows.append(row)
        progress(len(rows), len(results))
    return rows


def _count(tally: Tally, result: MatchResult, verified: list[LogFile], row: MatchRow) -> None:
    if not verified:
        tally.skip(result.log, row.why_no_page or "not read", result.match_id)
        return
    try:
        tally.add_log(verified[0], result.seats, result.stderr)
    except Uncountable as exc:  # not after verify: the rules accepted every move
        tally.skip(result.log, str(exc), result.match_id)


def _row(
    result: MatchResult,
    results_file: Path,
    folder: Path,
    keep: set[Path],
    commands: dict[str, str],
    verified: Callable[[LogFile], None],
) -> MatchRow:
    counted, _ = split_counts(result.faults)
    faults = "; ".join(
        f"{seat}: {counts_text(reasons)}" for seat, reasons in counted.items() if reasons
    )
    try:
        log_path, log = own_log(result, results_file)
        page = match_page(log)
    except (OSError, LogError, ValueError) as exc:
        return MatchRow(result, None, f"the log cannot be read: {exc}", faults)
    except VerificationError as exc:
        return MatchRow(result, None, f"the log does not verify: {exc}", faults)
    if differs := disagreement(result, log, commands):
        return MatchRow(result, None, f"this line disagrees with its log: {differs}", faults, True)
    verified(log)
    target = page_path(log_path)
    if target.resolve() in keep:
        return MatchRow(result, None, f"its page {target} would replace the results", faults)
    if target.exists() and not (target.is_file() and _is_viewer_page(target)):
        return MatchRow(result, None, f"{target} is there and is not a viewer page", faults)
    try:
        write_page(target, page, source=log_path)
    except (OSError, PageError) as exc:
        return MatchRow(result, None, f"the page cannot be written: {exc}", faults)
    link = "./" + quote(Path(os.path.relpath(target, folder)).as_posix())
    return MatchRow(result, link, None, faults)


def _is_viewer_page(path: Path) -> bool:
    """Whether ``path`` is a page this referee wrote (so it may be written again)."""
    try:
        with path.open("rb") as file:
            head = file.read(1024)
    except OSError:
        return False
    return head.startswith(b"<!doctype html>") and b"<title>Texas 42" in head


def report_page(
    header: ResultsHeader,
    results: list[MatchResult],
    rows: list[MatchRow],
    sprt: Sprt | None = None,
    summary: Summary | None = None,
    times: Mapping[str, Sequence[float]] | None = None,
) -> str:
    """The report's HTML (``summary``: the numbers to tune by, ``referee stats``'s;
    ``times``: each entrant's decision times in milliseconds, drawn as their spread). Every
    chart draws an entrant in the one colour the page gives it."""
    settings = header.settings
    names = [entrant.name for entrant in settings.entrants]
    palette = colours(names)
    table = standings(names, results)
    rate_plot = intervals(
        [(row.name, row.win_rate_low, row.win_rate, row.win_rate_high) for row in table.standings],
        palette,
    )
    history = rating_history(names, results)
    rating_plot = lines(
        [(name, [(i + 1, after[name]) for i, after in enumerate(history)]) for name in names],
        "matches played",
        "rating (openskill mu)",
        palette=palette,
    )
    timed = spreads(times or {}, names)
    sprt_view = None
    if sprt is not None and len(names) == 2:
        scores = pair_scores(results, names[0])
        course = [(k, sprt.llr(scores[:k])) for k in range(1, len(scores) + 1)]
        sprt_view = {
            "sprt": sprt,
            "report": sprt_report(sprt, results, names[0], names[1]),
            "plot": lines(
                [(f"{names[0]} vs {names[1]}", course)],
                "duplicate pairs",
                "log-likelihood ratio",
                bounds=[
                    (sprt.upper, f"H1 {sprt.upper:.2f}"),
                    (sprt.lower, f"H0 {sprt.lower:.2f}"),
                ],
                palette={f"{names[0]} vs {names[1]}": palette[names[0]]},
            ),
        }
    return page(
        "report",
        title=f"Texas 42 tournament — {', '.join(names)}",
        header=header,
        names=names,
        table=table,
        planned=2 * settings.seeds * len(pairings(settings.entrants, settings.format)),
        played=len(played(results)),
        void=sum(result.void for result in results),
        rate_plot=rate_plot,
        rating_plot=rating_plot,
        sprt=sprt_view,
        stats=None if summary is None else stats_view(summary, palette),
        palette=palette,
        time_plot=time_chart(timed, palette) if timed else None,
        timed=timed,
        rows=rows,
        disagreeing=sum(row.disagrees for row in rows),
    )


def stats_view(summary: Summary, palette: dict[str, str]) -> dict[str, Any]:
    """``referee stats``'s tables, and each entrant's make rate by bid drawn with its
    interval: what the report's section of them shows."""
    bids = sorted(
        {line.bid for entrant in summary.entrants for line in entrant.by_bid if line.bid},
        key=bid_order,
    )
    series = [
        (
            entrant.name,
            [
                (line.label, line.made, line.contracts, line.low or 0.0, line.high or 1.0)
                for line in entrant.by_bid
            ],
        )
        for entrant in summary.entrants
    ]
    said = inputs_lines(summary)
    categories = [bid_label(bid) for bid in bids]
    return {
        "counted": said[0],
        "skipped": said[2:],
        "tables": tables(summary),
        "plot": (
            rates_by_category(categories, series, "winning bid", "make rate", palette)
            if bids
            else None
        ),
    }
