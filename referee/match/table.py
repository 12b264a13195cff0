"""The table: four seats, the rules engine, and the order of a match.

``Table.play`` runs a whole match over ``BotConnection`` objects; it does not know whether
they are subprocess pipes or in-memory streams. It greets every seat, asks one seat at a
time, sends each seat only its own view plus the public events, never lets a bot's bytes
change the game except through a legal action, and writes every step to the log. Whatever
happens — a forfeit, a void start, too many hands — it returns a ``MatchOutcome`` and the
log ends with a ``match_end`` record; only a bug in the referee itself escapes as an
exception.

The table only sequences the match. Each seat's state is a ``SeatState`` (``seat.py``); an
exchange with a bot is a ``Greeting`` or a ``Decision`` (``exchange.py``); the clock and the
fault policy are ``clock.py`` and ``faults.py``; what a step leaves in the log, the game
record and the seats' news is ``broadcast.py``; the outcome and its redaction ``outcome.py``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Collection
from typing import Final

import msgspec
import trio

from referee import __version__
from referee.errors import BotFault, BotStartFailed, reason_code
from referee.match.broadcast import Broadcast
from referee.match.clock import Clock
from referee.match.connection import BotConnection
from referee.match.exchange import Decision
from referee.match.faults import Explain, FaultPolicy, explained, gone, people_resign
from referee.match.outcome import MatchOutcome, MatchOver, SeatLost, forfeit, told_detail
from referee.match.pacing import IdleSeats, Turns
from referee.match.seat import SeatState
from referee.match.startup import Restart, Startup
from referee.record.log import LogWriter
from referee.record.records import (
    LOG_VERSION,
    EndReason,
    Forfeit,
    GameForfeit,
    Header,
    MatchEndRecord,
    Placement,
    Timing,
    game_digest,
)
from referee.record.sandbox import SandboxReport
from referee.rules import Action, Match
from referee.rules.contract import side_name
from referee.rules.tiles import OPPONENTS_OF, PARTNERSHIP_OF, SEATS, Partnership, Seat
from referee.settings import MatchSettings
from referee.wire.messages import PROTOCOL_VERSION, MatchEnd, encode_line

#: Seconds allowed to deliver ``match_end`` (and any ``hand_end`` still waiting) to a bot.
DELIVERY_TIMEOUT: Final = 5.0


def _header(
    settings: MatchSettings,
    commands: dict[Seat, str],
    sandbox: SandboxReport | None,
    people: Collection[Seat],
    placement: Placement | None,
) -> Header:
    """The log's first record (its wall time set when the match starts)."""
    return Header(
        log_version=LOG_VERSION,
        referee_version=__version__,
        protocol=PROTOCOL_VERSION,
        seed=settings.seed,
        bots=commands,
        limits=settings.limits(),
        max_hands=settings.max_hands,
        timing=Timing(wall_time=0.0),
        sandbox=sandbox,
        people=sorted(people) if people else msgspec.UNSET,
        placement=msgspec.UNSET if placement is None else placement,
    )


class Table:
    """Plays one match between four connected bots.

    The settings are read here once, into the parts that apply them; nothing else in the
    table reads them again.
    """

    def __init__(
        self,
        settings: MatchSettings,
        connections: dict[Seat, BotConnection],
        log: LogWriter,
        commands: dict[Seat, str],
        start_failures: dict[Seat, BotStartFailed] | None = None,
        sandbox: SandboxReport | None = None,
        explain: Explain | None = None,
        previous_matches: dict[Seat, int] | None = None,
        restart: Restart | None = None,
        people: Collection[Seat] = (),
        idle: IdleSeats | None = None,
        placement: Placement | None = None,
        lost: SeatLost | None = None,
    ) -> None:
        self.log = log
        self.sandbox = sandbox
        #: Turns a bot's going away into its precise fault (a sandbox bound, its exit status);
        #: a person's going away is their resigning.
        explain = self.explain = people_resign(explain, frozenset(people))
        self.seed = settings.seed
        self.max_rejections = settings.max_rejections
        #: A person's seat has no clock (``referee play``); the header names it.
        self.clock = Clock(settings, untimed=people)
        self.policy = FaultPolicy(settings)
        previous = previous_matches or {}
        failures = start_failures or {}
        self.seats = {
            seat: SeatState(
                seat,
                connections.get(seat),
                bank=self.clock.time_bank,
                previous_matches=previous.get(seat, 0),
                dead=failures.get(seat),
            )
            for seat in SEATS
        }
        #: ``--pace`` and ``--freeze-idle``: when each seat hears and runs.
        self.turns = Turns(settings, self.seats, idle)
        self.broadcast = Broadcast(log, self.seats, settings.seed, settings.max_hands)
        limits = settings.limits()
        self.header = _header(settings, commands, sandbox, people, placement)
        #: A seat lost before the match began (its worker): the match is void at once.
        self.lost = lost
        self.startup = Startup(
            self.seats,
            log,
            self.clock,
            settings.max_rejections,
            limits,
            settings.seed,
            explain,
            restart,
        )
        self.match: Match | None = None
        self.outcome: MatchOutcome | None = None
        self.decisions = 0
        self._play_started: float | None = None
        self._last_id = 0

    # -- the match -------------------------------------------------------------------------

    async def play(self) -> MatchOutcome:
        self.log.write(msgspec.structs.replace(self.header, timing=Timing(wall_time=time.time())))
        try:
            opening = self.clock.startup_deadline(trio.current_time())
            if self.lost is not None:
                raise self.lost
            try:
                await self.startup.run()
            except MatchOver:  # a forfeit at start-up is told at the opening too, under pace
                await self.turns.release(opening)
                raise
            await self.turns.open(opening)
            await self._play_hands()
            end: EndReason = "marks"
            assert self.match is not None and self.match.winner is not None
            winner: Partnership | None = self.match.winner
            marks = self.match.marks[self.match.winner]
            detail = f"{side_name(self.match.winner)} reached {marks} marks"
            lost_by = None
        except MatchOver as over:
            end, detail, lost_by = over.end, over.detail, over.forfeit
            winner = OPPONENTS_OF[PARTNERSHIP_OF[lost_by.seat]] if lost_by else None
        finally:
            self.turns.close()
        outcome = self.conclude(winner, end, detail, lost_by)
        await self._announce(outcome)
        return outcome

    def reusable(self, seat: Seat) -> bool:
        """May the seat's process play another match? Only if the match ended by its rules
        (not interrupted, not by an error in the referee), and the bot said it can, was
        charged with no fault and heard ``match_end``."""
        state = self.seats[seat]
        return (
            self.outcome is not None
            and self.outcome.end not in ("interrupted", "error")
            and state.declared == "many"
            and state.dead is None
            and not state.charged
            and state.delivered
        )

    async def _play_hands(self) -> None:
        match = self.match = Match(self.seed)
        self._play_started = trio.current_time()
        broadcast = self.broadcast
        broadcast.first_deal(match)
        while not match.is_over:
            seat = match.turn
            assert seat is not None
            legal = match.legal_actions()
            action, forced_for, answer_id, timing = await self._decide(self.seats[seat], legal)
            if forced_for is not None:
                broadcast.forced(seat, forced_for)
            events = match.apply(seat, action)
            broadcast.move(seat, action, answer_id, forced_for is not None, timing)
            for event in events:
                broadcast.event(event, match)

    # -- one decision ----------------------------------------------------------------------

    async def _decide(
        self, state: SeatState, legal: list[Action]
    ) -> tuple[Action, str | None, int | None, Timing]:
        """The seat's action, or the fault policy's with the fault's reason code (None when the
        bot answered); raises ``MatchOver`` on a forfeit."""
        assert self.match is not None
        self.decisions += 1
        started = trio.current_time()
        deadline = self.turns.begin(state, self.clock.deadline(state, started))
        fault: BotFault | None = None
        went = False
        decision = Decision(
            state, self.log, self.max_rejections, self.match, legal, deadline, self._last_id
        )
        try:
            if state.dead is not None:
                raise state.dead
            action = await decision.run()
        except BotFault as exc:
            fault, went = exc, gone(exc)
            if state.dead is None:
                with self.turns.explaining(deadline):
                    fault = await explained(self.explain, state.seat, exc)
        finally:
            self._last_id = decision.last_id
            self.turns.answered(state.seat)
        timing = self.clock.debit(state, started)
        await self.turns.release(deadline)  # the outcome, whatever it is, at the deadline
        if fault is None:
            return action, None, decision.act_id, timing
        if gone(fault) or went:  # a bot gone away stays gone, whatever bound explains it
            state.dead = fault
        penalty = self.policy.penalty(state)
        self.log.write(state.charge(fault, penalty, decision.act_id, timing))
        if penalty == "forfeit":
            raise forfeit(state.seat, fault)
        return self.policy.forced(legal), reason_code(fault), None, timing

    # -- the end ---------------------------------------------------------------------------

    def conclude(
        self,
        winner: Partnership | None,
        end: EndReason,
        detail: str,
        lost_by: Forfeit | None = None,
    ) -> MatchOutcome:
        """Write the ``match_end`` record and return the outcome (once; later calls repeat it).

        Synchronous, so the referee can still close the log when it is being interrupted.
        """
        if self.outcome is not None:
            return self.outcome
        record = self.broadcast.record
        record.winner, record.end = winner, end
        record.forfeit = GameForfeit(seat=lost_by.seat, reason=lost_by.reason) if lost_by else None
        digest = game_digest(record)
        faults = {seat: dict(sorted(state.faults.items())) for seat, state in self.seats.items()}
        hands = len(record.hands)
        self.log.write(
            MatchEndRecord(
                winner=winner,
                marks=record.marks,
                hands=hands,
                end=end,
                detail=detail,
                forfeit=lost_by,
                faults=faults,
                game_digest=digest,
                timing=Timing(wall_time=time.time()),
            )
        )
        self.log.flush()
        started = self._play_started
        self.outcome = MatchOutcome(
            winner=winner,
            marks=dict(record.marks),
            hands=hands,
            end=end,
            detail=detail,
            forfeit=lost_by,
            faults=faults,
            names={seat: state.name for seat, state in self.seats.items()},
            seed=self.seed,
            game_digest=digest,
            log_digest=self.log.chain,
            decisions=self.decisions,
            play_seconds=0.0 if started is None else trio.current_time() - started,
            sandbox=self.sandbox,
        )
        return self.outcome

    async def _announce(self, outcome: MatchOutcome) -> None:
        """Tell every bot still listening that the match is over, all at once."""
        deadline = trio.current_time() + DELIVERY_TIMEOUT

        async def tell(state: SeatState, line: bytes) -> None:
            # The match is decided: a bot that cannot hear it changes nothing.
            with contextlib.suppress(BotFault, SeatLost):
                await state.bot.send(line, deadline)
                state.delivered = True

        async with trio.open_nursery() as nursery:
            for state in self.seats.values():
                if state.dead is not None:
                    continue
                message = MatchEnd(
                    events=state.take_events(),
                    winner=outcome.winner,
                    marks=outcome.marks,
                    reason=outcome.end,
                    detail=told_detail(outcome, state.seat),
                )
                nursery.start_soon(tell, state, state.take_outbox() + encode_line(message))
