"""The competition rules a match is played under (the game's rules are in ``referee.rules``)."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

import msgspec

from referee.rules.actions import Action
from referee.rules.deal import Stream
from referee.wire.messages import Limits

FaultPolicy = Literal["forfeit", "random"]
#: ``auto``: every sandbox layer the machine has; ``strict``: refuse to start without the
#: layers a competition needs; ``off``: bots run as the operator, each in its own group.
SandboxMode = Literal["auto", "strict", "off"]
#: What a fault cost: the match, a forced random action and a strike, or (a kept bot that
#: could not start its next match) its process, replaced by a fresh one.
Penalty = Literal["forfeit", "random", "restart"]


def penalty(
    on_fault: FaultPolicy, strikes: int, max_strikes: int
) -> tuple[Literal["forfeit", "random"], int]:
    """What a fault costs under the policy, and the seat's strikes after it: under ``random``
    each fault is a strike, and the one past ``max_strikes`` forfeits."""
    if on_fault == "forfeit":
        return "forfeit", strikes
    strikes += 1
    return ("forfeit" if strikes > max_strikes else "random"), strikes


def fault_stream(seed: int) -> Stream:
    """The random stream the ``random`` fault policy draws from: the match seed's own, so a
    replay chooses the same forced actions."""
    return Stream(f"{seed}/fault")


def forced_action(stream: Stream, legal: list[Action]) -> Action:
    """The legal action the ``random`` policy plays for a faulted seat."""
    return legal[stream.uniform(len(legal))]


#: The limits whose option is not named as their field: a bound named by its unit reads as a
#: limit (``--memory-limit 2048``).
LIMIT_OPTION_NAMES: Final = {
    "memory_mb": "memory_limit",
    "scratch_mb": "scratch_limit",
    "cpu_seconds": "cpu_limit",
    "file_size_mb": "file_size_limit",
}
#: Limits are logged in milliseconds: "more than 0 seconds" starts at one.
_MILLISECOND: Final = 0.001


def limit_option(field: str) -> str:
    """The command-line option that sets the ``MatchLimits`` field ``field``."""
    return "--" + LIMIT_OPTION_NAMES.get(field, field).replace("_", "-")


def bounds(kind: msgspec.inspect.Type) -> tuple[Any, Any]:
    """(lowest, highest or None) value of a number field, from its ``msgspec.Meta``."""
    assert isinstance(kind, msgspec.inspect.IntType | msgspec.inspect.FloatType), kind
    assert kind.lt is None, kind  # every bounded field says its top inclusively
    step = 1 if isinstance(kind, msgspec.inspect.IntType) else _MILLISECOND
    return (kind.ge if kind.gt is None else kind.gt + step), kind.le


def field_types(struct: type[msgspec.Struct]) -> dict[str, tuple[msgspec.inspect.Type, str]]:
    """Each field of a settings struct: its type as ``msgspec.inspect`` gives it (bounds,
    choices), and the description its ``Meta`` gives (what an option that sets it says)."""
    info = msgspec.inspect.type_info(struct)
    assert isinstance(info, msgspec.inspect.StructType)
    found = {}
    for field in info.fields:
        kind, description = field.type, ""
        if isinstance(kind, msgspec.inspect.Metadata):
            description = (kind.extra_json_schema or {}).get("description", "")
            kind = kind.type
        found[field.name] = (kind, description)
    return found


class MatchLimits(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Limits and policies for a match, the seed aside (a tournament shares them)."""

    #: Seconds a bot has for each decision. One second is generous for a program and keeps a
    #: stuck bot from stalling a tournament.
    move_timeout: Annotated[
        float, msgspec.Meta(gt=0, le=3600, description="Seconds per decision.")
    ] = 1.0
    #: Seconds a bot has to answer ``hello``: interpreters and JITs need time to start.
    startup_timeout: Annotated[
        float, msgspec.Meta(gt=0, le=3600, description="Seconds to answer hello.")
    ] = 10.0
    #: Seconds of extra time for the whole match, spent only when a move overruns.
    time_bank: Annotated[
        float,
        msgspec.Meta(
            ge=0, le=86400, description="Extra seconds per seat for the match, spent on overruns."
        ),
    ] = 0.0
    #: Refused answers allowed for one decision; reaching it is a fault.
    max_rejections: Annotated[
        int,
        msgspec.Meta(
            ge=1, le=1000, description="The Nth refused answer to one decision is a fault."
        ),
    ] = 3
    on_fault: Annotated[
        FaultPolicy,
        msgspec.Meta(
            description="forfeit: a fault loses the match. random: a seeded random legal action"
            " is played for the seat and a strike recorded."
        ),
    ] = "forfeit"
    #: Strikes a seat may collect under ``random``; the next fault forfeits.
    max_strikes: Annotated[
        int,
        msgspec.Meta(
            ge=0,
            le=1000,
            description="Strikes allowed when a fault plays a random action; the next forfeits.",
        ),
    ] = 3
    #: Hands after which a match that nobody has won ends unfinished (all-pass redeals).
    max_hands: Annotated[
        int,
        msgspec.Meta(
            ge=1, le=1_000_000, description="End the match unfinished after this many hands."
        ),
    ] = 200
    #: Longest line a bot may send, in bytes.
    max_line_bytes: Annotated[
        int,
        msgspec.Meta(
            ge=1024, le=1 << 30, description="Longest line a bot may send; longer is a fault."
        ),
    ] = 1 << 20
    #: Bytes of each bot's stderr kept beside the log.
    stderr_limit: Annotated[
        int, msgspec.Meta(ge=0, description="Bytes of each bot's stderr kept beside the log.")
    ] = 1 << 20
    #: Sandbox bounds per seat. Memory: MiB for the bot's whole tree where a control group
    #: can be made (each process's data segment may then reach twice that, so that the
    #: group, not a process, meets the bound first), else MiB of data segment per process.
    memory_mb: Annotated[
        int, msgspec.Meta(ge=16, le=1 << 20, description="MiB of memory per seat (sandbox bound).")
    ] = 1024
    #: CPU seconds per process of the bot (a runaway child is stopped; thinking time is bounded
    #: by the move clock).
    cpu_seconds: Annotated[
        int,
        msgspec.Meta(ge=1, le=1 << 20, description="CPU seconds per bot process (sandbox bound)."),
    ] = 600
    #: Processes and threads of the bot's tree (node starts 7 threads, a JVM about 20).
    max_processes: Annotated[
        int,
        msgspec.Meta(
            ge=1, le=1 << 16, description="Processes and threads per seat's tree (sandbox bound)."
        ),
    ] = 128
    #: Largest file the bot may write, in MiB.
    file_size_mb: Annotated[
        int,
        msgspec.Meta(
            ge=0, le=1 << 20, description="Largest file a bot may write, in MiB (sandbox bound)."
        ),
    ] = 64
    #: MiB the bot may keep in its scratch directory, where it can be bounded (a tmpfs).
    scratch_mb: Annotated[
        int,
        msgspec.Meta(
            ge=1, le=1 << 20, description="MiB of scratch space per seat (sandbox bound)."
        ),
    ] = 256
    #: Turns released on a fixed beat: every message a seat receives goes out at a time that
    #: depends only on the public state (each decision's outcome at its deadline), so that no
    #: seat can learn how long another took. Needs ``time_bank`` 0: a bank moves deadlines.
    pace: Annotated[
        bool | None,
        msgspec.Meta(
            description="Paced turns: every message a bot receives is sent at a time that"
            " depends only on the public state (each decision's outcome at its deadline), so no"
            " bot learns how long another thought. A match then takes about its decisions times"
            " the move timeout. Needs --time-bank 0."
        ),
    ] = None
    #: Every seat's processes stopped while it is not its turn: partners never run at once.
    freeze_idle: Annotated[
        bool | None,
        msgspec.Meta(
            description="Stop every bot's processes while it is not its turn (SIGSTOP), so that"
            " partners never run at the same time; its clock is unchanged when it acts. Bots"
            " cannot think on others' turns."
        ),
    ] = None

    def __post_init__(self) -> None:
        if self.pace and self.time_bank > 0:
            raise ValueError(
                "--pace needs --time-bank 0: a time bank moves a decision's deadline, which"
                " pacing releases the next message at"
            )

    def for_seed(self, seed: int) -> MatchSettings:
        return MatchSettings(seed=seed, **msgspec.structs.asdict(self))


class SandboxSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How bots are confined (the bounds are match limits, since they shape the game)."""

    mode: Annotated[
        SandboxMode,
        msgspec.Meta(
            description="auto: every sandbox layer this machine has (one line says which);"
            " strict: refuse to start without the layers a competition needs; off: bots run as"
            " you, in their own process group."
        ),
    ] = "auto"
    #: Extra paths every bot may read (files or directories, and what is beneath them).
    allow: Annotated[
        tuple[str, ...],
        msgspec.Meta(
            description="A file or directory every bot may read (repeat), e.g. a model file or"
            " a library."
        ),
    ] = ()
    #: Environment variables passed to bots beyond ``BOT_ENVIRONMENT`` (which is all that
    #: reaches a sandboxed bot: the referee's environment may hold an operator's secrets).
    env: Annotated[
        tuple[str, ...],
        msgspec.Meta(
            description="An environment variable passed to sandboxed bots (repeat), beyond the"
            " fixed list every bot gets (protocol/PROTOCOL.md, 'Processes and the sandbox')."
        ),
    ] = ()
    #: Each seat sees a root of its own: a tmpfs with every file it may read bound into it,
    #: so that a lookup of a missing name lands in the seat's own cache, not the machine's.
    private_root: Annotated[
        bool | None,
        msgspec.Meta(
            description="Give each bot a root of its own (a tmpfs with each file it may read"
            " bound in), so that its failed name lookups cannot be seen by another seat; about"
            " 0.2 s more to start Debian's Python."
        ),
    ] = None


class MatchSettings(MatchLimits, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Everything one match is played under."""

    #: The match seed: first dealer and every deal (0 to 2**64-1).
    seed: int

    @classmethod
    def from_log(cls, seed: int, limits: Limits, max_hands: int) -> MatchSettings:
        """The settings a logged match was played under (its header's limits)."""
        return cls(
            seed=seed,
            move_timeout=limits.move_timeout_ms / 1000,
            startup_timeout=limits.startup_timeout_ms / 1000,
            time_bank=limits.time_bank_ms / 1000,
            max_rejections=limits.max_rejections,
            on_fault=limits.on_fault,
            max_strikes=limits.max_strikes,
            max_hands=max_hands,
            max_line_bytes=limits.max_line_bytes,
            pace=limits.pace or None,
            freeze_idle=limits.frozen_when_idle or None,
        )

    def limits(self) -> Limits:
        return Limits(
            move_timeout_ms=round(self.move_timeout * 1000),
            startup_timeout_ms=round(self.startup_timeout * 1000),
            time_bank_ms=round(self.time_bank * 1000),
            max_rejections=self.max_rejections,
            on_fault=self.on_fault,
            max_strikes=self.max_strikes,
            max_line_bytes=self.max_line_bytes,
            pace=True if self.pace else msgspec.UNSET,
            frozen_when_idle=True if self.freeze_idle else msgspec.UNSET,
        )


#: What ``--final`` sets of the match limits: paced turns (no seat learns how long another
#: took), idle seats frozen (partners never run at once), no time bank (it moves deadlines).
FINAL_LIMITS: Final = {"pace": True, "freeze_idle": True, "time_bank": 0.0}
#: What ``--final`` sets of the sandbox: every layer or a refusal, and a root of its own per
#: seat (``strict`` refuses seats that share a kernel uid, so it needs root).
FINAL_SANDBOX: Final = {"mode": "strict", "private_root": True}
