"""The ``referee`` command line."""

from __future__ import annotations

import shlex
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
import typer

from referee import __version__
from referee.terminal import json_text, shown

if TYPE_CHECKING:
    from referee.log import LogFile
    from referee.pages.report_command import Written
    from referee.rules.tiles import Seat
    from referee.sandbox.policy import SandboxPlan
    from referee.settings import MatchLimits, MatchSettings, SandboxSettings
    from referee.table import MatchOutcome


def _plain_value_names() -> None:
    """Typer prints each value's Python type in help (``<bool>``, ``<list[str]>``, ``<int
    range>``): show what a user types instead — the option's own name for its value (``MIB``,
    ``PATH``), ``N``, ``NUMBER``, ``TEXT``, the choices — and nothing for a flag, which takes
    none, or an argument, whose name already says it."""
    import typer.core

    display_type = typer.core.TyperOption.display_type

    def value_name(self: typer.core.TyperOption, ctx: Any) -> str | None:
        if self.metavar is not None:
            return str(self.metavar)
        if self.is_flag:
            return None
        label = str(display_type(self, ctx)).strip("<>")
        names = {"int": "N", "int range": "N", "float": "NUMBER", "float range": "NUMBER"}
        names |= {"str": "TEXT", "list[str]": "TEXT"}
        return names.get(label, label if "|" in label else label.upper())

    typer.core.TyperOption.display_type_rich = value_name  # type: ignore[method-assign]
    typer.core.TyperArgument.display_type_rich = lambda self, ctx: None  # type: ignore[method-assign]


_plain_value_names()


def _reflowed_paragraphs() -> None:
    """Typer keeps a docstring's line breaks inside each paragraph after the first, so help
    shows our source's wrapping cut again at the terminal's width: join each paragraph's
    lines (a paragraph starting with ``\\b`` keeps them, as in click)."""
    import typer.rich_utils

    def fix(paragraphs: list[str], markup_mode: Any) -> str:
        return "\n\n".join(
            p if p.startswith("\b") else " ".join(line.strip() for line in p.splitlines())
            for p in paragraphs
        )

    typer.rich_utils._fix_linebreaks = fix


_reflowed_paragraphs()

app = typer.Typer(
    help="Referee for Texas 42 bot competitions: exact rules, redacted views, verifiable replays.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(
    help="Benchmarks; each prints its figure as the last line.", no_args_is_help=True
)
app.add_typer(bench_app, name="bench")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"referee {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Referee for Texas 42 bot competitions."""


class OnFault(StrEnum):
    forfeit = "forfeit"
    random = "random"


def _bundled_bot(name: str) -> str:
    from referee.runner import BUNDLED_BOTS

    path = BUNDLED_BOTS / name
    if not path.exists():
        raise _fail(
            f"the bundled bots are not here ({BUNDLED_BOTS}): install from a clone with"
            " 'pip install -e .', or pass bot commands"
        )
    return shlex.join([sys.executable, str(path)])


def _seconds(low: float, high: float) -> Any:
    """A check of seconds from ``low`` to ``high``: typer's own range check lets NaN through
    and then calls it too large (every comparison with NaN is false)."""

    def check(value: float | None) -> float | None:
        if value is not None and not low <= value <= high:
            raise typer.BadParameter(f"give seconds from {low:g} to {high:g}, not {value}")
        return value

    return check


def _fail(message: str) -> typer.Exit:
    # One line, escaped: it can quote a log's or a results file's contents, or a bot's words.
    typer.echo(f"referee: {shown(message)}", err=True)
    return typer.Exit(2)


class Sandbox(StrEnum):
    auto = "auto"
    strict = "strict"
    off = "off"


SANDBOX_HELP = (
    "auto: every sandbox layer this machine has (one line says which); strict: refuse to start"
    " without the layers a competition needs; off: bots run as you, in their own process group."
)
ALLOW_HELP = "A file or directory every bot may read (repeat), e.g. a model file or a library."
ENV_HELP = (
    "An environment variable passed to sandboxed bots (repeat); they get only PATH, HOME, LANG,"
    " LC_* and what runtimes look for (JAVA_HOME, VIRTUAL_ENV, ...)."
)


#: The sandbox options, the same on every command that starts bots.
SandboxOption = Annotated[Sandbox, typer.Option(help=SANDBOX_HELP)]
AllowOption = Annotated[
    list[Path] | None, typer.Option(metavar="PATH", help=ALLOW_HELP, show_default=False)
]
EnvOption = Annotated[
    list[str] | None, typer.Option(metavar="NAME", help=ENV_HELP, show_default=False)
]


def _sandbox_settings(
    mode: Sandbox, allow: list[Path] | None, env: list[str] | None
) -> SandboxSettings:
    """The sandbox options as settings; exit 2 for an allowed path that does not exist."""
    from referee.settings import SandboxSettings

    missing = [str(path) for path in allow or [] if not path.exists()]
    if missing:
        raise _fail(f"--sandbox-allow {missing[0]}: no such file or directory")
    return SandboxSettings(
        mode=mode.value,
        allow=tuple(str(path.resolve()) for path in allow or []),
        env=tuple(env or []),
    )


def _check_commands(commands: dict[Seat, str]) -> None:
    """Exit 2 with one line when a bot command cannot even start."""
    from referee.commands import problem

    for seat, command in commands.items():
        why = problem(command)
        if why is not None:
            raise _fail(f"seat {seat}: {why}")


def _sandbox_plan(
    mode: Sandbox,
    allow: list[Path] | None,
    env: list[str] | None,
    limits: MatchLimits,
    commands: dict[Seat, str],
    secrets: list[Path],
) -> SandboxPlan:
    """Decide the sandbox and say it on stderr in one line; exit 2 under ``strict`` when a
    protection is missing, and in any mode when a seat could read the referee's files."""
    from referee.errors import SandboxRefused
    from referee.sandbox.policy import plan

    settings = _sandbox_settings(mode, allow, env)
    try:
        sandbox = plan(settings, limits, commands, secrets)
    except SandboxRefused as exc:
        raise _fail(str(exc)) from None
    typer.echo(sandbox.report.summary(), err=True)
    return sandbox


class SeatName(StrEnum):
    A = "A"
    B = "B"
    C = "C"
    D = "D"


class CacheMedium(StrEnum):
    pages = "pages"
    names = "names"


@app.command("match")
def match_command(
    bots: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="BOT",
            help="Four bot commands (seats A, B, C, D) or two (A+C, B+D), each one string split"
            " as a shell would, e.g. 'python3 my_bot.py'. None: the bundled heuristic bot (A+C)"
            " against the bundled random bot (B+D).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(min=0, max=2**64 - 1, help="Match seed: first dealer and every deal."),
    ] = None,
    log: Annotated[
        Path | None,
        typer.Option(help="Replay log path (JSON lines). Default: a new file under ./matches/."),
    ] = None,
    move_timeout: Annotated[
        float,
        typer.Option(metavar="S", callback=_seconds(0.001, 3600), help="Seconds per decision."),
    ] = 1.0,
    startup_timeout: Annotated[
        float,
        typer.Option(metavar="S", callback=_seconds(0.001, 3600), help="Seconds to answer hello."),
    ] = 10.0,
    time_bank: Annotated[
        float,
        typer.Option(
            metavar="S",
            callback=_seconds(0, 86400),
            help="Extra seconds per seat for the match, spent on overruns.",
        ),
    ] = 0.0,
    max_rejections: Annotated[
        int,
        typer.Option(min=1, max=1000, help="The Nth refused answer to one decision is a fault."),
    ] = 3,
    on_fault: Annotated[
        OnFault,
        typer.Option(
            help="forfeit: a fault loses the match. random: a seeded random legal action is"
            " played for the seat and a strike recorded."
        ),
    ] = OnFault.forfeit,
    max_strikes: Annotated[
        int,
        typer.Option(
            min=0, max=1000, help="Strikes allowed under --on-fault random; the next forfeits."
        ),
    ] = 3,
    max_hands: Annotated[
        int,
        typer.Option(min=1, max=1_000_000, help="End the match unfinished after this many hands."),
    ] = 200,
    max_line_bytes: Annotated[
        int,
        typer.Option(min=1024, max=1 << 30, help="Longest line a bot may send; longer is a fault."),
    ] = 1 << 20,
    sandbox: SandboxOption = Sandbox.auto,
    sandbox_allow: AllowOption = None,
    sandbox_env: EnvOption = None,
    memory_limit: Annotated[
        int,
        typer.Option(
            min=16, max=1 << 20, metavar="MIB", help="MiB of memory per seat (sandbox bound)."
        ),
    ] = 1024,
    scratch_limit: Annotated[
        int,
        typer.Option(
            min=1, max=1 << 20, metavar="MIB", help="MiB of scratch space per seat (sandbox bound)."
        ),
    ] = 256,
    cpu_limit: Annotated[
        int,
        typer.Option(
            min=1, max=1 << 20, metavar="S", help="CPU seconds per bot process (sandbox bound)."
        ),
    ] = 600,
    max_processes: Annotated[
        int,
        typer.Option(
            min=1,
            max=1 << 16,
            metavar="N",
            help="Processes and threads per seat's tree (sandbox bound).",
        ),
    ] = 128,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object with the outcome on stdout.")
    ] = False,
) -> None:
    """Play one match between four bot programs and write its replay log.

    Exits 0 whenever the match was played to its end, forfeits included; 2 for bad
    arguments; 1 if the referee itself failed.
    """

    from referee.files import private_directory, private_file
    from referee.rules.deal import MAX_SEED
    from referee.runner import default_log_path, random_seed, seat_commands
    from referee.settings import MatchSettings

    commands_given = bots or [_bundled_bot("heuristic_bot.py"), _bundled_bot("random_bot.py")]
    try:
        commands = seat_commands(commands_given)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    _check_commands(commands)
    match_seed = random_seed() if seed is None else seed
    assert 0 <= match_seed <= MAX_SEED
    settings = MatchSettings(
        seed=match_seed,
        move_timeout=move_timeout,
        startup_timeout=startup_timeout,
        time_bank=time_bank,
        max_rejections=max_rejections,
        on_fault=on_fault.value,
        max_strikes=max_strikes,
        max_hands=max_hands,
        max_line_bytes=max_line_bytes,
        memory_mb=memory_limit,
        cpu_seconds=cpu_limit,
        max_processes=max_processes,
        scratch_mb=scratch_limit,
    )
    if log is not None and (not str(log).strip() or log.is_dir()):
        raise _fail(f"--log {str(log)!r}: give the log file's name, e.g. --log matches/m1.jsonl")
    log_path = log or default_log_path()
    if log_path.exists():
        raise _fail(f"{log_path} already exists: choose another --log or remove it")
    try:
        private_directory(log_path.parent)
        private_file(log_path).close()  # a log that cannot be written is a usage mistake
    except OSError as exc:
        raise _fail(f"cannot write the log {log_path}: {exc.strerror or exc}") from None
    try:
        plan = _sandbox_plan(
            sandbox, sandbox_allow, sandbox_env, settings, commands, [log_path.parent]
        )
    except typer.Exit:
        log_path.unlink(missing_ok=True)  # refused: no match, no log
        raise
    outcome = _play(settings, commands, log_path, plan)
    if json_output:
        from referee.records import split_counts

        document = msgspec.to_builtins(outcome)
        document["faults"], document["rejections"] = split_counts(outcome.faults)
        typer.echo(json_text(document))
        return
    from referee.report import print_outcome

    print_outcome(outcome, commands)


def _play(
    settings: MatchSettings, commands: dict[Seat, str], log_path: Path, sandbox: SandboxPlan
) -> MatchOutcome:
    """Run a match in the foreground; Ctrl-C, SIGTERM and SIGHUP end it cleanly (exit 130,
    143, 129), and a failure of the referee itself exits 1 with one line — never a traceback."""
    import trio

    from referee.runner import Terminated, interrupted, leaf_error, run_match_in_foreground

    try:
        return trio.run(run_match_in_foreground, settings, commands, log_path, sandbox)
    except BaseException as exc:
        if interrupted(exc):
            cause = leaf_error(exc)
            signum = cause.signum if isinstance(cause, Terminated) else 2
            typer.echo(f"referee: interrupted; the log ends there: {log_path}", err=True)
            raise typer.Exit(128 + signum) from None
        cause = leaf_error(exc)
        if isinstance(cause, OSError):
            what = cause.strerror or cause
            typer.echo(f"referee: {what}: {cause.filename or log_path}", err=True)
        else:
            typer.echo(
                f"referee: internal error: {type(cause).__name__}: {shown(str(cause))}", err=True
            )
        raise typer.Exit(1) from None


@app.command("check-bot")
def check_bot_command(
    command: Annotated[
        str,
        typer.Argument(
            metavar="COMMAND", help="The bot's command, one string split as a shell would."
        ),
    ],
    move_timeout: Annotated[
        float,
        typer.Option(metavar="S", callback=_seconds(0.001, 3600), help="Seconds per decision."),
    ] = 1.0,
    startup_timeout: Annotated[
        float,
        typer.Option(metavar="S", callback=_seconds(0.001, 3600), help="Seconds to answer hello."),
    ] = 10.0,
    sandbox: SandboxOption = Sandbox.auto,
    sandbox_allow: AllowOption = None,
    sandbox_env: EnvOption = None,
    match: Annotated[
        bool,
        typer.Option(
            "--match/--no-match",
            help="Play whole matches: one in each seat, A to D, against the bundled random"
            ' bot, and for a bot that says "matches": "many" one in each seat in one process.',
        ),
    ] = True,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the report as one JSON object on stdout.")
    ] = False,
) -> None:
    """Check that a bot speaks the protocol: every message and phase, a refusal, unknown
    messages and fields, the end of a match, then a full match in each seat; with what to fix.

    Exits 0 only when every check passed; 1 when one failed; 2 for a usage mistake.
    """
    from referee.checkbot import check_bot, report_lines
    from referee.commands import problem
    from referee.errors import SandboxRefused
    from referee.settings import MatchLimits

    why = problem(command)
    if why is not None:
        raise _fail(why)
    settings = _sandbox_settings(sandbox, sandbox_allow, sandbox_env)
    limits = MatchLimits(move_timeout=move_timeout, startup_timeout=startup_timeout)
    try:
        report = check_bot(command, sandbox=settings, limits=limits, match=match)
    except SandboxRefused as exc:
        raise _fail(str(exc)) from None
    if json_output:
        typer.echo(json_text(report))
    else:
        for line in report_lines(report, color=sys.stdout.isatty()):
            typer.echo(line)
    raise typer.Exit(0 if report.ok else 1)


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
    sandbox: Annotated[Sandbox, typer.Option(help="With --rerun: " + SANDBOX_HELP)] = (
        Sandbox.auto
    ),
    sandbox_allow: Annotated[
        list[Path] | None,
        typer.Option(metavar="PATH", help="With --rerun: " + ALLOW_HELP, show_default=False),
    ] = None,
    sandbox_env: Annotated[
        list[str] | None,
        typer.Option(metavar="NAME", help="With --rerun: " + ENV_HELP, show_default=False),
    ] = None,
) -> None:
    """Render, verify or re-run a match from its replay log.

    With no option: the whole match, hand by hand. Exit status: 0 when all is well, 1 when
    verification or a re-run disagrees (no page is written from a log that does not
    verify), 2 when the file cannot be read as a replay log.
    """
    from referee.errors import LogError, RefereeError, VerificationError
    from referee.log import read_log

    modes = [seat is not None, public, verify, json_output, rerun]
    if sum(modes) > 1:
        raise _fail("choose one of --seat, --public, --verify, --json, --rerun")
    if html and (verify or json_output or rerun):
        raise _fail("--html combines with --seat or --public only (it verifies the log itself)")
    if out is not None and not html:
        raise _fail(f"{out}: a second argument is the page --html writes; add --html")
    try:
        replay_log = read_log(log)
    except LogError as exc:
        raise _fail(str(exc)) from None
    try:
        if html:
            _write_page(replay_log, out, seat.value if seat else ("public" if public else None))
        elif verify:
            _verify(replay_log)
        elif json_output:
            from referee.records import canonical_json
            from referee.verify import game_record

            if replay_log.truncated or replay_log.broken_at:
                raise _fail(
                    f"{log} is truncated or altered, so no game digest stands for it;"
                    " --verify says where"
                )

            # Exactly the bytes game_digest hashes: no newline after them.
            sys.stdout.buffer.write(canonical_json(game_record(replay_log.records)))
            sys.stdout.flush()
        elif rerun:
            _rerun(replay_log, sandbox, sandbox_allow, sandbox_env)
        else:
            from referee import render

            if seat is not None:
                lines = render.seat_lines(replay_log, seat.value)
            elif public:
                lines = render.public_lines(replay_log)
            else:
                lines = render.match_lines(replay_log)
            for line in lines:
                typer.echo(line)
    except VerificationError as exc:
        unwritten = "; no page was written" if html else ""
        typer.echo(f"verification failed: {shown(str(exc))}{unwritten}", err=True)
        raise typer.Exit(1) from None
    except RefereeError as exc:
        raise _fail(f"{log}: the log does not follow the rules ({exc}); run --verify") from None


def _write_page(replay_log: LogFile, out: Path | None, only: str | None) -> None:
    from referee.pages.match_page import match_page, page_path
    from referee.pages.page import PageError, write_page
    from referee.pages.steps import PERSPECTIVES

    path = replay_log.path
    if out is None:
        out = page_path(path, only)
    chosen = [p for p in PERSPECTIVES if only is None or p == only]
    text = match_page(replay_log, chosen)
    try:
        write_page(out, text, source=path)
    except PageError as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"cannot write {out}: {exc.strerror}; choose another OUT.html") from None
    typer.echo(f"verified; wrote {out} ({len(text.encode()) / 1024:.0f} KiB): open it in a browser")


def _verify(replay_log: LogFile) -> None:
    from referee.rules.contract import side_name
    from referee.verify import verify

    result = verify(replay_log)
    winner = side_name(result.winner) if result.winner else "nobody"
    typer.echo(
        f"verified: {result.records} records, {result.hands} hands, {winner} wins"
        f" ({result.end}), A+C {result.marks['AC']}, B+D {result.marks['BD']}"
    )
    typer.echo(f"game digest: {result.game_digest}")
    typer.echo(f"log digest:  {result.log_digest}")


def _rerun(
    replay_log: LogFile, sandbox: Sandbox, allow: list[Path] | None, env: list[str] | None
) -> None:
    from referee.records import MatchEndRecord
    from referee.settings import MatchSettings

    header = replay_log.header
    settings = MatchSettings.from_log(header.seed, header.limits, header.max_hands)
    if header.sandbox is not None and header.sandbox.memory_mb:  # the bounds it was played under
        settings = msgspec.structs.replace(
            settings,
            memory_mb=header.sandbox.memory_mb,
            cpu_seconds=header.sandbox.cpu_seconds,
            max_processes=header.sandbox.max_processes,
            file_size_mb=header.sandbox.file_size_mb,
            scratch_mb=header.sandbox.scratch_mb or settings.scratch_mb,
        )
    end = replay_log.records[-1]
    logged = end.game_digest if isinstance(end, MatchEndRecord) else None
    new_log = replay_log.path.with_name(replay_log.path.stem + ".rerun.jsonl")
    if new_log.exists():
        raise _fail(f"{new_log} exists (an earlier re-run): remove it first")
    from referee.commands import problem

    for seat, command in header.bots.items():
        why = problem(command)
        if why is not None:  # the real cause, not "the game differs"
            raise _fail(
                f"cannot re-run: seat {seat}: {why}; the logged commands are run as written:"
                " re-run from the directory the match was played in"
            )
    plan = _sandbox_plan(sandbox, allow, env, settings, header.bots, [new_log.parent])
    outcome = _play(settings, header.bots, new_log, plan)
    typer.echo(f"logged game digest: {logged or '(none: the log is truncated)'}")
    typer.echo(f"rerun game digest:  {outcome.game_digest}  (log: {new_log})")
    if outcome.game_digest != logged:
        started = [seat for seat in header.bots if outcome.names.get(seat)]
        if len(started) < 4:
            missing = ", ".join(seat for seat in header.bots if seat not in started)
            typer.echo(
                f"rerun: the game differs: seat {missing} did not start this time"
                f" ({shown(outcome.detail)}); see the new log's faults",
                err=True,
            )
        else:
            typer.echo("rerun: the game differs (are the bots deterministic?)", err=True)
        raise typer.Exit(1)
    typer.echo("rerun: same game")


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
        typer.Option(metavar="S", callback=_seconds(0.001, 3600), help="Seconds per decision."),
    ] = None,
    startup_timeout: Annotated[
        float | None,
        typer.Option(metavar="S", callback=_seconds(0.001, 3600), help="Seconds to answer hello."),
    ] = None,
    time_bank: Annotated[
        float | None,
        typer.Option(
            metavar="S", callback=_seconds(0, 86400), help="Extra seconds per seat and match."
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
        raise _fail(str(exc)) from None
    raise typer.Exit(status)


@app.command("report")
def report_command(
    results: Annotated[
        Path,
        typer.Argument(
            metavar="RESULTS.jsonl", help="A results file written by 'referee tournament'."
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Argument(
            metavar="OUT.html",
            help="The page to write. Default: report.html beside the results.",
            show_default=False,
        ),
    ] = None,
    sprt: Annotated[
        str | None,
        typer.Option(metavar="ELO0,ELO1", help="Draw this sequential test (two entrants)."),
    ] = None,
    alpha: Annotated[float, typer.Option(help="SPRT false positive rate.")] = 0.05,
    beta: Annotated[float, typer.Option(help="SPRT false negative rate.")] = 0.05,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print where the pages went as JSON on stdout.")
    ] = False,
) -> None:
    """Write a tournament's report: one self-contained HTML page with the standings, head to
    head, win rates with their intervals, the rating over the tournament, the SPRT, faults,
    and a link to each match's viewer page (written beside its log, after verifying it)."""
    from rich.console import Console

    from referee.pages.page import PageError
    from referee.pages.report_command import write_report
    from referee.tournament.command import TournamentError, sprt_of
    from referee.tournament.results import ResultsError

    err = Console(stderr=True, soft_wrap=True)
    try:
        test = sprt_of(sprt, alpha, beta, None)
        written = write_report(results, out, test, err)
    except (TournamentError, ResultsError, PageError) as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"{exc.filename or results}: {exc.strerror or exc}") from None
    _said_report(written, json_output)


def _said_report(written: Written, json_output: bool) -> None:
    """One line (or a JSON object) saying where a report went and which matches got no page."""
    missing = [row.result.match_id for row in written.without_page]
    if json_output:
        document = {
            "report": str(written.report),
            "matches": written.matches,
            "without_page": missing,
        }
        typer.echo(json_text(document))
        return
    typer.echo(f"wrote {written.report} ({written.matches} matches): open it in a browser")
    for line in written.missing_lines():
        typer.echo(shown(line), err=True)


@bench_app.command("engine")
def bench_engine(
    hands: Annotated[int, typer.Option(min=1, help="How many hands to play.")] = 50_000,
    seed: Annotated[int, typer.Option(min=0, help="First match seed (and the chooser's).")] = 1,
    views: Annotated[
        bool, typer.Option("--views", help="Also build the seat's view for each decision.")
    ] = False,
) -> None:
    """Play random legal actions through the rules engine's public API; report hands/s."""
    from referee.bench import engine

    result = engine.run(hands, seed, views=views)
    typer.echo(
        f"played {result.hands} hands ({result.matches} matches, {result.actions} actions)"
        f" in {result.seconds:.2f} s on one core"
    )
    typer.echo(f"{result.microseconds_per_action:.2f} µs per action (legal actions + apply)")
    typer.echo(
        f"target: {engine.TARGET_HANDS_PER_SECOND:,} hands/s;"
        f" {result.hands_per_second / engine.TARGET_HANDS_PER_SECOND:.0%} of it"
    )
    typer.echo(f"engine: {result.hands_per_second:.0f} hands/s")


@bench_app.command("referee")
def bench_referee(
    matches: Annotated[int, typer.Option(min=1, help="How many matches to play.")] = 50,
    seed: Annotated[int, typer.Option(min=0, help="First match seed.")] = 1,
) -> None:
    """Matches between instant bots through the real referee, against the raw pipe rate."""
    from referee.bench import referee

    result = referee.run(matches, seed)
    pinned = ", the referee and the bots on CPUs of their own" if result.pinned else ""
    typer.echo(
        f"raw pipe: {result.raw_per_second:.0f} round trips/s"
        f" ({result.raw_round_trips} act lines echoed by a Python process{pinned})"
    )
    typer.echo(
        f"four echo processes taking turns: {result.turns_per_second:.0f} round trips/s"
        f" ({result.turns_per_second / result.raw_per_second:.0%} of one: what taking turns"
        " among four bots costs with no referee work at all)"
    )
    typer.echo(
        f"referee: {result.matches} matches, {result.decisions} decisions"
        f" in {result.seconds:.2f} s of play (start-up excluded);"
        f" {result.decisions_per_second / result.turns_per_second:.0%} of the four echoes' rate"
    )
    share = result.decisions_per_second / result.raw_per_second
    typer.echo(f"target: {referee.TARGET_SHARE:.0%} of the raw pipe rate")
    typer.echo(
        f"referee: {result.decisions_per_second:.0f} decisions/s ({share:.0%} of raw pipe rate)"
    )


@bench_app.command("tournament")
def bench_tournament(
    seeds: Annotated[
        int, typer.Option(min=1, help="Deal seeds (two matches each) per measurement.")
    ] = 30,
) -> None:
    """Matches per second through the tournament runner: fresh bots and warm pools, at 1 and
    2 jobs, against the rate the pipes allow."""
    from referee.bench import tournament

    raw = tournament.raw_round_trips_per_second()
    typer.echo(f"raw pipe: {raw:.0f} round trips/s")
    runs = {}
    for warm in (False, True):
        for jobs in (1, 2):
            result = runs[warm, jobs] = tournament.run(seeds, jobs, warm)
            busy = "" if result.busy_cores is None else f", {result.busy_cores:.2f} cores busy"
            typer.echo(
                f"{'warm' if warm else 'fresh'} jobs={jobs}: {result.matches} matches in"
                f" {result.seconds:.2f} s = {result.matches_per_second:.1f}/s"
                f" ({result.decisions_per_match:.0f} decisions a match{busy})"
            )
    best = runs[True, 2]
    limit = min(2, tournament.cores()) * raw / best.decisions_per_match
    over_fresh = best.matches_per_second / runs[False, 2].matches_per_second
    share = best.matches_per_second / limit
    scaling = best.matches_per_second / runs[True, 1].matches_per_second
    typer.echo(
        f"pipe limit at jobs=2: {limit:.0f} matches/s; targets: warm"
        f" {tournament.TARGET_WARM_OVER_FRESH:.0f}x fresh, {tournament.TARGET_PIPE_SHARE:.0%}"
        f" of the pipe limit, jobs=2 {tournament.TARGET_SCALING}x jobs=1"
    )
    typer.echo(
        f"tournament: {best.matches_per_second:.1f} matches/s at jobs=2 warm ({over_fresh:.1f}x"
        f" fresh, {share:.0%} of the pipe limit, jobs=2 {scaling:.2f}x jobs=1)"
    )


@bench_app.command("startup")
def bench_startup(
    delay: Annotated[
        float, typer.Option(min=0, metavar="S", help="Seconds each bot sleeps before ready.")
    ] = 1.0,
    matches: Annotated[int, typer.Option(min=2, help="Matches to play (one job).")] = 20,
) -> None:
    """Wall time of a tournament between bots that are slow to start, fresh and warm."""
    from referee.bench import tournament

    fresh = tournament.startup(delay, matches, warm=False)
    typer.echo(f"fresh: {matches} matches in {fresh:.1f} s")
    warm = tournament.startup(delay, matches, warm=True)
    typer.echo(f"warm: {matches} matches in {warm:.1f} s")
    typer.echo(
        f"startup: {matches} matches with a {delay:g} s start-up: fresh {fresh:.1f} s,"
        f" warm {warm:.1f} s ({fresh / warm:.1f}x)"
    )


@bench_app.command("solver")
def bench_solver(
    deals: Annotated[int, typer.Option(min=1, help="Seeded deals to solve trick by trick.")] = 40,
    seed: Annotated[int, typer.Option(min=0, help="First deal seed.")] = 1,
) -> None:
    """The strong bot's exact solver: positions/s, and the make-or-set time at each trick."""
    from referee.bench import solver

    result = solver.run(deals, seed)
    for trick, times in sorted(result.seconds.items()):
        mean, p90, most = solver.summary(times)
        typer.echo(
            f"trick {trick}: {len(times)} leads, every legal tile solved in {mean:.1f} ms mean"
            f" ({p90:.1f} p90, {most:.1f} max)"
        )
    mean, p90, most = solver.summary(result.seconds[1])
    typer.echo(
        f"solver: {result.nodes_per_second / 1e6:.2f} M positions/s; first lead {mean:.0f} ms"
        f" mean ({p90:.0f} p90, {most:.0f} max)"
    )


@bench_app.command("viewer")
def bench_viewer(
    seed: Annotated[int, typer.Option(min=0, help="The matches' seed.")] = 1,
) -> None:
    """The viewer page of the longest log (200 hands) and of a full match: its size, the
    time to build it, to its first render in headless Chromium, and per step."""
    from referee.bench import viewer
    from referee.bench.browser import NoBrowser

    try:
        results = viewer.run(seed)
    except NoBrowser as exc:
        raise _fail(f"bench viewer needs a browser: {exc}") from None
    for result in results:
        typer.echo(
            f"{result.name}: {result.hands} hands, {result.steps} steps,"
            f" {result.bytes / 1024:.0f} KiB; built in {result.build_ms:.0f} ms; first render"
            f" {result.first_render_ms:.0f} ms; a step {result.step_mean_ms:.2f} ms mean,"
            f" {result.step_p99_ms:.1f} ms p99, {result.step_max_ms:.1f} ms max"
        )
    typer.echo(
        f"limits: first render {viewer.FIRST_RENDER_LIMIT_MS:.0f} ms,"
        f" a step {viewer.STEP_LIMIT_MS:.1f} ms at p99 (one frame at 60 Hz)"
    )
    longest = results[0]
    typer.echo(
        f"viewer: {longest.name} {longest.bytes / 1024:.0f} KiB, first render"
        f" {longest.first_render_ms:.0f} ms"
        f" ({longest.first_render_ms / viewer.FIRST_RENDER_LIMIT_MS:.0%} of its limit), a step"
        f" {longest.step_p99_ms:.1f} ms p99 ({longest.step_p99_ms / viewer.STEP_LIMIT_MS:.0%}"
        " of a frame)"
    )


@bench_app.command("sandbox")
def bench_sandbox(
    rounds: Annotated[int, typer.Option(min=1, help="Rounds of four bot starts each.")] = 30,
) -> None:
    """Extra milliseconds per bot start for each sandbox layer, against a bare start."""
    from referee.bench import sandbox

    result = sandbox.run(rounds)
    typer.echo(f"bare start: {result.bare_ms:.1f} ms per bot ({' '.join(result.program)})")
    for name, extra in result.extra_ms.items():
        if name != "all":
            typer.echo(f"  {name:<15} {extra:+.1f} ms")
    typer.echo(f"limit: +{sandbox.LIMIT_MS:.0f} ms per bot start")
    typer.echo(
        f"sandbox: {result.extra_ms['all']:+.1f} ms per bot start ({', '.join(result.layers)})"
    )


@bench_app.command("cache")
def bench_cache(
    trials: Annotated[int, typer.Option(min=1, help="Hands per variant and scenario.")] = 6,
    medium: Annotated[
        CacheMedium,
        typer.Option(help="pages: timed reads of pages; names: timed lookups of missing names."),
    ] = CacheMedium.pages,
) -> None:
    """Bits of a hand per match a cache timing channel carries between partners and between
    the legs of a pair, with the sandbox off and as the referee plays (about a minute)."""
    import os

    from referee.bench import cache_channel

    # Without root the lookup caches cannot be dropped: no "forget" variant.
    unprivileged = [a for v in ("off", "before", "narrow", "resident") for a in ("--variant", v)]
    variants = [] if os.geteuid() == 0 else unprivileged
    cache_channel.main(["--trials", str(trials), "--medium", medium.value, "--quiet", *variants])


@bench_app.command("decode")
def bench_decode(
    lines: Annotated[int, typer.Option(min=1, help="Adversarial lines to decode.")] = 1_000_000,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the line generators.")] = 1,
) -> None:
    """Fuzz the bot-line decoder; fails if any exception escapes the rejection tree."""
    from referee.bench import decode

    try:
        result = decode.run(lines, seed)
    except decode.Escaped as exc:
        typer.echo(f"decode: ESCAPED {type(exc.error).__name__} on {exc.line[:200]!r}", err=True)
        raise typer.Exit(1) from None
    reasons = ", ".join(f"{code} {count:,}" for code, count in sorted(result.rejected.items()))
    typer.echo(f"accepted {result.accepted:,}; rejected: {reasons}")
    typer.echo(f"{result.microseconds_per_line:.1f} µs per line, {result.bytes:,} bytes in all")
    typer.echo(
        f"decode: {result.lines:,} lines, nothing escaped ({result.lines_per_second:,.0f} lines/s)"
    )


@app.command("sandbox")
def sandbox_command(
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the layers as a JSON list on stdout.")
    ] = False,
) -> None:
    """Probe this machine's sandbox: each layer, whether it works here and why not, and what
    it protects. A real sandboxed child tries what each layer forbids.

    Exits 0 when every layer a competition needs works (--sandbox strict would start), 1 if
    not.
    """
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from referee.sandbox.layers import REQUIRED
    from referee.sandbox.probe import doctor

    rows = doctor()
    ready = all(row.works for row in rows if row.layer in REQUIRED)
    if json_output:
        typer.echo(json_text({"strict_ready": ready, "layers": rows}))
    else:
        table = Table(title="Sandbox layers on this machine", header_style="bold")
        for column in ("layer", "works", "detail", "protects"):
            table.add_column(column)
        for row in rows:
            table.add_row(
                row.layer,
                "[green]yes[/]" if row.works else "[red]no[/]",
                escape(row.detail),
                escape(row.protects),
            )
        Console(soft_wrap=False).print(table)
        typer.echo("--sandbox strict: ready" if ready else "--sandbox strict would refuse to start")
    raise typer.Exit(0 if ready else 1)


@app.command("schema")
def schema_command(
    check: Annotated[
        bool, typer.Option("--check", help="Only check that the files are up to date.")
    ] = False,
) -> None:
    """Write the JSON Schemas of the protocol and the replay log, and the example transcript
    (from a real match), into protocol/."""
    from referee.schema import PROTOCOL_DIR, SCHEMA_FILES, render
    from referee.transcript import TRANSCRIPT, transcript, untimed

    files = {PROTOCOL_DIR / name: render(make()).encode() for name, make in SCHEMA_FILES.items()}
    files[TRANSCRIPT] = transcript()
    stale = []
    for path, content in files.items():
        if path.exists() and untimed(path.read_bytes()) == untimed(content):
            continue  # (the schemas hold no time_ms: for them this is a plain comparison)
        stale.append(path.name)
        if not check:
            path.write_bytes(content)
            typer.echo(f"wrote {path}")
    if check and stale:
        raise _fail(f"stale: {', '.join(stale)}; run 'referee schema' to regenerate")
