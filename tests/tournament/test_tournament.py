"""Tournaments: the plan (pairings, duplicate legs, seeds, match ids), real matches with the sides
swapped, the results file and ``--resume`` after ``kill -9`` or Ctrl-C, standings, the SPRT,
Dask, and the TOML configuration."""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest

from referee.record.log import read_log
from referee.record.records import DealRecord
from referee.rules.deal import deal, first_dealer
from referee.rules.tiles import SEATS
from referee.settings import MatchLimits as Limits
from referee.tournament import command
from referee.tournament.plan import (
    Entrant,
    TournamentSettings,
    check_entrants,
    deal_seeds,
    pairings,
    plan,
)
from referee.tournament.results import MatchResult, ResultsError, ResultsFile, read_results
from referee.tournament.run import local_executor, play, run_jobs
from referee.tournament.standings import Sprt, pair_scores, standings, wilson_interval

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
INSTANT = shlex.join([PYTHON, str(ROOT / "referee" / "bench" / "instant_bot.py")])
RANDOM = shlex.join([PYTHON, str(ROOT / "example_bots" / "random_bot.py")])
HEURISTIC = shlex.join([PYTHON, str(ROOT / "example_bots" / "heuristic_bot.py")])

#: A random bot that thinks ``argv[1]`` seconds per decision: slow enough to stop a
#: tournament halfway through.
SLOW_BOT = """
import json, random, sys, time
delay = float(sys.argv[1])
rng = random.Random()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        rng.seed(message["seed"])
        print(json.dumps({"type": "ready", "name": "slow"}), flush=True)
    elif message["type"] == "act":
        time.sleep(delay)
        action = rng.choice(message["legal_actions"])
        print(json.dumps({"type": "action", "id": message["id"], "action": action}), flush=True)
    elif message["type"] == "match_end":
        break
"""


@pytest.fixture(autouse=True)
def _fake_commands_may_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many tests here plan tournaments of made-up commands ("bot-a") and play them through
    fake executors: the check that a command can start (tested in test_cli_first_hour.py)
    would refuse them before the code under test runs."""
    from referee.tournament import command

    monkeypatch.setattr(command, "problem", lambda _command: None)


# -- helpers ---------------------------------------------------------------------------------


def _entrants(*names: str) -> list[Entrant]:
    return [Entrant(name, f"bot-{name}") for name in names]


def _settings(
    names: tuple[str, ...] = ("a", "b", "c"),
    seeds: int = 3,
    seed: int = 7,
    format: Any = "round-robin",
    limits: Limits | None = None,
) -> TournamentSettings:
    return TournamentSettings(
        entrants=_entrants(*names),
        seeds=seeds,
        seed=seed,
        format=format,
        limits=limits or Limits(),
    )


def _result(
    first: str,
    second: str,
    winner: str | None,
    *,
    seed: int = 1,
    leg: int = 1,
    marks: tuple[int, int] | None = None,
) -> MatchResult:
    """A hand-made results line: ``winner`` is an entrant's name, or None (unfinished);
    ``marks`` are (AC, BD), i.e. (first, second). Its id is the one ``plan`` gives when the
    names are in the entrants' order and ``seed`` is the deal seed's index."""
    side = None if winner is None else ("AC" if winner == first else "BD")
    if marks is None:
        marks = {"AC": (7, 2), "BD": (2, 7), None: (3, 3)}[side]
    return MatchResult(
        match_id=f"{min(first, second)}~{max(first, second)}~s{seed}~{leg}",
        first=first,
        second=second,
        seed=seed,
        leg=leg,
        winner_side=side,  # type: ignore[arg-type]
        winner=winner,
        marks={"AC": marks[0], "BD": marks[1]},
        hands=5,
        end="max_hands" if winner is None else "marks",
        forfeit=None,
        faults={seat: {} for seat in SEATS},
        game_digest="0" * 64,
        log_digest="0" * 64,
        log=f"logs/{min(first, second)}~{max(first, second)}~s{seed}~{leg}.jsonl",
    )


def _tournament(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "referee", "tournament", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _start_tournament(args: list[str], tmp: Path) -> subprocess.Popen[bytes]:
    """The CLI in a session of its own (as a terminal would run it: one process group)."""
    with (tmp / "stdout.txt").open("wb") as stdout, (tmp / "stderr.txt").open("wb") as stderr:
        return subprocess.Popen(
            [PYTHON, "-m", "referee", "tournament", *args],
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )


def _wait_for_lines(path: Path, lines: int, process: subprocess.Popen[bytes]) -> int:
    """Wait until the results file has ``lines`` complete lines; return how many it has."""
    deadline = time.monotonic() + 30
    while True:
        count = path.read_bytes().count(b"\n") if path.exists() else 0
        if count >= lines:
            return count
        assert process.poll() is None, "the tournament ended before it could be stopped"
        assert time.monotonic() < deadline, f"{path} did not reach {lines} lines"
        time.sleep(0.02)


def _processes_mentioning(text: str) -> list[str]:
    """Live processes whose command line contains ``text`` (zombies have none)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if text.encode() in cmdline:
            shown = cmdline.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{entry.name}: {shown}")
    return found


def _group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes in process group ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, _ppid, group = stat.rsplit(")", 1)[1].split()[:3]
        if int(group) == pgid and state != "Z":
            members.append(int(entry.name))
    return members


def _wait_until_no_process_mentions(text: str, timeout: float) -> list[str]:
    """Poll until no process mentions ``text`` for a whole second; what is left at timeout."""
    deadline = time.monotonic() + timeout
    quiet_since = None
    while time.monotonic() < deadline:
        left = _processes_mentioning(text)
        if left:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= 1.0:
            return []
        time.sleep(0.1)
    return _processes_mentioning(text)


def _slow_bot(directory: Path) -> Path:
    bot = directory / "bots" / "slow_bot.py"  # not beside the results: the bot could read them
    bot.parent.mkdir(exist_ok=True)
    bot.write_text(SLOW_BOT)
    return bot


# -- 1. planning -----------------------------------------------------------------------------


def test_round_robin_plays_every_pair_and_gauntlet_the_first_against_each_other() -> None:
    entrants = _entrants("a", "b", "c", "d")
    names = [(x.name, y.name) for x, y in pairings(entrants, "round-robin")]
    assert names == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    names = [(x.name, y.name) for x, y in pairings(entrants, "gauntlet")]
    assert names == [("a", "b"), ("a", "c"), ("a", "d")]


@pytest.mark.parametrize(("format", "pairs"), [("round-robin", 6), ("gauntlet", 3)])
def test_every_pairing_plays_every_seed_in_duplicate(
    tmp_path: Path, format: str, pairs: int
) -> None:
    settings = _settings(("a", "b", "c", "d"), seeds=3, format=format)
    jobs = plan(settings, tmp_path)
    seeds = deal_seeds(settings.seed, 3)
    assert len(jobs) == pairs * 3 * 2
    played = Counter((frozenset((job.first.name, job.second.name)), job.seed) for job in jobs)
    assert len(played) == pairs * 3 and set(played.values()) == {2}
    assert {seed for _, seed in played} == set(seeds)
    # Both legs of a duplicate pair are planned one after the other.
    for leg1, leg2 in zip(jobs[::2], jobs[1::2], strict=True):
        assert (leg1.leg, leg2.leg) == (1, 2)
        assert leg1.seed == leg2.seed == leg1.settings.seed == leg2.settings.seed
        assert (leg2.first, leg2.second) == (leg1.second, leg1.first)
        assert leg1.settings == leg2.settings
        one, other = leg1.first.command, leg1.second.command
        assert leg1.commands == {"A": one, "B": other, "C": one, "D": other}
        assert leg2.commands == {"A": other, "B": one, "C": other, "D": one}


def test_duplicate_legs_deal_the_same_tiles_to_the_same_seats_under_the_other_program(
    tmp_path: Path,
) -> None:
    jobs = plan(_settings(("a", "b", "c"), seeds=2), tmp_path)
    for leg1, leg2 in zip(jobs[::2], jobs[1::2], strict=True):
        dealer = first_dealer(leg1.settings.seed)
        assert first_dealer(leg2.settings.seed) == dealer
        for hand in (1, 2, 3):
            deal1 = deal(leg1.settings.seed, hand, dealer)
            deal2 = deal(leg2.settings.seed, hand, dealer)
            for seat in SEATS:
                assert deal1[seat] == deal2[seat]
                assert leg1.commands[seat] != leg2.commands[seat]
        # The first entrant's partnership holds A+C's tiles in leg 1 and B+D's in leg 2.
        assert leg1.commands["A"] == leg2.commands["B"] == leg1.first.command


def test_match_ids_are_unique_and_deterministic(tmp_path: Path) -> None:
    settings = _settings(("a", "b", "c"), seeds=5)
    jobs = plan(settings, tmp_path / "logs")
    ids = [job.match_id for job in jobs]
    assert len(set(ids)) == len(ids) == 3 * 5 * 2
    assert len({job.log for job in jobs}) == len(jobs)
    assert all(Path(job.log).parent == tmp_path / "logs" for job in jobs)
    again = plan(_settings(("a", "b", "c"), seeds=5), tmp_path / "elsewhere")
    assert [job.match_id for job in again] == ids
    assert [job.seed for job in again] == [job.seed for job in jobs]
    other = plan(_settings(("a", "b", "c"), seeds=5, seed=8), tmp_path / "logs")
    assert [job.match_id for job in other] == ids  # the ids do not tell the seeds apart...
    assert not {job.seed for job in other} & {job.seed for job in jobs}  # ...the deals differ
    # A fixed vector: the same ids on any machine, in any process (no hash randomization).
    assert deal_seeds(1, 1) == [0x6A518882839AF5EE]
    first = plan(_settings(("a", "b"), seeds=1, seed=1), tmp_path)
    assert [job.match_id for job in first] == ["a~b~s0~1", "a~b~s0~2"]
    assert first[0].seed == 0x6A518882839AF5EE


def test_match_ids_and_log_names_hold_the_seed_index_not_the_seed(tmp_path: Path) -> None:
    """Whoever can list the logs directory must not learn the deals from the names."""
    settings = _settings(("a", "b", "c"), seeds=12)
    jobs = plan(settings, tmp_path)
    seeds = deal_seeds(settings.seed, 12)
    for job in jobs:
        index = seeds.index(job.seed)
        first, second = sorted((job.first.name, job.second.name))
        assert job.match_id == f"{first}~{second}~s{index:02d}~{job.leg}"  # two digits for 12
        assert Path(job.log).name == f"{job.match_id}.jsonl"
        for text in (job.match_id, job.log):
            assert f"{job.seed:x}" not in text and str(job.seed) not in text
    assert [job.match_id for job in jobs[:2]] == ["a~b~s00~1", "a~b~s00~2"]
    assert jobs[-1].match_id == "b~c~s11~2"
    assert plan(_settings(("a", "b"), seeds=1000), tmp_path)[-1].match_id == "a~b~s0999~2"


def test_deal_seeds_are_64_bit_and_distinct() -> None:
    seeds = deal_seeds(12345, 500)
    assert all(isinstance(seed, int) and 0 <= seed < 2**64 for seed in seeds)
    assert len(set(seeds)) == 500
    assert max(seeds) >= 2**63  # the whole 64-bit range is used, not 32 bits
    assert deal_seeds(12345, 500) == seeds
    assert not set(deal_seeds(12346, 500)) & set(seeds)
    assert len(deal_seeds(0, 3)) == 3 and len(deal_seeds(2**64 - 1, 3)) == 3


def test_limits_reach_every_match() -> None:
    limits = Limits(move_timeout=2.5, startup_timeout=4.0, max_hands=50, on_fault="random")
    for job in plan(_settings(limits=limits), Path("logs")):
        assert job.settings.move_timeout == 2.5
        assert job.settings.startup_timeout == 4.0
        assert job.settings.max_hands == 50
        assert job.settings.on_fault == "random"


def test_fingerprint_stands_for_the_settings() -> None:
    base = _settings()
    assert base.fingerprint() == _settings().fingerprint()
    others = [
        _settings(seed=8),
        _settings(seeds=4),
        _settings(format="gauntlet"),
        _settings(("a", "b", "d")),
        _settings(limits=Limits(move_timeout=2.0)),
    ]
    fingerprints = {settings.fingerprint() for settings in others}
    assert len(fingerprints) == len(others) and base.fingerprint() not in fingerprints


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ((), "at least two entrants"),
        (("solo",), "at least two entrants"),
        (("a", "a"), "must be different"),
        (("a", ""), "entrant name ''"),
        (("a", "two words"), "entrant name 'two words'"),
        (("a", "-dash"), "entrant name '-dash'"),
        (("a", "_under"), "entrant name '_under'"),
        (("a", "x" * 41), "entrant name"),
        (("a", "tilde~name"), "entrant name"),
        (("a", "slash/name"), "entrant name"),
        (("a", "café"), "entrant name"),
    ],
)
def test_bad_entrants_are_refused(names: tuple[str, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_entrants(_entrants(*names))


def test_good_entrant_names_pass() -> None:
    check_entrants(_entrants("A", "x" * 40, "bot_1.2+x-y", "9lives"))


# -- 2. the sides really swap ----------------------------------------------------------------


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


# -- 3. the results file ---------------------------------------------------------------------


def _two_results() -> list[MatchResult]:
    return [
        _result("a", "b", "a", seed=0, leg=1),
        _result("b", "a", None, seed=0, leg=2),
    ]


def test_results_are_appended_and_read_back(tmp_path: Path) -> None:
    settings = _settings(("a", "b"), seeds=2)
    path = tmp_path / "new" / "results.jsonl"
    results_file = ResultsFile.open(path, settings, resume=False)
    for result in _two_results():
        results_file.append(result)
        # Flushed at once: readable while the tournament still runs.
        assert read_results(path)[1][-1] == result
    results_file.close()
    header, results = read_results(path)
    assert header.fingerprint == settings.fingerprint()
    assert header.settings == settings
    assert results == _two_results()
    lines = path.read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["tournament", "match", "match"]
    reopened = ResultsFile.open(path, settings, resume=True)
    reopened.close()
    assert reopened.done == {result.match_id: result for result in _two_results()}


@pytest.mark.parametrize("cut", ["half a line", "all but the line end"])
def test_resume_drops_a_cut_off_last_line(tmp_path: Path, cut: str) -> None:
    settings = _settings(("a", "b"), seeds=2)
    path = tmp_path / "results.jsonl"
    results_file = ResultsFile.open(path, settings, resume=False)
    for result in _two_results():
        results_file.append(result)
    results_file.close()
    third = _result("a", "b", "b", seed=1, leg=1)
    line = msgspec.json.encode(third)
    with path.open("ab") as stream:  # what kill -9 in the middle of a write leaves behind
        stream.write(line[: len(line) // 2] if cut == "half a line" else line)
    assert read_results(path)[1] == _two_results()
    results_file = ResultsFile.open(path, settings, resume=True)
    assert set(results_file.done) == {result.match_id for result in _two_results()}
    assert path.read_bytes().endswith(b"\n")
    results_file.append(third)
    results_file.close()
    assert read_results(path)[1] == [*_two_results(), third]
    for text in path.read_bytes().split(b"\n")[:-1]:
        json.loads(text)


def test_resume_refuses_the_results_of_another_tournament(tmp_path: Path) -> None:
    settings = _settings(("a", "b"), seeds=2)
    path = tmp_path / "results.jsonl"
    results_file = ResultsFile.open(path, settings, resume=False)
    results_file.append(_two_results()[0])
    results_file.close()
    with path.open("ab") as stream:
        stream.write(b'{"type":"match","mat')
    before = path.read_bytes()
    for other in (
        _settings(("a", "b"), seeds=2, seed=8),
        _settings(("a", "b"), seeds=3),
        _settings(("a", "c"), seeds=2),
        _settings(("a", "b"), seeds=2, limits=Limits(max_hands=10)),
    ):
        with pytest.raises(ResultsError, match="belongs to another tournament"):
            ResultsFile.open(path, other, resume=True)
    assert path.read_bytes() == before  # untouched, not even the cut-off line


def test_an_existing_results_file_needs_resume(tmp_path: Path) -> None:
    settings = _settings(("a", "b"), seeds=2)
    path = tmp_path / "results.jsonl"
    ResultsFile.open(path, settings, resume=False).close()
    before = path.read_bytes()
    with pytest.raises(ResultsError, match="exists: add --resume"):
        ResultsFile.open(path, settings, resume=False)
    assert path.read_bytes() == before
    # --resume with no file yet simply starts the tournament.
    fresh = ResultsFile.open(tmp_path / "fresh.jsonl", settings, resume=True)
    fresh.close()
    assert fresh.done == {} and read_results(tmp_path / "fresh.jsonl")[1] == []


def test_a_file_that_is_not_a_results_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("dear diary\n")
    with pytest.raises(ResultsError, match="not a results file"):
        ResultsFile.open(path, _settings(), resume=True)


def test_cli_refuses_existing_or_foreign_results_in_one_line(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    common = ["--bot", f"a={INSTANT}", "--bot", f"b={INSTANT}", "--seeds", "1"]
    settings = TournamentSettings(
        entrants=[Entrant("a", INSTANT), Entrant("b", INSTANT)], seeds=1, seed=1
    )
    ResultsFile.open(results, settings, resume=False).close()
    exists = _tournament(*common, "--seed", "1", "--results", str(results))
    foreign = _tournament(*common, "--seed", "2", "--results", str(results), "--resume")
    for done, message in ((exists, "--resume"), (foreign, "another tournament")):
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("referee: ") and message in done.stderr
        assert len(done.stderr.splitlines()) == 1, done.stderr


# -- 4. interruption and --resume ------------------------------------------------------------


@dataclass
class KilledRun:
    """A tournament killed with SIGKILL halfway, then resumed."""

    directory: Path
    results: Path
    #: Complete lines in the results file when it was killed (header included).
    lines_at_kill: int
    prefix_at_kill: bytes
    killed_at: float
    #: The referee's worker processes (its process group), recorded before the kill.
    workers: list[int]
    group: int
    bots_left: list[str]
    resumed: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KilledRun]:
    directory = tmp_path_factory.mktemp("killed")
    bot = _slow_bot(directory)
    results = directory / "results.jsonl"
    args = [
        *("--bot", f"a={shlex.join([PYTHON, str(bot), '0.02'])}"),
        *("--bot", f"b={shlex.join([PYTHON, str(bot), '0.02'])}"),
        *("--seeds", "4", "--seed", "1", "--jobs", "2", "--results", str(results), "--json"),
    ]
    referee = _start_tournament(args, directory)
    workers: list[int] = []
    try:
        lines = _wait_for_lines(results, 3, referee)  # the header and two matches
        prefix = results.read_bytes()
        workers = [pid for pid in _group_members(referee.pid) if pid != referee.pid]
        referee.kill()  # kill -9: no chance to clean up
        referee.wait()
        killed_at = time.monotonic()
        bots_left = _wait_until_no_process_mentions(str(directory), timeout=15)
        resumed = subprocess.run(
            [PYTHON, "-m", "referee", "tournament", *args, "--resume"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        yield KilledRun(
            directory,
            results,
            lines,
            prefix[: prefix.rfind(b"\n") + 1],
            killed_at,
            workers,
            referee.pid,
            bots_left,
            resumed,
        )
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()
        for pid in workers:  # whatever the killed referee left behind (see the test below)
            if pid in _group_members(referee.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def test_resume_after_kill_plays_exactly_the_missing_matches(killed_run: KilledRun) -> None:
    resumed = killed_run.resumed
    assert resumed.returncode == 0, resumed.stderr
    header, results = read_results(killed_run.results)
    planned = [job.match_id for job in plan(header.settings, killed_run.directory / "logs")]
    assert len(planned) == 8  # 4 seeds x 1 pairing x 2 legs
    assert 2 <= killed_run.lines_at_kill - 1 < len(planned)
    counts = Counter(result.match_id for result in results)
    assert [match_id for match_id, n in counts.items() if n > 1] == []
    assert sorted(counts) == sorted(planned)
    assert len(results) == len(planned)
    # What was recorded before the kill is kept as it was.
    assert killed_run.results.read_bytes().startswith(killed_run.prefix_at_kill)
    document = json.loads(resumed.stdout)
    assert document["matches"] == document["planned"] == len(planned)
    for result in results:  # every log is whole and is the one the results line stands for
        log = read_log(Path(result.log))
        assert log.broken_at is None and log.truncated is None, result.log
        assert log.head == result.log_digest


def test_no_bot_is_left_behind_after_kill(killed_run: KilledRun) -> None:
    assert killed_run.bots_left == []


def test_kill_leaves_no_worker_process_behind(killed_run: KilledRun) -> None:
    """After ``kill -9`` of the referee its worker processes may finish the match in hand, but
    then they must go: they must not wait forever for work that will never come."""
    assert killed_run.workers, "the referee had no worker processes"
    deadline = killed_run.killed_at + 10
    left = [pid for pid in killed_run.workers if pid in _group_members(killed_run.group)]
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = [pid for pid in killed_run.workers if pid in _group_members(killed_run.group)]
    commands = [
        Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        for pid in left
        if Path(f"/proc/{pid}").exists()
    ]
    assert left == [], f"orphaned worker processes still running: {commands}"


def test_ctrl_c_stops_cleanly_and_says_to_resume(tmp_path: Path) -> None:
    bot = _slow_bot(tmp_path)
    results = tmp_path / "results.jsonl"
    args = [
        *("--bot", f"a={shlex.join([PYTHON, str(bot), '0.02'])}"),
        *("--bot", f"b={shlex.join([PYTHON, str(bot), '0.02'])}"),
        *("--seeds", "4", "--seed", "1", "--jobs", "2", "--results", str(results), "--json"),
    ]
    referee = _start_tournament(args, tmp_path)
    try:
        _wait_for_lines(results, 3, referee)
        os.killpg(referee.pid, signal.SIGINT)  # Ctrl-C reaches the terminal's process group
        status = referee.wait(timeout=30)
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()
    stderr = (tmp_path / "stderr.txt").read_text()
    assert status == 130, stderr
    assert "Traceback" not in stderr
    assert "interrupted" in stderr and "--resume" in stderr
    _, recorded = read_results(results)
    assert 2 <= len(recorded) < 8
    assert f"{len(recorded)} of 8 matches recorded" in stderr
    # No match was played to its end after Ctrl-C and then thrown away: every log that ends
    # on marks is a recorded result (queued matches are refused, not played).
    time.sleep(2)  # let the workers finish closing their interrupted matches
    ids = {result.match_id for result in recorded}
    for log in (tmp_path / "logs").glob("*.jsonl"):
        last = log.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        if b'"end":"marks"' in last:
            assert log.stem in ids, f"{log.name} was played to its end but not recorded"
    assert results.read_bytes().endswith(b"\n")
    document = json.loads((tmp_path / "stdout.txt").read_text())
    assert document["matches"] == len(recorded) and document["planned"] == 8
    assert _wait_until_no_process_mentions(str(tmp_path), timeout=10) == []
    deadline = time.monotonic() + 10
    while _group_members(referee.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _group_members(referee.pid) == []


# -- 5. standings ----------------------------------------------------------------------------


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
        results.append(_result("a", "b", "a", seed=seed, leg=1, marks=(7, 3)))  # a +4
        loser = seed <= 2  # a loses leg 2 of the first two pairs
        winner = "b" if loser else "a"
        marks = (7, 5) if loser else (1, 7)  # b holds AC in leg 2: a -2, or a +6
        results.append(_result("b", "a", winner, seed=seed, leg=2, marks=marks))
    return results


def test_standings_counts_rates_and_marks() -> None:
    results = [
        *_eight_of_ten(),
        _result("a", "c", None, seed=7, leg=1, marks=(2, 2)),
        _result("c", "a", None, seed=7, leg=2, marks=(3, 1)),  # c +2, a -2
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
        _result("a", "c", "c", seed=7, leg=1),
        _result("c", "a", None, seed=7, leg=2),
        _result("b", "c", "b", seed=8, leg=1),
        _result("c", "b", "b", seed=8, leg=2),
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
            results.append(_result(x, y, x, seed=seed, leg=1))
            results.append(_result(y, x, x, seed=seed, leg=2))
    table = standings(["weak", "middle", "strong"], results)
    assert [row.name for row in table.standings] == ["strong", "middle", "weak"]
    ratings = [row.rating for row in table.standings]
    assert ratings == sorted(ratings, reverse=True)


def test_standings_do_not_depend_on_the_order_results_came_in() -> None:
    results = [
        *_eight_of_ten(),
        _result("a", "c", "c", seed=7, leg=1),
        _result("c", "a", None, seed=7, leg=2),
        _result("b", "c", "b", seed=8, leg=1),
        _result("c", "b", "c", seed=8, leg=2),
    ]
    expected = standings(["a", "b", "c"], results)
    rng = random.Random(42)
    for _ in range(5):
        shuffled = results[:]
        rng.shuffle(shuffled)
        assert standings(["a", "b", "c"], shuffled) == expected


# -- 6. SPRT ---------------------------------------------------------------------------------


def test_pair_scores_of_duplicate_pairs() -> None:
    results = [
        _result("a", "b", "a", seed=10, leg=1),
        _result("b", "a", "a", seed=10, leg=2),  # a wins both: 1
        _result("a", "b", "a", seed=20, leg=1),
        _result("b", "a", "b", seed=20, leg=2),  # one each: 0.5
        _result("a", "b", "b", seed=30, leg=1),
        _result("b", "a", "b", seed=30, leg=2),  # a loses both: 0
        _result("a", "b", "a", seed=40, leg=1),
        _result("b", "a", None, seed=40, leg=2),  # a win and an unfinished match: 0.75
        _result("a", "b", "a", seed=50, leg=1),  # its second leg is not played yet
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
    done = _tournament(
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


def test_sprt_reports_the_verdict_that_stopped_the_tournament(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Matches already running when the test decides still finish and are recorded; the
    verdict reported must stay the one that stopped the tournament."""
    seeds = deal_seeds(1, 12)
    losing_pair = seeds[8]  # the ninth pair, in flight when the eighth decides H1

    def canned(job: Any) -> MatchResult:
        winner = job.second.name if job.first.name == "strong" else job.first.name
        if job.seed != losing_pair:
            winner = "strong"
        result = _result(job.first.name, job.second.name, winner, seed=job.seed, leg=job.leg)
        return msgspec.structs.replace(result, match_id=job.match_id)

    def fake_run_jobs(
        executor: Any, jobs: Any, window: int, on_result: Any, **callbacks: Any
    ) -> None:
        """``run_jobs`` with matches finishing in the order they started."""
        queue, running, submitting = list(jobs), [], True
        while queue and len(running) < window:
            running.append(queue.pop(0))
        while running:
            if not on_result(canned(running.pop(0))):
                submitting = False
            while submitting and queue and len(running) < window:
                running.append(queue.pop(0))

    monkeypatch.setattr(command, "run_jobs", fake_run_jobs)
    monkeypatch.setattr(
        command, "local_executor", lambda jobs: contextlib.nullcontext((None, jobs))
    )
    options = command.Options(
        bots=["strong=bot-strong", "weak=bot-weak"],
        seeds=12,
        seed=1,
        jobs=2,
        results=tmp_path / "results.jsonl",
        sprt="0,200",
        json_output=True,
    )
    assert command.run(options) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["matches"] < document["planned"] == 24  # it stopped early...
    assert document["sprt"]["verdict"] == "H1"  # ...because H1 was accepted


# -- 7. Dask ---------------------------------------------------------------------------------


def test_dask_plays_the_same_games_as_local_workers(tmp_path: Path) -> None:
    common = [
        *("--bot", f"instant={INSTANT}", "--bot", f"random={RANDOM}"),
        *("--seeds", "2", "--seed", "9", "--jobs", "2", "--json"),
    ]
    local = _tournament(*common, "--results", str(tmp_path / "local" / "results.jsonl"))
    dask = _tournament(
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


# -- 8. TOML configuration -------------------------------------------------------------------


def _bot_table(*names: str, command: str = INSTANT) -> str:
    return "".join(f"[[bot]]\nname = {name!r}\ncommand = {command!r}\n\n" for name in names)


def test_toml_config_with_command_line_overrides(tmp_path: Path) -> None:
    config = tmp_path / "tournament.toml"
    results = tmp_path / "out" / "results.jsonl"
    config.write_text(
        'format = "gauntlet"\nseeds = 3\nseed = 11\njobs = 2\n'
        f"results = {str(results)!r}\n\n"
        + _bot_table("hero", "villain1", "villain2")
        + "[match]\nmax_hands = 50\nmove_timeout = 2.0\n"
    )
    done = _tournament(str(config), "--seeds", "1", "--move-timeout", "3", "--json")
    assert done.returncode == 0, done.stderr
    header, recorded = read_results(results)
    settings = header.settings
    assert [entrant.name for entrant in settings.entrants] == ["hero", "villain1", "villain2"]
    assert settings.entrants[0].command == INSTANT
    assert (settings.seeds, settings.seed, settings.format) == (1, 11, "gauntlet")
    assert settings.limits.max_hands == 50  # from the file
    assert settings.limits.move_timeout == 3.0  # the command line wins
    assert sorted(r.match_id for r in recorded) == sorted(
        job.match_id for job in plan(settings, Path())
    )
    assert len(recorded) == 2 * 1 * 2  # two gauntlet pairings, one seed, two legs
    assert {(r.first, r.second) for r in recorded} == {
        ("hero", "villain1"),
        ("villain1", "hero"),
        ("hero", "villain2"),
        ("villain2", "hero"),
    }
    document = json.loads(done.stdout)
    assert document["matches"] == document["planned"] == 4
    assert document["results"] == str(results)
    assert (results.parent / "logs").is_dir()


def test_command_line_options_override_the_file(tmp_path: Path) -> None:
    config = tmp_path / "tournament.toml"
    config.write_text(
        'format = "gauntlet"\nseeds = 3\nseed = 11\njobs = 3\nsprt = "0,5"\n'
        + _bot_table("x", "y")
        + "[match]\nmax_hands = 50\nmove_timeout = 2.0\n"
    )
    settings, rest = command.settings_of(command.Options(config=config))
    assert [e.name for e in settings.entrants] == ["x", "y"]
    assert (settings.seeds, settings.seed, settings.format, rest["jobs"]) == (3, 11, "gauntlet", 3)
    assert (settings.limits.max_hands, settings.limits.move_timeout) == (50, 2.0)
    assert rest["sprt"] == "0,5"
    settings, rest = command.settings_of(
        command.Options(
            config=config,
            bots=["p=cmd-p", "q=cmd-q", "r=cmd-r"],
            seeds=2,
            seed=0,  # zero is a seed like any other
            format="round-robin",
            jobs=1,
            limits={"move_timeout": 0.5},
        )
    )
    assert [(e.name, e.command) for e in settings.entrants] == [
        ("p", "cmd-p"),
        ("q", "cmd-q"),
        ("r", "cmd-r"),
    ]
    assert (settings.seeds, settings.seed, settings.format, rest["jobs"]) == (
        2,
        0,
        "round-robin",
        1,
    )
    assert (settings.limits.max_hands, settings.limits.move_timeout) == (50, 0.5)


def test_resume_without_seed_takes_the_seed_from_the_results_file(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    settings = _settings(("a", "b"), seeds=2, seed=987654321)
    ResultsFile.open(results, settings, resume=False).close()
    options = command.Options(bots=["a=bot-a", "b=bot-b"], seeds=2, results=results, resume=True)
    resumed, _ = command.settings_of(options)
    assert resumed.seed == 987654321 and resumed.fingerprint() == settings.fingerprint()


_TWO_BOTS = _bot_table("a", "b")
#: A good configuration, and one that opens a [match] table for the next line.
_OK = "seeds = 1\n" + _TWO_BOTS
_MATCH = _OK + "[match]\n"

#: (id, the TOML file or None, more options, a word the one-line message must contain)
BAD_CONFIGS: list[tuple[str, str | None, list[str], str]] = [
    ("missing file", None, [], "cannot read"),
    ("not TOML", "seeds = = 1\n", [], "not valid TOML"),
    ("bot without command", '[[bot]]\nname = "a"\n[[bot]]\nname = "b"\ncommand = "x"\n', [], "bot"),
    ("bot not a table", 'bot = "a"\nseeds = 1\n', [], "bot"),
    ("one bot", "seeds = 1\n" + _bot_table("a"), [], "two entrants"),
    ("bad name", "seeds = 1\n" + _bot_table("a", "b c"), [], "entrant name"),
    ("same names", "seeds = 1\n" + _bot_table("a", "a"), [], "different"),
    ("no seeds", _TWO_BOTS, [], "--seeds"),
    ("seeds not a number", 'seeds = "3"\n' + _TWO_BOTS, [], "$.seeds"),
    ("unknown format", 'seeds = 1\nformat = "swiss"\n' + _TWO_BOTS, [], "format"),
    ("unknown match option", _MATCH + "move_timeot = 2\n", [], "move_timeot"),
    ("mistyped match option", _MATCH + 'max_hands = "x"\n', [], "max_hands"),
    ("sprt with three bots", 'seeds = 1\nsprt = "0,5"\n' + _bot_table("a", "b", "c"), [], "two"),
    ("sprt not two numbers", 'seeds = 1\nsprt = "0,x"\n' + _TWO_BOTS, [], "ELO0,ELO1"),
    ("negative seed", "seeds = 1\nseed = -1\n" + _TWO_BOTS, [], "seed"),
    ("seed not a number", 'seeds = 1\nseed = "x"\n' + _TWO_BOTS, [], "seed"),
    ("match not a table", "seeds = 1\nmatch = 3\n" + _TWO_BOTS, [], "match"),
    ("negative jobs", "seeds = 1\njobs = -1\n" + _TWO_BOTS, [], "jobs"),
    ("jobs not a number", 'seeds = 1\njobs = "two"\n' + _TWO_BOTS, [], "jobs"),
    ("negative move_timeout", _MATCH + "move_timeout = -1\n", [], "move_timeout"),
    ("zero max_hands", _MATCH + "max_hands = 0\n", [], "max_hands"),
    ("alpha 0", _OK, ["--sprt", "0,10", "--alpha", "0"], "alpha"),
    ("resume a non-results file", _OK, ["--resume", "--results", "NOTES"], "results file"),
]


@pytest.fixture(scope="module")
def bad_config_runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[int, str]]:
    """Every bad configuration, run at once (each is one short-lived process)."""
    running = {}
    for name, text, extra, _ in BAD_CONFIGS:
        directory = tmp_path_factory.mktemp("config")
        config = directory / "tournament.toml"
        if text is not None:
            config.write_text(text)
        notes = directory / "notes.txt"
        notes.write_text("not a results file\n")
        extra = [str(notes) if arg == "NOTES" else arg for arg in extra]
        if "--results" not in extra:
            extra = [*extra, "--results", str(directory / "results.jsonl")]
        running[name] = subprocess.Popen(
            [PYTHON, "-m", "referee", "tournament", str(config), "--json", *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
    outcomes = {}
    for name, process in running.items():
        _, stderr = process.communicate(timeout=120)
        outcomes[name] = (process.returncode, stderr)
    return outcomes


@pytest.mark.parametrize(
    ("name", "word"), [(name, word) for name, _, _, word in BAD_CONFIGS], ids=lambda x: str(x)
)
def test_bad_configs_exit_2_with_one_line(
    bad_config_runs: dict[str, tuple[int, str]], name: str, word: str
) -> None:
    status, stderr = bad_config_runs[name]
    last = stderr.strip().splitlines()[-1:] or ["(nothing on stderr)"]
    assert "Traceback" not in stderr, f"a traceback instead of a message: {last[0]}"
    assert status == 2, f"exit status {status}: {last[0]}"
    assert stderr.startswith("referee: ") and len(stderr.splitlines()) == 1, stderr
    assert word in stderr
