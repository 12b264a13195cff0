"""A referee that is not root: the tests drop to ``nobody`` and run the referee there with the
system's Python and this checkout's code (the checkout and its packages must be readable by
every user, as they are under CI)."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import referee
from referee.sandbox.layers import available
from referee.sandbox.namespaces import NOBODY
from referee.sandbox.paths import unreadable_by_others

ROOT: Final = Path(referee.__file__).resolve().parent.parent
SYSTEM_PYTHON: Final = "/usr/bin/python3"
#: Where the unprivileged referee imports the referee and its packages from.
PATHS: Final = [str(ROOT), *site.getsitepackages()]


def why_not() -> str | None:
    """Why this machine cannot run a referee as ``nobody``; None when it can."""
    if os.geteuid() != 0:
        return "the test needs root to drop to another uid"
    if not os.path.exists(SYSTEM_PYTHON):
        return f"no {SYSTEM_PYTHON} that another uid could run"
    if available()["landlock"] is not None:
        return f"no Landlock: {available()['landlock']}"
    for path in [SYSTEM_PYTHON, *(os.path.join(p, "x") for p in PATHS)]:
        blocked = unreadable_by_others([SYSTEM_PYTHON, path])
        if blocked is not None and os.path.exists(os.path.dirname(path)):
            return f"another uid cannot reach {blocked[0]} (the checkout or its packages)"
    check = subprocess.run(
        [SYSTEM_PYTHON, "-c", f"import sys; sys.path[:0] = {PATHS!r}; import msgspec, trio"],
        capture_output=True,
        check=False,
    )
    if check.returncode != 0:
        return f"{SYSTEM_PYTHON} cannot import the referee's packages: {check.stderr[-200:]!r}"
    return None


@contextmanager
def nobodys_folder() -> Iterator[Path]:
    """A directory the unprivileged referee owns (pytest's tmp_path is root's alone), with
    its temporary directory in it; removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="texas42-nobody-"))
    (folder / "tmp").mkdir()
    for path in (folder, folder / "tmp"):
        os.chown(path, NOBODY, NOBODY)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def referee_as_nobody(
    workdir: Path, *args: str, target: str = "", first: str = "pass", timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` run as ``nobody`` in ``workdir`` (``first`` runs before it starts;
    ``target`` is passed to bots as ``ATTACK_TARGET``)."""
    program = f"import sys; sys.path[:0] = {PATHS!r}; {first}; from referee.cli import app; app()"
    return subprocess.run(
        [SYSTEM_PYTHON, "-c", program, *args],
        user=NOBODY,
        group=NOBODY,
        extra_groups=[],
        cwd=workdir,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(workdir),
            "ATTACK_TARGET": target,
            "TMPDIR": str(workdir / "tmp"),  # the scratch roots: this test's alone
        },
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
