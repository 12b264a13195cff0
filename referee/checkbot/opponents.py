"""A real ``Table`` with the checked bot's connection in one seat and random bots in the
others, run in this process (the kit's loop over socket pairs): the ``matches`` check plays
four such matches over one process of the bot, one in each seat, as a tournament that keeps
it would. ``rehearse`` plays a whole match so, every seat a bundled bot's strategy: the seeds
check-bot plays are chosen by it (``seeds``)."""

from __future__ import annotations

import importlib.util
import io
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Final

import trio

from referee.bot import Bot, Decision, Strategy
from referee.bundled import BOTS
from referee.errors import BotFault
from referee.match.connection import BotConnection
from referee.match.outcome import MatchOutcome
from referee.match.process import BotProcess
from referee.match.table import Table
from referee.record.log import LogWriter, parse_log
from referee.record.records import LogRecord
from referee.record.sandbox import SandboxReport
from referee.rules import SEATS, Action, Seat
from referee.settings import MatchSettings

#: The command the other seats are logged with.
OPPONENT: Final = "check-bot's random bot (in process)"


def _random(decision: Decision) -> Action:
    """The bundled random bot's choice: its ``rng`` is seeded from ``hello`` as the bot's is,
    and ``legal_actions`` come in the referee's order, so it chooses as the bot would."""
    return decision.rng.choice(decision.legal_actions)


@cache
def bundled_strategy(name: str) -> Strategy:
    """A bundled bot's strategy by its name (``random``, ``heuristic``), to play in this
    process the moves its program would play: the heuristic bot's is its file's own
    ``strategy`` (it has no randomness)."""
    if name == "random":
        return _random
    path = BOTS / f"{name}_bot.py"
    spec = importlib.util.spec_from_file_location(f"_check_bot_{name}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    strategy: Strategy = module.strategy
    return strategy


async def _serve(stream: trio.SocketStream, strategy: Strategy = _random) -> None:
    """Answer the table's lines as a bot process would, until cancelled."""
    bot = Bot(strategy, "in process", log=io.StringIO())
    pending = b""
    while data := await stream.receive_some():
        *lines, pending = (pending + data).split(b"\n")
        for line in lines:
            answer = bot.handle(line)
            if answer is not None:
                await stream.send_all(answer.encode())


@dataclass(frozen=True)
class Played:
    outcome: MatchOutcome
    records: list[LogRecord]
    #: Whether a tournament would keep the checked bot's process for another match (the
    #: table's own rule: it said ``many``, no fault charged, ``match_end`` delivered).
    reusable: bool


class CheckedSeat:
    """Stops the checked bot while it is not its turn (``--freeze-idle``): its opponents are
    the referee's own, in this process."""

    def __init__(self, seat: Seat, bot: BotProcess) -> None:
        self.seat, self.bot = seat, bot

    def freeze(self, seat: Seat) -> None:
        if seat == self.seat:
            self.bot.pause()

    def thaw(self, seat: Seat) -> None:
        if seat == self.seat:
            self.bot.resume()


async def play_among_random_bots(
    settings: MatchSettings,
    seat: Seat,
    connection: BotConnection,
    command: str,
    sandbox: SandboxReport,
    explain: Callable[[BotFault], Awaitable[BotFault]],
    previous_matches: int = 0,
    idle: CheckedSeat | None = None,
) -> Played:
    """One match with ``connection`` in ``seat``; the connection stays open after it."""
    connections = {seat: connection}
    commands = dict.fromkeys(SEATS, OPPONENT) | {seat: command}
    streams: list[trio.SocketStream] = []
    log = io.BytesIO()

    async def explained(_: Seat, fault: BotFault) -> BotFault:
        return await explain(fault)  # only the checked bot can go away

    try:
        async with trio.open_nursery() as nursery:
            for other in SEATS:
                if other != seat:
                    ours, theirs = (trio.SocketStream(s) for s in trio.socket.socketpair())
                    streams += [ours, theirs]
                    nursery.start_soon(_serve, theirs)
                    connections[other] = BotConnection(other, ours, ours, settings.max_line_bytes)
            table = Table(
                settings,
                connections,
                LogWriter(log),
                commands,
                sandbox=sandbox,
                explain=explained,
                previous_matches={seat: previous_matches},
                idle=idle,
            )
            outcome = await table.play()
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            for stream in streams:
                await stream.aclose()
    return Played(outcome, parse_log(log.getvalue()).records, table.reusable(seat))


async def rehearse(settings: MatchSettings, strategies: Mapping[Seat, Strategy]) -> list[LogRecord]:
    """A whole match at a real ``Table``, each seat played in this process by its strategy:
    its log's records (what ``situations.faced`` reads)."""
    streams: list[trio.SocketStream] = []
    connections: dict[Seat, BotConnection] = {}
    log = io.BytesIO()
    try:
        async with trio.open_nursery() as nursery:
            for seat in SEATS:
                ours, theirs = (trio.SocketStream(s) for s in trio.socket.socketpair())
                streams += [ours, theirs]
                nursery.start_soon(_serve, theirs, strategies[seat])
                connections[seat] = BotConnection(seat, ours, ours, settings.max_line_bytes)
            commands = {seat: f"in process: {seat}" for seat in SEATS}
            await Table(settings, connections, LogWriter(log), commands).play()
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            for stream in streams:
                await stream.aclose()
    return parse_log(log.getvalue()).records
