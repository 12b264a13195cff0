"""Adding up (``tally.tally``) and the numbers (``tally.summary``): seats given to entrants,
void matches kept apart, a bot against itself, copies counted once, duplicate pairs from
hand-made results lines."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
import trio
from support.fakes import FakeBot, play_match, random_policy, ready, settings
from support.faulty_matches import FAULTY
from support.tables import random_match
from support.tournaments import result_line, settings_of

from referee.record.log import parse_log
from referee.record.records import HandEndRecord
from referee.running.results import ResultsHeader
from referee.stats import wilson_interval
from referee.tally.summary import summarize
from referee.tally.tally import Tally


def _header(*names: str) -> ResultsHeader:
    return ResultsHeader(fingerprint="0" * 16, settings=settings_of(names))


async def test_a_void_match_counts_apart_with_its_bots_failures(
    autojump_clock: trio.abc.Clock,
) -> None:
    bots, match_settings, end, _ = FAULTY["start-up timeout of both partnerships: void"]()
    run = await play_match(bots, match_settings)
    assert run.end.end == end == "void"
    tally = Tally()
    tally.add_log(parse_log(run.log), {"A": "a", "B": "b", "C": "a", "D": "b"})
    for entrant in summarize(tally).entrants:
        assert (entrant.matches, entrant.void, entrant.hands) == (0, 1, 0)
        assert entrant.marks_won_per_hand is None and entrant.contracts.make_rate is None
    faults = {entrant.name: entrant.faults for entrant in summarize(tally).entrants}
    assert faults == {"a": {"timeout": 1}, "b": {"timeout": 1}}  # C's and D's start-ups


async def test_a_bot_against_itself_counts_both_sides() -> None:
    same = [FakeBot(random_policy(i), hello=lambda hello: ready("same")) for i in range(4)]
    run = await play_match(same, settings(seed=3))
    tally = Tally()
    tally.add_log(parse_log(run.log))  # by the names given in ready: one entrant
    [entrant] = summarize(tally).entrants
    hands = len(run.of(HandEndRecord))
    marks = sum(end.result.marks for end in run.of(HandEndRecord))
    assert entrant.name == "same" and entrant.matches == 1
    assert entrant.hands == 2 * hands
    assert entrant.marks_won == entrant.marks_conceded == marks
    assert entrant.defence.defended == entrant.contracts.contracts


def test_a_copy_of_a_log_is_known_by_its_digest() -> None:
    log = parse_log(trio.run(random_match, 2).log)
    tally = Tally()
    assert not tally.known(log)
    tally.add_log(log)
    assert tally.known(log) and tally.logs == 1
    # The same match played again is another log: its timings, so its chain, differ.
    assert not tally.known(parse_log(trio.run(random_match, 2).log))


@pytest.mark.parametrize(
    ("legs", "first", "second"),
    [
        ([("a", 1), ("a", 2)], "won_both", "lost_both"),
        ([("a", 1), ("b", 2)], "split", "split"),
        ([("b", 1), ("b", 2)], "lost_both", "won_both"),
        ([("a", 1), (None, 2)], "unfinished", "unfinished"),
        ([("a", 1)], "incomplete", "incomplete"),
        ([("a", 1), ("void", 2)], "incomplete", "incomplete"),
    ],
)
def test_a_duplicate_pair_goes_to_each_side(
    legs: list[tuple[str | None, int]], first: str, second: str
) -> None:
    results = []
    for winner, leg in legs:
        line = result_line(*(("a", "b") if leg == 1 else ("b", "a")), None, seed=4, leg=leg)
        if winner == "void":
            line = msgspec.structs.replace(line, end="void")
        elif winner is not None:
            line = result_line(line.first, line.second, winner, seed=4, leg=leg)
        results.append(line)
    tally = Tally()
    tally.add_results(_header("a", "b"), results, Path(__file__))
    summary = summarize(tally)
    a, b = summary.entrants
    for entrant, outcome in ((a, first), (b, second)):
        pairs = entrant.pairs
        counted = {
            "won_both": pairs.won_both,
            "split": pairs.split,
            "lost_both": pairs.lost_both,
            "unfinished": pairs.unfinished,
            "incomplete": pairs.incomplete,
        }
        assert counted == {k: int(k == outcome) for k in counted}
        assert pairs.pairs == int(outcome != "incomplete")
        assert [p.opponent for p in entrant.against] == [b.name if entrant is a else a.name]
    [pairing] = summary.pairings
    assert (pairing.first, pairing.second) == ("a", "b")


def test_only_the_entrant_asked_for_and_its_pairings() -> None:
    tally = Tally()
    lines = [
        result_line("a", "b", "a", seed=1, leg=1),
        result_line("b", "a", "a", seed=1, leg=2),
        result_line("b", "c", "c", seed=1, leg=1),
        result_line("c", "b", "b", seed=1, leg=2),
    ]
    tally.add_results(_header("a", "b", "c"), lines, Path(__file__))
    summary = summarize(tally, ["c"])
    assert [e.name for e in summary.entrants] == ["c"]
    assert [(p.first, p.second) for p in summary.pairings] == [("b", "c")]
    assert summary.entrants[0].pairs.split == 1
    assert summarize(tally).entrants[0].pairs.won_both == 1


def test_an_interval_always_holds_its_rate() -> None:
    # Found by the property test: rounding put the low end for 0 of 5 at 3e-17, above 0%.
    for n in range(1, 60):
        for made in (0, n):
            low, high = wilson_interval(made, n)
            assert low <= made / n <= high
