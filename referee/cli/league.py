"""``referee league``: a competition that lives for weeks, in one SQLite file."""

from __future__ import annotations

import dataclasses
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Final

import typer

from referee.cli.app import app
from referee.cli.exits import FAILED, OK, by_signal
from referee.cli.groups import (
    RUNNING,
    FinalOption,
    Given,
    Running,
    Typer,
    final_configuration,
    limit_options,
    sandbox_options,
)
from referee.cli.options import fail, sandbox_settings

if TYPE_CHECKING:
    from referee.league.store import League

league_app = Typer(
    help="A league: entrants and their versions in one SQLite database, duplicate pairs"
    " played where the ratings are least sure, standings over time.",
    no_args_is_help=True,
)
app.add_typer(league_app, name="league")

_LABEL: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}$")

DbArgument = Annotated[
    Path, typer.Argument(metavar="DB", help="The league's database file.", show_default=False)
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")]


@contextmanager
def _open(db: Path, write: bool = False, runner: bool = False) -> Iterator[League]:
    """The league at ``db`` for one command: whatever SQLite says of it then (damaged, held
    too long by another writer) is one line and exit 2 too."""
    import sqlite3

    from referee.errors import LeagueError
    from referee.league.store import League

    try:
        league = League.open(db, write=write, runner=runner)
    except LeagueError as exc:
        raise fail(str(exc)) from None
    try:
        yield league
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc):
            raise fail(f"{db} was held by another command too long ({exc}): try again") from None
        raise fail(f"{db}: {exc}") from None
    except sqlite3.DatabaseError as exc:
        raise fail(f"{db} is a damaged league database ({exc}): restore it from a copy") from None
    finally:
        league.close()


@league_app.command("init")
def init_command(
    db: DbArgument,
    seed: Annotated[
        int | None,
        typer.Option(
            min=0, max=2**64 - 1, help="The league's seed: every pair's deals. Random if absent."
        ),
    ] = None,
    logs: Annotated[
        Path | None,
        typer.Option(help="Folder for the match logs. Default: DB's name with -logs, beside it."),
    ] = None,
    *,
    limits: Annotated[Given, limit_options()],
    final: Annotated[
        bool,
        typer.Option(
            "--final",
            help="A league of finals: its matches paced, idle seats frozen, no time bank"
            " (--pace --freeze-idle --time-bank 0); 'league run --final' adds the sandbox.",
        ),
    ] = False,
) -> None:
    """Create a league database: its seed, where its logs go, and the match limits every
    match of it is played under."""
    import msgspec

    from referee.errors import LeagueError
    from referee.league.store import League
    from referee.settings import MatchLimits

    # A folder given is kept as it resolves from here; the default is beside the database.
    folder = logs.resolve() if logs is not None else Path(f"{db.stem}-logs")
    where = folder if folder.is_absolute() else db.parent / folder
    if where.exists() and not where.is_dir():
        raise fail(f"--logs {where}: a file, not a folder; name a folder for the logs")
    if final:
        limits, _ = final_configuration(limits, None)
    league_seed = seed if seed is not None else secrets.randbits(63)
    try:
        encoded = msgspec.json.encode(MatchLimits(**limits)).decode()
        with League.create(db, league_seed, folder, encoded):
            pass
    except LeagueError as exc:
        raise fail(str(exc)) from None
    typer.echo(f"league {db}: seed {league_seed}, logs in {where}")
    typer.echo(f'next: referee league add {db} NAME "COMMAND"')


@league_app.command("add")
def add_command(
    db: DbArgument,
    name: Annotated[str, typer.Argument(metavar="NAME", help="The entrant's name.")],
    command: Annotated[
        str,
        typer.Argument(
            metavar="COMMAND",
            help="Its program (relative paths are from where 'league run' runs), or a"
            " bundled bot's name, e.g. bundled:heuristic ('referee bots' lists them).",
        ),
    ],
    version: Annotated[
        str | None,
        typer.Option(metavar="LABEL", help="The version's label. Default: v1, v2, ... in order."),
    ] = None,
) -> None:
    """Add an entrant, or a new version of one: the versions before it stop playing and keep
    their ratings and history."""
    from referee.errors import LeagueError
    from referee.match.commands import problem, resolved

    for what, value in (("name", name), ("--version", version)):
        if value is not None and not _LABEL.match(value):
            raise fail(f"{what} {value!r}: use 1-40 letters, digits, '_', '.', '+' or '-'")
    command = resolved(command)  # the league keeps, and its logs record, what runs
    why = problem(command)
    if why is not None:
        raise fail(why)
    with _open(db, write=True) as league:
        try:
            entrant, retired = league.add(name, command, version)
        except LeagueError as exc:
            raise fail(str(exc)) from None
    typer.echo(f"added {entrant.label}" + (f"; retired {', '.join(retired)}" if retired else ""))


@league_app.command("retire")
def retire_command(
    db: DbArgument,
    name: Annotated[str, typer.Argument(metavar="NAME", help="The entrant's name.")],
    version: Annotated[str | None, typer.Option(metavar="LABEL", help="Only this version.")] = None,
) -> None:
    """Retire an entrant: it plays no more, and its results and history stay."""
    from referee.errors import LeagueError

    with _open(db, write=True) as league:
        try:
            retired = league.retire(name, version)
        except LeagueError as exc:
            raise fail(str(exc)) from None
    typer.echo(f"retired {', '.join(retired)}" if retired else f"{name}: already retired")


@league_app.command("import")
def import_command(
    db: DbArgument,
    results: Annotated[
        Path,
        typer.Argument(metavar="RESULTS.jsonl", help="A results file 'referee tournament' wrote."),
    ],
) -> None:
    """Count a past tournament in the league: its entrants matched to the league's by name
    and command (another command is a past version), its matches and logs recorded."""
    from referee.errors import LeagueError
    from referee.league.importing import import_results

    with _open(db, write=True) as league:
        try:
            done = import_results(league, results)
        except LeagueError as exc:
            raise fail(str(exc)) from None
    extra = f"; new versions: {', '.join(done.added)}" if done.added else ""
    typer.echo(
        f"imported {done.matches} matches from {results}"
        + (f" ({done.already} were already recorded)" if done.already else "")
        + extra
    )


@league_app.command("run")
def run_command(
    db: DbArgument,
    matches: Annotated[
        int | None,
        typer.Option(
            min=1,
            metavar="N",
            help="Play N matches (whole duplicate pairs: an odd N plays one more).",
        ),
    ] = None,
    until_stable: Annotated[
        bool,
        typer.Option(
            "--until-stable",
            help="Play until every two neighbours in the order are 95% sure (with --matches:"
            " at most N).",
        ),
    ] = False,
    *,
    running: Annotated[Running, RUNNING],
    sandbox: Annotated[Given, sandbox_options()],
    final: FinalOption = False,
    abandon: Annotated[
        bool,
        typer.Option(
            "--abandon",
            help="End a stopped run where it is (its missing matches are not played) and play"
            " nothing.",
        ),
    ] = False,
) -> None:
    """Play duplicate pairs, each between the entrants whose ratings are least sure (new
    versions first); every result is written with its log's digest as it comes. Stopped
    (even by kill -9), the same command goes on where it stopped; with no count it finishes
    the stopped run."""
    from referee.apart.placement import Apart, misuse
    from referee.errors import LeagueError
    from referee.league.runner import Request, abandon_run, run_league
    from referee.running.executors import default_jobs
    from referee.terminal.escapes import markup
    from referee.terminal.progress import LongWork
    from referee.terminal.tables import people_console

    err = people_console(stderr=True)
    if abandon:
        if matches is not None or until_stable:
            raise fail("--abandon ends the stopped run: give it without --matches, --until-stable")
        with _open(db, write=True, runner=True) as league:
            try:
                run, done, missing = abandon_run(league)
            except LeagueError as exc:
                raise fail(str(exc)) from None
        err.print(markup(f"run {run} ended: {done} matches recorded, {missing} not played"))
        raise typer.Exit(OK)
    apart: Apart | None = None if running.seats_apart is None else running.seats_apart.value
    if (misused := misuse(running.dask, apart)) is not None:
        raise fail(misused)
    if final:
        _, sandbox = final_configuration(None, sandbox, fresh=True)
        running = dataclasses.replace(running, fresh_bots=True)
    request = Request(
        matches=matches,
        until_stable=until_stable,
        jobs=running.jobs or default_jobs(),
        dask=running.dask,
        seats_apart=apart,
        sandbox=sandbox_settings(sandbox),
        warm=not running.fresh_bots and running.seats_apart is None,
    )
    with _open(db, write=True, runner=True) as league:
        if final:
            _check_final_limits(league)
        try:
            with LongWork("matches", matches or 0, err) as work:
                played = run_league(
                    league,
                    request,
                    lambda line: err.print(markup(line)),
                    work.update,
                )
        except LeagueError as exc:
            raise fail(str(exc)) from None
    for line in played.failed:
        err.print(markup(f"not played: {line}"))
    stable = " — the order is stable" if played.stable else ""
    err.print(markup(f"run {played.run}: {played.recorded} matches recorded{stable}"))
    if played.interrupted is not None:
        err.print(markup(f"interrupted: run 'referee league run {db}' to go on"))
        raise typer.Exit(by_signal(played.interrupted))
    if played.failed:
        err.print(markup(f"run 'referee league run {db}' to play what was not played"))
        raise typer.Exit(FAILED)
    raise typer.Exit(OK)


def _check_final_limits(league: League) -> None:
    """``league run --final`` plays only a league made for finals (its limits are its own)."""
    from referee.league.runner import limits_of

    limits = limits_of(league)
    if not (limits.pace and limits.freeze_idle and limits.time_bank == 0):
        raise fail(
            "--final: this league's matches are not paced and frozen (its limits were set at"
            " 'league init'): make a league with 'referee league init DB --final'"
        )


@league_app.command("standings")
def standings_command(
    db: DbArgument,
    json_output: JsonOption = False,
    active: Annotated[
        bool, typer.Option("--active", help="Only the versions still playing.")
    ] = False,
) -> None:
    """The current ratings (mu ± 3 sigma, ordered by mu - 3 sigma), matches played, win
    rates, marks a match, faults, forfeits and void matches of each version, and the head to
    head; it reads while 'league run' writes, without stopping it."""
    from referee.league.standings import standings
    from referee.league.views import print_standings
    from referee.terminal.escapes import json_text

    with _open(db) as league:
        table = standings(league, include_retired=not active)
    if json_output:
        typer.echo(json_text(table))
        return
    print_standings(table)


@league_app.command("history")
def history_command(
    db: DbArgument,
    name: Annotated[str, typer.Argument(metavar="NAME", help="The entrant's name.")],
    json_output: JsonOption = False,
) -> None:
    """Each version's rating over time: after each of its matches."""
    from referee.league.standings import history
    from referee.league.views import print_history
    from referee.terminal.escapes import json_text

    with _open(db) as league:
        found = history(league, name)
    if not found:
        raise fail(f"no entrant {name!r} in {db} ('referee league standings {db}')")
    if json_output:
        typer.echo(json_text(found))
        return
    print_history(found)


@league_app.command("report")
def report_command(
    db: DbArgument,
    out: Annotated[Path, typer.Argument(metavar="OUT.html", help="The page to write.")],
) -> None:
    """Write the league's page: the standings, head to head, each version's rating over
    time, and the recent matches linked to their viewer pages (written beside their logs)."""
    from referee.league.report import write_report

    with _open(db) as league:
        try:
            lines = write_report(league, out)
        except OSError as exc:
            raise fail(f"{exc.filename or out}: {exc.strerror or exc}") from None
    for line in lines:
        typer.echo(line)


@league_app.command("verify")
def verify_command(db: DbArgument, json_output: JsonOption = False) -> None:
    """Read every recorded match's log and hold it to the digest recorded with the result."""
    from referee.league.standings import verify_logs
    from referee.terminal.escapes import json_text, shown

    with _open(db) as league:
        checked, problems = verify_logs(league)
    if json_output:
        typer.echo(json_text({"checked": checked, "problems": problems}))
    else:
        for problem in problems:
            typer.echo(f"{problem.match_id}: {shown(problem.problem)} ({shown(problem.log)})")
        typer.echo(f"{checked - len(problems)} of {checked} logs verified")
    raise typer.Exit(FAILED if problems else OK)
