"""Stopping a tournament: after ``kill -9`` of the referee ``--resume`` plays exactly the missing
matches and no bot or worker is left behind; Ctrl-C stops cleanly and says how to resume."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.tournaments import (
    PYTHON,
    group_members,
    slow_bot,
    start_tournament,
    wait_for_lines,
    wait_until_no_process_mentions,
)

from referee.record.log import read_log
from referee.running.results import read_results
from referee.tournament.plan import (
    plan,
)


@dataclass
class KilledRun:
    """A tournament killed with SIGKILL halfway, then resumed."""

    directory: Path
    results: Path
    #: Complete lines in the results file when it was killed (header included).
    lines_at_kill: int
    prefix_at_kill: bytes
    killed_at: float
    #: The referee's worker processes (its process group), recorded before the kill.
    workers: list[int]
    group: int
    bots_left: list[str]
    resumed: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KilledRun]:
    directory = tmp_path_factory.mktemp("killed")
    bot = slow_bot(directory)
    results = directory / "results.jsonl"
    args = [
        *("--bot", f"a={shlex.join([PYTHON, str(bot), '0.02'])}"),
        *("--bot", f"b={shlex.join([PYTHON, str(bot), '0.02'])}"),
        *("--seeds", "4", "--seed", "1", "--jobs", "2", "--results", str(results), "--json"),
    ]
    referee = start_tournament(args, directory)
    workers: list[int] = []
    try:
        lines = wait_for_lines(results, 3, referee)  # the header and two matches
        prefix = results.read_bytes()
        workers = [pid for pid in group_members(referee.pid) if pid != referee.pid]
        referee.kill()  # kill -9: no chance to clean up
        referee.wait()
        killed_at = time.monotonic()
        bots_left = wait_until_no_process_mentions(str(directory), timeout=15)
        resumed = subprocess.run(
            [PYTHON, "-m", "referee", "tournament", *args, "--resume"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        yield KilledRun(
            directory,
            results,
            lines,
            prefix[: prefix.rfind(b"\n") + 1],
            killed_at,
            workers,
            referee.pid,
            bots_left,
            resumed,
        )
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()
        for pid in workers:  # whatever the killed referee left behind (see the test below)
            if pid in group_members(referee.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def test_resume_after_kill_plays_exactly_the_missing_matches(killed_run: KilledRun) -> None:
    resumed = killed_run.resumed
    assert resumed.returncode == 0, resumed.stderr
    header, results = read_results(killed_run.results)
    planned = [job.match_id for job in plan(header.settings, killed_run.directory / "logs")]
    assert len(planned) == 8  # 4 seeds x 1 pairing x 2 legs
    assert 2 <= killed_run.lines_at_kill - 1 < len(planned)
    counts = Counter(result.match_id for result in results)
    assert [match_id for match_id, n in counts.items() if n > 1] == []
    assert sorted(counts) == sorted(planned)
    assert len(results) == len(planned)
    # What was recorded before the kill is kept as it was.
    assert killed_run.results.read_bytes().startswith(killed_run.prefix_at_kill)
    document = json.loads(resumed.stdout)
    assert document["matches"] == document["planned"] == len(planned)
    for result in results:  # every log is whole and is the one the results line stands for
        log = read_log(Path(result.log))
        assert log.broken_at is None and log.truncated is None, result.log
        assert log.head == result.log_digest


def test_no_bot_is_left_behind_after_kill(killed_run: KilledRun) -> None:
    assert killed_run.bots_left == []


def test_kill_leaves_no_worker_process_behind(killed_run: KilledRun) -> None:
    """After ``kill -9`` of the referee its worker processes may finish the match in hand, but
    then they must go: they must not wait forever for work that will never come."""
    assert killed_run.workers, "the referee had no worker processes"
    deadline = killed_run.killed_at + 10
    left = [pid for pid in killed_run.workers if pid in group_members(killed_run.group)]
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = [pid for pid in killed_run.workers if pid in group_members(killed_run.group)]
    commands = [
        Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        for pid in left
        if Path(f"/proc/{pid}").exists()
    ]
    assert left == [], f"orphaned worker processes still running: {commands}"


def test_ctrl_c_stops_cleanly_and_says_to_resume(tmp_path: Path) -> None:
    bot = slow_bot(tmp_path)
    results = tmp_path / "results.jsonl"
    args = [
        *("--bot", f"a={shlex.join([PYTHON, str(bot), '0.02'])}"),
        *("--bot", f"b={shlex.join([PYTHON, str(bot), '0.02'])}"),
        *("--seeds", "4", "--seed", "1", "--jobs", "2", "--results", str(results), "--json"),
    ]
    referee = start_tournament(args, tmp_path)
    try:
        wait_for_lines(results, 3, referee)
        os.killpg(referee.pid, signal.SIGINT)  # Ctrl-C reaches the terminal's process group
        status = referee.wait(timeout=30)
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()
    stderr = (tmp_path / "stderr.txt").read_text()
    assert status == 130, stderr
    assert "Traceback" not in stderr
    assert "interrupted" in stderr and "--resume" in stderr
    _, recorded = read_results(results)
    assert 2 <= len(recorded) < 8
    assert f"{len(recorded)} of 8 matches recorded" in stderr
    # No match was played to its end after Ctrl-C and then thrown away: every log that ends
    # on marks is a recorded result (queued matches are refused, not played).
    time.sleep(2)  # let the workers finish closing their interrupted matches
    ids = {result.match_id for result in recorded}
    for log in (tmp_path / "logs").glob("*.jsonl"):
        last = log.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        if b'"end":"marks"' in last:
            assert log.stem in ids, f"{log.name} was played to its end but not recorded"
    assert results.read_bytes().endswith(b"\n")
    document = json.loads((tmp_path / "stdout.txt").read_text())
    assert document["matches"] == len(recorded) and document["planned"] == 8
    assert wait_until_no_process_mentions(str(tmp_path), timeout=10) == []
    deadline = time.monotonic() + 10
    while group_members(referee.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert group_members(referee.pid) == []
