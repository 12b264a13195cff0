"""Processes for the tests: the referee's command line run in a child, and finding the
processes a test started by a marker in their command lines."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

BOTS = Path(__file__).resolve().parents[1] / "bots"


def referee(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` as a user runs it, in ``cwd`` (with ``env`` added to this process's
    environment); its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        check=False,
        env=None if env is None else {**os.environ, **env},
    )


def with_marker(marker: str) -> list[int]:
    """Every process whose command line contains ``marker``."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as stream:
                    if marker.encode() in stream.read():
                        found.append(int(name))
            except OSError:
                pass
    return found


def gone(marker: str, within: float = 10.0) -> bool:
    """Whether every process with ``marker`` in its command line has ended, waiting up to
    ``within`` seconds."""
    deadline = time.monotonic() + within
    while with_marker(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not with_marker(marker)


def many_bot(marker: str, *options: str) -> str:
    """The command of ``tests/bots/many_bot.py`` (a bot that plays many matches in one
    process), found by ``marker``."""
    return " ".join([sys.executable, str(BOTS / "many_bot.py"), "--marker", marker, *options])
