"""``referee stats``: the numbers a bot author tunes by, from results files and logs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from referee.cli.app import app
from referee.cli.exits import FAILED
from referee.cli.options import fail
from referee.terminal.escapes import json_text


@app.command("stats")
def stats_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="PATH",
            help="Tournament results files (their logs are found through them), replay logs,"
            " or folders holding them; told apart by what they hold, not by their names.",
            show_default=False,
        ),
    ] = None,
    entrant: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="Show only this entrant.", show_default=False),
    ] = None,
    verify_logs: Annotated[
        bool,
        typer.Option(
            "--verify",
            help="Verify each log as 'replay --verify' does before counting it (slower)."
            " Without it, each log's chain, its end and the legality of its moves are checked.",
        ),
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the numbers as one JSON object on stdout.")
    ] = False,
) -> None:
    """Per entrant: contracts bid and made by bid and by trump with their make rates, sets,
    all-tricks attempts, marks per hand, decision times per phase, faults; per duplicate
    pair: won both, split, lost both.

    In a tournament the entrants are its own (who sat where comes from the results); in a
    log given alone, each seat's bot by the name it gave in ready. A log that cannot be
    counted (missing, cut short, another match's, its chain broken) is listed with the
    reason. Exit status: 0; 1 when no log could be counted; 2 for a usage mistake.
    """

    from referee.tally.sources import InputError, tally_paths
    from referee.tally.summary import summarize
    from referee.tally.terminal import print_summary
    from referee.terminal.escapes import markup
    from referee.terminal.progress import LongWork
    from referee.terminal.tables import people_console

    if not paths:
        raise fail("name a results file, logs or a folder: referee stats RESULTS|LOG|FOLDER...")
    err = people_console(stderr=True)
    try:
        with LongWork("logs", 0, err, transient=True) as work:
            tally = tally_paths(paths, verify_logs, work.update)
    except InputError as exc:
        raise fail(str(exc)) from None
    if entrant is not None and entrant not in tally.entrants:
        known = ", ".join(tally.entrants) or "none"
        raise fail(f"no entrant {entrant!r} in these results and logs; the entrants: {known}")
    summary = summarize(tally, None if entrant is None else [entrant])
    if json_output:
        typer.echo(json_text(summary))
    else:
        print_summary(summary, people_console(), err)
    if tally.logs == 0 and tally.skipped:
        err.print(markup(f"referee: none of the {len(tally.skipped)} logs could be counted"))
        raise typer.Exit(FAILED)
