"""What a failed bot's stderr says of the sandbox: the variables it names that a sandboxed bot
does not get, the files it names that it was refused, a refused system call.

A bot that needs what the sandbox withholds rarely says so plainly: Python raises
``KeyError: 'BOT_MODEL_DIR'``, Rust panics with ``os error 13``. These read the lines for the
names and paths that would explain it, so that ``referee match`` can name the option that may
fix it, and check-bot's diagnosis can try the likeliest first. A hint is a guess; check-bot's
runs with the sandbox lifted are the proof.

A variable often names a file (``MODEL=/srv/models/policy.onnx``): ``--sandbox-env`` passes
the name and its value, never the file, so the bot may still not read it. Where the value
here names a file or folder the bot may not read, the hint names ``--sandbox-allow`` for it
too, and says why — for a variable the lines name, and for each one passed with
``--sandbox-env`` (the operator's own value, whatever the lines say).

The lines are a bot's, and a hostile bot writes them to get advice printed: so a hint names
only a variable that does not look like a secret, and only a file beside the bot or under the
working directory — never a dotfile, a home directory, the root or a system directory — and
says the bot *claims* it.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from referee.errors import BotCrashed, BotNotReading, BotStartFailed, BotTimeout, reason_code
from referee.sandbox import paths
from referee.sandbox.jail import BOT_ENVIRONMENT
from referee.sandbox.refusals import explained
from referee.settings import SandboxSettings

#: Faults the sandbox may have caused: the bot went away, went silent or could not start
#: (a file, a variable or a system call refused to it), rather than answering wrongly.
SANDBOX_SUSPECTS: Final = frozenset(
    map(reason_code, (BotCrashed, BotTimeout, BotNotReading, BotStartFailed))
)
#: Words that say a file was refused (``EACCES``), in the words of C, Python, Rust, Go,
#: node and Java.
DENIED: Final = (
    *("Permission denied", "EACCES", "os error 13", "PermissionDenied"),
    "error number 13",  # onnxruntime: "Load model from … failed:system error number 13"
)
#: Words that say a system call was refused.
REFUSED_CALL: Final = (
    "Operation not permitted",
    "EPERM",
    "os error 1)",
    "Bad system call",
    "Function not implemented",
    "ENOSYS",
)
#: Candidate paths looked at in all (each costs a ``stat``; the lines are a bot's).
_MAX_PATHS: Final = 64
#: Paths a line may name: quoted, or a word with a slash or a file's extension.
_QUOTED: Final = re.compile(r"""['"`]([^'"`\n]{1,1024})['"`]""")
_WORD: Final = re.compile(r"""(?:^|[\s(=:])((?:[\w.~-]*/)+[\w.-]+|[\w-]+\.[A-Za-z]\w{0,7})""")


#: Names that look like an operator's secret: never suggested for a bot.
_SECRET: Final = re.compile(
    r"TOKEN|SECRET|PASSW|PASSPHRASE|KEY|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|CERT|^AWS_"
    r"|^GH_|^GITHUB_|^GOOGLE_|^AZURE_|^SSH_|^GPG_|^DOCKER_|^NPM_|^PYPI_",
    re.IGNORECASE,
)


def denied(line: str) -> bool:
    """Does a line of a bot's stderr say a file was refused to it?"""
    return any(word in line for word in DENIED)


def refused_call(line: str) -> bool:
    """Does a line of a bot's stderr say a system call was refused to it?"""
    return any(word in line for word in REFUSED_CALL)


def withheld(passed: Iterable[str] = ()) -> tuple[str, ...]:
    """The variables of this environment a sandboxed bot does not get (``passed``: the names
    given with ``--sandbox-env``) and advice may name: none that looks like a secret."""
    given = {*BOT_ENVIRONMENT, *passed}
    return tuple(
        sorted(
            name
            for name in os.environ
            if name not in given and not name.startswith("LC_") and not _SECRET.search(name)
        )
    )


def named_variables(lines: Iterable[str], candidates: Iterable[str]) -> list[str]:
    """The ``candidates`` the lines name, as whole words."""
    text = "\n".join(lines)
    return [name for name in candidates if re.search(rf"\b{re.escape(name)}\b", text)]


def named_paths(lines: Iterable[str], readable: Iterable[Path] = ()) -> list[Path]:
    """Files and folders the lines name that exist here (a relative one from the working
    directory, where the bot starts) and are not under ``readable``."""
    allowed = list(readable)
    named: dict[Path, None] = {}
    looked = 0
    for line in lines:
        for match in (*_QUOTED.finditer(line), *_WORD.finditer(line)):
            text = match.group(1).strip()
            if not text or looked >= _MAX_PATHS:
                continue
            looked += 1
            path = Path(os.path.expanduser(text))
            path = path if path.is_absolute() else Path.cwd() / path
            try:
                exists = path.exists()
            except OSError:
                continue
            if exists and not any(paths.contains(folder, path) for folder in allowed):
                named[Path(os.path.normpath(path))] = None
    return list(named)


#: Folders a hint never sends a bot into, however its stderr names them.
_SYSTEM: Final = tuple(
    Path(path) for path in ("/etc", "/root", "/proc", "/sys", "/dev", "/boot", "/run", "/var")
)


def hints(lines: list[str], command: str, settings: SandboxSettings) -> list[str]:
    """What the lines of ``command``'s stderr suggest the sandbox (``settings``) withheld,
    each with the option that may fix it."""
    readable = _readable(command, settings)
    said: list[str] = []
    named: list[Path] = []  # files a variable's hint names already
    for name in named_variables(lines, withheld(settings.env)):
        files = unreadable(variable_paths(name), readable)
        named += files
        if not files:
            said.append(
                f"its stderr names {name}, a variable sandboxed bots do not get; if it needs it:"
                f" --sandbox-env {name}"
            )
            continue
        said.append(
            f"its stderr names {name}, a variable sandboxed bots do not get, and here {name}"
            f" names {_listed(files)}, which sandboxed bots may not read (--sandbox-env passes"
            f" the name and its value, not the file); if it needs {_it(files)}:"
            f" --sandbox-env {name} {_allowing(files)}"
        )
    for name in settings.env:
        files = unreadable(variable_paths(name), readable)
        named += files
        if files:
            said.append(
                f"{name}, passed with --sandbox-env, names {_listed(files)} here, which"
                " sandboxed bots may not read (--sandbox-env passes the name and its value, not"
                f" the file); if the bot reads {_it(files)}: {_allowing(files)}"
            )
    said += [
        f"its loader could not map {refusal.name}: {refusal}"
        for refusal in explained(lines, command, readable)
    ]
    said += [
        f"its stderr claims {path} was refused to it; if it needs it: --sandbox-allow {path}"
        for path in refused_paths([line for line in lines if denied(line)], command, settings)
        if path not in named
    ]
    return said


def variable_paths(name: str) -> list[Path]:
    """The files and folders that ``name``'s value in this environment names (each part of a
    ``:`` list; a relative one from the working directory, where bots start) that exist here
    and advice may name: no dotfile, home, root or system directory."""
    value = os.environ.get(name, "")
    found: dict[Path, None] = {}
    for piece in value.split(os.pathsep)[:_MAX_PATHS]:
        if not piece.strip():
            continue
        path = Path(os.path.expanduser(piece))
        path = Path(os.path.normpath(path if path.is_absolute() else Path.cwd() / path))
        try:
            exists = path.exists()
        except OSError:
            continue
        if exists and _may_name(path):
            found[path] = None
    return list(found)


def unreadable(candidates: Iterable[Path], readable: Iterable[Path]) -> list[Path]:
    """The ``candidates`` under none of the ``readable`` paths."""
    allowed = list(readable)
    return [path for path in candidates if not any(paths.contains(f, path) for f in allowed)]


def _listed(files: list[Path]) -> str:
    return ", ".join(f"{'the folder' if path.is_dir() else 'the file'} {path}" for path in files)


def _it(files: list[Path]) -> str:
    return "it" if len(files) == 1 else "them"


def _allowing(files: list[Path]) -> str:
    return " ".join(f"--sandbox-allow {path}" for path in files)


def _readable(command: str, settings: SandboxSettings) -> list[Path]:
    """What ``command``'s bot may read under ``settings`` (its files and the allowed paths)."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return []
    files = paths.program_files(argv) if argv else paths.ProgramFiles([], [], [])
    return [*files.runtime, *files.own, *(Path(path) for path in settings.allow)]


def refused_paths(lines: list[str], command: str, settings: SandboxSettings) -> list[Path]:
    """The files and folders the lines name that ``command``'s bot may not read under
    ``settings`` and that advice may name: beside the bot or under the working directory."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return []
    own = paths.program_files(argv).own if argv else []
    near = [path if path.is_dir() else path.parent for path in own] + [Path.cwd()]
    readable = _readable(command, settings)
    return [path for path in named_paths(lines, readable) if _may_suggest(path, near)]


def _may_suggest(path: Path, near: list[Path]) -> bool:
    """Whether ``path`` is one a hint may name from a bot's words: one advice may name, beside
    the bot or under the working directory."""
    if not _may_name(path):
        return False
    home = Path.home()
    return any(paths.contains(folder, path) for folder in near if folder not in (Path("/"), home))


def _may_name(path: Path) -> bool:
    """Whether advice may name ``path`` at all: no dotfile, home, root or system directory,
    nor a directory no bot may have whole."""
    if path in (Path("/"), Path.home()) or any(part.startswith(".") for part in path.parts):
        return False
    if path.is_dir() and paths.closed(path):  # /tmp, /opt, /home: never allowed whole
        return False
    return not any(paths.contains(system, path) for system in _SYSTEM)
