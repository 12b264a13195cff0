"""One seat's bot on a Dask worker: started under this machine's sandbox, its lines relayed
to a referee elsewhere as Dask calls.

``SeatHost`` is a Dask actor. Its methods are coroutines, so Dask runs them on the worker's
event loop (a plain method would wait in the worker's one actor thread behind every other
seat's). The bot itself is handled by the referee's own ``BotProcess`` in a trio thread of
the host's: started in that thread, a sandboxed bot dies with it — and so with the worker,
``kill -9`` included (its parent-death signal). Each call crosses to that thread and back
without blocking the event loop.

What the bot writes is kept with its offset in the whole output: the referee asks "from
offset N", so an answer is never lost to a call the referee gave up on (its deadline), only
read again. The host ends its bot when the referee is gone: once the referee's Dask client
has left, the scheduler releases this actor's key, and a watchdog here closes the bot.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path
from typing import Any, Final, TypeVar

import msgspec
import trio

from referee.errors import BotFault
from referee.match.process import BotProcess, StderrSink
from referee.record.sandbox import Layer, SandboxReport
from referee.rules.tiles import Seat
from referee.sandbox import resident
from referee.sandbox.policy import plan as plan_sandbox
from referee.sandbox.seats import MatchJails
from referee.settings import MatchSettings, SandboxSettings

#: Seconds between the watchdog's looks at whether the referee still holds this seat.
WATCH_PERIOD: Final = 0.25
#: Seconds the last lines wait to be written to a bot before it is closed all the same.
CLOSE_WAIT: Final = 1.0
#: Bytes of the bot's output held unread before the host stops reading it (the referee's
#: line bound refuses any line this long anyway).
HELD_OUTPUT: Final = 1 << 20

_T = TypeVar("_T")


class SeatStart(msgspec.Struct, frozen=True):
    """What a seat is started with: its bot, the match's limits, the sandbox to plan here."""

    seat: Seat
    command: str
    commands: dict[Seat, str]
    settings: MatchSettings
    sandbox: SandboxSettings
    #: Paths no bot may read (the referee's log folder, if this worker shares its machine).
    secrets: list[str]
    #: Another match on these deals was played before: the lookup caches are wiped first.
    after_same_deals: bool = False


class SeatStarted(msgspec.Struct, frozen=True):
    """The seat's bot is running: the layers it runs under here, and where "here" is."""

    sandbox: SandboxReport
    worker: str
    host: str
    kernel: str


class SeatClosed(msgspec.Struct, frozen=True):
    """The bot is gone: how it ended, and its stderr as kept (up to the match's bound)."""

    returncode: int | None
    stderr: bytes
    dropped: int


class Output(msgspec.Struct, frozen=True):
    """What the bot wrote from the offset asked: ``data`` (empty at the end of its output,
    None when nothing came in the wait), and the seconds from the last write to the bot
    until the first of these bytes came (how long the bot took, on this host's clock)."""

    data: bytes | None
    since_write: float | None = None
    #: The lines sent with this call could not be written: the bot closed its input.
    input_closed: bool = False


class SeatEnded(Exception):
    """The host ended the seat's bot (its referee let the seat go): no line goes to it now,
    and nothing it did is to be judged."""


class TimeoutCheck(msgspec.Struct, frozen=True):
    """What the host says after a decision timed out: whether a write waits for the bot to
    read, and whether the call numbered as asked was taken yet (else the ``act`` never
    reached the bot in time: not its fault)."""

    stuck: bool
    taken: bool


def kernel_id() -> str:
    """This machine's running kernel (its boot id): two workers with the same one share every
    kernel-wide counter, whatever their addresses say."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return f"unknown:{socket.gethostname()}"


def whereabouts() -> tuple[str, str]:
    """Run on a worker: its host name and its kernel."""
    return socket.gethostname(), kernel_id()


class _HeldStderr(StderrSink):
    """A bot's stderr kept in memory up to its bound, to be sent to the referee's copy."""

    def __init__(self, limit: int) -> None:
        super().__init__(None, limit)
        self.held = bytearray()

    def write(self, data: bytes | bytearray) -> None:
        before = self.written
        super().write(data)
        self.held += data[: self.written - before]


class _Relay:
    """The bot's pipes, read and written on the worker's event loop (where the referee's
    calls arrive: no crossing to another thread on the way of a line)."""

    def __init__(self, bot: BotProcess, jails: MatchJails, freeze: bool) -> None:
        self.bot = bot
        self.jails = jails
        self.freeze_idle = freeze
        self.output = bytearray()
        #: The offset of ``output``'s first byte in all the bot wrote.
        self.base = 0
        self.ended = False
        self.written_at: float | None = None
        self.arrived_at: float | None = None
        self.input_closed = False
        self.frozen = False
        self.closed: SeatClosed | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None
        self._reading = False
        self._detached = False
        #: A write waits for the bot to read (its pipe is full): what it waits on.
        self._writable: asyncio.Future[None] | None = None

    @property
    def stuck(self) -> bool:
        """Whether a write waits for the bot to read."""
        return self._writable is not None

    # -- on the event loop ------------------------------------------------------------------

    def attach(self) -> None:
        """Start reading the bot's output (on the event loop)."""
        self._loop = asyncio.get_running_loop()
        self._changed = asyncio.Event()
        self._resume_reading()

    def detach(self) -> None:
        """Stop watching the bot's pipes for good (before they are closed): a write that waits
        for the bot gives up."""
        self._detached = True
        self._pause_reading()
        if self._writable is not None and self._loop is not None:
            self._loop.remove_writer(self._stdin_fd())
            self._writable.cancel()

    def _pause_reading(self) -> None:
        if self._loop is not None and self._reading:
            self._loop.remove_reader(self.bot.stdout.fileno())
            self._reading = False

    def _resume_reading(self) -> None:
        if self._detached:
            return
        if not self._reading and not self.ended and self._loop is not None:
            self._loop.add_reader(self.bot.stdout.fileno(), self._readable)
            self._reading = True

    def _readable(self) -> None:
        try:
            data = os.read(self.bot.stdout.fileno(), 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not self.output:
            self.arrived_at = time.monotonic()
        if data:
            self.output += data
            if len(self.output) >= HELD_OUTPUT:  # much unread: wait for the referee
                self._pause_reading()
        else:
            self.ended = True
            self._pause_reading()
        self._wake()

    def _wake(self) -> None:
        assert self._changed is not None
        self._changed.set()
        self._changed = asyncio.Event()

    async def read(self, offset: int, wait: float) -> Output:
        if self._detached and not self.output and not self.ended:
            raise SeatEnded
        drop = min(max(0, offset - self.base), len(self.output))
        if drop:
            del self.output[:drop]
            self.base += drop
            if not self.output:  # what is left came no earlier than the first byte did
                self.arrived_at = None
            self._resume_reading()
        if not self.output and not self.ended:
            assert self._changed is not None
            with suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), wait)
        if self.output:
            since = None
            if self.written_at is not None and self.arrived_at is not None:
                since = max(0.0, self.arrived_at - self.written_at)
            return Output(bytes(self.output), since)
        return Output(b"" if self.ended else None)

    async def write(self, data: bytes) -> bool:
        """Write to the bot (thawed first, under freeze); False once its input is closed.
        ``SeatEnded`` once the host has let it go."""
        if self._detached:
            raise SeatEnded
        if self.frozen:
            self.thaw()
        if self.input_closed:
            return False
        view = memoryview(data)
        fd = self._stdin_fd()
        while view:
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                assert self._loop is not None
                ready = self._writable = self._loop.create_future()
                self._loop.add_writer(fd, ready.set_result, None)
                try:
                    await ready
                except asyncio.CancelledError:  # detached: the host ends the bot
                    raise SeatEnded from None
                finally:
                    self._writable = None
                    if not self._detached:
                        self._loop.remove_writer(fd)
            except OSError:  # EPIPE: the bot closed its input
                self.input_closed = True
                return False
        self.written_at = time.monotonic()
        return True

    def _stdin_fd(self) -> int:
        stdin = self.bot.stdin
        assert isinstance(stdin, trio.lowlevel.FdStream)
        return stdin.fileno()

    def freeze(self) -> None:
        if self.freeze_idle and not self.frozen:
            self.frozen = True
            self.bot.pause()

    def thaw(self) -> None:
        if self.frozen:
            self.frozen = False
            self.bot.resume()

    # -- in the trio thread -----------------------------------------------------------------

    async def explain(self, fault: BotFault) -> BotFault:
        return await self.bot.explain(fault)

    async def close(self) -> SeatClosed:
        """End the bot (its pipes detached from the event loop first)."""
        if self.closed is None:
            self.thaw()
            code = await self.bot.close()
            if self.bot.jail is not None:
                self.jails.release(self.bot.jail)
            self.jails.close()
            sink = self.bot.stderr
            held = bytes(sink.held) if isinstance(sink, _HeldStderr) else b""
            self.closed = SeatClosed(returncode=code, stderr=held, dropped=sink.dropped)
        return self.closed


class SeatHost:
    """A Dask actor: one seat's bot on this worker, for the referee that made the actor."""

    def __init__(self) -> None:
        self._token: trio.lowlevel.TrioToken | None = None
        self._nursery: trio.Nursery | None = None
        self._relay: _Relay | None = None
        self._stop: trio.Event | None = None
        self._ending: asyncio.Future[SeatClosed | None] | None = None
        #: The number of the seat's next call to take, and the wait for it.
        self._turn = 1
        self._order: asyncio.Condition | None = None

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

        async def run() -> None:
            try:
                result = await work()
            except Exception as exc:
                loop.call_soon_threadsafe(settle, None, exc)
            except BaseException:  # the thread is ending: the caller must not wait forever
                loop.call_soon_threadsafe(settle, None, SeatEnded())
                raise
            else:
                loop.call_soon_threadsafe(settle, result, None)

        assert self._token is not None and self._nursery is not None
        nursery = self._nursery
        self._token.run_sync_soon(nursery.start_soon, run)
        return await future

    def _relayed(self) -> _Relay:
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

    async def _start(self, request: SeatStart) -> _Relay:
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
        bot.stderr = _HeldStderr(request.settings.stderr_limit)
        assert self._nursery is not None
        self._nursery.start_soon(bot.drain_stderr)
        return _Relay(bot, jails, bool(request.settings.freeze_idle))

    async def _watch(self, worker: Any, key: Any) -> None:
        """End the bot once the referee no longer holds this seat (its client left)."""
        while worker.state.actors.get(key) is self:
            await asyncio.sleep(WATCH_PERIOD)
        await self._end_once()

    def _stop_thread(self) -> None:
        if self._token is not None and self._stop is not None:
            with suppress(trio.RunFinishedError):
                self._token.run_sync_soon(self._stop.set)

    async def _in_order(self, sequence: int) -> _Relay:
        """Wait for the seat's call numbered ``sequence``'s turn (see ``bot.RemoteBot``)."""
        relay = self._relayed()
        if self._order is None:
            self._order = asyncio.Condition()
        async with self._order:
            await self._order.wait_for(lambda: self._turn == sequence)
        return relay

    async def _done(self) -> None:
        assert self._order is not None
        async with self._order:
            self._turn += 1
            self._order.notify_all()

    async def write(self, sequence: int, data: bytes) -> bool:
        relay = await self._in_order(sequence)
        try:
            return await relay.write(data)
        finally:
            await self._done()

    async def exchange(self, sequence: int, data: bytes, offset: int, wait: float) -> Output:
        """Write ``data`` to the bot, then read from ``offset``: a decision in one call."""
        if not await self.write(sequence, data):
            return Output(None, input_closed=True)
        return await self._relayed().read(offset, wait)

    async def read(self, offset: int, wait: float) -> Output:
        return await self._relayed().read(offset, wait)

    async def freeze(self, sequence: int) -> None:
        (await self._in_order(sequence)).freeze()
        await self._done()

    async def thaw(self, sequence: int) -> None:
        (await self._in_order(sequence)).thaw()
        await self._done()

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
