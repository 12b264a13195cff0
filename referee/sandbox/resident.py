"""Every page a bot may read, made resident and held in one state before its match starts.

A bot cannot ask whether a page is cached (seccomp refuses ``mincore``, ``fadvise``,
``readahead``, ``cachestat`` and ``RWF_NOWAIT``), but it can time a read: a page in memory
answers in about a microsecond, one from the disk in tens or hundreds of them. A bot that
reads chosen pages leaves marks that a partner, or the same entrant in the other leg of a
duplicate pair, reads back by timing the same pages (``referee/bench/channels/cache_bot.py``
passes a whole hand so). Resident is not enough: the kernel's LRU state of a cached page
changes at its first reads too (referenced, then active), and a first read of a page that
nobody read since it was cached takes about 0.3 µs longer — enough to pass a hand again.

So ``warm`` leaves every page of every file in a state that no read can change:

- **pinned** (as root, or within ``RLIMIT_MEMLOCK``): the file is mapped and ``mlock``-ed in
  this process, then read once. A locked page is never evicted — not by memory pressure,
  not by a bot's ``madvise(MADV_PAGEOUT)`` or ``MADV_COLD``, which leave alone a page that
  another process maps — and once referenced its state no longer changes when read. Pins
  last as long as this process, so a later ``warm`` only looks for files it has not seen;
- otherwise (no privilege, or past the budget of mappings and memory): read ``PASSES``
  times, which makes every page referenced and active. A read cannot change that either, but
  memory pressure or a bot's ``MADV_COLD`` can, so such files are read again at every call.

``warm`` is what the referee calls before a match's bots start, with every path any seat may
read (``paths.readable``). It blocks for as long as the reads take (the first call can read
hundreds of megabytes from disk; later ones stat directories): call it from a thread.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import mmap
import os
import stat
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from referee.sandbox.libc import libc

#: Reads of a page that leave it referenced and active, whatever state it was in.
PASSES: Final = 3
#: What the referee holds for the bots of one process at the most: past this a seat's
#: runtime does not get the ``page-cache`` layer (a pyenv prefix is 1 GiB in 61,000 files,
#: 8 s to pin; Debian's Python 130 MiB, a quarter of a second).
MOST_FILES: Final = 20_000
MOST_BYTES: Final = 512 << 20
#: Mappings left to the process beyond the pins (``vm.max_map_count`` bounds them all).
MAP_HEADROOM: Final = 16_384
#: The share of the machine's memory that may be pinned.
PIN_SHARE: Final = 0.25
_CHUNK: Final = 1 << 20

libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.mlock.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_MAP_FAILED: Final = ctypes.c_void_p(-1).value


@dataclass(frozen=True)
class Warmed:
    """What ``warm`` found and did."""

    #: Regular files under the paths (each counted once), and their size.
    files: int
    bytes: int
    #: Of those, held in memory by this process (now or by an earlier call).
    pinned_files: int
    pinned_bytes: int
    #: Bytes read by this call (a pinned file is read once; an unpinned one ``PASSES``
    #: times, at every call).
    bytes_read: int
    seconds: float


class _Pins:
    """The files this process holds locked in memory, and what it may still lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        #: (device, inode) -> (address, length, size, mtime_ns) of each pinned file.
        self.held: dict[tuple[int, int], tuple[int, int, int, int]] = {}
        self.maps_left = _maps_available()
        self.bytes_left = int(_memory_bytes() * PIN_SHARE)
        #: Directory -> (its mtime_ns, the regular files in it, its subdirectories).
        self.listings: dict[str, tuple[int, list[tuple[str, int, int, int, int]], list[str]]] = {}


def _maps_available() -> int:
    try:
        with open("/proc/sys/vm/max_map_count") as stream:
            limit = int(stream.read())
        with open("/proc/self/maps", "rb") as stream:
            used = stream.read().count(b"\n")
    except (OSError, ValueError):
        return 0
    return max(0, limit - used - MAP_HEADROOM)


def _memory_bytes() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


_PINS: _Pins | None = None


def _pins() -> _Pins:
    global _PINS
    if _PINS is None:
        _PINS = _Pins()
    return _PINS


def _listing(pins: _Pins, folder: str) -> tuple[list[tuple[str, int, int, int, int]], list[str]]:
    """(path, device, inode, size, mtime_ns) of the regular files in ``folder`` and its
    subdirectories, kept while the directory's mtime stays the same (a file added, removed
    or renamed changes it; a file rewritten in place does not, and keeps its pages)."""
    try:
        mtime = os.stat(folder).st_mtime_ns
    except OSError:
        return [], []
    known = pins.listings.get(folder)
    if known is not None and known[0] == mtime:
        return known[1], known[2]
    files: list[tuple[str, int, int, int, int]] = []
    folders: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        info = entry.stat(follow_symlinks=False)
                        files.append(
                            (entry.path, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
                        )
                except OSError:
                    continue
    except OSError:
        return [], []
    pins.listings[folder] = (mtime, files, folders)
    return files, folders


def _files(
    pins: _Pins, roots: Iterable[str | os.PathLike[str]]
) -> list[tuple[str, int, int, int, int]]:
    """Every regular file at or under ``roots``, as Landlock sees them: a root that is a link
    counts as its target (a rule follows it), a link inside a tree does not (opening it
    reaches a file that is readable only if it is allowed in its own right)."""
    found: list[tuple[str, int, int, int, int]] = []
    for root in roots:
        top = os.path.realpath(root)
        try:
            info = os.stat(top)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            found.append((top, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns))
        elif stat.S_ISDIR(info.st_mode):
            pending = [top]
            while pending:
                files, folders = _listing(pins, pending.pop())
                found += files
                pending += folders
    return found


def _read(fd: int, passes: int, buffer: bytearray) -> int:
    read = 0
    view = memoryview(buffer)
    for _ in range(passes):
        offset = 0
        while True:
            got = os.preadv(fd, [view], offset)
            if got <= 0:
                break
            offset += got
        read += offset
    return read


def _open(path: str) -> int | None:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        return os.open(path, flags | getattr(os, "O_NOATIME", 0))
    except PermissionError:  # O_NOATIME needs the file's owner (or root)
        try:
            return os.open(path, flags)
        except OSError:
            return None
    except OSError:
        return None


def _pin(fd: int, size: int) -> int | None:
    """The address of the whole file ``fd`` mapped and locked in memory, or None."""
    address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if address is None or address == _MAP_FAILED:
        return None
    if libc.mlock(address, size) != 0:
        libc.munmap(address, size)
        return None
    return int(address)


def warm(roots: Iterable[str | os.PathLike[str]]) -> Warmed:
    """Make every page of every regular file at or under ``roots`` resident, in a state no
    read changes (see the module); say what it took. Files that cannot be opened, devices,
    pipes and sockets are passed over."""
    started = time.perf_counter()
    pins = _pins()
    with pins.lock:
        files = _files(pins, roots)
        seen: set[tuple[int, int]] = set()
        fresh: list[tuple[str, int, int, int, int]] = []
        total = pinned_files = pinned_bytes = 0
        for path, device, inode, size, mtime in files:
            key = (device, inode)
            if key in seen:
                continue
            seen.add(key)
            total += size
            held = pins.held.get(key)
            if held is not None and held[2:] == (size, mtime):
                pinned_files += 1
                pinned_bytes += size
            else:
                fresh.append((path, device, inode, size, mtime))
        buffer = bytearray(_CHUNK)
        bytes_read = 0
        fresh.sort(key=lambda file: -file[3])  # the largest first: the budget is in files
        for path, device, inode, size, mtime in fresh:
            if size == 0:
                continue
            fd = _open(path)
            if fd is None:
                continue
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    continue
                address = None
                if pins.maps_left > 0 and pins.bytes_left >= size:
                    address = _pin(fd, size)
                if address is not None:
                    old = pins.held.pop((device, inode), None)
                    if old is not None:  # the file changed size or time since: map it anew
                        libc.munmap(old[0], old[1])
                        pins.maps_left += 1
                        pins.bytes_left += old[1]
                    pins.held[(device, inode)] = (address, size, size, mtime)
                    pins.maps_left -= 1
                    pins.bytes_left -= size
                    bytes_read += _read(fd, 1, buffer)
                    pinned_files += 1
                    pinned_bytes += size
                else:
                    bytes_read += _read(fd, PASSES, buffer)
            except OSError:
                continue
            finally:
                os.close(fd)
    return Warmed(
        files=len(seen),
        bytes=total,
        pinned_files=pinned_files,
        pinned_bytes=pinned_bytes,
        bytes_read=bytes_read,
        seconds=time.perf_counter() - started,
    )


@functools.cache
def fits(roots: tuple[str, ...]) -> str | None:
    """None when the files at or under ``roots`` are within ``MOST_FILES`` and ``MOST_BYTES``,
    else what they come to. Stops counting at the bound; remembered per process."""
    pins = _pins()
    files = total = 0
    with pins.lock:
        for root in roots:
            top = os.path.realpath(root)
            pending = [top] if os.path.isdir(top) else []
            if not pending:
                with contextlib.suppress(OSError):
                    total += os.stat(top).st_size
                files += 1
            while pending:
                found, folders = _listing(pins, pending.pop())
                files += len(found)
                total += sum(file[3] for file in found)
                pending += folders
                if files > MOST_FILES or total > MOST_BYTES:
                    return (
                        f"the files its runtime needs pass {MOST_FILES:,} files or"
                        f" {MOST_BYTES >> 20} MiB, too many to hold in memory: use a smaller"
                        " runtime, such as /usr/bin/python3"
                    )
    return None


_PREPARED: set[tuple[str, ...]] = set()


def prepare(roots: tuple[str, ...]) -> Warmed | None:
    """``warm`` once per process for each set of roots (a tournament worker plays many
    matches of the same bots: their pages stay pinned, or read, since the first); None when
    it was done already."""
    with _PREPARED_LOCK:  # held while warming: a match starting meanwhile waits for it
        if roots in _PREPARED:
            return None
        warmed = warm(roots)
        _PREPARED.add(roots)
    return warmed


_PREPARED_LOCK = threading.Lock()


def release() -> None:
    """Let go of every file this process holds (a referee keeps them until it exits; tests
    and benchmarks that compare with and without them need this)."""
    pins = _pins()
    with pins.lock:
        for address, length, _, _ in pins.held.values():
            libc.munmap(address, length)
            pins.maps_left += 1
            pins.bytes_left += length
        pins.held.clear()
    with _PREPARED_LOCK:
        _PREPARED.clear()


def forget_lookups() -> float | None:
    """Drop the kernel's cache of path lookups, machine-wide: the dentries and inodes no file
    in use holds, the failed lookups (negative dentries) among them. A bot can mark names by
    looking them up — any name, in any directory it can reach, whether or not it exists —
    and a later bot can tell them from the others by timing its own lookups (a remembered
    failure answers in about 2.5 µs, a new one in about 5). Called between the two legs of a
    duplicate pair, once no bot of the first leg is left, it wipes those marks; the files
    this process pins keep theirs. Seconds it took (milliseconds to a second, the longer the
    more was cached), or None where it cannot be done (it needs root)."""
    started = time.perf_counter()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as stream:
            stream.write("2\n")
    except OSError:
        return None
    return time.perf_counter() - started
