"""What the runner asks of a source of bots, and the source of fresh ones.

A source hands the runner a running ``BotProcess`` for each seat, a fresh one when a kept
process failed to start its match, and takes each back at the end, told whether it may play
again. Only the source knows whether a bot is new: the runner plays the match the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, TypeVar

import trio

from referee.errors import BotFault
from referee.match.connection import BotConnection
from referee.match.process import BotProcess
from referee.match.stderr import StderrSink
from referee.match.trace import WireTrace
from referee.rules.tiles import Seat
from referee.sandbox.policy import SandboxPlan
from referee.sandbox.seats import MatchJails
from referee.settings import MatchSettings


class Seated(Protocol):
    """A bot as the runner handles it: a process here (``BotProcess``), or a seat on another
    machine (``referee.apart.bot.RemoteBot``)."""

    seat: Seat
    command: str
    stderr: StderrSink
    trace: WireTrace | None
    matches_played: int

    def connect(self, max_line_bytes: int) -> BotConnection: ...

    async def drain_stderr(self) -> None: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    async def explain(self, fault: BotFault) -> BotFault: ...

    async def close(self) -> int | None: ...


BotT = TypeVar("BotT", bound=Seated)


class BotSource(Protocol[BotT]):
    async def take(self, seat: Seat, command: str, stderr: Path, settings: MatchSettings) -> BotT:
        """A bot for ``seat``, started now or kept from earlier matches; raises
        ``BotStartFailed`` (or ``OSError`` from the sandbox) when none can be had."""
        ...

    async def fresh(self, seat: Seat, command: str, stderr: Path, settings: MatchSettings) -> BotT:
        """A bot for ``seat`` started now, whatever the source keeps."""
        ...

    async def give_back(self, bot: BotT, reusable: bool) -> None:
        """The match is over for ``bot``: keep it if ``reusable`` and the source wants to,
        else close it (never raises)."""
        ...

    def close(self) -> None:
        """The match is over: undo what the source made for it alone."""
        ...


class FreshBots:
    """Every bot started for the match and closed at its end (``referee match``, and
    tournaments with ``--fresh-bots`` or bots that play one match)."""

    def __init__(self, plan: SandboxPlan) -> None:
        self.jails = MatchJails(plan)  # an OSError here: no seat can start

    async def take(
        self, seat: Seat, command: str, stderr: Path, settings: MatchSettings
    ) -> BotProcess:
        return BotProcess.start(seat, command, stderr, settings.stderr_limit, self.jails.jail(seat))

    fresh = take

    async def give_back(self, bot: BotProcess, reusable: bool) -> None:
        await bot.close()
        if bot.jail is not None:
            self.jails.release(bot.jail)

    def close(self) -> None:
        self.jails.close()


async def give_back_all(source: BotSource[Any], bots: list[tuple[Any, bool]]) -> None:
    """Give every bot back at once (closing takes up to a second each), shielded."""
    with trio.CancelScope(shield=True):
        async with trio.open_nursery() as nursery:
            for bot, reusable in bots:
                nursery.start_soon(source.give_back, bot, reusable)
