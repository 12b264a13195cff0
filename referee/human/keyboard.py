"""Lines the person types at the terminal, read without stopping the match's other work.

The terminal stays in its ordinary (canonical) mode, so the person edits a line as in any
shell (backspace, Ctrl-U) and the terminal sends it whole at Enter. trio waits for standard
input to become readable — in canonical mode, that is when a whole line (or an end of input,
Ctrl-D) is there — and it is then read with one ``os.read``: no thread is left blocked in a
read when the match ends or Ctrl-C stops it, and the descriptor is never made non-blocking
(which would change it for the shell too).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Final

import trio
from rich.console import Console
from rich.text import Text

#: How the person is asked: show the prompt, return the line typed (without its newline), or
#: None at the end of input (Ctrl-D at the start of a line).
Ask = Callable[[str], Awaitable[str | None]]

_READ_SIZE: Final = 4096


class Keyboard:
    """The person's lines from a terminal's descriptor (standard input by default)."""

    def __init__(self, console: Console, fd: int = 0) -> None:
        self.console = console
        self.fd = fd

    async def __call__(self, prompt: str) -> str | None:
        self.console.print(Text(prompt), end="")
        self.console.file.flush()
        await trio.lowlevel.wait_readable(self.fd)
        try:
            data = os.read(self.fd, _READ_SIZE)
        except OSError:  # the terminal went away (EIO): its input has ended
            data = b""
        if not data.endswith(b"\n"):
            self.console.print()  # Ctrl-D leaves the cursor after the prompt or the text
        if not data:
            return None
        return data.decode("utf-8", "replace").rstrip("\r\n")
