"""Playing real matches against hostile bot processes, and checking the verdict, the time it
took, the log, and that no process is left behind.

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

import os
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from referee.match.outcome import MatchOutcome
from referee.match.runner import run_match
from referee.record.log import read_log
from referee.record.records import FaultRecord, Header, MatchEndRecord
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
