"""verify judges ignored and refused answers by the rule the live match uses
(``referee.wire.answers``): a forged log that calls the awaited answer ignored, or refuses an
answer the referee would have ignored, does not verify."""

from __future__ import annotations

import msgspec
from support.fakes import play_match
from support.faulty_matches import FAULTY
from support.log_edits import forged, positions, records_of, split, verification_error

from referee.record.records import IgnoredRecord, RejectedRecord


async def _log(case: str) -> bytes:
    bots, settings, _, _ = FAULTY[case]()
    return (await play_match(bots, settings)).log


def _action(act_id: int) -> str:
    return msgspec.json.encode(
        {"type": "action", "id": act_id, "action": {"type": "pass"}}
    ).decode()


async def test_an_ignored_answer_must_answer_another_act() -> None:
    log = await _log("ignored stale id")
    lines = split(log)
    [index] = positions(records_of(log), IgnoredRecord)
    expected = lines[index].value["expected_id"]

    def awaited(value: dict[str, object]) -> None:
        value["raw"] = _action(expected)

    lines[index] = lines[index].edited(awaited)
    error = verification_error(forged(lines))
    assert "ignored answer that answers the act awaited" in str(error)


async def test_a_refused_answer_must_not_be_one_to_ignore() -> None:
    log = await _log("too_many_rejections, forfeit")
    lines = split(log)
    index = positions(records_of(log), RejectedRecord)[0]
    act_id = lines[index].value["id"]

    def stale(value: dict[str, object]) -> None:
        value["raw"] = _action(act_id - 1)

    lines[index] = lines[index].edited(stale)
    error = verification_error(forged(lines))
    assert "a rejection of an answer to be ignored (stale)" in str(error)
