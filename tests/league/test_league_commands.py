"""The league's other commands as a user runs them: import a tournament, standings and
history (text and JSON), the report with its viewer pages, verify; and every usage mistake
one line with exit status 2, nothing recorded changed."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from support.processes import referee
from support.tournaments import RANDOM

from referee.league.schema import SCHEMA_VERSION


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A league with a tournament imported and a run of its own: r1 and r2 came from the
    tournament, r3 was added, and r2 has a second version."""
    tmp = tmp_path_factory.mktemp("league")
    tournament = referee(
        "tournament",
        *("--bot", f"r1={RANDOM}", "--bot", f"r2={RANDOM}", "--seeds", "2", "--seed", "4"),
        *("--max-hands", "3", "--sandbox", "off", "--results", "t/results.jsonl"),
        cwd=tmp,
    )
    assert tournament.returncode == 0, tournament.stderr
    db = tmp / "league.db"
    for args in (
        ("init", str(db), "--seed", "1", "--max-hands", "3"),
        ("add", str(db), "r1", RANDOM),
        ("import", str(db), "t/results.jsonl"),
        ("add", str(db), "r3", RANDOM),
        ("add", str(db), "r2", RANDOM + " ", "--version", "fast"),
        ("run", str(db), "--matches", "6", "--sandbox", "off"),
    ):
        done = referee("league", *args, cwd=tmp)
        assert done.returncode == 0, (args, done.stderr)
    return db


def test_an_import_counts_a_tournament_once(played: Path) -> None:
    with sqlite3.connect(played) as db:
        imported = db.execute("SELECT count(*) FROM matches WHERE source LIKE 'import:%'")
        assert imported.fetchone()[0] == 4
        versions = db.execute("SELECT name, version, retired IS NULL FROM entrants").fetchall()
    # r1's command was the league's own: its version; r2 came in new, then was replaced.
    assert ("r1", "v1", 1) in versions and ("r2", "fast", 1) in versions
    assert any(
        name == "r2" and version.startswith("t") and not active
        for name, version, active in versions
    )
    again = referee("league", "import", str(played), "t/results.jsonl", cwd=played.parent)
    assert again.returncode == 0 and "imported 0 matches" in again.stdout
    assert "(4 were already recorded)" in again.stdout


def test_standings_and_history_in_text_and_json(played: Path) -> None:
    text = referee("league", "standings", str(played), cwd=played.parent)
    assert (
        text.returncode == 0
        and "Standings (10 matches recorded; ordered by rating μ - 3σ)" in text.stdout
    )
    assert "Head to head" in text.stdout and "retired" in text.stdout
    data = json.loads(
        referee("league", "standings", str(played), "--json", cwd=played.parent).stdout
    )
    assert data["recorded"] == 10
    assert sum(row["matches"] for row in data["standings"]) == 20
    active = json.loads(
        referee("league", "standings", str(played), "--json", "--active", cwd=played.parent).stdout
    )
    assert all(row["active"] for row in active["standings"])
    history = json.loads(
        referee("league", "history", str(played), "r2", "--json", cwd=played.parent).stdout
    )
    assert set(history) == {label for label in history if label.startswith("r2@")}
    assert len(history) == 2 and sum(len(points) for points in history.values()) >= 4
    shown = referee("league", "history", str(played), "r2", cwd=played.parent)
    assert shown.returncode == 0 and "matches rated" in shown.stdout
    missing = referee("league", "history", str(played), "nobody", cwd=played.parent)
    assert missing.returncode == 2 and "no entrant 'nobody'" in missing.stderr


def test_the_report_links_each_listed_match_to_its_viewer_page(played: Path) -> None:
    out = played.parent / "page" / "league.html"
    out.parent.mkdir()
    done = referee("league", "report", str(played), str(out), cwd=played.parent)
    assert done.returncode == 0, done.stderr
    assert "10 matches, the last 10 listed (10 viewer pages)" in done.stdout
    page = out.read_text()
    assert page.count(">watch</a>") == 10 and "Ratings over time" in page
    assert "<polyline" in page and "r2@fast" in page
    # Each version has one colour in every chart: the win rates, the ratings, the times.
    charts = {
        kind: dict(re.findall(r'data-name="([^"]+)".*?(?:stroke|fill)="(#[0-9A-Fa-f]{6})"', svg))
        for kind, svg in re.findall(r'<svg class="plot (\w+)"(.*?)</svg>', page, re.S)
    }
    assert set(charts) == {"intervals", "lines", "times"}
    labels = set(charts["lines"])
    assert {"r1@v1", "r2@fast", "r3@v1"} <= labels
    for kind, drawn in charts.items():
        for label, colour in drawn.items():
            assert colour == charts["lines"][label], f"{label} in {kind}"
    assert len(set(charts["lines"].values())) == len(labels)


def test_verify_finds_a_missing_and_a_changed_log(played: Path, tmp_path: Path) -> None:
    ok = referee("league", "verify", str(played), cwd=played.parent)
    assert ok.returncode == 0 and "10 of 10 logs verified" in ok.stdout
    with sqlite3.connect(played) as db:
        logs = [Path(row[0]) for row in db.execute("SELECT log FROM matches ORDER BY id LIMIT 2")]
    gone = tmp_path / "gone"
    logs[0].rename(gone)
    changed = logs[1].read_bytes()
    logs[1].write_bytes(b"".join(changed.splitlines(keepends=True)[:-1]))  # its end cut
    try:
        bad = referee("league", "verify", str(played), "--json", cwd=played.parent)
        assert bad.returncode == 1
        problems = json.loads(bad.stdout)["problems"]
        assert [p["problem"] for p in problems][:1] == ["the log is missing"]
        assert len(problems) == 2 and "digest" in problems[1]["problem"]
    finally:
        gone.rename(logs[0])
        logs[1].write_bytes(changed)


def one_line_usage_error(done: object) -> str:
    assert done.returncode == 2
    stderr = done.stderr
    assert stderr.count("\n") == 1 and stderr.startswith("referee: "), stderr
    return str(stderr)


def test_usage_mistakes_are_one_line_and_change_nothing(played: Path, tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"x" * 4096)
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE t (x)")
    newer = tmp_path / "newer.db"
    newer.write_bytes(played.read_bytes())
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    before = played.read_bytes()
    cases = [
        (("standings", str(corrupt)), "not a league database"),
        (("add", str(foreign), "x", RANDOM), "another program's SQLite file"),
        (("standings", str(newer)), "newer referee"),
        (("standings", str(tmp_path / "none.db")), "referee league init"),
        (("init", str(played)), "already exists"),
        (("add", str(played), "bad name", RANDOM), "use 1-40 letters"),
        (("add", str(played), "x", "no-such-program --go"), "not a program on PATH"),
        (("add", str(played), "r3", RANDOM, "--version", "v1"), "already in the league"),
        (("import", str(played), str(tmp_path / "none.jsonl")), "none.jsonl"),
        (("retire", str(played), "nobody"), "no entrant nobody"),
        (("init", str(tmp_path / "n.db"), "--logs", str(corrupt)), "a file, not a folder"),
    ]
    for args, words in cases:
        done = referee("league", *args, cwd=played.parent)
        assert words in one_line_usage_error(done), (args, done.stderr)
    assert played.read_bytes() == before


def test_an_import_with_a_log_missing_records_nothing(played: Path, tmp_path: Path) -> None:
    results = played.parent / "t" / "results.jsonl"
    copy = tmp_path / "t" / "results.jsonl"
    copy.parent.mkdir()
    copy.write_bytes(results.read_bytes().replace(b'"log":"', b'"log":"/gone', 1))
    fresh = tmp_path / "fresh.db"
    assert referee("league", "init", str(fresh), cwd=tmp_path).returncode == 0
    done = referee("league", "import", str(fresh), str(copy), cwd=tmp_path)
    message = one_line_usage_error(done)
    assert "log" in message and "import needs every log" in message
    with sqlite3.connect(fresh) as db:
        assert db.execute("SELECT count(*) FROM matches").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM entrants").fetchone()[0] == 0


def test_a_results_line_of_an_entrant_its_header_does_not_list_is_refused(
    played: Path, tmp_path: Path
) -> None:
    results = (played.parent / "t" / "results.jsonl").read_bytes()
    copy = tmp_path / "t" / "results.jsonl"
    copy.parent.mkdir()
    copy.write_bytes(results.replace(b'"first":"r1"', b'"first":"ghost"', 1))
    fresh = tmp_path / "fresh.db"
    assert referee("league", "init", str(fresh), cwd=tmp_path).returncode == 0
    done = referee("league", "import", str(fresh), str(copy), cwd=tmp_path)
    assert "names 'ghost'" in one_line_usage_error(done)


def test_the_report_finds_the_logs_from_another_folder(played: Path, tmp_path: Path) -> None:
    out = tmp_path / "league.html"
    done = referee("league", "report", str(played), str(out), cwd=tmp_path)
    assert done.returncode == 0 and "(10 viewer pages)" in done.stdout
