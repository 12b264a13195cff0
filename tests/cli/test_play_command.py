"""``referee play`` refuses in one line what it cannot do (no terminal, the wrong number of
bots, a bot that cannot start), and the log of a match a person played is an ordinary one for
``replay`` — but for ``--rerun``, which cannot play a person again and says so."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support.people import by_number, play_with_person

ROOT = Path(__file__).resolve().parents[2]
RANDOM = shlex.join([sys.executable, str(ROOT / "example_bots" / "random_bot.py")])


def _referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command as a script runs it: standard input is not a terminal."""
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        check=False,
    )


def _one_line(stream: str) -> str:
    assert stream.count("\n") == 1 and "Traceback" not in stream, stream
    return stream.strip()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([], "play needs a terminal to read your moves"),
        ([RANDOM, RANDOM], "give one bot command (all three other seats) or three (B, C, D)"),
        (["--seat", "C", RANDOM, RANDOM], "or three (A, B, D), not 2"),
        (["pyhton3 bot.py"], "seat B: 'pyhton3' is not a program on PATH"),
        ([RANDOM, RANDOM, "nope.py"], "seat D: "),
        (["--name", "me\x1b[2J", RANDOM], "--name: name holds U+001B"),
    ],
)
def test_what_play_refuses_in_one_line(tmp_path: Path, args: list[str], said: str) -> None:
    log = tmp_path / "m.jsonl"
    run = _referee("play", *args, "--log", str(log), cwd=tmp_path)
    assert run.returncode == 2
    assert said in _one_line(run.stderr)
    assert not log.exists() and not run.stdout


async def test_a_persons_log_replays_verifies_and_refuses_a_rerun(tmp_path: Path) -> None:
    played = await play_with_person(by_number(3), seat="B", seed=21)
    log = tmp_path / "m.jsonl"
    log.write_bytes(played.log)
    verified = _referee("replay", str(log), "--verify", cwd=tmp_path)
    assert verified.returncode == 0 and verified.stdout.startswith("verified:")
    shown = _referee("replay", str(log), cwd=tmp_path)
    assert shown.returncode == 0
    assert "B (B+D): person — (a person at the terminal) [a person, no time limit]" in shown.stdout
    page = _referee("replay", str(log), "--html", cwd=tmp_path)
    assert page.returncode == 0 and (tmp_path / "m.html").exists()
    rerun = _referee("replay", str(log), "--rerun", cwd=tmp_path)
    assert rerun.returncode == 2
    assert "cannot re-run: a person played seat B (referee play)" in _one_line(rerun.stderr)
    assert not (tmp_path / "m.rerun.jsonl").exists()
