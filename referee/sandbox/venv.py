"""Whether this install's Python lets a seat have a uid of its own, and the venv that would.

As root, each seat runs as a uid of its own, but only when every user can run its runtime. A
venv made from a Python under a closed home (pyenv's ``/root/.pyenv``, as ``python3 -m venv``
makes on such a machine) keeps its seats root's, and ``--sandbox strict`` refuses them. The
bundled bots and every kit bot run with the referee's own Python, so the fix is the referee's
install: a venv made from a Python every user can run. ``fix`` says it for this install, as
commands to copy (``referee sandbox`` prints them).
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Final

import msgspec

from referee import bundled
from referee.sandbox.layers import is_root
from referee.sandbox.paths import unreadable_by_others

#: The package, as pip knows it.
DISTRIBUTION: Final = "texas42-referee"
#: Where a venv goes when the present one's folder is closed to other users.
SHARED_VENV: Final = Path("/opt/texas42-referee")
#: Pythons every user may run, looked for in this order (the distribution's first).
CANDIDATES: Final = (
    "/usr/bin/python3",
    "/usr/local/bin/python3",
    "/usr/bin/python3.13",
    "/usr/bin/python3.12",
    "/usr/bin/python3.11",
)


class VenvFix(msgspec.Struct, frozen=True, kw_only=True):
    """What keeps this install's bots from a uid of their own, and the commands that mend it."""

    problem: str
    #: A Python 3.11 or newer every user can run, or None when this machine has none.
    python: str | None
    #: The venv to make with it.
    venv: str
    #: The commands to run, in order.
    commands: list[str]


def fix() -> VenvFix | None:
    """The fix when, as root, the bundled bots' runtime is closed to other users; else None
    (not root: no seat gets a uid of its own whatever its runtime)."""
    if not is_root():
        return None
    blocked = unreadable_by_others(bundled.BY_NAME["heuristic"].argv())
    if blocked is None:
        return None
    folder, target = blocked
    problem = (
        f"other users cannot use {target} ({folder} is closed to them): the bundled bots, and"
        f" every bot run with this install's Python ({sys.executable}), run as root without a"
        " uid of their own, and --sandbox strict refuses them"
    )
    venv = _venv()
    python = shared_python()
    make = [python or "python3", "-m", "venv", *(["--clear"] if venv.exists() else []), str(venv)]
    install = [str(venv / "bin" / "pip"), "install", "-q", *_source()]
    cleared = "  # --clear empties it: add '.[test]' again to run tests" if venv.exists() else ""
    commands = [
        shlex.join(make) + cleared,
        shlex.join(install),
        shlex.join([str(venv / "bin" / "referee"), "sandbox"]),
    ]
    if python is None:
        commands.insert(0, "apt-get install python3 python3-venv  # a Python 3.11+ for every user")
    return VenvFix(problem=problem, python=python, venv=str(venv), commands=commands)


def shared_python() -> str | None:
    """The first Python 3.11 or newer that every user can run, or None."""
    for candidate in CANDIDATES:
        if not os.path.isfile(candidate) or unreadable_by_others([candidate]) is not None:
            continue
        check = [candidate, "-I", "-c", "import sys; print(sys.version_info >= (3, 11))"]
        try:
            said = subprocess.run(check, capture_output=True, text=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if said.stdout.strip() == "True":
            return candidate
    return None


def _open_to_all(path: Path) -> bool:
    """Can every user reach ``path`` (each folder above it searchable by others)?"""
    try:
        return all(folder.stat().st_mode & stat.S_IXOTH for folder in path.resolve().parents)
    except OSError:
        return False


def _venv() -> Path:
    """This venv, made anew in its place when other users can reach it (the documents'
    ``.venv/bin/referee`` then still runs it); else one in ``SHARED_VENV``."""
    here = Path(sys.prefix)
    return here if sys.prefix != sys.base_prefix and _open_to_all(here) else SHARED_VENV


def _source() -> list[str]:
    """What pip installs: this clone, editable when other users can read it (else a copy in
    the venv, which they can); an installed package from where it was installed from."""
    if bundled.CLONE_PROTOCOL is not None:
        root = bundled.BOTS.parent
        return ["-e", str(root)] if _open_to_all(root / "pyproject.toml") else [str(root)]
    try:
        origin = json.loads(
            metadata.distribution(DISTRIBUTION).read_text("direct_url.json") or "{}"
        )
    except (metadata.PackageNotFoundError, ValueError):
        origin = {}
    url = origin.get("url", "")
    if url.startswith("file://") and _open_to_all(Path(url.removeprefix("file://"))):
        return [url.removeprefix("file://")]
    return [f"{DISTRIBUTION}=={metadata.version(DISTRIBUTION)}"]
