"""How well and how fast the league works: three figures, each against its goal.

- **Scheduling.** Eight entrants of known strengths (Elo gaps like the bundled bots' and
  their seeded variations': 0 to 500), results drawn from those strengths, ratings by the
  league's own update. The adaptive schedule (``league.schedule.next_pair``) and a round
  robin (every pair in turn) each play until the order by rating is the true one and
  stable (every neighbour 95% sure): the matches each needed, over several seeds.
- **Scale.** A database of 100,000 recorded matches (synthetic results, written through
  ``League.record``'s own path): ``standings`` must answer in under a second, and one more
  result must be recorded in a few milliseconds (one transaction, WAL).
- **Resume.** A real ``league run --matches 200`` (instant bots) killed with SIGKILL halfway,
  then run again: exactly 200 distinct results must be recorded.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Final

from referee.bench.referee import INSTANT_BOT, PYTHON
from referee.league.schedule import Rated, next_pair, stable
from referee.league.standings import standings
from referee.league.store import MODEL, League
from referee.running.rating import rate
from referee.running.results import MatchResult

#: The entrants' true strengths, in Elo.
STRENGTHS: Final = (0, 40, 90, 150, 210, 280, 370, 500)
#: Matches a schedule may take before it is called unsettled.
CAP: Final = 40_000
SCALE_MATCHES: Final = 100_000
STANDINGS_GOAL: Final = 1.0
ADD_GOAL: Final = 0.010
RESUME_MATCHES: Final = 200


def _beats(rng: random.Random, elo_a: float, elo_b: float) -> bool:
    return rng.random() < 1 / (1 + 10 ** ((elo_b - elo_a) / 400))


def matches_to_settle(adaptive: bool, seed: int) -> int:
    """Matches until the ratings' order is the true one and stable."""
    rng = random.Random(seed)
    ratings = {i: (25.0, 25 / 3) for i in range(len(STRENGTHS))}
    pairs = list(combinations(range(len(STRENGTHS)), 2))
    played: dict[frozenset[int], int] = {}
    truth = sorted(ratings, key=lambda i: -STRENGTHS[i])
    matches = 0
    turn = 0
    while matches < CAP:
        rated = [Rated(i, mu, sigma) for i, (mu, sigma) in ratings.items()]
        if matches and stable(rated) and sorted(ratings, key=lambda i: -ratings[i][0]) == truth:
            return matches
        if adaptive:
            x, y = next_pair(rated, played)
            a, b = x.id, y.id
        else:
            a, b = pairs[turn % len(pairs)]
            turn += 1
        key = frozenset((a, b))
        played[key] = played.get(key, 0) + 1
        for _ in range(2):  # a duplicate pair: two matches
            won = _beats(rng, STRENGTHS[a], STRENGTHS[b])
            ratings[a], ratings[b] = rate(ratings[a], ratings[b], won, MODEL)
            matches += 1
    return CAP


def synthetic(first: str, second: str, number: int, won: bool) -> MatchResult:
    return MatchResult(
        match_id=f"{first}~{second}~p{number:07d}~1",
        first=first,
        second=second,
        seed=number,
        leg=1,
        winner_side="AC" if won else "BD",
        winner=first if won else second,
        marks={"AC": 7 if won else 3, "BD": 3 if won else 7},
        hands=9,
        end="marks",
        forfeit=None,
        faults={"A": {}, "B": {}, "C": {}, "D": {}},
        game_digest="0" * 64,
        log_digest="0" * 64,
        log=f"/nowhere/{number}.jsonl",
        number=number,
    )


def scale(folder: Path) -> tuple[float, float, float, float]:
    """(seconds to fill, standings seconds, the whole 'referee league standings' command's,
    median seconds to record one more result)."""
    rng = random.Random(1)
    started = time.perf_counter()
    with League.create(folder / "big.db", 1, folder / "logs", "{}") as league:
        entrants = [league.add(f"bot{i}", f"bot{i}")[0] for i in range(8)]
        with league.transaction():
            for number in range(SCALE_MATCHES):
                a, b = rng.sample(entrants, 2)
                result = synthetic(a.label, b.label, number, rng.random() < 0.5)
                league.record_in_transaction(result, a, b, None, "synthetic")
        filled = time.perf_counter() - started
    with League.open(folder / "big.db") as reader:
        times = []
        for _ in range(3):
            started = time.perf_counter()
            table = standings(reader)
            times.append(time.perf_counter() - started)
        assert table.recorded == SCALE_MATCHES
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "referee", "league", "standings", str(folder / "big.db")],
        check=True,
        capture_output=True,
    )
    command = time.perf_counter() - started
    adds = []
    with League.open(folder / "big.db", write=True) as league:
        a, b = league.entrants()[:2]
        for k in range(20):
            result = synthetic(a.label, b.label, SCALE_MATCHES + k, k % 2 == 0)
            started = time.perf_counter()
            league.record(result, a, b, None, "synthetic")
            adds.append(time.perf_counter() - started)
    return filled, min(times), command, statistics.median(adds)


def resume(folder: Path) -> tuple[int, int, int]:
    """(recorded at the kill, recorded after the second run, distinct match ids)."""
    db = folder / "resume.db"
    referee = [sys.executable, "-m", "referee", "league"]
    bot = " ".join([*PYTHON, str(INSTANT_BOT)])
    for args in (
        ["init", str(db), "--seed", "1"],
        ["add", str(db), "a", bot],
        ["add", str(db), "b", bot],
        ["add", str(db), "c", bot],
    ):
        subprocess.run([*referee, *args], check=True, capture_output=True, cwd=folder)
    run = [*referee, "run", str(db), "--matches", str(RESUME_MATCHES), "--sandbox", "off"]
    runner = subprocess.Popen(
        run, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        while _count(db) < RESUME_MATCHES // 2 and runner.poll() is None:
            time.sleep(0.02)
    finally:
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait()
    at_kill = _count(db)
    subprocess.run(run, check=True, capture_output=True, cwd=folder)
    with sqlite3.connect(db) as connection:
        distinct = connection.execute("SELECT count(DISTINCT match_id) FROM matches").fetchone()
    return at_kill, _count(db), int(distinct[0])


def _count(db: Path) -> int:
    try:
        with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as connection:
            return int(connection.execute("SELECT count(*) FROM matches").fetchone()[0])
    except sqlite3.Error:
        return 0


def lines(seeds: int = 5) -> Iterator[str]:
    adaptive = [matches_to_settle(True, seed) for seed in range(seeds)]
    robin = [matches_to_settle(False, seed) for seed in range(seeds)]
    a, r = statistics.median(adaptive), statistics.median(robin)
    yield f"scheduling, {len(STRENGTHS)} entrants of known strengths, {seeds} seeds:"
    yield f"  adaptive:    {', '.join(map(str, adaptive))} matches (median {a:,.0f})"
    yield f"  round robin: {', '.join(map(str, robin))} matches (median {r:,.0f})"
    with tempfile.TemporaryDirectory(prefix="bench-league-") as folder:
        filled, table, command, add = scale(Path(folder))
        yield (
            f"scale: {SCALE_MATCHES:,} matches recorded in {filled:.1f} s; standings in"
            f" {table * 1000:.0f} ms, the whole command (Python's start included) in"
            f" {command:.2f} s (goal {STANDINGS_GOAL:g} s); one more result in"
            f" {add * 1000:.2f} ms (goal {ADD_GOAL * 1000:g} ms)"
        )
        at_kill, total, distinct = resume(Path(folder))
        yield (
            f"resume: killed at {at_kill} of {RESUME_MATCHES} matches; after the second run"
            f" {total} recorded, {distinct} distinct"
        )
    ok = (
        a < r
        and command < STANDINGS_GOAL
        and add < ADD_GOAL
        and total == distinct == RESUME_MATCHES
    )
    yield (
        f"league: adaptive {a:,.0f} matches vs round robin {r:,.0f} ({a / r:.2f}x);"
        f" standings {table * 1000:.0f} ms at {SCALE_MATCHES:,}"
        f" (limit {STANDINGS_GOAL * 1000:.0f});"
        f" add {add * 1000:.2f} ms (limit {ADD_GOAL * 1000:.0f}); resume {distinct} of"
        f" {RESUME_MATCHES} distinct — {'ok' if ok else 'NOT MET'}"
    )
