"""What a seat's own root holds (``private_root``): every file, link and directory the seat may
read, listed in the referee once per allow-list — a tournament starts many bots with the
same list, and the listing holds while no directory in it changes — never in the child.

Links are kept as links, with the links that lead to allowed files (``/lib`` -> ``usr/lib``,
the libraries' sonames), and each program's loader by the path it names. The referee's
secrets, and what lies beneath them, are left out.
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from referee.sandbox import elf

#: Entries at the most in a seat's root (a mount namespace holds 100,000 mounts by default,
#: and each entry costs the seat's start some microseconds): past it the seat gets none.
MOST_ENTRIES: Final = 40_000
#: Links followed at the most on the way to one path (the kernel's own bound).
_MOST_LINKS: Final = 40
#: Directories whose files may be programs, whose loader (``PT_INTERP``) the root must hold.
_PROGRAM_DIRS: Final = frozenset({"bin", "sbin", "libexec"})


@dataclass(frozen=True)
class Tree:
    """What a root holds, absolute paths as bytes: directories (parents first), regular files
    (each bound from the same path), links (path, target)."""

    directories: tuple[bytes, ...]
    files: tuple[bytes, ...]
    links: tuple[tuple[bytes, bytes], ...]
    #: Every directory listed whole and its ``st_mtime_ns``: the tree holds while none
    #: changes. (Not those above what is allowed: ``/tmp`` changes with every match's
    #: scratch, and a link added there that leads into the tree is no file the seat lacks.)
    read: tuple[tuple[str, int], ...]
    #: The allowed paths that are directories: Landlock's rules name them again in the root.
    allowed_directories: tuple[str, ...] = ()
    #: Set when the list stopped at ``MOST_ENTRIES``: the tree is not whole.
    too_large: bool = False

    @functools.cached_property
    def directory_set(self) -> frozenset[str]:
        return frozenset(path.decode() for path in self.directories)

    @functools.cached_property
    def names(self) -> frozenset[bytes]:
        """The paths of its files and links."""
        return frozenset((*self.files, *(path for path, _ in self.links)))

    @property
    def entries(self) -> int:
        return len(self.directories) + len(self.files) + len(self.links)

    def fresh(self) -> bool:
        """Is every directory listed as it was (no name added, removed or renamed)?"""
        for path, mtime in self.read:
            try:
                if os.lstat(path).st_mtime_ns != mtime:
                    return False
            except OSError:
                return False
        return True


class _Lister:
    """Walks what a seat may read, as the kernel would look it up."""

    def __init__(self, excluded: Iterable[str]) -> None:
        self.excluded = tuple(excluded)
        self.directories: dict[str, int] = {"/": _mtime("/")}
        self.files: set[str] = set()
        self.links: dict[str, str] = {}
        self.walked: set[str] = set()
        self.too_large = False

    def _out(self, path: str) -> bool:
        return any(path == secret or path.startswith(secret + "/") for secret in self.excluded)

    def _full(self) -> bool:
        self.too_large = len(self.directories) + len(self.files) + len(self.links) > MOST_ENTRIES
        return self.too_large

    def route(self, path: str, depth: int = 0) -> str | None:
        """Record the directories and links a lookup of ``path`` passes (``path`` itself only
        when it is a link); where the lookup lands, or None when it fails."""
        if depth > _MOST_LINKS:
            return None
        parts = [part for part in path.split("/") if part and part != "."]
        current = "/"
        for index, name in enumerate(parts):
            if name == "..":
                current = os.path.dirname(current)
                continue
            candidate = os.path.join(current, name)
            if self._out(candidate):
                return None
            try:
                info = os.lstat(candidate)
            except OSError:
                return None
            if stat.S_ISLNK(info.st_mode):
                target = os.readlink(candidate)
                landed = self.route(os.path.join(current, target), depth + 1)
                if landed is None:
                    return None
                self.links[candidate] = target
                current = landed
                continue
            if index < len(parts) - 1:
                if not stat.S_ISDIR(info.st_mode):
                    return None
                self.directories.setdefault(candidate, info.st_mtime_ns)
            current = candidate
        return current

    def add(self, path: str) -> None:
        """``path`` and, for a directory, everything beneath it."""
        landed = self.route(path)
        if landed is None:
            return
        try:
            info = os.lstat(landed)
        except OSError:
            return
        if stat.S_ISDIR(info.st_mode):
            self.walk(landed, info.st_mtime_ns)
        elif stat.S_ISREG(info.st_mode) or stat.S_ISCHR(info.st_mode):
            self.files.add(landed)

    def walk(self, top: str, mtime: int) -> None:
        if top in self.walked:
            return
        self.directories[top] = mtime
        pending = [top]
        while pending and not self._full():
            folder = pending.pop()
            self.walked.add(folder)
            try:
                with os.scandir(folder) as entries:
                    listed = list(entries)
            except OSError:
                continue
            for entry in listed:
                path = entry.path
                if self._out(path):
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if path not in self.walked:
                            self.directories[path] = entry.stat(follow_symlinks=False).st_mtime_ns
                            pending.append(path)
                    elif entry.is_symlink():
                        self.links[path] = os.readlink(path)
                    elif entry.is_file(follow_symlinks=False):
                        self.files.add(path)
                except OSError:
                    continue

    def lands_inside(self, path: str) -> bool:
        """Does a lookup of ``path`` (a link, or a path) end at something the root holds?"""
        with contextlib.suppress(OSError):
            target = os.readlink(path)
            if "/" not in target:  # most links: a name in the same (real) directory
                beside = os.path.normpath(os.path.join(os.path.dirname(path), target))
                if beside in self.files or beside in self.directories:
                    return True
                if not os.path.islink(beside):
                    return False
        real = os.path.realpath(path)
        return real in self.files or real in self.directories

    def links_into(self) -> None:
        """Every link that leads to something the root holds, with the links on its way: in
        the directories above what is allowed (``/lib`` -> ``usr/lib``, ``libX11.so.6`` ->
        ``libX11.so.6.4.0``, which the loader's cache names), and those inside, whose target
        may pass through such a link. Landlock allows a file by whatever path reaches it."""
        for path in list(self.links):
            if self.lands_inside(path):
                self.route(path)
        for folder in sorted(set(self.directories) - self.walked):
            try:
                with os.scandir(folder) as entries:
                    found = [entry.path for entry in entries if entry.is_symlink()]
            except OSError:
                continue
            for path in found:
                if path not in self.links and not self._out(path) and self.lands_inside(path):
                    self.route(path)

    def loaders(self, named: Iterable[str]) -> None:
        """The loader each program names (``/lib64/ld-linux-x86-64.so.2``), by that path: the
        kernel opens it as named, through links no allowed path passes."""
        programs = [path for path in self.files if path.rsplit("/", 2)[-2] in _PROGRAM_DIRS]
        for path in {*named, *programs}:
            found = elf.read(path) if os.path.isfile(path) else None
            if found is not None and found.interpreter and self.lands_inside(found.interpreter):
                self.route(found.interpreter)

    def tree(self, allowed: Iterable[str]) -> Tree:
        self._full()
        directories = sorted(self.directories)
        return Tree(
            directories=tuple(path.encode() for path in directories if path != "/"),
            files=tuple(sorted(path.encode() for path in self.files)),
            links=tuple(sorted((path.encode(), to.encode()) for path, to in self.links.items())),
            read=tuple((path, self.directories[path]) for path in sorted(self.walked)),
            allowed_directories=tuple(path for path in allowed if os.path.isdir(path)),
            too_large=self.too_large,
        )


def _mtime(path: str) -> int:
    try:
        return os.lstat(path).st_mtime_ns
    except OSError:
        return 0


#: Each listing, and when it was last found to hold (``time.monotonic``).
_TREES: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[Tree, float]] = {}
_TREES_LOCK = threading.Lock()
#: Seconds a listing is trusted without looking again (a match's four seats, planned and
#: started, look once).
TRUSTED: Final = 1.0


_Paths = Iterable[str | os.PathLike[str]]


def tree(allowed: _Paths, excluded: _Paths) -> Tree:
    """What a root for a seat that may read ``allowed`` holds, ``excluded`` (the referee's
    secrets) and what lies beneath left out; remembered per process while it holds."""
    paths = tuple(dict.fromkeys(os.path.abspath(path) for path in allowed))
    secrets = tuple(sorted({os.path.realpath(path) for path in excluded}))
    key = (paths, secrets)
    with _TREES_LOCK:
        known, checked = _TREES.get(key, (None, 0.0))
        now = time.monotonic()
        if known is not None and (now - checked < TRUSTED or known.fresh()):
            _TREES[key] = (known, now if now - checked >= TRUSTED else checked)
            return known
        lister = _Lister(secrets)
        for path in paths:
            lister.add(path)
        if not lister.too_large:
            lister.loaders(paths)
            lister.links_into()
        made = lister.tree(paths)
        _TREES[key] = (made, time.monotonic())
        return made


def fits(allowed: _Paths, excluded: _Paths) -> str | None:
    """None when a root of ``allowed`` is within ``MOST_ENTRIES``, else why not."""
    if not tree(allowed, excluded).too_large:
        return None
    return (
        f"the files it may read pass {MOST_ENTRIES:,} entries, too many to bind one by one:"
        " use a smaller runtime, such as /usr/bin/python3"
    )
