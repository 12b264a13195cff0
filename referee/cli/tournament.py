"""``referee tournament``: many matches in duplicate."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from referee.cli.app import app
from referee.cli.options import (
    SANDBOX_HELP,
    AllowOption,
    EnvOption,
    OnFault,
    Sandbox,
    fail,
    seconds,
)


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
    bot: Annotated[
        list[str] | None,
        typer.Option(
            metavar="NAME=COMMAND", help="An entrant (repeat). Its program plays both seats."
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
    jobs: Annotated[
        int | None, typer.Option(min=1, help="Matches at once. Default: one per core.")
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
    dask: Annotated[
        str | None,
        typer.Option(
            metavar="ADDRESS",
            help="Run on a Dask cluster: a scheduler address, or 'local' to start one.",
        ),
    ] = None,
    sprt: Annotated[
        str | None,
        typer.Option(
            metavar="ELO0,ELO1", help="Stop when the sequential test decides (two entrants)."
        ),
    ] = None,
    alpha: Annotated[float | None, typer.Option(help="SPRT false positive rate (0.05).")] = None,
    beta: Annotated[float | None, typer.Option(help="SPRT false negative rate (0.05).")] = None,
    move_timeout: Annotated[
        float | None,
        typer.Option(metavar="S", callback=seconds(0.001, 3600), help="Seconds per decision."),
    ] = None,
    startup_timeout: Annotated[
        float | None,
        typer.Option(metavar="S", callback=seconds(0.001, 3600), help="Seconds to answer hello."),
    ] = None,
    time_bank: Annotated[
        float | None,
        typer.Option(
            metavar="S", callback=seconds(0, 86400), help="Extra seconds per seat and match."
        ),
    ] = None,
    max_rejections: Annotated[
        int | None, typer.Option(min=1, max=1000, help="The Nth refused answer is a fault.")
    ] = None,
    on_fault: Annotated[OnFault | None, typer.Option(help="forfeit or random.")] = None,
    max_strikes: Annotated[
        int | None, typer.Option(min=0, max=1000, help="Strikes allowed under random.")
    ] = None,
    max_hands: Annotated[
        int | None, typer.Option(min=1, max=1_000_000, help="Hands before a match is unfinished.")
    ] = None,
    sandbox: Annotated[
        Sandbox | None, typer.Option(help=SANDBOX_HELP + " Default: auto.", show_default=False)
    ] = None,
    sandbox_allow: AllowOption = None,
    memory_limit: Annotated[
        int | None,
        typer.Option(min=16, max=1 << 20, metavar="MIB", help="MiB of memory per seat (1024)."),
    ] = None,
    cpu_limit: Annotated[
        int | None,
        typer.Option(min=1, max=1 << 20, metavar="S", help="CPU seconds per bot process (600)."),
    ] = None,
    max_processes: Annotated[
        int | None,
        typer.Option(min=1, max=1 << 16, metavar="N", help="Processes per seat's tree (128)."),
    ] = None,
    scratch_limit: Annotated[
        int | None,
        typer.Option(min=1, max=1 << 20, metavar="MIB", help="MiB of scratch per seat (256)."),
    ] = None,
    sandbox_env: EnvOption = None,
    fresh_bots: Annotated[
        bool,
        typer.Option(
            "--fresh-bots",
            help="Start every bot afresh for each match, even those that can play many"
            " (by default their processes are kept between matches).",
        ),
    ] = False,
    report: Annotated[
        bool,
        typer.Option(
            "--report",
            help="At the end, write report.html beside the results, and each match's viewer"
            " page beside its log ('referee report' writes one elsewhere).",
        ),
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the standings as JSON on stdout.")
    ] = False,
) -> None:
    """Play many matches between entrants, in duplicate, in parallel; print the standings.

    Each pairing plays every deal seed twice, once with each entrant as A+C, so the luck of
    the deal cancels out. Results are appended to the results file as matches end.
    """
    from referee.tournament.command import Options, TournamentError, run

    limits = {
        key: value
        for key, value in {
            "move_timeout": move_timeout,
            "startup_timeout": startup_timeout,
            "time_bank": time_bank,
            "max_rejections": max_rejections,
            "on_fault": on_fault.value if on_fault else None,
            "max_strikes": max_strikes,
            "max_hands": max_hands,
            "memory_mb": memory_limit,
            "cpu_seconds": cpu_limit,
            "max_processes": max_processes,
            "scratch_mb": scratch_limit,
        }.items()
        if value is not None
    }
    options = Options(
        config=config,
        bots=bot,
        seeds=seeds,
        seed=seed,
        format=format,
        jobs=jobs,
        results=results,
        logs=logs,
        resume=resume,
        dask=dask,
        sprt=sprt,
        alpha=alpha,
        beta=beta,
        json_output=json_output,
        limits=limits,
        sandbox=sandbox.value if sandbox else None,
        sandbox_allow=sandbox_allow,
        sandbox_env=sandbox_env,
        fresh_bots=fresh_bots,
        report=report,
    )
    try:
        status = run(options)
    except TournamentError as exc:
        raise fail(str(exc)) from None
    raise typer.Exit(status)
