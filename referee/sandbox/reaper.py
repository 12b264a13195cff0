"""The referee's side of the reaper (``reaper_main.py``): start it once, tell it what to end.

One reaper serves every match a process plays (a tournament worker plays many). The pipe to
it is its lifeline: only this process holds the write end, so the reaper sees its end the
moment this process dies, by ``kill -9`` or an OOM kill included.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import ClassVar, Final

_MAIN: Final = Path(__file__).with_name("reaper_main.py")

#: What the reaper is told to end, by the letter its protocol uses (see ``reaper_main``).
GROUP: Final = "g"  # a bot's process group
CGROUP: Final = "c"  # a seat's control group directory
MOUNT: Final = "m"  # a seat's tmpfs
SCRATCH: Final = "d"  # a scratch directory to remove


class Reaper:
    """The running reaper of this process."""

    _current: ClassVar[Reaper | None] = None
    _lock: ClassVar = threading.Lock()
    #: Everything registered and not yet forgotten: told again to a reaper that replaces one
    #: that died, so nothing is ever left without someone to end it.
    _registered: ClassVar[dict[tuple[str, str], None]] = {}

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", str(_MAIN)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
        assert self.process.stdin is not None
        self._fd = self.process.stdin.fileno()
        self.owner = os.getpid()

    @classmethod
    def get(cls) -> Reaper:
        """This process's reaper, started on first use (and again if it died)."""
        with cls._lock:
            current = cls._current
            if (
                current is None
                or current.owner != os.getpid()
                or current.process.poll() is not None
            ):
                cls._current = current = cls()
            return current

    def _tell(self, line: str) -> None:
        with contextlib.suppress(OSError):  # the reaper is gone: the next get() starts another
            os.write(self._fd, line.encode() + b"\n")

    def watch(self, kind: str, what: object) -> None:
        """End ``what`` if this process dies: ``kind`` is ``GROUP``, ``CGROUP``, ``MOUNT`` or
        ``SCRATCH``."""
        self._registered[kind, str(what)] = None
        self._tell(f"+ {kind} {what}")

    def forget(self, kind: str, what: object) -> None:
        self._registered.pop((kind, str(what)), None)
        self._tell(f"- {kind} {what}")
