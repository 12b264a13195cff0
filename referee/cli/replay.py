"""``referee replay``: render, verify or re-run a match from its log."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from referee.terminal.escapes import shown

if TYPE_CHECKING:
    from referee.record.log import LogFile
    from referee.rules.tiles import Seat

from referee.cli.app import app
from referee.cli.exits import FAILED
from referee.cli.groups import Given, sandbox_options
from referee.cli.match import play
from referee.cli.options import SeatName, fail, sandbox_plan, seat_of


@app.command("replay")
def replay_command(
    log: Annotated[
        Path, typer.Argument(metavar="LOG", help="A replay log written by 'referee match'.")
    ],
    out: Annotated[
        Path | None,
        typer.Argument(
            metavar="OUT.html",
            help="With --html: the page to write. Default: beside the log, LOG.html"
            " (LOG.A.html with --seat A, LOG.public.html with --public).",
            show_default=False,
        ),
    ] = None,
    *,
    seat: Annotated[
        SeatName | None,
        typer.Option(
            help="Show only what this seat was shown: its views, the events, its answers."
        ),
    ] = None,
    public: Annotated[
        bool,
        typer.Option("--public", help="Show what everyone may see after each hand."),
    ] = False,
    verify: Annotated[
        bool,
        typer.Option(
            "--verify",
            help="Re-simulate the match from the seed and check every record and the chain.",
        ),
    ] = False,
    json_output: Annotated[
        bool,
        typer.Option("--json", help="Print the canonical game record that game_digest hashes."),
    ] = False,
    rerun: Annotated[
        bool,
        typer.Option(
            "--rerun",
            help="Play the match again with the logged bots, seed and limits; compare digests.",
        ),
    ] = False,
    html: Annotated[
        bool,
        typer.Option(
            "--html",
            help="Verify the log, then write it as one self-contained page to open in a"
            " browser: every hand open and each seat's and the public view (with --seat or"
            " --public: only that one).",
        ),
    ] = False,
    sandbox: Annotated[Given, sandbox_options(when="With --rerun:")],
) -> None:
    """Render, verify or re-run a match from its replay log.

    With no option: the whole match, hand by hand. Exit status: 0 when all is well, 1 when
    verification or a re-run disagrees (no page is written from a log that does not
    verify), 2 when the file cannot be read as a replay log.
    """
    from referee.errors import LogError, RefereeError, VerificationError
    from referee.record.log import read_log

    _check_combination(out, seat is not None, public, verify, json_output, rerun, html)
    try:
        replay_log = read_log(log)
    except LogError as exc:
        raise fail(str(exc)) from None
    only = seat_of(seat) if seat else ("public" if public else None)
    try:
        if html:
            _write_page(replay_log, out, only)
        elif verify:
            _verify(replay_log)
        elif json_output:
            _print_game_record(replay_log)
        elif rerun:
            _rerun(replay_log, sandbox)
        else:
            _print_lines(replay_log, only)
    except VerificationError as exc:
        unwritten = "; no page was written" if html else ""
        typer.echo(f"verification failed: {shown(str(exc))}{unwritten}", err=True)
        raise typer.Exit(FAILED) from None
    except RefereeError as exc:
        raise fail(f"{log}: the log does not follow the rules ({exc}); run --verify") from None


def _check_combination(
    out: Path | None, seat: bool, public: bool, verify: bool, json: bool, rerun: bool, html: bool
) -> None:
    """Exit 2 for options that do not go together."""
    if sum([seat, public, verify, json, rerun]) > 1:
        raise fail("choose one of --seat, --public, --verify, --json, --rerun")
    if html and (verify or json or rerun):
        raise fail("--html combines with --seat or --public only (it verifies the log itself)")
    if out is not None and not html:
        raise fail(f"{out}: a second argument is the page --html writes; add --html")


def _print_lines(replay_log: LogFile, only: str | None) -> None:
    """The match hand by hand: all of it, what one seat was shown, or the public view."""
    from referee.record import render

    if only is None:
        lines = render.match_lines(replay_log)
    elif only == "public":
        lines = render.public_lines(replay_log)
    else:
        lines = render.seat_lines(replay_log, cast("Seat", only))
    for line in lines:
        typer.echo(line)


def _print_game_record(replay_log: LogFile) -> None:
    """Exactly the bytes ``game_digest`` hashes (no newline after them)."""
    from referee.record.records import canonical_json
    from referee.record.verify import game_record

    if replay_log.truncated or replay_log.broken_at:
        raise fail(
            f"{replay_log.path} is truncated or altered, so no game digest stands for it;"
            " --verify says where"
        )
    sys.stdout.buffer.write(canonical_json(game_record(replay_log.records)))
    sys.stdout.flush()


def _write_page(replay_log: LogFile, out: Path | None, only: str | None) -> None:
    from referee.pages.match_page import match_page, page_path
    from referee.pages.page import PageError, write_page
    from referee.record.visibility import PERSPECTIVES

    path = replay_log.path
    if out is None:
        out = page_path(path, only)
    chosen = [p for p in PERSPECTIVES if only is None or p == only]
    text = match_page(replay_log, chosen)
    try:
        write_page(out, text, source=path)
    except PageError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write {out}: {exc.strerror}; choose another OUT.html") from None
    typer.echo(f"verified; wrote {out} ({len(text.encode()) / 1024:.0f} KiB): open it in a browser")


def _verify(replay_log: LogFile) -> None:
    from referee.record.verify import verify
    from referee.rules.contract import side_name

    result = verify(replay_log)
    winner = side_name(result.winner) if result.winner else "nobody"
    typer.echo(
        f"verified: {result.records} records, {result.hands} hands, {winner} wins"
        f" ({result.end}), A+C {result.marks['AC']}, B+D {result.marks['BD']}"
    )
    typer.echo(f"game digest: {result.game_digest}")
    typer.echo(f"log digest:  {result.log_digest}")


def _rerun(replay_log: LogFile, sandbox: Given) -> None:
    from referee.match.rerun import difference, rerun_of

    try:
        rerun = rerun_of(replay_log)
    except ValueError as exc:
        raise fail(str(exc)) from None
    plan = sandbox_plan(sandbox, rerun.settings, rerun.bots, [rerun.log.parent])
    outcome = play(rerun.settings, rerun.bots, rerun.log, plan)
    typer.echo(f"logged game digest: {rerun.logged_digest or '(none: the log is truncated)'}")
    typer.echo(f"rerun game digest:  {outcome.game_digest}  (log: {rerun.log})")
    why = difference(rerun, outcome)
    if why is not None:
        typer.echo(f"rerun: {why}", err=True)
        raise typer.Exit(FAILED)
    typer.echo("rerun: same game")
