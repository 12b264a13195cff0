"""``referee tournament``: settings from options or a TOML file, the live display, the end."""

from __future__ import annotations

import math
import secrets
import signal
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import msgspec
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table

from referee.display import progress_bar
from referee.errors import SandboxRefused
from referee.files import private_directory
from referee.match.commands import problem
from referee.rules.deal import check_seed
from referee.rules.tiles import SEATS
from referee.sandbox.policy import plan as plan_sandbox
from referee.settings import MatchLimits, SandboxMode, SandboxSettings
from referee.terminal import json_text, markup
from referee.tournament.plan import (
    Entrant,
    Format,
    MatchJob,
    TournamentSettings,
    check_entrants,
    plan,
)
from referee.tournament.results import MatchResult, ResultsFile, read_results, refuse_used_logs
from referee.tournament.run import dask_executor, default_jobs, local_executor, run_jobs
from referee.tournament.standings import Sprt, Standings, pair_scores, standings


class TournamentError(ValueError):
    """Settings that cannot make a tournament; the message says what to fix."""


@dataclass
class Options:
    """The command's options, each None when not given (the TOML file or a default fills it)."""

    config: Path | None = None
    bots: list[str] | None = None
    seeds: int | None = None
    seed: int | None = None
    format: str | None = None
    jobs: int | None = None
    results: Path | None = None
    logs: Path | None = None
    resume: bool = False
    dask: str | None = None
    sprt: str | None = None
    alpha: float | None = None
    beta: float | None = None
    json_output: bool = False
    limits: dict[str, Any] | None = None
    sandbox: SandboxMode | None = None
    sandbox_allow: list[Path] | None = None
    sandbox_env: list[str] | None = None
    fresh_bots: bool = False
    #: Write the HTML report (and each match's viewer page) beside the results at the end.
    report: bool = False


class FileConfig(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What a tournament TOML file may hold; every value is checked as it is read."""

    bot: list[Entrant] = msgspec.field(default_factory=list)
    seeds: Annotated[int, msgspec.Meta(ge=1)] | None = None
    seed: Annotated[int, msgspec.Meta(ge=0)] | None = None  # at most 2**64-1: checked after
    format: Format | None = None
    jobs: Annotated[int, msgspec.Meta(ge=1)] | None = None
    results: str | None = None
    logs: str | None = None
    dask: str | None = None
    sprt: str | None = None
    alpha: Annotated[float, msgspec.Meta(gt=0, lt=1)] | None = None
    beta: Annotated[float, msgspec.Meta(gt=0, lt=1)] | None = None
    match: dict[str, Any] = msgspec.field(default_factory=dict)
    sandbox: SandboxMode | None = None
    sandbox_allow: list[str] = msgspec.field(default_factory=list)
    sandbox_env: list[str] = msgspec.field(default_factory=list)
    fresh_bots: bool = False
    report: bool = False


def _config(path: Path | None) -> FileConfig:
    if path is None:
        return FileConfig()
    try:
        with path.open("rb") as stream:
            data = tomllib.load(stream)
    except OSError as exc:
        raise TournamentError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise TournamentError(f"{path} is not valid TOML: {exc}") from None
    try:
        return msgspec.convert(data, FileConfig)
    except msgspec.ValidationError as exc:
        raise TournamentError(f"{path}: {exc}") from None


def _entrants(bots: list[str] | None, config: FileConfig) -> list[Entrant]:
    if not bots:
        return config.bot
    entrants = []
    for bot in bots:
        name, sep, command = bot.partition("=")
        if not sep or not command.strip():
            raise TournamentError(f"--bot {bot!r}: write NAME=COMMAND")
        entrants.append(Entrant(name=name.strip(), command=command.strip()))
    return entrants


def _first(*values: Any) -> Any:
    """The first value given (None means not given: 0 and False are values)."""
    return next((value for value in values if value is not None), None)


def settings_of(options: Options) -> tuple[TournamentSettings, dict[str, Any]]:
    """The tournament's settings, and the rest of the configuration (paths, jobs, SPRT):
    command-line options first, then the TOML file, then the defaults."""
    config = _config(options.config)
    entrants = _entrants(options.bots, config)
    fmt = _first(options.format, config.format, "round-robin")
    if fmt not in ("round-robin", "gauntlet"):
        raise TournamentError(f"format {fmt!r}: use round-robin or gauntlet")
    try:
        check_entrants(entrants)
    except ValueError as exc:
        raise TournamentError(str(exc)) from None
    if _first(options.dask, config.dask) is None:  # Dask workers run bots from their own paths
        for entrant in entrants:
            why = problem(entrant.command)
            if why is not None:
                raise TournamentError(f"entrant {entrant.name}: {why}")
    seeds = _first(options.seeds, config.seeds)
    if seeds is None:
        raise TournamentError("give the number of deal seeds: --seeds N (N >= 1)")
    results = Path(_first(options.results, config.results, "tournament/results.jsonl"))
    seed = _first(options.seed, config.seed)
    if seed is None and options.resume and results.exists():
        try:
            seed = read_results(results)[0].settings.seed  # resume the tournament in the file
        except OSError as exc:
            raise TournamentError(f"{exc.filename}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise TournamentError(str(exc)) from None
    if seed is None:
        seed = secrets.randbits(64)
    try:
        check_seed(seed)
    except ValueError as exc:
        raise TournamentError(f"tournament seed: {exc}") from None
    try:
        limits = msgspec.convert({**config.match, **(options.limits or {})}, MatchLimits)
    except msgspec.ValidationError as exc:
        raise TournamentError(f"match options: {exc}") from None
    settings = TournamentSettings(
        entrants=entrants, seeds=seeds, seed=seed, format=fmt, limits=limits
    )
    rest = {
        "results": results,
        "logs": Path(_first(options.logs, config.logs, results.parent / "logs")),
        "jobs": _first(options.jobs, config.jobs, default_jobs()),
        "dask": _first(options.dask, config.dask),
        "sprt": _first(options.sprt, config.sprt),
        "alpha": _probability("alpha", _first(options.alpha, config.alpha, 0.05)),
        "beta": _probability("beta", _first(options.beta, config.beta, 0.05)),
        "sandbox": _sandbox_settings(options, config),
        "warm": not (options.fresh_bots or config.fresh_bots),
        "report": options.report or config.report,
    }
    return settings, rest


def _probability(name: str, value: float) -> float:
    if not 0 < value < 1:  # NaN too
        raise TournamentError(f"--{name} {value}: a probability between 0 and 1, e.g. 0.05")
    return value


def _sandbox_settings(options: Options, config: FileConfig) -> SandboxSettings:
    allow = [*config.sandbox_allow, *(str(path) for path in options.sandbox_allow or [])]
    missing = [path for path in allow if not Path(path).exists()]
    if missing:
        raise TournamentError(f"sandbox allow {missing[0]}: no such file or directory")
    mode = _first(options.sandbox, config.sandbox, "auto")
    return SandboxSettings(
        mode=mode,
        allow=tuple(str(Path(path).resolve()) for path in allow),
        env=(*config.sandbox_env, *(options.sandbox_env or [])),
    )


def _decide_sandbox(
    settings: TournamentSettings, rest: dict[str, Any]
) -> tuple[SandboxSettings, list[str]]:
    """The sandbox, and what to say of it: one line per distinct sandbox the entrants' bots
    get (usually one). Refused here, before any file is made, when a protection is missing
    under ``--sandbox strict``, or a bot could read the logs or the results."""
    sandbox: SandboxSettings = rest["sandbox"]
    secrets = [Path(rest["logs"]), Path(rest["results"])]
    lines: dict[str, list[str]] = {}
    said: list[str] = []
    for entrant in settings.entrants:
        try:
            decided = plan_sandbox(
                sandbox, settings.limits, dict.fromkeys(SEATS, entrant.command), secrets
            )
        except SandboxRefused as exc:
            raise TournamentError(f"{entrant.name}: {exc}") from None
        summary = decided.report.summary().replace("for A, B, C, D", "").replace("  ", " ")
        lines.setdefault(summary, []).append(entrant.name)
    for summary, names in lines.items():
        who = f" ({', '.join(names)})" if len(lines) > 1 else ""
        said.insert(0, summary.replace(":", who + ":", 1))
    return sandbox, said


def sprt_of(text: str | None, alpha: float, beta: float, entrants: int | None) -> Sprt | None:
    """The test ``--sprt ELO0,ELO1`` asks for (``entrants``: how many there are, when known)."""
    if text is None:
        return None
    if entrants is not None and entrants != 2:
        raise TournamentError("--sprt compares exactly two entrants")
    try:
        elo0, elo1 = (float(part) for part in str(text).split(","))
    except ValueError:
        raise TournamentError(f"--sprt {text!r}: write ELO0,ELO1, e.g. 0,10") from None
    if not (math.isfinite(elo0) and math.isfinite(elo1)) or not elo0 < elo1:
        raise TournamentError("--sprt needs finite ELO0 < ELO1, e.g. 0,10")
    if not 0 < alpha < 1 or not 0 < beta < 1 or alpha + beta >= 1:
        raise TournamentError(
            "--sprt needs 0 < alpha, beta and alpha + beta < 1 (else its bounds cross)"
        )
    return Sprt(elo0, elo1, alpha, beta)


def run(options: Options) -> int:
    """Run the tournament; return the exit status."""
    err = Console(stderr=True, soft_wrap=True, emoji=False)  # names and errors: ``markup``
    settings, rest = settings_of(options)
    sprt = sprt_of(rest["sprt"], rest["alpha"], rest["beta"], len(settings.entrants))
    sandbox, said = _decide_sandbox(settings, rest)  # strict refuses before any file is made
    try:
        private_directory(Path(rest["logs"]))
        results_path = Path(rest["results"])
        if not results_path.exists() or results_path.stat().st_size == 0:  # a new tournament
            refuse_used_logs(plan(settings, rest["logs"]))
        results_file = ResultsFile.open(rest["results"], settings, options.resume)
    except OSError as exc:
        raise TournamentError(f"{exc.filename}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise TournamentError(str(exc)) from None
    for line in said:
        err.print(markup(line))
    names = [entrant.name for entrant in settings.entrants]
    if not rest["dask"] and rest["jobs"] > default_jobs():
        err.print(
            f"warning: --jobs {rest['jobs']} on {default_jobs()} cores: bots will wait for the"
            " CPU and may time out through no fault of their own"
        )
    jobs = plan(settings, rest["logs"], sandbox, (str(rest["results"]),), rest["warm"])
    missing = [job for job in jobs if job.match_id not in results_file.done]
    results = list(results_file.done.values())
    verdict: dict[str, Any] = {}

    def decided() -> bool:
        """Update the SPRT from the results so far; True once it has decided."""
        if sprt is None:
            return False
        if verdict.get("verdict", "continue") == "continue":
            llr = sprt.llr(pair_scores(results, names[0]))
            verdict.update(llr=llr, verdict=sprt.verdict(llr))
        return bool(verdict["verdict"] != "continue")

    if decided():
        missing = []  # a resumed tournament the test has already decided plays no more

    progress = progress_bar("matches", err)
    task = progress.add_task("matches", total=len(jobs), completed=len(results))
    shown = [0.0]

    def view() -> Group:
        return Group(progress, _standings_table(standings(names, results), live=True))

    def on_result(result: MatchResult) -> bool:
        results_file.append(result)
        results.append(result)
        progress.advance(task)
        now = time.monotonic()
        if now - shown[0] >= 1.0:  # ratings are recomputed for the display once a second
            shown[0] = now
            live.update(view())
        return not decided()

    failed: set[str] = set()

    def on_error(job: MatchJob, error: BaseException) -> None:
        failed.add(job.match_id)
        err.print(
            f"match {markup(job.match_id)} failed: {type(error).__name__}: {markup(str(error))}"
        )

    def on_retry(job: MatchJob, error: BaseException, attempt: int) -> None:
        err.print(
            f"match {markup(job.match_id)}: {markup(str(error))};"
            f" playing it again (attempt {attempt})"
        )

    executor = (
        dask_executor(rest["dask"], rest["jobs"]) if rest["dask"] else local_executor(rest["jobs"])
    )
    interrupted = False
    signalled = [signal.SIGINT]

    def terminate(signum: int, frame: object) -> None:
        """SIGTERM and SIGHUP end the tournament as Ctrl-C does: standings, how to resume."""
        signalled[0] = signal.Signals(signum)
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, terminate) for sig in (signal.SIGTERM, signal.SIGHUP)}
    with Live(view(), console=err, refresh_per_second=4, transient=True) as live:
        try:
            with executor as (pool, slots):
                run_jobs(
                    pool,
                    missing,
                    window=2 * slots,
                    on_result=on_result,
                    on_error=on_error,
                    on_retry=on_retry,
                )
        except KeyboardInterrupt:
            interrupted = True
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    results_file.close()
    table = standings(names, results)
    for row in table.standings:
        if row.matches and row.never_started >= 2 * row.matches:  # no bot of it ever started
            err.print(
                f"warning: entrant {markup(row.name)} never started: none of its bots became"
                " ready in any match; try its command with 'referee check-bot'"
            )
    if options.json_output:
        document = {
            "results": str(rest["results"]),
            "matches": len(results),
            "planned": len(jobs),
            **msgspec.to_builtins(table),
        }
        if sprt is not None:
            document["sprt"] = {
                "elo0": sprt.elo0,
                "elo1": sprt.elo1,
                "alpha": sprt.alpha,
                "beta": sprt.beta,
                "lower": sprt.lower,
                "upper": sprt.upper,
                "pairs": len(pair_scores(results, names[0])),
                **verdict,
            }
        sys.stdout.write(json_text(document) + "\n")
    else:
        out = Console(soft_wrap=True, emoji=False)
        out.print(_standings_table(table, live=False))
        out.print(_head_to_head(table, names))
        if sprt is not None and verdict:
            out.print(
                f"SPRT [{sprt.elo0:g}, {sprt.elo1:g}] alpha={sprt.alpha:g} beta={sprt.beta:g}:"
                f" LLR {verdict['llr']:.2f} (bounds {sprt.lower:.2f}, {sprt.upper:.2f})"
                f" → {verdict['verdict']}"
            )
        out.print(f"results: {markup(str(rest['results']))}; logs: {markup(str(rest['logs']))}")
    if rest["report"] and results:
        _report(Path(rest["results"]), sprt, err)
    if interrupted:
        err.print(
            f"interrupted: {len(results)} of {len(jobs)} matches recorded; run the same command"
            " with --resume to play the rest"
        )
        return 128 + signalled[0]
    # Not played: what the referee failed on or gave up; and, unless the SPRT has decided (then
    # no more are played), every match left over, e.g. when the executor refused work.
    stopped = verdict.get("verdict", "continue") != "continue"
    left = [job.match_id for job in jobs if job.match_id not in results_file.done]
    left = [match_id for match_id in left if match_id in failed or not stopped]
    if left:
        listed = ", ".join(left[:20]) + (f" and {len(left) - 20} more" if len(left) > 20 else "")
        retry = (
            "the SPRT has decided, so --resume plays no more"
            if stopped
            else "run the same command with --resume to retry them"
        )
        err.print(f"{len(left)} of {len(jobs)} matches not played: {markup(listed)}; {retry}")
        return 1
    return 0


def _report(results: Path, sprt: Sprt | None, err: Console) -> None:
    from referee.pages.report_command import write_report

    try:
        written = write_report(results, None, sprt, err)
    except OSError as exc:
        err.print(f"no report: cannot write {markup(str(exc.filename))}: {exc.strerror}")
        return
    except ValueError as exc:  # the results file changed under us, or a page would replace it
        err.print(f"no report: {markup(str(exc))}")
        return
    err.print(f"report: {markup(str(written.report))}")
    for line in written.missing_lines():
        err.print(markup(line))


def _standings_table(table: Standings, live: bool) -> Table:
    grid = Table(title=None if live else "Standings", header_style="bold")
    columns = (
        "entrant", "matches", "wins", "unfinished", "win rate (95% CI)", "marks ±", "rating",
        "faults", "forfeits",
    )  # fmt: skip
    for column in columns:
        grid.add_column(column, justify="left" if column == "entrant" else "right")
    for row in table.standings:
        grid.add_row(
            markup(row.name),
            str(row.matches),
            str(row.wins),
            str(row.unfinished),
            f"{row.win_rate:.1%} ({row.win_rate_low:.1%} to {row.win_rate_high:.1%})",
            f"{row.mark_difference:+d}",
            f"{row.rating:.1f} ± {row.rating_sigma:.1f}",
            str(row.faults),
            str(row.forfeits),
        )
    return grid


def _head_to_head(table: Standings, names: list[str]) -> Table:
    grid = Table(title="Head to head (row's score against column)", header_style="bold")
    grid.add_column("")
    for name in names:
        grid.add_column(markup(name), justify="right")
    for row in names:
        cells = []
        for column in names:
            if row == column:
                cells.append("—")
                continue
            played = table.head_to_head_matches[row][column]
            score = table.head_to_head[row][column]
            cells.append(f"{score:g}/{played}" if played else "")
        grid.add_row(markup(row), *cells)
    return grid
