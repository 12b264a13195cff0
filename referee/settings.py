"""The competition rules a match is played under (the game's rules are in ``referee.rules``)."""

from __future__ import annotations

from typing import Annotated, Literal

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


class MatchLimits(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Limits and policies for a match, the seed aside (a tournament shares them)."""

    #: Seconds a bot has for each decision. One second is generous for a program and keeps a
    #: stuck bot from stalling a tournament.
    move_timeout: Annotated[float, msgspec.Meta(gt=0, le=3600)] = 1.0
    #: Seconds a bot has to answer ``hello``: interpreters and JITs need time to start.
    startup_timeout: Annotated[float, msgspec.Meta(gt=0, le=3600)] = 10.0
    #: Seconds of extra time for the whole match, spent only when a move overruns.
    time_bank: Annotated[float, msgspec.Meta(ge=0, le=86400)] = 0.0
    #: Refused answers allowed for one decision; reaching it is a fault.
    max_rejections: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 3
    #: ``forfeit``: a fault loses the match. ``random``: a seeded random legal action is played
    #: for the seat and a strike recorded.
    on_fault: FaultPolicy = "forfeit"
    #: Strikes a seat may collect under ``random``; the next fault forfeits.
    max_strikes: Annotated[int, msgspec.Meta(ge=0, le=1000)] = 3
    #: Hands after which a match that nobody has won ends unfinished (all-pass redeals).
    max_hands: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)] = 200
    #: Longest line a bot may send, in bytes.
    max_line_bytes: Annotated[int, msgspec.Meta(ge=1024, le=1 << 30)] = 1 << 20
    #: Bytes of each bot's stderr kept beside the log.
    stderr_limit: Annotated[int, msgspec.Meta(ge=0)] = 1 << 20
    #: Sandbox bounds per seat. Memory: MiB for the bot's whole tree where a control group
    #: can be made (each process's data segment may then reach twice that, so that the
    #: group, not a process, meets the bound first), else MiB of data segment per process.
    memory_mb: Annotated[int, msgspec.Meta(ge=16, le=1 << 20)] = 1024
    #: CPU seconds per process of the bot (a runaway child is stopped; thinking time is bounded
    #: by the move clock).
    cpu_seconds: Annotated[int, msgspec.Meta(ge=1, le=1 << 20)] = 600
    #: Processes and threads of the bot's tree (node starts 7 threads, a JVM about 20).
    max_processes: Annotated[int, msgspec.Meta(ge=1, le=1 << 16)] = 128
    #: Largest file the bot may write, in MiB.
    file_size_mb: Annotated[int, msgspec.Meta(ge=0, le=1 << 20)] = 64
    #: MiB the bot may keep in its scratch directory, where it can be bounded (a tmpfs).
    scratch_mb: Annotated[int, msgspec.Meta(ge=1, le=1 << 20)] = 256

    def for_seed(self, seed: int) -> MatchSettings:
        return MatchSettings(seed=seed, **msgspec.structs.asdict(self))


class SandboxSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How bots are confined (the bounds are match limits, since they shape the game)."""

    mode: SandboxMode = "auto"
    #: Extra paths every bot may read (files or directories, and what is beneath them).
    allow: tuple[str, ...] = ()
    #: Environment variables passed to bots beyond ``BOT_ENVIRONMENT`` (which is all that
    #: reaches a sandboxed bot: the referee's environment may hold an operator's secrets).
    env: tuple[str, ...] = ()


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
        )
