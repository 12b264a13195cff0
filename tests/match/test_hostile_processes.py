"""Real matches against hostile bot processes that misbehave as processes: crashes, a closed
stdout, floods of stderr, grandchildren that outlive or ignore signals, commands that
cannot start, and the ``random`` policy playing on. Checked by ``support.hostile.play``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.hostile import MOVE_TIMEOUT, assert_completed, assert_forfeit, play

from referee.record.records import ActRecord, FaultRecord, MoveRecord


async def test_crashes_mid_hand(tmp_path: Path) -> None:
    played = await play(tmp_path, "crash_bot.py", "--after", "3", "--status", "3")
    assert_forfeit(played, "crashed")
    assert played.outcome.faults["B"] == {"crashed": 1}
    assert len([r for r in played.of(MoveRecord) if r.seat == "B"]) == 3
    assert played.seconds < played.budget(move_timeouts=0)


async def test_closes_stdout_and_keeps_running(tmp_path: Path) -> None:
    played = await play(tmp_path, "close_stdout_bot.py", "--after", "3")
    assert_forfeit(played, "crashed")
    assert played.outcome.faults["B"] == {"crashed": 1}
    assert len([r for r in played.of(MoveRecord) if r.seat == "B"]) == 3
    assert played.seconds < played.budget(move_timeouts=0)


async def test_floods_stderr(tmp_path: Path) -> None:
    limit = 64 * 1024
    played = await play(tmp_path, "stderr_flood_bot.py", "--mib", "50", stderr_limit=limit)
    assert_completed(played)
    assert played.outcome.faults["B"] == {}
    data = played.stderr("B").read_bytes()
    kept, note = data[:limit], data[limit:]
    assert kept.startswith(b"stderr flood ")
    assert note.startswith(b"\n[referee: stderr capped at 65536 bytes; ")
    assert note.endswith(b" more bytes dropped]\n")
    assert len(note) < 200
    for seat in "ACD":
        assert not played.stderr(seat).exists()  # the random bot writes nothing to stderr


def grandchild_args(then: str, marker: Path) -> list[str]:
    return ["--then", then, "--marker", str(marker)]


async def test_grandchild_ignoring_sigterm_then_behaving(tmp_path: Path) -> None:
    played = await play(tmp_path, "grandchild_bot.py", *grandchild_args("behave", tmp_path))
    assert_completed(played)
    assert played.outcome.faults["B"] == {}
    assert any(played.pid_dir.glob("grandchild-*"))


async def test_grandchild_ignoring_sigterm_then_hanging(tmp_path: Path) -> None:
    played = await play(tmp_path, "grandchild_bot.py", *grandchild_args("hang", tmp_path))
    assert_forfeit(played, "timeout")
    assert any(played.pid_dir.glob("grandchild-*"))
    assert played.seconds < played.budget()


async def test_grandchild_outlives_its_bot(tmp_path: Path) -> None:
    # The bot exits after ready, but its grandchild keeps the bot's stdout open, so the
    # referee sees no end of output: the first act times out. The grandchild must still go.
    played = await play(tmp_path, "grandchild_bot.py", *grandchild_args("exit", tmp_path))
    assert_forfeit(played, "timeout")
    assert any(played.pid_dir.glob("grandchild-*"))
    assert played.seconds < played.budget()


@pytest.mark.parametrize(
    "command", ["/nonexistent/bot", "", "'unterminated"], ids=["missing", "empty", "unsplittable"]
)
async def test_bot_that_cannot_start(tmp_path: Path, command: str) -> None:
    played = await play(tmp_path, None, command=command)
    assert_forfeit(played, "start_failed")
    assert "failed to start" in played.outcome.detail
    assert played.outcome.hands == 0
    assert played.seconds < played.budget(move_timeouts=0)


async def test_on_fault_random_plays_on_then_forfeits(tmp_path: Path) -> None:
    played = await play(tmp_path, "sleepy_bot.py", "--after", "1", on_fault="random", max_strikes=3)
    assert_forfeit(played, "timeout")
    assert played.outcome.faults["B"] == {"timeout": 4}
    faults = played.of(FaultRecord)
    assert [(f.penalty, f.strikes) for f in faults] == [
        ("random", 1),
        ("random", 2),
        ("random", 3),
        ("forfeit", 4),
    ]
    forced = [r for r in played.of(MoveRecord) if r.forced]
    assert len(forced) == 3
    assert all(r.seat == "B" and r.id is None for r in forced)
    # A forced action is one of the legal actions of the act it replaced.
    acts = {r.id: r for r in played.of(ActRecord)}
    for fault, move in zip(faults, forced, strict=False):
        assert move.action in acts[fault.id].legal_actions
    assert played.seconds < played.budget(move_timeouts=4)


async def test_on_fault_random_with_late_answers(tmp_path: Path) -> None:
    # Answers arrive 1.5 move timeouts late: each decision is forced, and the late answer
    # reaches the referee while it waits for the next decision, which ignores it.
    played = await play(
        tmp_path,
        "sleepy_bot.py",
        "--sleep",
        str(1.5 * MOVE_TIMEOUT),
        on_fault="random",
        max_strikes=2,
    )
    assert_forfeit(played, "timeout")
    assert played.outcome.faults["B"]["timeout"] == 3
    assert played.outcome.faults["B"]["ignored"] >= 1
    assert len([r for r in played.of(MoveRecord) if r.forced]) == 2
    assert played.seconds < played.budget(move_timeouts=3)
