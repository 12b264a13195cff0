"""check-bot run as a user runs it, under a competition's conditions: its opponents
(``--opponent``), how many matches (``--matches``) and the limits, which reach the bot."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
from support.bot_commands import RANDOM_BOT, python
from support.processes import BOTS, referee

from referee.checkbot import check_bot, report_lines
from referee.checkbot.advice import ADVICE
from referee.checkbot.seeds import seed_of
from referee.cli.exits import FAILED, OK, USAGE
from referee.settings import MatchLimits


def test_opponents_and_matches_are_the_ones_given(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    opponent = python(BOTS / "many_bot.py", "--pid-dir", str(pids))
    done = referee(
        "check-bot", RANDOM_BOT, "--matches", "2", "--opponent", opponent, "--json",
        "--sandbox", "off", "--no-diagnose", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == OK, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["matches"] == 2 and report["opponents"] == [opponent]
    match = next(check for check in report["checks"] if check["name"] == "match")
    assert [(s["match"], s["seat"], s["seed"]) for s in match["seats"]] == [
        (1, "A", seed_of(0)),
        (2, "B", seed_of(1)),
    ]
    assert len(list(pids.glob("bot-*"))) == 6  # three seats of each match: a process each
    assert {s["name"] for s in report["situations"]} >= {"trump_led_low_half", "refusal"}


def test_a_missing_opponent_is_a_usage_mistake(tmp_path: Path) -> None:
    done = referee("check-bot", RANDOM_BOT, "--opponent", "python3 nowhere_bot.py", cwd=tmp_path)
    assert done.returncode == USAGE
    assert done.stderr.strip().splitlines() == [
        f"referee: --opponent: nowhere_bot.py: no such file (bot command 'python3"
        f" nowhere_bot.py', from {tmp_path})"
    ]
    zero = referee("check-bot", RANDOM_BOT, "--matches", "0", cwd=tmp_path)
    assert zero.returncode == USAGE and "--matches" in zero.stderr


def test_an_opponent_named_as_a_bundled_bot_is_its_command(tmp_path: Path) -> None:
    done = referee(
        "check-bot", RANDOM_BOT, "--matches", "1", "--opponent", "bundled:random", "--json",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["opponents"] == [RANDOM_BOT]  # the command, not the name
    unknown = referee("check-bot", RANDOM_BOT, "--opponent", "bundled:nobody", cwd=tmp_path)
    assert unknown.returncode == USAGE
    assert unknown.stderr.startswith("referee: --opponent: bundled:nobody: no such bundled bot")


def test_the_memory_limit_reaches_the_bot_in_its_matches() -> None:
    # 128 MiB taken in hand 4, which no scripted conversation reaches: under a competition's
    # 64 MiB the match says memory_limit, and the fix says what to do about it.
    command = python(BOTS / "hand_four_bot.py", "--memory", "128")
    limits = MatchLimits(memory_mb=64, move_timeout=10.0)  # time to take it, on a loaded machine
    report = check_bot(command, limits=limits, matches=1, diagnose=False)
    text = "\n".join(report_lines(report))
    match = next(check for check in report.checks if check.name == "match")
    assert match.status == "failed", text
    assert [seat.faults for seat in match.seats] == [["memory_limit"]], text
    assert match.fix.split("\n")[0] == ADVICE["memory_limit"]
    # the same bot, the default memory limit
    roomy = msgspec.structs.replace(limits, memory_mb=1024)
    report = check_bot(command, limits=roomy, matches=1, diagnose=False)
    assert report.ok, "\n".join(report_lines(report))


def test_a_failing_bot_exits_1_with_the_fix_as_lines(tmp_path: Path) -> None:
    command = python(BOTS / "hand_four_bot.py", "--crash")
    done = referee("check-bot", command, "--matches", "1", "--no-diagnose", cwd=tmp_path)
    assert done.returncode == FAILED, done.stdout + done.stderr
    assert "\\n" not in done.stdout  # a cell of several lines shows them as lines
    assert "IndexError in hand 4" in done.stdout  # its stderr, under the table
    assert "again (match 1, seat A): referee match --seed" in done.stdout
    assert "not exercised:" in done.stdout  # it forfeited in hand 4: much never came up
