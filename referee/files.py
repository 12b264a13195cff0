"""Files that hold what bots must never see: logs, stderr copies, results."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import BinaryIO


def private_file(path: Path) -> BinaryIO:
    """A new file (or an emptied one) only its owner can read or write, whatever the umask:
    logs, stderr copies and results hold what bots must never see."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    os.fchmod(fd, 0o600)
    return os.fdopen(fd, "wb")


def private_directory(path: Path) -> None:
    """``mkdir -p``; the directories it makes are the owner's alone."""
    missing = [folder for folder in (path, *path.parents) if not folder.exists()]
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
