"""``referee check-bot``: does a bot speak the protocol."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from referee.cli.app import app
from referee.cli.exits import FAILED, OK
from referee.cli.groups import Given, Output, limit_options, output_options, sandbox_options
from referee.cli.options import fail, sandbox_settings
from referee.terminal.escapes import json_text


@app.command("check-bot")
def check_bot_command(
    command: Annotated[
        str,
        typer.Argument(
            metavar="COMMAND",
            help="The bot's command, one string split as a shell would (or a bundled bot's"
            " name, e.g. bundled:heuristic).",
        ),
    ],
    *,
    limits: Annotated[Given, limit_options()],
    sandbox: Annotated[Given, sandbox_options()],
    match: Annotated[
        bool,
        typer.Option(
            "--match/--no-match",
            help="Play whole matches (--matches of them, against --opponent), and for a bot"
            ' that says "matches": "many" one in each seat in one process.',
        ),
    ] = True,
    matches: Annotated[
        int,
        typer.Option(
            "--matches",
            metavar="N",
            min=1,
            max=1000,
            help="Whole matches to play, the bot in seats A to D in turn, on seeds chosen so"
            " that the first 8 between them lead it into every situation listed under the"
            " table (each trump; a trump led while it holds a trump whose low half is the"
            " trump number, [2|6] with twos trump; voids; all-tricks contracts...).",
        ),
    ] = 8,  # checkbot.seeds.DEFAULT_MATCHES (imported here, it would slow every command)
    opponents: Annotated[
        list[str] | None,
        typer.Option(
            "--opponent",
            metavar="CMD",
            help="An opponent's command, one string split as a shell would, or a bundled"
            " bot's name (bundled:heuristic; 'referee bots' lists them); repeat it for"
            " more, seated in turn around the bot. Default: the bundled heuristic bot and"
            " the bundled random bot (the seeds were chosen with them).",
            show_default=False,
        ),
    ] = None,
    diagnose: Annotated[
        bool,
        typer.Option(
            "--diagnose/--no-diagnose",
            help="When a check fails sandboxed, run it again without the sandbox, then with"
            " one part of it lifted at a time, to say whether the sandbox is the cause and"
            " which option fixes it. The bot then runs with your environment, your files or"
            " no sandbox: --no-diagnose for a bot you did not write.",
        ),
    ] = True,
    output: Annotated[Output, output_options("the report", debug=True)],
) -> None:
    """Check that a bot speaks the protocol: every message and phase, a refusal, unknown
    messages and fields, the end of a match, then whole matches in every seat on chosen
    seeds, under the limits and sandbox a competition gives; with what to fix, and the
    situations the bot met.

    Exits 0 only when every check passed; 1 when one failed; 2 for a usage mistake.
    """
    from referee.checkbot import check_bot, report_lines
    from referee.errors import SandboxRefused
    from referee.match.commands import problem, resolved
    from referee.settings import MatchLimits

    command = resolved(command)
    why = problem(command)
    if why is not None:
        raise fail(why)
    opponents = [resolved(opponent) for opponent in opponents or []]
    for opponent in opponents:
        why = problem(opponent)
        if why is not None:
            raise fail(f"--opponent: {why}")
    try:
        report = check_bot(
            command,
            sandbox=sandbox_settings(sandbox),
            limits=MatchLimits(**limits),
            match=match,
            matches=matches,
            opponents=tuple(opponents or ()),
            diagnose=diagnose,
            trace=output.trace(),
            say=lambda line: typer.echo(line, err=True),
        )
    except SandboxRefused as exc:
        raise fail(str(exc)) from None
    if output.json:
        typer.echo(json_text(report))
    else:
        for line in report_lines(report, color=sys.stdout.isatty()):
            typer.echo(line)
    raise typer.Exit(OK if report.ok else FAILED)
