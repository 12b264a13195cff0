"""Decisions per second through the whole referee, against the pipes' own round-trip rate.

Both halves run in the same process, over the same kind of pipes, with the same bytes: an
echo process answers real ``act`` lines (recorded from random matches) as fast as the pipe
allows — the ceiling; and full matches between instant bots run through the real referee
(processes, views, validation, events, the log). The two alternate in rounds so that both
see the same machine, and on a machine of two CPUs or more both run the same way: the
referee on one CPU, the bots (or the echo) on another (see ``cpus``). Bot start-up is not
counted.
"""

from __future__ import annotations

import contextlib
import os
import random
import shlex
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import trio

from referee.match.connection import BotConnection
from referee.match.process import BotProcess
from referee.match.runner import run_match
from referee.match.source import FreshBots
from referee.rules import SEATS, Match, Seat
from referee.sandbox.policy import SandboxPlan
from referee.sandbox.policy import plan as plan_sandbox
from referee.settings import MatchSettings, SandboxSettings
from referee.wire.messages import Act, PublicEvent, encode_line

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
    #: Round trips per second taking turns among four echo processes, as a match's seats do.
    turns_per_second: float
    #: The referee and the bots ran on CPUs of their own (see ``cpus``).
    pinned: bool = False

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


def cpus() -> tuple[set[int], set[int]] | None:
    """(the referee's CPU, the bots' CPU) when the benchmark pins them, else None.

    Left to the scheduler, one echo process shares the referee's CPU in some runs (a round trip
    of about 33 us here) and sits on the other in others (85 us: waking another CPU is costly
    in a VM), while a match's four bots nearly always run on the other: the share would swing
    between 30% and 70% with where the echo landed. Pinned, both halves cross between CPUs
    at every round trip, as a match on a busy machine does.
    """
    available = sorted(os.sched_getaffinity(0))
    if len(available) < 2:
        return None
    return {available[0]}, {available[-1]}


def pin(pid: int, where: tuple[set[int], set[int]] | None) -> None:
    if where is not None:
        with contextlib.suppress(OSError):  # a seat under another uid may refuse it
            os.sched_setaffinity(pid, where[1])


class PinnedBots(FreshBots):
    """Fresh bots for each match, each moved to the bots' CPU once started."""

    def __init__(self, plan: SandboxPlan, where: tuple[set[int], set[int]] | None) -> None:
        super().__init__(plan)
        self.where = where

    async def take(
        self, seat: Seat, command: str, stderr: Path, settings: MatchSettings
    ) -> BotProcess:
        bot = await super().take(seat, command, stderr, settings)
        pin(bot.process.pid, self.where)
        return bot


async def raw_pipe_rate(
    lines: list[bytes],
    rounds: int,
    where: tuple[set[int], set[int]] | None = None,
    processes: int = 1,
) -> tuple[int, float]:
    """Round trips between this process and echo processes over pipes, taking turns as a
    match's seats do, and their seconds. One process is the pipes' own rate; four show what
    taking turns among a match's four bots costs by itself."""
    bots = [
        BotProcess.start(SEATS[n], shlex.join([*PYTHON, str(ECHO)]), None, 0)
        for n in range(processes)
    ]
    try:
        connections = []
        for bot in bots:
            pin(bot.process.pid, where)
            connections.append(BotConnection(bot.seat, bot.stdin, bot.stdout, 1 << 20))
        for i, line in enumerate(lines[:50]):  # warm up
            await connections[i % processes].send(line)
            await connections[i % processes].receive_line()
        started = trio.current_time()
        for i in range(rounds):
            connection = connections[i % processes]
            await connection.send(lines[i % len(lines)])
            await connection.receive_line()
        return rounds, trio.current_time() - started
    finally:
        for bot in bots:
            await bot.close()


async def _run(matches: int, seed: int, rounds: int) -> RefereeBench:
    """Matches and raw round trips in alternating rounds, so both see the same machine."""
    command = shlex.join([*PYTHON, str(INSTANT_BOT)])
    commands: dict[Seat, str] = dict.fromkeys(SEATS, command)
    lines = sample_act_lines(seed, 2000)
    decisions = raw_trips = turns_trips = 0
    seconds = raw_seconds = turns_seconds = 0.0
    where = cpus()
    before = os.sched_getaffinity(0)
    if where is not None:
        os.sched_setaffinity(0, where[0])
    try:
        with tempfile.TemporaryDirectory() as directory:
            for round_number in range(rounds):
                round_decisions = 0
                for i in range(round_number, matches, rounds):
                    settings = MatchSettings(seed=seed + i)
                    log = Path(directory) / f"{i}.jsonl"
                    sandbox = plan_sandbox(SandboxSettings(), settings, commands, [log.parent])
                    bots = PinnedBots(sandbox, where)
                    outcome = await run_match(settings, commands, log, sandbox, bots)
                    round_decisions += outcome.decisions
                    seconds += outcome.play_seconds
                decisions += round_decisions
                trips, elapsed = await raw_pipe_rate(lines, max(round_decisions, 200), where)
                raw_trips += trips
                raw_seconds += elapsed
                trips, elapsed = await raw_pipe_rate(lines, trips, where, processes=4)
                turns_trips += trips
                turns_seconds += elapsed
    finally:
        os.sched_setaffinity(0, before)
    return RefereeBench(
        matches,
        decisions,
        seconds,
        raw_trips,
        raw_seconds,
        turns_trips / turns_seconds,
        where is not None,
    )


def run(matches: int, seed: int, rounds: int = 5) -> RefereeBench:
    return trio.run(_run, matches, seed, min(rounds, matches))


def lines(matches: int, seed: int) -> Iterator[str]:
    """Run the benchmark; its lines for people, the figure last."""
    result = run(matches, seed)
    pinned = ", the referee and the bots on CPUs of their own" if result.pinned else ""
    yield (
        f"raw pipe: {result.raw_per_second:.0f} round trips/s"
        f" ({result.raw_round_trips} act lines echoed by a Python process{pinned})"
    )
    yield (
        f"four echo processes taking turns: {result.turns_per_second:.0f} round trips/s"
        f" ({result.turns_per_second / result.raw_per_second:.0%} of one: what taking turns"
        " among four bots costs with no referee work at all)"
    )
    yield (
        f"referee: {result.matches} matches, {result.decisions} decisions"
        f" in {result.seconds:.2f} s of play (start-up excluded);"
        f" {result.decisions_per_second / result.turns_per_second:.0%} of the four echoes' rate"
    )
    share = result.decisions_per_second / result.raw_per_second
    yield f"target: {TARGET_SHARE:.0%} of the raw pipe rate"
    yield f"referee: {result.decisions_per_second:.0f} decisions/s ({share:.0%} of raw pipe rate)"
