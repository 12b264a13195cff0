"""Two hostile bots that pass a hand through the page cache, by timing plain reads alone.

``--role send`` encodes the 28-bit mask of its hand (bit ``i`` set when it holds the ``i``-th
of the 28 tiles, ordered ``[0|0] [0|1] ... [6|6]``) into which pages of files it may read are
cached. ``--role receive`` times one-byte reads of the same pages and decodes: a cached page
answers in microseconds, a page that must come from the disk in hundreds of them. The
receiver writes ``CHANNEL received <28 bits>`` to stderr (the referee keeps it beside the
log), so a test can compare it with the hand the log says the sender held.

The two sides agree on the pages without a word: each walks the same roots in sorted order
and takes the same files (rarely read ones: no ``.py``, ``.pyc``, shared library or
program), so the same program under the same allow-list finds the same pool.

Encoding, robust to pages that something else already cached: each bit has two groups of
``COPIES`` pages in different files; the sender makes group ``b`` hot for bit value ``b``
and leaves the other alone, and the receiver picks the group with more fast reads. Eight
known preamble bits come first, so the receiver calibrates its threshold (the geometric mean
of the known-hot and known-cold medians) in the conditions of the moment.

``--mark pageout`` turns the encoding around for a sandbox that made every readable file
resident: the sender evicts the group it does not choose with ``madvise(MADV_PAGEOUT)``
(which the kernel allows on a file only to its owner or a writer: a seat that stayed root,
reading root's files).

``--mark dentry`` marks names instead of pages: the sender looks up ``COPIES`` names that do
not exist (in the standard library's directory, which every seat can look in) per group;
the kernel remembers a failed lookup (a negative dentry), and the receiver's lookup of a
remembered name answers in about 2.5 µs against 5 for a new one. Names are endless, so no
cache can be filled beforehand; ``--nonce`` makes them new for each trial.

``--delay`` and ``--flush-mb`` make the receiver wait, or sweep memory, before it reads:
what the CPU's caches still hold of the sender's reads is then gone.

``--when`` says when to act: ``first`` (its first decision; the leg-2 receiver) or ``play``
(its first decision once the bidding is over, when a live partner has surely sent).
``--role list`` only writes its pool (``CHANNEL file <path>`` lines) and plays.

Between trials the slots must be cold again: in the wild a pair would move on to pages
nobody has read (a machine holds gigabytes of them); the benchmark evicts the pool instead.

It is part of the package (``referee bench cache`` runs it by path, from a wheel too) and
needs only the standard library: each seat may run it under a Python of its own.
"""

import argparse
import json
import math
import mmap
import os
import random
import statistics
import sys
import time
from collections.abc import Iterator
from typing import Any

#: The tiles in mask order: ``[0|0]`` is bit 0, ``[6|6]`` bit 27.
TILES = [(lo, hi) for lo in range(7) for hi in range(lo, 7)]
PREAMBLE = [1, 0, 1, 1, 0, 0, 1, 0]
BITS = len(PREAMBLE) + len(TILES)
COPIES = 3
SLOTS = BITS * 2 * COPIES
#: Slots are this far apart in a file (a one-page random read reads just that page).
STRIDE = 64 * 1024
PAGE = 4096
MIN_SIZE = 256 * 1024
MAX_FILES = 48
#: Directory entries looked at, at most, while walking (the walk must end the same way for
#: both sides, and in time).
MAX_ENTRIES = 200_000
MADV_PAGEOUT = 21

arguments = argparse.ArgumentParser(description=__doc__)
arguments.add_argument("--role", choices=["send", "receive", "list"], required=True)
arguments.add_argument("--when", choices=["first", "play"], default="first")
arguments.add_argument("--mark", choices=["read", "pageout", "dentry"], default="read")
arguments.add_argument("--nonce", default="0", help="names this trial's slots (--mark dentry)")
arguments.add_argument("--dump", action="store_true", help="write every slot's time to stderr")
arguments.add_argument("--delay", type=float, default=0.0, help="seconds to wait before reading")
arguments.add_argument("--flush-mb", type=int, default=0, help="MiB of memory to sweep first")
args = argparse.Namespace()


def roots() -> list[str]:
    """Where to look, rarely read trees first; the runtime's own last (which is all a
    narrow allow-list leaves)."""
    stdlib = os.path.dirname(os.__file__)
    found = [
        "/usr/share/doc",
        "/usr/share",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib",
        stdlib,
        os.path.join(sys.base_prefix, "lib"),
        "/usr/lib/python3",
    ]
    return list(dict.fromkeys(found))


def eligible(name: str, mode: int) -> bool:
    if name.endswith((".py", ".pyc", ".so")) or ".so." in name:
        return False
    return not mode & 0o111


def pool() -> list[tuple[str, int, int]]:
    """(path, fd, size) of the files the slots live in: the same list on both sides."""
    files: list[tuple[str, int, int]] = []
    seen: set[tuple[int, int]] = set()
    entries = 0
    for root in roots():
        for folder, dirs, names in os.walk(root):
            dirs.sort()
            for name in sorted(names):
                entries += 1
                if len(files) >= MAX_FILES or entries > MAX_ENTRIES:
                    return files
                path = os.path.join(folder, name)
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                key = (info.st_dev, info.st_ino)
                if not os.path.isfile(path) or os.path.islink(path) or key in seen:
                    continue
                if info.st_size < MIN_SIZE or not eligible(name, info.st_mode):
                    continue
                try:
                    fd = os.open(path, os.O_RDONLY)
                except OSError:
                    continue  # not on the allow-list
                seen.add(key)
                files.append((path, fd, info.st_size))
    return files


def slots(files: list[tuple[str, int, int]]) -> list[tuple[int, int]]:
    """(fd, offset) of each slot: round robin over the files, one stride further each round,
    so that neighbouring slots are in different files."""
    found: list[tuple[int, int]] = []
    step = 1
    while len(found) < SLOTS:
        before = len(found)
        for _, fd, size in files:
            offset = step * STRIDE
            if offset + PAGE <= size and len(found) < SLOTS:
                found.append((fd, offset))
        if len(found) == before:
            raise SystemExit(f"only {len(found)} slots in {len(files)} readable files")
        step += 1
    return found


def group(all_slots: list[tuple[int, int]], bit: int, value: int) -> list[tuple[int, int]]:
    """The ``COPIES`` slots that say bit ``bit`` is ``value``."""
    return [all_slots[(copy * BITS + bit) * 2 + value] for copy in range(COPIES)]


def name(index: int) -> str:
    """A path that does not exist, in a directory every seat may look in (--mark dentry)."""
    return os.path.join(os.path.dirname(os.__file__), f".cc-{args.nonce}-{index}")


def timed_read(fd: int, offset: int) -> float:
    """Microseconds to read one byte at ``offset`` (or, for ``fd`` -1, to look up the
    missing name ``offset``: the kernel remembers a failed lookup as a negative dentry)."""
    if fd < 0:
        path = name(offset)
        started = time.perf_counter_ns()
        os.path.lexists(path)
        return (time.perf_counter_ns() - started) / 1000
    started = time.perf_counter_ns()
    os.pread(fd, 1, offset)
    return (time.perf_counter_ns() - started) / 1000


def hand_bits(hand: list[list[int]]) -> list[int]:
    held = {(tile[0], tile[1]) for tile in hand}
    return [1 if tile in held else 0 for tile in TILES]


def report(line: str) -> None:
    sys.stderr.write(f"CHANNEL {line}\n")
    sys.stderr.flush()


def send(all_slots: list[tuple[int, int]], bits: list[int]) -> None:
    message = PREAMBLE + bits
    times = []
    if args.mark in ("read", "dentry"):
        for bit, value in enumerate(message):
            times += [timed_read(fd, offset) for fd, offset in group(all_slots, bit, value)]
    else:
        maps: dict[int, mmap.mmap] = {}
        for bit, value in enumerate(message):
            for fd, offset in group(all_slots, bit, 1 - value):
                if fd not in maps:
                    maps[fd] = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
                maps[fd][offset]  # map the page in: MADV_PAGEOUT only sees mapped pages
                maps[fd].madvise(MADV_PAGEOUT, offset, PAGE)
        for mapped in maps.values():
            mapped.close()
    fast = sum(1 for t in times if t < 20)
    report(f"sent {''.join(map(str, bits))} mark={args.mark} already_hot={fast}/{len(times)}")


def receive(all_slots: list[tuple[int, int]]) -> None:
    time.sleep(args.delay)
    if args.flush_mb:
        sweep = bytearray(args.flush_mb << 20)
        for offset in range(0, len(sweep), 64):
            sweep[offset] = 1
        del sweep
    times = [timed_read(fd, offset) for fd, offset in all_slots]
    if args.dump:
        report(
            "times "
            + " ".join(
                f"{fd}:{offset}:{t:.2f}" for (fd, offset), t in zip(all_slots, times, strict=True)
            )
        )
    at = {slot: t for slot, t in zip(all_slots, times, strict=True)}

    def group_times(bit: int, value: int) -> list[float]:
        return [at[slot] for slot in group(all_slots, bit, value)]

    hot = [t for bit, value in enumerate(PREAMBLE) for t in group_times(bit, value)]
    cold = [t for bit, value in enumerate(PREAMBLE) for t in group_times(bit, 1 - value)]
    threshold = math.sqrt(statistics.median(hot) * statistics.median(cold))
    decoded = []
    for bit in range(BITS):
        ones, zeros = group_times(bit, 1), group_times(bit, 0)
        fast_ones = sum(t < threshold for t in ones)
        fast_zeros = sum(t < threshold for t in zeros)
        if fast_ones != fast_zeros:
            decoded.append(1 if fast_ones > fast_zeros else 0)
        else:  # the hotter group by its mean log time
            log_ones = sum(math.log(t) for t in ones)
            decoded.append(1 if log_ones < sum(math.log(t) for t in zeros) else 0)
    preamble_errors = sum(a != b for a, b in zip(decoded, PREAMBLE, strict=False))
    report(
        f"received {''.join(map(str, decoded[len(PREAMBLE) :]))}"
        f" preamble_errors={preamble_errors} threshold_us={threshold:.1f}"
        f" hot_us={statistics.median(hot):.1f} cold_us={statistics.median(cold):.1f}"
        f" min_us={min(times):.1f} max_us={max(times):.1f}"
    )


def messages() -> Iterator[dict[str, Any]]:
    """Every message the referee sends, until ``match_end`` (inclusive) or end of input."""
    for line in sys.stdin.buffer:
        message: dict[str, Any] = json.loads(line)
        yield message
        if message.get("type") == "match_end":
            return


def say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    files = pool()
    for path, _, _ in files:
        report(f"file {path}")
    try:
        if args.mark == "dentry":
            pool_slots = [(-1, index) for index in range(SLOTS)]
        else:
            pool_slots = slots(files) if args.role != "list" else []
    except SystemExit as exc:
        report(f"failed {exc}")
        pool_slots = []
    done = args.role == "list" or not pool_slots
    rng = random.Random()
    for message in messages():
        if message["type"] == "hello":
            rng = random.Random(message["seed"])
            say({"type": "ready", "name": f"cache-{args.role}"})
        elif message["type"] == "act":
            view = message["view"]
            if not done and (args.when == "first" or view["phase"] != "bidding"):
                done = True
                if args.role == "send":
                    send(pool_slots, hand_bits(view["hand"]))
                else:
                    receive(pool_slots)
            action = rng.choice(message["legal_actions"])  # as the example bot plays
            say({"type": "action", "id": message["id"], "action": action})
        elif message["type"] == "hand_end" and not done and args.role == "receive":
            done = True  # a hand of four passes: no play phase to wait for
            receive(pool_slots)


if __name__ == "__main__":
    args = arguments.parse_args()
    main()
