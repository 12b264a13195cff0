"""The shared libraries a program loads: its ELF dynamic section, read as the loader does.

``libraries(files)`` is the closure: every ``DT_NEEDED`` library of each file, and of those,
resolved through ``DT_RPATH`` (when there is no ``DT_RUNPATH``), ``LD_LIBRARY_PATH``,
``DT_RUNPATH`` (with ``$ORIGIN``, ``$LIB`` and ``$PLATFORM``), the directories of
``/etc/ld.so.conf`` and the loader's defaults, taking the first file of the right class and
machine, and the loader itself (``PT_INTERP``). Libraries opened later with ``dlopen`` by a
name of their own are not in it: a runtime keeps those in its own directories.
"""

from __future__ import annotations

import functools
import glob
import os
import platform
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

_MAGIC: Final = b"\x7fELF"
_PT_LOAD, _PT_DYNAMIC, _PT_INTERP = 1, 2, 3
_DT_NEEDED, _DT_STRTAB, _DT_RPATH, _DT_RUNPATH = 1, 5, 15, 29
_DEFAULTS: Final = ("/lib64", "/usr/lib64", "/lib", "/usr/lib")
#: The Debian multiarch name of this machine's libraries (`/usr/lib/x86_64-linux-gnu`).
MULTIARCH: Final = {"x86_64": "x86_64-linux-gnu", "aarch64": "aarch64-linux-gnu"}.get(
    platform.machine(), platform.machine() + "-linux-gnu"
)


@dataclass(frozen=True)
class Dynamic:
    """What the loader reads of one ELF file."""

    bits: int
    machine: int
    interpreter: str | None
    needed: tuple[str, ...]
    rpath: tuple[str, ...]
    runpath: tuple[str, ...]


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


def _search(origin: str, dynamic: Dynamic, loader: Dynamic) -> list[str]:
    lib = "lib64" if dynamic.bits == 64 else "lib"

    def expand(folder: str) -> str:
        for name in ("$ORIGIN", "${ORIGIN}"):
            folder = folder.replace(name, origin)
        for name in ("$LIB", "${LIB}"):
            folder = folder.replace(name, lib)
        for name in ("$PLATFORM", "${PLATFORM}"):
            folder = folder.replace(name, platform.machine())
        return folder

    folders: list[str] = []
    if not dynamic.runpath:
        folders += [expand(folder) for folder in (*dynamic.rpath, *loader.rpath)]
    folders += [f for f in os.environ.get("LD_LIBRARY_PATH", "").split(":") if f]
    folders += [expand(folder) for folder in dynamic.runpath]
    folders += _configured()
    folders += [f"/lib/{MULTIARCH}", f"/usr/lib/{MULTIARCH}"]
    folders += _DEFAULTS
    return folders


@functools.lru_cache(maxsize=4096)
def _resolve(name: str, folders: tuple[str, ...], dynamic: Dynamic) -> str | None:
    candidates = [name] if "/" in name else [os.path.join(folder, name) for folder in folders]
    for candidate in candidates:
        if os.path.isfile(candidate):
            found = read(candidate)
            if found is not None and (found.bits, found.machine) == (dynamic.bits, dynamic.machine):
                return os.path.realpath(candidate)
    return None


def libraries(files: Iterable[str]) -> set[str]:
    """The real paths of every library and loader the ELF ``files`` need (not the files
    themselves), transitively. Files that are not ELF are passed over."""
    found: set[str] = set()
    pending: list[tuple[str, Dynamic | None]] = [(os.path.realpath(path), None) for path in files]
    seen: set[str] = set()
    while pending:
        path, loader = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        dynamic = read(path)
        if dynamic is None:
            continue
        top = loader or dynamic
        if dynamic.interpreter and os.path.isfile(dynamic.interpreter):
            interpreter = os.path.realpath(dynamic.interpreter)
            found.add(interpreter)
            pending.append((interpreter, top))
        folders = tuple(_search(os.path.dirname(path), dynamic, top))
        for name in dynamic.needed:
            library = _resolve(name, folders, dynamic)
            if library is not None:
                found.add(library)
                pending.append((library, top))
    return found
