"""``referee match``: one match between four bot programs."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import msgspec
import typer

from referee.terminal.escapes import json_text

if TYPE_CHECKING:
    from referee.match.outcome import MatchOutcome
    from referee.match.trace import WireTrace
    from referee.rules.tiles import Seat
    from referee.sandbox.policy import SandboxPlan
    from referee.settings import MatchSettings

from referee.cli.app import app
from referee.cli.foreground import in_foreground
from referee.cli.groups import (
    CLUSTER,
    Cluster,
    FinalOption,
    Given,
    Output,
    final_configuration,
    limit_options,
    output_options,
    sandbox_options,
)
from referee.cli.options import (
    SeedOption,
    bot_commands,
    bundled_bot,
    check_commands,
    fail,
    new_log,
    sandbox_plan,
)


@app.command("match")
def match_command(
    bots: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="BOT",
            help="Four bot commands (seats A, B, C, D) or two (A+C, B+D), each one string split"
            " as a shell would, e.g. 'python3 my_bot.py', or a bundled bot's name, e.g."
            " bundled:heuristic ('referee bots' lists them). None: the bundled heuristic bot (A+C)"
            " against the bundled random bot (B+D).",
            show_default=False,
        ),
    ] = None,
    *,
    seed: SeedOption = None,
    limits: Annotated[Given, limit_options()],
    sandbox: Annotated[Given, sandbox_options()],
    final: FinalOption = False,
    cluster: Annotated[Cluster, CLUSTER],
    output: Annotated[Output, output_options("the outcome", log=True, debug=True)],
) -> None:
    """Play one match between four bot programs and write its replay log.

    Exits 0 whenever the match was played to its end, forfeits included; 2 for bad
    arguments; 1 if the referee itself failed, or a seat apart was lost (the match is void).
    """

    from referee.apart.placement import Apart, misuse
    from referee.match.runner import random_seed, seat_commands
    from referee.rules.deal import MAX_SEED
    from referee.settings import MatchSettings

    commands_given = (
        bot_commands(bots) if bots else [bundled_bot("heuristic"), bundled_bot("random")]
    )
    try:
        commands = seat_commands(commands_given)
    except ValueError as exc:
        raise fail(str(exc)) from None
    apart: Apart | None = None if cluster.seats_apart is None else cluster.seats_apart.value
    if (misused := misuse(cluster.dask, apart, needs_apart=True)) is not None:
        raise fail(misused)
    if cluster.dask is None:
        check_commands(commands)  # apart: each worker is asked (they run the bots)
    if final:
        limits, sandbox = final_configuration(limits, sandbox)
    match_seed = random_seed() if seed is None else seed
    assert 0 <= match_seed <= MAX_SEED
    settings = MatchSettings(seed=match_seed, **limits)
    log_path = new_log(output.log)
    if cluster.dask is not None and cluster.seats_apart is not None:
        from referee.cli.apart import play_match_apart

        play_match_apart(
            cluster.dask, cluster.seats_apart, settings, commands, log_path, sandbox, output
        )
        return
    try:
        plan = sandbox_plan(sandbox, settings, commands, [log_path.parent])
    except typer.Exit:
        log_path.unlink(missing_ok=True)  # refused: no match, no log
        raise
    outcome = play(settings, commands, log_path, plan, output.trace())
    if output.json:
        from referee.record.records import split_counts

        document = msgspec.to_builtins(outcome)
        document["faults"], document["rejections"] = split_counts(outcome.faults)
        typer.echo(json_text(document))
        return
    from referee.match.display import print_outcome

    print_outcome(outcome, commands, plan.settings)


def play(
    settings: MatchSettings,
    commands: dict[Seat, str],
    log_path: Path,
    sandbox: SandboxPlan,
    trace: WireTrace | None = None,
) -> MatchOutcome:
    """Run a match in the foreground (``cli.foreground``): an interruption ends its log with
    ``interrupted``."""
    from referee.match.runner import run_match

    main = partial(run_match, settings, commands, log_path, sandbox, trace=trace)
    return in_foreground(main, f"the log ends there: {log_path}", log_path)
