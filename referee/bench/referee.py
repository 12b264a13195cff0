"""Decisions per second through the whole referee, against the pipes' own round-trip rate.

Both halves run in the same process, over the same kind of pipes, with the same bytes: an
echo process answers real ``act`` lines (recorded from random matches) as fast as the pipe
allows — the ceiling; and full matches between instant bots run through the real referee
(processes, views, validation, events, the log). The two alternate in rounds so that both
see the same machine. Bot start-up is not counted.
"""

from __future__ import annotations

import random
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import trio

from referee.connection import BotConnection
from referee.messages import Act, PublicEvent, encode_line
from referee.process import BotProcess
from referee.rules import SEATS, Match, Seat
from referee.runner import run_match
from referee.settings import MatchSettings

HERE: Final = Path(__file__).resolve().parent
INSTANT_BOT: Final = HERE / "instant_bot.py"
ECHO: Final = HERE / "echo.py"
#: How the benchmark bots are started: no site packages, isolated — they only need the
#: standard library, and starting four interpreters a match is most of a short match's cost.
PYTHON: Final = (sys.executable, "-S", "-I")
TARGET_SHARE: Final = 0.70


@dataclass(frozen=True)
class RefereeBench:
    matches: int
    decisions: int
    seconds: float
    raw_round_trips: int
    raw_seconds: float

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds

    @property
    def raw_per_second(self) -> float:
        return self.raw_round_trips / self.raw_seconds


def sample_act_lines(seed: int, count: int) -> list[bytes]:
    """Real ``act`` lines, events included, as the referee sends them in random matches."""
    rng = random.Random(seed)
    lines: list[bytes] = []
    match = Match(seed)
    pending: dict[Seat, list[PublicEvent]] = {seat: [] for seat in SEATS}
    while len(lines) < count:
        if match.is_over:
            match = Match(seed + len(lines))
        seat = match.turn
        assert seat is not None
        legal = match.legal_actions()
        events, pending[seat] = pending[seat], []
        act = Act(
            id=len(lines) + 1,
            events=events,
            view=match.view(seat),
            legal_actions=legal,
            time_ms=1000,
        )
        lines.append(encode_line(act))
        for event in match.apply(seat, rng.choice(legal)):
            if isinstance(event, PublicEvent):
                for queue in pending.values():
                    queue.append(event)
    return lines


async def raw_pipe_rate(lines: list[bytes], rounds: int) -> tuple[int, float]:
    """Round trips between this process and an echo process over pipes, and their seconds."""
    bot = BotProcess.start("A", shlex.join([*PYTHON, str(ECHO)]), None, 0)
    connection = BotConnection("A", bot.stdin, bot.stdout, 1 << 20)
    try:
        for line in lines[:50]:  # warm up
            await connection.send(line)
            await connection.receive_line()
        started = trio.current_time()
        for i in range(rounds):
            await connection.send(lines[i % len(lines)])
            await connection.receive_line()
        return rounds, trio.current_time() - started
    finally:
        await bot.close()


async def _run(matches: int, seed: int, rounds: int) -> RefereeBench:
    """Matches and raw round trips in alternating rounds, so both see the same machine."""
    command = shlex.join([*PYTHON, str(INSTANT_BOT)])
    commands: dict[Seat, str] = dict.fromkeys(SEATS, command)
    lines = sample_act_lines(seed, 2000)
    decisions = raw_trips = 0
    seconds = raw_seconds = 0.0
    with tempfile.TemporaryDirectory() as directory:
        for round_number in range(rounds):
            round_decisions = 0
            for i in range(round_number, matches, rounds):
                settings = MatchSettings(seed=seed + i)
                outcome = await run_match(settings, commands, Path(directory) / f"{i}.jsonl")
                round_decisions += outcome.decisions
                seconds += outcome.play_seconds
            decisions += round_decisions
            trips, elapsed = await raw_pipe_rate(lines, max(round_decisions, 200))
            raw_trips += trips
            raw_seconds += elapsed
    return RefereeBench(matches, decisions, seconds, raw_trips, raw_seconds)


def run(matches: int, seed: int, rounds: int = 5) -> RefereeBench:
    return trio.run(_run, matches, seed, min(rounds, matches))
