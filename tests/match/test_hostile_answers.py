"""Real matches against hostile bot processes that answer badly: too late, unreadable,
too long, with a wrong id or an illegal action. Seat B is the hostile bot; every match is
checked by ``support.hostile.play`` (the verdict, the time, the log, no process left).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.hostile import (
    GRACE,
    MOVE_TIMEOUT,
    STARTUP_TIMEOUT,
    assert_completed,
    assert_forfeit,
    play,
)

from referee.record.records import (
    ActRecord,
    BotReady,
    FaultRecord,
    IgnoredRecord,
    MoveRecord,
    RejectedRecord,
)


async def test_sleeps_past_the_move_deadline(tmp_path: Path) -> None:
    played = await play(tmp_path, "sleepy_bot.py", "--after", "2")
    assert_forfeit(played, "timeout")
    assert played.outcome.faults["B"] == {"timeout": 1}
    assert played.seconds < played.budget()
    fault = played.of(FaultRecord)[0]
    assert fault.timing is not None and fault.timing.latency_ms is not None
    assert MOVE_TIMEOUT * 1000 <= fault.timing.latency_ms < (MOVE_TIMEOUT + 0.5) * 1000


@pytest.mark.parametrize("seat", ["B", "D"])
async def test_never_answers_hello(tmp_path: Path, seat: str) -> None:
    # In seat B the bots after it (C, D) must not be blamed for B's silence; seat D is last.
    played = await play(tmp_path, "silent_bot.py", seat=seat)
    assert_forfeit(played, "timeout", seat=seat)
    assert "failed to start" in played.outcome.detail
    assert played.outcome.hands == 0
    assert not played.of(ActRecord)
    assert sorted(r.seat for r in played.of(BotReady)) == sorted(set("ABCD") - {seat})
    assert STARTUP_TIMEOUT <= played.seconds < played.budget(move_timeouts=0)


@pytest.mark.parametrize(
    ("script", "code"),
    [("garbage_bot.py", "invalid_json"), ("bad_utf8_bot.py", "invalid_utf8")],
)
async def test_unreadable_answers_to_act(tmp_path: Path, script: str, code: str) -> None:
    played = await play(tmp_path, script)
    assert_forfeit(played, "too_many_rejections")
    assert played.outcome.faults["B"] == {code: 3, "too_many_rejections": 1}
    rejected = played.of(RejectedRecord)
    assert [(r.seat, r.reason) for r in rejected] == [("B", code)] * 3
    assert len({r.id for r in rejected}) == 3  # a fresh act after each rejection
    assert all(r.raw for r in rejected)
    assert played.seconds < played.budget(move_timeouts=0)


@pytest.mark.parametrize(
    ("script", "code"),
    [("garbage_bot.py", "invalid_json"), ("bad_utf8_bot.py", "invalid_utf8")],
)
async def test_unreadable_answer_to_hello(tmp_path: Path, script: str, code: str) -> None:
    played = await play(tmp_path, script, "--on", "hello")
    assert_forfeit(played, "timeout")
    assert played.outcome.faults["B"] == {code: 1, "timeout": 1}
    assert [(r.seat, r.reason, r.id) for r in played.of(RejectedRecord)] == [("B", code, 0)]
    assert played.outcome.hands == 0
    assert played.seconds < played.budget(move_timeouts=0)


async def test_ten_mib_line(tmp_path: Path) -> None:
    # The bot writes 10 MiB without a newline, then waits 30 s before the newline: the
    # referee must give up at the size bound, not at the newline nor at the deadline.
    played = await play(tmp_path, "long_line_bot.py", move_timeout=5.0)
    assert_forfeit(played, "line_too_long")
    assert played.outcome.faults["B"] == {"line_too_long": 1}
    assert played.seconds < STARTUP_TIMEOUT + GRACE  # no move timeout spent
    fault = played.of(FaultRecord)[0]
    assert fault.timing is not None and fault.timing.latency_ms is not None
    assert fault.timing.latency_ms < 2000


async def test_wrong_id_is_ignored(tmp_path: Path) -> None:
    played = await play(tmp_path, "wrong_id_bot.py")
    assert_forfeit(played, "timeout")
    faults = played.outcome.faults["B"]
    assert faults["timeout"] == 1
    assert faults["ignored"] >= 1
    ignored = played.of(IgnoredRecord)
    assert len(ignored) == faults["ignored"]
    for record in ignored:
        assert record.seat == "B"
        assert json.loads(record.raw)["id"] == record.expected_id + 1000
    assert not any(r.seat == "B" and not r.forced for r in played.of(MoveRecord))
    assert played.seconds < played.budget()


async def test_illegal_action_every_time(tmp_path: Path) -> None:
    played = await play(tmp_path, "illegal_bot.py")
    assert_forfeit(played, "too_many_rejections")
    assert played.outcome.faults["B"] == {"illegal_action": 3, "too_many_rejections": 1}
    rejected = played.of(RejectedRecord)
    assert [(r.seat, r.reason) for r in rejected] == [("B", "illegal_action")] * 3
    assert all(r.rule for r in rejected)  # the rule broken, e.g. wrong_phase
    assert played.seconds < played.budget(move_timeouts=0)


async def test_illegal_once_then_legal(tmp_path: Path) -> None:
    played = await play(tmp_path, "illegal_bot.py", "--times", "1")
    assert_completed(played)
    assert played.outcome.faults["B"] == {"illegal_action": 1}
    (rejected,) = played.of(RejectedRecord)
    assert (rejected.seat, rejected.reason) == ("B", "illegal_action")
    # The decision was asked again and answered legally; nothing was forced.
    acts = [r for r in played.of(ActRecord) if r.seat == "B"]
    assert acts[0].id == rejected.id and acts[1].id > rejected.id
    moves = [r for r in played.of(MoveRecord) if r.seat == "B"]
    assert moves[0].id == acts[1].id
    assert not any(r.forced for r in played.of(MoveRecord))
    assert not played.of(FaultRecord)
