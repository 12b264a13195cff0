"""Warm pools: the processes of bots that can play many matches, kept between the matches a
worker plays, and lent again under the fairness rule (``fairness``).

A pool belongs to one thread (the main thread of a local worker process, each thread of a
Dask worker): bots die with the thread that started them (their parent-death signal), so
they are only ever lent to matches that thread plays. An idle process is stopped
(``BotProcess.pause``) until it is lent again. A pool keeps at most ``PER_ENTRANT`` idle
processes per entrant and ``TOTAL`` in all (the least recently used go first), and closes a
process idle for ``IDLE_SECONDS`` (or up to a quarter of it more), so a worker that plays no
more matches — a Dask worker that outlives its competition — leaves nothing running for long.
"""

from __future__ import annotations

import errno
import os
import shlex
import signal
import threading
import time
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Final

import msgspec
import trio

from referee.match.process import BotProcess
from referee.rules.tiles import Seat
from referee.running.seating.fairness import Kept, choose
from referee.sandbox.policy import SandboxPlan
from referee.sandbox.seats import Jails
from referee.settings import MatchSettings, SandboxSettings

#: Idle processes kept per entrant. A process plays each deal seed once, and an entrant plays
#: every seed twice per opponent (two seats a leg): two entrants need four per worker, a
#: three-entrant round robin eight.
PER_ENTRANT: Final = 8
#: Idle processes kept in all by one pool (each may hold a bot's memory).
TOTAL: Final = 24
#: Seconds a process may stay idle before it is closed.
IDLE_SECONDS: Final = 60.0


def entrant_key(
    competition: str, command: str, settings: MatchSettings, sandbox: SandboxSettings
) -> str:
    """What a kept process can be lent for: the same competition, the same command on the
    same files (a bot edited since it started is started again), under the same limits and
    sandbox (it keeps the bounds it was started with)."""
    limits = msgspec.structs.replace(settings, seed=0)
    files = []
    with suppress(ValueError):
        for word in shlex.split(command):
            with suppress(OSError):
                stat = os.stat(word)
                files.append((word, stat.st_mtime_ns, stat.st_size))
    return msgspec.json.encode((competition, command, files, limits, sandbox)).decode()


class WarmPool:
    """Bot processes kept between matches, per entrant."""

    def __init__(self, idle_seconds: float = IDLE_SECONDS) -> None:
        self.jails = Jails()
        self.idle_seconds = idle_seconds
        self._idle: dict[str, list[Kept]] = {}
        self._lent: dict[BotProcess, tuple[str, Kept]] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._expiry: threading.Thread | None = None
        self._retiring = 0  # bots being closed now, whose sandboxes must outlive them

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def seating(self, keys: dict[Seat, str], deals: str, plan: SandboxPlan) -> PoolSeating:
        """The bot source of one match on ``deals``, whose seats hold the entrants of
        ``keys``."""
        return PoolSeating(self, keys, deals, plan)

    def processes(self) -> list[BotProcess]:
        """Every process the pool owns now, idle or lent."""
        with self._lock:
            return [kept.bot for idle in self._idle.values() for kept in idle] + list(self._lent)

    # -- lending -----------------------------------------------------------------------------

    def lend(self, key: str, deals: str) -> Kept | None:
        """An idle process for ``key`` that may play ``deals`` (the fairness rule), now lent."""
        with self._lock:
            idle = self._idle.get(key, [])
            kept = choose(idle, deals)
            if kept is None:
                return None
            idle.remove(kept)
            kept.deals.add(deals)
            self._lent[kept.bot] = (key, kept)
            return kept

    def register(self, key: str, bot: BotProcess, deals: str) -> None:
        """A process started for a match on ``deals``: the pool's from now on."""
        with self._lock:
            self._lent[bot] = (key, Kept(bot, {deals}))

    async def give_back(self, bot: BotProcess, reusable: bool) -> None:
        with self._lock:
            key, kept = self._lent.pop(bot, (None, None))
            retire = [bot]
            if reusable and key is not None and kept is not None and not self.closed:
                bot.matches_played += 1
                if bot.jail is not None:  # unsandboxed, it must still see its input end
                    bot.pause()
                kept.idle_since = time.monotonic()
                self._idle.setdefault(key, []).append(kept)
                retire = [evicted.bot for evicted in self._over_bounds()]
        self._start_expiry()
        await self._retire(retire)

    def _over_bounds(self) -> list[Kept]:
        """Take out what exceeds ``PER_ENTRANT`` and ``TOTAL``, least recently used first."""
        out: list[Kept] = []
        for idle in self._idle.values():
            while len(idle) > PER_ENTRANT:
                out.append(idle.pop(0))
        everyone = sorted(
            (kept for idle in self._idle.values() for kept in idle), key=lambda k: k.idle_since
        )
        for kept in everyone[: max(0, len(everyone) - TOTAL)]:
            for idle in self._idle.values():
                if kept in idle:
                    idle.remove(kept)
            out.append(kept)
        return out

    async def _retire(self, bots: Sequence[BotProcess]) -> None:
        """Close ``bots`` (taken out of the pool); the last to go after ``aclose`` undoes the
        pool's sandboxes, never while a bot is still closing in one."""

        async def one(bot: BotProcess) -> None:
            bot.resume()  # a stopped bot cannot hear its input close
            await bot.close()
            if bot.jail is not None:
                self.jails.release(bot.jail)

        with self._lock:
            self._retiring += len(bots)
        try:
            with trio.CancelScope(shield=True):
                async with trio.open_nursery() as nursery:
                    for bot in bots:
                        nursery.start_soon(one, bot)
        finally:
            with self._lock:
                self._retiring -= len(bots)
                emptied = self.closed and not self._lent and not self._idle_count()
                emptied = emptied and not self._retiring
            if emptied:
                self.jails.close()

    def _idle_count(self) -> int:
        return sum(len(idle) for idle in self._idle.values())

    # -- idle processes and the end ----------------------------------------------------------

    def _take_expired(self, now: float) -> list[BotProcess]:
        with self._lock:
            out = []
            for idle in self._idle.values():
                for kept in [k for k in idle if now - k.idle_since > self.idle_seconds]:
                    idle.remove(kept)
                    out.append(kept.bot)
            return out

    def _start_expiry(self) -> None:
        """A thread that closes processes idle too long (when no match comes to lend them)."""
        if self._expiry is not None or self.closed:
            return

        def expire() -> None:
            while not self._closed.wait(self.idle_seconds / 4):
                expired = self._take_expired(time.monotonic())
                if expired:
                    with suppress(Exception):  # closing never raises; the thread must not die
                        trio.run(self._retire, expired)

        self._expiry = threading.Thread(target=expire, name="warm-pool-expiry", daemon=True)
        self._expiry.start()

    async def aclose(self) -> None:
        """Close every idle process and take no more back (lent ones close as they return)."""
        self._closed.set()
        if self._expiry is not None:
            self._expiry.join()  # it may be closing processes it took out
        await self.evict_idle()

    async def evict_idle(self) -> None:
        """Close every idle process, keeping the pool open."""
        with self._lock:
            idle = [kept.bot for kept in (k for v in self._idle.values() for k in v)]
            self._idle.clear()
        await self._retire(idle)

    def close(self) -> None:
        """``aclose`` from outside trio (a worker process that ends)."""
        trio.run(self.aclose)

    def kill_now(self) -> None:
        """SIGKILL to every process the pool owns, at once (the competition is gone)."""
        self._closed.set()
        for bot in self.processes():
            with suppress(OSError):
                os.killpg(bot.pgid, signal.SIGKILL)
            if bot.jail is not None:
                bot.jail.kill()


class PoolSeating:
    """One match's bots from a warm pool: kept processes where the fairness rule allows,
    fresh ones otherwise (and then kept for later matches)."""

    def __init__(self, pool: WarmPool, keys: dict[Seat, str], deals: str, plan: SandboxPlan):
        self.pool = pool
        self.keys = keys
        self.deals = deals
        self.plan = plan

    async def take(
        self, seat: Seat, command: str, stderr: Path, settings: MatchSettings
    ) -> BotProcess:
        while (kept := self.pool.lend(self.keys[seat], self.deals)) is not None:
            bot = kept.bot
            try:
                # Made ready while still stopped, so that nothing it does races the emptying
                # of its scratch. A bot that exited while idle is lent all the same: its match
                # finds it gone, replaces it and records the fault (see ``Table._start``).
                retire = None if bot.jail is None else bot.jail.next_match(bot.process.pid)
                if retire is None:
                    bot.next_match(seat, stderr, settings.stderr_limit)
                    bot.resume()
                    return bot
            except BaseException:
                await self.pool.give_back(bot, reusable=False)
                raise
            await self.pool.give_back(bot, reusable=False)
        return await self.fresh(seat, command, stderr, settings)

    async def fresh(
        self, seat: Seat, command: str, stderr: Path, settings: MatchSettings
    ) -> BotProcess:
        try:
            jail = self.pool.jails.jail(self.plan, seat)
        except OSError as exc:
            if exc.errno != errno.EAGAIN:
                raise
            await self.pool.evict_idle()  # every sandbox place is taken: free this pool's
            jail = self.pool.jails.jail(self.plan, seat)
        try:
            bot = BotProcess.start(seat, command, stderr, settings.stderr_limit, jail)
        except BaseException:
            if jail is not None:
                self.pool.jails.release(jail)
            raise
        self.pool.register(self.keys[seat], bot, self.deals)
        return bot

    async def give_back(self, bot: BotProcess, reusable: bool) -> None:
        await self.pool.give_back(bot, reusable)

    def close(self) -> None:
        """Nothing to undo: the pool's sandboxes outlive the match."""
