"""A model bot — onnxruntime on a small policy kept beside its script — plays whole matches
under the default sandbox, with a referee run as root and as ``nobody``, on every CPU the
referee may use and on one. In each it sees its seat: the seat's CPUs (``os.cpu_count``, the
affinity), the seat's memory bound (``/proc/meminfo``, ``sysconf``), the thread-count
variables of the referee's environment and no others; and it writes nothing on stderr but
onnxruntime's telemetry line (no ``Error in cpuinfo``, no ``cpuinfo_initialize failed``, no
refused device discovery).

The bot runs on a venv of the system's Python (``support.model_bots``), as an author who
wants a uid of their own per seat would run it.
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
from support.model_bots import model_venv, placed_model_bot
from support.unprivileged import SYSTEM_PYTHON, nobodys_folder, why_not

from referee.bench.nobody import as_nobody
from referee.match.runner import BUNDLED_BOTS
from referee.record.sandbox import Layer
from referee.sandbox.layers import available

#: The seat's memory bound in these matches (not the default, so that it cannot be a
#: coincidence).
MEMORY_MB = 512
#: onnxruntime's one line in a seat: its telemetry keeps an identifier under ``$HOME``, which
#: a seat may not write (docs/runtimes.md).
TELEMETRY = "Failed to persist telemetry device ID"
#: The thread counts of numeric runtimes that reach a bot from the referee's environment.
THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "ORT_INTRA_OP_NUM_THREADS")
OPPONENT = shlex.join([SYSTEM_PYTHON, str(BUNDLED_BOTS / "random_bot.py")])

pytestmark = [
    pytest.mark.skipif(
        available()[Layer.NAMESPACES] is not None,
        reason=f"a seat is shown its machine only with namespaces: {available()[Layer.NAMESPACES]}",
    ),
    pytest.mark.skipif(not Path(SYSTEM_PYTHON).exists(), reason=f"no {SYSTEM_PYTHON} here"),
]


@pytest.fixture(scope="module")
def model_bot() -> Iterator[str]:
    """The model bot's command: its venv and its folder, which every user may read."""
    folder = Path(tempfile.mkdtemp(prefix="texas42-model-"))
    folder.chmod(0o755)
    try:
        python = model_venv(folder / "venv")
        script = placed_model_bot(folder / "bot")
        yield shlex.join([str(python), str(script), "--sizes"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _play(
    user: str, cpus: set[int], command: str, tmp_path: Path, env: dict[str, str]
) -> tuple[dict[str, Any], str]:
    """A match of the model bot in A and C under the default sandbox, the referee as
    ``user`` on ``cpus`` with ``env`` added to its environment: its outcome, and seat A's
    stderr."""
    first = f"import os; os.sched_setaffinity(0, {sorted(cpus)!r})"
    options = ("--json", "--seed", "7", "--memory-limit", str(MEMORY_MB))
    commands = (command, OPPONENT, command, OPPONENT)
    if user == "nobody":
        with nobodys_folder() as workdir:
            log = workdir / "match.jsonl"
            run = as_nobody(
                workdir, "match", *commands, "--log", str(log), *options,
                env=env, first=first, capture=True, timeout=180,
            )  # fmt: skip
            stderr = Path(f"{log}.A.stderr").read_text(errors="replace")
    else:
        log = tmp_path / "match.jsonl"
        program = f"{first}; from referee.cli import app; app()"
        run = subprocess.run(
            [sys.executable, "-c", program, "match", *commands, "--log", str(log), *options],
            capture_output=True, text=True, timeout=180, cwd=tmp_path, check=False,
            env={**{k: v for k, v in os.environ.items() if k not in THREADS}, **env},
        )  # fmt: skip
        stderr = Path(f"{log}.A.stderr").read_text(errors="replace")
    assert run.returncode == 0, run.stdout + run.stderr
    outcome: dict[str, Any] = json.loads(run.stdout)
    return outcome, stderr


@pytest.mark.parametrize("user", ["root", "nobody"])
@pytest.mark.parametrize("count", [0, 1], ids=["every-cpu", "one-cpu"])
def test_a_model_bot_sees_its_seat_and_plays(
    model_bot: str, tmp_path: Path, user: str, count: int
) -> None:
    if user == "nobody" and why_not() is not None:
        pytest.skip(str(why_not()))
    mine = sorted(os.sched_getaffinity(0))
    cpus = set(mine[:count] if count else mine)
    # the operator's choice on one CPU, to see it reach the bot; none otherwise
    given = dict.fromkeys(THREADS, "1") if count == 1 else {}
    outcome, stderr = _play(user, cpus, model_bot, tmp_path, given)
    assert outcome["forfeit"] is None and outcome["end"] == "marks", (outcome, stderr)
    seat = outcome["sandbox"]["seats"]["A"]
    assert {Layer.NAMESPACES, Layer.LANDLOCK, Layer.SECCOMP} <= set(seat), seat
    if user == "root":
        assert Layer.UID in seat, seat  # the system's Python: a uid of its own
    lines = stderr.splitlines()
    sizes = next(line for line in lines if line.startswith("{"))
    seen = json.loads(sizes)
    rest = [line for line in lines if line != sizes]
    assert seen["cpus"] == seen["affinity"] == len(cpus), seen
    assert seen["memory"] == seen["meminfo"] == MEMORY_MB << 20, seen
    assert seen["threads"] == {name: given.get(name) for name in THREADS}, seen
    assert [line for line in rest if TELEMETRY not in line] == [], stderr
