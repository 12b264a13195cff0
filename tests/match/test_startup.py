"""The start of a match: ``hello`` and ``ready``, bots that never answer or fail to start,
junk before ``ready``, and which partnership forfeits (or whether the match is void).
"""

from __future__ import annotations

import pytest
import trio
from support.fakes import CLOSE, FakeBot, play_match, ready, settings
from support.tables import check_run, faults, silent

from referee.record.records import BotReady, FaultRecord, RejectedRecord


async def test_a_bot_that_never_answers_hello_forfeits(autojump_clock: trio.abc.Clock) -> None:
    run = await play_match(
        [FakeBot(), FakeBot(), FakeBot(), FakeBot(hello=silent)],
        settings(seed=1, startup_timeout=10.0),
    )
    outcome = run.outcome
    assert outcome.end == "forfeit"
    assert outcome.winner == "AC"
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == ("D", "timeout")
    assert outcome.detail == "D failed to start: timeout: no answer in time"
    assert outcome.faults == faults(D={"timeout": 1})
    assert outcome.hands == 0
    assert outcome.decisions == 0
    assert outcome.names == {"A": "fake-A", "B": "fake-B", "C": "fake-C", "D": ""}
    assert [type(r).__name__ for r in run.records] == [
        "Header",
        "BotReady",
        "BotReady",
        "BotReady",
        "FaultRecord",
        "MatchEndRecord",
    ]
    (fault,) = run.of(FaultRecord)
    assert (fault.seat, fault.reason, fault.penalty, fault.strikes) == (
        "D",
        "timeout",
        "forfeit",
        0,
    )
    for seat in "ABC":
        end = run.bots[seat].match_end
        assert end is not None and end.reason == "forfeit" and end.winner == "AC"
    check_run(run)


async def test_a_startup_fault_forfeits_even_under_random(autojump_clock: trio.abc.Clock) -> None:
    run = await play_match(
        [FakeBot(), FakeBot(), FakeBot(), FakeBot(hello=silent)],
        settings(seed=1, on_fault="random"),
    )
    assert run.outcome.end == "forfeit"
    assert run.outcome.forfeit is not None and run.outcome.forfeit.seat == "D"
    assert run.outcome.winner == "AC"
    assert run.outcome.faults == faults(D={"timeout": 1})
    check_run(run)


async def test_a_seat_that_fails_to_start_does_not_fault_the_seats_that_answered(
    autojump_clock: trio.abc.Clock,
) -> None:
    # A is silent; B, C and D answer hello at once. Only A failed to start.
    run = await play_match(
        [FakeBot(hello=silent), FakeBot(), FakeBot(), FakeBot()], settings(seed=1)
    )
    assert run.outcome.faults == faults(A={"timeout": 1})
    assert run.outcome.end == "forfeit"
    assert run.outcome.forfeit is not None and run.outcome.forfeit.seat == "A"
    assert run.outcome.winner == "BD"
    assert [r.seat for r in run.of(BotReady)] == ["B", "C", "D"]
    check_run(run)


async def test_bots_of_one_partnership_failing_to_start_forfeit(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(
        [FakeBot(hello=silent), FakeBot(), FakeBot(hello=silent), FakeBot()], settings(seed=1)
    )
    assert run.outcome.end == "forfeit"
    assert run.outcome.winner == "BD"
    assert run.outcome.forfeit is not None
    assert (run.outcome.forfeit.seat, run.outcome.forfeit.reason) == ("A", "timeout")
    assert run.outcome.faults == faults(A={"timeout": 1}, C={"timeout": 1})
    check_run(run)


async def test_bots_of_both_partnerships_failing_to_start_void_the_match(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(
        [FakeBot(), FakeBot(), FakeBot(hello=silent), FakeBot(hello=silent)], settings(seed=1)
    )
    outcome = run.outcome
    assert outcome.end == "void"
    assert outcome.winner is None
    assert outcome.forfeit is None
    assert outcome.detail == "bots of both partnerships failed to start"
    assert outcome.faults == faults(C={"timeout": 1}, D={"timeout": 1})
    assert [f.seat for f in run.of(FaultRecord)] == ["C", "D"]
    for seat in "AB":
        end = run.bots[seat].match_end
        assert end is not None and end.reason == "void" and end.winner is None
    check_run(run)


async def test_a_bot_that_exits_before_ready_forfeits_as_crashed(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(
        [FakeBot(), FakeBot(hello=lambda hello: [CLOSE]), FakeBot(), FakeBot()], settings(seed=1)
    )
    assert run.outcome.end == "forfeit"
    assert run.outcome.forfeit is not None
    assert (run.outcome.forfeit.seat, run.outcome.forfeit.reason) == ("B", "crashed")
    check_run(run)


@pytest.mark.parametrize(
    ("junk", "reason", "detail"),
    [
        (b"garbage\n", "invalid_json", "JSON is malformed"),
        (b'{"type":"action","id":0,"action":{"type":"pass"}}\n', "bad_message", "expected a"),
        (b'{"type":"ready"}\n', "bad_message", "missing required field `name`"),
    ],
)
async def test_junk_before_ready_is_rejected_and_ready_still_accepted(
    junk: bytes, reason: str, detail: str, autojump_clock: trio.abc.Clock
) -> None:
    run = await play_match(
        [FakeBot(), FakeBot(), FakeBot(hello=lambda hello: [junk, ready("late")]), FakeBot()],
        settings(seed=3),
    )
    bot = run.bots["C"]
    (rejected,) = bot.rejections
    assert (rejected.id, rejected.reason) == (0, reason)
    assert detail in rejected.detail
    assert bot.messages[1] == rejected
    (record,) = run.of(RejectedRecord)
    assert (record.id, record.seat, record.reason) == (0, "C", reason)
    assert record.raw == junk.decode().strip()
    assert run.records.index(record) < run.records.index(
        next(r for r in run.of(BotReady) if r.seat == "C")
    )
    assert run.outcome.names["C"] == "late"
    assert run.outcome.end == "marks"
    assert run.outcome.faults == faults(C={reason: 1})
    check_run(run)
