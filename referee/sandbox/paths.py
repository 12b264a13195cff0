"""What a bot's program needs to read: its runtime, its own files, and the system's few.

A command's allow-list is worked out from its words alone: the executable found on PATH (as
named and as resolved, since a venv's ``python`` is a link into its base interpreter), the
interpreter of a ``#!`` script, and every word that names an existing file or directory (the
bot's script, a jar, a class path). An executable in a ``bin`` directory brings its whole
prefix (``/usr``, a venv, ``~/.pyenv/versions/X``): interpreters keep their libraries there.
No rule ever grants a directory such as ``/``, ``/tmp``, ``/proc`` or the operator's home
whole: a program or word there is allowed alone.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shlex
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Final

#: Read-only for every bot: shared libraries, the runtimes' system configuration, time zones.
SYSTEM: Final = (
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/libx32",
    "/bin",
    "/sbin",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    *sorted(glob.glob("/etc/python3*")),
    *sorted(glob.glob("/etc/java*")),
)
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
    try:
        with program.open("rb") as stream:
            first = stream.read(256)
    except OSError:
        return []
    if not first.startswith(b"#!"):
        return []
    words = first[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if words and os.path.basename(words[0]) == "env":
        words = [word for word in words[1:] if not word.startswith("-")][:1]
    return words[:1]


_SHELLS: Final = frozenset({"sh", "bash", "dash", "zsh", "ksh"})


def _words(argv: list[str]) -> list[str]:
    """The command's words, and those of the script a shell is given with ``-c`` (``sh -c
    'exec python3 bot.py'`` names ``python3`` and ``bot.py`` too)."""
    words = list(argv)
    if os.path.basename(argv[0]) in _SHELLS and "-c" in argv[1:-1]:
        with contextlib.suppress(ValueError):  # unsplittable: the shell will say so
            words += shlex.split(argv[argv.index("-c", 1) + 1])
    return words


def program_files(argv: list[str]) -> tuple[list[Path], list[Path]]:
    """(the directories a command's runtime needs, the bot's own files and directories)."""
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
            runtime.append(_prefix(name))
            pending += _shebang(name)
    own: list[Path] = []
    for word in words[1:]:
        for piece in _pieces(word):
            if os.path.exists(piece):
                path = Path(os.path.realpath(piece))  # Landlock follows links: so must we
                if path.is_dir():
                    if not closed(path):
                        own.append(path)
                else:
                    own.append(path if closed(path.parent) else path.parent)
    return _unique(runtime), _unique(own)


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
