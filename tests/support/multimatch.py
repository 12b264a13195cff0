"""One bot process through several matches, without the tournament's warm pools: a ``Table``
per match over the same processes, each connected anew with ``BotProcess.connect`` as
``referee.match.runner.run_match`` connects a bot (whatever it wrote between matches dropped)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import trio

from referee.errors import BotFault
from referee.match.outcome import MatchOutcome
from referee.match.process import EXIT_GRACE, BotProcess
from referee.match.table import Table
from referee.record.log import LogWriter
from referee.rules.tiles import Seat
from referee.settings import MatchLimits, MatchSettings


@asynccontextmanager
async def kept(commands: Sequence[str], directory: Path) -> AsyncIterator[list[BotProcess]]:
    """Each command started once, unsandboxed, its stderr in ``directory/<n>.stderr``;
    every one closed (and reaped) on the way out."""
    processes: list[BotProcess] = []
    async with trio.open_nursery() as nursery:
        try:
            for n, command in enumerate(commands):
                stderr = directory / f"{n}.stderr"
                bot = BotProcess.start("A", command, stderr, MatchLimits().stderr_limit)
                processes.append(bot)
                nursery.start_soon(bot.drain_stderr)
            yield processes
        finally:
            with trio.CancelScope(shield=True):
                for bot in processes:
                    await bot.close()
            nursery.cancel_scope.cancel()


async def play(
    settings: MatchSettings, seating: Mapping[Seat, BotProcess], log: Path
) -> MatchOutcome:
    """One match between these processes (every seat filled); they stay open after it."""
    connections = {seat: bot.connect(settings.max_line_bytes) for seat, bot in seating.items()}
    commands = {seat: bot.command for seat, bot in seating.items()}

    async def explain(seat: Seat, fault: BotFault) -> BotFault:
        return await seating[seat].explain(fault)

    with log.open("wb") as file:
        table = Table(
            settings,
            connections,
            LogWriter(file),
            commands,
            explain=explain,
            previous_matches={seat: bot.matches_played for seat, bot in seating.items()},
        )
        outcome = await table.play()
    for seat, bot in seating.items():  # as a warm pool counts them
        if table.reusable(seat):
            bot.matches_played += 1
    return outcome


async def exit_at_eof(bot: BotProcess) -> tuple[int | None, float]:
    """Close the bot's input as a referee does after its last match; its exit code (None if
    it is still running after ``EXIT_GRACE``) and the seconds it took."""
    began = trio.current_time()
    await bot.stdin.aclose()
    with trio.move_on_after(EXIT_GRACE):
        await bot.process.wait()
    return bot.process.returncode, trio.current_time() - began
