"""The sequential test on duplicate pairs: pair scores, bounds, the log-likelihood ratio and its
verdicts, and a tournament stopped early by it."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from support.tournaments import (
    HEURISTIC,
    RANDOM,
    result_line,
    tournament_cli,
)

from referee.running.results import read_results
from referee.tournament.sprt import Sprt
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
    results = tmp_path / "results.jsonl"
    done = tournament_cli(
        *("--bot", f"heuristic={HEURISTIC}", "--bot", f"random={RANDOM}"),
        *("--seeds", "20", "--seed", "1", "--jobs", "2", "--sprt", "0,400"),
        *("--results", str(results), "--json"),
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["planned"] == 40
    assert 10 <= document["matches"] < 40  # five whole pairs decide it, then it stops
    assert document["sprt"]["verdict"] == "H1"
    assert document["sprt"]["llr"] >= Sprt(0, 400).upper
    assert (document["sprt"]["elo0"], document["sprt"]["elo1"]) == (0, 400)
    assert len(read_results(results)[1]) == document["matches"]
    assert document["standings"][0]["name"] == "heuristic"
