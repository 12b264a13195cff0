"""check-bot: the bundled bots pass every check; each broken bot fails exactly its own."""

from __future__ import annotations

import shlex
import shutil
import time

import msgspec
import pytest
from support.bot_commands import HEURISTIC_BOT, RANDOM_BOT, python
from support.processes import BOTS

from referee.checkbot import CHECKS, CheckReport, check_bot, report_lines, summary_lines
from referee.checkbot import script as scripts
from referee.checkbot.conversations import CONVERSATIONS
from referee.checkbot.results import SPECS
from referee.checkbot.seeds import DEFAULT_MATCHES, seat_of
from referee.match.runner import BUNDLED_BOTS
from referee.rules import SEATS, HandEnded, Play
from referee.settings import MatchLimits, MatchSettings
from referee.stats import percentile
from referee.wire.messages import RefereeMessage, encode_line

NAMES = [spec.name for spec in CHECKS]


def statuses(report: CheckReport, status: str) -> set[str]:
    return {check.name for check in report.checks if check.status == status}


def timed(command: str, **options: object) -> CheckReport:
    began = time.monotonic()
    report = check_bot(command, **options)  # type: ignore[arg-type]
    print(f"check-bot {command}: {time.monotonic() - began:.2f} s")  # shown with -s / -rA
    return report


EXAMPLES = [
    pytest.param(RANDOM_BOT, id="random_bot.py"),
    pytest.param(HEURISTIC_BOT, id="heuristic_bot.py"),
    pytest.param(
        shlex.join(["node", str(BUNDLED_BOTS / "random_bot.js")]),
        id="random_bot.js",
        marks=pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed"),
    ),
]


@pytest.mark.parametrize("command", EXAMPLES)
def test_example_bots_pass_every_check(command: str) -> None:
    report = timed(command)
    assert report.ok, "\n".join(report_lines(report))
    assert [check.name for check in report.checks] == NAMES
    assert all(check.status == "passed" and not check.fix for check in report.checks)
    assert report.name and report.startup_ms is not None and report.startup_ms > 0
    times = report.decisions
    assert times.count > 30  # the scripted decisions and the bot's seat in the match
    assert times.median_ms is not None and times.p99_ms is not None and times.max_ms is not None
    assert 0 < times.median_ms <= times.p99_ms <= times.max_ms
    # the whole matches: the match check's in seats A to D in turn, and in one process
    played = {"match": [seat_of(n) for n in range(DEFAULT_MATCHES)], "matches": list(SEATS)}
    for check in report.checks:
        seats = [seat.seat for seat in check.seats if seat.status == "passed"]
        assert seats == played.get(check.name, []), check
    assert report.seconds < 60  # issue 30's bound for the default run, on 2 cores


QUICK = MatchLimits(startup_timeout=1.0)

BROKEN = [
    # (bot and its arguments, the one check it fails, limits)
    pytest.param(["silent_bot.py"], "startup", QUICK, id="never-answers-hello"),
    pytest.param(["old_id_bot.py"], "rejected", None, id="old-id-after-rejected"),
    pytest.param(["strict_fields_bot.py"], "unknown_fields", None, id="dies-on-unknown-field"),
    pytest.param(["no_exit_bot.py"], "exit", None, id="does-not-exit"),
    pytest.param(["many_exit_bot.py"], "matches", None, id="says-many-but-exits"),
    pytest.param(["junk_stdout_bot.py"], "stdout", None, id="junk-on-stdout"),
    pytest.param(["unflushed_bot.py"], "flush", QUICK, id="does-not-flush"),
    pytest.param(["no_follow_bot.py"], "playing", None, id="does-not-follow-suit"),
    pytest.param(["pretty_bot.py"], "single_line", None, id="multi-line-json"),
    pytest.param(
        ["sleepy_bot.py", "--sleep", "0.15"],
        "move_time",
        MatchLimits(move_timeout=0.1),
        id="slower-than-the-move-time",
    ),
]


@pytest.mark.parametrize(("bot", "fault", "limits"), BROKEN)
def test_a_broken_bot_fails_exactly_its_check(
    bot: list[str], fault: str, limits: MatchLimits | None
) -> None:
    report = timed(python(BOTS / bot[0], *bot[1:]), limits=limits)
    text = "\n".join(report_lines(report))
    assert not report.ok
    assert statuses(report, "failed") == {fault}, text
    failed = next(check for check in report.checks if check.name == fault)
    assert failed.detail and failed.fix and "PROTOCOL.md" in failed.fix
    assert statuses(report, "skipped") >= {"match"}  # only a bot that passes the rest plays it
    seats = [seat.seat for seat in failed.seats if seat.status == "failed"]  # matches: one
    named = f"{fault} (in seat {seats[0]})" if seats else fault
    assert text.endswith(f"NOT OK: failed {named}; skipped " + ", ".join(
        name for name in NAMES if name in statuses(report, "skipped")
    ))  # fmt: skip


def test_what_a_failed_check_says() -> None:
    report = check_bot(python(BOTS / "strict_fields_bot.py"), match=False)
    detail = {check.name: check.detail for check in report.checks}
    assert detail["unknown_fields"].startswith(
        "act 3 (playing): exited with status 1; stderr ends:"
    )
    assert "unknown field in act" in detail["unknown_fields"]
    report = check_bot(python(BOTS / "old_id_bot.py"), match=False)
    rejected = next(check for check in report.checks if check.name == "rejected")
    assert '"id": 5' in rejected.detail and rejected.detail.endswith("the old id 5 again")
    assert '(PROTOCOL.md: "rejected")' in rejected.fix


def test_the_report_is_json() -> None:
    report = check_bot(RANDOM_BOT, match=False)
    again = msgspec.json.decode(msgspec.json.encode(report), type=CheckReport)
    assert again == report
    # --no-match: no whole match (nor the two a "many" bot plays), and no failure
    assert report.ok and statuses(report, "skipped") == {"matches", "match"}
    lines = report_lines(report, width=100)
    table = lines[: -len(summary_lines(report))]
    assert all(len(line) <= 100 for line in table)
    assert all(any(name in line for line in lines) for name in NAMES)


# -- the scripted states are real, and the messages valid -----------------------------------


def test_every_check_that_runs_has_its_spec() -> None:
    """Each check ``check_bot`` gives a verdict for has a title and a fix, and no spec is left
    without a check (a missing one would fail only when a report is built)."""
    runs = {"startup", *CONVERSATIONS, "matches", "single_line", "flush", "move_time", "stdout"}
    assert set(SPECS) == runs | {"match"}
    assert len(SPECS) == len(CHECKS)  # no name twice


def test_scripted_states_reach_the_phase_each_check_names() -> None:
    assert scripts.bidding().hand.phase == "bidding"
    assert scripts.declaring().hand.legal_actions() == [
        action for action in scripts.declaring().hand.legal_actions() if action.piles is None
    ]
    assert all(action.piles in (1, 2) for action in scripts.all_tricks().hand.legal_actions())
    play = scripts.playing()
    assert play.hand.phase == "playing" and play.hand.turn == scripts.SEAT
    assert Play(play.hand.hands[scripts.SEAT][0]) not in play.hand.legal_actions()  # must follow
    last = scripts.last_play()
    for action in last.hand.legal_actions():
        assert type(last.hand.clone().apply(scripts.SEAT, action)[-1]) is HandEnded


def test_scripted_messages_are_valid_referee_messages() -> None:
    decoder = msgspec.json.Decoder(RefereeMessage)
    settings = MatchSettings(seed=1)
    lines = [encode_line(scripts.hello(settings))]
    for make in (scripts.bidding, scripts.declaring, scripts.all_tricks, scripts.playing):
        lines.append(encode_line(make().act(3, 1000)))
    last = scripts.last_play({"AC": 6, "BD": 6})
    last.apply(scripts.SEAT, last.hand.legal_actions()[0])
    assert last.hand_end is not None
    lines += [encode_line(last.hand_end), encode_line(scripts.match_end(last))]
    for line in lines:
        decoder.decode(line)
    assert scripts.match_end(last).winner is not None


def test_percentile() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50 and percentile(values, 0.99) == 99
    assert percentile([3.0], 0.99) == 3.0


def test_a_many_bot_that_exits_after_match_end_is_told_so() -> None:
    report = check_bot(python(BOTS / "many_exit_bot.py"))
    check = next(check for check in report.checks if check.name == "matches")
    assert check.status == "failed"
    assert check.detail.split("\n") == [
        "failed in seat B (passed in A; not played in C and D)",
        "seat A: match 1 (seed 1): " + check.seats[0].detail.split(": ", 1)[1],
        'seat B: match 2 (seed 2): ready said "matches": "many", but the second hello, after'
        " match 1's match_end, got no ready: it exited with status 0",
        "seat C: not played: match 2 (seat B) failed",
        "seat D: not played: match 2 (seat B) failed",
    ]
    assert check.fix.startswith("After match_end a bot whose ready says")  # not a crash
    assert '(PROTOCOL.md: "Playing many matches in one process")' in check.fix


def test_a_second_ready_may_say_one() -> None:
    report = check_bot(python(BOTS / "many_once_bot.py"))
    check = next(check for check in report.checks if check.name == "matches")
    assert check.status == "passed", check.detail
    assert '(its ready in match 2 said "one": closed after it)' in check.detail
    # the process is closed after match 2 (seat B): C and D are not played in it
    assert [(seat.seat, seat.status) for seat in check.seats] == [
        ("A", "passed"),
        ("B", "passed"),
        ("C", "skipped"),
        ("D", "skipped"),
    ]
    assert report.ok  # allowed; and the match check played it fresh in every seat


def test_a_one_bot_is_told_it_is_started_fresh_for_each_match() -> None:
    report = check_bot(python(BOTS / "twice_bot.py"), match=False)  # its ready says no more
    check = next(check for check in report.checks if check.name == "matches")
    assert check.status == "passed" and report.ok
    assert "it is started fresh for each match" in check.detail


def test_a_bot_that_answers_twice_conforms_as_the_referee_says() -> None:
    report = check_bot(python(BOTS / "twice_bot.py"))
    assert report.ok, [(c.name, c.detail) for c in report.checks if c.status != "passed"]
    match = next(check for check in report.checks if check.name == "match")
    assert "refused" not in match.detail  # its second answers are ignored, never refused
