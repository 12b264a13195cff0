"""A seat whose bot runs on another worker, as the table sees it: a connection like any other,
its stopping and starting, how it went away, and its stderr brought back beside the log.

Lines for the bot are held until the read that follows them, and go in the same call
(``exchange``): the host writes them and waits for the answer, so a decision costs the relay
one round trip and one message each way. The relay's latency counts against the bot's clock — the
referee keeps the one clock — and is measured per decision: the time from the referee's
write to its answer, less the bot's own time on its host (from the host's write to the
answer's first byte). The table records it in each move's ``timing.relay_ms``.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Final

import trio

from referee.apart.calls import Output, SeatClosed, SeatStarted, TimeoutCheck
from referee.apart.link import SeatLink
from referee.errors import BotCrashed, BotFault, BotNotReading, BotTimeout
from referee.match.connection import INPUT_CLOSED, BotConnection
from referee.match.faults import gone
from referee.match.outcome import SeatLost
from referee.match.stderr import StderrSink
from referee.match.trace import WireTrace
from referee.rules.tiles import Seat
from referee.sandbox.overruns import BOUNDS, explicable, runtime_words

#: Seconds the host may take to say how a bot that went away ended (it waits up to a second).
EXPLAIN_WITHIN: Final = 5.0
#: Seconds a read waits on the host before asking again (a wait the referee gave up on
#: costs only a task there for this long).
LONG_POLL: Final = 5.0


class RelayMeter:
    """The relay's share of each decision's time, in milliseconds."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._sent_at: float | None = None
        self._pending: float | None = None

    def sent(self) -> None:
        self._sent_at = trio.current_time()

    def answered(self, output: Output) -> None:
        """The first output after a write: the round trip less the bot's own time."""
        if self._sent_at is None or output.since_write is None:
            return
        relay = (trio.current_time() - self._sent_at - output.since_write) * 1000
        self._sent_at = None
        self._pending = max(0.0, relay)

    def take(self) -> float | None:
        """The last decision's relay time, once (None when it was not measured); kept for
        the summary (a greeting's, never taken, is not)."""
        pending, self._pending = self._pending, None
        if pending is not None:
            self.samples.append(pending)
        return pending

    def summary(self) -> dict[str, float] | None:
        """Median, 99th percentile and largest relay time, in milliseconds."""
        if not self.samples:
            return None
        ordered = sorted(self.samples)
        p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
        return {
            "decisions": len(ordered),
            "median_ms": round(statistics.median(ordered), 3),
            "p99_ms": round(p99, 3),
            "max_ms": round(ordered[-1], 3),
        }


class _ToHost(trio.abc.SendStream):
    """Lines for the bot, held until the next read carries them (or the bot is closed)."""

    def __init__(self, bot: RemoteBot) -> None:
        self._bot = bot

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await trio.lowlevel.checkpoint()
        self._bot.hold(bytes(data))

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


class _FromHost(trio.abc.ReceiveStream):
    """The bot's output from the host, from the offset read so far."""

    def __init__(self, bot: RemoteBot) -> None:
        self._bot = bot
        self._offset = 0

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        bot = self._bot
        while True:
            if bot.held:
                output = await bot.exchange(self._offset)
            else:
                output = await bot.link.call("read", self._offset, LONG_POLL)
            if output.input_closed:
                raise BotCrashed(INPUT_CLOSED)
            if output.data is None:
                continue
            if output.data:
                bot.relay.answered(output)
            self._offset += len(output.data)
            return output.data

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


class RemoteBot:
    """One seat's bot on its worker, with what the runner asks of a ``BotProcess``.

    Every call that changes the seat — lines written, the bot stopped or started again —
    carries the next number of the seat's sequence, and the host takes them in that order,
    whichever connection brings each first. Such a call runs as a task of its own, never
    cancelled half-sent: a deadline stops the wait for its answer, not the call.
    """

    def __init__(
        self,
        seat: Seat,
        command: str,
        link: SeatLink,
        started: SeatStarted,
        stderr: StderrSink,
        nursery: trio.Nursery,
    ) -> None:
        self.seat = seat
        self.command = command
        self.link = link
        self.started = started
        self.stderr = stderr
        self.jail = None
        self.matches_played = 0
        self.trace: WireTrace | None = None
        self.relay = RelayMeter()
        #: Lines not sent yet: the next read carries them.
        self.held = bytearray()
        self._nursery = nursery
        self._sequence = 0
        #: The number of the last call that carried lines (an ``act``) to the bot.
        self._carried = 0
        self._closed = False

    def hold(self, data: bytes) -> None:
        self.relay.sent()
        self.held += data

    def _next(self) -> int:
        self._sequence += 1
        return self._sequence

    def _in_order(self, function: str, *args: Any) -> _Call:
        """``function(sequence, *args)`` on the host, in the seat's order, as a task."""
        call = _Call()
        self._nursery.start_soon(call.run, self.link, function, self._next(), *args)
        return call

    async def exchange(self, offset: int) -> Output:
        """Write the held lines, then read from ``offset``: one call."""
        data, self.held = bytes(self.held), bytearray()
        call = self._in_order("exchange", data, offset, LONG_POLL)
        self._carried = self._sequence
        output: Output = await call.result()
        return output

    def connect(self, max_line_bytes: int) -> BotConnection:
        return BotConnection(
            self.seat, _ToHost(self), _FromHost(self), max_line_bytes, self.trace, self.relay
        )

    async def drain_stderr(self) -> None:
        """Nothing to drain here: the host keeps the stderr, sent back when the bot ends."""

    def pause(self) -> None:
        if not self._closed:
            self._in_order("freeze")

    def resume(self) -> None:
        if not self._closed:
            self._in_order("thaw")

    async def explain(self, fault: BotFault) -> BotFault:
        """A timeout is first a question of whether the seat is still there (it is lost if
        not) and whether its bot stopped reading; a bot gone away, or whose lines name a
        bound it went over, is explained on its host."""
        if isinstance(fault, BotTimeout):
            state: TimeoutCheck = await self.link.ask("state", self._carried)
            if state.stuck:  # a write waits for the bot: it stopped reading
                return BotNotReading("the bot stopped reading its input")
            if not state.taken:  # the act never reached the bot in time
                raise self.link.lose("its act reached its worker only after the deadline")
        if not explicable(fault):
            return fault
        if not gone(fault) and runtime_words(fault.said, BOUNDS) is None:
            return fault  # still there, and no word of a bound: nothing for its host to add
        try:
            precise: BotFault = await self.link.ask("explain", fault, within=EXPLAIN_WITHIN)
        except SeatLost:
            raise
        except Exception:  # the host could not say more: the fault as seen
            return fault
        return precise

    async def close(self) -> int | None:
        """Deliver what is held, end the bot on its host, bring its stderr here. Never
        raises: a seat that is lost has nothing more to give."""
        code = None
        with trio.CancelScope(shield=True):  # the calls go out even when the match is cancelled
            self._closed = True
            closed: SeatClosed | None = None
            with trio.move_on_after(2 * LONG_POLL):
                try:
                    if self.held:
                        data, self.held = bytes(self.held), bytearray()
                        await self.link.call("write", self._next(), data)
                    closed = await self.link.call("close", self._next())
                except Exception:
                    closed = None
            if closed is not None:
                code = closed.returncode
                if closed.stderr:
                    self.stderr.write(closed.stderr)
                self.stderr.dropped += closed.dropped
            self.stderr.close()
        return code


class _Call:
    """One sequenced call to the host, run to its end whoever waits for it."""

    def __init__(self) -> None:
        self._done = trio.Event()
        self._value: Any = None
        self._error: BaseException | None = None

    async def run(self, link: SeatLink, function: str, *args: Any) -> None:
        try:
            self._value = await link.call(function, *args)
        except Exception as exc:
            self._error = exc
        finally:
            self._done.set()

    async def result(self) -> Any:
        await self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value
