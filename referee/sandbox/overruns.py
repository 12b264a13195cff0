"""Which of its seat's bounds a bot went over, from what is known when it failed: how its
process ended, its control group's event counters, and its runtime's own words.

A runtime that meets a bound does not always die of a signal the referee can read: a JVM
under ``RLIMIT_DATA`` prints its fatal-error report on *stdout* ("Native memory allocation
(mmap) failed") and exits 1, and one under ``RLIMIT_NPROC`` warns on stdout
("pthread_create failed (EAGAIN)") before its uncaught ``OutOfMemoryError: unable to create
native thread``; Python ends with ``MemoryError``, node with "JavaScript heap out of memory".
Those lines are refused as answers, or end a crash's stderr, and without them the fault
would read ``too_many_rejections`` or ``crashed`` — one seat one way, its partner the other.

``charged`` is a pure function of that evidence. It only ever turns one fault into another
(a bound's), never into no fault, and every bound's fault costs what any fault costs: a bot
that writes a runtime's words on purpose gains nothing by it. A bound is named only where it
is in force for the seat (``Evidence.bounds``): a JVM out of threads on a machine with no
process bound is no ``process_limit``.
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass
from typing import Final, Literal

from referee.errors import (
    BotCrashed,
    BotFault,
    BotNotReading,
    BotTimeout,
    CpuLimit,
    FileSizeLimit,
    LineTooLong,
    MemoryLimit,
    ProcessLimit,
    Resigned,
    ResourceLimit,
    TooManyRejections,
    reason_code,
)
from referee.settings import MatchLimits

Bound = Literal["memory", "processes", "cpu", "file_size"]
#: Every bound a sandboxed bot runs under (the process bound only where it binds: a control
#: group's ``pids.max``, or ``RLIMIT_NPROC`` for a uid or user namespace of the seat's own).
BOUNDS: Final[frozenset[Bound]] = frozenset({"memory", "processes", "cpu", "file_size"})
#: Characters of a runtime's line quoted in a fault's detail.
QUOTED_CHARS: Final = 160

#: A runtime's words that name a bound: JVM, Python, node, Go, Rust, C++ and the shell's.
SIGNS: Final[tuple[tuple[Bound, re.Pattern[str]], ...]] = (
    (
        "processes",
        re.compile(
            r"unable to create (new )?native thread|pthread_create failed"
            r"|can't start new thread|failed to create new OS thread"
            r"|spawn\b.*\bEAGAIN|fork: (retry: )?Resource temporarily unavailable"
            r"|uv_thread_create|failed to spawn thread"
        ),
    ),
    (
        "memory",
        re.compile(
            r"insufficient memory for the Java Runtime|Native memory allocation \((mmap|malloc)\)"
            r"|java\.lang\.OutOfMemoryError(?!: unable to create)"
            r"|os::commit_memory.*(Not enough space|errno=12)"
            r"|^\s*MemoryError\b|\bMemoryError: |JavaScript heap out of memory"
            r"|Fatal process out of memory|Array buffer allocation failed"
            r"|runtime: out of memory|memory allocation of \d+ bytes failed|std::bad_alloc"
            r"|Cannot allocate memory|\bENOMEM\b"
        ),
    ),
    ("cpu", re.compile(r"CPU time limit exceeded")),
    ("file_size", re.compile(r"File size limit exceeded|File too large|\bEFBIG\b")),
)
#: EAGAIN alone is no sign (a non-blocking read says it too): it names the process bound
#: only beside a word for starting a thread or process among the same lines.
_AGAIN: Final = re.compile(r"Resource temporarily unavailable|\bEAGAIN\b")
_STARTING: Final = re.compile(r"fork|clone|spawn|[Tt]hread|Popen|_execute_child")


@dataclass(frozen=True)
class Evidence:
    """What is known of a bot that failed."""

    #: How its process ended (negative: the signal that ended it); None while it runs.
    returncode: int | None = None
    #: Its control group killed a process at the memory bound, or refused a fork at
    #: ``pids.max``, since the match began.
    oom_killed: bool = False
    forks_refused: bool = False
    #: Lines it wrote on stdout in the exchange that failed (refused, or read and not yet
    #: judged), oldest first.
    stdout: tuple[str, ...] = ()
    #: Lines it wrote on stderr since its last answer (read only once it has ended).
    stderr: tuple[str, ...] = ()
    #: The bounds in force for its processes.
    bounds: frozenset[Bound] = BOUNDS


def explicable(fault: BotFault) -> bool:
    """May a bound explain this fault? A bot gone away, output turned invalid, or silence;
    never a start failure, a person resigning, or a bound's fault already."""
    output = TooManyRejections | LineTooLong | BotTimeout
    return isinstance(fault, BotCrashed | BotNotReading | output) and not isinstance(
        fault, Resigned | ResourceLimit
    )


def runtime_words(lines: tuple[str, ...], bounds: frozenset[Bound]) -> tuple[Bound, str] | None:
    """The first of ``lines`` in which a runtime names one of ``bounds``, and that bound."""
    starting = any(map(_STARTING.search, lines))
    for line in lines:
        for bound, sign in SIGNS:
            if bound in bounds and sign.search(line):
                return bound, line
        if "processes" in bounds and starting and _AGAIN.search(line):
            return "processes", line
    return None


def quoted(line: str) -> str:
    """A bot's line for a fault's detail: cut to ``QUOTED_CHARS``, every hidden character
    escaped (``repr``), so that it prints as one harmless line."""
    line = line.strip()
    return repr(line[:QUOTED_CHARS] + "…" if len(line) > QUOTED_CHARS else line)


def charged(fault: BotFault, evidence: Evidence, limits: MatchLimits) -> BotFault:
    """The fault to charge: a bound's, when the evidence shows the bot went over one, else
    ``fault`` itself.

    In order: the signal a per-process limit sends (SIGXCPU, SIGXFSZ); the control group's
    counters, for a bot gone away or one whose process has ended; the runtime's own words,
    on stdout in the failed exchange, and on stderr since its last answer once it has ended.
    """
    if not explicable(fault):
        return fault
    ended = evidence.returncode is not None
    if evidence.returncode == -signal.SIGXCPU and "cpu" in evidence.bounds:
        return CpuLimit(f"a process of the bot used its {limits.cpu_seconds} s of CPU")
    if evidence.returncode == -signal.SIGXFSZ and "file_size" in evidence.bounds:
        return FileSizeLimit(f"the bot wrote a file over {limits.file_size_mb} MiB")
    said = runtime_words(evidence.stdout, evidence.bounds)
    where = "stdout"
    if said is None and ended:
        said, where = runtime_words(evidence.stderr, evidence.bounds), "stderr"
    words = "" if said is None else f"; its runtime wrote on {where}: {quoted(said[1])}"
    if ended or isinstance(fault, BotCrashed | BotNotReading):
        if evidence.oom_killed:
            return MemoryLimit(
                f"the bot's processes reached the memory bound of {limits.memory_mb} MiB{words}"
            )
        if evidence.forks_refused:
            return ProcessLimit(
                f"the bot's tree reached its bound of {limits.max_processes} processes{words}"
            )
    if said is None:
        return fault
    seen = f" (seen as {reason_code(fault)})"
    bound = said[0]
    if bound == "memory":
        return MemoryLimit(
            f"the bot ran out of memory under the seat's bound of {limits.memory_mb} MiB"
            f"{words}{seen}"
        )
    if bound == "processes":
        return ProcessLimit(
            "the bot could not start a thread or process under the seat's bound of"
            f" {limits.max_processes} processes and threads{words}{seen}"
        )
    if bound == "cpu":
        return CpuLimit(f"a process of the bot used its {limits.cpu_seconds} s of CPU{words}{seen}")
    return FileSizeLimit(f"the bot wrote a file over {limits.file_size_mb} MiB{words}{seen}")
