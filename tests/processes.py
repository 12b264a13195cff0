"""Processes for the tests: the referee's command line run in a child, and finding the
processes a test started by a marker in their command lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` as a user runs it, in ``cwd``; its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        check=False,
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
