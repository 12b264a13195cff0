"""The ``referee`` command line."""

from __future__ import annotations

import shlex
import sys
from enum import Enum
from pathlib import Path

import msgspec
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


class OnFault(str, Enum):
    forfeit = "forfeit"
    random = "random"


def _bundled_bot(name: str) -> str:
    from referee.runner import BUNDLED_BOTS

    return shlex.join([sys.executable, str(BUNDLED_BOTS / name)])


def _fail(message: str) -> typer.Exit:
    typer.echo(f"referee: {message}", err=True)
    return typer.Exit(2)


@app.command("match")
def match_command(
    bots: list[str] = typer.Argument(
        None,
        metavar="[BOT]...",
        help="Four bot commands (seats A, B, C, D) or two (A+C, B+D), each one string split as"
        " a shell would, e.g. 'python3 my_bot.py'. None: the bundled heuristic bot (A+C)"
        " against the bundled random bot (B+D).",
        show_default=False,
    ),
    seed: int | None = typer.Option(
        None,
        min=0,
        max=2**64 - 1,
        help="Match seed: first dealer and every deal. Random if absent.",
    ),
    log: Path | None = typer.Option(
        None, help="Replay log path (JSON lines). Default: a new file under ./matches/."
    ),
    move_timeout: float = typer.Option(1.0, min=0.001, help="Seconds per decision."),
    startup_timeout: float = typer.Option(10.0, min=0.001, help="Seconds to answer hello."),
    time_bank: float = typer.Option(
        0.0, min=0.0, help="Extra seconds per seat for the match, spent when a move overruns."
    ),
    max_rejections: int = typer.Option(
        3, min=1, help="Refused answers for one decision before it is a fault."
    ),
    on_fault: OnFault = typer.Option(
        OnFault.forfeit,
        help="forfeit: a fault loses the match. random: a seeded random legal action is played"
        " for the seat and a strike recorded.",
    ),
    max_strikes: int = typer.Option(
        3, min=0, help="Strikes allowed under --on-fault random; the next fault forfeits."
    ),
    max_hands: int = typer.Option(
        200, min=1, help="End the match unfinished after this many hands (all-pass redeals)."
    ),
    max_line_bytes: int = typer.Option(
        1 << 20, min=64, help="Longest line a bot may send; longer lines are a fault."
    ),
    json_output: bool = typer.Option(
        False, "--json", help="Print one JSON object with the outcome on stdout."
    ),
) -> None:
    """Play one match between four bot programs and write its replay log.

    Exits 0 whenever the match was played to its end, forfeits included; 2 for bad
    arguments; 1 if the referee itself failed.
    """
    import trio

    from referee.rules.deal import MAX_SEED
    from referee.runner import default_log_path, random_seed, run_match, seat_commands
    from referee.settings import MatchSettings

    commands_given = bots or [_bundled_bot("heuristic_bot.py"), _bundled_bot("random_bot.py")]
    try:
        commands = seat_commands(commands_given)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    match_seed = random_seed() if seed is None else seed
    assert 0 <= match_seed <= MAX_SEED
    settings = MatchSettings(
        seed=match_seed,
        move_timeout=move_timeout,
        startup_timeout=startup_timeout,
        time_bank=time_bank,
        max_rejections=max_rejections,
        on_fault=on_fault.value,  # type: ignore[arg-type]
        max_strikes=max_strikes,
        max_hands=max_hands,
        max_line_bytes=max_line_bytes,
    )
    log_path = log or default_log_path(match_seed)
    try:
        outcome = trio.run(run_match, settings, commands, log_path)
    except OSError as exc:
        typer.echo(f"referee: cannot write the log {log_path}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None
    if json_output:
        typer.echo(msgspec.json.encode(outcome).decode())
        return
    from referee.report import print_outcome

    print_outcome(outcome, commands)
