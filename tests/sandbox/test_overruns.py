"""Which bound a failed bot went over, from its exit, its control group's counters and its
runtime's words: ``overruns.charged`` in memory, over the lines real runtimes write."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from referee.errors import (
    BotCrashed,
    BotFault,
    BotNotReading,
    BotStartFailed,
    BotTimeout,
    CpuLimit,
    FileSizeLimit,
    LineTooLong,
    MemoryLimit,
    ProcessLimit,
    Resigned,
    TooManyRejections,
    reason_code,
)
from referee.sandbox.cgroups import SeatCgroup
from referee.sandbox.overruns import BOUNDS, QUOTED_CHARS, Bound, Evidence, charged, quoted
from referee.settings import MatchLimits

LIMITS = MatchLimits(memory_mb=64, max_processes=16, cpu_seconds=5, file_size_mb=8)
CRASHED = BotCrashed("the bot closed its output")
REFUSED = TooManyRejections("3 lines refused before 'ready'")

#: What runtimes wrote when they met a bound (measured here: Debian's Java 17, Python 3.11,
#: node 20, bash), and the bound each names.
JVM_MMAP = (
    "#",
    "# There is insufficient memory for the Java Runtime Environment to continue.",
    "# Native memory allocation (mmap) failed to map 8192 bytes. Error detail: committing"
    " reserved memory.",
)
JVM_THREAD = (
    '[0.292s][warning][os,thread] Failed to start thread "Unknown thread" - pthread_create'
    " failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 0k, detached.",
)
WORDS = [
    (
        "memory",
        (
            "OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x7f, 8192, 0) failed;"
            " error='Not enough space' (errno=12)",
        ),
    ),
    ("memory", ('Exception in thread "main" java.lang.OutOfMemoryError: Java heap space',)),
    (
        "memory",
        (
            "Traceback (most recent call last):",
            "    kept.append(bytearray(1 << 20))",
            "MemoryError",
        ),
    ),
    (
        "memory",
        (
            "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
            " 1: 0xb7a940 node::Abort() [node]",
        ),
    ),
    ("memory", ("# Fatal process out of memory: Zone",)),
    ("memory", ("RangeError: Array buffer allocation failed",)),
    ("memory", ("fatal error: runtime: out of memory",)),
    ("memory", ("memory allocation of 1048576 bytes failed",)),
    ("memory", ("terminate called after throwing an instance of 'std::bad_alloc'",)),
    (
        "processes",
        (
            'Exception in thread "main" java.lang.OutOfMemoryError: unable to create'
            " native thread: possibly out of memory or process/resource limits reached",
        ),
    ),
    ("processes", ("RuntimeError: can't start new thread",)),
    ("processes", ("Error: spawn /usr/bin/node EAGAIN",)),
    ("processes", ("runtime: failed to create new OS thread (have 7 already; errno=11)",)),
    ("processes", ("bash: fork: retry: Resource temporarily unavailable",)),
    (
        "processes",
        (
            '  File "bot.py", line 9, in <module>',
            "    pid = os.fork()",
            "BlockingIOError: [Errno 11] Resource temporarily unavailable",
        ),
    ),
    ("cpu", ("CPU time limit exceeded (core dumped)",)),
    ("file_size", ("OSError: [Errno 27] File too large",)),
]
BOUND_FAULTS: dict[str, type[BotFault]] = {
    "memory": MemoryLimit,
    "processes": ProcessLimit,
    "cpu": CpuLimit,
    "file_size": FileSizeLimit,
}


def test_a_jvm_fatal_report_on_stdout_is_the_memory_bound_not_refused_answers() -> None:
    fault = charged(REFUSED, Evidence(stdout=JVM_MMAP), LIMITS)
    assert type(fault) is MemoryLimit
    assert str(fault) == (
        "the bot ran out of memory under the seat's bound of 64 MiB; its runtime wrote on"
        " stdout: '# There is insufficient memory for the Java Runtime Environment to"
        " continue.' (seen as too_many_rejections)"
    )


def test_a_jvm_thread_warning_on_stdout_is_the_process_bound_however_the_fault_showed() -> None:
    # Seat A's JVM died of it, seat C's answers were refused first: both the same fault.
    for seen in (CRASHED, REFUSED, BotTimeout("no answer in time")):
        fault = charged(seen, Evidence(stdout=JVM_THREAD), LIMITS)
        assert type(fault) is ProcessLimit, seen
        assert "under the seat's bound of 16 processes and threads" in str(fault)
        assert "pthread_create failed (EAGAIN)" in str(fault)
        assert str(fault).endswith(f"(seen as {reason_code(seen)})")


@pytest.mark.parametrize(("bound", "lines"), WORDS, ids=[lines[-1][:40] for _, lines in WORDS])
def test_a_runtimes_last_words_name_its_bound(bound: Bound, lines: tuple[str, ...]) -> None:
    fault = charged(CRASHED, Evidence(returncode=1, stderr=lines), LIMITS)
    assert type(fault) is BOUND_FAULTS[bound]
    assert "its runtime wrote on stderr: " in str(fault)


@pytest.mark.parametrize(("bound", "lines"), WORDS, ids=[lines[-1][:40] for _, lines in WORDS])
def test_a_bound_not_in_force_is_never_named(bound: Bound, lines: tuple[str, ...]) -> None:
    # A thread refused on a machine with no process bound (a root seat without a uid or a
    # control group) is the machine's, not the seat's bound: the crash stays a crash.
    bounds = BOUNDS - {bound}
    evidence = Evidence(returncode=1, stderr=lines, bounds=bounds)
    assert charged(CRASHED, evidence, LIMITS) is CRASHED


def test_stderr_counts_only_once_the_bot_has_ended() -> None:
    # A bot still running whose answers were refused: its stderr may be from long ago.
    alive = Evidence(returncode=None, stderr=("MemoryError",))
    assert charged(REFUSED, alive, LIMITS) is REFUSED
    ended = Evidence(returncode=1, stderr=("MemoryError",))
    assert type(charged(REFUSED, ended, LIMITS)) is MemoryLimit


def test_eagain_alone_is_no_sign_of_the_process_bound() -> None:
    # A non-blocking read says "Resource temporarily unavailable" too.
    lines = (
        "    data = os.read(0, 4096)",
        "BlockingIOError: [Errno 11] Resource temporarily unavailable",
    )
    assert charged(CRASHED, Evidence(returncode=1, stderr=lines), LIMITS) is CRASHED


def test_the_signals_of_per_process_limits() -> None:
    cpu = charged(CRASHED, Evidence(returncode=-signal.SIGXCPU), LIMITS)
    assert (type(cpu), str(cpu)) == (CpuLimit, "a process of the bot used its 5 s of CPU")
    size = charged(CRASHED, Evidence(returncode=-signal.SIGXFSZ), LIMITS)
    assert (type(size), str(size)) == (FileSizeLimit, "the bot wrote a file over 8 MiB")


def test_the_control_groups_counters_with_the_runtimes_words_quoted() -> None:
    evidence = Evidence(returncode=-signal.SIGKILL, oom_killed=True)
    fault = charged(CRASHED, evidence, LIMITS)
    assert (type(fault), str(fault)) == (
        MemoryLimit,
        "the bot's processes reached the memory bound of 64 MiB",
    )
    evidence = Evidence(
        returncode=1, forks_refused=True, stderr=("RuntimeError: can't start new thread",)
    )
    fault = charged(CRASHED, evidence, LIMITS)
    assert type(fault) is ProcessLimit
    assert str(fault) == (
        "the bot's tree reached its bound of 16 processes; its runtime wrote on stderr:"
        ' "RuntimeError: can\'t start new thread"'
    )


def test_counters_charge_a_bot_that_answers_still_only_by_its_words() -> None:
    # A bot that met pids.max hands ago and coped, then sent garbage while running: the
    # garbage is its fault, not the bound.
    evidence = Evidence(returncode=None, oom_killed=True, forks_refused=True)
    assert charged(REFUSED, evidence, LIMITS) is REFUSED
    assert charged(LineTooLong("a line too long"), evidence, LIMITS).__class__ is LineTooLong
    # One gone away is charged by the counters, as before.
    assert type(charged(BotNotReading("stopped"), evidence, LIMITS)) is MemoryLimit


@pytest.mark.parametrize(
    "fault",
    [BotStartFailed("cannot start"), Resigned("left"), MemoryLimit("already"), CpuLimit("cpu")],
    ids=reason_code,
)
def test_what_no_bound_explains_is_left_alone(fault: BotFault) -> None:
    evidence = Evidence(returncode=-signal.SIGXCPU, oom_killed=True, stdout=JVM_MMAP)
    assert charged(fault, evidence, LIMITS) is fault


def test_no_words_leave_the_fault_as_it_was() -> None:
    evidence = Evidence(returncode=1, stdout=("eval=+3",), stderr=("IndexError: list index",))
    assert charged(CRASHED, evidence, LIMITS) is CRASHED
    assert charged(REFUSED, evidence, LIMITS) is REFUSED


def test_a_bots_words_never_turn_a_fault_into_none() -> None:
    # Whatever a bot writes, the answer is a fault (the same fault, or a bound's).
    hostile = (*JVM_MMAP, *JVM_THREAD, "MemoryError", "CPU time limit exceeded", "ok", "")
    for seen in (CRASHED, REFUSED, LineTooLong("long"), BotTimeout("late")):
        for returncode in (None, 0, 1, -signal.SIGKILL):
            fault = charged(seen, Evidence(returncode, stdout=hostile, stderr=hostile), LIMITS)
            assert isinstance(fault, BotFault)


def test_the_quoted_line_is_cut_and_escaped() -> None:
    line = "MemoryError: \x1b[31m\u202e" + "x" * 500 + "\n"
    fault = charged(CRASHED, Evidence(returncode=1, stderr=(line,)), LIMITS)
    detail = str(fault)
    assert "\x1b" not in detail and "\u202e" not in detail and "\n" not in detail
    assert "\\x1b[31m\\u202e" in detail
    assert quoted(line) in detail
    assert len(quoted(line)) < QUOTED_CHARS + 30
    assert quoted(line).endswith("…'")


def _group(folder: Path, unified: bool) -> SeatCgroup:
    """A seat's group over files of the kernel's formats in ``folder``, its zero taken."""
    group = SeatCgroup.__new__(SeatCgroup)
    group.memory = group.pids = folder
    group.unified = unified
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 40\noom 0\noom_kill 0\n")
    (folder / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 0\n")
    (folder / "pids.events").write_text("max 0\n")
    group.rebase()
    return group


@pytest.mark.parametrize("unified", [True, False], ids=["v2", "v1"])
def test_the_control_groups_counters_as_the_kernel_writes_them(
    tmp_path: Path, unified: bool
) -> None:
    group = _group(tmp_path, unified)
    # The page cache filling the group up to its bound is no fault.
    (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 900\noom 0\noom_kill 0\n")
    assert not group.hit_memory_bound() and not group.hit_process_bound()
    (tmp_path / "pids.events").write_text("max 3\n")
    assert group.hit_process_bound() and not group.hit_memory_bound()
    if unified:  # an allocation failed at the bound: v2 counts it even when nothing was killed
        (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 901\noom 1\noom_kill 0\n")
    else:
        (tmp_path / "memory.oom_control").write_text(
            "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n"
        )
    assert group.hit_memory_bound()
    group.rebase()  # a kept bot's next match starts from zero again
    assert not group.hit_memory_bound() and not group.hit_process_bound()
