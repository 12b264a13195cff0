"""The referee and tournament benchmarks measure in alternating rounds and print medians of the
rounds' ratios, the figure last, in the words the README quotes."""

from __future__ import annotations

import re
from pathlib import Path

from support.processes import referee

from referee.bench.tournament import Batch, Round, TournamentBench, cores


def test_bench_referee_plays_at_least_a_few_rounds_and_ends_with_its_figure(
    tmp_path: Path,
) -> None:
    run = referee("bench", "referee", "--seconds", "0.1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    rounds = re.search(r"the median of (\d+) rounds", lines[0])
    assert rounds is not None and int(rounds.group(1)) >= 5, lines  # five at least, more if fast
    assert re.fullmatch(r"middle half of the rounds: \d+% to \d+% of the raw pipe rate", lines[-3])
    assert re.fullmatch(r"referee: \d+ decisions/s \(\d+% of raw pipe rate\)", lines[-1]), lines


def test_bench_seconds_are_bounded() -> None:
    for value in ("0", "nan", "3601"):
        run = referee("bench", "tournament", "--seconds", value, cwd=Path.cwd())
        assert run.returncode == 2 and "--seconds" in run.stderr, run.stderr


def _round(warm_rate: float, raw: float) -> Round:
    """A round whose warm jobs=2 batch played 10 matches of 100 decisions at ``warm_rate``."""
    batches = {
        (warm, jobs): Batch(10, 1000, 10 / (warm_rate / (2 if not warm else 1)), None)
        for warm in (False, True)
        for jobs in (1, 2)
    }
    return Round(batches, raw)


def test_the_tournament_figure_is_the_median_of_each_rounds_share_of_its_own_limit() -> None:
    # Every round's warm pools at a quarter of that round's limit, the machine's speed aside.
    rounds = [_round(50, 10_000), _round(25, 5_000), _round(60, 12_000), _round(1, 100)]
    bench = TournamentBench(rounds)
    assert rounds[0].limit == min(2, cores()) * 10_000 / 100  # a chain a core, 100 trips a match
    assert bench.median(lambda r: r.rate(True, 2) / r.limit) == 0.25 * 2 / min(2, cores())
    assert bench.total(True, 2) == Batch(40, 4000, sum(10 / rate for rate in (50, 25, 60, 1)), None)
