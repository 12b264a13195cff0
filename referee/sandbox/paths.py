"""What a bot's program needs to read: its runtime, its own files, and the system's few.

A command's allow-list is worked out from its words alone: the executable found on PATH (as
named and as resolved, since a venv's ``python`` is a link into its base interpreter), the
interpreter of a ``#!`` script, and every word that names an existing file or directory (the
bot's script, a jar, a class path).

An executable in a ``bin`` directory of its own prefix brings that whole prefix (a venv,
``~/.pyenv/versions/X``, ``/usr/lib/jvm/X``, ``/opt/node``): interpreters keep their
libraries there. An executable of the system's shared prefixes (``/usr``, ``/usr/local``,
``/bin``) brings only its own files: itself, the directories of the prefix named after it
(``python3.11`` -> ``/usr/lib/python3.11``, ``/usr/lib/python3``, ``/usr/local/lib/python3.11``;
``node`` -> ``/usr/lib/node_modules``, ``/usr/share/nodejs``). The rest of ``/usr`` —
gigabytes of other programs' files, most of them never read — stays closed: each of its
pages would be one more place for a bot to leave a mark in the page cache (see
``resident``), and one more to make resident before every match.

Every ELF file among all that — the program wherever it lives (``/tmp/x/bot``, ``/opt/x/bot``),
the files the command names, the programs and libraries beside them and in the runtime's
directories — brings the loader and the shared libraries it loads (``elf.closure``). A
library the machine chose (the loader's cache and configuration, ``LD_LIBRARY_PATH``) is
allowed wherever it is; one the ELF file chose itself (its ``RPATH``/``RUNPATH``, a name with
a slash, its loader) only inside the system's prefixes or the directories the command already
brings: a bot's program must not open another entrant's files by naming them. A library left
out is kept (``ProgramFiles.refused``) so that a bot that cannot start is told which file,
and the option that allows it.

No rule ever grants a directory such as ``/``, ``/tmp``, ``/proc`` or the operator's home
whole: a program or word there is allowed alone.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import os
import shlex
import shutil
import stat
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from referee.rules.tiles import Seat
from referee.sandbox import elf

#: Read-only for every bot: the loader's configuration, locales, time zones, TLS settings,
#: the user database and the runtimes' configuration in ``/etc``.
SYSTEM: Final = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/usr/share/zoneinfo",
    "/usr/lib/locale",
    "/etc/alternatives",
    "/etc/ssl",
    "/usr/lib/ssl",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    *sorted(glob.glob("/etc/python3*")),
    *sorted(glob.glob("/etc/java*")),
)
#: Prefixes shared by the system's programs: a program there brings its own files only.
SHARED_PREFIXES: Final = frozenset({"/usr", "/usr/local", "/bin", "/sbin"})
#: Where a shared prefix keeps its programs' files, in directories named after them.
_OWN_PLACES: Final = ("lib", "lib64", f"lib/{elf.MULTIARCH}", "share", "libexec")
#: The referee's own package (public code): bots written with its kit, ``referee.bot``,
#: import it wherever it is installed.
PACKAGE: Final = Path(__file__).resolve().parent.parent

#: Read and write: the harmless devices.
DEVICES: Final = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


#: Directories never allowed whole: the root, what holds other processes' and users' data,
#: and the operator's home (a bot at ``~/bot.py`` gets that file, not ``~``).
_NEVER: Final = frozenset(
    {
        *("/", "/proc", "/sys", "/dev", "/dev/shm", "/tmp", "/var/tmp", "/run", "/var"),
        *("/home", "/root", "/etc", "/mnt", "/media", "/srv", "/opt", "/boot"),
    }
)


def closed(folder: Path) -> bool:
    """Is ``folder`` one that no bot may have whole?"""
    return str(folder) in _NEVER or folder == Path.home() or folder == Path(tempfile.gettempdir())


def executable(argv0: str) -> Path | None:
    """The program ``argv0`` names, as ``exec`` would find it."""
    found = shutil.which(argv0) if os.sep not in argv0 else argv0
    return Path(os.path.abspath(found)) if found else None


def _prefix(program: Path) -> Path:
    """``/usr/bin/node`` -> ``/usr``; ``bots/mybot`` -> ``bots``; ``/bin/sh`` -> ``/bin``
    (never ``/``); ``/tmp/mybot`` -> the file itself (never ``/tmp``)."""
    folder = program.parent
    if folder.name in ("bin", "sbin", "shims") and not closed(folder.parent):
        return folder.parent  # shims: pyenv, rbenv, nodenv, asdf keep their versions beside
    return program if closed(folder) else folder


def _shebang(program: Path) -> list[str]:
    """The interpreter a ``#!`` script names, and the program ``env`` is told to run."""
    try:
        with program.open("rb") as stream:
            first = stream.read(256)
    except OSError:
        return []
    if not first.startswith(b"#!"):
        return []
    words = first[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if words and os.path.basename(words[0]) == "env":
        return words[:1] + [word for word in words[1:] if not word.startswith("-")][:1]
    return words[:1]


_SHELLS: Final = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
#: What a shell script may run: every program of the system, and what those load.
_SYSTEM_PREFIXES: Final = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin")


def _words(argv: list[str]) -> list[str]:
    """The command's words, and those of the script a shell is given with ``-c`` (``sh -c
    'exec python3 bot.py'`` names ``python3`` and ``bot.py`` too)."""
    words = list(argv)
    if os.path.basename(argv[0]) in _SHELLS and "-c" in argv[1:-1]:
        with contextlib.suppress(ValueError):  # unsplittable: the shell will say so
            words += shlex.split(argv[argv.index("-c", 1) + 1])
    return words


@dataclass(frozen=True)
class ProgramFiles:
    """What a command's bot may read, and the libraries its ELF files ask for that it may not."""

    #: What its runtime needs: programs, their prefixes or own directories, libraries.
    runtime: list[Path]
    #: The bot's own files and directories (the words of its command that name them).
    own: list[Path]
    #: Libraries (and loaders) an ELF file of the bot chose by a path of its own outside the
    #: system's prefixes and the directories above: left out, to be named if it cannot start.
    refused: list[elf.Found]


def program_files(argv: list[str]) -> ProgramFiles:
    """Everything a command's bot may read, and the libraries it asks for beyond that."""
    runtime: list[Path] = []
    seen: set[Path] = set()
    words = _words(argv)
    # The executable, and in a shell's script any word that is a program on PATH.
    pending = [argv[0], *(word for word in words[len(argv) :] if executable(word) is not None)]
    while pending:  # the executable, and the interpreter of a script, and of that...
        program = executable(pending.pop())
        if program is None or program in seen:
            continue
        seen.add(program)
        for name in (program, Path(os.path.realpath(program))):
            runtime += _runtime(name)
            pending += _shebang(name)
    shell = any(program.name in _SHELLS for program in seen)
    if shell:
        # A shell script (a pyenv shim, ``sh -c '…'``) may run any program of the system:
        # it brings the system's prefixes whole, libraries and all.
        runtime += [Path(path) for path in _SYSTEM_PREFIXES if os.path.exists(path)]
    own: list[Path] = []
    for word in words[1:]:
        for piece in _pieces(word):
            if os.path.exists(piece):
                path = Path(os.path.realpath(piece))  # Landlock follows links: so must we
                if path in runtime:
                    continue  # a program the command runs: the runtime has it already
                if path.is_dir():
                    if not closed(path) and not _shared(path):
                        own.append(path)
                else:
                    parent = path.parent
                    own.append(path if closed(parent) or _shared(parent) else parent)
    # Every ELF file the bot may run or load: the programs wherever they are, and the ELF
    # files of its runtime's and its own directories (the system's prefixes, which a shell
    # brings whole, need no search).
    programs = [str(path) for path in seen] + [os.path.realpath(path) for path in seen]
    named = [str(path) for path in own if path.is_file()]
    places = tuple(
        path for path in _unique([*runtime, *own]) if not (shell and str(path) in _SYSTEM_PREFIXES)
    )
    allowed, refused = _libraries(tuple(dict.fromkeys(programs + named)), places)
    runtime += [Path(path) for path in sorted(allowed)]
    return ProgramFiles(_unique(runtime), _unique(own), refused)


def _shared(folder: Path) -> bool:
    """Is ``folder`` a shared prefix or one of its top directories (``/usr/bin``,
    ``/usr/lib``, ``/usr/lib/<multiarch>``), which a word naming a file there never brings
    whole (``sh -c 'exec /usr/bin/python3 bot.py'`` names ``/usr/bin/python3``)?"""
    text = str(folder)
    return (
        text in SHARED_PREFIXES
        or str(folder.parent) in SHARED_PREFIXES
        or (folder.name == elf.MULTIARCH and str(folder.parent.parent) in SHARED_PREFIXES)
    )


@functools.cache
def _runtime(program: Path) -> tuple[Path, ...]:
    """What ``program`` brings: its own prefix whole, or in a shared prefix, itself and the
    directories named after it."""
    prefix = _prefix(program)
    if str(prefix) not in SHARED_PREFIXES:
        return (prefix,)
    found = [program]
    if prefix.name != "bin" and prefix.name != "sbin":  # /usr, /usr/local
        stem = program.name.rstrip("0123456789.-_")
        places = [prefix / place for place in _OWN_PLACES]
        if prefix == Path("/usr"):
            places += [Path("/usr/local") / place for place in _OWN_PLACES]
        for place in places:
            with contextlib.suppress(OSError), os.scandir(place) as entries:
                for entry in sorted(entries, key=lambda entry: entry.name):
                    if _named_after(entry.name, stem) and entry.is_dir(follow_symlinks=False):
                        found.append(Path(entry.path))
    return tuple(found)


def _named_after(name: str, stem: str) -> bool:
    """``python3.11``, ``python3`` and ``python-wheels`` for ``python``; ``node_modules`` and
    ``nodejs`` for ``node``; never ``shared-mime-info`` for ``sh``."""
    if len(stem) < 2 or not name.startswith(stem):
        return False
    rest = name[len(stem) :]
    return rest in ("", "js") or rest[0] in "0123456789.-_"


#: Directories whose files may be programs (other ELF files have ``.so`` in their names, or
#: an execute bit).
_PROGRAM_DIRS: Final = frozenset({"bin", "sbin", "libexec"})
#: Files whose mode is read to find programs outside such directories, per directory tree
#: (a bot's folder may hold a data set of a million files; its programs are near the top).
MOST_MODES_READ: Final = 20_000


@functools.cache
def _elf_files(folder: Path) -> tuple[str, ...]:
    """The ELF files under ``folder``: shared libraries and extension modules (``.so`` in the
    name), the files of its program directories, and files with an execute bit that start
    as ELF files do. Directory entries first; a file's mode is read only while fewer than
    ``MOST_MODES_READ`` have been, and its first bytes only for an executable one."""
    found: list[str] = []
    pending = [str(folder)]
    modes_read = 0
    while pending:
        current = pending.pop()
        programs = os.path.basename(current) in _PROGRAM_DIRS
        try:
            with os.scandir(current) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    elif programs or entry.name.endswith(".so") or ".so." in entry.name:
                        found.append(entry.path)
                    elif modes_read < MOST_MODES_READ and entry.is_file(follow_symlinks=False):
                        modes_read += 1
                        with contextlib.suppress(OSError):
                            if entry.stat(follow_symlinks=False).st_mode & 0o111 and elf.is_elf(
                                entry.path
                            ):
                                found.append(entry.path)
        except OSError:
            continue
    return tuple(sorted(found))


@functools.cache
def _libraries(
    programs: tuple[str, ...], places: tuple[Path, ...]
) -> tuple[frozenset[str], list[elf.Found]]:
    """(the libraries the ``programs``, the ELF files named in ``places`` and those in the
    directories among them load, outside those directories; those left out, see the
    module)."""
    files = list(programs)
    for path in places:
        files += _elf_files(path) if path.is_dir() else [str(path)]
    inside = [path for path in places if path.is_dir()]
    trusted = [*inside, *(Path(prefix) for prefix in _SYSTEM_PREFIXES)]
    allowed: set[str] = set()
    refused: list[elf.Found] = []
    for found in elf.closure(files).found.values():
        library = Path(found.path)
        if any(contains(folder, library) for folder in inside):
            continue  # readable already
        if found.chosen and not any(contains(folder, library) for folder in trusted):
            refused.append(found)
        else:
            allowed.add(found.path)
    return frozenset(allowed), refused


def _pieces(word: str) -> list[str]:
    """The paths a command word may name: itself, after ``=``, each part of a ``:`` list."""
    return [piece for piece in word.split("=")[-1].split(os.pathsep) if piece]


def _unique(paths: list[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))


def unreadable_by_others(argv: list[str]) -> tuple[Path, Path] | None:
    """(the first directory or file a user other than its owner could not use, the runtime
    or program file behind it) — an interpreter under a 0700 home, say — or None."""
    targets: list[tuple[Path, int]] = []
    program = executable(argv[0])
    if program is not None:
        real = Path(os.path.realpath(program))
        targets.append((real, stat.S_IXOTH))
        for word in _shebang(real):
            found = executable(word)
            if found is not None:
                targets.append((Path(os.path.realpath(found)), stat.S_IXOTH))
    words = _words(argv)
    for word in words[len(argv) :]:  # programs a shell's script runs
        found = executable(word)
        if found is not None:
            targets.append((Path(os.path.realpath(found)), stat.S_IXOTH))
    for word in words[1:]:
        for piece in _pieces(word):
            if os.path.isfile(piece):
                targets.append((Path(os.path.realpath(piece)), stat.S_IROTH))
            elif os.path.isdir(piece):
                targets.append((Path(os.path.realpath(piece)), stat.S_IROTH | stat.S_IXOTH))
    for path, needed in targets:
        for folder in reversed(path.parents):
            if not _mode(folder) & stat.S_IXOTH:
                return folder, path
        if _mode(path) & needed != needed:
            return path, path
    return None


def _mode(path: Path) -> int:
    try:
        return path.stat().st_mode
    except OSError:
        return 0


def contains(folder: Path, other: Path) -> bool:
    """Is ``other`` ``folder`` or beneath it?"""
    folder, other = Path(os.path.realpath(folder)), Path(os.path.realpath(other))
    return folder == other or folder in other.parents


def readable(per_seat: Mapping[Seat, Iterable[Path]]) -> list[Path]:
    """Every path some seat may read: the system's files, the referee's package and each
    seat's own list (``SandboxPlan.readable``) — what ``resident.warm`` is given."""
    found: list[Path] = [Path(path) for path in SYSTEM]
    found.append(PACKAGE)
    for seat_paths in per_seat.values():
        found += seat_paths
    return _unique(found)
