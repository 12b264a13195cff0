"""A seat's bot pipes on its worker's event loop: what the bot writes, kept with its offset
so that a read the referee gave up on loses nothing; what it is sent, and whether a write
waits for a bot that stopped reading; its stderr kept to be sent back."""

from __future__ import annotations

import asyncio
import os
import time
from contextlib import suppress
from typing import Final

import trio

from referee.apart.calls import Output, SeatClosed, SeatEnded
from referee.errors import BotFault
from referee.match.process import BotProcess
from referee.match.stderr import StderrSink
from referee.sandbox.seats import MatchJails

#: Bytes of the bot's output held unread before the host stops reading it (the referee's
#: line bound refuses any line this long anyway).
HELD_OUTPUT: Final = 1 << 20


class HeldStderr(StderrSink):
    """A bot's stderr kept in memory up to its bound, to be sent to the referee's copy."""

    def __init__(self, limit: int) -> None:
        super().__init__(None, limit)
        self.held = bytearray()

    def write(self, data: bytes | bytearray) -> None:
        before = self.written
        super().write(data)
        self.held += data[: self.written - before]


class Relay:
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
                async with asyncio.timeout(wait):  # no task of its own, as wait_for makes
                    await self._changed.wait()
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
            held = bytes(sink.held) if isinstance(sink, HeldStderr) else b""
            self.closed = SeatClosed(returncode=code, stderr=held, dropped=sink.dropped)
        return self.closed
