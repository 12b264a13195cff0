"""Tournaments under the sandbox: the line, the layers in every result, a refusal under
``strict``, an entrant that cannot read the results, and no bot left after the tournament's
whole process group is killed."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.bot_commands import RANDOM_BOT
from support.processes import BOTS, with_marker

from referee.running.results import read_results
from referee.sandbox.layers import available

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(available()["landlock"] is not None, reason="no Landlock")


def _tournament(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", "tournament", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, **(env or {})},
        check=False,
    )


def test_an_entrant_cannot_read_the_results(tmp_path: Path) -> None:
    results = tmp_path / "out" / "results.jsonl"
    attacker = shlex.join([sys.executable, str(BOTS / "attacker_bot.py"), "--attack", "read-file"])
    run = _tournament(
        tmp_path, "--bot", f"evil={attacker}", "--bot", f"random={RANDOM_BOT}",
        "--seeds", "1", "--jobs", "1", "--max-hands", "1", "--results", str(results),
        "--sandbox-env", "ATTACK_TARGET",
        env={"ATTACK_TARGET": str(results)},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("sandbox auto:"), run.stderr
    _, recorded = read_results(results)
    assert len(recorded) == 2
    for result in recorded:
        assert result.sandbox is not None and "landlock" in result.sandbox.layers
    reports = [path.read_text() for path in (tmp_path / "out" / "logs").glob("*.stderr")]
    attacks = [line for text in reports for line in text.splitlines() if "ATTACK" in line]
    assert len(attacks) == 4 and all("BLOCKED PermissionError" in line for line in attacks)
    assert results.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("mode", ["auto", "strict"])
def test_bots_that_could_read_the_logs_are_refused(tmp_path: Path, mode: str) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text((ROOT / "example_bots" / "random_bot.py").read_text())
    command = shlex.join([sys.executable, str(bot)])
    args = ["--bot", f"a={command}", "--bot", f"b={RANDOM_BOT}", "--seeds", "1"]
    args += ["--results", str(tmp_path / "results.jsonl"), "--sandbox", mode]
    run = _tournament(tmp_path, *args)
    if "uid" not in run.stderr.split("\n")[0].partition("off:")[2] and run.returncode == 0:
        pytest.skip("the bots got their own uid, which keeps the logs closed to them")
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "could read" in run.stderr, run.stderr
    assert not (tmp_path / "results.jsonl").exists()


@pytest.mark.skipif(available()["reaper"] is not None, reason="no reaper")
def test_killing_the_tournaments_group_leaves_no_bot(tmp_path: Path) -> None:
    marker = f"marker-{tmp_path.name}"
    bot = shlex.join(
        [sys.executable, str(BOTS / "grandchild_bot.py"), "--then", "hang", "--marker", marker]
    )
    results = tmp_path / "results.jsonl"
    args = ["--bot", f"a={bot}", "--bot", f"b={bot}", "--seeds", "2", "--jobs", "2"]
    args += ["--move-timeout", "60", "--results", str(results)]
    tournament = subprocess.Popen(
        [sys.executable, "-m", "referee", "tournament", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while len(with_marker(marker)) < 2 * 8 + 1:  # two matches of bots, the tournament
            assert tournament.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
    finally:
        os.killpg(tournament.pid, signal.SIGKILL)
        tournament.wait()
    deadline = time.monotonic() + 5
    while with_marker(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = with_marker(marker)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []
    assert json.loads(results.read_text().splitlines()[0])["type"] == "tournament"
