"""``referee strong``: the strong bundled bot's fitted files made again from match logs or
from solved deals (the fitting is the ``referee.strong`` modules'; these are its commands).

Each writes the file the bot reads unless told ``--out``: after a fit the bundled strong bot
plays with it at once (in a clone, ``git diff`` shows what moved).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from referee.cli.app import app
from referee.cli.options import fail

strong_app = typer.Typer(
    help="Fit the strong bundled bot's models and calibration again, from match logs or solved"
    " deals.",
    no_args_is_help=True,
)
app.add_typer(strong_app, name="strong")

LOGS_HELP = "Match logs, or folders of them (a tournament's logs/)."
OUT_HELP = "Write the file here instead of the one the bot reads."


def _logs(paths: list[Path] | None) -> list[Path]:
    """Every log named or in a folder named: exit 2 with one line for none, or a path that
    is not there."""
    from referee.strong.logs import log_paths

    if not paths:
        raise fail("name match logs or a folder of them, e.g. tournament/logs")
    for path in paths:
        if not path.exists():
            raise fail(f"{path}: no such file or folder")
    logs = [log for path in paths for log in log_paths(path)]
    if not logs:
        raise fail(f"no match log (*.jsonl) in {', '.join(map(str, paths))}")
    return logs


@contextmanager
def _usage_mistakes() -> Iterator[None]:
    """A log that cannot be read, or that holds nothing of the bot, is a usage mistake said
    in one line."""
    from referee.errors import LogError
    from referee.strong.logs import NothingToFit

    try:
        yield
    except (LogError, NothingToFit, OSError) as exc:
        raise fail(str(exc)) from None


def _echo(lines: Iterable[str]) -> None:
    with _usage_mistakes():
        for line in lines:
            typer.echo(line)


@strong_app.command("calibrate")
def strong_calibrate(
    logs: Annotated[
        list[Path] | None, typer.Argument(metavar="LOGS", help=LOGS_HELP, show_default=False)
    ] = None,
    name: Annotated[str, typer.Option(metavar="NAME", help="The bot's name in its ready.")] = (
        "strong"
    ),
    out: Annotated[
        Path | None, typer.Option(metavar="FILE", help=OUT_HELP, show_default=False)
    ] = None,
) -> None:
    """Fit the calibration (calibration.json), the map from simulated chances to the bot's
    own results, to the contracts it declared and defended in match logs.

    Play a few hundred matches of the strong bot first (against itself or the heuristic
    bot); refit after any change to its play or bidding. Prints the calibration curves.
    """
    from referee.strong.calibrate import recalibrate
    from referee.strong.calibration import CALIBRATION

    _echo(recalibrate(_logs(logs), name, out or CALIBRATION))


@strong_app.command("fit-beliefs")
def strong_fit_beliefs(
    logs: Annotated[
        list[Path] | None, typer.Argument(metavar="LOGS", help=LOGS_HELP, show_default=False)
    ] = None,
    steps: Annotated[int, typer.Option(min=1, help="Steps of the optimiser.")] = 300,
    out: Annotated[
        Path | None, typer.Option(metavar="FILE", help=OUT_HELP, show_default=False)
    ] = None,
) -> None:
    """Fit the auction model (beliefs.json), what a bid or pass says about a hand, to every
    seat's bids, passes and trumps in match logs.

    Use logs of the opponents you expect: it learns from every seat. Prints the log-loss of
    each part against the rate alone, so a fit that learned nothing shows.
    """
    from referee.strong.beliefs import MODEL
    from referee.strong.fit_beliefs import refit

    _echo(refit(_logs(logs), out or MODEL, steps))


@strong_app.command("fit-bidding")
def strong_fit_bidding(
    hands: Annotated[int, typer.Option(min=1, help="Random hands for the declarer.")] = 300,
    worlds: Annotated[
        int, typer.Option(min=1, help="Deals of the other tiles solved per hand and trump.")
    ] = 4,
    seed: Annotated[int, typer.Option(min=0, help="The first hand's seed.")] = 1,
    jobs: Annotated[int, typer.Option(min=1, help="Processes solving deals.")] = 2,
    shift: Annotated[
        float, typer.Option(metavar="LOGODDS", help="The self-play shift written in.")
    ] = 0.0,
    keep: Annotated[
        Path | None,
        typer.Option(
            "--data",
            metavar="FILE",
            help="Keep the samples here (JSON lines).",
            show_default=False,
        ),
    ] = None,
    kept: Annotated[
        Path | None,
        typer.Option(
            "--from-data",
            metavar="FILE",
            help="Fit on samples kept by --data instead of solving deals.",
            show_default=False,
        ),
    ] = None,
    calibrate: Annotated[
        Path | None,
        typer.Option(
            metavar="LOGS",
            help="Fit nothing: print the shift that makes the model's chances agree with the"
            " point contracts the bot declared in these logs (a log or a folder).",
            show_default=False,
        ),
    ] = None,
    name: Annotated[
        str, typer.Option(metavar="NAME", help="With --calibrate: the bot's name in its ready.")
    ] = "strong",
    out: Annotated[
        Path | None, typer.Option(metavar="FILE", help=OUT_HELP, show_default=False)
    ] = None,
) -> None:
    """Fit the feature model (bidding.json) on random hands, each solved exactly in a few
    deals for its likeliest trumps (about five minutes on two cores by default).

    With --calibrate LOGS it fits nothing and prints the shift that makes its chances agree
    with the bot's own trump contracts; --shift writes one in.
    """
    from referee.strong import fit
    from referee.strong.bidding import MODEL

    if calibrate is not None:
        logs = _logs([calibrate])
        with _usage_mistakes():
            typer.echo(fit.shift_line(logs, name))
        return
    if kept is not None and not kept.is_file():
        raise fail(f"--from-data {kept}: no such file")
    with _usage_mistakes():
        typer.echo(fit.refit(hands, worlds, seed, jobs, shift, out or MODEL, keep, kept))
