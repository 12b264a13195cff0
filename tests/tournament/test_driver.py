"""The tournament driver in this process, its matches played by fakes: what it tells its output,
the verdict that stopped it, the matches it names as not played, the logs it will not
overwrite, and the files it makes the operator's alone."""

from __future__ import annotations

import concurrent.futures as cf
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest
from support.tournaments import (
    Recorder,
    entrants_of,
    made_up_jobs,
    mode,
    result_line,
    result_of,
    umask,
)

from referee.running.jobs import MatchJob
from referee.running.results import MatchResult
from referee.tournament import driver
from referee.tournament.config import TournamentError, TournamentOptions, configure
from referee.tournament.plan import deal_seeds

pytestmark = pytest.mark.usefixtures("commands_may_start")

#: What ``run_jobs`` is given: the executor, the jobs, the window, ``on_result`` and the rest.
RunJobs = Callable[..., None]


@contextmanager
def _no_executor(dask: str | None, jobs: int, *where: object) -> Iterator[tuple[None, int]]:
    yield None, jobs


def _play_with(monkeypatch: pytest.MonkeyPatch, run_jobs: RunJobs) -> None:
    """The driver's matches are played by ``run_jobs``, on no executor."""
    monkeypatch.setattr(driver, "run_jobs", run_jobs)
    monkeypatch.setattr(driver, "executor", _no_executor)


def _all_unfinished(executor: Any, jobs: Any, window: int, on_result: Any, **rest: Any) -> None:
    for job in jobs:
        on_result(result_of(job))


def _options(names: tuple[str, ...] = ("a", "b"), **given: Any) -> TournamentOptions:
    return TournamentOptions(bot=entrants_of(*names), **given)


def test_the_driver_tells_its_output_each_match_and_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _play_with(monkeypatch, _all_unfinished)
    output = Recorder()
    config = configure(_options(seeds=2, seed=1, results=str(tmp_path / "r.jsonl")))
    outcome = driver.run(config, output)
    assert outcome == driver.Outcome()
    assert output.starts == [(["a", "b"], 4, 0)]
    assert output.done == [1, 2, 3, 4]
    assert output.stops == 1
    assert output.ending is not None
    assert output.ending.planned == len(output.ending.results) == 4
    assert output.ending.document()["matches"] == 4 and "sprt" not in output.ending.document()
    assert output.notes and output.notes[0].startswith("sandbox ")  # what the bots run under
    # Resumed, it starts from the matches already in the file, and plays none again.
    resumed = configure(_options(seeds=2, seed=1, results=str(tmp_path / "r.jsonl")), resume=True)
    again = Recorder()
    assert driver.run(resumed, again) == driver.Outcome()
    assert again.starts == [(["a", "b"], 4, 4)] and again.done == []


def test_the_driver_writes_no_terminal_output_of_its_own() -> None:
    """The driver knows its output only through the protocol: importing it loads no rich."""
    code = "import sys, referee.tournament.driver; print(sorted(m for m in sys.modules if m == 'rich' or m.startswith(('rich.', 'referee.pages', 'referee.cli'))))"  # noqa: E501
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


class _Canned(cf.Executor):
    """An executor whose matches end as soon as they start, each with ``canned(job)``: the
    real ``run_jobs`` runs on it (its window, its rule that a pair's legs never overlap)."""

    def __init__(self, canned: Callable[[MatchJob], MatchResult]) -> None:
        self.canned = canned
        self.started: list[str] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        job = args[0]
        self.started.append(job.match_id)
        future: cf.Future[MatchResult] = cf.Future()
        future.set_result(self.canned(job))
        return future


def test_sprt_reports_the_verdict_that_stopped_the_tournament_and_ends_on_whole_pairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Matches already running when the test decides still finish and are recorded; the
    pairs they began are completed, and no other is begun: the results end on whole pairs
    (the reported run stopped at 51 matches). The verdict reported stays the one that
    stopped the tournament, after the pairs that decided it."""
    seeds = deal_seeds(1, 12)
    losing_pair = seeds[8]  # the ninth pair, in flight when the test decides H1

    def canned(job: MatchJob) -> MatchResult:
        winner = job.second.name if job.first.name == "strong" else job.first.name
        if job.seed != losing_pair:
            winner = "strong"
        result = result_line(job.first.name, job.second.name, winner, seed=job.seed, leg=job.leg)
        return msgspec.structs.replace(result, match_id=job.match_id)

    pool = _Canned(canned)

    @contextmanager
    def canned_executor(dask: str | None, jobs: int, *where: object) -> Iterator[Any]:
        yield pool, jobs

    monkeypatch.setattr(driver, "executor", canned_executor)
    options = _options(
        ("strong", "weak"),
        seeds=12,
        seed=1,
        jobs=2,
        results=str(tmp_path / "results.jsonl"),
        sprt="0,200",
    )
    output = Recorder()
    assert driver.run(configure(options), output) == driver.Outcome()
    assert output.ending is not None
    document = output.ending.document()
    assert document["matches"] < document["planned"] == 24  # it stopped early...
    sprt = document["sprt"]
    assert sprt["verdict"] == "H1"  # ...because H1 was accepted
    assert sprt["decided_llr"] >= sprt["upper"]
    # Whole pairs only: every pair begun has both legs, and nothing else was started.
    legs = Counter(driver.pair_of(result.match_id) for result in output.ending.results)
    assert set(legs.values()) == {2}, legs
    assert sorted(pool.started) == sorted(r.match_id for r in output.ending.results)
    assert document["matches"] == 2 * sprt["pairs"]
    assert sprt["decided_at_pairs"] <= sprt["pairs"]
    assert sprt["won_both"] + sprt["lost_both"] + sprt["split"] == sprt["pairs"]
    # The pairs after the decision were played: its counts are of every whole pair.
    assert sprt["won_both"] == sprt["pairs"] - (
        losing_pair in [r.seed for r in output.ending.results]
    )


def test_the_driver_names_every_match_not_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An executor that breaks halfway: the matches never started are missing too (and the
    command exits 1)."""

    def broken_after_two(
        executor: Any, jobs: Iterable[MatchJob], window: int, on_result: Any, **rest: Any
    ) -> None:
        jobs = list(jobs)
        for job in jobs[:2]:
            on_result(result_of(job))
        rest["on_error"](jobs[2], RuntimeError("the cluster went away"))

    _play_with(monkeypatch, broken_after_two)
    options = _options(seeds=3, seed=1, jobs=1, results=str(tmp_path / "r.jsonl"))
    output = Recorder()
    outcome = driver.run(configure(options), output)
    missing = [job.match_id for job in made_up_jobs(tmp_path, seeds=3)[2:]]
    assert outcome == driver.Outcome(not_played=missing)
    assert "match a~b~s1~1 failed: RuntimeError: the cluster went away" in output.said
    assert f"4 of 6 matches not played: {', '.join(missing)};" in output.said
    assert "--resume" in output.notes[-1]


def test_a_new_tournament_does_not_overwrite_another_ones_logs(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a~b~s0~1.jsonl").write_text("another tournament's log\n")
    options = _options(seeds=1, seed=2, results=str(tmp_path / "r.jsonl"), logs=str(logs))
    with pytest.raises(TournamentError, match=r"already holds a~b~s0~1\.jsonl"):
        driver.run(configure(options), Recorder())
    assert (logs / "a~b~s0~1.jsonl").read_text() == "another tournament's log\n"
    assert not (tmp_path / "r.jsonl").exists()


@pytest.mark.parametrize("mask", [0o000, 0o022])
def test_the_logs_directory_a_tournament_makes_is_the_operators_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mask: int
) -> None:
    """Through the driver (no match is played); a directory that exists is left alone."""
    _play_with(monkeypatch, _all_unfinished)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    for results, logs in (
        (tmp_path / "r1.jsonl", tmp_path / "new" / "logs"),
        (tmp_path / "r2.jsonl", shared),
    ):
        options = _options(seeds=1, seed=1, results=str(results), logs=str(logs))
        with umask(mask):
            assert driver.run(configure(options), Recorder()) == driver.Outcome()
        assert mode(results) == 0o600
    assert mode(tmp_path / "new" / "logs") == 0o700
    assert mode(shared) == 0o755  # the operator's own directory is the operator's business


def _void_of(job: MatchJob) -> MatchResult:
    """A void match's line for ``job``: bots of both sides failed to start."""
    faults = {seat: {"start_failed": 1} for seat in "ABCD"}
    return msgspec.structs.replace(result_of(job), end="void", faults=faults)  # type: ignore[arg-type]


def test_a_tournament_of_void_matches_says_none_was_played_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every bot failed to start (e.g. relative commands on Dask workers elsewhere): not a
    tournament of draws at 50%, but one line saying why, and a failure."""

    def all_void(executor: Any, jobs: Any, window: int, on_result: Any, **rest: Any) -> None:
        for job in jobs:
            on_result(_void_of(job))

    _play_with(monkeypatch, all_void)
    output = Recorder()
    outcome = driver.run(
        configure(_options(seeds=2, seed=1, results=str(tmp_path / "r.jsonl"))), output
    )
    assert outcome == driver.Outcome(none_played=True)
    assert output.notes[-1] == (
        "no match was played: all 4 were void (bots of both sides failed to start in each)"
        " — check the bot commands and their working directory"
    )
    assert output.ending is not None
    document = output.ending.document()
    assert (document["matches"], document["played"], document["void"]) == (4, 0, 4)
    for row in document["standings"]:
        assert (row["matches"], row["void"], row["win_rate"]) == (0, 4, 0.0)


def test_a_tournament_with_one_match_played_among_void_ones_succeeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def one_played(executor: Any, jobs: Any, window: int, on_result: Any, **rest: Any) -> None:
        jobs = list(jobs)
        on_result(result_of(jobs[0]))
        for job in jobs[1:]:
            on_result(_void_of(job))

    _play_with(monkeypatch, one_played)
    output = Recorder()
    options = _options(seeds=2, seed=1, results=str(tmp_path / "r.jsonl"))
    assert driver.run(configure(options), output) == driver.Outcome()
    assert "no match was played" not in output.said
    assert output.ending is not None
    document = output.ending.document()
    assert (document["matches"], document["played"], document["void"]) == (4, 1, 3)
    assert [row["void"] for row in document["standings"]] == [3, 3]


def test_a_tournament_in_which_no_match_finished_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def all_fail(executor: Any, jobs: Any, window: int, on_result: Any, **rest: Any) -> None:
        for job in jobs:
            rest["on_error"](job, RuntimeError("no worker"))

    _play_with(monkeypatch, all_fail)
    output = Recorder()
    options = _options(seeds=1, seed=1, results=str(tmp_path / "r.jsonl"))
    outcome = driver.run(configure(options), output)
    assert outcome.none_played and len(outcome.not_played) == 2
    assert output.notes[-1] == "no match was played: none of the 2 planned finished (see above)"
