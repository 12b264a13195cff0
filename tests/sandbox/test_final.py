"""``--final``: one flag for the configuration that closes what one machine can close —
printed, recorded in the log header, refused where an option given says otherwise, and for
a league only where its limits were made for finals.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest
from support.hostile import ROOT
from support.processes import referee

from referee.record.log import read_log
from referee.sandbox.layers import available

SYSTEM_PYTHON = "/usr/bin/python3"
#: The random bot on the system's Python, which every uid can run: a seat gets a uid of its own.
RANDOM = shlex.join([SYSTEM_PYTHON, str(ROOT / "example_bots" / "random_bot.py")])
needs_strict = pytest.mark.skipif(
    os.geteuid() != 0 or not os.path.exists(SYSTEM_PYTHON) or available()["landlock"] is not None,
    reason="--final needs root, Landlock and a system Python every uid can run",
)
FAST = ("--move-timeout", "0.05", "--startup-timeout", "3", "--max-hands", "1")


@needs_strict
def test_final_plays_paced_frozen_and_strict_and_says_so(tmp_path: Path) -> None:
    log = tmp_path / "final.jsonl"
    run = referee(
        "match", RANDOM, RANDOM, "--final", *FAST, "--log", str(log), "--json", cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines()[0] == (
        "final: --pace --freeze-idle --time-bank 0 --sandbox strict --sandbox-private-root"
    )
    header = read_log(log).header
    assert header.limits.pace is True and header.limits.frozen_when_idle is True
    assert header.limits.time_bank_ms == 0
    assert header.sandbox is not None and header.sandbox.mode == "strict"
    assert all("uid" in layers for layers in header.sandbox.seats.values())
    assert json.loads(run.stdout)["end"] in ("max_hands", "marks")


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (("--time-bank", "3"), "--final sets --time-bank 0: leave --time-bank out"),
        (("--sandbox", "off"), "--final sets --sandbox strict: leave --sandbox out"),
    ],
)
def test_final_refuses_an_option_that_says_otherwise(
    tmp_path: Path, given: tuple[str, ...], said: str
) -> None:
    run = referee("match", RANDOM, RANDOM, "--final", *given, cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr == f"referee: {said}\n"
    assert not (tmp_path / "matches").exists() or not any((tmp_path / "matches").iterdir())


def test_pace_with_a_time_bank_is_a_usage_mistake(tmp_path: Path) -> None:
    run = referee("match", RANDOM, RANDOM, "--pace", "--time-bank", "2", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "--pace needs --time-bank 0" in run.stderr


def test_a_league_runs_as_a_final_only_if_made_for_one(tmp_path: Path) -> None:
    plain, final = tmp_path / "plain.db", tmp_path / "final.db"
    assert referee("league", "init", str(plain), cwd=tmp_path).returncode == 0
    made = referee("league", "init", str(final), "--final", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert made.stderr == "final: --pace --freeze-idle --time-bank 0\n"  # the limits only
    for db in (plain, final):
        for name in ("a", "b"):
            added = referee("league", "add", str(db), name, RANDOM, cwd=tmp_path)
            assert added.returncode == 0, added.stderr
    refused = referee("league", "run", str(plain), "--final", "--matches", "2", cwd=tmp_path)
    assert refused.returncode == 2
    assert "make a league with 'referee league init DB --final'" in refused.stderr
    assert refused.stderr.count("referee:") == 1
