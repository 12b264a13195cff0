"""A warm pool's processes on every path out: idle too long, a failure while lending, the
pool closed while a match is in flight, the tournament gone (real bot processes)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from support.processes import gone, many_bot, with_marker

from referee.match.runner import run_match
from referee.running import worker
from referee.running.jobs import Entrant, MatchJob
from referee.running.results import TournamentSettings
from referee.running.seating.pool import WarmPool
from referee.sandbox.jail import SeatJail
from referee.sandbox.policy import plan as plan_sandbox
from referee.settings import MatchSettings, SandboxSettings
from referee.tournament.plan import plan


def jobs(tmp_path: Path, marker: str) -> list[MatchJob]:
    settings = TournamentSettings(
        entrants=[Entrant("a", many_bot(marker)), Entrant("b", many_bot(marker))], seeds=2, seed=4
    )
    return plan(settings, tmp_path / "logs")


def test_processes_idle_too_long_are_closed_by_the_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = f"idle-{tmp_path.name}"
    pool = WarmPool(idle_seconds=0.4)
    monkeypatch.setattr(worker, "warm_pool", lambda: pool)
    worker.play(jobs(tmp_path, marker)[0])
    assert len(pool.processes()) == 4 and with_marker(marker)
    assert gone(marker), "the expiry thread closed them"
    assert pool.processes() == []
    pool.close()


def test_a_kept_bot_that_cannot_be_made_ready_is_closed_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = f"broken-{tmp_path.name}"
    pool = WarmPool()
    monkeypatch.setattr(worker, "warm_pool", lambda: pool)
    planned = jobs(tmp_path, marker)
    worker.play(planned[0])

    def broken(self: SeatJail, pid: int) -> str | None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(SeatJail, "next_match", broken)
    third = worker.play(planned[2])  # new deals: the kept four would be lent
    assert third.end == "void"  # every seat failed to start, and the log says why
    assert pool.processes() == [], "each kept bot that failed was closed, none left lent"
    pool.close()
    assert pool.jails.root is None
    assert gone(marker)


async def test_a_pool_closed_during_a_match_closes_its_bots_as_they_come_back(
    tmp_path: Path,
) -> None:
    """What a Dask cluster's end of a tournament does to a worker still playing."""
    marker = f"closing-{tmp_path.name}"
    settings = MatchSettings(seed=8)
    commands = dict.fromkeys("ABCD", many_bot(marker, "--think", "0.01"))
    sandbox = plan_sandbox(SandboxSettings(), settings, commands, [tmp_path])
    pool = WarmPool()
    keys = {"A": "a", "B": "b", "C": "a", "D": "b"}
    outcomes = []
    async with trio.open_nursery() as nursery:

        async def play() -> None:
            source = pool.seating(keys, "s0", sandbox)
            log = tmp_path / "match.jsonl"
            outcomes.append(await run_match(settings, commands, log, sandbox, source))

        nursery.start_soon(play)
        while len(pool.processes()) < 4:
            await trio.sleep(0.01)
        await pool.aclose()  # while the match is played
        assert len(pool.processes()) == 4, "lent bots play on"
    assert outcomes[0].end == "marks"
    assert pool.processes() == [] and pool.jails.root is None
    assert await trio.to_thread.run_sync(gone, marker)


def test_killing_a_pool_leaves_no_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a worker does when the tournament is gone (``kill -9``): SIGKILL at once."""
    marker = f"killed-{tmp_path.name}"
    pool = WarmPool()
    monkeypatch.setattr(worker, "warm_pool", lambda: pool)
    worker.play(jobs(tmp_path, marker)[0])
    assert with_marker(marker)
    pool.kill_now()
    assert gone(marker, within=2.0)
    pool.close()
