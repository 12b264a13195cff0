"""A match with its seats apart: the four bots started at once, each on its worker, then the
match played here as any other, over their links.

Each seat is a ``SeatHost`` actor made on its worker for this match and released at its end
(releasing it ends the bot there, whatever became of the referee). Bots are always fresh: a
kept process would carry its memory from match to match, which a final must not allow.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import msgspec
import trio

from referee.apart.bot import RemoteBot
from referee.apart.calls import SeatStart, SeatStarted
from referee.apart.host import SeatHost
from referee.apart.link import SeatLink
from referee.errors import BotStartFailed, SandboxRefused
from referee.match.outcome import MatchOutcome, SeatLost
from referee.match.runner import run_match, stderr_path
from referee.match.stderr import StderrSink
from referee.match.trace import WireTrace
from referee.record.records import Placement
from referee.record.sandbox import SandboxReport
from referee.rules.tiles import SEATS, Seat
from referee.sandbox.policy import SandboxPlan
from referee.settings import MatchSettings, SandboxSettings

#: Seconds to make a seat's actor on its worker before the seat is given up as lost.
ACTOR_TIMEOUT: Final = 30.0


def preflight(
    commands: dict[Seat, str], sandbox: SandboxSettings, limits: MatchSettings, secrets: list[str]
) -> str | None:
    """Run on a worker: why the match's bots could not start there (a command missing, a
    sandbox refused), or None."""
    from referee.match.commands import problem
    from referee.sandbox.policy import plan

    for seat, command in commands.items():
        if why := problem(command):
            return f"seat {seat}: {why}"
    try:
        plan(sandbox, limits, commands, [Path(p) for p in secrets])
    except SandboxRefused as exc:
        return str(exc)
    return None


def check_workers(
    client: Any,
    workers: list[str],
    commands: dict[Seat, str],
    sandbox: SandboxSettings,
    limits: MatchSettings,
    secrets: list[str],
) -> str | None:
    """The first worker of ``workers`` that cannot start the bots, and why (None: all can)."""
    answers = client.run(
        preflight, commands, sandbox, limits, secrets, workers=workers, on_error="return"
    )
    for worker in workers:
        answer = answers.get(worker)
        if isinstance(answer, BaseException):
            return (
                f"Dask worker {worker} could not check the bots ({type(answer).__name__}:"
                f" {answer}): is this referee installed there, in the same version?"
            )
        if answer:
            return f"Dask worker {worker}: {answer}"
    return None


@dataclass
class SeatsApart:
    """The source of a match's bots when its seats are apart: each started on its worker."""

    client: Any
    placement: Placement
    sandbox: SandboxSettings
    secrets: list[str]
    nursery: trio.Nursery
    bots: dict[Seat, RemoteBot] = field(default_factory=dict)
    failed: dict[Seat, BaseException] = field(default_factory=dict)
    _futures: list[Any] = field(default_factory=list)

    async def open(
        self,
        commands: dict[Seat, str],
        settings: MatchSettings,
        log: Path,
        after_same_deals: bool = False,
    ) -> None:
        """Start the four bots at once, each on its worker (``after_same_deals``: another
        match on these deals was played before, so the workers wipe their lookup caches)."""
        async with trio.open_nursery() as nursery:
            for seat in SEATS:
                nursery.start_soon(self._open_seat, seat, commands, settings, log, after_same_deals)

    async def _open_seat(
        self,
        seat: Seat,
        commands: dict[Seat, str],
        settings: MatchSettings,
        log: Path,
        after_same_deals: bool,
    ) -> None:
        """Start the seat's bot on its worker. Its own failure to start is the bot's; the
        worker's (its sandbox cannot be made or is refused there, no answer) loses the seat."""
        worker = self.placement.seats[seat].worker
        request = SeatStart(
            seat=seat,
            command=commands[seat],
            commands=commands,
            settings=msgspec.structs.replace(settings, seed=0),  # the deals are the referee's
            sandbox=self.sandbox,
            secrets=self.secrets,
            after_same_deals=after_same_deals,
        )
        try:
            with trio.fail_after(settings.startup_timeout + ACTOR_TIMEOUT):
                link = await self._actor(seat, worker)
                started: SeatStarted = await link.call("start", request)
        except (BotStartFailed, SeatLost) as exc:
            self.failed[seat] = exc
            return
        except trio.TooSlowError:
            self.failed[seat] = SeatLost(seat, f"its worker {worker} did not start it in time")
            return
        except (OSError, SandboxRefused) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            self.failed[seat] = SeatLost(
                seat, f"its worker {worker} could not make the sandbox: {why}"
            )
            return
        stderr = StderrSink(stderr_path(log, seat), settings.stderr_limit)
        self.bots[seat] = RemoteBot(seat, commands[seat], link, started, stderr, self.nursery)

    async def _actor(self, seat: Seat, worker: str) -> SeatLink:
        """The seat's ``SeatHost`` made on its worker (released with the match)."""
        key = f"texas42-seat-{seat}-{secrets.token_hex(8)}"
        future = self.client.submit(
            SeatHost, actor=True, workers=[worker], allow_other_workers=False, pure=False, key=key
        )
        self._futures.append(future)
        try:
            await trio.to_thread.run_sync(future.result, ACTOR_TIMEOUT, abandon_on_cancel=True)
        except Exception as exc:
            raise SeatLost(seat, f"its worker {worker} could not host it: {exc}") from None
        return SeatLink(self.client, seat, worker, future.key)

    def report(self, mode: SandboxSettings) -> SandboxReport | None:
        """The sandbox as each seat's worker made it, one report for the header."""
        started = {seat: bot.started.sandbox for seat, bot in self.bots.items()}
        if not started:
            return None
        first = next(iter(started.values()))
        seats: dict[Seat, list[str]] = {seat: [] for seat in SEATS}
        off: dict[str, str] = {}
        for seat, report in started.items():
            seats[seat] = report.seats[seat]
            for key, why in report.off.items():
                named = key.split(" ", 1)
                if len(named) == 1 or named[1] == seat:
                    off.setdefault(key, why)
        return msgspec.structs.replace(first, mode=mode.mode, seats=seats, off=off)

    # -- a BotSource -----------------------------------------------------------------------

    async def take(
        self, seat: Seat, command: str, stderr: Path, settings: MatchSettings
    ) -> RemoteBot:
        if seat in self.bots:
            return self.bots[seat]
        failure = self.failed.get(seat)
        if failure is None:  # pragma: no cover - every seat was opened
            failure = BotStartFailed("the seat was not started")
        raise failure

    fresh = take

    async def give_back(self, bot: RemoteBot, reusable: bool) -> None:
        await bot.close()

    def close(self) -> None:
        for future in self._futures:
            future.release()
        self._futures.clear()

    def lost(self) -> SeatLost | None:
        """The first seat lost, if one was."""
        for bot in self.bots.values():
            if bot.link.lost is not None:
                return bot.link.lost
        return next((f for f in self.failed.values() if isinstance(f, SeatLost)), None)

    def relay(self) -> dict[Seat, dict[str, float]]:
        """Each seat's relay times (median, 99th percentile, largest), in milliseconds."""
        return {
            seat: summary
            for seat, bot in sorted(self.bots.items())
            if (summary := bot.relay.summary()) is not None
        }


@dataclass(frozen=True)
class ApartOutcome:
    """A match played apart: its outcome, where its seats ran, their relay times, and the
    seat lost if one was (the match is then void, and a competition plays it again)."""

    outcome: MatchOutcome
    placement: Placement
    relay: dict[Seat, dict[str, float]]
    lost: SeatLost | None


async def play_apart(
    client: Any,
    placement: Placement,
    settings: MatchSettings,
    commands: dict[Seat, str],
    log_path: Path,
    sandbox: SandboxSettings,
    secrets: list[str],
    trace: WireTrace | None = None,
    after_same_deals: bool = False,
) -> ApartOutcome:
    """Play one match with each seat on the worker ``placement`` gives it; a seat lost voids
    it (``ApartOutcome.lost``), a seat lost once it was decided changes nothing."""
    async with trio.open_nursery() as nursery:
        source = SeatsApart(client, placement, sandbox, secrets, nursery)
        try:
            await source.open(commands, settings, log_path, after_same_deals)
            limits = msgspec.structs.replace(settings, seed=0)
            report = source.report(sandbox) or SandboxReport(
                mode=sandbox.mode, seats={seat: [] for seat in SEATS}
            )
            plan = SandboxPlan(sandbox, limits, report)
            outcome = await run_match(
                settings, commands, log_path, plan, source, trace, placement=placement
            )
        finally:
            source.close()
            nursery.cancel_scope.cancel()
    lost = source.lost() if outcome.end == "void" else None
    return ApartOutcome(outcome, placement, source.relay(), lost)
