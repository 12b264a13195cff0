"""Option groups: options that go together (the match limits, the sandbox, how many matches
run at once and where, what is printed), each declared once and taken whole by every command
it means something to.

A command takes a group as one keyword-only parameter, ``limits: Annotated[Given,
limit_options()]``; the application's ``Typer`` puts the group's options where that parameter
stands, and calls the command with what they make (typer has no groups of its own). The limit
and sandbox options are made from their settings' fields (``referee.settings``): each option's
name, default, bounds, choices and help are its field's, so a field added to ``MatchLimits`` is
an option of every command that plays matches, meaning the same on each.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Collection
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Final,
    TypeVar,
    get_args,
    get_origin,
    get_type_hints,
)

import msgspec
import typer

from referee.cli.options import OptionalValues, fail, seconds
from referee.settings import (
    FINAL_LIMITS,
    FINAL_SANDBOX,
    LIMIT_OPTION_NAMES,
    MatchLimits,
    SandboxSettings,
    bounds,
    field_types,
    limit_option,
)

if TYPE_CHECKING:
    from referee.match.trace import WireTrace

#: What the command line gives of a settings struct, by field name; an option not given is
#: left out (a tournament's file or a logged match may set it).
Given = dict[str, Any]
Command = TypeVar("Command", bound=Callable[..., Any])


@dataclass(frozen=True)
class OptionGroup:
    """Options taken together, and what a command that takes them is given."""

    #: The options, each a keyword-only parameter as typer reads it (``Annotated[T,
    #: typer.Option(...)]`` and its default).
    options: tuple[inspect.Parameter, ...]
    #: What the command is given, from the options' values by parameter name.
    make: Callable[[dict[str, Any]], Any]
    #: The settings field each option sets, by parameter name (groups made from settings).
    fields: dict[str, str] = dataclasses.field(default_factory=dict)


class Typer(typer.Typer):
    """typer's application, whose commands may take option groups."""

    def command(self, *args: Any, **kwargs: Any) -> Callable[[Command], Command]:
        kwargs.setdefault("cls", OptionalValues)
        register = super().command(*args, **kwargs)

        def decorate(function: Command) -> Command:
            register(spread(function))
            return function

        return decorate


def spread(command: Callable[..., Any]) -> Callable[..., Any]:
    """The command as typer reads it: each group parameter replaced by the group's options,
    and called with what they make."""
    signature = inspect.signature(command, eval_str=True)
    groups = {
        name: group
        for name, parameter in signature.parameters.items()
        if (group := _group(parameter.annotation)) is not None
    }
    if not groups:
        return command
    parameters = [
        option
        for parameter in signature.parameters.values()
        for option in (groups[parameter.name].options if parameter.name in groups else [parameter])
    ]
    names = [parameter.name for parameter in parameters]
    assert len(set(names)) == len(names), f"{command.__name__}: two options named alike"

    @functools.wraps(command)
    def run(**values: Any) -> Any:
        for name, group in groups.items():
            values[name] = group.make(
                {option.name: values.pop(option.name) for option in group.options}
            )
        return command(**values)

    run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
    return run


def _group(annotation: Any) -> OptionGroup | None:
    if get_origin(annotation) is not Annotated:
        return None
    return next((item for item in annotation.__metadata__ if isinstance(item, OptionGroup)), None)


def _option(name: str, kind: Any, default: Any, option: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[kind, option]
    )


# The settings' fields as options.

LIMITS_PANEL: Final = "Match limits"
SANDBOX_PANEL: Final = "Sandbox"
#: What a user types for a field's value, where its unit or its type does not say it.
_VALUE_NAMES: Final = {"allow": "PATH", "env": "NAME"}


@functools.cache
def choices(field: str, values: tuple[str, ...]) -> type[StrEnum]:
    """The choices of a field's Literal as the enum typer reads (one class per field)."""
    title = "".join(part.title() for part in field.split("_"))
    return StrEnum(title, [(value, value) for value in values])  # type: ignore[return-value]


def _literal_values(struct: type[msgspec.Struct], field: str) -> tuple[str, ...]:
    """A Literal field's values in the order written (``msgspec.inspect`` sorts them)."""
    literal = get_type_hints(struct, include_extras=True)[field]
    return get_args(get_args(literal)[0] if get_origin(literal) is Annotated else literal)


def _value_name(field: str, kind: Any) -> str | None:
    if field.endswith("_mb"):
        return "MIB"
    if isinstance(kind, msgspec.inspect.FloatType) or field.endswith("_seconds"):
        return "S"
    return _VALUE_NAMES.get(field)


def _is_flag(info: msgspec.inspect.Type) -> bool:
    """A ``bool | None`` field: an option that is given (True) or not."""
    return isinstance(info, msgspec.inspect.UnionType) and any(
        isinstance(kind, msgspec.inspect.BoolType) for kind in info.types
    )


def field_option(
    struct: type[msgspec.Struct], field: str, name: str, panel: str, default: str | None
) -> inspect.Parameter:
    """Field ``field`` of ``struct`` as option ``--name``: its type, bounds, choices and help.
    ``default``: where a value not given comes from when not the field's default (the option
    then defaults to None, and its help says where; ``{}`` in it is the field's default)."""
    info, description = field_types(struct)[field]
    value = getattr(struct(), field)
    details: dict[str, Any] = {"metavar": _value_name(field, info), "rich_help_panel": panel}
    kind: Any
    if isinstance(info, msgspec.inspect.LiteralType):
        kind = choices(field, _literal_values(struct, field))
        value = kind(value)
    elif isinstance(info, msgspec.inspect.VarTupleType):
        kind, value, details["show_default"] = list[str], None, False
    elif _is_flag(info):  # a flag: given or not (None leaves a file's value alone)
        kind, value, details["show_default"] = bool, None, False
        details.pop("metavar")
    elif isinstance(info, msgspec.inspect.FloatType):
        kind, details["callback"] = float, seconds(*bounds(info))
    else:
        assert isinstance(info, msgspec.inspect.IntType), (field, info)
        kind, (details["min"], details["max"]) = int, bounds(info)
    if default is not None and value is not None:
        description += f" Default: {default.format(value)}."
        details["show_default"], value = False, None
    option = typer.Option("--" + name.replace("_", "-"), help=description, **details)
    return _option(name, kind | None if value is None else kind, value, option)


def _given(fields: dict[str, str]) -> Callable[[dict[str, Any]], Given]:
    """What a group of field options makes: the values given, by field name."""

    def make(values: dict[str, Any]) -> Given:
        return {
            fields[name]: value.value if isinstance(value, StrEnum) else value
            for name, value in values.items()
            if value not in (None, [])
        }

    return make


def limit_options(*, default: str | None = None, without: Collection[str] = ()) -> OptionGroup:
    """The match limits as options, one per ``MatchLimits`` field but those ``without`` (where
    they mean nothing; the command says why). ``default``: as in ``field_option``."""
    assert set(without) <= set(field_types(MatchLimits)), without
    fields = {
        LIMIT_OPTION_NAMES.get(field, field): field
        for field in field_types(MatchLimits)
        if field not in without
    }
    options = [
        field_option(MatchLimits, field, name, LIMITS_PANEL, default)
        for name, field in fields.items()
    ]
    given = _given(fields)

    def make(values: dict[str, Any]) -> Given:
        limits = given(values)
        try:
            MatchLimits(**limits)  # options that cannot go together (--pace, --time-bank)
        except ValueError as exc:
            raise fail(str(exc)) from None
        return limits

    return OptionGroup(tuple(options), make, fields)


def sandbox_options(*, default: str | None = None, when: str = "") -> OptionGroup:
    """The sandbox options (``SandboxSettings``'s fields): ``--sandbox``, ``--sandbox-allow``,
    ``--sandbox-env``. ``when``: words before each help, where they apply only with another
    option (``With --rerun:``)."""
    fields = {
        "sandbox" if field == "mode" else f"sandbox_{field}": field
        for field in field_types(SandboxSettings)
    }
    options = []
    for name, field in fields.items():
        option = field_option(SandboxSettings, field, name, SANDBOX_PANEL, default)
        info = option.annotation.__metadata__[0]
        info.help = f"{when} {info.help}".strip()
        options.append(option)
    return OptionGroup(tuple(options), _given(fields), fields)


# A final: one flag for what closes the channels one machine can close.

FinalOption = Annotated[
    bool,
    typer.Option(
        "--final",
        help="Play as a final on one machine: --pace --freeze-idle --time-bank 0 --sandbox"
        " strict --sandbox-private-root (and --fresh-bots where bots could be kept), which"
        " close every channel between partners that one machine can close. Needs root.",
        rich_help_panel=SANDBOX_PANEL,
    ),
]


def _sandbox_option(field: str) -> str:
    return "--sandbox" if field == "mode" else f"--sandbox-{field.replace('_', '-')}"


def final_configuration(
    limits: Given | None, sandbox: Given | None, *, fresh: bool = False
) -> tuple[Given, Given]:
    """``--final``'s limits and sandbox over those given (None: a part this command does not
    set, e.g. a league's limits are set at ``league init``); exit 2 when an option given says
    otherwise (an option left at its default says nothing). Says the expansion on stderr (the
    log header records it: the limits and each seat's layers)."""
    words = []
    for given, final, option, defaults in (
        (limits, FINAL_LIMITS, limit_option, MatchLimits()),
        (sandbox, FINAL_SANDBOX, _sandbox_option, SandboxSettings()),
    ):
        if given is None:
            continue
        for field, value in final.items():
            shown = f"{value:g}" if isinstance(value, float) else str(value)
            word = option(field) if value is True else f"{option(field)} {shown}"
            chosen = given.get(field, value)
            if chosen not in (value, getattr(defaults, field)):
                raise fail(f"--final sets {word}: leave {option(field)} out")
            words.append(word)
    typer.echo(f"final: {' '.join(words)}{' --fresh-bots' if fresh else ''}", err=True)
    return {**(limits or {}), **FINAL_LIMITS}, {**(sandbox or {}), **FINAL_SANDBOX}


# How matches are run, and what is printed.

RUNNING_PANEL: Final = "Running"
OUTPUT_PANEL: Final = "Output"


class SeatsApart(StrEnum):
    """Where a match's seats may run under ``--seats-apart``."""

    HOSTS = "hosts"
    WORKERS = "workers"


@dataclass(frozen=True)
class Running:
    """How many matches at once, and where (``tournament``, ``league run``)."""

    #: None: not given (one per core, or a tournament's file says).
    jobs: int | None
    dask: str | None
    seats_apart: SeatsApart | None
    fresh_bots: bool


@dataclass(frozen=True)
class Cluster:
    """Where one match's seats run (``match``): here, or apart on a Dask cluster."""

    dask: str | None
    seats_apart: SeatsApart | None


_DASK: Final = _option(
    "dask",
    str | None,
    None,
    typer.Option(
        metavar="ADDRESS",
        help="Run on a Dask cluster: a scheduler address, or 'local' to start one on this machine.",
        rich_help_panel=RUNNING_PANEL,
    ),
)
_SEATS_APART: Final = _option(
    "seats_apart",
    SeatsApart | None,
    None,
    typer.Option(
        "--seats-apart",
        metavar="[hosts|workers]",
        help="Run each seat of a match on a Dask worker of its own (needs --dask), partners"
        " on different hosts; '--seats-apart=workers' allows one host, for trials. The referee"
        " stays here and keeps the clock.",
        rich_help_panel=RUNNING_PANEL,
        show_default=False,
    ),
)

CLUSTER: Final = OptionGroup((_DASK, _SEATS_APART), lambda values: Cluster(**values))

RUNNING: Final = OptionGroup(
    (
        _option(
            "jobs",
            int | None,
            None,
            typer.Option(
                min=1, help="Matches at once. Default: one per core.", rich_help_panel=RUNNING_PANEL
            ),
        ),
        _DASK,
        _SEATS_APART,
        _option(
            "fresh_bots",
            bool,
            False,
            typer.Option(
                "--fresh-bots",
                help="Start every bot afresh for each match, even those that can play many"
                " (by default their processes are kept between matches).",
                rich_help_panel=RUNNING_PANEL,
            ),
        ),
    ),
    lambda values: Running(**values),
)


@dataclass(frozen=True)
class Output:
    """What a command prints and writes besides its usual output."""

    json: bool = False
    #: The match log's path (None: a new file under ./matches/).
    log: Path | None = None
    debug: bool = False

    def trace(self) -> WireTrace | None:
        """The wire trace ``--debug`` asks for."""
        from referee.match.trace import WireTrace

        return WireTrace() if self.debug else None


def output_options(
    json: str | None = None, *, log: bool = False, debug: bool = False
) -> OptionGroup:
    """The output options a command has: ``--json`` (printing ``json``, e.g. "the outcome"),
    ``--log`` (a match's log), ``--debug``."""
    options = []
    if json is not None:
        help = f"Print {json} as one JSON object on stdout."
        options.append(_output("json_output", bool, False, typer.Option("--json", help=help)))
    if log:
        help = "Replay log path (JSON lines). Default: a new file under ./matches/."
        options.append(_output("log", Path | None, None, typer.Option(help=help)))
    if debug:
        help = (
            "Print every line to (>>) and from (<<) each bot, and each line of its stderr"
            " (2>), as it happens, with the seat and the seconds since the start, on stderr."
        )
        options.append(_output("debug", bool, False, typer.Option("--debug", help=help)))

    def make(values: dict[str, Any]) -> Output:
        return Output(json=values.pop("json_output", False), **values)

    return OptionGroup(tuple(options), make)


def _output(name: str, kind: Any, default: Any, option: Any) -> inspect.Parameter:
    option.rich_help_panel = OUTPUT_PANEL
    return _option(name, kind, default, option)
