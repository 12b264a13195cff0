"""Why a bot failed, every time: the last lines of its stderr (escaped, capped) and where the
whole copy is, in ``referee match`` (start-up included) and in its ``--json``."""

from __future__ import annotations

import json
from pathlib import Path

from support.bot_commands import RANDOM_BOT, python
from support.processes import BOTS, referee

from referee.match.stderr import TAIL_LINE_CHARS, TAIL_LINES, StderrSink

NEEDY = BOTS / "needy_bot.py"


def test_the_sink_keeps_the_last_lines_whatever_the_copy_keeps(tmp_path: Path) -> None:
    sink = StderrSink(tmp_path / "bot.stderr", limit=100)
    for number in range(50):
        sink.write(f"line {number}\n".encode())
    sink.write(b"\n\n   \n" + b"x" * 1000 + b"\nno newline at the end")
    sink.close()
    tail = sink.tail()
    assert tail.path == str(tmp_path / "bot.stderr")
    assert len((tmp_path / "bot.stderr").read_bytes()) < 200  # the copy stopped at its bound
    assert tail.total == 55  # 50 lines, three blank ones, the long one and the unfinished one
    assert len(tail.lines) == TAIL_LINES
    assert tail.lines[-1] == "no newline at the end"
    assert tail.lines[-2] == "x" * TAIL_LINE_CHARS + "…"
    assert tail.lines[0] == "line 32"  # blank lines are not among the twenty
    assert sink.last_line() == "no newline at the end"


def test_a_line_cut_at_the_front_of_what_is_kept_says_so() -> None:
    sink = StderrSink(None, limit=0)
    sink.write(b"y" * 20000 + b"\nlast\n")
    tail = sink.tail()
    assert tail.path is None  # no copy kept
    assert tail.lines[0].startswith("…y") and tail.lines[1] == "last"


def test_a_bot_that_wrote_nothing_has_no_copy(tmp_path: Path) -> None:
    sink = StderrSink(tmp_path / "quiet.stderr", limit=1 << 20)
    assert sink.tail().path is None and sink.tail().lines == [] and sink.tail().total == 0
    assert not (tmp_path / "quiet.stderr").exists()


def _match(tmp_path: Path, bot: str, *options: str) -> tuple[str, Path]:
    log = tmp_path / "logs" / "m.jsonl"
    run = referee(
        "match", bot, RANDOM_BOT, "--seed", "3", "--log", str(log), *options, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    return run.stdout, log


def test_a_crash_at_start_up_shows_the_end_of_its_stderr_and_where_all_of_it_is(
    tmp_path: Path,
) -> None:
    out, log = _match(tmp_path, python(NEEDY, "--crash-at", "0", "--lines", "30"))
    copy = log.with_name("m.jsonl.A.stderr")
    assert "seat A failed: crashed" in out
    assert f"its stderr, the last 20 of 32 lines (all of it in {copy}):" in out
    assert "│ trace line 12\n" in out and "│ trace line 11\n" not in out
    assert "│ thread 'main' panicked at src/main.rs:12:5:" in out
    assert f"its stderr ends as seat A's (all of it in {log.with_name('m.jsonl.C.stderr')})" in out
    assert "referee check-bot" in out  # it ran sandboxed: how to tell whether that was why
    assert copy.read_text().count("\n") == 32


def test_the_json_outcome_holds_each_failed_seats_fault_and_stderr(tmp_path: Path) -> None:
    out, log = _match(tmp_path, python(NEEDY, "--crash-at", "2", "--lines", "3"), "--json")
    failures = json.loads(out)["failures"]
    assert set(failures) <= {"A", "C"} and failures
    (seat, failure), *_ = failures.items()
    assert failure["reason"] == "crashed" and "exit status 101" in failure["detail"]
    assert failure["stderr"]["path"] == str(log.with_name(f"m.jsonl.{seat}.stderr"))
    assert failure["stderr"]["total"] == 5
    assert failure["stderr"]["lines"][-1].startswith("note: run with `RUST_BACKTRACE=1`")


def test_a_bot_without_the_sandbox_gets_no_sandbox_advice_and_a_silent_one_says_so(
    tmp_path: Path,
) -> None:
    silent = python(BOTS / "silent_bot.py")
    out, _ = _match(tmp_path, silent, "--sandbox", "off", "--startup-timeout", "0.5")
    assert "seat A failed: timeout" in out
    assert "it wrote nothing on stderr" in out
    assert "check-bot" not in out


def test_stderr_is_shown_escaped(tmp_path: Path) -> None:
    bot = tmp_path / "bots" / "loud.py"
    bot.parent.mkdir()
    bot.write_text('import sys\nsys.stderr.write("\\x1b[2Jcleared\\u202e\\n")\nsys.exit(3)\n')
    out, _ = _match(tmp_path, python(bot), "--sandbox", "off")
    assert "│ \\x1b[2Jcleared\\u202e" in out and "\x1b" not in out and "\u202e" not in out


def test_a_variable_the_sandbox_withheld_is_named_with_its_option(tmp_path: Path) -> None:
    bot = python(NEEDY, "--env", "TEXAS42_TEST_MODEL_DIR")
    log = tmp_path / "logs" / "m.jsonl"
    run = referee(
        "match", bot, RANDOM_BOT, "--seed", "3", "--log", str(log), cwd=tmp_path,
        env={"TEXAS42_TEST_MODEL_DIR": "/models"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "│ KeyError: 'TEXAS42_TEST_MODEL_DIR'" in run.stdout
    assert (
        "its stderr names TEXAS42_TEST_MODEL_DIR, a variable sandboxed bots do not get; if it"
        " needs it: --sandbox-env TEXAS42_TEST_MODEL_DIR"
    ) in run.stdout


def test_a_person_who_left_is_no_failed_bot() -> None:
    from types import SimpleNamespace

    from referee.errors import BotCrashed, Resigned
    from referee.match.runner import bot_failures
    from referee.match.seat import SeatState

    seats = {seat: SeatState(seat, None, 0.0) for seat in "ABCD"}
    seats["A"].charge(Resigned("the person playing A left the match"), "forfeit", None, None)
    seats["B"].charge(BotCrashed("exit status 1"), "forfeit", 3, None)
    failures = bot_failures(SimpleNamespace(seats=seats), {}, ["A"])  # type: ignore[arg-type]
    assert list(failures) == ["B"]
    assert failures["B"].reason == "crashed" and failures["B"].stderr.lines == []
