"""Options and checks shared by the commands: one line and exit 2 for a usage mistake, the
log a match writes, the bot commands and the sandbox they run in (the option groups are in
``cli.groups``)."""

from __future__ import annotations

import shlex
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, cast, get_args

import typer
import typer.core

from referee.cli.exits import USAGE
from referee.rules.tiles import Seat
from referee.settings import MatchLimits, SandboxSettings, field_types
from referee.terminal.escapes import shown

if TYPE_CHECKING:
    from referee.sandbox.policy import SandboxPlan


# Typer reads a choice from an enum, not from a Literal: the enum is made from the Literal, so
# the seats are written once. (mypy cannot see members made this way.)
SeatName = StrEnum("SeatName", [(seat, seat) for seat in get_args(Seat)])  # type: ignore[misc]


def seat_of(choice: SeatName) -> Seat:
    """The seat a ``--seat`` choice names."""
    return cast("Seat", choice.value)


def bundled_bot(name: str) -> str:
    """The command that runs the bundled bot ``name`` here (a default opponent)."""
    from referee.bundled import BOTS, BY_NAME

    path = BOTS / BY_NAME[name].file
    if not path.exists():
        raise fail(
            f"the bundled bots are missing ({path}): reinstall the referee, or pass bot commands"
        )
    return shlex.join(BY_NAME[name].argv())


def bot_commands(given: list[str]) -> list[str]:
    """The bot commands given, each as it will run (``bundled:NAME`` resolved): the log
    records these."""
    from referee.match.commands import resolved

    return [resolved(command) for command in given]


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


#: What ``--sandbox-env`` says of the environment a bot gets (its field's description).
ENV_HELP: Final = field_types(SandboxSettings)["env"][1]
#: The match seed, on every command that plays a match (``match``, ``play``).
SeedOption = Annotated[
    int | None,
    typer.Option(min=0, max=2**64 - 1, help="Match seed: first dealer and every deal."),
]


def sandbox_settings(given: dict[str, Any]) -> SandboxSettings:
    """The sandbox options given (``groups.sandbox_options``) as settings; exit 2 for an
    allowed path that does not exist."""
    allow = given.get("allow", [])
    missing = [path for path in allow if not Path(path).exists()]
    if missing:
        raise fail(f"--sandbox-allow {missing[0]}: no such file or directory")
    resolved = tuple(str(Path(path).resolve()) for path in allow)
    return SandboxSettings(**{**given, "allow": resolved, "env": tuple(given.get("env", []))})


def check_commands(commands: dict[Seat, str]) -> None:
    """Exit 2 with one line when a bot command cannot even start."""
    from referee.match.commands import problem

    for seat, command in commands.items():
        why = problem(command)
        if why is not None:
            raise fail(f"seat {seat}: {why}")


def sandbox_plan(
    sandbox: dict[str, Any],
    limits: MatchLimits,
    commands: dict[Seat, str],
    secrets: list[Path],
) -> SandboxPlan:
    """Decide the sandbox and say it on stderr in one line; exit 2 under ``strict`` when a
    protection is missing, and in any mode when a seat could read the referee's files."""
    from referee.errors import SandboxRefused
    from referee.sandbox.policy import plan

    settings = sandbox_settings(sandbox)
    try:
        planned = plan(settings, limits, commands, secrets)
    except SandboxRefused as exc:
        raise fail(str(exc)) from None
    typer.echo(planned.report.brief(), err=True)
    return planned


#: Options whose value may be left out, their values, and the one taken when it is
#: (``--seats-apart`` alone means ``--seats-apart=hosts``): typer cannot say it itself.
OPTIONAL_VALUES: Final = {"--seats-apart": (("hosts", "workers"), "hosts")}


class OptionalValues(typer.core.TyperCommand):
    """A command whose ``OPTIONAL_VALUES`` options may be given without their value."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, given_values(args))


def given_values(args: list[str]) -> list[str]:
    """``args`` with each optional value that was left out written in (``--seats-apart``
    followed by anything but one of its values is ``--seats-apart=hosts``)."""
    written: list[str] = []
    for index, arg in enumerate(args):
        if arg == "--":
            return written + args[index:]
        if arg in OPTIONAL_VALUES:
            values, default = OPTIONAL_VALUES[arg]
            following = args[index + 1] if index + 1 < len(args) else None
            if following not in values:
                arg = f"{arg}={default}"
        written.append(arg)
    return written
