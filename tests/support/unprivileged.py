"""A referee that is not root: the tests drop to ``nobody`` and run the referee there with the
system's Python and this checkout's code (the checkout and its packages must be readable by
every user, as they are under CI)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Final

import referee
from referee.bench.nobody import PATHS, SYSTEM_PYTHON, as_nobody, nobodys_folder
from referee.bench.nobody import why_not as nobody_cannot
from referee.sandbox.layers import available

__all__ = ["ROOT", "SYSTEM_PYTHON", "nobodys_folder", "referee_as_nobody", "why_not"]

ROOT: Final = Path(referee.__file__).resolve().parent.parent


def why_not() -> str | None:
    """Why this machine cannot run a referee as ``nobody`` for the tests; None when it can."""
    cannot = nobody_cannot()
    if cannot is not None:
        return cannot
    if available()["landlock"] is not None:
        return f"no Landlock: {available()['landlock']}"
    check = subprocess.run(
        [SYSTEM_PYTHON, "-c", f"import sys; sys.path[:0] = {PATHS!r}; import msgspec, trio"],
        capture_output=True,
        check=False,
    )
    if check.returncode != 0:
        return f"{SYSTEM_PYTHON} cannot import the referee's packages: {check.stderr[-200:]!r}"
    return None


def referee_as_nobody(
    workdir: Path, *args: str, target: str = "", first: str = "pass", timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` run as ``nobody`` in ``workdir`` (``first`` runs before it starts;
    ``target`` is passed to bots as ``ATTACK_TARGET``; the scratch roots under
    ``workdir/tmp``: this test's alone)."""
    return as_nobody(
        workdir, *args, env={"ATTACK_TARGET": target}, first=first, capture=True, timeout=timeout
    )
