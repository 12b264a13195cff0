"""What a bot writes on stderr that is not a fault: its lines counted, the error-like ones
(an exception's name, a traceback, a panic, a crash, a stack frame) kept with their counts,
the lines the referee's own settings cause left out — in the scan, ``referee match`` (table
and ``--json``), the results file and the tournament's end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.bot_commands import RANDOM_BOT, python
from support.processes import BOTS, referee

from referee.match.stderr import StderrSink
from referee.match.stderr_lines import StderrScan, StderrSummary, StderrTotals, error_like

CAUGHT = BOTS / "caught_error_bot.py"


@pytest.mark.parametrize(
    "line",
    [
        'Exception in thread "main" java.lang.NullPointerException: Cannot invoke "Tile.high()"',
        "\tat Bot.play(Bot.java:42)",
        "Traceback (most recent call last):",
        "KeyError: 'trump'",
        "thread 'main' panicked at src/main.rs:10:5:",
        "panic: runtime error: index out of range [3] with length 3",
        "Segmentation fault (core dumped)",
        "    at play (/home/me/bot/bot.js:12:5)",
        "TypeError: Cannot read properties of undefined (reading 'suit')",
        "terminate called after throwing an instance of 'std::out_of_range'",
        "error: could not read the hand",
        "Error: the hand holds 8 tiles",
        "fatal error: all goroutines are asleep - deadlock!",
        "bot: bot.c:31: main: Assertion `count > 0' failed.",
    ],
)
def test_error_shapes_of_every_language_are_error_like(line: str) -> None:
    assert error_like(line)


@pytest.mark.parametrize(
    "line",
    [
        "thinking about act 12",
        "bid 31 with 4 trumps; error rate 0.02",
        "no errors so far",
        "Picked up JAVA_TOOL_OPTIONS: -Xss1m",
        "Failed to persist telemetry device ID; using an in-memory identifier",
        "[referee: stderr capped at 1048576 bytes; 12 more bytes dropped]",
    ],
)
def test_ordinary_lines_and_the_referees_own_are_not(line: str) -> None:
    assert not error_like(line)


def test_the_scan_counts_lines_and_keeps_the_error_like_by_frequency() -> None:
    scan = StderrScan()
    for number in range(3):
        scan.feed(b"log line\nValueError: bad tile at 0x7ffd1234abcd\n")
        scan.feed(f"java.lang.IllegalStateException: hand {number}\n".encode())
    scan.feed(b"Segmentation fau")  # a line written in two pieces, the last unfinished
    scan.feed(b"lt")
    summary = scan.summary()
    assert summary.lines == 10
    assert summary.error_lines == 7
    assert next(iter(summary.errors.items())) == ("ValueError: bad tile at 0x…", 3)
    assert summary.errors["Segmentation fault"] == 1
    assert summary.errors["java.lang.IllegalStateException: hand 2"] == 1


def test_a_line_longer_than_the_scan_holds_is_read_once_and_counted_once() -> None:
    scan = StderrScan()
    for _ in range(20):  # one line written in 20 pieces, each past the held bytes
        scan.feed(b"ValueError: " + b"x" * 5000)
    scan.feed(b"\nKeyError: 'trump'\n")
    summary = scan.summary()
    assert (summary.lines, summary.error_lines) == (2, 2)
    assert summary.errors["KeyError: 'trump'"] == 1


def test_lines_past_the_copys_bound_are_counted_not_read(tmp_path: Path) -> None:
    sink = StderrSink(tmp_path / "bot.stderr", limit=40)
    sink.write(b"Traceback (most recent call last):\n")  # 35 bytes, inside the copy
    sink.write(b"RuntimeError: past the bound\n" * 5)
    summary = sink.scan.summary()
    assert summary.lines == 6
    assert summary.error_lines == 1  # only what the copy keeps is read for shapes


def test_totals_over_matches_count_matches_lines_and_errors() -> None:
    totals = StderrTotals()
    first = StderrSummary(lines=4, error_lines=2, errors={"KeyError: 'trump'": 2})
    second = StderrSummary(lines=1)
    totals.add([first, second])  # one match, both seats of the partnership
    totals.add([])  # a match in which it wrote nothing
    totals.add([StderrSummary(lines=2, error_lines=1, errors={"KeyError: 'trump'": 1})])
    assert (totals.matches, totals.error_matches, totals.lines, totals.error_lines) == (
        2, 2, 7, 3,
    )  # fmt: skip
    assert totals.most_frequent() == [("KeyError: 'trump'", 3)]
    framed = StderrTotals()  # a traceback's first line, written first, after its error
    framed.add([StderrSummary(lines=4, error_lines=4, errors={"Traceback (most": 2, "E: x": 2})])
    assert framed.most_frequent() == [("E: x", 2), ("Traceback (most", 2)]
    assert (first + second).lines == 5


def test_a_match_says_what_a_bot_wrote_without_a_fault(tmp_path: Path) -> None:
    caught = python(CAUGHT, "--every", "4", "--chatter", "1")
    log = tmp_path / "logs" / "m.jsonl"
    run = referee("match", caught, RANDOM_BOT, "--seed", "5", "--log", str(log), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "seat A's bot wrote error-like lines on stderr (no fault):" in run.stdout
    assert "KeyError: 'trump'" in run.stdout and "Picked up" not in run.stdout.split("stderr")[-1]
    log = tmp_path / "logs" / "j.jsonl"
    run = referee(
        "match", caught, RANDOM_BOT, "--seed", "5", "--log", str(log), "--json", cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    outcome = json.loads(run.stdout)
    assert set(outcome["stderr"]) == {"A", "C"}  # the random bot wrote nothing
    for seat in "AC":
        stderr = outcome["stderr"][seat]
        copy = (log.parent / f"j.jsonl.{seat}.stderr").read_text().splitlines()
        assert stderr["lines"] == len(copy)
        tracebacks = copy.count("Traceback (most recent call last):")
        assert tracebacks > 0 and stderr["errors"]["KeyError: 'trump'"] == tracebacks
        assert not any(line.startswith("Picked up") for line in stderr["errors"])
    assert outcome["failures"] == {}


def test_a_tournament_ends_with_each_entrants_stderr(tmp_path: Path) -> None:
    caught = python(CAUGHT, "--every", "6")
    run = referee(
        "tournament", "--bot", f"caught={caught}", "--bot", f"random={RANDOM_BOT}",
        "--seeds", "2", "--jobs", "2", "--results", "r.jsonl", "--json",
        cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    document = json.loads(run.stdout)
    assert set(document["stderr"]) == {"caught"}
    caught_stderr = document["stderr"]["caught"]
    assert caught_stderr["matches"] == caught_stderr["error_matches"] == 4
    assert caught_stderr["errors"]["KeyError: 'trump'"] > 0
    lines = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert all(set(line["stderr"]) in ({"A", "C"}, {"B", "D"}) for line in lines[1:])
    table = referee(
        "tournament", "--bot", f"caught={caught}", "--bot", f"random={RANDOM_BOT}",
        "--seeds", "1", "--results", "t.jsonl", "--logs", "t-logs",
        cwd=tmp_path,
    )  # fmt: skip
    assert table.returncode == 0, table.stderr
    assert "What bots wrote on stderr (not faults)" in table.stdout
    assert "KeyError: 'trump'" in table.stdout
    report = referee("report", "r.jsonl", "report.html", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "report.html").read_text()
    assert 'data-table="stderr"' in page and "KeyError: &#39;trump&#39;" in page


def test_a_league_shows_each_versions_stderr(tmp_path: Path) -> None:
    db = tmp_path / "league.db"
    for args in (
        ("init", str(db), "--seed", "3", "--max-hands", "3"),
        ("add", str(db), "caught", python(CAUGHT, "--every", "3")),
        ("add", str(db), "random", RANDOM_BOT),
        ("run", str(db), "--matches", "2"),
    ):
        done = referee("league", *args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    table = json.loads(referee("league", "standings", str(db), "--json", cwd=tmp_path).stdout)
    assert set(table["stderr"]) == {"caught@v1"}
    assert table["stderr"]["caught@v1"]["matches"] == 2
    assert table["stderr"]["caught@v1"]["errors"]["KeyError: 'trump'"] > 0
    shown = referee("league", "standings", str(db), cwd=tmp_path).stdout
    assert "What bots wrote on stderr (not faults)" in shown and "KeyError: 'trump'" in shown
    done = referee("league", "report", str(db), "league.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "league.html").read_text()
    assert '<section id="stderr">' in page and "KeyError: &#39;trump&#39;" in page


def test_check_bot_passes_a_bot_that_caught_its_errors_and_warns(tmp_path: Path) -> None:
    caught = python(CAUGHT, "--every", "7")
    done = referee("check-bot", caught, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "OK: every check passed"
    warning = next(index for index, line in enumerate(lines) if line.startswith("warning:"))
    assert "error-like lines on stderr" in lines[warning]
    assert {lines[warning + 1].split(") ", 1)[1], lines[warning + 2].split(") ", 1)[1]} == {
        "KeyError: 'trump'", "Traceback (most recent call last):",
    }  # fmt: skip
    quiet = referee("check-bot", RANDOM_BOT, "--matches", "1", cwd=tmp_path)
    assert quiet.returncode == 0 and "warning:" not in quiet.stdout
