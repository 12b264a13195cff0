"""Options and checks shared by the commands: the match limits and the sandbox options are
declared here once, from the settings' own definitions (defaults, bounds, choices)."""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, cast, get_args

import msgspec
import typer

from referee.cli.exits import USAGE
from referee.rules.tiles import Seat
from referee.settings import FaultPolicy, MatchLimits, SandboxMode, SandboxSettings
from referee.terminal.escapes import shown

if TYPE_CHECKING:
    from referee.sandbox.policy import SandboxPlan


def _members(literal: Any) -> list[tuple[str, str]]:
    return [(value, value) for value in get_args(literal)]


# Typer reads a choice from an enum, not from a Literal: each enum is made from its Literal,
# so the values are written once. (mypy cannot see members made this way; the defaults are
# therefore ``DEFAULT_SANDBOX_MODE``, never ``Sandbox.auto``.)
OnFault = StrEnum("OnFault", _members(FaultPolicy))  # type: ignore[misc]
Sandbox = StrEnum("Sandbox", _members(SandboxMode))  # type: ignore[misc]
SeatName = StrEnum("SeatName", _members(Seat))  # type: ignore[misc]


def fault_policy_of(choice: OnFault) -> FaultPolicy:
    """The policy an ``--on-fault`` choice names (its value, typed as the Literal it is)."""
    return cast("FaultPolicy", choice.value)


def sandbox_mode_of(choice: Sandbox) -> SandboxMode:
    """The mode a ``--sandbox`` choice names."""
    return cast("SandboxMode", choice.value)


def seat_of(choice: SeatName) -> Seat:
    """The seat a ``--seat`` choice names."""
    return cast("Seat", choice.value)


#: The limits a match is played under when no option says otherwise.
DEFAULT_LIMITS: Final = MatchLimits()
DEFAULT_SANDBOX: Final = SandboxSettings()
#: The choices' defaults as the enums typer reads (a parameter's default is a constant).
DEFAULT_ON_FAULT: Final = OnFault(DEFAULT_LIMITS.on_fault)
DEFAULT_SANDBOX_MODE: Final = Sandbox(DEFAULT_SANDBOX.mode)


def bundled_bot(name: str) -> str:
    from referee.match.runner import BUNDLED_BOTS

    path = BUNDLED_BOTS / name
    if not path.exists():
        raise fail(
            f"the bundled bots are missing ({path}): reinstall the referee, or pass bot commands"
        )
    return shlex.join([sys.executable, str(path)])


def seconds(low: float, high: float) -> Any:
    """A check of seconds from ``low`` to ``high``: typer's own range check lets NaN through
    and then calls it too large (every comparison with NaN is false)."""

    def check(value: float | None) -> float | None:
        if value is not None and not low <= value <= high:
            raise typer.BadParameter(f"give seconds from {low:g} to {high:g}, not {value}")
        return value

    return check


def fail(message: str) -> typer.Exit:
    # One line, escaped: it can quote a log's or a results file's contents, or a bot's words.
    typer.echo(f"referee: {shown(message)}", err=True)
    return typer.Exit(USAGE)


def new_log(log: Path | None) -> Path:
    """The log a match will write, made now (empty, private): exit 2 with one line for a name
    that is no file's, a log that exists (never overwritten) or one that cannot be written."""
    from referee.files import private_directory, private_file
    from referee.match.runner import default_log_path

    if log is not None and (not str(log).strip() or log.is_dir()):
        raise fail(f"--log {str(log)!r}: give the log file's name, e.g. --log matches/m1.jsonl")
    log_path = log or default_log_path()
    if log_path.exists():
        raise fail(f"{log_path} already exists: choose another --log or remove it")
    try:
        private_directory(log_path.parent)
        private_file(log_path).close()  # a log that cannot be written is a usage mistake
    except OSError as exc:
        raise fail(f"cannot write the log {log_path}: {exc.strerror or exc}") from None
    return log_path


SANDBOX_HELP = (
    "auto: every sandbox layer this machine has (one line says which); strict: refuse to start"
    " without the layers a competition needs; off: bots run as you, in their own process group."
)
ALLOW_HELP = "A file or directory every bot may read (repeat), e.g. a model file or a library."
ENV_HELP = (
    "An environment variable passed to sandboxed bots (repeat), beyond the fixed list every"
    " bot gets (protocol/PROTOCOL.md, 'Processes and the sandbox')."
)


#: The sandbox options, the same on every command that starts bots (``sandbox: SandboxOption
#: = DEFAULT_SANDBOX_MODE``).
SandboxOption = Annotated[Sandbox, typer.Option(help=SANDBOX_HELP)]
AllowOption = Annotated[
    list[Path] | None, typer.Option(metavar="PATH", help=ALLOW_HELP, show_default=False)
]
#: The match seed and the log's path, on every command that plays a match (``match``,
#: ``play``).
SeedOption = Annotated[
    int | None,
    typer.Option(min=0, max=2**64 - 1, help="Match seed: first dealer and every deal."),
]
LogOption = Annotated[
    Path | None,
    typer.Option(help="Replay log path (JSON lines). Default: a new file under ./matches/."),
]
#: ``--debug`` on every command that talks to bots (``match.trace.WireTrace``).
DebugOption = Annotated[
    bool,
    typer.Option(
        "--debug",
        help="Print every line to (>>) and from (<<) each bot, and each line of its stderr"
        " (2>), as it happens, with the seat and the seconds since the start, on stderr.",
    ),
]
EnvOption = Annotated[
    list[str] | None, typer.Option(metavar="NAME", help=ENV_HELP, show_default=False)
]
#: How many matches at once, and where: the options of every command that plays many
#: (``tournament``, ``league run``).
JobsOption = Annotated[
    int | None, typer.Option(min=1, help="Matches at once. Default: one per core.")
]
DaskOption = Annotated[
    str | None,
    typer.Option(
        metavar="ADDRESS",
        help="Run on a Dask cluster: a scheduler address, or 'local' to start one.",
    ),
]
FreshBotsOption = Annotated[
    bool,
    typer.Option(
        "--fresh-bots",
        help="Start every bot afresh for each match, even those that can play many"
        " (by default their processes are kept between matches).",
    ),
]


def sandbox_settings(
    mode: Sandbox, allow: list[Path] | None, env: list[str] | None
) -> SandboxSettings:
    """The sandbox options as settings; exit 2 for an allowed path that does not exist."""
    missing = [str(path) for path in allow or [] if not path.exists()]
    if missing:
        raise fail(f"--sandbox-allow {missing[0]}: no such file or directory")
    return SandboxSettings(
        mode=sandbox_mode_of(mode),
        allow=tuple(str(path.resolve()) for path in allow or []),
        env=tuple(env or []),
    )


def check_commands(commands: dict[Seat, str]) -> None:
    """Exit 2 with one line when a bot command cannot even start."""
    from referee.match.commands import problem

    for seat, command in commands.items():
        why = problem(command)
        if why is not None:
            raise fail(f"seat {seat}: {why}")


def sandbox_plan(
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

    settings = sandbox_settings(mode, allow, env)
    try:
        sandbox = plan(settings, limits, commands, secrets)
    except SandboxRefused as exc:
        raise fail(str(exc)) from None
    typer.echo(sandbox.report.summary(), err=True)
    return sandbox


@dataclass(frozen=True)
class LimitOption:
    """A match limit as an option: the ``MatchLimits`` field it sets and what its help says;
    its default, bounds and choices are the field's own."""

    field: str
    help: str
    #: The help of the tournament's form, one line; ``{default}`` is replaced by the default.
    brief: str
    metavar: str | None = None


#: Every match limit a command offers, by the option's name (``--memory-limit`` sets
#: ``memory_mb``), in the order ``referee match --help`` lists them.
LIMIT_OPTIONS: Final = {
    "move_timeout": LimitOption(
        "move_timeout", "Seconds per decision.", "Seconds per decision.", "S"
    ),
    "startup_timeout": LimitOption(
        "startup_timeout", "Seconds to answer hello.", "Seconds to answer hello.", "S"
    ),
    "time_bank": LimitOption(
        "time_bank",
        "Extra seconds per seat for the match, spent on overruns.",
        "Extra seconds per seat and match.",
        "S",
    ),
    "max_rejections": LimitOption(
        "max_rejections",
        "The Nth refused answer to one decision is a fault.",
        "The Nth refused answer is a fault.",
    ),
    "on_fault": LimitOption(
        "on_fault",
        "forfeit: a fault loses the match. random: a seeded random legal action is played for"
        " the seat and a strike recorded.",
        "forfeit or random.",
    ),
    "max_strikes": LimitOption(
        "max_strikes",
        "Strikes allowed under --on-fault random; the next forfeits.",
        "Strikes allowed under random.",
    ),
    "max_hands": LimitOption(
        "max_hands",
        "End the match unfinished after this many hands.",
        "Hands before a match is unfinished.",
    ),
    "max_line_bytes": LimitOption(
        "max_line_bytes",
        "Longest line a bot may send; longer is a fault.",
        "Longest line a bot may send ({default}).",
    ),
    "memory_limit": LimitOption(
        "memory_mb",
        "MiB of memory per seat (sandbox bound).",
        "MiB of memory per seat ({default}).",
        "MIB",
    ),
    "scratch_limit": LimitOption(
        "scratch_mb",
        "MiB of scratch space per seat (sandbox bound).",
        "MiB of scratch per seat ({default}).",
        "MIB",
    ),
    "cpu_limit": LimitOption(
        "cpu_seconds",
        "CPU seconds per bot process (sandbox bound).",
        "CPU seconds per bot process ({default}).",
        "S",
    ),
    "max_processes": LimitOption(
        "max_processes",
        "Processes and threads per seat's tree (sandbox bound).",
        "Processes per seat's tree ({default}).",
        "N",
    ),
}

#: Limits are logged in milliseconds: "more than 0 seconds" starts at one.
_MILLISECOND: Final = 0.001


def limit_bounds(field: str) -> tuple[Any, Any]:
    """(lowest, highest) value of a ``MatchLimits`` field, from its ``msgspec.Meta``."""
    struct = msgspec.inspect.type_info(MatchLimits)
    assert isinstance(struct, msgspec.inspect.StructType)
    kind = next(f.type for f in struct.fields if f.name == field)
    assert isinstance(kind, msgspec.inspect.IntType | msgspec.inspect.FloatType), kind
    assert kind.lt is None and kind.le is not None, kind  # every bounded limit says its top
    step = 1 if isinstance(kind, msgspec.inspect.IntType) else _MILLISECOND
    return (kind.ge if kind.gt is None else kind.gt + step), kind.le


def limit_option(name: str, *, optional: bool = False, logged: bool = False) -> Any:
    """The typer option of match limit ``name`` (a key of ``LIMIT_OPTIONS``); its parameter's
    default is the field's, ``DEFAULT_LIMITS.<field>``. ``optional``: the tournament's form,
    whose parameter defaults to None (its configuration may set the limit) with the brief
    help. ``logged``: the form of a command that replays a log, whose parameter defaults to
    None too (the logged match's limit stands)."""
    option = LIMIT_OPTIONS[name]
    default = getattr(DEFAULT_LIMITS, option.field)
    text = option.brief.format(default=default) if optional else option.help
    if logged:
        text = f"{option.help} Default: the logged match's."
    if isinstance(default, str):  # a choice: an enum made from the field's Literal
        return typer.Option(metavar=option.metavar, help=text)
    low, high = limit_bounds(option.field)
    if isinstance(default, float):
        return typer.Option(metavar=option.metavar, callback=seconds(low, high), help=text)
    return typer.Option(min=low, max=high, metavar=option.metavar, help=text)


def limit_fields(**options: Any) -> dict[str, Any]:
    """The ``MatchLimits`` fields the given limit options set, by field name; options that
    are None (not given) are left out, a choice becomes its value."""
    return {
        LIMIT_OPTIONS[name].field: value.value if isinstance(value, StrEnum) else value
        for name, value in options.items()
        if value is not None
    }


#: The limit options, each a parameter's type: ``move_timeout: MoveTimeout =
#: DEFAULT_LIMITS.move_timeout`` (the tournament's form: ``Annotated[float | None,
#: limit_option("move_timeout", optional=True)] = None``).
MoveTimeout = Annotated[float, limit_option("move_timeout")]
StartupTimeout = Annotated[float, limit_option("startup_timeout")]
TimeBank = Annotated[float, limit_option("time_bank")]
MaxRejections = Annotated[int, limit_option("max_rejections")]
OnFaultOption = Annotated[OnFault, limit_option("on_fault")]
MaxStrikes = Annotated[int, limit_option("max_strikes")]
MaxHands = Annotated[int, limit_option("max_hands")]
MaxLineBytes = Annotated[int, limit_option("max_line_bytes")]
MemoryLimit = Annotated[int, limit_option("memory_limit")]
ScratchLimit = Annotated[int, limit_option("scratch_limit")]
CpuLimit = Annotated[int, limit_option("cpu_limit")]
MaxProcesses = Annotated[int, limit_option("max_processes")]
