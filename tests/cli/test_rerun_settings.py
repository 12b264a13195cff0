"""``replay --rerun`` plays a logged match again under what its header says: the limits and
the sandbox bounds it was played under, the same bots, a new log beside the old one; and it
says why it cannot start, or why the game it got differs."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest

from referee.match.rerun import difference, logged_settings, rerun_of
from referee.record.log import LogFile, read_log
from referee.record.records import MatchEndRecord
from referee.settings import MatchSettings

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "logs"
RANDOM = shlex.join([sys.executable, str(ROOT / "example_bots" / "random_bot.py")])


def test_the_settings_are_the_headers_limits_and_sandbox_bounds() -> None:
    header = read_log(GOLDEN / "random_policy-0.jsonl").header
    settings = logged_settings(header)
    assert settings.seed == header.seed and settings.max_hands == header.max_hands
    assert settings.limits() == header.limits
    assert (settings.on_fault, settings.max_rejections, settings.max_strikes) == ("random", 1, 20)
    assert header.sandbox is not None
    bounds = msgspec.structs.replace(
        header.sandbox, memory_mb=512, cpu_seconds=30, max_processes=9, file_size_mb=5,
        scratch_mb=0,  # not logged by older referees: the default stands
    )  # fmt: skip
    changed = logged_settings(msgspec.structs.replace(header, sandbox=bounds))
    assert (changed.memory_mb, changed.cpu_seconds, changed.max_processes) == (512, 30, 9)
    assert changed.file_size_mb == 5 and changed.scratch_mb == MatchSettings(seed=0).scratch_mb
    unbounded = msgspec.structs.replace(header.sandbox, memory_mb=0, cpu_seconds=30)
    older = logged_settings(msgspec.structs.replace(header, sandbox=unbounded))
    assert older.cpu_seconds == MatchSettings(seed=0).cpu_seconds  # no bounds logged at all


def golden(tmp_path: Path, **bots: str) -> LogFile:
    """A golden log read from ``tmp_path``, its bots this checkout's random bot (the logged
    commands name the clone that recorded it), some seats' commands replaced by ``bots``."""
    log = tmp_path / "m.jsonl"
    shutil.copy(GOLDEN / "bundled-0.jsonl", log)
    replay_log = read_log(log)
    commands: dict[str, str] = {**dict.fromkeys(replay_log.header.bots, RANDOM), **bots}
    replay_log.records[0] = msgspec.structs.replace(replay_log.header, bots=commands)
    return replay_log


def test_a_rerun_writes_beside_the_log_and_knows_the_logged_digest(tmp_path: Path) -> None:
    replay_log = golden(tmp_path)
    rerun = rerun_of(replay_log)
    assert rerun.log == tmp_path / "m.rerun.jsonl"
    assert rerun.bots == replay_log.header.bots
    end = replay_log.records[-1]
    assert isinstance(end, MatchEndRecord) and rerun.logged_digest == end.game_digest
    rerun.log.touch()
    with pytest.raises(ValueError, match=r"m\.rerun\.jsonl exists \(an earlier re-run\)"):
        rerun_of(replay_log)


def test_a_command_that_cannot_start_is_named_before_the_match(tmp_path: Path) -> None:
    replay_log = golden(tmp_path, C="no_such_program_42")
    with pytest.raises(ValueError, match="cannot re-run: seat C: 'no_such_program_42'"):
        rerun_of(replay_log)


def test_a_difference_says_which_seat_did_not_start() -> None:
    rerun: Any = SimpleNamespace(bots=dict.fromkeys("ABCD", "bot"), logged_digest="d1")
    names = {"A": "a", "B": "", "C": "c", "D": ""}
    same: Any = SimpleNamespace(game_digest="d1", names=names, detail="")
    assert difference(rerun, same) is None
    missing: Any = SimpleNamespace(game_digest="d2", names=names, detail="seat B crashed")
    said = difference(rerun, missing)
    assert said is not None and said.startswith("the game differs: seat B, D did not start")
    assert "(seat B crashed)" in said
    started: Any = SimpleNamespace(game_digest="d2", names=dict.fromkeys("ABCD", "x"), detail="")
    assert difference(rerun, started) == "the game differs (are the bots deterministic?)"
