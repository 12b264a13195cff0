"""The one walk through a log (``record.walk``) and the checks layered on it (``verify``):
each record with the match where it stands, moves played once, and a check for every record
type."""

from __future__ import annotations

import typing

import msgspec
import pytest
import trio
from support.fakes import any_act, misbehave, play_match, settings
from support.faulty_matches import illegal
from support.log_edits import Line, forged, positions, records_of, split, verification_error
from support.tables import bots, random_match

from referee.record.events import event_record
from referee.record.records import (
    DealRecord,
    FaultRecord,
    LogRecord,
    MatchEndRecord,
    MoveRecord,
    RejectedRecord,
)
from referee.record.verify import HANDLERS
from referee.record.walk import LogWalk
from referee.rules import Match


def test_every_record_type_has_a_check() -> None:
    # An explicit map, not a method found by the class's name: a renamed record type would
    # otherwise go unchecked without a word.
    assert set(HANDLERS) == set(typing.get_args(LogRecord))


async def test_the_walk_gives_each_record_with_the_match_before_it(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await random_match(4)
    engine = Match(run.header.seed)
    walk = LogWalk(run.records)
    follows: list[LogRecord] = []
    lines = []
    for at in walk:
        lines.append(at.line)
        assert at.record is run.records[at.line - 1]
        assert at.match is walk.match
        assert (at.hand_number, at.match.turn) == (engine.hand.hand_number, engine.turn)
        if follows and not isinstance(at.record, MatchEndRecord):
            assert at.record == follows.pop(0)  # what the engine's events say comes next
        if isinstance(at.record, DealRecord):
            assert at.record.hands == at.match.hand.hands
        if isinstance(at.record, MoveRecord):
            hand_number = engine.hand.hand_number
            events = at.play()
            assert at.play() is events  # played once
            assert events == engine.apply(at.record.seat, at.record.action)
            assert at.hand.hand_number == hand_number  # the move's own hand
            follows += [r for e in events if (r := event_record(e, walk.match, hand_number))]
    assert lines == list(range(1, len(run.records) + 1))
    assert walk.match.is_over and walk.match.marks == run.end.marks


async def test_a_move_its_reader_left_unplayed_is_played_before_the_walk_goes_on(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await random_match(2)
    walk = LogWalk(run.records)
    for at in walk:
        if not isinstance(at.record, MoveRecord):
            with pytest.raises(AssertionError):
                at.play()
    assert walk.match.is_over and walk.match.winner == run.end.winner


async def test_the_rejection_count_check_does_not_read_the_faults_free_text(
    autojump_clock: trio.abc.Clock,
) -> None:
    # A too_many_rejections fault after fewer than max_rejections refusals (the last one moved
    # after it) is caught whatever its detail says: the check counts the records.
    run = await play_match(bots(B=misbehave(any_act, illegal, times=None)), settings(seed=8))
    records = records_of(run.log)
    i = positions(records, FaultRecord, lambda f, _: f.reason == "too_many_rejections")[0]
    assert isinstance(records[i - 1], RejectedRecord)
    lines = split(run.log)
    lines[i - 1], lines[i] = lines[i], lines[i - 1]
    fault = lines[i - 1].value
    assert "refused" in fault["detail"]
    fault["detail"] = "the bot gave up"
    lines[i - 1] = Line(msgspec.json.encode(fault), b"")
    error = verification_error(forged(lines))
    assert error.line == i and "rejections before the fault" in str(error), str(error)
