"""check-bot plays the bot in every seat: a real match in each of A, B, C and D, and for a
bot that says ``"matches": "many"`` one process through a match in each; the report says,
seat by seat, what failed."""

from __future__ import annotations

from pathlib import Path

import msgspec
import trio
from support.bot_commands import python
from support.processes import BOTS

from referee.checkbot import CheckReport, check_bot, report_lines
from referee.checkbot.advice import ADVICE
from referee.checkbot.matches import seat_matches
from referee.checkbot.results import SPECS
from referee.checkbot.seeds import seed_of
from referee.checkbot.session import Findings
from referee.checkbot.steps import Context, converse
from referee.rules import SEATS
from referee.sandbox.policy import plan
from referee.settings import MatchLimits, SandboxSettings


def by_seat(report: CheckReport, name: str) -> dict[str, str]:
    check = next(check for check in report.checks if check.name == name)
    return {seat.seat: seat.status for seat in check.seats}


def detail(report: CheckReport, name: str) -> list[str]:
    return next(check.detail for check in report.checks if check.name == name).split("\n")


def test_a_bot_that_crashes_in_c_and_d_fails_the_match_in_those_seats() -> None:
    # Its scripted conversations are all in seat A, where it plays well: before check-bot
    # played every seat, this bot passed every check and forfeited its first match from C.
    report = check_bot(python(BOTS / "seat_crash_bot.py"), diagnose=False)
    failed = {check.name for check in report.checks if check.status == "failed"}
    assert not report.ok and failed == {"match"}, "\n".join(report_lines(report))
    match = next(check for check in report.checks if check.name == "match")
    outcomes = [(seat.seat, seat.status) for seat in match.seats]
    assert outcomes == [("A", "passed"), ("B", "passed"), ("C", "failed"), ("D", "failed")] * 2
    head, *matches = detail(report, "match")
    assert head == "failed in matches 3, 4, 7 and 8 (seats C and D; passed in 4 others)"
    for line, number in zip(matches, range(1, 9), strict=True):
        seat = "ABCD"[(number - 1) % 4]
        assert line.startswith(f"match {number} (seat {seat}, seed {seed_of(number - 1)}): ")
        if seat in "CD":
            assert f"faults of seat {seat}: crashed x1" in line
            assert f"no strategy for seat {seat}" in line  # the end of its stderr
    assert match.fix.split("\n") == [ADVICE["crashed"], SPECS["match"].fix]
    assert report_lines(report)[-1] == "NOT OK: failed match (in seats C and D)"
    # the JSON report carries the seats too
    again = msgspec.json.decode(msgspec.json.encode(report), type=CheckReport)
    assert again == report


def test_a_many_bot_that_crashes_in_c_fails_the_matches_check_in_seat_c() -> None:
    report = check_bot(python(BOTS / "seat_crash_bot.py", "--many"))
    statuses = {check.name: check.status for check in report.checks}
    assert statuses["matches"] == "failed" and statuses["match"] == "skipped"
    assert [name for name, status in statuses.items() if status == "failed"] == ["matches"]
    assert by_seat(report, "matches") == {
        "A": "passed",
        "B": "passed",
        "C": "failed",
        "D": "skipped",  # a tournament would not keep the process after a fault
    }
    head, a, b, c, d = detail(report, "matches")
    assert head == "failed in seat C (passed in A and B; not played in D)"
    assert a.startswith("seat A: match 1 (seed 1): ") and b.startswith("seat B: match 2 (seed 2)")
    assert c.startswith("seat C: match 3 (seed 3): faults of seat C: crashed x1")
    assert d == "seat D: not played: match 3 (seat C) failed"
    assert report_lines(report)[-1].startswith("NOT OK: failed matches (in seat C); skipped ")


def test_one_process_of_a_many_bot_answers_in_every_seat(tmp_path: Path) -> None:
    """The matches check at a lower level, unsandboxed so the bot can record its pid: one
    process, four hellos, a match in each seat."""
    pids = tmp_path / "pids"
    pids.mkdir()
    command = python(BOTS / "many_bot.py", "--pid-dir", str(pids))
    settings = MatchLimits().for_seed(7)
    sandbox = plan(SandboxSettings(mode="off"), settings, dict.fromkeys(SEATS, command))
    findings = Findings()
    verdict = trio.run(
        converse, Context(command, sandbox, settings, findings), seat_matches, "matches"
    )
    assert verdict.status == "passed", verdict.detail
    assert [(seat.seat, seat.status) for seat in verdict.seats] == [(s, "passed") for s in SEATS]
    head, *seats = verdict.detail.split("\n")
    assert head.startswith(
        'ready said "many": one process played seats A, B, C and D, a match each after its'
        " own hello, no fault; it exited "
    )
    assert seats == [
        line
        for line in seats
        for number, seat in enumerate(SEATS, start=1)
        if line.startswith(f"seat {seat}: match {number} (seed {6 + number}): ")
    ]
    assert len(list(pids.glob("bot-*"))) == 1  # one process played them all
    assert findings.decisions and not findings.junk and not findings.late
