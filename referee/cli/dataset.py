"""``referee dataset``: training data from matches, one Parquet row per decision."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from referee.cli.app import app
from referee.cli.options import fail
from referee.terminal.escapes import json_text


@app.command("dataset")
def dataset_command(
    paths: Annotated[
        list[Path],
        typer.Argument(
            metavar="LOGS|RESULTS... OUT",
            help="Replay logs, tournament results files (their logs are found through them),"
            " or folders holding them; then, last, the Parquet file to write.",
            show_default=False,
        ),
    ],
    labels: Annotated[
        bool,
        typer.Option(
            "--labels",
            help="Add the exact solver's make-or-set answer for each legal tile and each trump"
            " in the real deal (slower).",
        ),
    ] = False,
    jobs: Annotated[
        int,
        typer.Option(min=0, metavar="N", help="Worker processes; 0: one a core."),
    ] = 0,
    force: Annotated[
        bool, typer.Option("--force", help="Replace the output file if it exists.")
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the summary as one JSON object on stdout.")
    ] = False,
) -> None:
    """One row per decision of every log: the seat's information state and observation as
    the environments make them, the legal actions, the action, the hand's and the match's
    outcome for the seat, and with --labels the solver's answers (see docs/dataset.md).

    Every log is verified first. A log that is missing, cut short, another match's or that
    does not verify, or a path that is no log nor results file, stops the export with one
    line naming it (exit 2), and no output is left behind. Needs the ai extra.
    """
    try:
        from referee.dataset.export import export
    except ImportError as exc:
        raise fail(
            f"dataset needs the ai extra ({exc.name} is missing): pip install '.[ai]'"
        ) from None
    from referee.errors import DatasetError
    from referee.tally.sources import InputError, kind_of
    from referee.terminal.progress import LongWork
    from referee.terminal.tables import people_console

    if len(paths) < 2:
        raise fail("name the logs or results files, then the file to write: referee dataset"
                   " LOGS|RESULTS... OUT")  # fmt: skip
    *paths, output = paths
    try:
        kind = kind_of(output) if output.is_file() else None
    except InputError:
        kind = None
    if kind is not None:
        raise fail(f"{output} is a {'replay log' if kind == 'log' else 'results file'}, not an"
                   " output: name the Parquet file to write last")  # fmt: skip
    if output.exists() and not force:
        raise fail(f"{output} exists: name another file to write, or --force to replace it")
    if not output.parent.is_dir():
        raise fail(f"{output}: no folder {output.parent} to write it in")
    err = people_console(stderr=True)
    try:
        with LongWork("logs", 0, err, transient=True) as work:
            summary = export(paths, output, labels=labels, jobs=jobs, progress=work.update)
    except DatasetError as exc:
        raise fail(str(exc)) from None
    if json_output:
        typer.echo(json_text(summary.as_json()))
        return
    phases = ", ".join(f"{count:,} {phase}" for phase, count in sorted(summary.phases.items()))
    rate = summary.decisions / summary.seconds if summary.seconds else 0
    err.print(
        f"{summary.decisions:,} decisions ({phases}) of {summary.hands:,} hands in"
        f" {summary.logs:,} logs → {output} ({summary.bytes / 1e6:,.1f} MB) in"
        f" {summary.seconds:,.1f} s, {rate:,.0f} decisions/s",
        markup=False,
        highlight=False,
    )
    if summary.labels and summary.labels_given_up:
        err.print(
            f"labels given up at the search's bound: {summary.labels_given_up:,} decisions",
            markup=False,
        )
