"""Running a real match: bot processes, their pipes and stderr files, the log file.

This is the only place where a table meets processes and files. Every exit path — the end,
a forfeit, an error in the referee, Ctrl-C — closes every bot's process group and ends the
log with a ``match_end`` record. A seat a person plays (``referee play``) comes as a
connection made in this process: no process is started for it, and its clock is off.
"""

from __future__ import annotations

import secrets
import signal
from collections.abc import Awaitable, Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import trio

from referee import bundled
from referee.errors import BotFault, BotStartFailed
from referee.files import private_directory, private_file
from referee.match.connection import BotConnection
from referee.match.outcome import BotFailure, MatchOutcome, SeatLost
from referee.match.source import BotSource, FreshBots, Seated, give_back_all
from referee.match.stderr import StderrSink, StderrTail
from referee.match.stderr_lines import StderrSummary
from referee.match.table import Table
from referee.match.trace import WireTrace
from referee.record.log import LogWriter
from referee.record.records import Placement
from referee.record.sandbox import Layer
from referee.rules.tiles import SEATS, Seat
from referee.sandbox import paths, resident
from referee.sandbox.policy import SandboxPlan
from referee.sandbox.policy import plan as plan_sandbox
from referee.settings import MatchSettings, SandboxSettings

BUNDLED_BOTS = bundled.BOTS
T = TypeVar("T")


def random_seed() -> int:
    return secrets.randbits(64)


def default_log_path(directory: Path = Path("matches")) -> Path:
    """A new name in ``directory``: the time and a random tag, never the seed (which would
    tell anyone who can list the directory every deal)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return directory / f"match-{stamp}-{secrets.token_hex(4)}.jsonl"


def stderr_path(log_path: Path, seat: Seat) -> Path:
    """Where a seat's stderr is kept: beside the log, ``<log>.<seat>.stderr``."""
    return log_path.with_name(f"{log_path.name}.{seat}.stderr")


def interrupted(exc: BaseException) -> bool:
    """Ctrl-C, a signal, or a cancellation — also inside trio's exception groups."""
    if isinstance(exc, BaseExceptionGroup):
        return any(interrupted(inner) for inner in exc.exceptions)
    return isinstance(exc, KeyboardInterrupt | trio.Cancelled | Terminated)


def leaf_error(exc: BaseException) -> BaseException:
    """The first real error inside nested exception groups."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


class Terminated(Exception):
    """The referee received SIGTERM or SIGHUP."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


async def in_foreground(work: Callable[[], Awaitable[T]]) -> T:
    """``work`` for a command line: SIGTERM and SIGHUP end it like Ctrl-C does (its bots are
    closed on the way out) and then raise ``Terminated``."""
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for signum in signals:
                    raise Terminated(signum)

            nursery.start_soon(watch)
            result = await work()
            nursery.cancel_scope.cancel()
    return result


def seat_commands(commands: list[str]) -> dict[Seat, str]:
    """Four commands for A, B, C, D, or two: the first plays A and C, the second B and D."""
    if len(commands) == 4:
        return dict(zip(SEATS, commands, strict=True))
    if len(commands) == 2:
        return {"A": commands[0], "B": commands[1], "C": commands[0], "D": commands[1]}
    raise ValueError(f"give four bot commands (A, B, C, D) or two (A+C, B+D), not {len(commands)}")


async def hold_pages(sandbox: SandboxPlan) -> None:
    """Before any bot starts, every page its seat may read held in memory (``resident``):
    the first match of a process reads them (a quarter of a second for Debian's Python),
    later ones find them held."""
    seats = [seat for seat in SEATS if Layer.PAGE_CACHE in sandbox.report.seats[seat]]
    if seats:
        roots = paths.readable({seat: sandbox.readable.get(seat, []) for seat in seats})
        await trio.to_thread.run_sync(resident.prepare, tuple(map(str, roots)))


def _no_sandbox(exc: OSError) -> BotStartFailed:
    return BotStartFailed(f"the sandbox for this seat could not be made: {exc.strerror or exc}")


async def run_match(
    settings: MatchSettings,
    commands: dict[Seat, str],
    log_path: Path,
    sandbox: SandboxPlan | None = None,
    source: BotSource[Any] | None = None,
    trace: WireTrace | None = None,
    people: Mapping[Seat, BotConnection] | None = None,
    placement: Placement | None = None,
) -> MatchOutcome:
    """Seat the four bots, play the match, give every bot back; the log is ``log_path``.

    ``sandbox`` is what the bots run under; by default every layer this machine has.
    ``source`` is where the bots come from: by default each is started for this match and
    closed at its end; a warm pool lends processes kept from earlier matches. ``trace``
    (``--debug``) is told every line to and from each bot. ``people``: the seats a person
    plays, each through a connection in this process (its command is only what the log says
    of it); their decisions are untimed, and a person who closes the connection has
    resigned. ``placement``: where each seat's bot runs when its source starts it on another
    machine (``referee.apart``); the header records it."""
    people = people or {}
    if sandbox is None:
        sandbox = plan_sandbox(SandboxSettings(), settings, commands, [log_path.parent])
    await _prepare(sandbox, log_path, held_here=placement is None)
    with private_file(log_path) as log_file:
        log = LogWriter(log_file)
        table: Table | None = None
        async with trio.open_nursery() as nursery:
            bots = _Bots(settings, commands, log_path, source, trace, nursery)
            try:
                connections, failures = await bots.seat_all(sandbox, people)
                table = Table(
                    settings,
                    connections,
                    log,
                    commands,
                    start_failures=failures,
                    sandbox=sandbox.report,
                    explain=bots.explain,
                    previous_matches=bots.previous_matches(),
                    restart=bots.restart,
                    people=people.keys(),
                    idle=bots,
                    placement=placement,
                    lost=bots.lost,
                )
                outcome = await table.play()
            except BaseException as exc:
                if table is not None:
                    _conclude_stopped(table, exc)
                raise
            finally:
                await bots.give_back(table)
                nursery.cancel_scope.cancel()  # stderr readers of bots whose pipes stay open
    failed = bot_failures(table, bots.sinks(), people.keys())
    return msgspec.structs.replace(
        outcome, log=str(log_path), failures=failed, stderr=bots.stderr_written()
    )


async def _prepare(sandbox: SandboxPlan, log_path: Path, held_here: bool) -> None:
    """Before any bot starts: its pages held (``held_here``: it runs on this machine), the
    log's folder private, and no stderr file of a previous match under this log's name (it
    would mislead)."""
    if held_here:
        await hold_pages(sandbox)
    private_directory(log_path.parent)
    for seat in SEATS:
        stderr_path(log_path, seat).unlink(missing_ok=True)


def _conclude_stopped(table: Table, exc: BaseException) -> None:
    """The log's end for a match that Ctrl-C, a signal or an error in the referee stopped."""
    if interrupted(exc):
        table.conclude(None, "interrupted", "the referee was interrupted")
    else:
        cause = leaf_error(exc)
        table.conclude(None, "error", f"referee error: {type(cause).__name__}: {cause}")


class _Bots:
    """One match's bot processes: taken from their source (started for the match by default),
    a kept one that failed replaced by a fresh one, and all given back at the end. Each
    drains its stderr in ``nursery``."""

    def __init__(
        self,
        settings: MatchSettings,
        commands: dict[Seat, str],
        log_path: Path,
        source: BotSource[Any] | None,
        trace: WireTrace | None,
        nursery: trio.Nursery,
    ) -> None:
        self.settings = settings
        self.commands = commands
        self.log_path = log_path
        self.source = source
        self.trace = trace
        self.nursery = nursery
        self.processes: dict[Seat, Seated] = {}
        #: The stderr of a kept bot replaced in its match: its fault is the seat's first.
        self.replaced: dict[Seat, StderrSink] = {}
        #: A seat lost before the match began (a bot on another machine): the match is void.
        self.lost: SeatLost | None = None

    async def seat_all(
        self, sandbox: SandboxPlan, people: Mapping[Seat, BotConnection]
    ) -> tuple[dict[Seat, BotConnection], dict[Seat, BotStartFailed]]:
        """A connection for every seat (a person's as given) and, for each bot that did not
        start, why: the table charges it and the log says it."""
        connections: dict[Seat, BotConnection] = dict(people)
        if self.source is None:
            try:
                self.source = FreshBots(sandbox)
            except OSError as exc:  # every seat fails to start, and the log says why
                return connections, {s: _no_sandbox(exc) for s in SEATS if s not in people}
        failures: dict[Seat, BotStartFailed] = {}
        for seat in SEATS:
            if seat in people:
                continue
            try:
                bot = await self.source.take(
                    seat, self.commands[seat], stderr_path(self.log_path, seat), self.settings
                )
            except BotStartFailed as exc:
                failures[seat] = exc
                continue
            except SeatLost as exc:
                self.lost = self.lost or exc
                continue
            except OSError as exc:
                failures[seat] = _no_sandbox(exc)
                continue
            connections[seat] = self._seat(seat, bot)
        return connections, failures

    def _seat(self, seat: Seat, bot: Seated) -> BotConnection:
        self.processes[seat] = bot
        if self.trace is not None:
            bot.trace = self.trace
            kept = f" (kept: {bot.matches_played} matches before)"
            self.trace.note(seat, f"{bot.command}{kept if bot.matches_played else ''}")
        self.nursery.start_soon(bot.drain_stderr)
        return bot.connect(self.settings.max_line_bytes)

    async def restart(self, seat: Seat) -> BotConnection:
        """Close the kept bot that failed (at once: it may be spinning), start another."""
        assert self.source is not None
        self.replaced.setdefault(seat, self.processes[seat].stderr)
        await give_back_all(self.source, [(self.processes.pop(seat), False)])
        try:
            bot = await self.source.fresh(
                seat, self.commands[seat], stderr_path(self.log_path, seat), self.settings
            )
        except OSError as exc:
            raise _no_sandbox(exc) from exc
        return self._seat(seat, bot)

    def freeze(self, seat: Seat) -> None:
        """Stop the seat's bot while it is not its turn (``--freeze-idle``)."""
        if (bot := self.processes.get(seat)) is not None:
            bot.pause()

    def thaw(self, seat: Seat) -> None:
        if (bot := self.processes.get(seat)) is not None:
            bot.resume()

    async def explain(self, seat: Seat, fault: BotFault) -> BotFault:
        return await self.processes[seat].explain(fault)

    def previous_matches(self) -> dict[Seat, int]:
        """How many matches each bot played before this one (a kept bot's count)."""
        return {seat: bot.matches_played for seat, bot in self.processes.items()}

    async def give_back(self, table: Table | None) -> None:
        """Every bot back to its source, kept where the table says it may be; then the source
        is closed."""
        if self.source is None:
            return
        try:
            given = [
                (bot, table is not None and table.reusable(seat))
                for seat, bot in self.processes.items()
            ]
            await give_back_all(self.source, given)
        finally:
            self.source.close()

    def stderr_written(self) -> dict[Seat, StderrSummary]:
        """What each seat's bots wrote on stderr (a replaced kept bot's and its successor's
        as one), for the seats that wrote anything: not faults, yet their authors' to see."""
        written = {seat: bot.stderr.scan.summary() for seat, bot in self.processes.items()}
        for seat, sink in self.replaced.items():
            first = sink.scan.summary()
            written[seat] = first + written[seat] if seat in written else first
        return {seat: summary for seat, summary in written.items() if summary.lines}

    def sinks(self) -> dict[Seat, StderrSink]:
        """Each seat's stderr; a replaced kept bot's, whose fault is the seat's first."""
        return {seat: bot.stderr for seat, bot in self.processes.items()} | self.replaced


def bot_failures(
    table: Table, sinks: dict[Seat, StderrSink], people: Iterable[Seat] = ()
) -> dict[Seat, BotFailure]:
    """Each bot's seat charged with a fault: its first, and the end of its bot's stderr (read
    once the bots are given back, so that a crash's last words are in). A person who left is
    no failed bot: the forfeit says it."""
    failures: dict[Seat, BotFailure] = {}
    for seat, state in table.seats.items():
        fault = state.first_fault
        if fault is None or seat in people:
            continue
        sink = sinks.get(seat)
        tail = sink.tail() if sink is not None else StderrTail(path=None, lines=[], total=0)
        failures[seat] = BotFailure(reason=fault.reason, detail=fault.detail, stderr=tail)
    return failures
