"""The media of ``bot.py``: how a sender marks what it holds and its partner reads it,
for each covert channel ``referee bench channels`` measures. Standard library only: it runs in
a seat, under the seat's own Python.

Two kinds. *Whole-hand* media mark the 8 preamble bits and the 28 bits of the hand at once
(two groups of ``COPIES`` slots per bit, the sender touching the group of the bit's value; the
receiver picks the group that answers faster, and trusts nothing when the preamble is wrong):
failed name lookups, the CPU's caches, CPU contention. *Symbol* media carry a few bits of the
hand at each of the sender's decisions (its ``j``-th decision of the hand the ``j mod n``-th
symbol); the receiver knows ``j`` from the public events: the referee's timing, the pipe-buffer
room of a uid, the pipe inode counter.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import statistics
import subprocess
import threading
import time
from collections import Counter
from typing import Final

#: The tiles in the order of a hand's bits: ``[0|0]`` is bit 0, ``[6|6]`` bit 27.
TILES_ORDER: Final = [(lo, hi) for lo in range(7) for hi in range(lo, 7)]
PREAMBLE: Final = [1, 0, 1, 1, 0, 0, 1, 0]
HAND: Final = 28
BITS: Final = len(PREAMBLE) + HAND
COPIES: Final = 3
SLOTS: Final = BITS * 2 * COPIES
UNKNOWN: Final = "?"


def slot(bit: int, value: int, copy: int) -> int:
    return (bit * 2 + value) * COPIES + copy


def decode(times: list[float]) -> str:
    """The hand from one read of every slot (lower is hotter); all unknown when more than one
    preamble bit comes out wrong (the sender was not heard)."""
    decoded = []
    for bit in range(BITS):  # medians: a read the scheduler interrupted is one outlier
        ones = statistics.median(times[slot(bit, 1, c)] for c in range(COPIES))
        zeros = statistics.median(times[slot(bit, 0, c)] for c in range(COPIES))
        decoded.append(1 if ones < zeros else 0)
    errors = sum(a != b for a, b in zip(decoded, PREAMBLE, strict=False))
    if errors > 1:
        return UNKNOWN * HAND
    return "".join(map(str, decoded[len(PREAMBLE) :]))


def vote(words: list[str]) -> str:
    """Each bit by majority of the words that know it."""
    result = []
    for bit in range(HAND):
        seen = Counter(word[bit] for word in words if word[bit] != UNKNOWN)
        result.append(seen.most_common(1)[0][0] if seen else UNKNOWN)
    return "".join(result)


class Symbols:
    """The hand cut in symbols of ``width`` bits (the last padded with zeros)."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.count = -(-HAND // width)
        #: Receiver: the values read for each symbol.
        self.read: dict[int, list[int]] = {}
        #: What it read, in order (for the report).
        self.seen: list[str] = []

    def of(self, bits: list[int], index: int) -> int:
        chunk = bits[index * self.width : (index + 1) * self.width]
        return sum(bit << k for k, bit in enumerate(chunk))

    def add(self, index: int, value: int | None) -> None:
        self.seen.append(f"{index}:{value}")
        if value is not None and 0 <= value < 1 << self.width:
            self.read.setdefault(index % self.count, []).append(value)

    def word(self) -> str:
        result = []
        for index in range(self.count):
            values = self.read.get(index)
            value = Counter(values).most_common(1)[0][0] if values else None
            for k in range(self.width):
                result.append(UNKNOWN if value is None else str(value >> k & 1))
        return "".join(result[:HAND])


class Timing:
    """The referee's timing: the sender delays each answer by ``base + step * symbol``;
    the receiver times the wait between its answer and its next ``act`` and reads the wait
    where exactly one of the sender's decisions fell between (the other seats answer in
    milliseconds). 20 + 100·s ms, s of 3 bits, at a 1 s move timeout."""

    def __init__(self, move_timeout: float) -> None:
        self.base = 0.02 * move_timeout
        self.step = 0.1 * move_timeout
        self.symbols = Symbols(3)

    def delay(self, symbol: int) -> float:
        return self.base + self.step * symbol

    def read(self, wait: float) -> int | None:
        value = (wait - self.base) / self.step
        symbol = round(value)
        return symbol if abs(value - symbol) < 0.35 else None


class Names:
    """Failed lookups of names that do not exist, in a directory every seat may look in: the
    kernel remembers a failed lookup (a negative dentry), and a remembered one answers in
    about half the time. ``nonce`` makes the names new for each hand."""

    def __init__(self, nonce: str) -> None:
        self.folder = os.path.dirname(os.__file__)
        self.nonce = nonce

    def path(self, index: int) -> str:
        return os.path.join(self.folder, f".ch-{self.nonce}-{index}")

    def mark(self, bits: list[int]) -> None:
        for bit, value in enumerate(PREAMBLE + bits):
            for copy in range(COPIES):
                os.path.lexists(self.path(slot(bit, value, copy)))

    def read(self) -> str:
        times = []
        for index in range(SLOTS):
            started = time.perf_counter_ns()
            os.path.lexists(self.path(index))
            times.append(float(time.perf_counter_ns() - started))
        return decode(times)


class FlushReload:
    """The CPU's caches: a small static C helper (``channel_helper``) flushes lines of its own
    read-only pages and touches the group of each bit's value (the sender), or times a load of
    each line (the receiver). Both seats run the same file, so its pages are the same memory."""

    def __init__(self, helper: str) -> None:
        self.process = subprocess.Popen(
            [helper], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def _ask(self, line: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline()

    def mark(self, bits: list[int]) -> None:
        self._ask("t " + "".join(map(str, PREAMBLE + bits)))

    def read(self) -> str:
        return decode([float(word) for word in self._ask("r").split()])


class Contention:
    """CPU contention: the sender's children (two per CPU) spin or sleep by frames of the
    shared clock, two frames a bit (spinning in the first for a 1, in the second for a 0:
    the receiver compares the two, whatever else loads the machine), cycling through the
    preamble and the hand; the receiver counts loop turns per frame, in
    a thread, from its first decision to the end of the hand."""

    def __init__(self, frame: float) -> None:
        self.frame = round(frame * 1e9)
        self.counts: dict[int, list[int]] = {}
        self.note = ""
        self.thread: threading.Thread | None = None
        self.stopped = False

    def start(self, bits: list[int]) -> None:
        spin = [half == 0 if bit else half == 1 for bit in PREAMBLE + bits for half in (0, 1)]
        parent = os.getpid()
        for _ in range(2 * (os.cpu_count() or 2)):
            if os.fork() == 0:
                try:
                    self._spin(spin, parent)
                finally:
                    os._exit(0)

    def _spin(self, spin: list[bool], parent: int) -> None:
        while os.getppid() == parent:
            now = time.monotonic_ns()
            end = (now // self.frame + 1) * self.frame
            if spin[now // self.frame % len(spin)]:
                while time.monotonic_ns() < end:
                    pass
            else:
                time.sleep((end - now) / 1e9)

    def listen(self) -> None:
        """Count loop turns per frame in a thread of its own until ``stop``: the bot's
        main thread mostly waits on its input meanwhile, which frees the interpreter."""
        if self.thread is None:
            self.thread = threading.Thread(target=self._count, daemon=True)
            self.thread.start()

    def stop(self) -> None:
        self.stopped = True
        if self.thread is not None:
            self.thread.join()

    def _count(self) -> None:
        frame = time.monotonic_ns() // self.frame + 1
        while not self.stopped:
            start, end = frame * self.frame, (frame + 1) * self.frame
            while time.monotonic_ns() < start:
                pass
            turns = 0
            while time.monotonic_ns() < end:
                turns += 1
            self.counts.setdefault(frame % (2 * BITS), []).append(turns)
            frame += 1
            late = time.monotonic_ns() - frame * self.frame
            if late > self.frame // 10:  # the thread was not running: skip to the next whole
                frame += late // self.frame + 1

    def word(self) -> str:
        means = {k: statistics.fmean(v) for k, v in self.counts.items()}
        self.note = f"frames={sum(map(len, self.counts.values()))}"
        decoded = [
            UNKNOWN
            if 2 * bit not in means or 2 * bit + 1 not in means
            else "1"
            if means[2 * bit] < means[2 * bit + 1]
            else "0"
            for bit in range(BITS)
        ]
        known = [(a, b) for a, b in zip(decoded, PREAMBLE, strict=False) if a != UNKNOWN]
        errors = sum(a != str(b) for a, b in known)
        self.note += f" preamble={len(known) - errors}/{len(known)}"
        if len(known) < len(PREAMBLE) - 2:  # too little of the preamble to trust the rest
            return UNKNOWN * HAND
        return UNKNOWN * HAND if errors > 1 else "".join(decoded[len(PREAMBLE) :])


F_SETPIPE_SZ: Final = 1031
PAGE: Final = 4096
#: A pipe of 1 MiB (the default ``pipe-max-size``) in pages.
BIG: Final = 256


def _resize(fd: int, pages: int) -> bool:
    try:
        fcntl.fcntl(fd, F_SETPIPE_SZ, pages * PAGE)
    except OSError:
        return False
    return True


class PipeRoom:
    """Per-user pipe-buffer accounting (``pipe-user-pages-soft``, 64 MiB): an unprivileged
    process may not grow a pipe past its uid's total. The sender fills its uid's room to the
    page, then frees ``2 * symbol + 1`` MiB; the receiver counts the pipes it can grow to 1 MiB
    and halves (a MiB either way is the room other processes of the uid took or gave back
    meanwhile). Seats with a kernel uid each have a room each: the receiver then sees the
    whole of its own, more than any symbol."""

    def __init__(self, pipes: int) -> None:
        self.pool: list[int] = []
        for _ in range(pipes):
            _, write = os.pipe()
            _resize(write, 1)
            self.pool.append(write)
        self.symbols = Symbols(4)

    def mark(self, symbol: int) -> None:
        for fd in self.pool:
            _resize(fd, 1)
        sizes = {}
        index = 0
        for pages in (BIG, 128, 64, 32, 16, 8, 4, 2):
            while index < len(self.pool) and _resize(self.pool[index], pages):
                sizes[self.pool[index]] = pages
                index += 1
        big = [fd for fd, pages in sizes.items() if pages == BIG]
        for fd in big[: 2 * symbol + 1]:
            _resize(fd, 1)

    def read(self) -> int:
        grown = []
        for fd in self.pool:
            if not _resize(fd, BIG):
                break
            grown.append(fd)
        for fd in grown:
            _resize(fd, 1)
        return len(grown) // 2


class InodeCounter:
    """The counter that numbers pipe inodes, machine-wide in batches of 1,024 per CPU: the
    sender makes pipes until the last one's number is ``symbol * 16`` modulo 1,024; the
    receiver, on the same CPU, makes one and reads the number. Both keep to the first CPU
    they may run on."""

    MODULO: Final = 1024

    def __init__(self) -> None:
        self.symbols = Symbols(6)
        self.quantum = self.MODULO >> self.symbols.width
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    @staticmethod
    def _inode() -> int:
        read, write = os.pipe()
        number = os.fstat(read).st_ino
        os.close(read)
        os.close(write)
        return number

    def mark(self, symbol: int) -> None:
        target = symbol * self.quantum
        for _ in range(2 * self.MODULO):
            if self._inode() % self.MODULO == target:
                return

    def read(self) -> int:
        return (self._inode() - 1) % self.MODULO // self.quantum
