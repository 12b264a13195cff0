"""What the referee and a seat's host say to each other (``host.SeatHost``'s calls):
what a seat starts with, what it answers, and how the host says it let a seat go."""

from __future__ import annotations

import msgspec

from referee.record.sandbox import SandboxReport
from referee.rules.tiles import Seat
from referee.settings import MatchSettings, SandboxSettings


class SeatStart(msgspec.Struct, frozen=True):
    """What a seat is started with: its bot, the match's limits, the sandbox to plan here."""

    seat: Seat
    command: str
    commands: dict[Seat, str]
    settings: MatchSettings
    sandbox: SandboxSettings
    #: Paths no bot may read (the referee's log folder, if this worker shares its machine).
    secrets: list[str]
    #: Another match on these deals was played before: the lookup caches are wiped first.
    after_same_deals: bool = False


class SeatStarted(msgspec.Struct, frozen=True):
    """The seat's bot is running: the layers it runs under here, and where "here" is."""

    sandbox: SandboxReport
    worker: str
    host: str
    kernel: str


class SeatClosed(msgspec.Struct, frozen=True):
    """The bot is gone: how it ended, and its stderr as kept (up to the match's bound)."""

    returncode: int | None
    stderr: bytes
    dropped: int


class Output(msgspec.Struct, frozen=True):
    """What the bot wrote from the offset asked: ``data`` (empty at the end of its output,
    None when nothing came in the wait), and the seconds from the last write to the bot
    until the first of these bytes came (how long the bot took, on this host's clock)."""

    data: bytes | None
    since_write: float | None = None
    #: The lines sent with this call could not be written: the bot closed its input.
    input_closed: bool = False


class SeatEnded(Exception):
    """The host ended the seat's bot (its referee let the seat go): no line goes to it now,
    and nothing it did is to be judged."""


class TimeoutCheck(msgspec.Struct, frozen=True):
    """What the host says after a decision timed out: whether a write waits for the bot to
    read, and whether the call numbered as asked was taken yet (else the ``act`` never
    reached the bot in time: not its fault)."""

    stuck: bool
    taken: bool
