"""A seat whose bot runs on another worker, as the table sees it: a connection like any other,
its stopping and starting, how it went away, and its stderr brought back beside the log.

Writes go out in order through one sender task and are not waited for: the read that
follows is already waiting on the host when the answer comes, so a decision costs the
relay one round trip, not two. The relay's latency counts against the bot's clock — the
referee keeps the one clock — and is measured per decision: the time from the referee's
write to its answer, less the bot's own time on its host (from the host's write to the
answer's first byte). The table records it in each move's ``timing.relay_ms``.
"""

from __future__ import annotations

import math
import statistics
from typing import Final

import trio

from referee.apart.host import Output, SeatClosed, SeatStarted
from referee.apart.link import SeatLink
from referee.errors import BotFault, BotTimeout
from referee.match.connection import BotConnection
from referee.match.faults import gone
from referee.match.outcome import SeatLost
from referee.match.process import StderrSink
from referee.match.trace import WireTrace
from referee.rules.tiles import Seat

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
    """Writes queued to the seat's sender, in order."""

    def __init__(self, bot: RemoteBot) -> None:
        self._bot = bot

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await trio.lowlevel.checkpoint()
        self._bot.queue_write(bytes(data))

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
        while True:
            output: Output = await self._bot.link.call("read", self._offset, LONG_POLL)
            if output.data is None:
                continue
            if output.data:
                self._bot.relay.answered(output)
            self._offset += len(output.data)
            return output.data

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


class RemoteBot:
    """One seat's bot on its worker, with what the runner asks of a ``BotProcess``."""

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
        self._input_closed = False
        self._send, self._queue = trio.open_memory_channel[tuple[str, bytes]](math.inf)
        self._sent = trio.Event()
        self._closed = False
        nursery.start_soon(self._sender)

    def queue_write(self, data: bytes) -> None:
        if self._input_closed:
            raise trio.BrokenResourceError("the bot closed its input")
        self.relay.sent()
        self._send.send_nowait(("write", data))

    async def _sender(self) -> None:
        """The seat's calls that change it, one at a time in the order made."""
        async for function, data in self._queue:
            if function == "flush":
                self._sent.set()
                continue
            try:
                if function == "write":
                    if not await self.link.call("write", data):
                        self._input_closed = True
                else:
                    await self.link.call(function)
            except SeatLost:
                self._sent.set()
                return  # every later call says so

    def connect(self, max_line_bytes: int) -> BotConnection:
        return BotConnection(
            self.seat, _ToHost(self), _FromHost(self), max_line_bytes, self.trace, self.relay
        )

    async def drain_stderr(self) -> None:
        """Nothing to drain here: the host keeps the stderr, sent back when the bot ends."""

    def pause(self) -> None:
        if not self._closed:
            self._send.send_nowait(("freeze", b""))

    def resume(self) -> None:
        if not self._closed:
            self._send.send_nowait(("thaw", b""))

    async def explain(self, fault: BotFault) -> BotFault:
        """A timeout is first a question of whether the seat is still there (then it is the
        bot's); a bot gone away is explained on its host."""
        if isinstance(fault, BotTimeout):
            if not await self.link.alive():
                assert self.link.lost is not None
                raise self.link.lost
            return fault
        if not gone(fault):
            return fault
        try:
            precise: BotFault = await self.link.call("explain", fault)
        except SeatLost:
            raise
        except Exception:  # the host could not say more: the fault as seen
            return fault
        return precise

    async def close(self) -> int | None:
        """Deliver what is queued, end the bot on its host, bring its stderr here. Never
        raises: a seat that is lost has nothing more to give."""
        code = None
        with trio.CancelScope(shield=True):
            self._closed = True
            with trio.move_on_after(2 * LONG_POLL):
                self._send.send_nowait(("flush", b""))
                await self._sent.wait()
            self._send.close()
            closed: SeatClosed | None = None
            with trio.move_on_after(2 * LONG_POLL):
                try:
                    closed = await self.link.call("close")
                except Exception:
                    closed = None
            if closed is not None:
                code = closed.returncode
                if closed.stderr:
                    self.stderr.write(closed.stderr)
                self.stderr.dropped += closed.dropped
            self.stderr.close()
        return code
