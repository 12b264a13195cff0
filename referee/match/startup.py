"""The start of a match: ``hello`` to every seat at once and a ``ready`` from each, a kept
process that cannot start its next match replaced by a fresh one, and the forfeit (or void
match) of seats whose bots did not start."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio

from referee.errors import BotFault
from referee.match.clock import Clock
from referee.match.connection import BotConnection
from referee.match.exchange import Greeting
from referee.match.faults import Explain, explained
from referee.match.outcome import MatchOver, SeatLost, forfeit
from referee.match.seat import SeatState
from referee.record.log import LogWriter
from referee.record.records import BotReady, Timing
from referee.rules.deal import Stream
from referee.rules.tiles import PARTNERSHIP_OF, Seat
from referee.wire.messages import PROTOCOL_VERSION, Hello, Limits, Ready

#: How the runner replaces a kept bot that failed to start its next match: a fresh process's
#: connection for the seat, or ``BotStartFailed``.
Restart = Callable[[Seat], Awaitable[BotConnection]]


def bot_seed(match_seed: int, seat: Seat) -> int:
    """The seed told to a bot for its own randomness: derived from, but not revealing, the
    match seed."""
    stream = Stream(f"{match_seed}/bot/{seat}")
    return (stream.uniform(2**32) << 32) | stream.uniform(2**32)


def hello(match_seed: int, seat: Seat, limits: Limits) -> Hello:
    """The ``hello`` a seat is greeted with: its seat, its partnership, its own seed and the
    match's limits (``referee ask`` greets a bot with the same one)."""
    seed = bot_seed(match_seed, seat)
    return Hello(
        protocol=PROTOCOL_VERSION,
        seat=seat,
        partnership=PARTNERSHIP_OF[seat],
        seed=seed,
        limits=limits,
        seed_text=str(seed),
    )


class Startup:
    """Greets the seats and writes what came of it: ``bot_ready`` records, start faults."""

    def __init__(
        self,
        seats: dict[Seat, SeatState],
        log: LogWriter,
        clock: Clock,
        max_rejections: int,
        limits: Limits,
        seed: int,
        explain: Explain | None,
        restart: Restart | None,
    ) -> None:
        self.seats = seats
        self.log = log
        self.clock = clock
        self.max_rejections = max_rejections
        self.limits = limits
        self.seed = seed
        self.explain = explain
        self.restart = restart

    async def run(self) -> None:
        """Every seat ready, or ``MatchOver``: the seats are greeted concurrently, so one slow
        starter costs the others nothing."""
        readies: dict[Seat, tuple[Ready, float]] = {}
        lost: list[SeatLost] = []

        async def greet(state: SeatState) -> None:
            try:
                ready = await self._greet(state)
            except SeatLost as exc:  # raised after the greetings, not in their nursery
                lost.append(exc)
                return
            if ready is not None:
                readies[state.seat] = ready

        self.log.flush()
        async with trio.open_nursery() as nursery:
            for state in self.seats.values():
                if state.dead is None:
                    nursery.start_soon(greet, state)
        if lost:
            raise lost[0]
        for seat, (ready, latency) in sorted(readies.items()):
            state = self.seats[seat]
            state.name, state.declared = ready.name, ready.matches
            previous = state.previous_matches
            self.log.write(
                BotReady(
                    seat=seat,
                    name=ready.name,
                    timing=Timing(latency_ms=latency),
                    matches=ready.matches,
                    reused=previous > 0,
                    previous_matches=previous,
                )
            )
        failed = [(state, state.dead) for state in self.seats.values() if state.dead is not None]
        for state, fault in failed:
            self.log.write(state.charge(fault, "forfeit", None, None))
        if not failed:
            return
        if len({PARTNERSHIP_OF[state.seat] for state, _ in failed}) == 2:
            raise MatchOver("void", "bots of both partnerships failed to start")
        first, fault = failed[0]
        raise forfeit(first.seat, fault, "failed to start")

    async def _greet(self, state: SeatState) -> tuple[Ready, float] | None:
        """The seat's ``ready`` and its latency, or None with ``state.dead`` saying why."""
        seat = state.seat
        try:
            return await self._hello(state)
        except BotFault as fault:
            failure = await explained(self.explain, seat, fault)
        if state.previous_matches == 0 or self.restart is None:
            state.dead = failure
            return None
        # A kept process that could not start its next match: a fresh one takes the seat,
        # and the fault is this match's record of it, costing nothing more.
        self.log.write(state.charge(failure, "restart", None, None))
        state.previous_matches = 0
        try:
            state.connection = await self.restart(seat)
            return await self._hello(state)
        except BotFault as fault:
            state.dead = await explained(self.explain, seat, fault)
        return None

    async def _hello(self, state: SeatState) -> tuple[Ready, float]:
        """Send ``hello`` and wait up to the startup limit for ``ready``: the bot's answer and
        how many milliseconds it took."""
        started = trio.current_time()
        greeting = Greeting(
            state, self.log, self.max_rejections, hello(self.seed, state.seat, self.limits)
        )
        ready = await greeting.run(self.clock.startup_deadline(started))
        return ready, (trio.current_time() - started) * 1000
