"""``referee tournament``: many matches in duplicate."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, cast

import typer

from referee.cli.app import app
from referee.cli.exits import FAILED, OK, by_signal
from referee.cli.groups import (
    RUNNING,
    FinalOption,
    Given,
    Output,
    Running,
    final_configuration,
    limit_options,
    output_options,
    sandbox_options,
)
from referee.cli.options import fail

if TYPE_CHECKING:
    from rich.console import Console

    from referee.running.jobs import Entrant
    from referee.running.results import Format
    from referee.tournament.config import TournamentConfig
    from referee.tournament.driver import Outcome

#: Where a match limit or the sandbox mode not given comes from: the TOML file, else the
#: default (``tournament.config.configure``).
FROM_FILE: Final = "CONFIG's, else {}"


@app.command("tournament")
def tournament_command(
    config: Annotated[
        Path | None,
        typer.Argument(
            metavar="CONFIG",
            help="A TOML file with the entrants (a bot table each: name, command) and the"
            " options; options given here override it.",
            show_default=False,
        ),
    ] = None,
    *,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            metavar="NAME=COMMAND",
            help="An entrant (repeat). Its program plays both seats; COMMAND may name a"
            " bundled bot, e.g. heuristic=bundled:heuristic.",
        ),
    ] = None,
    seeds: Annotated[
        int | None, typer.Option(min=1, help="Deal seeds; each pairing plays each in duplicate.")
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            min=0, max=2**64 - 1, help="Tournament seed: the deal seeds. Random if absent."
        ),
    ] = None,
    format: Annotated[
        str | None,
        typer.Option(
            metavar="round-robin|gauntlet",
            help="round-robin (every pair) or gauntlet (first vs each).",
        ),
    ] = None,
    results: Annotated[
        Path | None,
        typer.Option(help="Results file (JSON lines). Default: tournament/results.jsonl."),
    ] = None,
    logs: Annotated[
        Path | None, typer.Option(help="Directory for the match logs. Default: beside results.")
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Play only the matches missing from the results.")
    ] = False,
    sprt: Annotated[
        str | None,
        typer.Option(
            metavar="ELO0,ELO1",
            help="Test whether the first entrant is ELO1 or more Elo stronger than the second"
            " rather than ELO0 or less, on duplicate pairs, and stop when the test decides"
            " (two entrants; the pairs begun are completed).",
        ),
    ] = None,
    alpha: Annotated[float | None, typer.Option(help="SPRT false positive rate (0.05).")] = None,
    beta: Annotated[float | None, typer.Option(help="SPRT false negative rate (0.05).")] = None,
    running: Annotated[Running, RUNNING],
    limits: Annotated[Given, limit_options(default=FROM_FILE)],
    sandbox: Annotated[Given, sandbox_options(default=FROM_FILE)],
    final: FinalOption = False,
    report: Annotated[
        bool,
        typer.Option(
            "--report",
            help="At the end, write report.html beside the results, and each match's viewer"
            " page beside its log ('referee report' writes one elsewhere).",
        ),
    ] = False,
    output: Annotated[Output, output_options("the standings")],
) -> None:
    """Play many matches between entrants, in duplicate, in parallel; print the standings.

    Each pairing plays every deal seed twice, once with each entrant as A+C, so the luck of
    the deal cancels out. Results are appended to the results file as matches end.
    """
    from referee.tournament.config import TournamentError, TournamentOptions, configure
    from referee.tournament.driver import run
    from referee.tournament.terminal_output import JsonOutput, TerminalOutput

    if final:  # the options given checked and the expansion said; configure applies it
        limits, sandbox = final_configuration(limits, sandbox, fresh=True)
    shown = JsonOutput() if output.json else TerminalOutput()
    try:
        given = TournamentOptions(
            bot=[_entrant(text) for text in bot or []],
            seeds=seeds,
            seed=seed,
            format=cast("Format | None", format),  # checked with the file's
            results=None if results is None else str(results),
            logs=None if logs is None else str(logs),
            sprt=sprt,
            alpha=alpha,
            beta=beta,
            report=report,
            final=final,
            **_running_and_sandbox(running, limits, sandbox),
        )
        outcome = run(configure(given, config, resume), shown, partial(_report, err=shown.err))
    except TournamentError as exc:
        raise fail(str(exc)) from None
    raise typer.Exit(_status(outcome))


def _running_and_sandbox(running: Running, limits: Given, sandbox: Given) -> dict[str, Any]:
    """The groups' options as the keys of a tournament's file (``TournamentOptions``)."""
    return {
        "jobs": running.jobs,
        "dask": running.dask,
        "seats_apart": None if running.seats_apart is None else running.seats_apart.value,
        "fresh_bots": running.fresh_bots,
        "match": limits,
        "sandbox": sandbox.get("mode"),
        "sandbox_allow": sandbox.get("allow", []),
        "sandbox_env": sandbox.get("env", []),
        "sandbox_private_root": sandbox.get("private_root"),
    }


def _report(config: TournamentConfig, err: Console) -> list[str]:
    """The report's lines (``--report``), written once the tournament ends."""
    from referee.pages.report_command import report_lines

    return report_lines(config.results, config.sprt, err)


def _status(outcome: Outcome) -> int:
    """Interrupted: as by its signal; 1 when a match, or every match, was not played."""
    if outcome.interrupted is not None:
        return by_signal(outcome.interrupted)
    return FAILED if outcome.not_played or outcome.none_played else OK


def _entrant(text: str) -> Entrant:
    """An entrant from ``--bot NAME=COMMAND``."""
    from referee.running.jobs import Entrant
    from referee.tournament.config import TournamentError

    name, sep, command = text.partition("=")
    if not sep or not command.strip():
        raise TournamentError(f"--bot {text!r}: write NAME=COMMAND")
    return Entrant(name=name.strip(), command=command.strip())
