"""``--debug``: every line to and from each bot as it happens (seat, time, direction), each
line of its stderr, escaped and cut; on stderr, so that ``--json`` stays whole."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
import trio
import trio.testing
from support.bot_commands import RANDOM_BOT, python
from support.processes import BOTS, referee

from referee.errors import BotCrashed, LineTooLong
from referee.match.connection import BotConnection
from referee.match.trace import MAX_SHOWN, LineSplitter, WireTrace

LINE = re.compile(r"^ +\d+\.\d{3} ([ABCD]) (>>|<<|2>|--) (.*)$")


def _lines(out: io.StringIO) -> list[tuple[str, str, str]]:
    found = []
    for text in out.getvalue().splitlines():
        match = LINE.match(text)
        assert match is not None, text
        found.append((match[1], match[2], match[3]))
    return found


def _connection(
    trace: WireTrace,
) -> tuple[BotConnection, trio.testing.MemoryReceiveStream, trio.testing.MemorySendStream]:
    to_bot = trio.testing.MemorySendStream()
    from_bot = trio.testing.MemoryReceiveStream()
    return BotConnection("B", to_bot, from_bot, 1024, trace), from_bot, to_bot


async def test_each_line_written_and_read_is_traced_once_whole() -> None:
    out = io.StringIO()
    connection, from_bot, _ = _connection(WireTrace(out))
    await connection.send(b'{"type":"hel')
    await connection.send(b'lo"}\n{"type":"act"}\n')
    from_bot.put_data(b'{"type":"ready"}\r\n{"type":"act')
    assert await connection.receive_line() == b'{"type":"ready"}'
    assert _lines(out) == [
        ("B", ">>", '{"type":"hello"}'),
        ("B", ">>", '{"type":"act"}'),
        ("B", "<<", '{"type":"ready"}'),
    ]


async def test_a_line_too_long_and_the_end_of_output_are_noted() -> None:
    out = io.StringIO()
    connection, from_bot, _ = _connection(WireTrace(out))
    from_bot.put_data(b"x" * 5000 + b"\n")
    with pytest.raises(LineTooLong):
        await connection.receive_line()
    from_bot.put_eof()
    with pytest.raises(BotCrashed):
        await connection.receive_line()
    assert _lines(out) == [
        ("B", "--", "a line too long, discarded unread"),
        ("B", "--", "end of its output"),
    ]


def test_a_hostile_line_is_escaped_and_a_long_one_cut() -> None:
    out = io.StringIO()
    trace = WireTrace(out)
    trace.line("C", "<<", b"\x1b[2Jwiped\xe2\x80\xae")
    trace.line("C", "<<", b"y" * 5000)
    (_, _, first), (_, _, second) = _lines(out)
    assert first == "\\x1b[2Jwiped\\u202e"
    assert second == "y" * MAX_SHOWN + "… (5000 in all)"


def test_only_one_seat_and_stderr_in_pieces() -> None:
    out = io.StringIO()
    trace = WireTrace(out).for_seat("D")
    trace.line("A", ">>", b"not shown")
    splitter = LineSplitter(trace, "D", "2>")
    splitter.feed(b"Trace")
    splitter.feed(b"back\nline 2\nunfinished")
    assert _lines(out) == [("D", "2>", "Traceback"), ("D", "2>", "line 2")]


def test_match_debug_traces_every_decision_on_stderr_and_keeps_json_whole(
    tmp_path: Path,
) -> None:
    loud = python(BOTS / "needy_bot.py", "--env", "HOME")  # writes a line on its stderr
    run = referee(
        "match", loud, RANDOM_BOT, "--seed", "5", "--json", "--debug", "--sandbox", "off",
        "--log", str(tmp_path / "logs" / "m.jsonl"), cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    outcome = json.loads(run.stdout)  # nothing but the document on stdout
    traced = [LINE.match(text) for text in run.stderr.splitlines()]
    lines = [(m[1], m[2], m[3]) for m in traced if m is not None]
    hellos = [seat for seat, way, text in lines if way == ">>" and '"type":"hello"' in text]
    readies = [seat for seat, way, text in lines if way == "<<" and '"ready"' in text]
    assert sorted(hellos) == sorted(readies) == ["A", "B", "C", "D"]
    acts = [text for _, way, text in lines if way == ">>" and text.startswith('{"type":"act"')]
    assert len(acts) == outcome["decisions"]
    assert ("A", "2>", f"model directory: {Path.home()}") in lines
    assert sum(way == "--" for _, way, _ in lines) >= 4  # each seat's command


def test_check_bot_debug_heads_each_check(tmp_path: Path) -> None:
    run = referee("check-bot", RANDOM_BOT, "--no-match", "--debug", "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["ok"] is True
    for check in ("startup", "bidding", "playing", "exit"):
        assert f"check {check}: a new process of the bot" in run.stderr
    assert re.search(r"A >> \{\"type\":\"hello\"", run.stderr)
    assert re.search(r"A << \{\"type\": \"action\"", run.stderr)


class _Closed(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_trace_that_cannot_be_written_stops_and_never_raises() -> None:
    trace = WireTrace(_Closed())
    trace.line("A", ">>", b"hello")
    trace.heading("check startup")
    assert trace.broken
    trace.line("A", "<<", b"ready")  # nothing more is tried


def test_match_debug_into_a_closed_pipe_plays_the_match_and_writes_its_log(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    log = tmp_path / "logs" / "m.jsonl"
    command = [sys.executable, "-m", "referee", "match", RANDOM_BOT, RANDOM_BOT, "--seed", "2"]
    command += ["--debug", "--sandbox", "off", "--log", str(log)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    process.stderr.readline()
    process.stderr.close()  # as '| head -1' would
    assert process.wait(timeout=60) == 0
    assert b'"type":"match_end"' in log.read_bytes().splitlines()[-1]


async def test_a_flood_on_stderr_is_traced_up_to_the_copys_bound(tmp_path: Path) -> None:
    from support.hostile import bot_command, random_command, unsandboxed

    from referee.match.runner import run_match
    from referee.settings import MatchSettings

    (tmp_path / "pids").mkdir()
    commands = {seat: random_command(tmp_path) for seat in "ABCD"}
    commands["B"] = bot_command("stderr_flood_bot.py", tmp_path / "pids", "--mib", "8")
    settings = MatchSettings(seed=1, stderr_limit=200_000)
    out = io.StringIO()
    await run_match(
        settings, commands, tmp_path / "m.jsonl", unsandboxed(settings, commands),
        trace=WireTrace(out),
    )  # fmt: skip
    flood = [line for line in _lines(out) if line[:2] == ("B", "2>")]
    assert 0 < len(flood) <= 200_000 // 65_000 + 2  # the 8 MiB are 128 lines of 64 KiB
    assert ("B", "--", "stderr past its bound: no more traced") in _lines(out)
