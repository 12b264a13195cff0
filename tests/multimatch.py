"""One bot process through several matches, without the tournament's warm pools (built
elsewhere): a ``Table`` per match over each process's one ``BotConnection``, as
``referee.runner.run_match`` builds a table over freshly started processes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.connection import BotConnection
from referee.errors import BotFault
from referee.log import LogWriter
from referee.process import EXIT_GRACE, BotProcess
from referee.rules.tiles import Seat
from referee.settings import MatchLimits, MatchSettings
from referee.table import MatchOutcome, Table


@dataclass(frozen=True)
class Kept:
    """A started bot and its connection, kept from one match to the next."""

    bot: BotProcess
    connection: BotConnection


@asynccontextmanager
async def kept(commands: Sequence[str], directory: Path) -> AsyncIterator[list[Kept]]:
    """Each command started once, unsandboxed, its stderr in ``directory/<n>.stderr``;
    every one closed (and reaped) on the way out."""
    limits = MatchLimits()
    processes: list[Kept] = []
    async with trio.open_nursery() as nursery:
        try:
            for n, command in enumerate(commands):
                stderr = directory / f"{n}.stderr"
                bot = BotProcess.start("A", command, stderr, limits.stderr_limit)
                connection = BotConnection("A", bot.stdin, bot.stdout, limits.max_line_bytes)
                processes.append(Kept(bot, connection))
                nursery.start_soon(bot.drain_stderr)
            yield processes
        finally:
            with trio.CancelScope(shield=True):
                for process in processes:
                    await process.bot.close()
            nursery.cancel_scope.cancel()


async def play(settings: MatchSettings, seating: Mapping[Seat, Kept], log: Path) -> MatchOutcome:
    """One match between these processes (every seat filled); they stay open after it."""
    connections = {seat: process.connection for seat, process in seating.items()}
    commands = {seat: process.bot.command for seat, process in seating.items()}

    async def explain(seat: Seat, fault: BotFault) -> BotFault:
        return await seating[seat].bot.explain(fault)

    with log.open("wb") as file:
        table = Table(settings, connections, LogWriter(file), commands, explain=explain)
        return await table.play()


async def exit_at_eof(bot: BotProcess) -> tuple[int | None, float]:
    """Close the bot's input as a referee does after its last match; its exit code (None if
    it is still running after ``EXIT_GRACE``) and the seconds it took."""
    began = trio.current_time()
    await bot.stdin.aclose()
    with trio.move_on_after(EXIT_GRACE):
        await bot.process.wait()
    return bot.process.returncode, trio.current_time() - began
