"""The files the loader maps for a program: its ELF dynamic section, read as the loader does.

``closure(files)`` follows every ``DT_NEEDED`` library of each file, and of those, resolved in
the loader's order: ``DT_RPATH`` (when there is no ``DT_RUNPATH``, with the executable's),
``LD_LIBRARY_PATH``, ``DT_RUNPATH`` (with ``$ORIGIN``, ``$LIB`` and ``$PLATFORM``), the
loader's cache (``/etc/ld.so.cache``), the directories of ``/etc/ld.so.conf`` and the
loader's defaults — in each directory the ``glibc-hwcaps`` variants too — taking the first
file of the right class and machine; and the loader itself (``PT_INTERP``). Each file found
says which file needed it and where the name was looked up: a path chosen by the file itself
(its ``RPATH``, ``RUNPATH``, a name with a slash, its loader) is the program author's choice,
a path from the cache, the configuration or the environment the machine's (``Found.chosen``).
Libraries opened later with ``dlopen`` by a name of their own are not in it: a runtime keeps
those in its own directories.
"""

from __future__ import annotations

import functools
import glob
import os
import platform
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, Literal

_MAGIC: Final = b"\x7fELF"
_PT_LOAD, _PT_DYNAMIC, _PT_INTERP = 1, 2, 3
_DT_NEEDED, _DT_STRTAB, _DT_RPATH, _DT_RUNPATH = 1, 5, 15, 29
_DEFAULTS: Final = ("/lib64", "/usr/lib64", "/lib", "/usr/lib")
#: The Debian multiarch name of this machine's libraries (`/usr/lib/x86_64-linux-gnu`).
MULTIARCH: Final = {"x86_64": "x86_64-linux-gnu", "aarch64": "aarch64-linux-gnu"}.get(
    platform.machine(), platform.machine() + "-linux-gnu"
)
#: The loader's cache of the system's libraries, and its format (glibc 2.32 and later write
#: only the new one; an old-format table, when present, comes first).
CACHE: Final = "/etc/ld.so.cache"
_CACHE_NEW: Final = b"glibc-ld.so.cache1.1"
_CACHE_OLD: Final = b"ld.so-1.7.0"

#: Where a library's name was looked up: by the file that needs it (``interpreter``:
#: ``PT_INTERP``; ``path``: a name with a slash; ``rpath``, ``runpath``), or by the machine
#: (``environment``: ``LD_LIBRARY_PATH``; ``cache``; ``system``: ``ld.so.conf`` and defaults).
Source = Literal["interpreter", "path", "rpath", "runpath", "environment", "cache", "system"]
_CHOSEN_BY_FILE: Final = frozenset({"interpreter", "path", "rpath", "runpath"})


@dataclass(frozen=True)
class Dynamic:
    """What the loader reads of one ELF file."""

    bits: int
    machine: int
    interpreter: str | None
    needed: tuple[str, ...]
    rpath: tuple[str, ...]
    runpath: tuple[str, ...]


@dataclass(frozen=True)
class Found:
    """A file the loader maps: its real path, the name it was asked by, the file that asked,
    and where the name was looked up."""

    path: str
    name: str
    needed_by: str
    source: Source

    @property
    def chosen(self) -> bool:
        """Was its place chosen by the file that needs it (not by the machine)?"""
        return self.source in _CHOSEN_BY_FILE


@dataclass
class Closure:
    """Every file the loader maps for some ELF files (the files themselves aside), by real
    path, and the names it would not find."""

    found: dict[str, Found] = field(default_factory=dict)
    #: (the name, the file that needs it) of each library found nowhere.
    missing: list[tuple[str, str]] = field(default_factory=list)


def is_elf(path: str) -> bool:
    """Does ``path`` start as an ELF file does (no more is read)?"""
    try:
        with open(path, "rb") as stream:
            return stream.read(4) == _MAGIC
    except OSError:
        return False


@functools.lru_cache(maxsize=4096)
def read(path: str) -> Dynamic | None:
    """The dynamic part of the ELF file ``path``; None when it is not a (readable) ELF file."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(64)
            if len(head) < 64 or not head.startswith(_MAGIC) or head[5] != 1:
                return None  # not ELF, or big-endian (not a loader this referee runs on)
            bits = 64 if head[4] == 2 else 32
            if bits == 64:
                phoff, phentsize, phnum = (
                    struct.unpack_from("<Q", head, 32)[0],
                    *struct.unpack_from("<HH", head, 54),
                )
            else:
                phoff, phentsize, phnum = (
                    struct.unpack_from("<I", head, 28)[0],
                    *struct.unpack_from("<HH", head, 42),
                )
            machine = struct.unpack_from("<H", head, 18)[0]
            stream.seek(phoff)
            table = stream.read(phentsize * phnum)
            loads: list[tuple[int, int, int]] = []
            dynamic: tuple[int, int] | None = None
            interpreter = None
            for index in range(phnum):
                entry = table[index * phentsize : (index + 1) * phentsize]
                if bits == 64:
                    kind, _, offset, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", entry)
                else:
                    kind, offset, vaddr, _, filesz = struct.unpack_from("<IIIII", entry)
                if kind == _PT_LOAD:
                    loads.append((vaddr, offset, filesz))
                elif kind == _PT_DYNAMIC:
                    dynamic = (offset, filesz)
                elif kind == _PT_INTERP:
                    stream.seek(offset)
                    interpreter = stream.read(filesz).split(b"\0")[0].decode(errors="replace")
            if dynamic is None:
                return Dynamic(bits, machine, interpreter, (), (), ())
            stream.seek(dynamic[0])
            raw = stream.read(dynamic[1])
            size = 16 if bits == 64 else 8
            form = "<qQ" if bits == 64 else "<iI"
            entries = [
                struct.unpack_from(form, raw, at) for at in range(0, len(raw) - size + 1, size)
            ]
            strtab = next((value for tag, value in entries if tag == _DT_STRTAB), None)
            if strtab is None:
                return None
            base = next(
                (off + strtab - va for va, off, sz in loads if va <= strtab < va + sz), None
            )
            if base is None:
                return None

            def text(at: int) -> str:
                stream.seek(base + at)
                chunk = stream.read(4096)
                return chunk.split(b"\0")[0].decode(errors="replace")

            def listed(tag: int) -> tuple[str, ...]:
                found: list[str] = []
                for kind, value in entries:
                    if kind == tag:
                        found += [item for item in text(value).split(":") if item]
                return tuple(found)

            needed = tuple(text(value) for tag, value in entries if tag == _DT_NEEDED)
            return Dynamic(
                bits, machine, interpreter, needed, listed(_DT_RPATH), listed(_DT_RUNPATH)
            )
    except (OSError, struct.error, ValueError):
        return None


@functools.cache
def _configured() -> tuple[str, ...]:
    """The directories ``/etc/ld.so.conf`` names (with its ``include`` lines)."""
    found: list[str] = []

    def parse(path: str, depth: int) -> None:
        try:
            with open(path) as stream:
                lines = stream.read().splitlines()
        except OSError:
            return
        for line in lines:
            line = line.split("#", 1)[0].strip()
            if line.startswith("include") and depth < 4:
                for pattern in line.split()[1:]:
                    pattern = os.path.join(os.path.dirname(path), pattern)
                    for included in sorted(glob.glob(pattern)):
                        parse(included, depth + 1)
            elif line.startswith("/"):
                found.append(line)

    parse("/etc/ld.so.conf", 0)
    return tuple(found)


@functools.cache
def cached() -> dict[str, tuple[str, ...]]:
    """The loader's cache: each library name, and the files it may stand for (one per class
    and machine, and the ``glibc-hwcaps`` variants). Empty when there is no cache or it is
    in a format this does not read; the directories are searched then."""
    try:
        with open(CACHE, "rb") as stream:
            data = stream.read()
    except OSError:
        return {}
    start = data.find(_CACHE_NEW)
    if start < 0:
        return {}
    table: dict[str, list[str]] = {}
    try:
        count = struct.unpack_from("<I", data, start + 20)[0]
        entries = start + 48  # the header: magic and version, counts, flags, extension

        def text(offset: int) -> str:
            at = start + offset
            return data[at : data.index(b"\0", at)].decode(errors="replace")

        for index in range(count):
            _, key, value, _, _ = struct.unpack_from("<iIIIQ", data, entries + 24 * index)
            table.setdefault(text(key), []).append(text(value))
    except (struct.error, ValueError):
        return {}
    return {name: tuple(files) for name, files in table.items()}


def _in_folder(folder: str, name: str) -> list[str]:
    """``folder/name`` and its ``glibc-hwcaps`` variants that exist."""
    return [
        path
        for path in (
            os.path.join(folder, name),
            *sorted(glob.glob(os.path.join(glob.escape(folder), "glibc-hwcaps", "*", name))),
        )
        if os.path.isfile(path)
    ]


def _search(origin: str, dynamic: Dynamic, top: Dynamic) -> list[tuple[str, Source]]:
    """The directories a name needed by a file in ``origin`` is looked up in, in order, with
    where each comes from (``top``: the program's executable, whose ``RPATH`` counts too)."""
    lib = "lib64" if dynamic.bits == 64 else "lib"

    def expand(folder: str) -> str:
        for name in ("$ORIGIN", "${ORIGIN}"):
            folder = folder.replace(name, origin)
        for name in ("$LIB", "${LIB}"):
            folder = folder.replace(name, lib)
        for name in ("$PLATFORM", "${PLATFORM}"):
            folder = folder.replace(name, platform.machine())
        return folder

    folders: list[tuple[str, Source]] = []
    if not dynamic.runpath:
        folders += [(expand(folder), "rpath") for folder in (*dynamic.rpath, *top.rpath)]
    environment = os.environ.get("LD_LIBRARY_PATH", "")
    folders += [(folder, "environment") for folder in environment.split(":") if folder]
    folders += [(expand(folder), "runpath") for folder in dynamic.runpath]
    return folders


def _system_folders() -> list[str]:
    return [*_configured(), f"/lib/{MULTIARCH}", f"/usr/lib/{MULTIARCH}", *_DEFAULTS]


@functools.lru_cache(maxsize=4096)
def _resolve(
    name: str, folders: tuple[tuple[str, Source], ...], dynamic: Dynamic
) -> tuple[tuple[str, ...], Source]:
    """The real paths ``name`` may stand for (the file the loader takes and its hwcaps
    variants beside it), and where it was found; ``((), "system")`` when nowhere."""

    def fits(path: str) -> bool:
        found = read(path)
        return found is not None and (found.bits, found.machine) == (dynamic.bits, dynamic.machine)

    if "/" in name:
        return ((os.path.realpath(name),) if os.path.isfile(name) and fits(name) else ()), "path"
    for folder, source in folders:
        hits = [path for path in _in_folder(folder, name) if fits(path)]
        if hits:
            return tuple(os.path.realpath(path) for path in hits), source
    hits = [path for path in cached().get(name, ()) if os.path.isfile(path) and fits(path)]
    if hits:
        return tuple(dict.fromkeys(os.path.realpath(path) for path in hits)), "cache"
    for folder in _system_folders():
        hits = [path for path in _in_folder(folder, name) if fits(path)]
        if hits:
            return tuple(os.path.realpath(path) for path in hits), "system"
    return (), "system"


def closure(files: Iterable[str]) -> Closure:
    """Every library and loader the ELF ``files`` need (not the files themselves),
    transitively, each with the file that needs it and where it was found. Files that are
    not ELF are passed over."""
    result = Closure()
    pending: list[tuple[str, Dynamic | None]] = [(os.path.realpath(path), None) for path in files]
    seen: set[str] = set()
    while pending:
        path, top_file = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        dynamic = read(path)
        if dynamic is None:
            continue
        top = top_file or dynamic
        if dynamic.interpreter:
            if os.path.isfile(dynamic.interpreter):
                interpreter = os.path.realpath(dynamic.interpreter)
                result.found.setdefault(
                    interpreter, Found(interpreter, dynamic.interpreter, path, "interpreter")
                )
                pending.append((interpreter, top))
            else:
                result.missing.append((dynamic.interpreter, path))
        folders = tuple(_search(os.path.dirname(path), dynamic, top))
        for name in dynamic.needed:
            libraries, source = _resolve(name, folders, dynamic)
            if not libraries:
                result.missing.append((name, path))
            for library in libraries:
                result.found.setdefault(library, Found(library, name, path, source))
                pending.append((library, top))
    return result


def libraries(files: Iterable[str]) -> set[str]:
    """The real paths of every library and loader the ELF ``files`` need (not the files
    themselves), transitively. Files that are not ELF are passed over."""
    return set(closure(files).found)
