"""``referee bench env`` measures the environment and the bare engine in one run and ends
with its figure: the environment's steps/s beside the engine's."""

from __future__ import annotations

import re
from pathlib import Path

from support.processes import referee


def test_bench_env_ends_with_the_environments_steps_against_the_engines(tmp_path: Path) -> None:
    run = referee("bench", "env", "--steps", "400", "--rounds", "2", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "2 rounds of 400 random legal steps each, engine then environment"
    last = re.fullmatch(
        r"env: ([\d,]+) AEC steps/s against the engine's ([\d,]+) \((\d+)%\)", lines[-1]
    )
    assert last is not None, lines
    env, engine = (int(x.replace(",", "")) for x in last.groups()[:2])
    assert 0 < env < engine  # the environment does the engine's work and more
    assert "goal: 50,000 steps/s" in lines[-2]
