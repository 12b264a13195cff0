"""The league's database: only a league file opens, from no newer referee; an older schema is
migrated by a writer; one runner at a time; versions keep their history; a result is
recorded wholly or not at all."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from support.tournaments import result_line

from referee.errors import LeagueError
from referee.league.schema import APPLICATION_ID, SCHEMA_VERSION
from referee.league.store import League


def new_league(tmp_path: Path) -> League:
    return League.create(tmp_path / "l.db", seed=3, logs=Path("l-logs"), limits="{}")


def test_a_new_league_opens_again_in_wal_mode_with_its_settings(tmp_path: Path) -> None:
    new_league(tmp_path).close()
    with League.open(tmp_path / "l.db") as league:
        assert league.seed == 3 and league.logs == tmp_path / "l-logs"
        assert league.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert league.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_file_that_is_not_a_league_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"not a database at all" * 100)
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE t (x)")
    before = foreign.read_bytes()
    for path, words in ((corrupt, "not a league database"), (foreign, "another program")):
        with pytest.raises(LeagueError, match=words):
            League.open(path, write=True)
    assert foreign.read_bytes() == before and corrupt.read_bytes() == b"not a database at all" * 100
    with pytest.raises(LeagueError, match="league init"):
        League.open(tmp_path / "missing.db")


def test_a_newer_schema_is_refused_and_an_older_one_migrated_by_a_writer(tmp_path: Path) -> None:
    new_league(tmp_path).close()
    path = tmp_path / "l.db"
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(LeagueError, match="newer referee"):
        League.open(path, write=True)
    old = tmp_path / "old.db"
    with sqlite3.connect(old) as db:  # a league before its first migration
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    with pytest.raises(LeagueError, match="older schema"):
        League.open(old)
    League.open(old, write=True).close()
    with League.open(old) as league:
        assert league.entrants() == []


def test_one_runner_at_a_time_even_from_another_process(tmp_path: Path) -> None:
    new_league(tmp_path).close()
    path = tmp_path / "l.db"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from referee.league.store import League;"
            f" League.open(Path({str(path)!r}), write=True, runner=True);"
            " print('held', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(
            LeagueError, match=rf"another 'referee league run' \(pid {holder.pid}\)"
        ):
            League.open(path, write=True, runner=True)
        League.open(path).close()  # readers are never refused
        link = tmp_path / "link.db"
        link.symlink_to(path)
        with pytest.raises(LeagueError, match="another 'referee league run'"):
            League.open(link, write=True, runner=True)  # a link is the same league
    finally:
        holder.kill()
        holder.wait()
    League.open(path, write=True, runner=True).close()  # the kernel dropped the dead one's lock


def test_a_new_version_retires_the_last_and_both_keep_their_lines(tmp_path: Path) -> None:
    with new_league(tmp_path) as league:
        first, retired = league.add("bot", "run-v1")
        assert (first.label, retired) == ("bot@v1", [])
        second, retired = league.add("bot", "run-v2")
        assert (second.label, retired) == ("bot@v2", ["bot@v1"])
        with pytest.raises(LeagueError, match="already in the league"):
            league.add("bot", "again", "v2")
        assert [e.label for e in league.entrants(active_only=True)] == ["bot@v2"]
        assert [e.label for e in league.entrants()] == ["bot@v1", "bot@v2"]
        assert league.retire("bot") == ["bot@v2"]
        league.add("other", "run", "v2")
        assert league.add("other", "run")[0].version == "v3"  # the next free label
        with pytest.raises(LeagueError, match="no entrant nobody"):
            league.retire("nobody")


def test_a_result_moves_both_ratings_in_one_transaction_and_is_never_recorded_twice(
    tmp_path: Path,
) -> None:
    with new_league(tmp_path) as league:
        a, _ = league.add("a", "run-a")
        b, _ = league.add("b", "run-b")
        result = result_line(a.label, b.label, a.label, marks=(7, 2))
        league.record(result, a, b, None, "test")
        after_a, after_b = league.entrant(a.id), league.entrant(b.id)
        assert after_a.mu > a.mu > after_b.mu and after_a.sigma < a.sigma
        assert league.db.execute("SELECT count(*) FROM ratings").fetchone()[0] == 2
        with pytest.raises(LeagueError, match="already recorded"):
            league.record(result, a, b, None, "test")
        # The refused second recording changed nothing: no row, no rating.
        assert league.match_count() == 1
        assert league.entrant(a.id) == after_a and league.entrant(b.id) == after_b
        void = msgspec.structs.replace(result_line(a.label, b.label, None, seed=2), end="void")
        league.record(void, a, b, None, "test")
        assert league.entrant(a.id) == after_a  # a void match moves no rating


def test_a_league_file_without_its_tables_is_damaged_not_used(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    new_league(tmp_path).close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE ratings")
    with pytest.raises(LeagueError, match="damaged league database \\(no ratings table\\)"):
        League.open(path)
