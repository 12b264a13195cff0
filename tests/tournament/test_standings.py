"""Standings from results: Wilson intervals, counts, rates and marks, the head-to-head matrix,
ratings, and independence from the order results came in."""

from __future__ import annotations

import random

import msgspec
import pytest
from support.tournaments import (
    result_line,
)

from referee.record.records import Forfeit
from referee.running.results import MatchResult
from referee.stats import elo_estimate, wilson_interval
from referee.tournament.standings import pair_scores, rating_history, standings


def test_wilson_interval_known_values() -> None:
    assert wilson_interval(8, 10) == pytest.approx((0.4902, 0.9433), abs=5e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=5e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=5e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=5e-4)
    low, high = wilson_interval(8, 10, confidence=0.99)
    assert low < 0.4902 and high > 0.9433


def _eight_of_ten() -> list[MatchResult]:
    """a beats b in 8 of 10 matches (5 duplicate pairs), with known marks."""
    results = []
    for seed in range(1, 6):
        results.append(result_line("a", "b", "a", seed=seed, leg=1, marks=(7, 3)))  # a +4
        loser = seed <= 2  # a loses leg 2 of the first two pairs
        winner = "b" if loser else "a"
        marks = (7, 5) if loser else (1, 7)  # b holds AC in leg 2: a -2, or a +6
        results.append(result_line("b", "a", winner, seed=seed, leg=2, marks=marks))
    return results


def test_standings_counts_rates_and_marks() -> None:
    results = [
        *_eight_of_ten(),
        result_line("a", "c", None, seed=7, leg=1, marks=(2, 2)),
        result_line("c", "a", None, seed=7, leg=2, marks=(3, 1)),  # c +2, a -2
    ]
    table = standings(["a", "b", "c", "d"], results)
    rows = {row.name: row for row in table.standings}
    a, b, c, d = rows["a"], rows["b"], rows["c"], rows["d"]
    assert (a.matches, a.wins, a.losses, a.unfinished) == (12, 8, 2, 2)
    assert (b.matches, b.wins, b.losses, b.unfinished) == (10, 2, 8, 0)
    assert (c.matches, c.wins, c.losses, c.unfinished) == (2, 0, 0, 2)
    assert (d.matches, d.wins, d.losses, d.unfinished) == (0, 0, 0, 0)
    assert a.win_rate == pytest.approx(9 / 12)  # an unfinished match scores half
    assert (a.win_rate_low, a.win_rate_high) == pytest.approx(wilson_interval(9, 12))
    assert b.win_rate == pytest.approx(0.2)
    assert (b.win_rate_low, b.win_rate_high) == pytest.approx((0.0567, 0.5098), abs=5e-4)
    assert c.win_rate == pytest.approx(0.5)
    assert (d.win_rate, d.win_rate_low, d.win_rate_high) == (0.0, 0.0, 1.0)
    # a: +4 x 5 (leg 1), -2 x 2 and +6 x 3 (leg 2), 0 and -2 against c.
    assert a.mark_difference == 20 - 4 + 18 + 0 - 2
    assert b.mark_difference == -(20 - 4 + 18)
    assert c.mark_difference == 2
    assert d.mark_difference == 0


def test_head_to_head_matrix() -> None:
    results = [
        *_eight_of_ten(),
        result_line("a", "c", "c", seed=7, leg=1),
        result_line("c", "a", None, seed=7, leg=2),
        result_line("b", "c", "b", seed=8, leg=1),
        result_line("c", "b", "b", seed=8, leg=2),
    ]
    table = standings(["a", "b", "c"], results)
    assert table.head_to_head == {
        "a": {"b": 8.0, "c": 0.5},
        "b": {"a": 2.0, "c": 2.0},
        "c": {"a": 1.5, "b": 0.0},
    }
    assert table.head_to_head_matches == {
        "a": {"b": 10, "c": 2},
        "b": {"a": 10, "c": 2},
        "c": {"a": 2, "b": 2},
    }


def test_ratings_put_the_stronger_entrant_first() -> None:
    table = standings(["b", "a"], _eight_of_ten())
    assert [row.name for row in table.standings] == ["a", "b"]
    a, b = table.standings
    assert a.rating > b.rating and a.rating_ordinal > b.rating_ordinal
    assert a.rating_ordinal == pytest.approx(a.rating - 3 * a.rating_sigma)
    results = []
    for seed in range(1, 4):  # strong beats everyone, middle beats weak, on both sides
        for x, y in (("strong", "middle"), ("strong", "weak"), ("middle", "weak")):
            results.append(result_line(x, y, x, seed=seed, leg=1))
            results.append(result_line(y, x, x, seed=seed, leg=2))
    table = standings(["weak", "middle", "strong"], results)
    assert [row.name for row in table.standings] == ["strong", "middle", "weak"]
    ratings = [row.rating for row in table.standings]
    assert ratings == sorted(ratings, reverse=True)


def test_standings_do_not_depend_on_the_order_results_came_in() -> None:
    results = [
        *_eight_of_ten(),
        result_line("a", "c", "c", seed=7, leg=1),
        result_line("c", "a", None, seed=7, leg=2),
        result_line("b", "c", "b", seed=8, leg=1),
        result_line("c", "b", "c", seed=8, leg=2),
    ]
    expected = standings(["a", "b", "c"], results)
    rng = random.Random(42)
    for _ in range(5):
        shuffled = results[:]
        rng.shuffle(shuffled)
        assert standings(["a", "b", "c"], shuffled) == expected


def _void(first: str, second: str, seed: int, leg: int) -> MatchResult:
    """A void match's line: bots of both sides failed to start."""
    line = result_line(first, second, None, seed=seed, leg=leg, marks=(0, 0))
    faults = {seat: {"start_failed": 1} for seat in "ABCD"}
    return msgspec.structs.replace(line, end="void", hands=0, faults=faults)  # type: ignore[arg-type]


def test_a_void_match_is_counted_apart_never_as_a_draw() -> None:
    """Void matches are in no score, rate, interval, head to head or rating: only in ``void``
    (and the faults of the bots that failed to start)."""
    played = _eight_of_ten()
    voids = [_void("a", "b", seed=9, leg=1), _void("b", "a", seed=9, leg=2)]
    with_voids = standings(["a", "b"], [*played, *voids])
    without = standings(["a", "b"], played)
    for row, bare in zip(with_voids.standings, without.standings, strict=True):
        assert row.void == 2 and bare.void == 0
        assert msgspec.structs.replace(row, void=0, faults=0, never_started=0) == bare
        assert row.faults == row.never_started == 4  # its two seats in each
    assert (with_voids.head_to_head, with_voids.head_to_head_matches) == (
        without.head_to_head,
        without.head_to_head_matches,
    )
    only_void = {row.name: row for row in standings(["a", "b"], voids).standings}
    for row in only_void.values():
        assert (row.matches, row.wins, row.unfinished, row.void) == (0, 0, 0, 2)
        assert (row.win_rate, row.win_rate_low, row.win_rate_high) == (0.0, 0.0, 1.0)
    assert rating_history(["a", "b"], [*played, *voids]) == rating_history(["a", "b"], played)
    assert pair_scores([*played, *voids], "a") == pair_scores(played, "a")


def test_elo_against_the_field_from_whole_pairs() -> None:
    """a against b: pairs 1-2 split, pairs 3-5 won both (``_eight_of_ten``); against c one
    pair of two unfinished matches; a lone first leg against b is half a pair, not counted."""
    results = [
        *_eight_of_ten(),
        result_line("a", "c", None, seed=7, leg=1),
        result_line("c", "a", None, seed=7, leg=2),
        result_line("a", "b", "b", seed=9, leg=1),
    ]
    rows = {row.name: row for row in standings(["a", "b", "c"], results).standings}
    a = elo_estimate([0.5, 0.5, 1.0, 1.0, 1.0, 0.5])
    assert a is not None
    assert (rows["a"].elo, rows["a"].elo_low, rows["a"].elo_high) == (a.elo, a.low, a.high)
    assert rows["a"].elo_pairs == 6 and rows["b"].elo_pairs == 5 and rows["c"].elo_pairs == 1
    b = elo_estimate([0.5, 0.5, 0.0, 0.0, 0.0])
    assert b is not None and rows["b"].elo == pytest.approx(b.elo) and b.elo < 0
    assert rows["c"].elo == 0.0  # one pair, two unfinished legs: a half
    assert standings(["a", "b"], []).standings[0].elo is None


def test_marks_a_match_leave_forfeited_matches_out() -> None:
    """A forfeited match's marks are the board's when a bot failed: b, forfeiting at 3-1 up,
    must not look ahead on marks."""
    forfeited = msgspec.structs.replace(
        result_line("a", "b", "a", seed=2, leg=1, marks=(1, 3)),
        end="forfeit",
        forfeit=Forfeit(seat="B", reason="crashed", detail="exit status 3"),
    )
    results = [result_line("a", "b", "a", seed=1, leg=1, marks=(7, 5)), forfeited]
    rows = {row.name: row for row in standings(["a", "b"], results).standings}
    assert rows["a"].mark_difference == 2 - 2 and rows["a"].marks_per_match == 2.0
    assert rows["b"].marks_per_match == -2.0 and rows["b"].forfeits == 1
    assert standings(["a", "b"], [forfeited]).standings[0].marks_per_match is None


def test_the_rating_shown_is_the_interval_that_orders() -> None:
    """Ordered by mu - 3 sigma, and the table shows mu ± 3 sigma: the low end it shows is
    the key it sorts by, so a row shown higher never ranks lower."""
    from referee.tournament.terminal_output import standings_table

    table = standings(["a", "b", "c"], _eight_of_ten())
    keys = [row.rating_ordinal for row in table.standings]
    assert keys == sorted(keys, reverse=True)
    grid = standings_table(table, live=False)
    column = next(c for c in grid.columns if c.header == "rating μ ± 3σ")
    for row, cell in zip(table.standings, column._cells, strict=True):
        assert cell == f"{row.rating:.1f} ± {3 * row.rating_sigma:.1f}"
        assert row.rating - 3 * row.rating_sigma == pytest.approx(row.rating_ordinal)
