"""The layers that need no root, in a referee that has none: the test drops to another uid
(``nobody``) and runs the referee there with the system's Python and this checkout's code.

The bots run as the same uid as the referee, so file permissions and signal permissions
protect nothing here: whatever is blocked is blocked by Landlock and seccomp alone.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.unprivileged import (
    ROOT,
    SYSTEM_PYTHON,
    nobodys_folder,
    referee_as_nobody,
    why_not,
)

BOTS = Path(__file__).resolve().parents[1] / "bots"

pytestmark = pytest.mark.skipif(why_not() is not None, reason=str(why_not()))


@pytest.fixture
def workdir() -> Iterator[Path]:
    with nobodys_folder() as folder:
        yield folder


#: Run first in the unprivileged referee to play as on a machine without namespaces.
WITHOUT_NAMESPACES = (
    "import referee.sandbox.policy as policy; status = dict(policy.available());"
    " status['namespaces'] = 'off for the test'; policy.available = lambda: status"
)


@pytest.mark.parametrize(
    ("attack", "mode"),
    [
        *((name, mode) for name in ("read-log", "signal-referee", "referee-fd", "list-scratch")
          for mode in ("off", "auto")),
        ("setsid", "auto"),  # with the sandbox off it escapes: tested as root
    ],
)  # fmt: skip
def test_attack_on_an_unprivilegedreferee_as_nobody(workdir: Path, attack: str, mode: str) -> None:
    log = workdir / "logs" / "match.jsonl"
    target = {"read-log": str(log), "list-scratch": "/tmp"}.get(attack, "")
    name = {"read-log": "read-file", "list-scratch": "list-dir"}.get(attack, attack)
    attacker = shlex.join([SYSTEM_PYTHON, str(BOTS / "attacker_bot.py"), "--attack", name])
    random_bot = shlex.join([SYSTEM_PYTHON, str(ROOT / "example_bots" / "random_bot.py")])
    run = referee_as_nobody(
        workdir, "match", random_bot, attacker, "--log", str(log), "--max-hands", "1",
        "--json", "--sandbox", mode, "--sandbox-env", "ATTACK_TARGET", target=target,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    outcome = json.loads(run.stdout)
    layers = outcome["sandbox"]["seats"]["B"]
    report = (workdir / "logs" / "match.jsonl.B.stderr").read_text()
    if mode == "off":  # the attack is real: as the referee's own uid, nothing stops it
        assert "SUCCEEDED" in report, report
        return
    assert "landlock" in layers and "seccomp" in layers and "uid" not in layers
    assert "cgroup" not in layers
    hidden = attack == "read-log" and "namespaces" in layers  # an empty mount over the logs
    assert "BLOCKED PermissionError" in report or (hidden and "FileNotFoundError" in report)
    assert outcome["end"] == "max_hands"


def test_strict_needs_root(workdir: Path) -> None:
    # without root every seat shares the referee's kernel uid, and its per-user counters
    run = referee_as_nobody(workdir, "sandbox", "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    answer = json.loads(run.stdout)
    rows = {row["layer"]: row for row in answer["layers"]}
    assert answer["strict_ready"] is False
    assert rows["uid"]["works"] is False and "pipe buffers" in rows["uid"]["detail"]
    assert rows["cgroup"]["works"] is False and "root" in rows["cgroup"]["detail"]
    assert rows["landlock"]["works"] and rows["seccomp"]["works"]
    log = workdir / "logs" / "match.jsonl"
    refused = referee_as_nobody(
        workdir, "match", "--log", str(log), "--sandbox", "strict", "--max-hands", "1"
    )
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.count("\n") == 1, refused.stderr
    assert "--sandbox strict: uid is not available" in refused.stderr
    assert "run the referee as root, or use --sandbox auto" in refused.stderr
    assert not log.exists()
    assert os.getuid() == 0 and sys.executable  # the test itself stays root


def _match(workdir: Path, bots: dict[str, list[str]], *options: str, first: str = "pass") -> dict:
    """A one-hand match of ``bots`` (by seat; random elsewhere) run by the unprivileged
    referee; its outcome as JSON."""
    random_bot = [SYSTEM_PYTHON, str(ROOT / "example_bots" / "random_bot.py")]
    commands = [shlex.join(bots.get(seat, random_bot)) for seat in "ABCD"]
    log = workdir / "logs" / "match.jsonl"
    run = referee_as_nobody(
        workdir, "match", *commands, "--log", str(log), "--max-hands", "1", "--json",
        "--move-timeout", "3", *options, first=first,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    outcome: dict = json.loads(run.stdout)
    return outcome


def _stderr(workdir: Path, seat: str) -> str:
    path = workdir / "logs" / f"match.jsonl.{seat}.stderr"
    return path.read_text() if path.exists() else ""


@pytest.mark.parametrize("mode", ["off", "auto"])
def test_partners_cannot_talk_through_nice_values_without_root(workdir: Path, mode: str) -> None:
    channel = [SYSTEM_PYTHON, str(BOTS / "sched_channel_bot.py"), "--role"]
    outcome = _match(
        workdir, {"B": [*channel, "send"], "D": [*channel, "receive"]}, "--sandbox", mode
    )
    said = _stderr(workdir, "D")
    if mode == "off":
        assert "CHANNEL got" in said, said
        return
    assert "namespaces" in outcome["sandbox"]["seats"]["D"]
    assert "CHANNEL nothing" in said and "ProcessLookupError" in said, said


@pytest.mark.parametrize("namespaces", [True, False])
def test_one_seats_processes_do_not_starve_another_without_root(
    workdir: Path, namespaces: bool
) -> None:
    # B forks until it may not; A starts eight threads before every answer. Without a user
    # namespace RLIMIT_NPROC counts the whole uid, and A is left without one.
    attacker = [SYSTEM_PYTHON, str(BOTS / "attacker_bot.py"), "--attack", "fork-bomb"]
    victim = [SYSTEM_PYTHON, str(BOTS / "thread_bot.py")]
    first = "pass" if namespaces else WITHOUT_NAMESPACES
    outcome = _match(workdir, {"A": victim, "B": attacker}, "--sandbox", "auto", first=first)
    assert "BLOCKED" in _stderr(workdir, "B")  # the bomb met its own bound
    if namespaces:
        assert outcome["forfeit"] is None, outcome["forfeit"]
        assert "THREADS refused" not in _stderr(workdir, "A")
    else:
        assert "THREADS refused" in _stderr(workdir, "A")
        assert outcome["forfeit"]["seat"] == "A"


@pytest.mark.parametrize("namespaces", [True, False])
def test_what_a_bot_builds_in_its_scratch_cannot_void_the_match(
    workdir: Path, namespaces: bool
) -> None:
    # 1,500 nested directories and one closed to its owner: a recursive delete raised
    # RecursionError there, and the match had no outcome.
    attacker = [SYSTEM_PYTHON, str(BOTS / "attacker_bot.py"), "--attack", "nest"]
    first = "pass" if namespaces else WITHOUT_NAMESPACES
    outcome = _match(workdir, {"B": attacker}, "--sandbox", "auto", first=first)
    assert "SUCCEEDED" in _stderr(workdir, "B"), _stderr(workdir, "B")
    assert outcome["end"] == "max_hands" and outcome["forfeit"] is None
    assert list((workdir / "tmp").iterdir()) == []  # every scratch directory removed
