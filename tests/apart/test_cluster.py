"""Seats apart on a real Dask cluster (a scheduler and four workers, each restarted by its
nanny when it dies, as ``dask worker`` runs them): a match, a tournament and a league with
each seat on a worker of its own; the logs verify and record each seat's worker, host and
kernel; a worker killed with ``kill -9`` in mid-match voids that match — which a tournament
plays again — and leaves no bot running; the referee killed leaves none either."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.bot_commands import RANDOM_BOT, python
from support.cluster import dask, moves, scheduler_address, seat_worker, stop, wait_for
from support.processes import BOTS, gone, referee, with_marker

distributed = pytest.importorskip("distributed")


#: A seat that answers its first acts at once, then takes a little while each: long enough
#: to be killed in mid-match, short enough to finish.
def _slow(marker: str, sleep: float = 0.05) -> str:
    return python(BOTS / "sleepy_bot.py", "--after", "2", "--sleep", str(sleep), "--marker", marker)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A scheduler and four single-threaded workers under nannies."""
    home = tmp_path_factory.mktemp("cluster")
    file = home / "scheduler.json"
    started = [
        dask("scheduler", "--scheduler-file", str(file), "--port", "0", "--no-dashboard",
             cwd=home, log=home / "scheduler.log")
    ]  # fmt: skip
    try:
        address = scheduler_address(file, home / "scheduler.log")
        started.append(
            dask("worker", address, "--nworkers", "4", "--nthreads", "1", "--no-dashboard",
                 cwd=home, log=home / "workers.log")
        )  # fmt: skip
        _wait_for_workers(address, 4)
        yield address
    finally:
        stop(started)


def _wait_for_workers(address: str, count: int) -> None:
    with distributed.Client(address, timeout=30) as client:
        client.wait_for_workers(count, timeout=90)


def _worker_pids(address: str) -> dict[str, int]:
    with distributed.Client(address, timeout=30) as client:
        return client.run(os.getpid)  # type: ignore[no-any-return]


def _records(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _tournament_apart(
    cluster: str, directory: Path, slow: str, seeds: str, *more: str
) -> subprocess.Popen[str]:
    """A tournament of ``slow`` against the random bot, its seats apart on ``cluster``, its
    results in ``directory/results.jsonl``."""
    return subprocess.Popen(
        [sys.executable, "-m", "referee", "tournament", "--bot", f"slow={slow}",
         "--bot", f"random={RANDOM_BOT}", "--seeds", seeds, "--results", "results.jsonl",
         "--dask", cluster, "--seats-apart=workers", *more],
        cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _a_match_under_way(logs: Path, tournament: subprocess.Popen[str]) -> Path:
    """The log of the first of the tournament's matches to have four moves."""
    return wait_for(
        lambda: next((log for log in logs.glob("*.jsonl") if moves(log) >= 4), None),
        lambda: tournament.poll() is None,
        90,
    )


def _kill_seat_worker(cluster: str, log: Path, seat: str) -> str:
    """Kill the worker running ``seat`` of the match ``log`` records, as a machine dies."""
    worker = seat_worker(log, seat)
    os.kill(_worker_pids(cluster)[worker], signal.SIGKILL)
    return worker


def test_a_match_apart_verifies_and_says_where_each_seat_ran(cluster: str, tmp_path: Path) -> None:
    marker = f"apart-{os.getpid()}-match"
    log = tmp_path / "m.jsonl"
    done = referee(
        "match", _slow(marker, 0.0), RANDOM_BOT, "--seed", "5", "--log", str(log),
        "--dask", cluster, "--seats-apart=workers", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "seats apart (workers)" in done.stderr and "relay A: median" in done.stdout
    header = _records(log)[0]
    placement = header["placement"]
    assert isinstance(placement, dict) and placement["apart"] == "workers"
    seats = placement["seats"]
    assert len({seats[s]["worker"] for s in "ABCD"}) == 4
    assert all(seats[s]["host"] and seats[s]["kernel"] for s in "ABCD")
    moves = [r for r in _records(log) if r["type"] == "move"]
    relayed = [m["timing"]["relay_ms"] for m in moves if "relay_ms" in m.get("timing", {})]
    assert len(relayed) > len(moves) // 2 and all(0 <= r < 1000 for r in relayed)
    verified = referee("replay", "--verify", str(log), cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert gone(marker)


def test_partners_on_one_host_are_refused_before_any_log(cluster: str, tmp_path: Path) -> None:
    log = tmp_path / "refused.jsonl"
    done = referee("match", "--dask", cluster, "--seats-apart", "--log", str(log), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "run on one host" in done.stderr
    assert "--seats-apart=workers" in done.stderr and not log.exists()


def test_a_worker_killed_in_mid_match_voids_it_and_leaves_no_bot(
    cluster: str, tmp_path: Path
) -> None:
    marker = f"apart-{os.getpid()}-kill"
    log = tmp_path / "killed.jsonl"
    match = subprocess.Popen(
        [sys.executable, "-m", "referee", "match", _slow(marker, 0.2), RANDOM_BOT,
         "--log", str(log), "--dask", cluster, "--seats-apart=workers"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for(lambda: log if moves(log) >= 4 else None, lambda: match.poll() is None, 60)
        worker = _kill_seat_worker(cluster, log, "C")
        _out, err = match.communicate(timeout=60)
    finally:
        if match.poll() is None:
            match.kill()
    assert match.returncode == 1, err
    end = _records(log)[-1]
    assert end["type"] == "match_end" and end["end"] == "void"
    assert "seat C was lost, no fault of its bot" in str(end["detail"])
    assert worker in str(end["detail"])
    assert "the match is void" in err and err.strip().splitlines()[-1].endswith("play it again")
    assert end["faults"] == {s: {} for s in "ABCD"}  # no bot charged
    assert gone(marker, within=15), with_marker(marker)
    _wait_for_workers(cluster, 4)  # the nanny brings it back for the next tests


def test_the_referee_killed_leaves_no_bot_on_the_workers(cluster: str, tmp_path: Path) -> None:
    marker = f"apart-{os.getpid()}-referee"
    log = tmp_path / "orphan.jsonl"
    match = subprocess.Popen(
        [sys.executable, "-m", "referee", "match", _slow(marker, 0.2), _slow(marker, 0.2),
         "--log", str(log), "--dask", cluster, "--seats-apart=workers"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for(lambda: log if moves(log) >= 4 else None, lambda: match.poll() is None, 60)
        assert len(with_marker(marker)) >= 4  # every seat's bot, on its worker
        match.kill()
        match.wait()
    finally:
        if match.poll() is None:
            match.kill()
    assert gone(marker, within=20), with_marker(marker)


def test_a_tournament_apart_plays_again_the_match_whose_worker_died(
    cluster: str, tmp_path: Path
) -> None:
    marker = f"apart-{os.getpid()}-tournament"
    results = tmp_path / "results.jsonl"
    tournament = _tournament_apart(cluster, tmp_path, _slow(marker, 0.1), "1", "--json")
    logs = tmp_path / "logs"
    try:
        log = _a_match_under_way(logs, tournament)
        _kill_seat_worker(cluster, log, "A")
        _out, err = tournament.communicate(timeout=180)
    finally:
        if tournament.poll() is None:
            tournament.kill()
    assert tournament.returncode == 0, err
    assert "was lost, no fault of its bot" in err and "playing it again (attempt 2)" in err
    assert "seats apart (workers): 4 workers on 1 host, 1 match at once" in err
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    played = [line for line in lines if "match_id" in line]
    assert len(played) == 2 and all(line["end"] == "marks" for line in played)
    assert list(logs.glob("*.void1")), "the void log is kept aside"
    for log in logs.glob("*.jsonl"):
        assert referee("replay", "--verify", str(log), cwd=tmp_path).returncode == 0
    assert gone(marker, within=15)
    _wait_for_workers(cluster, 4)


def test_a_league_runs_with_its_seats_apart(cluster: str, tmp_path: Path) -> None:
    db = tmp_path / "league.db"
    for args in (["init", str(db)], ["add", str(db), "random", RANDOM_BOT],
                 ["add", str(db), "other", RANDOM_BOT]):  # fmt: skip
        done = referee("league", *args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    done = referee(
        "league", "run", str(db), "--matches", "2", "--dask", cluster,
        "--seats-apart=workers", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    logs = sorted((tmp_path).rglob("*.jsonl"))
    assert len(logs) == 2
    for log in logs:
        assert _records(log)[0]["placement"]["apart"] == "workers"
        assert referee("replay", "--verify", str(log), cwd=tmp_path).returncode == 0


def test_a_bot_that_crashes_on_its_worker_is_charged_precisely(
    cluster: str, tmp_path: Path
) -> None:
    log = tmp_path / "crash.jsonl"
    crash = python(BOTS / "crash_bot.py", "--after", "1", "--status", "7")
    done = referee(
        "match", crash, RANDOM_BOT, "--log", str(log), "--dask", cluster,
        "--seats-apart=workers", "--json", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["end"] == "forfeit" and outcome["forfeit"]["reason"] == "crashed"
    assert "exit status 7" in outcome["forfeit"]["detail"]
    assert set(outcome["placement"]["seats"]) == set("ABCD") and set(outcome["relay"]) <= set(
        "ABCD"
    )
    end = _records(log)[-1]
    assert end["end"] == "forfeit" and "exit status 7" in end["detail"]


def test_a_bound_named_on_stdout_is_charged_on_its_worker(cluster: str, tmp_path: Path) -> None:
    # The bot catches a thread refused at its seat's process bound, writes Python's words on
    # stdout and never says ready: the words travel with the timeout to its worker, whose
    # sandbox knows the bound holds the seat.
    log = tmp_path / "bound.jsonl"
    hog = python(BOTS / "limits" / "hog_bot.py", "processes", "--caught")
    done = referee(
        "match", hog, RANDOM_BOT, "--log", str(log), "--dask", cluster, "--seats-apart=workers",
        "--max-processes", "16", "--startup-timeout", "2", "--json", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    failures = json.loads(done.stdout)["failures"]
    assert {seat: f["reason"] for seat, f in failures.items()} == dict.fromkeys(
        "AC", "process_limit"
    ), failures
    assert "its runtime wrote on stdout" in failures["A"]["detail"]
    assert failures["A"]["detail"].endswith("(seen as timeout)")


def test_a_final_apart_is_paced_frozen_and_strict_on_its_workers(
    cluster: str, tmp_path: Path
) -> None:
    if os.geteuid() != 0:
        pytest.skip("--final's strict sandbox needs root on the workers")
    log = tmp_path / "final.jsonl"
    system = "/usr/bin/python3"  # a runtime every seat's uid can run (strict)
    if not Path(system).exists():
        pytest.skip(f"{system} is missing: strict needs a runtime every user can run")
    bot = f"{system} {Path(RANDOM_BOT.split()[-1])}"
    done = referee(
        "match", bot, bot, "--final", "--move-timeout", "0.05", "--startup-timeout", "3",
        "--log", str(log), "--dask", cluster, "--seats-apart=workers", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    header = _records(log)[0]
    assert header["limits"]["pace"] and header["limits"]["frozen_when_idle"]
    assert header["sandbox"]["mode"] == "strict"
    for seat in "ABCD":
        assert {"uid", "private-root", "seccomp"} <= set(header["sandbox"]["seats"][seat])
    assert referee("replay", "--verify", str(log), cwd=tmp_path).returncode == 0


def test_a_bot_that_stops_reading_is_charged_so_and_its_stderr_comes_back(
    cluster: str, tmp_path: Path
) -> None:
    log = tmp_path / "deaf.jsonl"
    deaf = python(BOTS / "deaf_bot.py", "--after", "0")  # deaf at its first act: a hand
    done = referee(  # holds eight more of its decisions, and two fill its pipe
        "match", deaf, RANDOM_BOT, RANDOM_BOT, RANDOM_BOT, "--log", str(log), "--dask", cluster,
        "--seats-apart=workers", "--move-timeout", "0.3", "--on-fault", "random",
        "--max-strikes", "20", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    faults = [r for r in _records(log) if r["type"] == "fault" and r["seat"] == "A"]
    assert "not_reading" in [f["reason"] for f in faults], faults
    assert "deaf from now on" in (tmp_path / "deaf.jsonl.A.stderr").read_text()


def test_a_stalled_worker_voids_the_match_rather_than_timing_its_bot_out(
    cluster: str, tmp_path: Path
) -> None:
    log = tmp_path / "stalled.jsonl"
    match = subprocess.Popen(
        [sys.executable, "-m", "referee", "match", RANDOM_BOT, RANDOM_BOT, "--log", str(log),
         "--dask", cluster, "--seats-apart=workers", "--move-timeout", "0.5"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    pid = None
    try:
        wait_for(lambda: log if moves(log) >= 1 else None, lambda: match.poll() is None, 60)
        pid = _worker_pids(cluster)[seat_worker(log, "B")]
        os.kill(pid, signal.SIGSTOP)  # its event loop stops: no line reaches the bot
        _out, err = match.communicate(timeout=60)
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGCONT)
        if match.poll() is None:
            match.kill()
    assert match.returncode == 1, err
    end = _records(log)[-1]
    assert end["end"] == "void" and "seat B was lost" in end["detail"], end
    assert end["faults"]["B"] == {}
    _wait_for_workers(cluster, 4)


def test_ctrl_c_stops_a_tournament_apart_its_logs_ended_and_no_bot_left(
    cluster: str, tmp_path: Path
) -> None:
    marker = f"apart-{os.getpid()}-interrupt"
    tournament = _tournament_apart(cluster, tmp_path, _slow(marker, 0.2), "2")
    try:
        log = _a_match_under_way(tmp_path / "logs", tournament)
        tournament.send_signal(signal.SIGINT)
        _out, err = tournament.communicate(timeout=30)
    finally:
        if tournament.poll() is None:
            tournament.kill()
    assert tournament.returncode == 130, err
    assert "interrupted" in err and "--resume" in err and "Traceback" not in err
    assert _records(log)[-1]["end"] == "interrupted"
    assert gone(marker, within=15), with_marker(marker)
