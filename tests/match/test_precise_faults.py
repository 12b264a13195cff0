"""Faults that say what the bot did: a decision lost after an answer with another id names
that id, and a line that is not JSON is quoted (cut, escaped) with where debug output goes.
"""

from __future__ import annotations

import trio
from support.fakes import Sleep, answer, misbehave, play_match, settings
from support.tables import bots, check_run, faults

from referee.record.log import parse_log
from referee.record.records import FaultRecord, IgnoredRecord, RejectedRecord
from referee.record.verify import verify
from referee.wire.decode import QUOTED_CHARS


def playing(act: object) -> bool:
    return act.view.phase == "playing"


async def test_a_decision_lost_after_a_wrong_id_names_the_ids(
    autojump_clock: trio.abc.Clock,
) -> None:
    policy = misbehave(playing, lambda act: answer(act.id + 1, act.legal_actions[0]))
    run = await play_match(bots(C=policy), settings(seed=2, move_timeout=1.0))
    (act,) = policy.triggered  # type: ignore[attr-defined]
    outcome = run.outcome
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == ("C", "timeout")
    wrong = f"answered id {act.id + 1} while id {act.id} was asked, then no answer in time"
    assert outcome.forfeit.detail == wrong
    assert outcome.detail == f"C forfeits: timeout: {wrong}"
    assert outcome.faults == faults(C={"ignored": 1, "timeout": 1})
    (ignored,) = run.of(IgnoredRecord)
    assert (ignored.seat, ignored.expected_id) == ("C", act.id)
    (fault,) = run.of(FaultRecord)
    assert (fault.reason, fault.detail, fault.id) == ("timeout", wrong, act.id)
    check_run(run)
    verify(parse_log(run.log))


async def test_several_wrong_ids_are_counted(autojump_clock: trio.abc.Clock) -> None:
    policy = misbehave(
        playing,
        lambda act: [
            answer(act.id + 5, act.legal_actions[0]),
            answer(act.id - 1, {"type": "pass"}),
        ],
    )
    run = await play_match(bots(C=policy), settings(seed=2, move_timeout=1.0))
    (act,) = policy.triggered  # type: ignore[attr-defined]
    assert run.outcome.forfeit is not None
    assert run.outcome.forfeit.detail == (
        f"answered id {act.id - 1} while id {act.id} was asked (2 answers ignored),"
        " then no answer in time"
    )
    verify(parse_log(run.log))


async def test_a_late_answer_answered_in_time_is_no_fault(autojump_clock: trio.abc.Clock) -> None:
    policy = misbehave(
        playing,
        lambda act: [
            answer(act.id + 1, act.legal_actions[0]),
            answer(act.id, act.legal_actions[0]),
        ],
    )
    run = await play_match(bots(C=policy), settings(seed=2))
    assert run.outcome.end == "marks"
    assert run.outcome.faults == faults(C={"ignored": 1})


async def test_a_line_that_is_not_json_is_quoted_escaped_with_advice(
    autojump_clock: trio.abc.Clock,
) -> None:
    prefix = "thinking: \x1b[31mbid 30?\x1b[0m "
    debug = prefix.encode() + b"x" * 100
    policy = misbehave(playing, lambda act: [debug + b"\n", answer(act.id, act.legal_actions[0])])
    run = await play_match(bots(B=policy), settings(seed=4))
    (rejected,) = run.of(RejectedRecord)
    shown = "thinking: \\x1b[31mbid 30?\\x1b[0m " + "x" * (QUOTED_CHARS - len(prefix)) + "…"
    assert rejected.reason == "invalid_json"
    assert rejected.detail == (
        f'JSON is malformed: invalid character (byte 4) in "{shown}"; debug output goes to stderr'
    )
    (told,) = run.bots["B"].rejections
    assert told.detail == rejected.detail
    assert "\x1b" not in rejected.detail
    assert run.outcome.end == "marks"
    verify(parse_log(run.log))


async def test_a_forfeit_for_lines_not_json_quotes_the_last(
    autojump_clock: trio.abc.Clock,
) -> None:
    policy = misbehave(playing, lambda act: [Sleep(0.1), b"eval=+3\n"], times=None)
    run = await play_match(bots(D=policy), settings(seed=4, max_rejections=2))
    outcome = run.outcome
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == ("D", "too_many_rejections")
    assert outcome.forfeit.detail == (
        "2 answers refused for one decision (last: invalid_json: JSON is malformed:"
        ' invalid character (byte 0) in "eval=+3"; debug output goes to stderr)'
    )
    check_run(run)
