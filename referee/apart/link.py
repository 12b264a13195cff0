"""The referee's calls to a seat's host, over Dask's own communication.

A call is Dask's ``actor_execute`` sent straight to the seat's worker through the client's
connection pool — the comm the cluster is configured with (TLS, authentication), no protocol
of ours. The referee runs on trio and the Dask client on its own event loop in another
thread: a call is handed to that loop and awaited here without blocking anything.

Whatever stops a call from reaching the seat — the worker died, the connection broke, the
actor is gone — is ``SeatLost``: no fault of the bot's.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import contextlib
from typing import Any, Final

import trio

from referee.apart.calls import SeatEnded
from referee.match.outcome import SeatLost
from referee.rules.tiles import Seat

#: What goes into a call's message as it is (msgpack takes it).
_PLAIN: Final = (bool, int, float, str, bytes)
#: Seconds a check that the seat's worker still answers may take.
ALIVE_TIMEOUT: Final = 2.0


class SeatLink:
    """Calls to one seat's ``SeatHost`` actor on its worker."""

    def __init__(self, client: Any, seat: Seat, worker: str, key: str) -> None:
        self.client = client
        self.seat = seat
        self.worker = worker
        self.key = key
        self._loop: asyncio.AbstractEventLoop = client.loop.asyncio_loop
        self._rpc = client.rpc(worker)
        #: Why the seat was lost, once it was (every later call says so at once).
        self.lost: SeatLost | None = None

    def _lost(self, why: str) -> SeatLost:
        if self.lost is None:
            self.lost = SeatLost(self.seat, f"its worker {self.worker}: {why}")
        return self.lost

    async def call(self, function: str, *args: Any) -> Any:
        """``function(*args)`` on the seat's host; its result, or the exception it raised."""
        if self.lost is not None:
            raise self.lost
        future = asyncio.run_coroutine_threadsafe(self._execute(function, args), self._loop)
        try:
            reply = await _settled(future)
        except (TimeoutError, OSError, KeyError, cf.CancelledError) as exc:
            # CommClosedError is an OSError: the worker died or the connection broke; a
            # KeyError: the worker no longer holds the actor (it was restarted).
            raise self._lost(_said(exc)) from None
        if reply["status"] == "OK":
            return reply["result"]
        error = reply["exception"]
        if isinstance(error, SeatEnded):
            raise self._lost("the worker had let the seat go (the referee's hold on it lapsed)")
        raise error

    async def _execute(self, function: str, args: tuple[Any, ...]) -> dict[str, Any]:
        from distributed.protocol.serialize import to_serialize

        return await self._rpc.actor_execute(  # type: ignore[no-any-return]
            function=function,
            actor=self.key,
            # Numbers and bytes go as they are in Dask's message (msgpack): only objects are
            # pickled, each in frames of its own.
            args=[arg if isinstance(arg, _PLAIN) else to_serialize(arg) for arg in args],  # type: ignore[no-untyped-call]
            kwargs={},
        )

    async def ask(self, function: str, *args: Any, within: float = ALIVE_TIMEOUT) -> Any:
        """``call``, answered within ``within`` seconds or the seat is lost (shielded: asked
        after a deadline has passed)."""
        with trio.CancelScope(shield=True):
            with trio.move_on_after(within):
                return await self.call(function, *args)
        raise self._lost(f"no answer to a {function!r} within {within:g} s")

    def lose(self, why: str) -> SeatLost:
        """The seat is lost for ``why``: every later call says so."""
        return self._lost(why)


async def _settled(future: cf.Future[Any]) -> Any:
    """The result of a future settled in another thread, awaited in trio (cancelling the
    wait cancels the call)."""
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()

    def wake(_: cf.Future[Any]) -> None:
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(done.set)

    future.add_done_callback(wake)
    try:
        await done.wait()
    except trio.Cancelled:
        future.cancel()
        raise
    return future.result()


def _said(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if str(exc) else text
