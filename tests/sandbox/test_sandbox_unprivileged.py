"""The layers that need no root, in a referee that has none: the test drops to another uid
(``nobody``) and runs the referee there with the system's Python and this checkout's code.

The bots run as the same uid as the referee, so file permissions and signal permissions
protect nothing here: whatever is blocked is blocked by Landlock and seccomp alone.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import site
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import referee
from referee.sandbox.layers import available
from referee.sandbox.paths import unreadable_by_others

ROOT = Path(referee.__file__).resolve().parent.parent
BOTS = Path(__file__).resolve().parents[1] / "bots"
SYSTEM_PYTHON = "/usr/bin/python3"
NOBODY = 65534
PATHS = [str(ROOT), *site.getsitepackages()]


def _why_not() -> str | None:
    if os.geteuid() != 0:
        return "the test needs root to drop to another uid"
    if not os.path.exists(SYSTEM_PYTHON):
        return f"no {SYSTEM_PYTHON} that another uid could run"
    if available()["landlock"] is not None:
        return f"no Landlock: {available()['landlock']}"
    for path in [SYSTEM_PYTHON, *(os.path.join(p, "x") for p in PATHS)]:
        blocked = unreadable_by_others([SYSTEM_PYTHON, path])
        if blocked is not None and os.path.exists(os.path.dirname(path)):
            return f"another uid cannot reach {blocked[0]} (the checkout or its packages)"
    check = subprocess.run(
        [SYSTEM_PYTHON, "-c", f"import sys; sys.path[:0] = {PATHS!r}; import msgspec, trio"],
        capture_output=True,
        check=False,
    )
    if check.returncode != 0:
        return f"{SYSTEM_PYTHON} cannot import the referee's packages: {check.stderr[-200:]!r}"
    return None


pytestmark = pytest.mark.skipif(_why_not() is not None, reason=str(_why_not()))


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A directory the unprivileged referee owns (pytest's tmp_path is root's alone), with
    its temporary directory in it."""
    folder = Path(tempfile.mkdtemp(prefix="texas42-nobody-"))
    (folder / "tmp").mkdir()
    for path in (folder, folder / "tmp"):
        os.chown(path, NOBODY, NOBODY)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


#: Run first in the unprivileged referee to play as on a machine without namespaces.
WITHOUT_NAMESPACES = (
    "import referee.sandbox.policy as policy; status = dict(policy.available());"
    " status['namespaces'] = 'off for the test'; policy.available = lambda: status"
)


def _referee(
    workdir: Path, *args: str, target: str = "", first: str = "pass"
) -> subprocess.CompletedProcess[str]:
    program = f"import sys; sys.path[:0] = {PATHS!r}; {first}; from referee.cli import app; app()"
    return subprocess.run(
        [SYSTEM_PYTHON, "-c", program, *args],
        user=NOBODY,
        group=NOBODY,
        extra_groups=[],
        cwd=workdir,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(workdir),
            "ATTACK_TARGET": target,
            "TMPDIR": str(workdir / "tmp"),  # the scratch roots: this test's alone
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("attack", "mode"),
    [
        *((name, mode) for name in ("read-log", "signal-referee", "referee-fd", "list-scratch")
          for mode in ("off", "strict")),
        ("setsid", "strict"),  # with the sandbox off it escapes: tested as root
    ],
)  # fmt: skip
def test_attack_on_an_unprivileged_referee(workdir: Path, attack: str, mode: str) -> None:
    log = workdir / "logs" / "match.jsonl"
    target = {"read-log": str(log), "list-scratch": "/tmp"}.get(attack, "")
    name = {"read-log": "read-file", "list-scratch": "list-dir"}.get(attack, attack)
    attacker = shlex.join([SYSTEM_PYTHON, str(BOTS / "attacker_bot.py"), "--attack", name])
    random_bot = shlex.join([SYSTEM_PYTHON, str(ROOT / "example_bots" / "random_bot.py")])
    run = _referee(
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


def test_strict_needs_no_root(workdir: Path) -> None:
    run = _referee(workdir, "sandbox", "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    rows = {row["layer"]: row for row in json.loads(run.stdout)["layers"]}
    assert rows["cgroup"]["works"] is False and "root" in rows["cgroup"]["detail"]
    assert rows["landlock"]["works"] and rows["seccomp"]["works"]
    assert os.getuid() == 0 and sys.executable  # the test itself stays root


def _match(workdir: Path, bots: dict[str, list[str]], *options: str, first: str = "pass") -> dict:
    """A one-hand match of ``bots`` (by seat; random elsewhere) run by the unprivileged
    referee; its outcome as JSON."""
    random_bot = [SYSTEM_PYTHON, str(ROOT / "example_bots" / "random_bot.py")]
    commands = [shlex.join(bots.get(seat, random_bot)) for seat in "ABCD"]
    log = workdir / "logs" / "match.jsonl"
    run = _referee(
        workdir, "match", *commands, "--log", str(log), "--max-hands", "1", "--json",
        "--move-timeout", "3", *options, first=first,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    outcome: dict = json.loads(run.stdout)
    return outcome


def _stderr(workdir: Path, seat: str) -> str:
    path = workdir / "logs" / f"match.jsonl.{seat}.stderr"
    return path.read_text() if path.exists() else ""


@pytest.mark.parametrize("mode", ["off", "strict"])
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
