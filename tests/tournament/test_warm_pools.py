"""Tournaments keep the processes of bots that play many matches: real tournaments of real
bot processes (``tests/bots/many_bot.py`` tells on stderr what each match showed it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest
from support.processes import gone, many_bot, with_marker
from support.tournaments import Seating, seatings, warm_tournament

from referee.match.startup import bot_seed
from referee.record.log import read_log
from referee.record.records import BotReady, DealRecord, FaultRecord
from referee.record.verify import verify
from referee.running.results import read_results

THREE = ("--seeds", "3", "--jobs", "1")


def three_entrants(marker: str) -> list[str]:
    return [arg for name in "abc" for arg in ("--bot", f"{name}={many_bot(marker)}")]


@pytest.fixture(scope="module")
def warm_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A round robin of three entrants on three seeds (eighteen matches) in one worker, whose
    pool lends in an order that follows from the plan: every pairing plays the same three deal
    seeds, in both legs."""
    directory = tmp_path_factory.mktemp("warm")
    marker = f"warm-{directory.name}"
    warm_tournament(directory, *three_entrants(marker), *THREE)
    assert not with_marker(marker), "the tournament ended, and so did every kept bot"
    return directory


def test_a_kept_process_plays_several_matches_in_several_seats(warm_run: Path) -> None:
    by_pid: dict[str, list[Seating]] = defaultdict(list)
    for seating in seatings(warm_run / "logs"):
        by_pid[seating.hello["process"]].append(seating)
    busiest = max(by_pid.values(), key=len)
    assert len(busiest) >= 3
    assert len({seating.seat for seating in busiest}) >= 2
    assert len(by_pid) < 18 * 4 / 2, "processes were kept, not started for every seat"


def test_each_match_shows_a_kept_process_its_own_seat_and_deals_only(warm_run: Path) -> None:
    for seating in seatings(warm_run / "logs"):
        log = read_log(warm_run / "logs" / f"{seating.match_id}.jsonl")
        verify(log)
        deals = {r.hand: r.hands for r in log.records if isinstance(r, DealRecord)}
        (ready,) = [r for r in log.records if isinstance(r, BotReady) and r.seat == seating.seat]
        assert seating.hello["seat"] == seating.seat
        assert seating.hello["seed"] == bot_seed(log.header.seed, seating.seat)
        assert seating.hello["hello"] == ready.previous_matches + 1
        assert ready.reused == (ready.previous_matches > 0)
        assert seating.views, "the bot was asked to decide"
        for view in seating.views:
            assert view["view"] == seating.seat
            dealt = {tuple(tile) for tile in deals[view["hand_number"]][seating.seat]}
            assert {tuple(tile) for tile in view["hand"]} <= dealt


def test_a_kept_processs_scratch_directory_is_emptied_between_matches(warm_run: Path) -> None:
    scratch_of: dict[str, set[str]] = defaultdict(set)
    for seating in seatings(warm_run / "logs"):
        hello = seating.hello
        if hello["scratch"] is None:
            pytest.skip("bots have no scratch directory without the sandbox")
        scratch_of[hello["process"]].add(hello["scratch"])
        assert hello["left"] == [], "what the last match left in TMPDIR is gone"
    assert all(len(paths) == 1 for paths in scratch_of.values())


def test_no_process_plays_the_same_deals_twice_or_two_seats_of_a_match(warm_run: Path) -> None:
    deals_of: dict[str, list[str]] = defaultdict(list)
    seats_of_match: dict[str, list[str]] = defaultdict(list)
    for seating in seatings(warm_run / "logs"):
        deals = seating.match_id.split("~")[-2]  # both legs, and every pairing, play s0
        deals_of[seating.hello["process"]].append(deals)
        seats_of_match[seating.match_id].append(seating.hello["process"])
    assert any(len(deals) > 1 for deals in deals_of.values()), "some process was kept"
    for pid, deals in deals_of.items():
        assert len(deals) == len(set(deals)), f"process {pid} played the same deals twice"
    for match_id, pids in seats_of_match.items():
        assert len(pids) == 4 and len(set(pids)) == 4, match_id


def test_fresh_bots_and_warm_pools_play_the_same_games(warm_run: Path, tmp_path: Path) -> None:
    marker = f"fresh-{tmp_path.name}"
    warm_tournament(tmp_path, *three_entrants(marker), *THREE, "--fresh-bots")
    _, fresh = read_results(tmp_path / "results.jsonl")
    _, warm = read_results(warm_run / "results.jsonl")
    assert {r.match_id: r.game_digest for r in fresh} == {r.match_id: r.game_digest for r in warm}
    for result in fresh:
        readies = [r for r in read_log(Path(result.log)).records if isinstance(r, BotReady)]
        assert len(readies) == 4 and not any(ready.reused for ready in readies)


@pytest.mark.parametrize(
    ("misbehaviour", "reason"), [("--exit-after", "crashed"), ("--mute-after", "timeout")]
)
def test_a_bot_that_misbehaves_between_matches_is_restarted_and_charged_there(
    tmp_path: Path, misbehaviour: str, reason: str
) -> None:
    marker = f"restart-{tmp_path.name}"
    warm_tournament(tmp_path, "--bot", f"a={many_bot(marker, misbehaviour, '1')}",
               "--bot", f"b={many_bot(marker)}", "--seeds", "2", "--jobs", "1",
               "--startup-timeout", "1")  # fmt: skip
    assert not with_marker(marker)
    _, results = read_results(tmp_path / "results.jsonl")
    restarted = 0
    for result in results:
        log = read_log(Path(result.log))
        verify(log)
        assert result.end == "marks", "the match was played, by a fresh process"
        for fault in (r for r in log.records if isinstance(r, FaultRecord)):
            assert (fault.reason, fault.penalty) == (reason, "restart")
            assert result.faults[fault.seat] == {reason: 1}
            owner = result.first if fault.seat in "AC" else result.second
            assert owner == "a"
            (ready,) = [r for r in log.records if isinstance(r, BotReady) and r.seat == fault.seat]
            assert not ready.reused
            restarted += 1
    assert restarted >= 2, "a's kept processes were lent again, and replaced"


def _wait_for_reuse(logs: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for log in logs.glob("*.jsonl"):
            if '"reused":true' in log.read_text(errors="replace"):
                return
        time.sleep(0.05)
    raise AssertionError("no process was reused")


@pytest.mark.parametrize("how", ["ctrl-c", "kill -9"])
def test_stopping_a_tournament_leaves_no_kept_bot(tmp_path: Path, how: str) -> None:
    marker = f"stop-{tmp_path.name}"
    bots = ["--bot", f"a={many_bot(marker)}", "--bot", f"b={many_bot(marker)}"]
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", "tournament", *bots, "--seeds", "2000", "--jobs", "2",
         "--results", str(tmp_path / "results.jsonl")],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        _wait_for_reuse(tmp_path / "logs")
        if how == "ctrl-c":
            os.killpg(process.pid, signal.SIGINT)  # what the terminal sends the whole group
            assert process.wait(timeout=30) != 0
        else:
            process.kill()  # the tournament alone: its workers must see it go
            process.wait(timeout=30)
        assert gone(marker)
    finally:
        for pid in with_marker(marker):
            os.kill(pid, signal.SIGKILL)
        with_group = [pid for pid in with_marker("referee") if os.getpgid(pid) == process.pid]
        for pid in with_group:
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("wrapped", [False, True], ids=["bot", "bot-under-a-shell"])
def test_a_kept_bot_is_retired_before_its_cpu_bound_could_stop_it(
    tmp_path: Path, wrapped: bool
) -> None:
    """0.7 s of CPU a match under a 2 s bound: a third match would pass the bound, so the
    process is retired after two. Under a shell that waits for it, the bot is a child of the
    group's leader: every process of the bot is counted, each by its own CPU."""
    marker = f"cpu-{tmp_path.name}"
    burner = many_bot(marker, "--burn", "0.7")
    if wrapped:
        burner = f"/bin/sh -c '{burner}; :'"
    warm_tournament(tmp_path, "--bot", f"a={burner}", "--bot", f"b={many_bot(marker)}",
               "--seeds", "3", "--jobs", "1", "--cpu-limit", "2")  # fmt: skip
    _, results = read_results(tmp_path / "results.jsonl")
    assert all(result.faults == {seat: {} for seat in "ABCD"} for result in results)
    most: dict[str, int] = defaultdict(int)
    for result in results:
        for ready in read_log(Path(result.log)).records:
            if isinstance(ready, BotReady):
                owner = result.first if ready.seat in "AC" else result.second
                most[owner] = max(most[owner], ready.previous_matches)
    assert most == {"a": 1, "b": 2}


def test_what_a_kept_bot_wrote_between_matches_is_not_judged_in_the_next(tmp_path: Path) -> None:
    marker = f"late-{tmp_path.name}"
    warm_tournament(tmp_path, "--bot", f"a={many_bot(marker, '--late-answer')}",
               "--bot", f"b={many_bot(marker)}", "--seeds", "2", "--jobs", "1")  # fmt: skip
    _, results = read_results(tmp_path / "results.jsonl")
    reused = 0
    for result in results:
        log = read_log(Path(result.log))
        verify(log)
        kept = {r.seat for r in log.records if isinstance(r, BotReady) and r.reused}
        reused += len(kept)
        for seat, counts in result.faults.items():
            # Dropped unread, or (written after the referee looked) ignored as stale: never
            # refused, never a fault.
            assert set(counts) <= ({"ignored"} if seat in kept else set()), (seat, counts)
    assert reused, "kept processes were lent"


def test_dask_workers_keep_bots_warm_and_leave_none_behind(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    marker = f"dask-{tmp_path.name}"
    warm_tournament(tmp_path, "--bot", f"a={many_bot(marker)}", "--bot", f"b={many_bot(marker)}",
               "--seeds", "3", "--jobs", "1", "--dask", "local")  # fmt: skip
    _, results = read_results(tmp_path / "results.jsonl")
    readies = [
        ready
        for result in results
        for ready in read_log(Path(result.log)).records
        if isinstance(ready, BotReady)
    ]
    assert len(readies) == 24 and any(ready.reused for ready in readies)
    assert gone(marker)


def _states(pids: list[int]) -> set[str]:
    """The processes' states, once they have all stopped or after a second (a stop signal
    takes effect when the process next runs)."""
    deadline = time.monotonic() + 1
    while True:
        states = set()
        for pid in pids:
            with open(f"/proc/{pid}/stat") as stat:
                states.add(stat.read().rpartition(")")[2].split()[0])
        if states == {"T"} or time.monotonic() > deadline:
            return states
        time.sleep(0.01)


def test_a_kept_bot_is_stopped_while_it_waits_and_runs_again_when_lent(tmp_path: Path) -> None:
    """An idle kept process could spend CPU nobody counts, or signal to a match it is not in
    (by its load, its process count): it is stopped until it is lent again."""
    from referee.running import worker
    from referee.running.jobs import Entrant
    from referee.running.results import TournamentSettings
    from referee.tournament.plan import plan

    marker = f"stopped-{tmp_path.name}"
    settings = TournamentSettings(
        entrants=[Entrant("a", many_bot(marker)), Entrant("b", many_bot(marker))], seeds=2, seed=3
    )
    jobs = plan(settings, tmp_path / "logs")
    worker.close_pools()  # bots other tests played in this process
    try:
        worker.play(jobs[0])
        kept = worker.warm_pool().processes()
        assert len(kept) == 4
        assert _states([bot.process.pid for bot in kept]) == {"T"}
        worker.play(jobs[1])  # the other leg: four more processes
        third = worker.play(jobs[2])  # new deals: the first four are lent again
        assert third.faults == {seat: {} for seat in "ABCD"}
        readies = [r for r in read_log(Path(third.log)).records if isinstance(r, BotReady)]
        assert all(ready.reused for ready in readies)
        assert _states([bot.process.pid for bot in worker.warm_pool().processes()]) == {"T"}
    finally:
        worker.close_pools()
    assert not with_marker(marker)
