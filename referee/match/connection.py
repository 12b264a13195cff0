"""One seat's conversation with its bot: send lines, read bounded lines, judge each answer.

The connection works on any pair of trio streams — a subprocess's pipes in a real match,
in-memory streams in the tests — and knows nothing of the game beyond the message types.
Reading happens only while the referee waits for this bot, so one decision costs one write
and (usually) one read. A pipe (an ``FdStream``) is written and read on its descriptor
directly: ``FdStream`` yields to the scheduler before every write and every read, which is a
whole pass of trio's run loop (an ``epoll_wait`` among it) twice a decision for nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import TracebackType
from typing import Final, Protocol

import trio

from referee.errors import (
    BotCrashed,
    BotNotReading,
    BotTimeout,
    LineTooLong,
)
from referee.match.trace import LineSplitter, WireTrace
from referee.rules.tiles import Seat
from referee.wire.lines import LINE_TOO_LONG, LineBuffer

_READ_SIZE: Final = 65536
INPUT_CLOSED: Final = (
    "the bot closed its input: it exited or crashed (its stderr is kept beside the log)"
)


class Relay(Protocol):
    """What a seat relayed from another machine says of each decision: the relay's share of
    its time, in milliseconds (``referee.apart.bot.RelayMeter``)."""

    def take(self) -> float | None: ...


class BotConnection:
    """Lines to and from one bot over a send stream and a receive stream.

    Time limits come from ``deadline(when)``, one cancel scope around a whole exchange (an
    ``act`` and every answer to it), which names the fault by what was being waited for:
    ``BotNotReading`` while a line was being written, ``BotTimeout`` otherwise.
    """

    def __init__(
        self,
        seat: Seat,
        send_stream: trio.abc.SendStream,
        receive_stream: trio.abc.ReceiveStream,
        max_line_bytes: int,
        trace: WireTrace | None = None,
        relay: Relay | None = None,
        on_answer: Callable[[], None] | None = None,
    ) -> None:
        self.seat = seat
        #: A seat on another machine: the relay's share of each decision's time.
        self.relay = relay
        #: Told of every accepted answer (a bot's stderr is read from there on to explain a
        #: fault: ``BotProcess.connect``).
        self._on_answer = on_answer
        self._send_stream = send_stream
        self._receive_stream = receive_stream
        self._send_pipe = send_stream if isinstance(send_stream, trio.lowlevel.FdStream) else None
        self._receive_pipe = (
            receive_stream if isinstance(receive_stream, trio.lowlevel.FdStream) else None
        )
        self._lines = LineBuffer(max_line_bytes)
        self._eof = False
        self._sending = False
        #: ``--debug``: every line as it is written and read.
        self._trace = trace
        self._written = None if trace is None else LineSplitter(trace, seat, ">>")

    def deadline(self, when: float) -> Deadline:
        return Deadline(self, when)

    def answered(self) -> None:
        """The bot's answer was accepted: what it writes from now on is about what comes next."""
        if self._on_answer is not None:
            self._on_answer()

    def unread(self, count: int = 8) -> list[bytes]:
        """Up to ``count`` whole lines the bot wrote that were read and not yet judged."""
        return self._lines.held(count)

    def send_now(self, data: bytes) -> bytes:
        """Write what the pipe takes now, without waiting; return the rest (to ``send``).

        Other streams cannot be written without waiting: all of ``data`` is returned.
        """
        if self._send_pipe is None:
            return data
        try:
            sent = os.write(self._send_pipe.fileno(), data)
        except BlockingIOError:
            return data
        except OSError:  # EPIPE: the bot closed its input; EBADF: the stream was closed
            raise BotCrashed(INPUT_CLOSED) from None
        if self._written is not None:
            self._written.feed(data[:sent])
        return data[sent:]

    async def send(self, data: bytes, deadline: float | None = None) -> None:
        """Write ``data``; ``BotCrashed`` if the bot's input is closed."""
        if deadline is None:
            await self._send(data)
        else:
            with self.deadline(deadline):
                await self._send(data)

    async def _send(self, data: bytes) -> None:
        # Time already up before the first byte is a timeout, not a sign the bot stopped reading.
        await trio.lowlevel.checkpoint_if_cancelled()
        self._sending = True  # left set if the deadline cancels the write: it was not read
        try:
            if self._send_pipe is None:
                await self._send_stream.send_all(data)
            else:
                await _write_all(self._send_pipe, data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise BotCrashed(INPUT_CLOSED) from None
        self._sending = False
        if self._written is not None:
            self._written.feed(data)

    async def receive_line(self, deadline: float | None = None) -> bytes:
        """The next line; ``BotCrashed`` at end of output, ``LineTooLong`` over the bound."""
        if deadline is None:
            return await self._receive_line()
        with self.deadline(deadline):
            return await self._receive_line()
        raise AssertionError("unreachable")  # the deadline raises instead of falling through

    async def _receive_line(self) -> bytes:
        self._sending = False
        while True:
            line = self._lines.next_line()
            if line is LINE_TOO_LONG:
                if self._trace is not None:
                    self._trace.note(self.seat, "a line too long, discarded unread")
                raise LineTooLong(
                    f"a line longer than {self._lines.max_bytes} bytes was discarded unread"
                )
            if line is not None:
                assert isinstance(line, bytes)
                if self._trace is not None:
                    self._trace.line(self.seat, "<<", line.rstrip(b"\r\n"))
                return line
            if self._eof:
                if self._trace is not None:
                    self._trace.note(self.seat, "end of its output")
                raise BotCrashed(
                    "the bot closed its output: it exited or crashed (its stderr is kept"
                    " beside the log)"
                )
            try:
                if self._receive_pipe is None:
                    data = await self._receive_stream.receive_some(_READ_SIZE)
                else:
                    data = await _read_some(self._receive_pipe)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                data = b""
            if not data:
                self._eof = True
            else:
                self._lines.feed(data)


async def _write_all(pipe: trio.lowlevel.FdStream, data: bytes) -> None:
    """``pipe.send_all(data)`` without its scheduler pass: it waits only when the pipe is full.

    Not a schedule point when the bytes fit (the caller's read that follows is one).
    """
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(pipe.fileno(), view) :]
        except BlockingIOError:
            await trio.lowlevel.wait_writable(pipe.fileno())
        except OSError as exc:  # EPIPE: the bot closed its input; EBADF: the stream was closed
            raise trio.BrokenResourceError from exc


async def _read_some(pipe: trio.lowlevel.FdStream) -> bytes:
    """``pipe.receive_some()`` with one pass of the run loop rather than two: the wait for
    the descriptor is the checkpoint. ``b""`` at the end of the output, or once closed."""
    while True:
        if pipe.fileno() < 0:
            return b""
        await trio.lowlevel.wait_readable(pipe.fileno())
        try:
            return os.read(pipe.fileno(), _READ_SIZE)
        except BlockingIOError:
            continue
        except OSError:
            return b""


class Deadline:
    """A cancel scope that turns running out of time into the bot's fault."""

    __slots__ = ("_connection", "_scope")

    def __init__(self, connection: BotConnection, when: float) -> None:
        self._connection = connection
        self._scope = trio.CancelScope(deadline=when)

    def __enter__(self) -> Deadline:
        self._scope.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        sending = self._connection._sending
        # The scope only ever swallows its own Cancelled, which becomes the bot's fault here.
        self._scope.__exit__(exc_type, exc, traceback)
        if self._scope.cancelled_caught:
            if sending:
                raise BotNotReading("the bot stopped reading its input")
            raise BotTimeout("no answer in time")
