"""Nothing a sandboxed bot starts outlives the referee, even a ``kill -9`` of the referee
(the parent-death signal, the reaper, the seat's control group); with ``--sandbox off`` the
same bots do survive it, which shows the test can fail."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from support.processes import with_marker

from referee.sandbox.layers import available

BOTS = Path(__file__).resolve().parents[1] / "bots"


def _kill_referee_mid_match(tmp_path: Path, mode: str) -> tuple[str, list[int], int]:
    """Start a match of bots that each leave a SIGTERM-proof grandchild and then think
    forever, SIGKILL the referee; return the marker, what still runs a second later, and
    the referee's pid."""
    marker = f"marker-{tmp_path.name}-{mode}-{uuid.uuid4().hex[:12]}"  # this run's alone
    bot = shlex.join(
        [sys.executable, str(BOTS / "grandchild_bot.py"), "--then", "hang", "--marker", marker]
    )
    log = tmp_path / "logs" / "match.jsonl"
    options = ["--log", str(log), "--move-timeout", "60", "--sandbox", mode]
    referee = subprocess.Popen(
        [sys.executable, "-m", "referee", "match", bot, bot, *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while not (log.exists() and b'"type":"act"' in log.read_bytes()):
            assert referee.poll() is None, referee.stderr.read() if referee.stderr else ""
            assert time.monotonic() < deadline, "the match did not start"
            time.sleep(0.05)
        # The referee's command line names the bots too: so do its own process, and the
        # keeper and init of each seat's namespaces, which are copies of it. A bot may say
        # ready before its grandchild is up: wait for all eight.
        while len([pid for pid in with_marker(marker) if not _is_referee(pid)]) != 8:
            assert time.monotonic() < deadline, "four bots and four grandchildren did not start"
            time.sleep(0.05)
        bots = [pid for pid in with_marker(marker) if not _is_referee(pid)]
        assert len(bots) == 8  # four bots, four grandchildren
    except BaseException:
        referee.kill()
        referee.wait()
        for pid in with_marker(marker):  # without the sandbox nothing else would end them
            os.kill(pid, signal.SIGKILL)
        raise
    finally:
        referee.kill()
        referee.wait()
    time.sleep(1.0)
    return marker, with_marker(marker), referee.pid


def _is_referee(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as stream:
            return b"-m\0referee\0" in stream.read()
    except OSError:
        return False


@pytest.mark.skipif(available()["reaper"] is not None, reason="no reaper on this machine")
def test_kill_9_of_the_referee_leaves_no_bot(tmp_path: Path) -> None:
    _, left, _ = _kill_referee_mid_match(tmp_path, "auto")
    assert left == []


def test_without_the_sandbox_kill_9_leaves_bots(tmp_path: Path) -> None:
    marker, left, _ = _kill_referee_mid_match(tmp_path, "off")
    try:
        assert len(left) >= 4  # at least the grandchildren (a bot that reads its EOF exits)
    finally:
        for pid in with_marker(marker):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(available()["cgroup"] is not None, reason="needs control groups (root)")
def test_kill_9_leaves_no_control_group(tmp_path: Path) -> None:
    from referee.sandbox import cgroups

    _, _, referee = _kill_referee_mid_match(tmp_path, "auto")
    where = cgroups.find()
    made = [folder / f"texas42-{referee}-1" for folder in (where.memory, where.pids)]
    deadline = time.monotonic() + 3
    while any(folder.exists() for folder in made) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [folder for folder in made if folder.exists()] == []
