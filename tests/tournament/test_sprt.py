"""The sequential test on duplicate pairs: pair scores, bounds, the log-likelihood ratio and its
verdicts, and a tournament stopped early by it."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path

import pytest
from support.tournaments import (
    HEURISTIC,
    RANDOM,
    result_line,
    tournament_cli,
)

from referee.running.results import read_results
from referee.stats import elo_estimate, elo_of_score
from referee.tournament.sprt import Sprt, expected_score, sprt_report
from referee.tournament.standings import pair_scores


def test_pair_scores_of_duplicate_pairs() -> None:
    results = [
        result_line("a", "b", "a", seed=10, leg=1),
        result_line("b", "a", "a", seed=10, leg=2),  # a wins both: 1
        result_line("a", "b", "a", seed=20, leg=1),
        result_line("b", "a", "b", seed=20, leg=2),  # one each: 0.5
        result_line("a", "b", "b", seed=30, leg=1),
        result_line("b", "a", "b", seed=30, leg=2),  # a loses both: 0
        result_line("a", "b", "a", seed=40, leg=1),
        result_line("b", "a", None, seed=40, leg=2),  # a win and an unfinished match: 0.75
        result_line("a", "b", "a", seed=50, leg=1),  # its second leg is not played yet
    ]
    assert pair_scores(results, "a") == [1.0, 0.5, 0.0, 0.75]
    assert pair_scores(results, "b") == [0.0, 0.5, 1.0, 0.25]
    shuffled = results[:]
    random.Random(1).shuffle(shuffled)
    assert pair_scores(shuffled, "a") == [1.0, 0.5, 0.0, 0.75]


def test_sprt_bounds() -> None:
    sprt = Sprt(0, 10, alpha=0.05, beta=0.1)
    assert sprt.lower == pytest.approx(math.log(0.1 / 0.95))
    assert sprt.upper == pytest.approx(math.log(0.9 / 0.05))
    assert Sprt(0, 10).lower == pytest.approx(-2.944, abs=1e-3)
    assert Sprt(0, 10).upper == pytest.approx(2.944, abs=1e-3)
    assert sprt.verdict(sprt.upper) == "H1"
    assert sprt.verdict(sprt.lower) == "H0"
    assert sprt.verdict(0.0) == "continue"


def test_sprt_llr_sign_and_verdicts() -> None:
    sprt = Sprt(0, 100)
    wins, losses, draws = [1.0] * 30, [0.0] * 30, [0.5] * 30
    assert sprt.llr(wins) > sprt.upper and sprt.verdict(sprt.llr(wins)) == "H1"
    assert sprt.llr(losses) < sprt.lower and sprt.verdict(sprt.llr(losses)) == "H0"
    assert sprt.verdict(sprt.llr(draws)) == "H0"  # no better than elo0 = 0
    mixed = [1.0, 0.0, 0.5, 1.0]
    assert sprt.verdict(sprt.llr(mixed)) == "continue"
    assert sprt.llr([1.0]) == 0.0 and sprt.llr([]) == 0.0
    assert sprt.llr(wins[:5]) > 0 > sprt.llr(losses[:5])
    assert sprt.llr(wins[:10]) < sprt.llr(wins[:20])  # more evidence, larger ratio
    assert sprt.llr([1.0] * 10 + [0.0]) < sprt.llr([1.0] * 10)


def test_sprt_counts_pairs_with_an_unfinished_leg() -> None:
    """A pair of one win and one unfinished match scores 0.75 (``pair_scores``), yet the LLR
    only counts pairs scoring 0, 0.5 or 1: thirty such pairs, a 75% score against H0's 50%,
    leave it at zero, exactly as if they had not been played."""
    sprt = Sprt(0, 200)
    assert sprt.llr([0.75] * 30) > 0
    assert sprt.llr([0.25] * 30) < 0
    assert sprt.llr([1.0] * 5 + [0.75] * 30) > sprt.llr([1.0] * 5)


def test_sprt_cli_stops_early_when_one_entrant_is_far_stronger(tmp_path: Path) -> None:
    """The bundled heuristic bot against the random one, two matches at once: the test
    decides after a few pairs, the matches under way finish and their pairs are completed,
    so the file holds whole pairs only; ``--json`` and the printed lines say whose Elo was
    tested, with its interval, the LOS and the pairs' counts."""
    results = tmp_path / "results.jsonl"
    args = (
        *("--bot", f"heuristic={HEURISTIC}", "--bot", f"random={RANDOM}"),
        *("--seeds", "20", "--seed", "1", "--jobs", "2", "--sprt", "0,400"),
        *("--results", str(results)),
    )
    done = tournament_cli(*args, "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["planned"] == 40
    assert 10 <= document["matches"] < 40  # five whole pairs decide it, then it stops
    sprt = document["sprt"]
    assert sprt["verdict"] == "H1" and (sprt["entrant"], sprt["against"]) == ("heuristic", "random")
    assert sprt["decided_llr"] >= Sprt(0, 400).upper
    assert (sprt["elo0"], sprt["elo1"]) == (0, 400)
    recorded = read_results(results)[1]
    assert len(recorded) == document["matches"] == 2 * sprt["pairs"]  # never half a pair
    legs = Counter((result.seed, result.leg) for result in recorded)
    assert {seed for seed, _ in legs} == {seed for seed, leg in legs if leg == 2}
    scores = pair_scores(recorded, "heuristic")
    assert (sprt["lost_both"], sprt["split"], sprt["won_both"]) == (
        scores.count(0.0),
        scores.count(0.5),
        scores.count(1.0),
    )
    estimate = elo_estimate(scores)
    assert estimate is not None and sprt["los"] == pytest.approx(estimate.los)
    assert sprt["elo_low"] == pytest.approx(estimate.low)  # finite: a lower bound above 0
    assert sprt["elo_low"] > 0
    top = document["standings"][0]
    assert top["name"] == "heuristic" and top["elo_pairs"] == sprt["pairs"]
    assert top["elo_low"] == pytest.approx(sprt["elo_low"])
    # The same tournament resumed: nothing more is played, and the lines are printed.
    again = tournament_cli(*args, "--resume")
    assert again.returncode == 0, again.stderr
    assert len(read_results(results)[1]) == len(recorded)
    lines = again.stdout.splitlines()
    head = next(line for line in lines if line.startswith("SPRT "))
    assert head.startswith("SPRT heuristic vs random: elo0 0, elo1 400, alpha 0.05, beta 0.05")
    assert "→ H1 (heuristic is at least 400 Elo stronger" in head
    numbers = lines[lines.index(head) + 1]
    assert f"LOS {estimate.los:.1%}" in numbers and f"pairs {sprt['pairs']} (" in numbers
    assert f"won both {sprt['won_both']}" in numbers and "lost both" in numbers
    assert lines[lines.index(head) + 2].strip().startswith("LLR ")
    assert "Elo vs field (95%)" in again.stdout and "rating μ ± 3σ" in again.stdout


# -- Elo, its interval, LOS and the LLR against numbers worked out by hand -------------------

Z95 = 1.959963984540054  # the normal quantile of 97.5%


def test_elo_of_a_score_known_values() -> None:
    assert elo_of_score(0.5) == 0.0
    assert elo_of_score(10 / 11) == pytest.approx(400.0)  # 1/s - 1 = 0.1: -400 log10 0.1
    assert elo_of_score(0.75) == pytest.approx(400 * math.log10(3))  # 190.85
    assert elo_of_score(0.25) == pytest.approx(-400 * math.log10(3))
    assert elo_of_score(1.0) == math.inf and elo_of_score(0.0) == -math.inf
    assert expected_score(400 * math.log10(3)) == pytest.approx(0.75)


def test_elo_interval_and_los_of_pairs_by_hand() -> None:
    """Eight pairs: five won both, two split, one lost both. Mean 0.75; squared deviations
    5 x 1/16 + 2 x 1/16 + 9/16 = 1, variance 1/8 a pair, standard error sqrt(1/8 / 8) = 1/8;
    LOS = Phi(0.25 / 0.125) = Phi(2) = 0.97725; the interval 0.75 ± 1.96/8 in Elo."""
    estimate = elo_estimate([1, 1, 0.5, 0, 1, 0.5, 1, 1])
    assert estimate is not None
    assert (estimate.units, estimate.score) == (8, 0.75)
    assert estimate.elo == pytest.approx(190.849, abs=1e-3)
    assert estimate.los == pytest.approx(0.977250, abs=1e-6)
    low, high = 0.75 - Z95 / 8, 0.75 + Z95 / 8
    assert estimate.low == pytest.approx(-400 * math.log10(1 / low - 1))  # +3.48
    assert estimate.high == pytest.approx(-400 * math.log10(1 / high - 1))  # +919.4
    assert estimate.error == pytest.approx((estimate.high - estimate.low) / 2)
    even = elo_estimate([1, 0, 0.5, 0.5])
    assert even is not None and (even.elo, even.los) == (0.0, 0.5)
    assert even.low == pytest.approx(-even.high)
    assert elo_estimate([]) is None


def test_every_pair_won_has_a_lower_bound_not_an_infinity() -> None:
    """No spread to measure: Wilson's interval of the score, whose low end for n out of n is
    n / (n + z^2): eight pairs of eight are at least +127 Elo."""
    estimate = elo_estimate([1.0] * 8)
    assert estimate is not None
    assert estimate.elo == math.inf and estimate.high == math.inf and estimate.los == 1.0
    low = 8 / (8 + Z95**2)
    assert estimate.low == pytest.approx(-400 * math.log10(1 / low - 1))
    assert estimate.low == pytest.approx(127.44, abs=0.01)
    lost = elo_estimate([0.0] * 8)
    assert lost is not None and lost.high == pytest.approx(-estimate.low) and lost.los == 0.0


def _trinomial_llr(lost: int, split: int, won: int, elo0: float, elo1: float) -> float:
    """The GSPRT's LLR for trinomial pair counts, worked out independently: for a mean s,
    p(won) = t, p(split) = 2 (s - t), p(lost) = 1 - 2 s + t; setting the derivative of the
    log-likelihood to 0 gives a quadratic in t, solved by formula."""
    n = lost + split + won

    def log_likelihood(s: float) -> float:
        # c0 / (1 - 2s + t) - c1 / (s - t) + c2 / t = 0, times t (s - t)(1 - 2s + t):
        a = -(lost + split + won)
        b = lost * s - split * (1 - 2 * s) + won * (s - (1 - 2 * s))
        c = won * s * (1 - 2 * s)
        t = max(
            (-b + sign * math.sqrt(b * b - 4 * a * c)) / (2 * a)
            for sign in (1, -1)
            if 0 < (-b + sign * math.sqrt(b * b - 4 * a * c)) / (2 * a) < s
        )
        probabilities = (1 - 2 * s + t, 2 * (s - t), t)
        return sum(c * math.log(p) for c, p in zip((lost, split, won), probabilities, strict=True))

    assert n
    return log_likelihood(expected_score(elo1)) - log_likelihood(expected_score(elo0))


@pytest.mark.parametrize(
    ("lost", "split", "won", "elo0", "elo1"),
    [(2, 5, 8, 0, 10), (10, 30, 12, 0, 10), (7, 3, 2, -10, 40), (1, 1, 9, 0, 200)],
)
def test_llr_matches_the_trinomial_worked_out_by_hand(
    lost: int, split: int, won: int, elo0: float, elo1: float
) -> None:
    scores = [0.0] * lost + [0.5] * split + [1.0] * won
    assert Sprt(elo0, elo1).llr(scores) == pytest.approx(
        _trinomial_llr(lost, split, won, elo0, elo1), abs=1e-6
    )


def test_a_test_that_would_cross_mid_pair_decides_only_when_the_pair_ends() -> None:
    """A wins every match: counted leg by leg the ratio would cross H1's bound at an odd
    match; counted by pairs it moves only when a pair's second leg is in, and decides there."""
    sprt = Sprt(0, 400)
    results = []
    decided_at = None
    previous = 0.0
    for index in range(40):
        seed, leg = index // 2, index % 2 + 1
        first, second = ("a", "b") if leg == 1 else ("b", "a")
        results.append(result_line(first, second, "a", seed=seed, leg=leg))
        llr = sprt.llr(pair_scores(results, "a"))
        if leg == 1:
            assert llr == previous  # half a pair moves nothing
        previous = llr
        if decided_at is None and sprt.verdict(llr) != "continue":
            decided_at = len(results)
    assert decided_at is not None and decided_at % 2 == 0
    legs = [1.0] * 40  # the same matches as single units: it would have crossed at an odd count
    crossing = next(k for k in range(2, 41) if sprt.verdict(sprt.llr(legs[:k])) != "continue")
    assert crossing % 2 == 1


def test_the_report_names_the_entrant_and_gives_elo_los_and_pair_counts() -> None:
    results = []
    outcomes = ["a", "a"] * 3 + ["a", "b"] * 2 + ["b", "b"]  # won both 3, split 2, lost both 1
    for index, winner in enumerate(outcomes):
        seed, leg = index // 2, index % 2 + 1
        first, second = ("a", "b") if leg == 1 else ("b", "a")
        results.append(result_line(first, second, winner, seed=seed, leg=leg))
    results.append(result_line("a", "b", "a", seed=99, leg=1))  # half a pair: not counted
    report = sprt_report(Sprt(0, 10), results, "a", "b")
    assert (report.entrant, report.against) == ("a", "b")
    assert (report.lost_both, report.split, report.won_both, report.pairs) == (1, 2, 3, 6)
    estimate = elo_estimate([1, 1, 1, 0.5, 0.5, 0])
    assert estimate is not None
    assert (report.elo, report.elo_error, report.los) == (
        estimate.elo,
        estimate.error,
        estimate.los,
    )
    assert report.verdict == "continue" and report.decided_at_pairs is None
    head, numbers, ratio = report.lines()
    assert head == "SPRT a vs b: elo0 0, elo1 10, alpha 0.05, beta 0.05 → continue"
    assert numbers == (
        f"  Elo {estimate.elo:+.1f} ± {estimate.error:.1f} (95%), LOS {estimate.los:.1%};"
        " pairs 6 (12 matches): lost both 1, split 2, won both 3"
    )
    assert ratio.startswith(f"  LLR {report.llr:.2f} (") and "(bounds -2.94, 2.94)" in ratio
