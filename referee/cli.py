"""The ``referee`` command line."""

from __future__ import annotations

import typer

from referee import __version__

app = typer.Typer(
    help="Referee for Texas 42 bot competitions: exact rules, redacted views, verifiable replays.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(
    help="Benchmarks; each prints its figure as the last line.", no_args_is_help=True
)
app.add_typer(bench_app, name="bench")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"referee {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Referee for Texas 42 bot competitions."""


@bench_app.command("engine")
def bench_engine(
    hands: int = typer.Option(50_000, min=1, help="How many hands to play."),
    seed: int = typer.Option(1, min=0, help="First match seed (and the action chooser's seed)."),
    views: bool = typer.Option(False, "--views", help="Also build the seat's view per decision."),
) -> None:
    """Play random legal actions through the rules engine's public API; report hands/s."""
    from referee.bench import engine

    result = engine.run(hands, seed, views=views)
    typer.echo(
        f"played {result.hands} hands ({result.matches} matches, {result.actions} actions)"
        f" in {result.seconds:.2f} s on one core"
    )
    typer.echo(f"{result.microseconds_per_action:.2f} µs per action (legal actions + apply)")
    typer.echo(
        f"target: {engine.TARGET_HANDS_PER_SECOND:,} hands/s;"
        f" {result.hands_per_second / engine.TARGET_HANDS_PER_SECOND:.0%} of it"
    )
    typer.echo(f"engine: {result.hands_per_second:.0f} hands/s")
