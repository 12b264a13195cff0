"""The ``referee`` application: its commands register themselves on ``app``."""

from __future__ import annotations

from typing import Annotated

import typer

from referee import __version__
from referee.cli.exits import OK
from referee.cli.groups import Typer

app = Typer(
    help="Referee for Texas 42 bot competitions: exact rules, redacted views, verifiable replays.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = Typer(help="Benchmarks; each prints its figure as the last line.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"referee {__version__}")
        raise typer.Exit(OK)


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Referee for Texas 42 bot competitions."""
