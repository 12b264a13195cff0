"""``referee league run`` with real bots: the matches it plays are ordinary, verifiable
matches recorded with their logs' digests; killed with ``kill -9`` and run again, it loses
nothing and plays nothing twice; standings read while it writes."""

from __future__ import annotations

import shlex
import sqlite3
import subprocess
import time
from collections import Counter
from pathlib import Path

from support.processes import referee
from support.tournaments import (
    HEURISTIC,
    PYTHON,
    RANDOM,
    slow_bot,
    wait_until_no_process_mentions,
)

from referee.league.standings import standings, verify_logs
from referee.league.store import League
from referee.record.log import read_log
from referee.record.verify import verify


def league_with(tmp_path: Path, *entrants: tuple[str, str], max_hands: int = 3) -> Path:
    """A league of ``entrants`` (name, command) whose matches end after ``max_hands`` hands
    (0: as the rules end them)."""
    db = tmp_path / "league.db"
    short = ("--max-hands", str(max_hands)) if max_hands else ()
    done = referee("league", "init", str(db), "--seed", "9", *short, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for name, command in entrants:
        done = referee("league", "add", str(db), name, command, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    return db


def recorded(db: Path) -> list[tuple[str, int | None, int]]:
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT match_id, pair, leg FROM matches").fetchall()


def test_a_run_plays_whole_pairs_of_verifiable_matches(tmp_path: Path) -> None:
    db = league_with(tmp_path, ("r1", RANDOM), ("r2", RANDOM), ("r3", RANDOM))
    done = referee("league", "run", str(db), "--matches", "8", "--sandbox", "off", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = recorded(db)
    assert len(rows) == 8 and len({row[0] for row in rows}) == 8
    assert set(Counter(pair for _, pair, _ in rows).values()) == {2}  # both legs of each
    with League.open(db) as league:
        checked, problems = verify_logs(league)
        assert (checked, problems) == (8, [])
        table = standings(league)
        assert sum(row.matches for row in table.standings) == 16
        # New versions first: every entrant has played before any pair repeats.
        assert all(row.matches >= 4 for row in table.standings)
        for _, _, result in league.results():
            verify(read_log(Path(result.log)))  # an ordinary match's log: it verifies
    again = referee("league", "run", str(db), cwd=tmp_path)
    assert again.returncode == 2 and "--matches N" in again.stderr  # the run was finished


def test_killed_with_kill_9_and_run_again_it_loses_nothing_and_plays_nothing_twice(
    tmp_path: Path,
) -> None:
    bot = shlex.join([PYTHON, str(slow_bot(tmp_path)), "0.01"])
    db = league_with(tmp_path, ("a", bot), ("b", bot), ("c", bot))
    args = [PYTHON, "-m", "referee", "league", "run", str(db), "--matches", "20"]
    args += ["--jobs", "2", "--sandbox", "off"]
    with (tmp_path / "err.txt").open("wb") as err:
        runner = subprocess.Popen(args, cwd=tmp_path, stderr=err, start_new_session=True)
    deadline = time.monotonic() + 60
    try:
        while len(recorded(db)) < 5:
            assert runner.poll() is None and time.monotonic() < deadline
            with League.open(db) as league:  # a reader while the runner writes
                standings(league)
            time.sleep(0.05)
    finally:
        runner.kill()  # kill -9, mid-match
        runner.wait()
    at_kill = recorded(db)
    assert 5 <= len(at_kill) < 20
    assert wait_until_no_process_mentions(str(tmp_path), timeout=15) == []  # no bot left
    again = referee("league", "run", str(db), "--matches", "20", "--sandbox", "off", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "goes on" in again.stderr
    rows = recorded(db)
    assert len(rows) == 20 and len({row[0] for row in rows}) == 20
    assert set(at_kill) <= set(rows)
    assert set(Counter(pair for _, pair, _ in rows).values()) == {2}
    with League.open(db) as league:
        assert verify_logs(league) == (20, [])
        ratings = league.db.execute("SELECT count(*) FROM ratings").fetchone()[0]
        assert ratings == 40  # every match rated once, the interrupted ones included


def stopped_run(tmp_path: Path) -> Path:
    """A league whose run of 6 matches was stopped before any was played."""
    db = league_with(tmp_path, ("r1", RANDOM), ("r2", RANDOM))
    with sqlite3.connect(db) as connection:
        connection.execute("INSERT INTO runs (target, until_stable, started) VALUES (6, 0, 'x')")
    return db


def test_a_stopped_run_goes_on_when_asked_as_it_was_or_not_at_all(tmp_path: Path) -> None:
    db = stopped_run(tmp_path)
    done = referee("league", "run", str(db), "--sandbox", "off", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(recorded(db)) == 6


def test_a_stopped_run_is_not_replaced_by_another_request(tmp_path: Path) -> None:
    db = stopped_run(tmp_path)
    done = referee("league", "run", str(db), "--matches", "4", "--sandbox", "off", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "run 1 was stopped before its end (--matches 6)" in done.stderr
    assert recorded(db) == []


def test_a_command_that_cannot_start_is_refused_before_a_run_begins(tmp_path: Path) -> None:
    script = tmp_path / "gone_bot.py"
    script.write_text("")
    db = league_with(tmp_path, ("r1", RANDOM), ("gone", f"{PYTHON} {script}"))
    script.unlink()
    done = referee("league", "run", str(db), "--matches", "2", "--sandbox", "off", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "gone@v1 cannot start" in done.stderr and "no such file" in done.stderr
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    (tmp_path / "alone").mkdir()
    alone = league_with(tmp_path / "alone", ("r1", RANDOM))
    done = referee("league", "run", str(alone), "--matches", "2", cwd=tmp_path)
    assert done.returncode == 2 and "two active entrants" in done.stderr


def test_until_stable_stops_once_the_order_is_sure(tmp_path: Path) -> None:
    """The heuristic bot beats the random one every time: the order settles long before the
    cap."""
    db = league_with(tmp_path, ("random", RANDOM), ("heuristic", HEURISTIC), max_hands=0)
    args = ("--until-stable", "--matches", "60", "--sandbox", "off")
    done = referee("league", "run", str(db), *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "the order is stable" in done.stderr
    assert 2 <= len(recorded(db)) < 60


def test_a_stopped_runs_legs_of_a_retired_version_are_dropped_or_the_run_abandoned(
    tmp_path: Path,
) -> None:
    db = league_with(tmp_path, ("r1", RANDOM), ("r2", RANDOM), ("r3", RANDOM))
    with sqlite3.connect(db) as connection:  # a run of 4 stopped with one pair begun
        connection.execute("INSERT INTO runs (target, until_stable, started) VALUES (4, 0, 'x')")
        connection.execute(
            "INSERT INTO pairs (run, first, second, seed, scheduled) VALUES (1, 1, 2, '7', 'x')"
        )
    assert referee("league", "retire", str(db), "r2", cwd=tmp_path).returncode == 0
    done = referee("league", "run", str(db), "--sandbox", "off", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = recorded(db)
    assert len(rows) == 4 and all(pair != 1 for _, pair, _ in rows)  # r2's legs not played
    with sqlite3.connect(db) as connection:
        connection.execute("INSERT INTO runs (target, until_stable, started) VALUES (6, 0, 'x')")
    refused = referee("league", "run", str(db), "--matches", "2", cwd=tmp_path)
    assert refused.returncode == 2 and "--abandon" in refused.stderr
    ended = referee("league", "run", str(db), "--abandon", cwd=tmp_path)
    assert ended.returncode == 0 and "run 2 ended: 0 matches recorded, 6 not played" in ended.stderr
    again = referee("league", "run", str(db), "--abandon", cwd=tmp_path)
    assert again.returncode == 2 and "nothing to abandon" in again.stderr
