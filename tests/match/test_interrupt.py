"""Ctrl-C, SIGTERM or SIGHUP during a match: the referee stops promptly, ends the log, and
leaves no bot behind."""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.record.log import read_log
from referee.record.records import MatchEndRecord

STUCK_BOT = """
import json, os, sys, time
open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "stuck"}), flush=True)
    elif message["type"] == "act":
        time.sleep(600)  # thinks forever: the referee is interrupted meanwhile
"""


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_interrupt_ends_log_and_kills_bots(tmp_path: Path, signum: signal.Signals) -> None:
    bot = tmp_path / "stuck_bot.py"
    bot.write_text(STUCK_BOT)
    pids = tmp_path / "pids"
    pids.mkdir()
    log = tmp_path / "match.jsonl"
    command = shlex.join([sys.executable, str(bot), str(pids)])
    referee = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "referee",
            "match",
            command,
            command,
            "--seed",
            "1",
            "--move-timeout",
            "60",
            "--log",
            str(log),
            "--sandbox",
            "off",  # the stuck bot writes its pid file under tmp_path
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 20
    while len(list(pids.iterdir())) < 4 or b'"type":"act"' not in log.read_bytes():
        assert time.monotonic() < deadline, "the match did not start"
        time.sleep(0.05)
    bot_pids = [int(p.name) for p in pids.iterdir()]
    interrupted = time.monotonic()
    referee.send_signal(signum)
    _, stderr = referee.communicate(timeout=10)
    assert time.monotonic() - interrupted < 5
    assert referee.returncode == 128 + signum
    first, last = stderr.decode().splitlines()  # the sandbox line, then one line, no traceback
    assert first.startswith("sandbox off:")
    assert last.startswith("referee: interrupted")
    parsed = read_log(log)
    assert parsed.broken_at is None and parsed.truncated is None
    records = parsed.records
    last = records[-1]
    assert isinstance(last, MatchEndRecord)
    assert last.end == "interrupted"
    time.sleep(0.2)
    assert [pid for pid in bot_pids if _alive(pid)] == []
