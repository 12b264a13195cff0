"""``referee arena``: kit strategies in duplicate, in process, scored as a tournament."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, cast

import msgspec
import typer

from referee.cli.app import app
from referee.cli.exits import OK
from referee.cli.groups import Output, output_options
from referee.cli.options import fail

if TYPE_CHECKING:
    from referee.running.results import Format


@app.command("arena")
def arena_command(
    *,
    policy: Annotated[
        list[str],
        typer.Option(
            metavar="NAME=KIT",
            help="A policy (repeat): random, or a bundled kit bot (heuristic, kit-random,"
            " search, strong) with its flags if any, played in process, e.g. --policy"
            " h=heuristic or --policy 's=strong --move-ms 250'.",
        ),
    ],
    seeds: Annotated[
        int, typer.Option(min=1, help="Deal seeds; each pairing plays each in duplicate.")
    ] = 50,
    seed: Annotated[
        int,
        typer.Option(min=0, max=2**64 - 1, help="Arena seed: the deal seeds, as a tournament's."),
    ] = 0,
    format: Annotated[
        str,
        typer.Option(
            metavar="round-robin|gauntlet",
            help="round-robin (every pair) or gauntlet (first vs each).",
        ),
    ] = "round-robin",
    sprt: Annotated[
        str | None,
        typer.Option(
            metavar="ELO0,ELO1",
            help="Test the first policy against the second on duplicate pairs (as referee"
            " tournament --sprt) and stop when the test decides.",
        ),
    ] = None,
    max_hands: Annotated[
        int,
        typer.Option(min=1, help="End a match nobody has won after this many hands, unfinished."),
    ] = 200,
    jobs: Annotated[int, typer.Option(min=1, help="Pairs played at once, in forked workers.")] = 1,
    output: Annotated[Output, output_options("the standings and the SPRT")],
) -> None:
    """Play policies against each other in process, in duplicate, as a tournament would
    (same deal seeds, same games), and print the tournament's standings.

    For evaluating quickly: no processes, no clocks, no sandbox. The referee with real bot
    processes (referee tournament) stays the judge of record. From Python, any callable can
    play: see docs/env.md, "Arena".
    """
    try:
        from referee.tournament.arena import arena
    except ImportError as exc:
        raise fail(
            f"referee arena needs the ai extra ({exc.name}): pip install 'referee[ai]'"
        ) from None
    from referee.terminal.escapes import json_text
    from referee.terminal.tables import people_console, print_table
    from referee.tournament.config import TournamentError, sprt_of
    from referee.tournament.terminal_output import head_to_head_table, standings_table

    policies: dict[str, str] = {}
    for text in policy:
        name, equals, kit = text.partition("=")
        if not equals or not name or not kit or name in policies:
            raise fail(f"--policy {text!r}: write NAME=KIT, each NAME once, e.g. h=heuristic")
        policies[name] = kit
    from referee.env.policies import policy as kit_policy

    for name, kit in policies.items():
        try:
            kit_policy(kit)  # a name or a flag it does not know: said now, not mid-arena
        except ValueError as exc:
            raise fail(f"--policy {name}={kit}: {exc}") from None
    if format not in ("round-robin", "gauntlet"):
        raise fail(f"--format {format!r}: round-robin or gauntlet")
    try:
        test = sprt_of(sprt, 0.05, 0.05, len(policies))
        started = time.perf_counter()
        played = arena(
            policies,
            seeds,
            seed,
            format=cast("Format", format),
            sprt=test,
            max_hands=max_hands,
            jobs=jobs,
        )
        seconds = time.perf_counter() - started
    except (TournamentError, ValueError) as exc:
        raise fail(str(exc)) from None
    matches = len(played.results)
    if output.json:
        document = {
            "standings": played.standings,
            "sprt": played.sprt,
            "matches": matches,
            "seconds": seconds,
        }
        typer.echo(json_text(msgspec.to_builtins(document)))
        raise typer.Exit(OK)
    out = people_console()
    print_table(out, standings_table(played.standings, live=False))
    print_table(out, head_to_head_table(played.standings, played.names))
    for line in played.sprt.lines() if played.sprt else []:
        out.print(line, markup=False, highlight=False)
    out.print(
        f"{matches} matches in {seconds:.2f} s: {matches / seconds:.1f} matches/s, in process"
    )
    raise typer.Exit(OK)
