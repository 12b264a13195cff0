"""A tournament's configuration: the options a TOML file or the command line gives (the same
keys; the command line wins), checked and resolved once into a typed ``TournamentConfig``.

Every default and every check is here, so the driver only reads fields and a mistake is
refused in one line before any file is made.
"""

from __future__ import annotations

import math
import secrets
import tomllib
from pathlib import Path
from typing import Annotated, Any

import msgspec

from referee.apart.placement import Apart, misuse
from referee.match.commands import problem, resolved
from referee.rules.deal import check_seed
from referee.running.executors import default_jobs
from referee.running.jobs import Entrant
from referee.running.results import Format, TournamentSettings, read_results
from referee.settings import (
    FINAL_LIMITS,
    FINAL_SANDBOX,
    MatchLimits,
    SandboxMode,
    SandboxSettings,
)
from referee.tournament.plan import check_entrants
from referee.tournament.sprt import Sprt

#: Where the results go when neither the file nor the command line says.
DEFAULT_RESULTS = "tournament/results.jsonl"


class TournamentError(ValueError):
    """Settings that cannot make a tournament; the message says what to fix."""


class TournamentOptions(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What a tournament TOML file may hold, and what the command line gives on top of it:
    each value None (or empty) when not given. Read from a file, every value is checked as it
    is read, and an unknown key is refused."""

    bot: list[Entrant] = msgspec.field(default_factory=list)
    seeds: Annotated[int, msgspec.Meta(ge=1)] | None = None
    seed: Annotated[int, msgspec.Meta(ge=0)] | None = None  # at most 2**64-1: checked after
    format: Format | None = None
    jobs: Annotated[int, msgspec.Meta(ge=1)] | None = None
    results: str | None = None
    logs: str | None = None
    dask: str | None = None
    #: Each seat of a match on a Dask worker of its own (``--seats-apart``): partners on
    #: different hosts (``hosts``), or only on different workers (``workers``, a trial).
    seats_apart: Apart | None = None
    sprt: str | None = None
    alpha: Annotated[float, msgspec.Meta(gt=0, lt=1)] | None = None
    beta: Annotated[float, msgspec.Meta(gt=0, lt=1)] | None = None
    #: Match limits by ``MatchLimits``'s field names; checked when the layers are merged.
    match: dict[str, Any] = msgspec.field(default_factory=dict)
    sandbox: SandboxMode | None = None
    sandbox_allow: list[str] = msgspec.field(default_factory=list)
    sandbox_env: list[str] = msgspec.field(default_factory=list)
    sandbox_private_root: bool | None = None
    fresh_bots: bool = False
    #: A final on one machine (``--final``): the limits and sandbox of ``FINAL_LIMITS`` and
    #: ``FINAL_SANDBOX``, fresh bots.
    final: bool = False
    report: bool = False


class TournamentConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a tournament runs with, checked and with every default filled in."""

    #: The entrants, seeds, format and match limits: the results file's header.
    settings: TournamentSettings
    results: Path
    logs: Path
    #: Matches at once (on a Dask cluster: the workers of a ``local`` one).
    jobs: int
    #: A Dask scheduler's address, or ``local``; None plays in worker processes here.
    dask: str | None = None
    #: Seats apart on the cluster's workers: ``hosts`` or ``workers`` (None: whole matches
    #: on workers).
    seats_apart: Apart | None = None
    #: The sequential test that may stop the tournament early.
    sprt: Sprt | None = None
    sandbox: SandboxSettings = SandboxSettings()
    #: Keep the processes of bots that can play many matches (not ``--fresh-bots``).
    warm: bool = True
    #: Write the HTML report (and each match's viewer page) beside the results at the end.
    report: bool = False
    #: Play only the matches missing from an existing results file.
    resume: bool = False


def read_options(path: Path) -> TournamentOptions:
    """The options in a TOML file."""
    try:
        with path.open("rb") as stream:
            data = tomllib.load(stream)
    except OSError as exc:
        raise TournamentError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise TournamentError(f"{path} is not valid TOML: {exc}") from None
    try:
        return msgspec.convert(data, TournamentOptions)
    except msgspec.ValidationError as exc:
        raise TournamentError(f"{path}: {exc}") from None


def _first(*values: Any) -> Any:
    """The first value given (None means not given: 0 and False are values)."""
    return next((value for value in values if value is not None), None)


def configure(
    given: TournamentOptions, file: Path | None = None, resume: bool = False
) -> TournamentConfig:
    """The configuration: the options ``given`` (the command line's) first, then those of the
    TOML ``file``, then the defaults; ``resume`` without a seed takes the results file's."""
    config = read_options(file) if file is not None else TournamentOptions()
    # As they will run: a bundled bot's name resolved, so the results and logs record it.
    entrants = [
        msgspec.structs.replace(entrant, command=resolved(entrant.command))
        for entrant in given.bot or config.bot
    ]
    fmt = _first(given.format, config.format, "round-robin")
    if fmt not in ("round-robin", "gauntlet"):
        raise TournamentError(f"format {fmt!r}: use round-robin or gauntlet")
    try:
        check_entrants(entrants)
    except ValueError as exc:
        raise TournamentError(str(exc)) from None
    dask = _first(given.dask, config.dask)
    seats_apart = _first(given.seats_apart, config.seats_apart)
    if (misused := misuse(dask, seats_apart)) is not None:
        raise TournamentError(misused)
    if dask in (None, "local"):  # other Dask workers run bots from their own paths (cluster.py)
        for entrant in entrants:
            why = problem(entrant.command)
            if why is not None:
                raise TournamentError(f"entrant {entrant.name}: {why}")
    seeds = _first(given.seeds, config.seeds)
    if seeds is None:
        raise TournamentError("give the number of deal seeds: --seeds N (N >= 1)")
    results = Path(_first(given.results, config.results, DEFAULT_RESULTS))
    seed = _seed(_first(given.seed, config.seed), results, resume)
    final = given.final or config.final
    match = (
        _final_match({**config.match, **given.match}) if final else {**config.match, **given.match}
    )
    try:
        limits = msgspec.convert(match, MatchLimits)
    except msgspec.ValidationError as exc:
        raise TournamentError(f"match options: {exc}") from None
    alpha = _probability("alpha", _first(given.alpha, config.alpha, 0.05))
    beta = _probability("beta", _first(given.beta, config.beta, 0.05))
    sandbox = _sandbox(given, config)
    if final:
        sandbox = _final_sandbox(sandbox)
    return TournamentConfig(
        settings=TournamentSettings(
            entrants=entrants, seeds=seeds, seed=seed, format=fmt, limits=limits
        ),
        results=results,
        logs=Path(_first(given.logs, config.logs, results.parent / "logs")),
        jobs=_first(given.jobs, config.jobs, default_jobs()),
        dask=dask,
        seats_apart=seats_apart,
        sprt=sprt_of(_first(given.sprt, config.sprt), alpha, beta, len(entrants)),
        sandbox=sandbox,
        # Seats apart are always fresh: each match makes its seats on its workers.
        warm=not (given.fresh_bots or config.fresh_bots or final or seats_apart),
        report=given.report or config.report,
        resume=resume,
    )


def _seed(seed: int | None, results: Path, resume: bool) -> int:
    """The tournament seed given; resuming, the results file's; else a random one."""
    if seed is None and resume and results.exists():
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
    return seed


def _probability(name: str, value: float) -> float:
    if not 0 < value < 1:  # NaN too
        raise TournamentError(f"--{name} {value}: a probability between 0 and 1, e.g. 0.05")
    return value


def _final_match(match: dict[str, Any]) -> dict[str, Any]:
    """A final's match limits over those given; ``TournamentError`` for one that says
    otherwise."""
    for field, value in FINAL_LIMITS.items():
        if match.get(field, value) != value:
            raise TournamentError(
                f"final: match option {field} = {match[field]!r}, but a final plays with"
                f" {field} = {value!r}: leave it out"
            )
    return {**match, **FINAL_LIMITS}


def _final_sandbox(sandbox: SandboxSettings) -> SandboxSettings:
    """A final's sandbox: ``strict`` and a root of its own per seat; any other mode asked
    for is refused (``auto``, the default, is taken as not asked)."""
    if sandbox.mode not in ("auto", FINAL_SANDBOX["mode"]):
        raise TournamentError(f"final: sandbox {sandbox.mode!r}, but a final plays strict")
    return msgspec.structs.replace(sandbox, **FINAL_SANDBOX)


def _sandbox(given: TournamentOptions, config: TournamentOptions) -> SandboxSettings:
    """The sandbox mode given; the allowed paths and variables of both, the file's first."""
    allow = [*config.sandbox_allow, *given.sandbox_allow]
    missing = [path for path in allow if not Path(path).exists()]
    if missing:
        raise TournamentError(f"sandbox allow {missing[0]}: no such file or directory")
    return SandboxSettings(
        mode=_first(given.sandbox, config.sandbox, "auto"),
        allow=tuple(str(Path(path).resolve()) for path in allow),
        env=(*config.sandbox_env, *given.sandbox_env),
        private_root=_first(given.sandbox_private_root, config.sandbox_private_root),
    )


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
