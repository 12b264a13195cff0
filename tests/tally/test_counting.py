"""Counting one log (``tally.counting``) on matches played over in-memory fake bots: every
number checked against a count of its own over the log's records — the ``hand_end`` records
for contracts and marks (the count itself takes them from the rules engine), the actions'
kinds for the phases."""

from __future__ import annotations

from collections import Counter

import pytest
import trio
from support.fakes import play_match
from support.faulty_matches import FAULTY
from support.log_edits import forged, split
from support.tables import random_match

from referee.record.log import parse_log
from referee.record.records import (
    BotReady,
    FaultRecord,
    HandEndRecord,
    MoveRecord,
    split_counts,
)
from referee.rules import AllTricksBid, Bid, DeclareTrump, Pass
from referee.rules.tiles import SEATS
from referee.tally.counting import Uncountable, count_log
from referee.tally.tally import Tally


def _phase(action: object) -> str:
    if isinstance(action, Pass | Bid | AllTricksBid):
        return "bidding"
    return "declaring" if isinstance(action, DeclareTrump) else "playing"


@pytest.mark.parametrize("seed", [1, 2, 3, 7])
async def test_a_match_counts_as_its_records_say(seed: int) -> None:
    run = await random_match(seed)
    counts = count_log(parse_log(run.log))
    ends = run.of(HandEndRecord)
    assert ends, "a match of random bots plays hands"
    contracts: dict[str, Counter[object]] = {seat: Counter() for seat in SEATS}
    marks = Counter[str]()
    defended, sets = Counter[str](), Counter[str]()
    for end in ends:
        result, contract = end.result, end.result.contract
        if contract is None:
            continue
        made = result.outcome == "made"
        contracts[contract.declarer][contract.bid, contract.trump, made] += 1
        marks[result.winner or ""] += result.marks
        defended[contract.defenders] += 1
        sets[contract.defenders] += not made
    for seat in SEATS:
        assert counts.seats[seat].contracts == contracts[seat]
    for side in ("AC", "BD"):
        got = counts.sides[side]  # type: ignore[index]
        assert got.hands == len(ends)
        assert got.passed == sum(e.result.outcome == "passed" for e in ends)
        assert (got.marks, got.defended, got.set) == (marks[side], defended[side], sets[side])
    for seat in SEATS:
        moves = [m for m in run.of(MoveRecord) if m.seat == seat]
        for phase in ("bidding", "declaring", "playing"):
            timed = [m.timing.latency_ms for m in moves if _phase(m.action) == phase and m.timing]
            assert counts.seats[seat].times[phase] == timed  # type: ignore[index]
        assert len(counts.seats[seat].times["start-up"]) == 1  # one ready
    assert counts.names == {seat: f"fake-{seat}" for seat in SEATS}
    assert counts.end == run.end.end and not counts.void


@pytest.mark.parametrize(
    "case",
    [
        "timeout, random: forced moves, strikes, then forfeit",
        "too_many_rejections, random then forfeit",
        "ignored stale id",
        "time bank, timeout under random, late answer ignored",
        "start-up timeout of one partnership",
    ],
)
async def test_faults_and_refused_answers_are_counted_apart(
    case: str, autojump_clock: trio.abc.Clock
) -> None:
    bots, match_settings, _end, expected = FAULTY[case]()
    run = await play_match(bots, match_settings)
    counts = count_log(parse_log(run.log))
    faults, refused = split_counts(expected)
    for seat in SEATS:
        assert dict(counts.seats[seat].faults) == faults.get(seat, {})
        assert dict(counts.seats[seat].refused) == refused.get(seat, {})
        # A decision has one time: the accepted answer's, or the fault's; a forced move none.
        answered = [m for m in run.of(MoveRecord) if m.seat == seat and not m.forced]
        failed = [f for f in run.of(FaultRecord) if f.seat == seat and f.timing]
        timed = sum(len(times) for times in counts.seats[seat].times.values())
        readies = [r for r in run.of(BotReady) if r.seat == seat]
        assert timed == len(answered) + len(failed) + len(readies)
    if run.end.forfeit is not None:
        assert counts.forfeit == run.end.forfeit.seat


def test_a_move_the_rules_refuse_makes_the_log_uncountable_and_adds_nothing() -> None:
    run = trio.run(random_match, 5)
    lines = split(run.log)
    deal = next(line.value for line in lines if line.value["type"] == "deal")
    at = next(
        i for i, line in enumerate(lines) if line.value.get("action", {}).get("type") == "play"
    )
    seat = lines[at].value["seat"]
    other = next(s for s in SEATS if s != seat)
    # A tile of another seat's hand, the chain written again: only the rules can tell.
    lines[at] = lines[at].edited(lambda value: value["action"].update(tile=deal["hands"][other][0]))
    log = parse_log(forged(lines))
    assert log.broken_at is None and log.truncated is None
    with pytest.raises(Uncountable, match=f"line {at + 1}: a move the rules refuse"):
        count_log(log)
    tally = Tally()
    with pytest.raises(Uncountable):
        tally.add_log(log)
    assert tally.logs == 0 and not tally.entrants
