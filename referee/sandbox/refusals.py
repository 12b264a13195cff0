"""Why a sandboxed program cannot start: the file it needs that its seat may not read or run,
named with the option that allows it.

A native program that cannot start says little: ``exec`` fails with ``Permission denied`` when
its loader is refused, and the loader prints ``error while loading shared libraries: libx.so:
cannot open shared object file: Permission denied`` for a library. The referee knows more: it
read the program's ELF files (``paths.program_files``), so it can name the file that was left
out, the file that asked for it and why it was left out — and no guess from the bot's words is
needed. It also tells a program on a filesystem mounted ``noexec``, which no option fixes.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from referee.sandbox import elf, paths

#: What the loader says when it cannot map a library (glibc and musl).
_LOADER_LINE: Final = re.compile(
    r"error (?:while )?loading shared librar(?:y|ies): ([^\s:]+): cannot open shared object file"
    r"|Error loading shared library ([^\s:]+):"
)


@dataclass(frozen=True)
class Refusal:
    """A file a bot's program needs and its seat may not use, with the fix."""

    path: Path
    #: What the file is to the bot, in words (``its loader``, ``libx.so, which /opt/x/bot
    #: loads by its RUNPATH /opt/lib``).
    what: str
    #: The option that allows it, or what to do where no option does.
    fix: str
    #: The library name the loader was asked for (None for the program itself).
    name: str | None = None

    def __str__(self) -> str:
        return f"the sandbox refused {self.path}, {self.what}: {self.fix}"


_SOURCES: Final = {
    "interpreter": "as its loader (PT_INTERP)",
    "path": "by this path",
    "rpath": "by its RPATH",
    "runpath": "by its RUNPATH",
}


def _refused_library(found: elf.Found) -> Refusal:
    verb = "names" if found.source == "interpreter" else "loads"
    return Refusal(
        Path(found.path),
        f"which {found.needed_by} {verb} {_SOURCES.get(found.source, '')} (outside the system's"
        " libraries and the bot's own directories)",
        f"if the bot needs it, --sandbox-allow {found.path}",
        None if found.source == "interpreter" else found.name,
    )


def refusals(argv: list[str], readable: Iterable[Path]) -> list[Refusal]:
    """What ``argv``'s program needs to start that a seat allowed to read ``readable`` (its
    allow-list, ``--sandbox-allow`` paths included) may not use."""
    allowed = list(readable)
    if not argv or paths.executable(argv[0]) is None:
        return []
    files = paths.program_files(argv)
    found = [
        _refused_library(library)
        for library in files.refused
        if not any(paths.contains(folder, Path(library.path)) for folder in allowed)
    ]
    program = paths.executable(argv[0])
    assert program is not None
    for path in dict.fromkeys([program, Path(os.path.realpath(program))]):
        if _no_exec(path):
            found.append(
                Refusal(
                    path,
                    "the program, on a filesystem mounted noexec",
                    "no option allows it: put the bot on a filesystem that allows programs",
                )
            )
            break
    return found


def _no_exec(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_NOEXEC)
    except OSError:
        return False


def loader_names(lines: Iterable[str]) -> list[str]:
    """The library names the loader's lines say it could not map."""
    names: list[str] = []
    for line in lines:
        for match in _LOADER_LINE.finditer(line):
            name = match.group(1) or match.group(2)
            if name not in names:
                names.append(name)
    return names


def refusals_of(command: str, readable: Iterable[Path]) -> list[Refusal]:
    """``refusals`` of a bot's command line (none for one that does not split)."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return []
    return refusals(argv, readable)


def explained(lines: Iterable[str], command: str, readable: Iterable[Path]) -> list[Refusal]:
    """The refusals that the loader's lines among ``lines`` (a bot's stderr) point at: each
    library the loader could not map that the seat was refused."""
    named = loader_names(lines)
    if not named:
        return []
    return [refusal for refusal in refusals_of(command, readable) if refusal.name in named]
