"""Options and checks shared by the commands."""

from __future__ import annotations

import shlex
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from referee.terminal import shown

if TYPE_CHECKING:
    from referee.rules.tiles import Seat
    from referee.sandbox.policy import SandboxPlan
    from referee.settings import MatchLimits, SandboxSettings


class OnFault(StrEnum):
    forfeit = "forfeit"
    random = "random"


def bundled_bot(name: str) -> str:
    from referee.match.runner import BUNDLED_BOTS

    path = BUNDLED_BOTS / name
    if not path.exists():
        raise fail(
            f"the bundled bots are missing ({path}): reinstall the referee, or pass bot"
            " commands"
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


def sandbox_settings(
    mode: Sandbox, allow: list[Path] | None, env: list[str] | None
) -> SandboxSettings:
    """The sandbox options as settings; exit 2 for an allowed path that does not exist."""
    from referee.settings import SandboxSettings

    missing = [str(path) for path in allow or [] if not path.exists()]
    if missing:
        raise fail(f"--sandbox-allow {missing[0]}: no such file or directory")
    return SandboxSettings(
        mode=mode.value,
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


class SeatName(StrEnum):
    A = "A"
    B = "B"
    C = "C"
    D = "D"


class CacheMedium(StrEnum):
    pages = "pages"
    names = "names"
