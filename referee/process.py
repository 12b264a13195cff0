"""Bot processes: start each in its own process group, keep its stderr, leave nothing behind.

Every bot is the leader of a new session (``start_new_session``), so its process group holds
the bot and every child it starts that does not leave on purpose; Ctrl-C in the referee's
terminal does not reach it. ``BotProcess.close`` — run on every exit path, shielded from
cancellation — closes the bot's stdin, gives it ``EXIT_GRACE`` seconds to exit on its own,
sends SIGTERM to whatever is left of the whole group, waits up to ``TERM_GRACE`` seconds,
sends SIGKILL to the group, and reaps the leader. Grandchildren that ignore SIGTERM die with
the SIGKILL; a process that leaves the group on purpose (``setsid`` or ``setpgid``) escapes
every process-group tool and is out of reach here.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from contextlib import suppress
from pathlib import Path
from typing import BinaryIO, Final

import trio

from referee.errors import BotStartFailed
from referee.rules.tiles import Seat

#: Seconds a bot has to exit by itself after its stdin closes (it has been told match_end).
EXIT_GRACE: Final = 0.5
#: Seconds between SIGTERM and SIGKILL to the bot's process group.
TERM_GRACE: Final = 0.5


class StderrSink:
    """Copies a bot's stderr to a file, up to ``limit`` bytes; the rest is counted and dropped."""

    def __init__(self, path: Path | None, limit: int) -> None:
        self.path = path
        self.limit = limit
        self.written = 0
        self.dropped = 0
        self._file: BinaryIO | None = None  # opened at the first byte: most bots write none

    def write(self, data: bytes | bytearray) -> None:
        room = self.limit - self.written
        kept = data[: max(room, 0)]
        if kept and self.path is not None:
            try:
                if self._file is None:
                    self._file = self.path.open("wb")
                self._file.write(kept)
                self._file.flush()
            except OSError:
                # A stderr copy that cannot be written must not stop the match: drop it.
                self.path = None
                kept = b""
        self.written += len(kept)
        self.dropped += len(data) - len(kept)

    def close(self) -> None:
        if self._file is None:
            return
        with suppress(OSError):
            if self.dropped and self.path is not None:
                self._file.write(
                    f"\n[referee: stderr capped at {self.limit} bytes;"
                    f" {self.dropped} more bytes dropped]\n".encode()
                )
            self._file.close()
        self._file = None


class BotProcess:
    """One running bot: its pipes, its process group, and its stderr copy."""

    def __init__(self, seat: Seat, command: str, process: trio.Process, sink: StderrSink) -> None:
        self.seat = seat
        self.command = command
        self.process = process
        self.stderr = sink
        self.pgid = process.pid  # the leader of a new session: its pid is the group id
        assert process.stdin is not None and process.stdout is not None
        self.stdin: trio.abc.SendStream = process.stdin
        self.stdout: trio.abc.ReceiveStream = process.stdout

    @classmethod
    async def start(
        cls, seat: Seat, command: str, stderr_path: Path | None, stderr_limit: int
    ) -> BotProcess:
        """Start ``command`` (split as a shell would) or raise ``BotStartFailed`` saying why."""
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise BotStartFailed(f"cannot split the command {command!r}: {exc}") from exc
        if not argv:
            raise BotStartFailed("the bot command is empty")
        try:
            process = await trio.lowlevel.open_process(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise BotStartFailed(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from exc
        return cls(seat, command, process, StderrSink(stderr_path, stderr_limit))

    async def drain_stderr(self) -> None:
        """Copy stderr until the bot closes it (run as a background task)."""
        stream = self.process.stderr
        assert stream is not None
        with suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            while data := await stream.receive_some(65536):
                self.stderr.write(data)

    def _signal_group(self, signum: int) -> bool:
        """Send ``signum`` to the bot's group; False when the group is gone (or not ours)."""
        try:
            os.killpg(self.pgid, signum)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    async def close(self) -> int | None:
        """End the bot and its group, reap it, and return its exit code. Never raises.

        Whatever is left of the group after the bot's chance to exit — the bot itself, or
        children it left behind — gets SIGTERM, up to ``TERM_GRACE`` to go, then SIGKILL.
        """
        code: int | None = None
        with trio.CancelScope(shield=True):
            with suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await self.stdin.aclose()
            with trio.move_on_after(EXIT_GRACE):
                await self.process.wait()
            if self._signal_group(signal.SIGTERM):
                with trio.move_on_after(TERM_GRACE):
                    while self._signal_group(0):  # signal 0: is anyone left in the group?
                        if self.process.returncode is None:
                            with trio.move_on_after(0.02):
                                await self.process.wait()
                        else:
                            await trio.sleep(0.02)
            self._signal_group(signal.SIGKILL)
            await self.process.wait()
            for stream in (self.process.stdout, self.process.stderr):
                if stream is not None:
                    with suppress(OSError, trio.ClosedResourceError):
                        await stream.aclose()
            self.stderr.close()
            code = self.process.returncode
        return code
