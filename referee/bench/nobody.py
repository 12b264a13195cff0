"""A referee run as ``nobody``: what the referee does without root (seats that share the
referee's uid, no control groups), with the system's Python and this installation's code.
``bench channels --as-nobody`` runs itself again so, and the unprivileged tests their
referee."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import referee
from referee.sandbox.namespaces import NOBODY
from referee.sandbox.paths import unreadable_by_others

SYSTEM_PYTHON: Final = "/usr/bin/python3"
#: Where the unprivileged referee imports the referee and its packages from.
PATHS: Final = [str(Path(referee.__file__).resolve().parent.parent), *site.getsitepackages()]


def why_not() -> str | None:
    """Why this machine cannot run the referee as ``nobody``; None when it can."""
    if os.geteuid() != 0:
        return "running as nobody needs root (to drop to another uid)"
    if not os.path.exists(SYSTEM_PYTHON):
        return f"no {SYSTEM_PYTHON} that nobody could run"
    for path in PATHS:
        blocked = unreadable_by_others([SYSTEM_PYTHON, os.path.join(path, "x")])
        if blocked is not None and os.path.exists(path):
            return f"nobody cannot reach {blocked[0]} (the referee's code or its packages)"
    return None


@contextmanager
def nobodys_folder() -> Iterator[Path]:
    """A directory ``nobody`` owns (a root's temporary folder is root's alone), with its
    temporary directory in it; removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="texas42-nobody-"))
    (folder / "tmp").mkdir()
    for path in (folder, folder / "tmp"):
        os.chown(path, NOBODY, NOBODY)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def as_nobody(
    folder: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    first: str = "pass",
    capture: bool = False,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` as ``nobody`` in ``folder`` (its TMPDIR ``folder/tmp``), with ``env``
    added to a bare environment; ``first`` is run before the referee starts."""
    program = f"import sys; sys.path[:0] = {PATHS!r}; {first}; from referee.cli import app; app()"
    return subprocess.run(
        [SYSTEM_PYTHON, "-c", program, *args],
        user=NOBODY,
        group=NOBODY,
        extra_groups=[],
        cwd=folder,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(folder),
            "TMPDIR": str(folder / "tmp"),
            **(env or {}),
        },
        capture_output=capture,
        text=True,
        timeout=timeout,
        check=False,
    )


def run(*args: str) -> int:
    """``referee ARGS`` as ``nobody``, in a folder of its own, its output passed through; its
    exit status."""
    with nobodys_folder() as folder:
        return as_nobody(folder, *args).returncode
