"""Property tests: whatever the matches and whoever sat where, the numbers add up — contracts
made and set make the contracts played, every breakdown sums to the whole, one side's marks
are the other's conceded, every interval holds its rate, and each entrant's duplicate pairs
are won both, split, lost both or unfinished, or incomplete."""

from __future__ import annotations

from pathlib import Path

import msgspec
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.fakes import FakeBot, play_match, random_policy
from support.fakes import settings as match_settings
from support.tournaments import result_line, settings_of

from referee.record.log import parse_log
from referee.record.records import HandEndRecord
from referee.rules import AllTricksBid, Seat
from referee.running.results import MatchResult, ResultsHeader
from referee.tally.summary import ContractLine, EntrantSummary, summarize
from referee.tally.tally import Tally

#: Who sits where: two entrants either way round, or four bots by their own names.
SEATINGS: dict[str, dict[Seat, str] | None] = {
    "x holds A+C": {"A": "x", "B": "y", "C": "x", "D": "y"},
    "y holds A+C": {"A": "y", "B": "x", "C": "y", "D": "x"},
    "four bots": None,
}


async def _match(seed: int) -> bytes:
    bots = [FakeBot(random_policy(seed * 4 + i)) for i in range(4)]
    return (await play_match(bots, match_settings(seed=seed))).log


def _sums_to(whole: ContractLine, parts: list[ContractLine]) -> None:
    assert sum(p.contracts for p in parts) == whole.contracts
    assert sum(p.made for p in parts) == whole.made
    assert sum(p.set for p in parts) == whole.set


def _holds(entrant: EntrantSummary) -> None:
    every = entrant.contracts
    assert every.made + every.set == every.contracts
    for parts in (entrant.by_bid, entrant.by_trump, entrant.by_bid_and_trump):
        _sums_to(every, parts)
    _sums_to(entrant.all_tricks, [p for p in entrant.by_bid if isinstance(p.bid, AllTricksBid)])
    for line in [every, entrant.all_tricks, *entrant.by_bid, *entrant.by_trump]:
        if line.contracts:
            assert line.low is not None and line.high is not None and line.make_rate is not None
            assert 0 <= line.low <= line.make_rate <= line.high <= 1
        else:
            assert line.make_rate is line.low is line.high is None
    assert entrant.defence.set <= entrant.defence.defended
    assert entrant.passed_hands <= entrant.hands
    for times in entrant.times:
        if times.decisions:
            assert times.p50_ms is not None and times.p99_ms is not None
            assert times.max_ms is not None and times.mean_ms is not None
            assert times.p50_ms <= times.p99_ms <= times.max_ms and times.mean_ms <= times.max_ms


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, 10_000), st.sampled_from(sorted(SEATINGS))),
        min_size=1,
        max_size=3,
    )
)
def test_the_numbers_add_up(matches: list[tuple[int, str]]) -> None:
    tally = Tally()
    contracts = hands = 0
    for seed, seating in matches:
        log = parse_log(trio.run(_match, seed))
        ends = [r for r in log.records if isinstance(r, HandEndRecord)]
        contracts += sum(end.result.contract is not None for end in ends)
        hands += len(ends)
        tally.add_log(log, SEATINGS[seating])
    summary = summarize(tally)
    for entrant in summary.entrants:
        _holds(entrant)
    # Every contract has one declarer, so one entrant; every hand was at every entrant's table.
    assert sum(e.contracts.contracts for e in summary.entrants) == contracts
    two = {e.name: e for e in summary.entrants if e.name in ("x", "y")}
    if len(two) == 2:
        x, y = two["x"], two["y"]
        assert x.marks_won == y.marks_conceded and y.marks_won == x.marks_conceded
        assert x.defence.defended == y.contracts.contracts
        assert x.defence.set == y.contracts.set
        assert x.matches == y.matches
    if all(seating != "four bots" for _, seating in matches):
        assert {e.hands for e in summary.entrants} == {hands}


LEG = st.sampled_from(["first", "second", "nobody", "void", "missing"])


@given(st.lists(st.tuples(LEG, LEG), min_size=1, max_size=12))
def test_each_entrants_pairs_add_up(pairs: list[tuple[str, str]]) -> None:
    results: list[MatchResult] = []
    for seed, legs in enumerate(pairs):
        for leg, how in enumerate(legs, start=1):
            first, second = ("a", "b") if leg == 1 else ("b", "a")
            if how == "missing":
                continue
            winner = {"first": first, "second": second}.get(how)
            line = result_line(first, second, winner, seed=seed, leg=leg)
            results.append(msgspec.structs.replace(line, end="void") if how == "void" else line)
    tally = Tally()
    header = ResultsHeader(fingerprint="0" * 16, settings=settings_of(("a", "b")))
    tally.add_results(header, results, Path("results.jsonl"))
    summary = summarize(tally)
    a, b = summary.entrants
    for entrant in (a, b):
        own = entrant.pairs
        assert own.won_both + own.split + own.lost_both + own.unfinished == own.pairs
        assert own.pairs + own.incomplete == len(pairs) - pairs.count(("missing", "missing"))
    assert (a.pairs.won_both, a.pairs.lost_both) == (b.pairs.lost_both, b.pairs.won_both)
    assert (a.pairs.split, a.pairs.unfinished) == (b.pairs.split, b.pairs.unfinished)
    if not results:
        assert summary.pairings == []
        return
    [pairing] = summary.pairings  # one pairing, whichever legs are there
    assert (pairing.first_won_both, pairing.second_won_both) == (
        a.pairs.won_both,
        a.pairs.lost_both,
    )
    # Counted independently: a holds A+C in leg 1 and B+D in leg 2.
    assert a.pairs.won_both == pairs.count(("first", "second"))
    assert a.pairs.split == pairs.count(("first", "first")) + pairs.count(("second", "second"))
