"""Shared plumbing for the hostile test bots: arguments, pid files, reading and answering."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Iterator
from typing import Any


def parser(description: str | None) -> argparse.ArgumentParser:
    """An argument parser with ``--pid-dir``, where the bot records its pid on start-up."""
    result = argparse.ArgumentParser(description=description)
    result.add_argument("--pid-dir", help="directory to record this bot's pid in")
    return result


def start_time(pid: int) -> str:
    """The process's start time in clock ticks (field 22 of /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[19]


def record_pid(pid_dir: str | None, pid: int, role: str) -> None:
    """Write ``<role>-<pid>`` holding the pid and its start time (so reuse is detectable)."""
    if pid_dir:
        path = os.path.join(pid_dir, f"{role}-{pid}")
        with open(path + ".tmp", "w") as file:
            file.write(f"{pid} {start_time(pid)}\n")
        os.replace(path + ".tmp", path)


def setup(arguments: argparse.ArgumentParser) -> argparse.Namespace:
    """Parse the arguments and record this bot's pid."""
    args = arguments.parse_args()
    record_pid(args.pid_dir, os.getpid(), "bot")
    return args


def messages() -> Iterator[dict[str, Any]]:
    """Every message the referee sends, until ``match_end`` (inclusive) or end of input."""
    for line in sys.stdin.buffer:
        message = json.loads(line)
        yield message
        if message.get("type") == "match_end":
            return


def send_bytes(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def send(message: dict[str, Any]) -> None:
    send_bytes(json.dumps(message).encode() + b"\n")


def ready(message: dict[str, Any], name: str) -> random.Random:
    """Answer ``hello``; return a random generator seeded as the referee suggests."""
    send({"type": "ready", "name": name})
    return random.Random(message["seed"])


def answer(message: dict[str, Any], rng: random.Random) -> None:
    """Answer ``act`` with a random legal action, as the example bot does."""
    action = rng.choice(message["legal_actions"])
    send({"type": "action", "id": message["id"], "action": action})


def log(line: str) -> None:
    """One line to stderr, at once (the referee keeps it beside the log)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
