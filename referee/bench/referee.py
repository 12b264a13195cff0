"""Decisions per second through the whole referee, against the pipes' own round-trip rate.

Both halves run in the same process, over the same kind of pipes, with the same bytes: an
echo process answers real ``act`` lines (recorded from random matches) as fast as the pipe
allows — the ceiling; and full matches between instant bots run through the real referee
(processes, views, validation, events, the log). The two alternate in rounds — a match, then
as many round trips through the echo — until the matches have played the seconds asked, and
the figure is the median of the rounds' ratios: both halves of a round see the same moment of
the machine, and a moment when it was busy (on a machine shared with other work, one in a few)
moves the median little. On a machine of two CPUs or more both halves run the same way: the
referee on one CPU, the bots (or the echo) on another (see ``cpus``). Bot start-up is not
counted.
"""

from __future__ import annotations

import contextlib
import os
import random
import shlex
import statistics
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

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

#: A round of a bench: its figures are ratios within it.
R = TypeVar("R")

HERE: Final = Path(__file__).resolve().parent
INSTANT_BOT: Final = HERE / "instant_bot.py"
ECHO: Final = HERE / "echo.py"
#: How the benchmark bots are started: no site packages, isolated — they only need the
#: standard library, and starting four interpreters a match is most of a short match's cost.
PYTHON: Final = (sys.executable, "-S", "-I")
TARGET_SHARE: Final = 0.70
#: Rounds measured however short ``seconds`` is: a median needs a few.
MIN_ROUNDS: Final = 5


@dataclass(frozen=True)
class Round:
    """One match through the referee, then the echoes for as many round trips."""

    decisions: int
    seconds: float
    raw_per_second: float
    #: Round trips per second taking turns among four echo processes, as a match's seats do.
    turns_per_second: float

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds

    @property
    def share(self) -> float:
        """The referee's rate over the pipes' rate of the same moment."""
        return self.decisions_per_second / self.raw_per_second


@dataclass(frozen=True)
class RefereeBench:
    rounds: list[Round]
    #: The referee and the bots ran on CPUs of their own (see ``cpus``).
    pinned: bool = False

    @property
    def decisions(self) -> int:
        return sum(r.decisions for r in self.rounds)

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.rounds)

    def median(self, figure: Callable[[Round], float]) -> float:
        return median_of(self.rounds, figure)

    def middle_half(self, figure: Callable[[Round], float]) -> tuple[float, float]:
        return middle_half(self.rounds, figure)


def median_of(rounds: Sequence[R], figure: Callable[[R], float]) -> float:
    """``figure``'s median over the rounds: each a ratio within one round, so that both its
    halves saw the same moment of the machine."""
    return statistics.median(figure(r) for r in rounds)


def middle_half(rounds: Sequence[R], figure: Callable[[R], float]) -> tuple[float, float]:
    """The quartiles of ``figure`` over the rounds: how steady the machine was."""
    quartiles = statistics.quantiles((figure(r) for r in rounds), n=4)
    return quartiles[0], quartiles[2]


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


class Echoes:
    """Echo processes kept for a whole run (each started and warmed up once, on the bots' CPU):
    ``seconds`` times round trips through them, taking turns as a match's seats do. One
    process is the pipes' own rate; four show what taking turns among a match's four bots
    costs by itself."""

    def __init__(self, lines: list[bytes], bots: list[BotProcess]) -> None:
        self.lines = lines
        self.bots = bots
        self.connections = [BotConnection(b.seat, b.stdin, b.stdout, 1 << 20) for b in bots]

    @classmethod
    @contextlib.asynccontextmanager
    async def started(
        cls, lines: list[bytes], processes: int, where: tuple[set[int], set[int]] | None
    ) -> AsyncIterator[Echoes]:
        command = shlex.join([*PYTHON, str(ECHO)])
        bots = [BotProcess.start(SEATS[n], command, None, 0) for n in range(processes)]
        try:
            for bot in bots:
                pin(bot.process.pid, where)
            echoes = cls(lines, bots)
            await echoes.seconds(50)  # warm up
            yield echoes
        finally:
            for bot in bots:
                await bot.close()

    async def seconds(self, trips: int) -> float:
        started = trio.current_time()
        for i in range(trips):
            connection = self.connections[i % len(self.connections)]
            await connection.send(self.lines[i % len(self.lines)])
            await connection.receive_line()
        return trio.current_time() - started


async def raw_pipe_rate(
    lines: list[bytes], trips: int, where: tuple[set[int], set[int]] | None = None
) -> float:
    """Round trips per second between this process and an echo process over pipes."""
    async with Echoes.started(lines, 1, where) as echo:
        return trips / await echo.seconds(trips)


async def _match(
    seed: int, directory: Path, where: tuple[set[int], set[int]] | None
) -> tuple[int, float]:
    """(decisions, seconds of play) of one match between instant bots, start-up excluded."""
    command = shlex.join([*PYTHON, str(INSTANT_BOT)])
    commands: dict[Seat, str] = dict.fromkeys(SEATS, command)
    settings = MatchSettings(seed=seed)
    log = directory / f"{seed}.jsonl"
    sandbox = plan_sandbox(SandboxSettings(), settings, commands, [log.parent])
    outcome = await run_match(settings, commands, log, sandbox, PinnedBots(sandbox, where))
    return outcome.decisions, outcome.play_seconds


async def _run(seconds: float, seed: int) -> RefereeBench:
    """Rounds of one match, then the echoes for as many round trips (at least 200), until
    the matches have played ``seconds`` (and at least ``MIN_ROUNDS`` rounds): each round's
    halves see the same moment of the machine, and the medians shrug off a busy one."""
    lines = sample_act_lines(seed, 2000)
    where = cpus()
    before = os.sched_getaffinity(0)
    if where is not None:
        os.sched_setaffinity(0, where[0])
    rounds: list[Round] = []
    try:
        with tempfile.TemporaryDirectory() as directory:
            async with (
                Echoes.started(lines, 1, where) as echo,
                Echoes.started(lines, 4, where) as turns,
            ):
                played = 0.0
                while played < seconds or len(rounds) < MIN_ROUNDS:
                    decisions, play = await _match(seed + len(rounds), Path(directory), where)
                    trips = max(decisions, 200)
                    raw = trips / await echo.seconds(trips)
                    rounds.append(Round(decisions, play, raw, trips / await turns.seconds(trips)))
                    played += play
    finally:
        os.sched_setaffinity(0, before)
    return RefereeBench(rounds, where is not None)


def run(seconds: float, seed: int) -> RefereeBench:
    return trio.run(_run, seconds, seed)


def _percents(low_high: tuple[float, float]) -> str:
    return f"{low_high[0]:.0%} to {low_high[1]:.0%}"


def lines(seconds: float, seed: int) -> Iterator[str]:
    """Run the benchmark; its lines for people, the figure last: the median over the rounds
    of the referee's rate against the pipes' rate of the same round."""
    result = run(seconds, seed)
    pinned = ", the referee and the bots on CPUs of their own" if result.pinned else ""
    raw = result.median(lambda r: r.raw_per_second)
    turns = result.median(lambda r: r.turns_per_second / r.raw_per_second)
    yield (
        f"raw pipe: {raw:.0f} round trips/s, the median of {len(result.rounds)} rounds"
        f" (act lines echoed by a Python process{pinned})"
    )
    yield (
        f"four echo processes taking turns: {turns:.0%} of one (what taking turns among four"
        " bots costs with no referee work at all)"
    )
    of_turns = result.median(lambda r: r.decisions_per_second / r.turns_per_second)
    yield (
        f"referee: {len(result.rounds)} matches, {result.decisions} decisions"
        f" in {result.seconds:.2f} s of play (start-up excluded);"
        f" {of_turns:.0%} of the four echoes' rate"
    )
    spread = _percents(result.middle_half(lambda r: r.share))
    yield f"middle half of the rounds: {spread} of the raw pipe rate"
    yield f"target: {TARGET_SHARE:.0%} of the raw pipe rate"
    share = result.median(lambda r: r.share)
    rate = result.median(lambda r: r.decisions_per_second)
    yield f"referee: {rate:.0f} decisions/s ({share:.0%} of raw pipe rate)"
