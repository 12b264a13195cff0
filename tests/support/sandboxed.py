"""Sandboxed bots for the sandbox tests: a match with an attack from seat B, whose report the
attacker bot (tests/bots/attacker_bot.py) writes on its stderr, and one program run in a
seat's sandbox as a match starts it."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from referee.match.runner import run_match, stderr_path
from referee.record.log import read_log
from referee.record.verify import verify
from referee.rules.tiles import SEATS
from referee.sandbox.jail import SeatJail
from referee.sandbox.policy import plan
from referee.sandbox.seats import MatchJails
from referee.settings import MatchLimits, MatchSettings, SandboxSettings
from support.bot_commands import RANDOM_BOT
from support.processes import BOTS


async def attack(
    tmp_path: Path,
    mode: str,
    name: str,
    target: str = "",
    opponent: list[str] | None = None,
    allow: tuple[str, ...] = (),
    **limits: Any,
) -> tuple[str, Any]:
    """Play a one-hand match with the attacker in B; its report, and the outcome.

    The target travels in the environment: a path on the bot's command line would be
    allowed to it as one of its program's files."""
    logs = tmp_path / "logs"
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    attacker = [sys.executable, str(BOTS / "attacker_bot.py"), "--attack", name]
    os.environ["ATTACK_TARGET"] = target
    if mode == "off":  # a sandboxed bot could not write its pid file
        attacker += ["--pid-dir", str(pid_dir)]
    commands = dict.fromkeys("ACD", RANDOM_BOT)
    commands["B"] = shlex.join(attacker)
    if opponent is not None:
        commands["A"] = shlex.join(opponent)
    limits.setdefault("move_timeout", 3.0)
    settings = MatchSettings(seed=5, max_hands=1, **limits)
    log = logs / "match.jsonl"
    sandbox_settings = SandboxSettings(mode=mode, env=("ATTACK_TARGET",), allow=allow)  # type: ignore[arg-type]
    sandbox = plan(sandbox_settings, settings, commands, [logs])
    try:
        outcome = await run_match(settings, commands, log, sandbox)
    finally:
        del os.environ["ATTACK_TARGET"]
        for escaped in pid_dir.glob("escaped-*"):  # what got out with the sandbox off
            os.kill(int(escaped.read_text().split()[0]), signal.SIGKILL)
    verify(read_log(log))
    assert log.stat().st_mode & 0o777 == 0o600  # the referee's files are its own
    stderr = stderr_path(log, "B")
    report = stderr.read_text() if stderr.exists() else ""
    return report, outcome


@contextmanager
def seat_jail(
    argv: list[str], tmp_path: Path, settings: SandboxSettings | None = None, **limits: Any
) -> Iterator[SeatJail | None]:
    """Seat A's jail for ``argv`` (the other seats run the same command), as a match makes it;
    its tree killed and the seat released on the way out."""
    command = shlex.join(argv)
    match_limits = MatchLimits(**limits)
    sandbox = plan(
        settings or SandboxSettings(), match_limits, dict.fromkeys(SEATS, command), [tmp_path]
    )
    jails = MatchJails(sandbox)
    jail = jails.jail("A")
    try:
        yield jail
    finally:
        if jail is not None:
            jail.kill()
            jails.release(jail)
        jails.close()


def in_seat(
    argv: list[str],
    tmp_path: Path,
    stdin: bytes = b"",
    settings: SandboxSettings | None = None,
    **limits: Any,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` once in seat A's sandbox, as a match starts a bot, with ``stdin``; what
    it wrote and how it ended."""
    with seat_jail(argv, tmp_path, settings, **limits) as jail:
        child = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=None if jail is None else jail.enter,
            env=None if jail is None else jail.environment(),
        )
        if jail is not None:
            jail.started(child.pid)
        try:
            out, err = child.communicate(stdin, timeout=60)
        finally:
            if jail is not None:
                jail.kill()
            child.wait()
        return subprocess.CompletedProcess(argv, child.returncode, out, err)
