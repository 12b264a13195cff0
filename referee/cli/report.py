"""``referee report``: a tournament's HTML report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from referee.terminal.escapes import json_text, shown

if TYPE_CHECKING:
    from referee.pages.report_command import Written

from referee.cli.app import app
from referee.cli.options import (
    fail,
)


@app.command("report")
def report_command(
    results: Annotated[
        Path,
        typer.Argument(
            metavar="RESULTS.jsonl", help="A results file written by 'referee tournament'."
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Argument(
            metavar="OUT.html",
            help="The page to write. Default: report.html beside the results.",
            show_default=False,
        ),
    ] = None,
    sprt: Annotated[
        str | None,
        typer.Option(metavar="ELO0,ELO1", help="Draw this sequential test (two entrants)."),
    ] = None,
    alpha: Annotated[float, typer.Option(help="SPRT false positive rate.")] = 0.05,
    beta: Annotated[float, typer.Option(help="SPRT false negative rate.")] = 0.05,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print where the pages went as JSON on stdout.")
    ] = False,
) -> None:
    """Write a tournament's report: one self-contained HTML page with the standings, head to
    head, win rates with their intervals, the rating over the tournament, the SPRT, faults,
    the numbers to tune by ('referee stats', with make rates by bid drawn), and a link to
    each match's viewer page (written beside its log, after verifying it)."""
    from rich.console import Console

    from referee.pages.page import PageError
    from referee.pages.report_command import write_report
    from referee.running.results import ResultsError
    from referee.tournament.config import TournamentError, sprt_of

    err = Console(stderr=True, soft_wrap=True)
    try:
        test = sprt_of(sprt, alpha, beta, None)
        written = write_report(results, out, test, err)
    except (TournamentError, ResultsError, PageError) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"{exc.filename or results}: {exc.strerror or exc}") from None
    _said_report(written, json_output)


def _said_report(written: Written, json_output: bool) -> None:
    """One line (or a JSON object) saying where a report went and which matches got no page."""
    missing = [row.result.match_id for row in written.without_page]
    if json_output:
        document = {
            "report": str(written.report),
            "matches": written.matches,
            "without_page": missing,
        }
        typer.echo(json_text(document))
        return
    typer.echo(f"wrote {written.report} ({written.matches} matches): open it in a browser")
    for line in written.missing_lines():
        typer.echo(shown(line), err=True)
