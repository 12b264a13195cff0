"""Bots in every kind of runtime start and play under ``--sandbox auto``: Debian's Python, a
venv's Python, node, a JVM and a compiled program (each skipped only where this machine does
not have the runtime)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.match.runner import run_match
from referee.sandbox.policy import plan
from referee.settings import MatchSettings, SandboxSettings

ROOT = Path(__file__).resolve().parents[2]
RUNTIMES = Path(__file__).resolve().parents[1] / "bots" / "runtimes"
RANDOM_BOT = ROOT / "example_bots" / "random_bot.py"


async def _plays(commands: dict[str, str], tmp_path: Path) -> None:
    settings = MatchSettings(seed=3, max_hands=2, startup_timeout=20)
    sandbox = plan(SandboxSettings(), settings, commands, [tmp_path / "logs"])  # type: ignore[arg-type]
    assert "landlock" in sandbox.report.seats["A"] and "seccomp" in sandbox.report.seats["A"]
    outcome = await run_match(settings, commands, tmp_path / "logs" / "m.jsonl", sandbox)  # type: ignore[arg-type]
    assert outcome.forfeit is None, outcome.forfeit
    assert outcome.end in ("marks", "max_hands")


def _need(program: str) -> str:
    found = shutil.which(program)
    if found is None:
        pytest.skip(f"no {program} on this machine")
    return found


async def test_system_and_venv_python(tmp_path: Path) -> None:
    system = "/usr/bin/python3"
    if not Path(system).exists():
        pytest.skip("no /usr/bin/python3")
    await _plays(
        {
            "A": shlex.join([system, str(RANDOM_BOT)]),
            "B": shlex.join([sys.executable, str(RANDOM_BOT)]),
            "C": shlex.join([system, "-I", str(RANDOM_BOT)]),
            "D": shlex.join([sys.executable, "-S", str(RANDOM_BOT)]),
        },
        tmp_path,
    )


async def test_node_bot(tmp_path: Path) -> None:
    node = _need("node")
    command = shlex.join([node, str(ROOT / "example_bots" / "random_bot.js")])
    await _plays({"A": command, "B": command, "C": command, "D": command}, tmp_path)


async def test_compiled_bot(tmp_path: Path) -> None:
    compiler = _need("gcc")
    # A program in a bin directory brings its prefix: keep the logs out of it.
    program = tmp_path / "build" / "bin" / "first_legal"
    program.parent.mkdir(parents=True)
    subprocess.run(
        [compiler, "-O2", "-o", str(program), str(RUNTIMES / "first_legal.c")], check=True
    )
    await _plays(dict.fromkeys("ABCD", str(program)), tmp_path)


async def test_jvm_bot(tmp_path: Path) -> None:
    javac, java = _need("javac"), _need("java")
    classes = tmp_path / "classes"
    subprocess.run(
        [javac, "-d", str(classes), str(RUNTIMES / "FirstLegal.java")], check=True, timeout=120
    )
    command = shlex.join([java, "-cp", str(classes), "FirstLegal"])
    random = shlex.join([sys.executable, str(RANDOM_BOT)])
    await _plays({"A": command, "B": random, "C": command, "D": random}, tmp_path)
