"""A terminal for the tests, as a person has one: a tmux server of the test's own, one pane
120 columns by 50 lines running a command, read with ``capture-pane`` and typed into with
``send-keys``. Every wait is on what the screen shows (polled, with a deadline), never a
fixed sleep."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

TMUX: Final = shutil.which("tmux")
#: Why ``tests/install_tools.sh`` could not install tmux, when it could not.
_UNAVAILABLE: Final = Path(__file__).resolve().parents[1] / ".tmux-unavailable"
#: Why the terminal tests skip: the only reason they may.
NO_TMUX: Final = "tmux is not installed: the tests that play in a terminal need it" + (
    f" ({_UNAVAILABLE.read_text().strip()})" if _UNAVAILABLE.is_file() else ""
)


def require_tmux() -> None:
    """Skip without tmux, or fail under CI when nothing recorded why it is missing
    (``tests/install_tools.sh`` installs it: a broken install must not pass as a skip)."""
    import pytest

    if TMUX is not None:
        return
    if os.environ.get("CI") and not _UNAVAILABLE.is_file():
        pytest.fail("tmux is missing; under CI tests/install_tools.sh should have installed it")
    pytest.skip(NO_TMUX)


#: Seconds a screen may take to show what is waited for (bots start, the machine is shared).
PATIENCE: Final = 60.0


class Pane:
    """One command in a pane of a tmux server of its own (``tmux -L``), kept after it exits
    so that its last screen and its exit status can be read."""

    def __init__(self, command: list[str], cwd: Path, config: Path) -> None:
        assert TMUX is not None
        # The server's socket in a directory of its own (short: a socket's path is bounded),
        # removed with it.
        self.home = Path(tempfile.mkdtemp(prefix="referee-tmux-"))
        self.server = [TMUX, "-S", str(self.home / "socket"), "-f", str(config)]
        config.write_text("set -g history-limit 200000\nset -g remain-on-exit on\n")
        self.tmux(
            "new-session", "-d", "-x", "120", "-y", "50", "-s", "play", "-c", str(cwd),
            shlex.join(command),
        )  # fmt: skip

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            [*self.server, *args], capture_output=True, text=True, timeout=30, check=True
        )
        return done.stdout

    def screen(self) -> str:
        """Everything the pane has shown, its scrollback included, wrapped lines joined."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "play")

    def visible(self) -> str:
        """The 50 lines on the screen now."""
        return self.tmux("capture-pane", "-p", "-t", "play")

    def type(self, text: str) -> None:
        """``text`` typed, then Enter."""
        self.tmux("send-keys", "-t", "play", "-l", text)
        self.tmux("send-keys", "-t", "play", "Enter")

    def keys(self, *keys: str) -> None:
        """Keys by tmux's names: ``C-c``, ``C-d``."""
        self.tmux("send-keys", "-t", "play", *keys)

    def exit_status(self) -> int | None:
        """The command's exit status once it has ended, else None.

        A tmux built with libutempter can miss the SIGCHLD of a pane's command that exits as
        its terminal closes (utempter's own handler is in place then: tmux issue 311), and
        the pane is dead without a status for good; a SIGCHLD sent to the server makes it
        reap the command."""
        shown = self.tmux("display-message", "-p", "-t", "play", "#{pane_dead} #{pid}")
        dead, _, server = shown.strip().partition(" ")
        if dead != "1":
            return None
        status = self.tmux("display-message", "-p", "-t", "play", "#{pane_dead_status}").strip()
        if not status:
            os.kill(int(server), signal.SIGCHLD)
            return None
        return int(status)

    def wait(self, shown: Callable[[str], bool], what: str) -> str:
        """The screen once ``shown(screen)`` holds; fails after ``PATIENCE`` seconds, with the
        screen, naming ``what`` was waited for."""
        deadline = time.monotonic() + PATIENCE
        pause = 0.01
        while True:
            screen = self.screen()
            if shown(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {PATIENCE:.0f} s for {what}; the screen:\n{screen}")
            time.sleep(pause)  # a poll's interval, not a wait for anything
            pause = min(0.1, pause * 2)

    def wait_exit(self) -> int:
        deadline = time.monotonic() + PATIENCE
        while (status := self.exit_status()) is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"the command did not end; the screen:\n{self.screen()}")
            time.sleep(0.05)
        return status

    def close(self) -> None:
        subprocess.run([*self.server, "kill-server"], capture_output=True, timeout=30, check=False)
        shutil.rmtree(self.home, ignore_errors=True)


def prompts(screen: str, prompt: str) -> int:
    """How many times ``prompt`` starts a line of ``screen``."""
    return len(re.findall(rf"(?m)^{re.escape(prompt)}", screen))
