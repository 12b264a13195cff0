"""Bot processes: start each in its own process group, keep its stderr, leave nothing behind.

Every bot is the leader of a new session (``start_new_session``), so its process group holds
the bot and every child it starts that does not leave on purpose; Ctrl-C in the referee's
terminal does not reach it. ``BotProcess.close`` — run on every exit path, shielded from
cancellation — closes the bot's stdin, gives it ``EXIT_GRACE`` seconds to exit on its own,
sends SIGTERM to whatever is left of the whole group, waits up to ``TERM_GRACE`` seconds,
sends SIGKILL to the group, and reaps the leader. Grandchildren that ignore SIGTERM die with
the SIGKILL. A sandboxed bot cannot leave the group (``setsid`` and ``setpgid`` are refused),
and its control group's kill reaches whatever is left; with ``--sandbox off`` a process that
leaves the group on purpose escapes every process-group tool.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Final

import trio

from referee.errors import BotCrashed, BotFault, BotNotReading, BotStartFailed
from referee.match.connection import BotConnection
from referee.match.stderr import StderrSink
from referee.match.trace import LineSplitter, WireTrace
from referee.rules.tiles import Seat
from referee.sandbox.hints import denied
from referee.sandbox.overruns import explicable
from referee.sandbox.policy import MAY_READ
from referee.sandbox.refusals import refusals

if TYPE_CHECKING:
    from referee.sandbox.jail import SeatJail

#: Seconds a bot has to exit by itself after its stdin closes (it has been told match_end).
EXIT_GRACE: Final = 0.5
#: Seconds between SIGTERM and SIGKILL to the bot's process group.
TERM_GRACE: Final = 0.5
#: What the referee is told to stop by: held off while a sandboxed bot is being started.
_INTERRUPTS: Final = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
#: Reads of 64 KiB dropped unread from a kept bot before its next match, at most.
_UNREAD_CHUNKS: Final = 16


class Child:
    """A started process, waited for through a pidfd (the trio loop sleeps until it exits).

    Bots are started with ``subprocess.Popen`` in the referee's own thread rather than in a
    worker thread (as ``trio.lowlevel.open_process`` does): the parent-death signal of a
    sandboxed bot fires when the thread that started it exits, and this thread lives as long
    as the referee.
    """

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        self.pid = popen.pid
        self._waiting = False
        try:
            self._pidfd: int | None = os.pidfd_open(popen.pid)
        except OSError:
            self._pidfd = None

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    async def wait(self) -> int:
        while self.popen.poll() is None:
            if self._pidfd is not None and not self._waiting:
                self._waiting = True  # one task at a time may wait on a descriptor
                try:
                    await trio.lowlevel.wait_readable(self._pidfd)
                finally:
                    self._waiting = False
            else:
                await trio.sleep(0.01)
        self.close()
        return self.popen.returncode

    def close(self) -> None:
        if self._pidfd is not None and not self._waiting:
            os.close(self._pidfd)
            self._pidfd = None


def exit_status(returncode: int | None) -> str:
    """``-9`` -> ``"killed by SIGKILL"``; ``3`` -> ``"exit status 3"``."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


class BotProcess:
    """One running bot: its pipes, its process group, its sandbox and its stderr copy."""

    def __init__(
        self, seat: Seat, command: str, process: Child, streams: tuple[int, int, int],
        sink: StderrSink, jail: SeatJail | None,
    ) -> None:  # fmt: skip
        self.seat = seat
        self.command = command
        self.process = process
        self.stderr = sink
        self.jail = jail
        self.pgid = process.pid  # the leader of a new session: its pid is the group id
        #: Matches this process has played to the end (a warm pool keeps it for more).
        self.matches_played = 0
        #: ``--debug``: its lines and its stderr, as they come (set by whoever seats it).
        self.trace: WireTrace | None = None
        stdin, stdout, stderr = streams
        self.stdin: trio.abc.SendStream = trio.lowlevel.FdStream(stdin)
        self.stdout = trio.lowlevel.FdStream(stdout)
        self._stderr_stream = trio.lowlevel.FdStream(stderr)
        #: Set when the running ``drain_stderr`` ends (the bot closed its stderr, or the
        #: match that started it is over).
        self._drained: trio.Event | None = None

    @classmethod
    def start(
        cls,
        seat: Seat,
        command: str,
        stderr_path: Path | None,
        stderr_limit: int,
        jail: SeatJail | None = None,
    ) -> BotProcess:
        """Start ``command`` (split as a shell would) or raise ``BotStartFailed`` saying why."""
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise BotStartFailed(f"cannot split the command {command!r}: {exc}") from exc
        if not argv:
            raise BotStartFailed("the bot command is empty")
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        stderr_read, stderr_write = os.pipe()
        theirs = [stdin_read, stdout_write, stderr_write]
        ours = [stdin_write, stdout_read, stderr_read]
        # A sandboxed start takes milliseconds (the child makes the seat's namespaces before
        # it execs): Ctrl-C then would leave a child nobody knows of. It waits until Popen
        # returns, and the child empties its mask first thing (SeatJail.enter).
        held = None if jail is None else signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
        try:
            popen = subprocess.Popen(
                argv,
                stdin=theirs[0],
                stdout=theirs[1],
                stderr=theirs[2],
                start_new_session=True,
                preexec_fn=None if jail is None else jail.enter,
                env=None if jail is None else jail.environment(),
            )
        except (OSError, subprocess.SubprocessError) as exc:
            for fd in ours:
                os.close(fd)
            what = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            hint = ""
            if jail is not None and isinstance(exc, PermissionError):
                refused = refusals(argv, jail.readable)
                hint = (
                    f": {refused[0]}"
                    if refused
                    else " (the sandbox allows the bot only its runtime, its own files and"
                    " --sandbox-allow PATH)"
                )
            raise BotStartFailed(f"cannot start {argv[0]!r}: {what}{hint}") from exc
        finally:
            for fd in theirs:
                os.close(fd)
            if held is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
        try:
            if jail is not None:
                jail.started(popen.pid)
            return cls(
                seat, command, Child(popen), (ours[0], ours[1], ours[2]),
                StderrSink(stderr_path, stderr_limit), jail,
            )  # fmt: skip
        except BaseException:  # interrupted before anyone could close it: end it here
            with suppress(OSError):
                os.killpg(popen.pid, signal.SIGKILL)
            popen.wait()
            for fd in ours:
                with suppress(OSError):
                    os.close(fd)
            raise

    def connect(self, max_line_bytes: int) -> BotConnection:
        """A connection for this bot's next match. For a kept bot whatever it wrote since its
        last match is dropped unread first: only lines written after the new ``hello`` count
        (a late answer to the last match must not be judged in this one)."""
        with suppress(OSError):  # BlockingIOError: nothing more to read now
            for _ in range(
                _UNREAD_CHUNKS if self.matches_played else 0
            ):  # a bot that never stops writing is judged instead
                if not os.read(self.stdout.fileno(), 65536):
                    break  # end of output: the match will find the bot gone
        return BotConnection(
            self.seat, self.stdin, self.stdout, max_line_bytes, self.trace,
            on_answer=lambda: self.stderr.mark(),
        )  # fmt: skip

    def next_match(self, seat: Seat, stderr_path: Path | None, stderr_limit: int) -> None:
        """Seat a kept bot again: its stderr goes to the new match's file from now on."""
        self.seat = seat
        self.stderr.close()
        self.stderr = StderrSink(stderr_path, stderr_limit)

    async def drain_stderr(self) -> None:
        """Copy stderr until the bot closes it (run as a background task)."""
        stream = self._stderr_stream
        drained = self._drained = trio.Event()
        traced = None if self.trace is None else LineSplitter(self.trace, self.seat, "2>")
        try:
            with suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                while data := await stream.receive_some(65536):
                    self.stderr.write(data)
                    if traced is not None and self.stderr.dropped:  # past the copy's bound
                        assert self.trace is not None
                        self.trace.note(self.seat, "stderr past its bound: no more traced")
                        traced = None
                    elif traced is not None:
                        traced.feed(data)
        finally:
            drained.set()

    async def stderr_read(self, limit: float) -> None:
        """Wait up to ``limit`` seconds for the copy of stderr to reach its end: a bot that
        crashed has written its last words, and they may still be in the pipe."""
        if self._drained is not None:
            with trio.move_on_after(limit):
                await self._drained.wait()

    def _signal_group(self, signum: int) -> bool:
        """Send ``signum`` to the bot's group; False when the group is gone (or not ours)."""
        try:
            os.killpg(self.pgid, signum)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def pause(self) -> None:
        """Stop the bot's whole group while it waits for another match (``SIGSTOP`` cannot be
        caught): an idle kept bot spends no CPU and cannot signal anything to a match it is
        not in, by its load or its process count."""
        self._signal_group(signal.SIGSTOP)

    def resume(self) -> None:
        self._signal_group(signal.SIGCONT)

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
            if self.jail is not None:
                self.jail.kill()
            await self.process.wait()
            await self.stderr_read(TERM_GRACE)
            for stream in (self.stdout, self._stderr_stream):
                with suppress(OSError, trio.ClosedResourceError):
                    await stream.aclose()
            self.stderr.close()
            code = self.process.returncode
            if self.jail is not None:
                self.jail.ended(self.pgid)
                with trio.move_on_after(TERM_GRACE):
                    while not self.jail.empty():
                        self.jail.kill()
                        await trio.sleep(0.005)
                self.jail.close()
        return code

    async def explain(self, fault: BotFault) -> BotFault:
        """The fault a bot is charged with: a sandbox bound's when one stopped it (``overruns``:
        its signal, its control group's counters, its runtime's words), else ``fault`` — for a
        bot gone away with how it ended and its stderr's last line. One still running is not
        waited for: a timeout or refused answers are judged on what it wrote in the exchange."""
        went = isinstance(fault, BotCrashed | BotNotReading)
        ended = self.process.returncode is not None
        if not explicable(fault) or not (went or ended or fault.said):
            return fault
        if went:
            with trio.move_on_after(0.5):
                await self.process.wait()
        code = self.process.returncode
        if code is not None:  # gone: its last words are on their way
            await self.stderr_read(0.5)
        if self.jail is not None:
            last_words = self.stderr.since_mark() if code is not None else []
            precise = self.jail.explain(fault, code, fault.said, tuple(last_words))
            if precise is not fault:
                return precise
        if code is None or not went:
            return fault
        tail = self.stderr.last_line()
        said = f"; its stderr ends: {tail!r}" if tail else ""
        if self.jail is not None and any(map(denied, self.stderr.last_lines())):
            said += f"; a sandboxed bot {MAY_READ}"
        return type(fault)(f"{fault} ({exit_status(code)}{said})")
