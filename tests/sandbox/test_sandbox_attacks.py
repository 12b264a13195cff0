"""A hostile bot against the sandbox: each attack succeeds with ``--sandbox off`` (so the
attack is real) and is refused under ``auto``; bounds stop a bot with a precise fault.

The attacker (``tests/bots/attacker_bot.py``) plays seat B against random bots and reports
what its attack got on stderr, which the referee keeps beside the log.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.processes import BOTS
from support.sandboxed import attack

from referee.record.log import read_log
from referee.record.records import FaultRecord
from referee.sandbox.layers import available

pytestmark = pytest.mark.skipif(
    available()["landlock"] is not None or available()["seccomp"] is not None,
    reason=f"this kernel has no Landlock or seccomp: {available()}",
)


@pytest.fixture
def port() -> Iterator[int]:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


ATTACKS = [
    ("read-file", "{log}"),
    ("read-file", "{secret}"),
    ("write-file", "{log}"),
    ("list-dir", "{logs}"),
    ("referee-fd", ""),
    ("referee-cmdline", ""),
    ("referee-environ", ""),
    ("referee-mem", ""),
    ("steal-stdin", ""),
    ("signal-referee", ""),
    ("signal-bot", ""),
    ("vm-read", ""),
    ("ptrace", ""),
    ("prlimit-referee", ""),
    ("chmod", "{secret}"),
    ("utime", "{secret}"),
    ("page-cache", ""),
    ("tcp", "{port}"),
    ("udp", "{port}"),
    ("setsid", ""),
    ("sysv-shm", ""),
    ("unix-socket", ""),
    ("flock", ""),
    ("inotify", ""),
    ("sysinfo", ""),
]


@pytest.mark.parametrize("mode", ["off", "auto"])
@pytest.mark.parametrize(("name", "target"), ATTACKS)
async def test_attack(tmp_path: Path, port: int, mode: str, name: str, target: str) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "secret.txt").write_text("the results file and stderr copies live here\n")
    target = target.format(
        log=logs / "match.jsonl", logs=logs, secret=logs / "secret.txt", port=port
    )
    report, outcome = await attack(tmp_path, mode, name, target)
    line = next((line for line in report.splitlines() if line.startswith("ATTACK")), "no report")
    if mode == "off":
        assert "SUCCEEDED" in line, line
    elif name in ("signal-bot", "steal-stdin") and "namespaces" in outcome.sandbox.seats["B"]:
        assert "BLOCKED ProcessLookupError" in line, line  # no other bot has a pid here
    elif str(logs) in target and "namespaces" in outcome.sandbox.seats["B"]:
        # The logs' directory is covered by an empty, read-only mount in the seat's view.
        refusals = ("FileNotFoundError", "PermissionError", "Read-only file system")
        assert "BLOCKED" in line and any(word in line for word in refusals), line
    else:
        assert "BLOCKED PermissionError" in line, line  # refused, not missed
        if name in ("chmod", "utime"):
            assert (logs / "secret.txt").stat().st_mtime_ns != 987654321
        assert outcome.forfeit is None  # nothing broke: the match was played out
    assert outcome.end == "max_hands"


AUTOGROUP = Path("/proc/sys/kernel/sched_autogroup_enabled")


@pytest.fixture
def no_autogroup() -> Iterator[None]:
    """The kernel's autogroup shares the CPU per session, which would hide the difference:
    turn it off for the test (as on many servers), and back on after."""
    try:
        before = AUTOGROUP.read_text()
        AUTOGROUP.write_text("0")
    except OSError:
        pytest.skip("cannot turn the kernel's autogroup off here (needs root)")
    try:
        yield
    finally:
        AUTOGROUP.write_text(before)


def _cgroup() -> bool:
    return available()["cgroup"] is None


async def test_fork_bomb_is_bounded(tmp_path: Path) -> None:
    report, outcome = await attack(tmp_path, "auto", "fork-bomb", max_processes=24)
    assert "BLOCKED" in report, report
    stopped_after = int(report.split("stopped after ")[1].split()[0])
    assert stopped_after < 24
    assert outcome.end == "max_hands"


@pytest.mark.skipif(not _cgroup(), reason="needs a memory cgroup (root) to name the fault")
async def test_memory_hog_is_a_memory_limit_fault(tmp_path: Path) -> None:
    _, outcome = await attack(tmp_path, "auto", "memory", memory_mb=64)
    assert outcome.forfeit is not None and outcome.forfeit.seat == "B"
    assert outcome.forfeit.reason == "memory_limit", outcome.forfeit


async def test_memory_hog_without_cgroup_gets_memory_error(tmp_path: Path) -> None:
    # The data-segment limit alone (as for a referee without root): allocations fail.
    report, _ = await attack(tmp_path, "auto", "memory", memory_mb=64, max_processes=64)
    assert "MemoryError" in report or "memory_limit" in str(_), report


async def test_cpu_hog_is_a_cpu_limit_fault(tmp_path: Path) -> None:
    _, outcome = await attack(tmp_path, "auto", "cpu", cpu_seconds=1)
    assert outcome.forfeit is not None and outcome.forfeit.seat == "B"
    assert outcome.forfeit.reason == "cpu_limit", outcome.forfeit


async def test_big_file_is_a_file_size_fault(tmp_path: Path) -> None:
    _, outcome = await attack(tmp_path, "auto", "file-size", file_size_mb=1)
    assert outcome.forfeit is not None and outcome.forfeit.seat == "B"
    assert outcome.forfeit.reason == "file_size_limit", outcome.forfeit
    records = read_log(tmp_path / "logs" / "match.jsonl").records
    faults = [record for record in records if isinstance(record, FaultRecord)]
    assert "1 MiB" in faults[0].detail


@pytest.mark.skipif(available()["tmpfs"] is not None, reason="needs root to mount a tmpfs")
async def test_scratch_cannot_fill_the_disk(tmp_path: Path) -> None:
    report, outcome = await attack(tmp_path, "auto", "disk-fill", scratch_mb=8)
    assert "BLOCKED OSError" in report and "No space left" in report, report
    assert int(report.split("stopped after ")[1].split()[0]) <= 8
    assert outcome.end == "max_hands"


@pytest.mark.skipif(not _cgroup(), reason="needs control groups (root) for a CPU share per seat")
@pytest.mark.parametrize("mode", ["off", "auto"])
async def test_spinners_cannot_starve_a_thinking_opponent(
    tmp_path: Path, mode: str, no_autogroup: None
) -> None:
    # 40 spinning children of B against A, which needs 150 ms of CPU per answer within 1.5 s:
    # with the sandbox each seat's tree has an equal share of the CPU; without it A gets a
    # 41st of the machine and times out.
    thinker = [sys.executable, str(BOTS / "thinker_bot.py"), "--cpu-ms", "150"]
    _, outcome = await attack(tmp_path, mode, "cpu-hog", "40", opponent=thinker, move_timeout=1.5)
    if mode == "off":
        assert outcome.forfeit is not None and outcome.forfeit.seat == "A"
        assert outcome.forfeit.reason == "timeout"
    else:
        assert outcome.forfeit is None, outcome.forfeit
        assert outcome.end == "max_hands"


async def test_open_files_are_bounded(tmp_path: Path) -> None:
    report, _ = await attack(tmp_path, "auto", "open-files")
    assert "BLOCKED OSError: [Errno 24]" in report, report  # EMFILE
    assert int(report.split("stopped after ")[1].split()[0]) < 1024


async def test_sandbox_allow_opens_exactly_that_path(tmp_path: Path) -> None:
    model = tmp_path / "model" / "weights.bin"
    model.parent.mkdir()
    model.write_bytes(b"weights")
    (tmp_path / "model" / "other.bin").write_bytes(b"other")
    report, _ = await attack(tmp_path, "auto", "read-file", str(model), allow=(str(model),))
    assert "SUCCEEDED b'weights'" in report, report
    other = tmp_path / "model" / "other.bin"
    (tmp_path / "again").mkdir()
    report, _ = await attack(
        tmp_path / "again", "auto", "read-file", str(other), allow=(str(model),)
    )
    assert "BLOCKED PermissionError" in report, report


async def test_page_cache_cannot_be_probed(tmp_path: Path) -> None:
    report, _ = await attack(tmp_path, "auto", "page-probe")
    assert "BLOCKED OSError: [Errno 95]" in report, report  # EOPNOTSUPP: RWF_NOWAIT refused


async def test_nested_directories_in_the_scratch_cannot_void_the_match(tmp_path: Path) -> None:
    # A sore loser's 1,500 nested directories (and one of mode 0300): a recursive delete
    # raised RecursionError at the clean-up, and the match had no outcome.
    report, outcome = await attack(tmp_path, "auto", "nest")
    assert "SUCCEEDED" in report, report
    assert outcome.end == "max_hands" and outcome.forfeit is None
