"""Sandboxed matches for the sandbox tests: an attack from seat B, whose report the attacker
bot (tests/bots/attacker_bot.py) writes on its stderr."""

from __future__ import annotations

import os
import shlex
import signal
import sys
from pathlib import Path
from typing import Any

from referee.match.runner import run_match, stderr_path
from referee.record.log import read_log
from referee.record.verify import verify
from referee.sandbox.policy import plan
from referee.settings import MatchSettings, SandboxSettings
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
