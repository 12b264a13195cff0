"""Standings from results: wins, win rate with a 95% interval, marks, ratings, an Elo against
the field, head to head, and the duplicate pairs' scores (which the SPRT, ``referee.
tournament.sprt``, tests).

Ratings come from openskill (Plackett-Luce), never from maths of our own; the table is
ordered by the conservative rating mu - 3 sigma, and shows mu ± 3 sigma: the interval whose
low end orders it. The win rate's interval is Wilson's score interval (approximate here: the
two legs of a duplicate pair are not independent, and an unfinished match counts half). The
Elo against the field is fastchess's on the entrant's whole duplicate pairs against every
opponent (``referee.stats.elo_estimate``). A void match (bots of both sides failed to start)
was not played: it is counted apart, in ``void``, never as a draw.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import msgspec
from openskill.models import PlackettLuce

from referee.errors import BotStartFailed, reason_code
from referee.record.records import split_counts
from referee.running.rating import rate
from referee.running.results import MatchResult, in_plan_order
from referee.stats import elo_estimate, wilson_interval


class Standing(msgspec.Struct, frozen=True):
    """One entrant's line of the standings table."""

    name: str
    matches: int
    wins: int
    losses: int
    unfinished: int
    #: Score per match (a win 1, an unfinished match 0.5) and its Wilson 95% interval.
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    #: Marks won minus marks conceded, over all matches played; and a match, over those that
    #: ended without a forfeit (None if none did): a forfeited match's marks are those on the
    #: board when a bot failed, so an entrant that forfeits early would look ahead.
    mark_difference: int
    #: openskill Plackett-Luce rating: mean, uncertainty, and the conservative mu - 3 sigma.
    rating: float
    rating_sigma: float
    rating_ordinal: float
    #: Faults of the entrant's seats (timeouts, crashes, ...; refused answers are not faults),
    #: matches it forfeited, and its seats whose bot never became ready (two a match).
    faults: int = 0
    forfeits: int = 0
    never_started: int = 0
    #: Void matches (bots of both sides failed to start): in none of the counts above but
    #: the faults, forfeits and never started.
    void: int = 0
    #: Elo against the field (every opponent it met) from its whole duplicate pairs, with its
    #: 95% interval (infinite where every pair was won, or lost: null in JSON; None before
    #: a whole pair), and the pairs counted.
    elo: float | None = None
    elo_low: float | None = None
    elo_high: float | None = None
    elo_pairs: int = 0
    marks_per_match: float | None = None


class Standings(msgspec.Struct, frozen=True):
    """The table, best first, and the head-to-head scores."""

    standings: list[Standing]
    #: head_to_head[a][b]: a's score against b (wins, and half of the unfinished matches).
    head_to_head: dict[str, dict[str, float]]
    #: Matches each pair of entrants played, same shape.
    head_to_head_matches: dict[str, dict[str, int]]


def standings(names: list[str], results: list[MatchResult]) -> Standings:
    """The standings over ``results``, taken in the plan's order (``in_plan_order``); void
    matches are counted apart."""
    ordered = in_plan_order(results)
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    score: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    wins: dict[str, int] = defaultdict(int)
    unfinished: dict[str, int] = defaultdict(int)
    marks: dict[str, int] = defaultdict(int)
    #: Marks and count of the matches that ended without a forfeit.
    clean: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    h2h: dict[str, dict[str, float]] = {a: {b: 0.0 for b in names if b != a} for a in names}
    h2h_n: dict[str, dict[str, int]] = {a: {b: 0 for b in names if b != a} for a in names}
    faults: dict[str, int] = defaultdict(int)
    forfeits: dict[str, int] = defaultdict(int)
    never: dict[str, int] = defaultdict(int)
    void: dict[str, int] = defaultdict(int)
    for result in ordered:
        a, b = result.first, result.second
        counted, _ = split_counts(result.faults)
        for seat, reasons in counted.items():
            owner = result.seats[seat]
            faults[owner] += sum(reasons.values())
            never[owner] += reason_code(BotStartFailed) in reasons or (
                bool(result.names) and not result.names.get(seat)
            )
        if result.forfeit is not None:
            forfeits[result.seats[result.forfeit.seat]] += 1
        if result.void:
            void[a] += 1
            void[b] += 1
            continue
        for me, other in ((a, b), (b, a)):
            points = result.score_of(me)
            score[me] += points
            count[me] += 1
            wins[me] += points == 1.0
            unfinished[me] += result.winner is None
            marks[me] += result.mark_difference_of(me)
            if result.forfeit is None:
                clean[me][0] += result.mark_difference_of(me)
                clean[me][1] += 1
            h2h[me][other] += points
            h2h_n[me][other] += 1
        _rate(model, ratings, result)
    table = []
    for name in names:
        n = count[name]
        low, high = wilson_interval(score[name], n)
        rating = ratings[name]
        estimate = elo_estimate(pair_scores(ordered, name))
        table.append(
            Standing(
                name=name,
                matches=n,
                wins=wins[name],
                losses=n - wins[name] - unfinished[name],
                unfinished=unfinished[name],
                win_rate=score[name] / n if n else 0.0,
                win_rate_low=low,
                win_rate_high=high,
                mark_difference=marks[name],
                rating=rating.mu,
                rating_sigma=rating.sigma,
                rating_ordinal=rating.ordinal(),
                faults=faults[name],
                forfeits=forfeits[name],
                never_started=never[name],
                void=void[name],
                elo=None if estimate is None else estimate.elo,
                elo_low=None if estimate is None else estimate.low,
                elo_high=None if estimate is None else estimate.high,
                elo_pairs=0 if estimate is None else estimate.units,
                marks_per_match=clean[name][0] / clean[name][1] if clean[name][1] else None,
            )
        )
    table.sort(key=lambda s: (-s.rating_ordinal, -s.win_rate, s.name))
    return Standings(table, h2h, h2h_n)


def played(results: list[MatchResult]) -> list[MatchResult]:
    """The results of matches played: all but the void ones."""
    return [result for result in results if not result.void]


def _rate(model: PlackettLuce, ratings: dict[str, Any], result: MatchResult) -> None:
    """Update the two entrants' ratings with one match (a match nobody won is a draw)."""
    a, b = result.first, result.second
    won = None if result.winner is None else result.winner == a
    (mu_a, sigma_a), (mu_b, sigma_b) = rate(
        (ratings[a].mu, ratings[a].sigma), (ratings[b].mu, ratings[b].sigma), won, model
    )
    ratings[a] = model.rating(mu=mu_a, sigma=sigma_a, name=a)
    ratings[b] = model.rating(mu=mu_b, sigma=sigma_b, name=b)


def rating_history(names: list[str], results: list[MatchResult]) -> list[dict[str, float]]:
    """Each entrant's rating (openskill mu) after each match played (void ones are not), in
    the order ``standings`` rates them: the rating over the course of the tournament."""
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    history = []
    for result in played(in_plan_order(results)):
        _rate(model, ratings, result)
        history.append({name: rating.mu for name, rating in ratings.items()})
    return history


def pair_scores(results: list[MatchResult], first: str) -> list[float]:
    """Each complete duplicate pair's mean score for ``first`` (the two legs of one pairing
    on one deal seed, seats swapped), in seed order, then by opponent; a pair with a void
    leg, or one leg still to play, is not complete."""
    legs: dict[tuple[int, str], list[MatchResult]] = defaultdict(list)
    for result in played(results):
        if first in (result.first, result.second):
            other = result.second if result.first == first else result.first
            legs[result.seed, other].append(result)
    return [
        sum(result.score_of(first) for result in pair) / 2
        for _, pair in sorted(legs.items())
        if len(pair) == 2
    ]
