"""``referee tournament``: many matches in duplicate."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from referee.cli.app import app
from referee.cli.exits import FAILED, OK, by_signal
from referee.cli.options import (
    SANDBOX_HELP,
    AllowOption,
    DaskOption,
    EnvOption,
    FreshBotsOption,
    JobsOption,
    OnFault,
    Sandbox,
    fail,
    limit_fields,
    limit_option,
    sandbox_mode_of,
)

if TYPE_CHECKING:
    from referee.running.jobs import Entrant
    from referee.running.results import Format


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
    jobs: JobsOption = None,
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
    dask: DaskOption = None,
    sprt: Annotated[
        str | None,
        typer.Option(
            metavar="ELO0,ELO1", help="Stop when the sequential test decides (two entrants)."
        ),
    ] = None,
    alpha: Annotated[float | None, typer.Option(help="SPRT false positive rate (0.05).")] = None,
    beta: Annotated[float | None, typer.Option(help="SPRT false negative rate (0.05).")] = None,
    move_timeout: Annotated[float | None, limit_option("move_timeout", optional=True)] = None,
    startup_timeout: Annotated[float | None, limit_option("startup_timeout", optional=True)] = None,
    time_bank: Annotated[float | None, limit_option("time_bank", optional=True)] = None,
    max_rejections: Annotated[int | None, limit_option("max_rejections", optional=True)] = None,
    on_fault: Annotated[OnFault | None, limit_option("on_fault", optional=True)] = None,
    max_strikes: Annotated[int | None, limit_option("max_strikes", optional=True)] = None,
    max_hands: Annotated[int | None, limit_option("max_hands", optional=True)] = None,
    sandbox: Annotated[
        Sandbox | None, typer.Option(help=SANDBOX_HELP + " Default: auto.", show_default=False)
    ] = None,
    sandbox_allow: AllowOption = None,
    memory_limit: Annotated[int | None, limit_option("memory_limit", optional=True)] = None,
    cpu_limit: Annotated[int | None, limit_option("cpu_limit", optional=True)] = None,
    max_processes: Annotated[int | None, limit_option("max_processes", optional=True)] = None,
    scratch_limit: Annotated[int | None, limit_option("scratch_limit", optional=True)] = None,
    sandbox_env: EnvOption = None,
    fresh_bots: FreshBotsOption = False,
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
    from referee.pages.report_command import report_lines
    from referee.tournament.config import (
        TournamentConfig,
        TournamentError,
        TournamentOptions,
        configure,
    )
    from referee.tournament.driver import run
    from referee.tournament.terminal_output import JsonOutput, TerminalOutput

    limits = limit_fields(
        move_timeout=move_timeout,
        startup_timeout=startup_timeout,
        time_bank=time_bank,
        max_rejections=max_rejections,
        on_fault=on_fault,
        max_strikes=max_strikes,
        max_hands=max_hands,
        memory_limit=memory_limit,
        cpu_limit=cpu_limit,
        max_processes=max_processes,
        scratch_limit=scratch_limit,
    )
    output = JsonOutput() if json_output else TerminalOutput()

    def report_of(config: TournamentConfig) -> list[str]:
        return report_lines(config.results, config.sprt, output.err)

    try:
        options = TournamentOptions(
            bot=[_entrant(text) for text in bot or []],
            seeds=seeds,
            seed=seed,
            format=cast("Format | None", format),  # checked with the file's
            jobs=jobs,
            results=None if results is None else str(results),
            logs=None if logs is None else str(logs),
            dask=dask,
            sprt=sprt,
            alpha=alpha,
            beta=beta,
            match=limits,
            sandbox=sandbox_mode_of(sandbox) if sandbox else None,
            sandbox_allow=[str(path) for path in sandbox_allow or []],
            sandbox_env=sandbox_env or [],
            fresh_bots=fresh_bots,
            report=report,
        )
        outcome = run(configure(options, config, resume), output, report_of)
    except TournamentError as exc:
        raise fail(str(exc)) from None
    if outcome.interrupted is not None:
        raise typer.Exit(by_signal(outcome.interrupted))
    raise typer.Exit(FAILED if outcome.not_played or outcome.none_played else OK)


def _entrant(text: str) -> Entrant:
    """An entrant from ``--bot NAME=COMMAND``."""
    from referee.running.jobs import Entrant
    from referee.tournament.config import TournamentError

    name, sep, command = text.partition("=")
    if not sep or not command.strip():
        raise TournamentError(f"--bot {text!r}: write NAME=COMMAND")
    return Entrant(name=name.strip(), command=command.strip())
