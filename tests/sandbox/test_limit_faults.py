"""Bots that go over their seat's memory or process bound are charged that bound's fault, at
every seat alike, whether the control group saw it (a referee run as root) or only the
runtime's own words tell it (``nobody``: rlimits, no control group) — a JVM's fatal report
or thread warnings on stdout, Python's and node's last words on stderr.

Every bot here goes over its bound when greeted, so all four seats fail at the start and each
is charged (the match is void): one match shows whether the seats are charged alike.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.unprivileged import nobodys_folder, referee_as_nobody, why_not

from referee.record.sandbox import Layer
from referee.sandbox.layers import available

LIMITS = Path(__file__).resolve().parents[1] / "bots" / "limits"
JAVA = "/usr/bin/java"
#: The bound each case goes over, its option, and the fault it must be charged.
BOUNDS = {
    "memory": (["--memory-limit", "64"], "memory_limit"),
    "processes": (["--max-processes", "16"], "process_limit"),
}
#: What the runtime's own line says, where no control group counted it (``nobody``).
WORDS = {
    ("java", "memory"): "There is insufficient memory for the Java Runtime Environment",
    ("java", "processes"): "pthread_create failed (EAGAIN)",
    ("python", "memory"): "MemoryError",
    ("python", "processes"): "can't start new thread",
    ("node", "memory"): "JavaScript heap out of memory",
    ("node", "processes"): "EAGAIN",
}


@pytest.fixture(scope="module")
def hogs() -> Iterator[dict[str, list[str]]]:
    """The hog bots in a folder every user may read, the JVM's compiled once: the command of
    each runtime's, before its bound's name."""
    if shutil.which("javac") is None or not os.path.exists(JAVA):
        if os.environ.get("CI"):
            pytest.fail("no javac or java: sh tests/install_tools.sh installs them")
        pytest.skip("no javac or java on this machine (sh tests/install_tools.sh installs them)")
    if shutil.which("node") is None:
        pytest.skip("no node on this machine (sh tests/install_tools.sh installs it)")
    folder = Path(tempfile.mkdtemp(prefix="texas42-hogs-"))
    try:
        subprocess.run(
            ["javac", "-d", str(folder), str(LIMITS / "Hog.java")], check=True, timeout=120
        )
        for name in ("hog_bot.py", "hog_bot.js"):
            shutil.copy2(LIMITS / name, folder / name)
        for path in [folder, *folder.iterdir()]:
            path.chmod(0o755)
        yield {
            # A heap bound above the seat's, as an author sizing the JVM for a larger machine
            # sets it: the heap grows until the seat's bound stops it, not the JVM's own.
            "java": [JAVA, "-Xmx512m", "-cp", str(folder), "Hog"],
            "python": ["/usr/bin/python3", str(folder / "hog_bot.py")],
            "node": [shutil.which("node") or "node", str(folder / "hog_bot.js")],
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _play(user: str, commands: list[str], options: list[str]) -> dict[str, Any]:
    """One match of the four commands, the referee run as ``user``: its outcome."""
    args = ["match", *commands, "--json", "--seed", "7", *options]
    if user == "root":
        with tempfile.TemporaryDirectory() as folder:
            log = Path(folder) / "match.jsonl"
            run = subprocess.run(
                [sys.executable, "-c", "from referee.cli import app; app()", *args, "--log",
                 str(log)],
                cwd=folder, capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
    else:
        with nobodys_folder() as folder:
            run = referee_as_nobody(folder, *args, "--log", str(folder / "m.jsonl"), timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    outcome: dict[str, Any] = json.loads(run.stdout)
    return outcome


def _user(user: str) -> None:
    """Skip where the machine cannot give ``user``'s path, saying exactly why."""
    if user == "root" and os.geteuid() != 0:
        pytest.skip("a referee run as root needs the tests run as root")
    if user == "root" and available()[Layer.CGROUP] is not None:
        pytest.skip(f"no control groups here: {available()[Layer.CGROUP]}")
    if user == "nobody" and why_not() is not None:
        pytest.skip(str(why_not()))


def _charged(
    outcome: dict[str, Any], kinds: dict[str, str], bound: str, user: str
) -> dict[str, str]:
    """Every seat charged the bound's fault, its detail quoting the runtime where no control
    group counted it; the details, by seat."""
    expected = BOUNDS[bound][1]
    assert outcome["end"] == "void", outcome
    failures = outcome["failures"]
    assert isinstance(failures, dict)
    reasons = {seat: failure["reason"] for seat, failure in failures.items()}
    assert reasons == dict.fromkeys("ABCD", expected), failures
    details = {seat: failure["detail"] for seat, failure in failures.items()}
    for seat, kind in kinds.items():
        if user == "nobody":
            assert "its runtime wrote on" in details[seat], details[seat]
            assert WORDS[kind, bound] in details[seat], details[seat]
        assert "\n" not in details[seat] and "\x1b" not in details[seat]
    return details


@pytest.mark.parametrize("user", ["root", "nobody"])
@pytest.mark.parametrize("bound", list(BOUNDS))
def test_a_jvm_over_its_bound_is_charged_the_bound_at_every_seat(
    hogs: dict[str, list[str]], bound: str, user: str
) -> None:
    _user(user)
    command = shlex.join([*hogs["java"], bound])
    outcome = _play(user, [command] * 4, BOUNDS[bound][0])
    details = _charged(outcome, dict.fromkeys("ABCD", "java"), bound, user)
    if user == "nobody" and bound == "memory":
        # The JVM's report went to stdout: its lines were refused, and that is how it showed.
        assert all("(seen as too_many_rejections)" in d or "(seen as crashed)" in d
                   for d in details.values()), details  # fmt: skip
        assert all("wrote on stdout" in detail for detail in details.values()), details


@pytest.mark.parametrize("user", ["root", "nobody"])
@pytest.mark.parametrize("bound", list(BOUNDS))
def test_python_and_node_over_their_bound_are_charged_the_bound(
    hogs: dict[str, list[str]], bound: str, user: str
) -> None:
    _user(user)
    kinds = {"A": "python", "B": "node", "C": "python", "D": "node"}
    commands = [shlex.join([*hogs[kinds[seat]], bound]) for seat in "ABCD"]
    outcome = _play(user, commands, BOUNDS[bound][0])
    _charged(outcome, kinds, bound, user)


@pytest.mark.parametrize("user", ["root", "nobody"])
def test_a_thread_refused_and_told_on_stdout_is_the_process_bound(
    hogs: dict[str, list[str]], user: str
) -> None:
    # The bot lives on, having written Python's words where its answers go: silence follows,
    # and the words, not the silence, are what is charged — by the control group's count
    # too, none counted here while the bot is still running.
    _user(user)
    command = shlex.join([*hogs["python"], "processes", "--caught"])
    options = [*BOUNDS["processes"][0], "--startup-timeout", "5"]
    outcome = _play(user, [command] * 4, options)
    details = _charged(outcome, dict.fromkeys("ABCD", "python"), "processes", "nobody")
    for detail in details.values():
        assert 'its runtime wrote on stdout: "RuntimeError: can\'t start new thread"' in detail
        assert detail.endswith("(seen as timeout)"), detail
