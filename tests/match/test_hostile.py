"""Real matches against hostile bot processes: the verdict, the time it took, the log, and
that no process is left behind.

Each hostile bot in ``tests/bots/`` plays seat B against the example random bot in A, C and
D. Every match is checked the same way (``play``):

- ``run_match`` returns an outcome (no exception) within the limits plus a small grace;
- the log parses, record by record, as ``LogRecord``: a ``header`` first, one ``match_end``
  last agreeing with the outcome, and the game record rebuilt from the log hashes to the
  ``game_digest`` both report;
- no process survives the match: every hostile bot (and grandchild) writes its pid and start
  time into a directory under ``tmp_path``, every bot's command line carries ``tmp_path``,
  and after ``run_match`` returns none of them may still exist, nor may any child of this
  process be left unreaped. Only a grandchild may remain a zombie for a moment: it is
  orphaned to init, which reaps it in its own time (this sandbox's init takes ~1.5 s), and
  no referee can reap another process's children.

These bots write pid files under ``tmp_path``, which a sandboxed bot cannot, so they play
with ``--sandbox off``: what is checked here is the wire and the process group, the
sandbox's own defences are checked in ``test_sandbox_*.py``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.match.runner import run_match
from referee.match.table import MatchOutcome
from referee.record.log import read_log
from referee.record.records import (
    ActRecord,
    BotReady,
    FaultRecord,
    Header,
    IgnoredRecord,
    MatchEndRecord,
    MoveRecord,
    RejectedRecord,
)
from referee.record.verify import verify
from referee.sandbox.policy import SandboxPlan, plan
from referee.settings import MatchLimits, MatchSettings, SandboxSettings

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parents[1] / "bots"
RANDOM_BOT = ROOT / "example_bots" / "random_bot.py"

MOVE_TIMEOUT = 0.5
STARTUP_TIMEOUT = 2.0
#: Seconds allowed beyond a match's own limits: starting four interpreters, and closing a bot
#: that ignores its closed stdin (``EXIT_GRACE`` + ``TERM_GRACE`` = 1 s).
GRACE = 3.0
#: Seconds a whole match between (mostly) well-behaved bots may take.
FULL_MATCH_SECONDS = 20.0
#: Seconds the kernel gets to make a killed process disappear.
REAP_POLL = 1.0


@dataclass
class Played:
    outcome: MatchOutcome
    records: list[Any]
    seconds: float
    log: Path
    pid_dir: Path

    def of(self, kind: type) -> list[Any]:
        return [record for record in self.records if type(record) is kind]

    def budget(self, move_timeouts: int = 1) -> float:
        """The most the match may take: start-up, ``move_timeouts`` timeouts and the grace."""
        return STARTUP_TIMEOUT + move_timeouts * MOVE_TIMEOUT + GRACE

    def stderr(self, seat: str) -> Path:
        return self.log.with_name(f"{self.log.name}.{seat}.stderr")


def unsandboxed(limits: MatchLimits, commands: dict[str, str]) -> SandboxPlan:
    return plan(SandboxSettings(mode="off"), limits, commands)  # type: ignore[arg-type]


def bot_command(script: str, pid_dir: Path, *args: str) -> str:
    return shlex.join([sys.executable, str(BOTS / script), "--pid-dir", str(pid_dir), *args])


def random_command(marker: Path) -> str:
    # The random bot ignores its arguments; the marker lets the /proc scan find it.
    return shlex.join([sys.executable, str(RANDOM_BOT), str(marker)])


async def play(
    tmp_path: Path,
    hostile: str | None,
    *args: str,
    seat: str = "B",
    seed: int = 42,
    command: str | None = None,
    **settings: Any,
) -> Played:
    """Play ``hostile`` (a script in tests/bots) or ``command`` in ``seat`` against random bots,
    then check the log and that every process is gone."""
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    commands = {s: random_command(tmp_path) for s in "ABCD"}
    if hostile is not None:
        commands[seat] = bot_command(hostile, pid_dir, *args)
    elif command is not None:
        commands[seat] = command
    settings.setdefault("move_timeout", MOVE_TIMEOUT)
    settings.setdefault("startup_timeout", STARTUP_TIMEOUT)
    match_settings = MatchSettings(seed=seed, **settings)
    log = tmp_path / "m.jsonl"
    zombies_before = _zombie_children()
    started = time.monotonic()
    outcome = await run_match(match_settings, commands, log, unsandboxed(match_settings, commands))
    seconds = time.monotonic() - started
    records = check_log(log, outcome)
    await check_no_process_left(pid_dir, tmp_path, zombies_before)
    if hostile is not None:
        assert any(pid_dir.glob("bot-*")), "the hostile bot never started"
    return Played(outcome, records, seconds, log, pid_dir)


# -- the log -------------------------------------------------------------------------------


def check_log(log: Path, outcome: MatchOutcome) -> list[Any]:
    parsed = read_log(log)
    assert parsed.truncated is None, parsed.truncated
    assert parsed.broken_at is None, f"chain broken at line {parsed.broken_at}"
    assert parsed.head == outcome.log_digest
    records: list[Any] = parsed.records
    assert type(records[0]) is Header
    end = records[-1]
    assert type(end) is MatchEndRecord
    assert sum(type(r) is MatchEndRecord for r in records) == 1
    assert end.game_digest == outcome.game_digest
    assert (end.end, end.winner, end.forfeit, end.faults, end.hands, end.marks) == (
        outcome.end,
        outcome.winner,
        outcome.forfeit,
        outcome.faults,
        outcome.hands,
        outcome.marks,
    )
    assert outcome.log == str(log)
    # The whole log verifies: a re-simulation from the seed agrees with every record.
    verified = verify(parsed)
    assert (verified.game_digest, verified.log_digest) == (outcome.game_digest, outcome.log_digest)
    return records


# -- processes -----------------------------------------------------------------------------


def _stat(pid: int) -> tuple[str, int, str] | None:
    """(state, parent pid, start time) of a process, or None if there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1]), fields[19]


def _pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def _zombie_children() -> set[int]:
    me = os.getpid()
    found = set()
    for pid in _pids():
        stat = _stat(pid)
        if stat is not None and stat[1] == me and stat[0] == "Z":
            found.add(pid)
    return found


def _survivors(pid_dir: Path, marker: Path, zombies_before: set[int]) -> list[str]:
    survivors = []
    for path in sorted(pid_dir.iterdir()):
        role = path.name.split("-")[0]
        pid_text, start = path.read_text().split()
        stat = _stat(int(pid_text))
        if stat is None or stat[2] != start:
            continue  # gone (or the pid was reused by another process)
        if role == "grandchild" and stat[0] == "Z" and stat[1] != os.getpid():
            continue  # dead, orphaned to init, waiting for init to reap it
        survivors.append(f"{path.name}: state {stat[0]}, parent {stat[1]}")
    me = os.getpid()
    for pid in _pids():
        if pid == me:
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if str(marker).encode() in cmdline:
            text = cmdline.replace(b"\0", b" ").decode(errors="replace")
            survivors.append(f"pid {pid}: {text}")
    for pid in _zombie_children() - zombies_before:
        survivors.append(f"pid {pid}: an unreaped child of the referee")
    return survivors


async def check_no_process_left(pid_dir: Path, marker: Path, zombies_before: set[int]) -> None:
    deadline = time.monotonic() + REAP_POLL
    while survivors := _survivors(pid_dir, marker, zombies_before):
        if time.monotonic() > deadline:
            raise AssertionError(f"processes left behind: {survivors}")
        await trio.sleep(0.02)


# -- verdicts ------------------------------------------------------------------------------


def assert_forfeit(played: Played, reason: str, seat: str = "B") -> None:
    outcome = played.outcome
    assert outcome.end == "forfeit", outcome.detail
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == (seat, reason), outcome.detail
    assert outcome.winner == ("AC" if seat in "BD" else "BD")
    faults = [r for r in played.of(FaultRecord) if r.penalty == "forfeit"]
    assert [(f.seat, f.reason) for f in faults] == [(seat, reason)]
    for other in "ABCD":
        if other != seat:
            assert outcome.faults[other] == {}, (other, outcome.faults[other])


def assert_completed(played: Played) -> None:
    outcome = played.outcome
    assert outcome.end == "marks", outcome.detail
    assert outcome.forfeit is None
    assert outcome.winner is not None
    assert outcome.marks[outcome.winner] >= 7
    assert played.seconds < FULL_MATCH_SECONDS


# -- the hostile bots ----------------------------------------------------------------------


async def test_sleeps_past_the_move_deadline(tmp_path: Path) -> None:
    played = await play(tmp_path, "sleepy_bot.py", "--after", "2")
    assert_forfeit(played, "timeout")
    assert played.outcome.faults["B"] == {"timeout": 1}
    assert played.seconds < played.budget()
    fault = played.of(FaultRecord)[0]
    assert fault.timing is not None and fault.timing.latency_ms is not None
    assert MOVE_TIMEOUT * 1000 <= fault.timing.latency_ms < (MOVE_TIMEOUT + 0.5) * 1000


@pytest.mark.parametrize("seat", ["B", "D"])
async def test_never_answers_hello(tmp_path: Path, seat: str) -> None:
    # In seat B the bots after it (C, D) must not be blamed for B's silence; seat D is last.
    played = await play(tmp_path, "silent_bot.py", seat=seat)
    assert_forfeit(played, "timeout", seat=seat)
    assert "failed to start" in played.outcome.detail
    assert played.outcome.hands == 0
    assert not played.of(ActRecord)
    assert sorted(r.seat for r in played.of(BotReady)) == sorted(set("ABCD") - {seat})
    assert STARTUP_TIMEOUT <= played.seconds < played.budget(move_timeouts=0)


@pytest.mark.parametrize(
    ("script", "code"),
    [("garbage_bot.py", "invalid_json"), ("bad_utf8_bot.py", "invalid_utf8")],
)
async def test_unreadable_answers_to_act(tmp_path: Path, script: str, code: str) -> None:
    played = await play(tmp_path, script)
    assert_forfeit(played, "too_many_rejections")
    assert played.outcome.faults["B"] == {code: 3, "too_many_rejections": 1}
    rejected = played.of(RejectedRecord)
    assert [(r.seat, r.reason) for r in rejected] == [("B", code)] * 3
    assert len({r.id for r in rejected}) == 3  # a fresh act after each rejection
    assert all(r.raw for r in rejected)
    assert played.seconds < played.budget(move_timeouts=0)


@pytest.mark.parametrize(
    ("script", "code"),
    [("garbage_bot.py", "invalid_json"), ("bad_utf8_bot.py", "invalid_utf8")],
)
async def test_unreadable_answer_to_hello(tmp_path: Path, script: str, code: str) -> None:
    played = await play(tmp_path, script, "--on", "hello")
    assert_forfeit(played, "timeout")
    assert played.outcome.faults["B"] == {code: 1, "timeout": 1}
    assert [(r.seat, r.reason, r.id) for r in played.of(RejectedRecord)] == [("B", code, 0)]
    assert played.outcome.hands == 0
    assert played.seconds < played.budget(move_timeouts=0)


async def test_ten_mib_line(tmp_path: Path) -> None:
    # The bot writes 10 MiB without a newline, then waits 30 s before the newline: the
    # referee must give up at the size bound, not at the newline nor at the deadline.
    played = await play(tmp_path, "long_line_bot.py", move_timeout=5.0)
    assert_forfeit(played, "line_too_long")
    assert played.outcome.faults["B"] == {"line_too_long": 1}
    assert played.seconds < STARTUP_TIMEOUT + GRACE  # no move timeout spent
    fault = played.of(FaultRecord)[0]
    assert fault.timing is not None and fault.timing.latency_ms is not None
    assert fault.timing.latency_ms < 2000


async def test_wrong_id_is_ignored(tmp_path: Path) -> None:
    played = await play(tmp_path, "wrong_id_bot.py")
    assert_forfeit(played, "timeout")
    faults = played.outcome.faults["B"]
    assert faults["timeout"] == 1
    assert faults["ignored"] >= 1
    ignored = played.of(IgnoredRecord)
    assert len(ignored) == faults["ignored"]
    for record in ignored:
        assert record.seat == "B"
        assert json.loads(record.raw)["id"] == record.expected_id + 1000
    assert not any(r.seat == "B" and not r.forced for r in played.of(MoveRecord))
    assert played.seconds < played.budget()


async def test_illegal_action_every_time(tmp_path: Path) -> None:
    played = await play(tmp_path, "illegal_bot.py")
    assert_forfeit(played, "too_many_rejections")
    assert played.outcome.faults["B"] == {"illegal_action": 3, "too_many_rejections": 1}
    rejected = played.of(RejectedRecord)
    assert [(r.seat, r.reason) for r in rejected] == [("B", "illegal_action")] * 3
    assert all(r.rule for r in rejected)  # the rule broken, e.g. wrong_phase
    assert played.seconds < played.budget(move_timeouts=0)


async def test_illegal_once_then_legal(tmp_path: Path) -> None:
    played = await play(tmp_path, "illegal_bot.py", "--times", "1")
    assert_completed(played)
    assert played.outcome.faults["B"] == {"illegal_action": 1}
    (rejected,) = played.of(RejectedRecord)
    assert (rejected.seat, rejected.reason) == ("B", "illegal_action")
    # The decision was asked again and answered legally; nothing was forced.
    acts = [r for r in played.of(ActRecord) if r.seat == "B"]
    assert acts[0].id == rejected.id and acts[1].id > rejected.id
    moves = [r for r in played.of(MoveRecord) if r.seat == "B"]
    assert moves[0].id == acts[1].id
    assert not any(r.forced for r in played.of(MoveRecord))
    assert not played.of(FaultRecord)


async def test_crashes_mid_hand(tmp_path: Path) -> None:
    played = await play(tmp_path, "crash_bot.py", "--after", "3", "--status", "3")
    assert_forfeit(played, "crashed")
    assert played.outcome.faults["B"] == {"crashed": 1}
    assert len([r for r in played.of(MoveRecord) if r.seat == "B"]) == 3
    assert played.seconds < played.budget(move_timeouts=0)


async def test_closes_stdout_and_keeps_running(tmp_path: Path) -> None:
    played = await play(tmp_path, "close_stdout_bot.py", "--after", "3")
    assert_forfeit(played, "crashed")
    assert played.outcome.faults["B"] == {"crashed": 1}
    assert len([r for r in played.of(MoveRecord) if r.seat == "B"]) == 3
    assert played.seconds < played.budget(move_timeouts=0)


async def test_floods_stderr(tmp_path: Path) -> None:
    limit = 64 * 1024
    played = await play(tmp_path, "stderr_flood_bot.py", "--mib", "50", stderr_limit=limit)
    assert_completed(played)
    assert played.outcome.faults["B"] == {}
    data = played.stderr("B").read_bytes()
    kept, note = data[:limit], data[limit:]
    assert kept.startswith(b"stderr flood ")
    assert note.startswith(b"\n[referee: stderr capped at 65536 bytes; ")
    assert note.endswith(b" more bytes dropped]\n")
    assert len(note) < 200
    for seat in "ACD":
        assert not played.stderr(seat).exists()  # the random bot writes nothing to stderr


def grandchild_args(then: str, marker: Path) -> list[str]:
    return ["--then", then, "--marker", str(marker)]


async def test_grandchild_ignoring_sigterm_then_behaving(tmp_path: Path) -> None:
    played = await play(tmp_path, "grandchild_bot.py", *grandchild_args("behave", tmp_path))
    assert_completed(played)
    assert played.outcome.faults["B"] == {}
    assert any(played.pid_dir.glob("grandchild-*"))


async def test_grandchild_ignoring_sigterm_then_hanging(tmp_path: Path) -> None:
    played = await play(tmp_path, "grandchild_bot.py", *grandchild_args("hang", tmp_path))
    assert_forfeit(played, "timeout")
    assert any(played.pid_dir.glob("grandchild-*"))
    assert played.seconds < played.budget()


async def test_grandchild_outlives_its_bot(tmp_path: Path) -> None:
    # The bot exits after ready, but its grandchild keeps the bot's stdout open, so the
    # referee sees no end of output: the first act times out. The grandchild must still go.
    played = await play(tmp_path, "grandchild_bot.py", *grandchild_args("exit", tmp_path))
    assert_forfeit(played, "timeout")
    assert any(played.pid_dir.glob("grandchild-*"))
    assert played.seconds < played.budget()


@pytest.mark.parametrize(
    "command", ["/nonexistent/bot", "", "'unterminated"], ids=["missing", "empty", "unsplittable"]
)
async def test_bot_that_cannot_start(tmp_path: Path, command: str) -> None:
    played = await play(tmp_path, None, command=command)
    assert_forfeit(played, "start_failed")
    assert "failed to start" in played.outcome.detail
    assert played.outcome.hands == 0
    assert played.seconds < played.budget(move_timeouts=0)


async def test_on_fault_random_plays_on_then_forfeits(tmp_path: Path) -> None:
    played = await play(tmp_path, "sleepy_bot.py", "--after", "1", on_fault="random", max_strikes=3)
    assert_forfeit(played, "timeout")
    assert played.outcome.faults["B"] == {"timeout": 4}
    faults = played.of(FaultRecord)
    assert [(f.penalty, f.strikes) for f in faults] == [
        ("random", 1),
        ("random", 2),
        ("random", 3),
        ("forfeit", 4),
    ]
    forced = [r for r in played.of(MoveRecord) if r.forced]
    assert len(forced) == 3
    assert all(r.seat == "B" and r.id is None for r in forced)
    # A forced action is one of the legal actions of the act it replaced.
    acts = {r.id: r for r in played.of(ActRecord)}
    for fault, move in zip(faults, forced, strict=False):
        assert move.action in acts[fault.id].legal_actions
    assert played.seconds < played.budget(move_timeouts=4)


async def test_on_fault_random_with_late_answers(tmp_path: Path) -> None:
    # Answers arrive 1.5 move timeouts late: each decision is forced, and the late answer
    # reaches the referee while it waits for the next decision, which ignores it.
    played = await play(
        tmp_path,
        "sleepy_bot.py",
        "--sleep",
        str(1.5 * MOVE_TIMEOUT),
        on_fault="random",
        max_strikes=2,
    )
    assert_forfeit(played, "timeout")
    assert played.outcome.faults["B"]["timeout"] == 3
    assert played.outcome.faults["B"]["ignored"] >= 1
    assert len([r for r in played.of(MoveRecord) if r.forced]) == 2
    assert played.seconds < played.budget(move_timeouts=3)


# -- the command line ----------------------------------------------------------------------


CLI_KEYS = {"winner", "marks", "hands", "forfeit", "faults", "game_digest", "log"}


def referee_command() -> list[str]:
    script = Path(sys.executable).parent / "referee"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from referee.cli import app; app()"]


def test_cli_match_json_is_reproducible(tmp_path: Path) -> None:
    logs = [tmp_path / "first.jsonl", tmp_path / "second.jsonl"]
    runs = [
        subprocess.Popen(
            [*referee_command(), "match", "--seed", "3", "--json", "--log", str(log)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
        )
        for log in logs
    ]
    outputs = []
    for run, log in zip(runs, logs, strict=True):
        stdout, stderr = run.communicate(timeout=30)
        assert run.returncode == 0, stderr.decode()
        lines = stdout.decode().splitlines()
        assert len(lines) == 1, lines
        result = json.loads(lines[0])
        assert isinstance(result, dict)
        assert set(result) >= CLI_KEYS
        assert result["log"] == str(log)
        assert result["forfeit"] is None
        records = read_log(log).records
        assert type(records[-1]) is MatchEndRecord
        assert records[-1].game_digest == result["game_digest"]
        outputs.append(result)
    assert outputs[0]["game_digest"] == outputs[1]["game_digest"]
    assert outputs[0]["marks"] == outputs[1]["marks"]


def test_cli_match_with_three_bots(tmp_path: Path) -> None:
    run = subprocess.run(
        [*referee_command(), "match", "a", "b", "c", "--log", str(tmp_path / "m.jsonl")],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
        check=False,
    )
    assert run.returncode == 2
    assert "four bot commands" in run.stderr and "not 3" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    assert run.stdout == ""
    assert not (tmp_path / "m.jsonl").exists()
