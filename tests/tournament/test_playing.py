"""Real matches of a plan: the two legs play the same deals with the bots swapped, worker
processes play what ``run_jobs`` gives them, and a Dask cluster plays the same games."""

from __future__ import annotations

import json
from pathlib import Path

from support.tournaments import (
    INSTANT,
    RANDOM,
    tournament_cli,
)

from referee.record.log import read_log
from referee.record.records import DealRecord
from referee.rules.deal import deal, first_dealer
from referee.running.executors import local_executor, run_jobs
from referee.running.jobs import Entrant
from referee.running.results import MatchResult, TournamentSettings, read_results
from referee.running.worker import play
from referee.tournament.plan import plan


def test_the_two_legs_play_the_same_deals_with_the_bots_swapped(tmp_path: Path) -> None:
    settings = TournamentSettings(
        entrants=[Entrant("instant", INSTANT), Entrant("random", RANDOM)], seeds=1, seed=3
    )
    leg1, leg2 = plan(settings, tmp_path / "logs")
    results = [play(leg1), play(leg2)]
    logs = [read_log(Path(leg1.log)), read_log(Path(leg2.log))]
    for job, result, log in zip((leg1, leg2), results, logs, strict=True):
        assert log.broken_at is None and log.truncated is None
        assert log.head == result.log_digest
        assert result.match_id == job.match_id and result.log == job.log
        assert (result.first, result.second, result.seed, result.leg) == (
            job.first.name,
            job.second.name,
            job.seed,
            job.leg,
        )
        if result.winner_side is not None:
            assert result.winner == (result.first if result.winner_side == "AC" else result.second)
    assert logs[0].header.bots == {"A": INSTANT, "B": RANDOM, "C": INSTANT, "D": RANDOM}
    assert logs[1].header.bots == {"A": RANDOM, "B": INSTANT, "C": RANDOM, "D": INSTANT}
    assert logs[0].header.seed == logs[1].header.seed == leg1.seed
    deals = [[r for r in log.records if isinstance(r, DealRecord)] for log in logs]
    common = min(len(deals[0]), len(deals[1]))
    assert common >= 1
    assert deals[0][:common] == deals[1][:common]
    dealer = first_dealer(leg1.seed)
    assert deals[0][0].dealer == dealer
    assert deals[0][0].hands == deal(leg1.seed, 1, dealer)


def test_run_jobs_on_worker_processes(tmp_path: Path) -> None:
    settings = TournamentSettings(
        entrants=[Entrant("instant", INSTANT), Entrant("random", RANDOM)], seeds=2, seed=5
    )
    jobs = plan(settings, tmp_path / "logs")
    seen: list[MatchResult] = []
    stopped: list[MatchResult] = []
    with local_executor(2) as (pool, _):
        progress = run_jobs(pool, jobs, window=2, on_result=lambda r: seen.append(r) is None)
        # on_result returning False stops the submitting: with a window of one, nothing else.
        halted = run_jobs(pool, jobs, window=1, on_result=lambda r: stopped.append(r) is not None)
    assert progress.stopped is None and progress.finished == seen
    assert sorted(r.match_id for r in seen) == sorted(job.match_id for job in jobs)
    by_id = {r.match_id: r for r in seen}
    for job in jobs:
        result = by_id[job.match_id]
        assert (result.first, result.second, result.seed, result.leg) == (
            job.first.name,
            job.second.name,
            job.seed,
            job.leg,
        )
        assert read_log(Path(job.log)).header.bots == job.commands
    assert halted.stopped is not None and len(halted.finished) == len(stopped) == 1
    # The same match played in this process has the same game.
    assert play(jobs[0]).game_digest == by_id[jobs[0].match_id].game_digest


def test_dask_plays_the_same_games_as_local_workers(tmp_path: Path) -> None:
    common = [
        *("--bot", f"instant={INSTANT}", "--bot", f"random={RANDOM}"),
        *("--seeds", "2", "--seed", "9", "--jobs", "2", "--json"),
    ]
    local = tournament_cli(*common, "--results", str(tmp_path / "local" / "results.jsonl"))
    dask = tournament_cli(
        *common, "--dask", "local", "--results", str(tmp_path / "dask" / "results.jsonl")
    )
    assert local.returncode == 0, local.stderr
    assert dask.returncode == 0, dask.stderr
    digests = []
    for name in ("local", "dask"):
        _, results = read_results(tmp_path / name / "results.jsonl")
        digests.append({result.match_id: result.game_digest for result in results})
        for result in results:
            assert Path(result.log).is_relative_to(tmp_path / name / "logs")
            assert read_log(Path(result.log)).head == result.log_digest
    assert len(digests[0]) == 4
    assert digests[0] == digests[1]
    assert json.loads(local.stdout)["standings"] == json.loads(dask.stdout)["standings"]


def test_a_tournament_of_bots_that_never_start_exits_1_saying_why(tmp_path: Path) -> None:
    """Bots that exit at once: every match is void. No standings of draws at 50%: the void
    matches in a column apart, one line saying no match was played, and exit status 1."""
    results = tmp_path / "results.jsonl"
    done = tournament_cli(
        *("--bot", "a=/bin/false", "--bot", "b=/bin/false", "--seeds", "1", "--seed", "1"),
        *("--jobs", "1", "--sandbox", "off", "--results", str(results)),
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.rstrip().splitlines()[-1] == (
        "no match was played: all 2 were void (bots of both sides failed to start in each)"
        " — check the bot commands and their working directory"
    )
    assert "void" in done.stdout and "50.0%" not in done.stdout
