"""``referee match --dask ADDRESS --seats-apart``: one match whose seats run on Dask workers
of their own, the referee here."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import typer

from referee.cli.exits import FAILED
from referee.cli.foreground import in_foreground
from referee.cli.groups import Output, SeatsApart
from referee.cli.options import fail, sandbox_settings
from referee.terminal.escapes import json_text, shown

if TYPE_CHECKING:
    from referee.record.records import Placement
    from referee.rules.tiles import Seat
    from referee.settings import MatchSettings


def placement_lines(placement: Placement) -> list[str]:
    """How the seats were placed, for people: one line a seat, then what it means."""
    lines = [
        f"  seat {seat}: {place.worker} (host {place.host})"
        for seat, place in sorted(placement.seats.items())
    ]
    if placement.apart == "hosts":
        kernels = len({place.kernel for place in placement.seats.values()})
        lines.append(f"  partners on different hosts ({kernels} hosts in all)")
    else:
        lines.append(
            "  one host allowed (--seats-apart=workers): a trial — partners sharing a host"
            " share its kernel, and the channels through it stay open"
        )
    return lines


def play_match_apart(
    address: str,
    apart: SeatsApart,
    settings: MatchSettings,
    commands: dict[Seat, str],
    log_path: Path,
    sandbox: dict[str, Any],
    output: Output,
) -> None:
    """Place the seats, check that their workers can start the bots, play, print."""
    from referee.apart.placement import PlacementError, place, survey
    from referee.apart.seating import check_workers, play_apart
    from referee.running.cluster import ClusterError, connected

    under = sandbox_settings(sandbox)
    log_path = log_path.resolve()
    secrets = [str(log_path.parent)]
    try:
        with connected(address, 4) as client:
            placement = place(survey(client), apart.value)
            workers = [place.worker for place in placement.seats.values()]
            problem = check_workers(client, workers, commands, under, settings, secrets)
            if problem is not None:
                raise ClusterError(problem)
            typer.echo(f"seats apart ({placement.apart}):", err=True)
            for line in placement_lines(placement):
                typer.echo(shown(line), err=True)
            main = partial(
                play_apart, client, placement, settings, commands, log_path, under, secrets,
                output.trace(),
            )  # fmt: skip
            played = in_foreground(main, f"the log ends there: {log_path}", log_path)
    except (ClusterError, PlacementError) as exc:
        log_path.unlink(missing_ok=True)  # refused: no match, no log
        raise fail(str(exc)) from None
    outcome = played.outcome
    if outcome.sandbox is not None:
        typer.echo(shown(outcome.sandbox.brief()), err=True)
    if output.json:
        from referee.record.records import split_counts

        document = msgspec.to_builtins(outcome)
        document["faults"], document["rejections"] = split_counts(outcome.faults)
        document["placement"] = msgspec.to_builtins(played.placement)
        document["relay"] = played.relay
        typer.echo(json_text(document))
    else:
        from referee.match.display import print_outcome

        print_outcome(outcome, commands, under)
        for seat, relay in played.relay.items():
            typer.echo(
                f"relay {seat}: median {relay['median_ms']:.2f} ms, p99 {relay['p99_ms']:.2f} ms,"
                f" max {relay['max_ms']:.2f} ms over {relay['decisions']:g} decisions"
                " (counted in the bot's time)"
            )
    if played.lost is not None:
        said = shown(played.lost.detail)
        typer.echo(f"referee: the match is void: {said}; play it again", err=True)
        raise typer.Exit(FAILED)
