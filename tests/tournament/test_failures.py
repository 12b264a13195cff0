"""Why entrants' bots failed, where the standings are: each kind of fault of each entrant
once, with its first match, seat and the end of that bot's stderr; told as it first happens,
kept in every results line, and in ``--json``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
from support.bot_commands import RANDOM_BOT, python
from support.processes import BOTS, referee
from support.tournaments import result_line

from referee.match.outcome import BotFailure
from referee.match.stderr import StderrTail
from referee.record.sandbox import SandboxReport
from referee.running.failures import failure_kinds, new_failures, only_first_tails
from referee.running.results import read_results


def _failed(result_args: dict[str, object], seat: str, reason: str) -> object:
    line = result_line(**result_args)  # type: ignore[arg-type]
    failure = BotFailure(reason, f"{reason} detail", StderrTail(f"{seat}.stderr", ["boom"], 1))
    sandbox = SandboxReport(mode="auto", seats={s: ["seccomp"] for s in "ABCD"})
    return msgspec.structs.replace(line, failures={seat: failure}, sandbox=sandbox)


def test_each_entrant_and_reason_once_with_its_first_match_and_count() -> None:
    results = [
        _failed({"first": "a", "second": "b", "winner": "b", "seed": 1}, "A", "crashed"),
        _failed({"first": "b", "second": "a", "winner": "b", "seed": 1, "leg": 2}, "B", "crashed"),
        _failed({"first": "a", "second": "b", "winner": "b", "seed": 2}, "D", "timeout"),
    ]
    kinds = failure_kinds(results, {"a": "run-a", "b": "run-b"})  # type: ignore[arg-type]
    assert [(k.entrant, k.reason, k.matches, k.match_id, k.seat) for k in kinds] == [
        ("a", "crashed", 2, "a~b~s1~1", "A"),
        ("b", "timeout", 1, "a~b~s2~1", "D"),
    ]
    assert kinds[0].command == "run-a" and kinds[0].sandboxed
    assert kinds[0].first.stderr.path == "A.stderr"


def test_only_the_first_failure_of_a_kind_keeps_its_lines() -> None:
    result = _failed({"first": "a", "second": "b", "winner": "b"}, "C", "crashed")
    assert only_first_tails(result, {"C"}) is result  # type: ignore[arg-type]
    slim = only_first_tails(result, set())  # type: ignore[arg-type]
    assert slim.failures["C"].stderr == StderrTail("C.stderr", [], 1)
    assert slim.failures["C"].detail == "crashed detail"


def test_a_kind_is_new_only_once() -> None:
    seen: set[tuple[str, str]] = set()
    first = _failed({"first": "a", "second": "b", "winner": "b"}, "C", "crashed")
    assert new_failures(first, seen) == [("C", "a")]  # type: ignore[arg-type]
    assert new_failures(first, seen) == []  # type: ignore[arg-type]


def test_a_tournament_says_why_a_bot_failed(tmp_path: Path) -> None:
    crashy = python(BOTS / "needy_bot.py", "--crash-at", "2", "--lines", "30")
    results = tmp_path / "out" / "results.jsonl"
    args = ["--bot", f"crashy={crashy}", "--bot", f"random={RANDOM_BOT}", "--seeds", "1"]
    args += ["--jobs", "1", "--sandbox", "off", "--results", str(results)]
    run = referee("tournament", *args, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    # Which of its seats asks its second act first depends on the deals (a random seed).
    told = re.search(r"crashy failed in crashy~random~s0~1 \(seat ([AC])\): crashed:", run.stderr)
    assert told is not None, run.stderr
    seat = told[1]
    assert "Why bots failed" in run.stdout
    assert f"crashy in crashy~random~s0~1 (seat {seat}) failed: crashed" in run.stdout
    copy = results.parent / "logs" / f"crashy~random~s0~1.jsonl.{seat}.stderr"
    assert f"its stderr, the last 20 of 32 lines (all of it in {copy}):" in run.stdout
    assert "│ thread 'main' panicked at src/main.rs:12:5:" in run.stdout
    assert "check-bot" not in run.stdout  # no sandbox, no advice about it
    _, lines = read_results(results)
    assert all(set(line.failures) <= {"A", "C"} for line in lines if line.first == "crashy")
    assert all(set(line.failures) <= {"B", "D"} for line in lines if line.second == "crashy")
    tails = [failure.stderr for line in lines for failure in line.failures.values()]
    assert len(tails) == 2 and all(tail.total == 32 and tail.path for tail in tails)
    assert sorted(len(tail.lines) for tail in tails) == [0, 20]  # only the first kept its lines
    document = referee("tournament", *args, "--resume", "--json", cwd=tmp_path)
    failures = json.loads(document.stdout)["failures"]
    assert [(f["entrant"], f["reason"], f["matches"]) for f in failures] == [
        ("crashy", "crashed", 2)
    ]
    assert failures[0]["first"]["stderr"]["lines"][-1].startswith("note: run with")
