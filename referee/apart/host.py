"""One seat's bot on a Dask worker: started under this machine's sandbox, its lines relayed
to a referee elsewhere as Dask calls.

``SeatHost`` is a Dask actor. Its methods are coroutines, so Dask runs them on the worker's
event loop (a plain method would wait in the worker's one actor thread behind every other
seat's). The bot itself is handled by the referee's own ``BotProcess`` in a trio thread of
the host's: started in that thread, a sandboxed bot dies with it — and so with the worker,
``kill -9`` included (its parent-death signal). Its pipes are read and written on the event
loop (``relay.Relay``); starting, explaining and closing it cross to that thread and back
without blocking the loop.

The calls that change the seat come numbered, and are taken in that order whichever
connection brings each first (``bot.RemoteBot``). The host ends its bot when the referee is
gone: once the referee's Dask client has left, the scheduler releases this actor's key, and
a watchdog here closes the bot.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path
from typing import Any, Final, TypeVar

import msgspec
import trio

from referee.apart.calls import Output, SeatClosed, SeatEnded, SeatStart, SeatStarted, TimeoutCheck
from referee.apart.placement import whereabouts
from referee.apart.relay import HeldStderr, Relay
from referee.errors import BotFault
from referee.match.process import BotProcess
from referee.record.sandbox import Layer
from referee.sandbox import resident
from referee.sandbox.policy import plan as plan_sandbox
from referee.sandbox.seats import MatchJails

#: Seconds between the watchdog's looks at whether the referee still holds this seat.
WATCH_PERIOD: Final = 0.25
#: Seconds the last lines wait to be written to a bot before it is closed all the same.
CLOSE_WAIT: Final = 1.0

_T = TypeVar("_T")


class SeatHost:
    """A Dask actor: one seat's bot on this worker, for the referee that made the actor."""

    def __init__(self) -> None:
        self._token: trio.lowlevel.TrioToken | None = None
        self._nursery: trio.Nursery | None = None
        self._relay: Relay | None = None
        self._stop: trio.Event | None = None
        self._ending: asyncio.Future[SeatClosed | None] | None = None
        #: The number of the seat's next call to take, and the calls waiting for their turn.
        self._turn = 1
        self._waiting: dict[int, asyncio.Future[None]] = {}

    # -- the trio thread -----------------------------------------------------------------

    def _open(self) -> None:
        """Start the trio thread the bot lives in (and dies with)."""
        ready = threading.Event()

        async def main() -> None:
            self._token = trio.lowlevel.current_trio_token()
            self._stop = trio.Event()
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                ready.set()
                await self._stop.wait()
                nursery.cancel_scope.cancel()

        threading.Thread(target=trio.run, args=(main,), name="seat-host", daemon=True).start()
        ready.wait()

    async def _call(self, work: Callable[[], Awaitable[_T]]) -> _T:
        """Run ``work`` in the trio thread; its result here, without blocking the loop."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[_T] = loop.create_future()

        def settle(result: Any, error: BaseException | None) -> None:
            if future.done():
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)

        def answer(result: Any, error: BaseException | None) -> None:
            with suppress(RuntimeError):  # the worker's loop closed: the worker is going
                loop.call_soon_threadsafe(settle, result, error)

        async def run() -> None:
            try:
                result = await work()
            except Exception as exc:
                answer(None, exc)
            except BaseException:  # the thread is ending: the caller must not wait forever
                answer(None, SeatEnded())
                raise
            else:
                answer(result, None)

        assert self._token is not None and self._nursery is not None
        nursery = self._nursery
        self._token.run_sync_soon(nursery.start_soon, run)
        return await future

    def _relayed(self) -> Relay:
        if self._relay is None:
            raise RuntimeError("the seat's bot was not started")
        return self._relay

    # -- what the referee calls ------------------------------------------------------------

    async def start(self, request: SeatStart) -> SeatStarted:
        """Plan the sandbox here, start the bot in it; raises ``BotStartFailed`` (or the
        sandbox's ``OSError``, or ``SandboxRefused``) as a match here would. Whatever goes
        wrong after the bot started ends it."""
        from distributed import get_worker

        worker = get_worker()
        self._open()
        try:
            relay = await self._call(lambda: self._start(request))
        except BaseException:
            self._stop_thread()
            raise
        self._relay = relay
        try:
            relay.attach()
            me = next((k for k, actor in worker.state.actors.items() if actor is self), None)
            if me is None:  # released while it started: the referee has gone
                raise SeatEnded
            self._watchdog = asyncio.ensure_future(self._watch(worker, me))
        except BaseException:
            await self._end_once()
            raise
        host, kernel = whereabouts()
        report = relay.jails.plan.report
        return SeatStarted(sandbox=report, worker=worker.address, host=host, kernel=kernel)

    async def _start(self, request: SeatStart) -> Relay:
        from referee.match.runner import hold_pages

        limits = msgspec.structs.replace(request.settings, seed=0)
        plan = plan_sandbox(
            request.sandbox, limits, request.commands, [Path(p) for p in request.secrets]
        )
        await hold_pages(plan)
        if request.after_same_deals and Layer.PAGE_CACHE in plan.report.layers:
            # What an earlier match's bots left in the lookup caches would tell this one's
            # the deals: wiped, as a match here does (``running.worker``).
            await trio.to_thread.run_sync(resident.forget_lookups)
        jails = MatchJails(plan)
        try:
            jail = jails.jail(request.seat)
            bot = BotProcess.start(request.seat, request.command, None, 0, jail)
        except BaseException:
            jails.close()
            raise
        bot.stderr = HeldStderr(request.settings.stderr_limit)
        assert self._nursery is not None
        self._nursery.start_soon(bot.drain_stderr)
        return Relay(bot, jails, bool(request.settings.freeze_idle))

    async def _watch(self, worker: Any, key: Any) -> None:
        """End the bot once the referee no longer holds this seat (its client left)."""
        while worker.state.actors.get(key) is self:
            await asyncio.sleep(WATCH_PERIOD)
        await self._end_once()

    def _stop_thread(self) -> None:
        if self._token is not None and self._stop is not None:
            with suppress(trio.RunFinishedError):
                self._token.run_sync_soon(self._stop.set)

    async def _in_order(self, sequence: int) -> Relay:
        """Wait for the seat's call numbered ``sequence``'s turn (see ``bot.RemoteBot``)."""
        relay = self._relayed()
        if self._turn != sequence:
            turn = self._waiting[sequence] = asyncio.get_running_loop().create_future()
            await turn
        return relay

    def _done(self) -> None:
        """The call whose turn it was is taken: the next one's turn."""
        self._turn += 1
        turn = self._waiting.pop(self._turn, None)
        if turn is not None and not turn.done():
            turn.set_result(None)

    async def write(self, sequence: int, data: bytes) -> bool:
        relay = await self._in_order(sequence)
        try:
            return await relay.write(data)
        finally:
            self._done()

    async def exchange(self, sequence: int, data: bytes, offset: int, wait: float) -> Output:
        """Write ``data`` to the bot, then read from ``offset``: a decision in one call."""
        if not await self.write(sequence, data):
            return Output(None, input_closed=True)
        return await self._relayed().read(offset, wait)

    async def read(self, offset: int, wait: float) -> Output:
        return await self._relayed().read(offset, wait)

    async def freeze(self, sequence: int) -> None:
        (await self._in_order(sequence)).freeze()
        self._done()

    async def thaw(self, sequence: int) -> None:
        (await self._in_order(sequence)).thaw()
        self._done()

    async def state(self, sequence: int) -> TimeoutCheck:
        """After a timeout: is a write waiting for the bot, and was call ``sequence`` (the
        one that carried the ``act``) taken yet?"""
        return TimeoutCheck(stuck=self._relayed().stuck, taken=self._turn > sequence)

    async def explain(self, fault: BotFault) -> BotFault:
        relay = self._relayed()
        return await self._call(lambda: relay.explain(fault))

    async def ping(self) -> None:
        """Nothing: that it answers says the worker and the link are alive."""

    async def close(self, sequence: int) -> SeatClosed | None:
        """End the bot and its sandbox once the calls before have been taken (a write that
        waits for a bot that does not read is given up after ``CLOSE_WAIT``); how it ended
        and its stderr."""
        with suppress(TimeoutError):
            await asyncio.wait_for(self._in_order(sequence), CLOSE_WAIT)
        return await self._end_once()

    async def _end_once(self) -> SeatClosed | None:
        """End the bot and its sandbox (once, whoever asks first)."""
        if self._ending is None:
            self._ending = asyncio.ensure_future(self._end())
        return await asyncio.shield(self._ending)

    async def _end(self) -> SeatClosed | None:
        relay = self._relay
        if relay is None:
            return None
        relay.detach()
        try:
            return await self._call(relay.close)
        finally:
            self._stop_thread()
