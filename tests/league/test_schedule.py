"""Choosing the next pair: new versions first, then the pair whose result is most in doubt
between the least settled ratings; the order is stable once every neighbour is sure."""

from __future__ import annotations

from referee.league.schedule import NEW_PAIRS, Rated, next_pair, stable, win_chance


def test_a_new_version_plays_first_against_the_nearest_rating() -> None:
    old = [Rated(1, 30.0, 2.0), Rated(2, 20.0, 2.0), Rated(3, 26.0, 2.0)]
    new = Rated(4, 25.0, 8.3)
    played = {frozenset((1, 2)): 5, frozenset((1, 3)): 5, frozenset((2, 3)): 5}
    a, b = next_pair([*old, new], played)
    assert a.id == 4 and b.id == 3  # 26 is nearest 25
    played[frozenset((3, 4))] = NEW_PAIRS - 1
    a, b = next_pair([*old, new], played)
    assert a.id == 4 and b.id != 3  # one it has not met yet


def test_settled_entrants_play_where_the_result_is_most_in_doubt() -> None:
    played = {frozenset(p): NEW_PAIRS for p in ((1, 2), (1, 3), (2, 3), (1, 4), (2, 4), (3, 4))}
    far_apart = [Rated(1, 40.0, 1.0), Rated(2, 10.0, 1.0)]
    close = [Rated(3, 25.0, 1.0), Rated(4, 25.5, 1.0)]
    a, b = next_pair([*far_apart, *close], played)
    assert {a.id, b.id} == {3, 4}
    unsure = [Rated(3, 25.0, 1.0), Rated(4, 25.5, 4.0)]  # as close, one far less settled
    entrants = [Rated(1, 25.2, 1.0), Rated(2, 10.0, 1.0), *unsure]
    a, b = next_pair(entrants, played)
    assert 4 in {a.id, b.id}


def test_win_chance_is_symmetric_and_follows_the_gap() -> None:
    a, b = Rated(1, 30.0, 2.0), Rated(2, 25.0, 2.0)
    assert abs(win_chance(a, b) + win_chance(b, a) - 1) < 1e-12
    assert 0.5 < win_chance(a, b) < win_chance(Rated(1, 35.0, 2.0), b)


def test_the_order_is_stable_only_when_every_neighbour_is_sure() -> None:
    assert stable([Rated(1, 40.0, 1.0), Rated(2, 30.0, 1.0), Rated(3, 20.0, 1.0)])
    assert not stable([Rated(1, 40.0, 1.0), Rated(2, 30.0, 1.0), Rated(3, 29.0, 1.0)])
    assert not stable([Rated(1, 40.0, 8.0), Rated(2, 30.0, 8.0)])


def test_the_adaptive_schedule_settles_the_true_order_sooner_than_a_round_robin() -> None:
    """Simulated results from known strengths (``referee bench league`` over more seeds)."""
    from referee.bench.league import matches_to_settle

    assert matches_to_settle(True, seed=1) < matches_to_settle(False, seed=1)
