"""The table: four bot connections, the rules engine, the clock and the fault policy.

``Table.play`` runs a whole match over ``BotConnection`` objects; it does not know whether
they are subprocess pipes or in-memory streams. It asks one seat at a time, sends each seat
only its own view plus the public events, never lets a bot's bytes change the game except
through a legal action, and writes every step to the log. Whatever happens — a forfeit,
a void start, too many hands — it returns a ``MatchOutcome`` and the log ends with a
``match_end`` record; only a bug in the referee itself escapes as an exception.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Final

import msgspec
import trio

from referee import __version__
from referee.errors import (
    BadMessage,
    BotCrashed,
    BotFault,
    BotNotReading,
    BotStartFailed,
    IllegalAction,
    IllegalActionAnswer,
    Rejection,
    TooManyRejections,
    reason_code,
)
from referee.match.connection import BotConnection
from referee.record.events import deal_record, event_record
from referee.record.log import LogWriter
from referee.record.records import (
    LOG_VERSION,
    ActRecord,
    BotReady,
    DealRecord,
    EndReason,
    FaultRecord,
    Forfeit,
    GameForfeit,
    GameHand,
    GameMove,
    GameRecord,
    Header,
    IgnoredRecord,
    MatchEndRecord,
    MoveRecord,
    RejectedRecord,
    Timing,
    game_digest,
    public_detail,
)
from referee.rules import Action, HandEnded, HandStarted, Match, MatchEnded
from referee.rules.contract import side_name
from referee.rules.deal import Stream
from referee.rules.tiles import OPPONENTS_OF, PARTNERSHIP_OF, SEATS, Partnership, Seat
from referee.rules.views import View
from referee.sandbox.policy import SandboxReport
from referee.settings import MatchSettings, Penalty, fault_stream, forced_action, penalty
from referee.wire.decode import decode_bot_line, excerpt
from referee.wire.messages import (
    PROTOCOL_VERSION,
    Act,
    ActionAnswer,
    Forced,
    HandEnd,
    Hello,
    MatchEnd,
    Matches,
    PublicEvent,
    Ready,
    Rejected,
    encode_line,
)

#: How the runner explains a bot's going away: ``(seat, fault) -> the fault to charge``.
Explain = Callable[[Seat, BotFault], Awaitable[BotFault]]
#: How the runner replaces a kept bot that failed to start its next match: a fresh process's
#: connection for the seat, or ``BotStartFailed``.
Restart = Callable[[Seat], Awaitable[BotConnection]]

#: Answers with a stale or wrong id ignored for one decision before the flood is a fault
#: (each is logged, so this also bounds the log).
MAX_IGNORED: Final = 100
#: Seconds allowed to deliver ``match_end`` (and any ``hand_end`` still waiting) to a bot.
DELIVERY_TIMEOUT: Final = 5.0


class MatchOutcome(msgspec.Struct, frozen=True):
    """The result of a match as ``referee match --json`` prints it."""

    winner: Partnership | None
    marks: dict[Partnership, int]
    hands: int
    end: EndReason
    detail: str
    forfeit: Forfeit | None
    #: Per seat, by reason: faults and, as the log counts them, refused and ignored answers
    #: (``records.split_counts`` tells them apart; ``--json`` prints them apart).
    faults: dict[Seat, dict[str, int]]
    names: dict[Seat, str]
    seed: int
    game_digest: str
    #: The chain of the log's last record: stands for the whole log (see ``referee.record.log``).
    log_digest: str
    #: Decisions asked of the bots (rejected answers' fresh ``act`` not counted twice).
    decisions: int
    #: Seconds from the first deal to the end (bot start-up excluded).
    play_seconds: float
    log: str | None = None
    #: The sandbox layers the bots ran under.
    sandbox: SandboxReport | None = None


class _MatchOver(Exception):
    """Ends the match early (a forfeit, a void start, too many hands)."""

    def __init__(self, end: EndReason, detail: str, forfeit: Forfeit | None = None) -> None:
        super().__init__(detail)
        self.end = end
        self.detail = detail
        self.forfeit = forfeit


def _forfeit(seat: Seat, fault: BotFault, what: str = "forfeits") -> _MatchOver:
    return _MatchOver(
        "forfeit",
        f"{seat} {what}: {reason_code(fault)}: {fault}",
        Forfeit(seat=seat, reason=reason_code(fault), detail=str(fault)),
    )


def bot_seed(match_seed: int, seat: Seat) -> int:
    """The seed told to a bot for its own randomness: derived from, but not revealing, the
    match seed."""
    stream = Stream(f"{match_seed}/bot/{seat}")
    return (stream.uniform(2**32) << 32) | stream.uniform(2**32)


class Table:
    """Plays one match between four connected bots."""

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
    ) -> None:
        self.settings = settings
        self.connections = connections
        self.log = log
        self.commands = commands
        self.names: dict[Seat, str] = {seat: "" for seat in SEATS}
        self.faults: dict[Seat, Counter[str]] = {seat: Counter() for seat in SEATS}
        self.strikes: dict[Seat, int] = dict.fromkeys(SEATS, 0)
        self.bank: dict[Seat, float] = dict.fromkeys(SEATS, settings.time_bank)
        self.dead: dict[Seat, BotFault] = dict(start_failures or {})
        self.sandbox = sandbox
        #: Turns a bot's going away into its precise fault (a sandbox bound, its exit status).
        self.explain = explain
        #: Per seat, the matches its process played before this one (0: started for it).
        self.previous_matches = {seat: 0 for seat in SEATS} | (previous_matches or {})
        self.restart = restart
        #: What each bot said in ``ready`` it can play, and the seats charged with a fault:
        #: together they say which processes may be kept for another match (``reusable``).
        self.declared: dict[Seat, Matches] = {}
        self.charged: set[Seat] = set()
        self.delivered: set[Seat] = set()
        self.pending: dict[Seat, list[PublicEvent]] = {seat: [] for seat in SEATS}
        # hand_end lines wait here and go out in the same write as the seat's next message:
        # one write and one wake-up of the bot fewer per seat and hand.
        self.outbox: dict[Seat, bytearray] = {seat: bytearray() for seat in SEATS}
        self.record = GameRecord(seed=settings.seed)
        self.match: Match | None = None
        self.outcome: MatchOutcome | None = None
        self.decisions = 0
        self._play_started: float | None = None
        self._last_id = 0
        self._fault_stream = fault_stream(settings.seed)

    # -- the match -------------------------------------------------------------------------

    async def play(self) -> MatchOutcome:
        self.log.write(
            Header(
                log_version=LOG_VERSION,
                referee_version=__version__,
                protocol=PROTOCOL_VERSION,
                seed=self.settings.seed,
                bots=self.commands,
                limits=self.settings.limits(),
                max_hands=self.settings.max_hands,
                timing=Timing(wall_time=time.time()),
                sandbox=self.sandbox,
            )
        )
        try:
            await self._start()
            await self._play_hands()
            end: EndReason = "marks"
            assert self.match is not None and self.match.winner is not None
            winner: Partnership | None = self.match.winner
            marks = self.match.marks[self.match.winner]
            detail = f"{side_name(self.match.winner)} reached {marks} marks"
            forfeit = None
        except _MatchOver as over:
            end, detail, forfeit = over.end, over.detail, over.forfeit
            winner = OPPONENTS_OF[PARTNERSHIP_OF[forfeit.seat]] if forfeit else None
        outcome = self.conclude(winner, end, detail, forfeit)
        await self._announce(outcome)
        return outcome

    async def _start(self) -> None:
        """``hello`` to every seat, then a ``ready`` from each within the startup limit.

        The seats are greeted concurrently, so one slow starter costs the others nothing.
        """
        readies: dict[Seat, tuple[Ready, float]] = {}

        async def greet(seat: Seat) -> None:
            try:
                readies[seat] = await self._hello(seat)
                return
            except BotFault as fault:
                failure = await self._explained(seat, fault)
            if self.previous_matches[seat] == 0 or self.restart is None:
                self.dead[seat] = failure
                return
            # A kept process that could not start its next match: a fresh one takes the seat,
            # and the fault is this match's record of it, costing nothing more.
            self._record_fault(seat, failure, "restart", None, None)
            self.previous_matches[seat] = 0
            try:
                self.connections[seat] = await self.restart(seat)
                readies[seat] = await self._hello(seat)
            except BotFault as fault:
                self.dead[seat] = await self._explained(seat, fault)

        self.log.flush()
        async with trio.open_nursery() as nursery:
            for seat in SEATS:
                if seat not in self.dead:
                    nursery.start_soon(greet, seat)
        for seat, (ready, latency) in sorted(readies.items()):
            self.names[seat] = ready.name
            self.declared[seat] = ready.matches
            previous = self.previous_matches[seat]
            self.log.write(
                BotReady(
                    seat=seat,
                    name=ready.name,
                    timing=Timing(latency_ms=latency),
                    matches=ready.matches,
                    reused=previous > 0,
                    previous_matches=previous,
                )
            )
        failed = [seat for seat in SEATS if seat in self.dead]
        for seat in failed:
            self._record_fault(seat, self.dead[seat], "forfeit", None, None)
        if not failed:
            return
        sides = {PARTNERSHIP_OF[seat] for seat in failed}
        first = failed[0]
        if len(sides) == 2:
            raise _MatchOver("void", "bots of both partnerships failed to start")
        raise _forfeit(first, self.dead[first], "failed to start")

    async def _hello(self, seat: Seat) -> tuple[Ready, float]:
        """Send ``hello`` and wait up to the startup limit for ``ready``: the bot's answer and
        how many milliseconds it took."""
        started = trio.current_time()
        seed = bot_seed(self.settings.seed, seat)
        hello = Hello(
            protocol=PROTOCOL_VERSION,
            seat=seat,
            partnership=PARTNERSHIP_OF[seat],
            seed=seed,
            limits=self.settings.limits(),
            seed_text=str(seed),
        )
        with self.connections[seat].deadline(started + self.settings.startup_timeout):
            await self.connections[seat].send(encode_line(hello))
            ready, _ = await self._receive(seat, 0, Ready)
        assert isinstance(ready, Ready)
        return ready, (trio.current_time() - started) * 1000

    def reusable(self, seat: Seat) -> bool:
        """May the seat's process play another match? Only if the match ended by its rules
        (not interrupted, not by an error in the referee), and the bot said it can, was
        charged with no fault and heard ``match_end``."""
        return (
            self.outcome is not None
            and self.outcome.end not in ("interrupted", "error")
            and self.declared.get(seat) == "many"
            and seat not in self.dead
            and seat not in self.charged
            and seat in self.delivered
        )

    async def _play_hands(self) -> None:
        match = self.match = Match(self.settings.seed)
        self._play_started = trio.current_time()
        deal = deal_record(match.hand)
        self.log.write(deal)
        self._game_hand(deal)
        first = HandStarted(hand_number=1, dealer=match.hand.dealer)
        for queue in self.pending.values():
            queue.append(first)  # as for every later hand
        while not match.is_over:
            seat = match.turn
            assert seat is not None
            legal = match.legal_actions()
            action, forced_for, answer_id, timing = await self._decide(seat, match, legal)
            forced = forced_for is not None
            if forced_for is not None:  # every seat learns the referee played for this one, and why
                for queue in self.pending.values():
                    queue.append(Forced(seat=seat, reason=forced_for))
            events = match.apply(seat, action)
            self.log.write(
                MoveRecord(seat=seat, action=action, id=answer_id, forced=forced, timing=timing)
            )
            self.record.hands[-1].moves.append(GameMove(seat=seat, action=action, forced=forced))
            for event in events:
                self._publish(event, match)

    def _publish(self, event: object, match: Match) -> None:
        """Log an engine event and queue it for every seat."""
        if type(event) is MatchEnded:
            self.record.winner = event.winner
            return
        if type(event) is HandStarted and event.hand_number > self.settings.max_hands:
            raise _MatchOver(
                "max_hands",
                f"no partnership reached 7 marks in {self.settings.max_hands} hands",
            )
        # match.hand may be the next one already
        record = event_record(event, match, self.record.hands[-1].hand)
        if record is not None:
            self.log.write(record)
        if type(event) is HandEnded:
            result = event.review.result
            self.record.hands[-1].result = result
            self.record.marks = dict(match.marks)
            for seat in SEATS:
                message = HandEnd(
                    events=self._take_events(seat), review=event.review, marks=dict(match.marks)
                )
                self.outbox[seat] += encode_line(message)
            return
        assert isinstance(event, PublicEvent)
        if type(event) is HandStarted:
            assert type(record) is DealRecord
            self._game_hand(record)
        for seat in SEATS:
            self.pending[seat].append(event)

    def _game_hand(self, deal: DealRecord) -> None:
        self.record.hands.append(GameHand(hand=deal.hand, dealer=deal.dealer, deal=deal.hands))

    def _take_events(self, seat: Seat) -> list[PublicEvent]:
        events, self.pending[seat] = self.pending[seat], []
        return events

    def _take_outbox(self, seat: Seat) -> bytes:
        """Messages that need no answer (``hand_end``), waiting to go with the next one."""
        lines = bytes(self.outbox[seat])
        self.outbox[seat].clear()
        return lines

    # -- one decision ----------------------------------------------------------------------

    async def _decide(
        self, seat: Seat, match: Match, legal: list[Action]
    ) -> tuple[Action, str | None, int | None, Timing]:
        """The seat's action, or the fault policy's with the fault's reason code (None when the
        bot answered); raises ``_MatchOver`` on a forfeit."""
        self.decisions += 1
        started = trio.current_time()
        deadline = started + self.settings.move_timeout + self.bank[seat]
        first_id = self._last_id + 1
        fault: BotFault | None = None
        try:
            if seat in self.dead:
                raise self.dead[seat]
            act_id, action = await self._ask(seat, match, legal, deadline)
        except BotFault as exc:
            fault = exc if seat in self.dead else await self._explained(seat, exc)
        elapsed = trio.current_time() - started
        overrun = max(0.0, elapsed - self.settings.move_timeout)
        self.bank[seat] = max(0.0, self.bank[seat] - overrun)
        timing = Timing(latency_ms=elapsed * 1000, bank_ms=self.bank[seat] * 1000)
        if fault is None:
            return action, None, act_id, timing
        if isinstance(fault, BotCrashed | BotNotReading):
            self.dead[seat] = fault
        penalty = self._penalty(seat)
        last_id = self._last_id if self._last_id >= first_id else None
        self._record_fault(seat, fault, penalty, last_id, timing)
        if penalty == "forfeit":
            raise _forfeit(seat, fault)
        forced = forced_action(self._fault_stream, legal)
        return forced, reason_code(fault), None, timing

    async def _explained(self, seat: Seat, fault: BotFault) -> BotFault:
        """A bot that went away (crashed, stopped reading) is charged precisely."""
        if self.explain is None or not isinstance(fault, BotCrashed | BotNotReading):
            return fault
        return await self.explain(seat, fault)

    def _penalty(self, seat: Seat) -> Penalty:
        settings = self.settings
        cost, self.strikes[seat] = penalty(
            settings.on_fault, self.strikes[seat], settings.max_strikes
        )
        return cost

    async def _ask(
        self, seat: Seat, match: Match, legal: list[Action], deadline: float
    ) -> tuple[int, Action]:
        """Send ``act`` until the bot answers with a legal action; return (id, action).

        One deadline covers the whole exchange: a refused answer does not stop the clock. The
        first ``act`` goes out before anything else is done (the deadline's scope, the log):
        whatever can wait for the bot's answer is done while the bot thinks.
        """
        connection = self.connections[seat]
        view = match.view(seat)
        act_id, line = self._act(seat, view, legal, deadline)
        try:
            unsent = connection.send_now(self._take_outbox(seat) + line)
        finally:
            self.log.write(ActRecord(id=act_id, seat=seat, legal_actions=legal))
            self.log.flush()
        match.deal_ahead()
        rejections = 0
        with connection.deadline(deadline):
            if unsent:
                await connection.send(unsent)
            while True:
                try:
                    answer, line = await self._receive(seat, act_id, ActionAnswer)
                    assert isinstance(answer, ActionAnswer)
                    if answer.action not in legal:
                        illegal = self._illegal(seat, match, answer.action)
                        illegal.raw = excerpt(line)
                        raise illegal
                    return act_id, answer.action
                except Rejection as rejection:
                    rejections += 1
                    await self._reject(seat, act_id, rejection)
                    if rejections >= self.settings.max_rejections:
                        raise TooManyRejections(
                            f"{rejections} answers refused for one decision"
                            f" (last: {reason_code(rejection)}: {rejection})"
                        ) from None
                act_id, line = self._act(seat, view, legal, deadline)
                self.log.write(ActRecord(id=act_id, seat=seat, legal_actions=legal))
                self.log.flush()
                await connection.send(line)
        raise AssertionError("unreachable")  # pragma: no cover

    def _act(
        self, seat: Seat, view: View, legal: list[Action], deadline: float
    ) -> tuple[int, bytes]:
        """A fresh ``act`` for the seat (the events it has not been told yet), and its id."""
        self._last_id += 1
        time_ms = max(0, int((deadline - trio.current_time()) * 1000))
        act = Act(
            id=self._last_id,
            events=self._take_events(seat),
            view=view,
            legal_actions=legal,
            time_ms=time_ms,
        )
        return self._last_id, encode_line(act)

    async def _receive(
        self, seat: Seat, expected_id: int, kind: type[Ready | ActionAnswer]
    ) -> tuple[Ready | ActionAnswer, bytes]:
        """The next message of ``kind`` answering ``expected_id``, and its line.

        Answers with another id (and, from a kept bot, any answer before ``ready``) are
        recorded and skipped, up to ``MAX_IGNORED``. A malformed
        line raises a ``Rejection`` carrying the line in ``raw``; while waiting for ``ready``
        it is refused on the spot instead, up to ``max_rejections``.
        """
        connection = self.connections[seat]
        ignored = refused = 0
        # A kept bot may still be answering its last match's last act: ignored, as a stale
        # answer is in a match.
        kept = kind is Ready and self.previous_matches[seat] > 0
        while True:
            line = await connection.receive_line()
            try:
                message = decode_bot_line(line)
                stale = type(message) is ActionAnswer and (
                    kept if kind is Ready else message.id != expected_id
                )
                if type(message) is not kind and not stale:
                    wanted = "ready" if kind is Ready else "action"
                    got = "ready" if type(message) is Ready else "action"
                    raise BadMessage(f"expected a {wanted!r} message, got {got!r}")
            except Rejection as rejection:
                rejection.raw = excerpt(line)
                if kind is not Ready:
                    raise
                await self._reject(seat, expected_id, rejection)
                refused += 1
                if refused >= self.settings.max_rejections:
                    raise TooManyRejections(
                        f"{refused} lines refused before 'ready'"
                        f" (last: {reason_code(rejection)}: {rejection})"
                    ) from None
                continue
            if stale:
                self.faults[seat]["ignored"] += 1
                self.log.write(IgnoredRecord(seat=seat, expected_id=expected_id, raw=excerpt(line)))
                ignored += 1
                if ignored >= MAX_IGNORED:
                    raise TooManyRejections(
                        f"{ignored} answers with a stale or wrong id to one decision"
                    )
                continue
            return message, line

    def _illegal(self, seat: Seat, match: Match, action: Action) -> IllegalActionAnswer:
        """Why ``action`` is not legal, in the engine's own words (tried on a copy)."""
        try:
            match.hand.clone().apply(seat, action)
        except IllegalAction as exc:
            return IllegalActionAnswer(str(exc), reason_code(exc))
        return IllegalActionAnswer(f"{action} is not among the legal actions", "not_offered")

    async def _reject(self, seat: Seat, act_id: int, rejection: Rejection) -> None:
        code = reason_code(rejection)
        rule = getattr(rejection, "rule", None)
        self.faults[seat][code] += 1
        self.log.write(
            RejectedRecord(
                id=act_id,
                seat=seat,
                reason=code,
                detail=str(rejection),
                raw=rejection.raw,
                rule=rule,
            )
        )
        detail = f"{rejection} ({rule})" if rule else str(rejection)
        message = Rejected(id=act_id, reason=code, detail=detail)
        self.log.flush()
        await self.connections[seat].send(encode_line(message))

    def _record_fault(
        self,
        seat: Seat,
        fault: BotFault,
        penalty: Penalty,
        act_id: int | None,
        timing: Timing | None,
    ) -> None:
        code = reason_code(fault)
        self.faults[seat][code] += 1
        if penalty != "restart":  # a restart's fault is the process's it replaced
            self.charged.add(seat)
        self.log.write(
            FaultRecord(
                seat=seat,
                reason=code,
                detail=str(fault),
                penalty=penalty,
                strikes=self.strikes[seat],
                id=act_id,
                timing=timing,
            )
        )

    # -- delivery and the end --------------------------------------------------------------

    def conclude(
        self,
        winner: Partnership | None,
        end: EndReason,
        detail: str,
        forfeit: Forfeit | None = None,
    ) -> MatchOutcome:
        """Write the ``match_end`` record and return the outcome (once; later calls repeat it).

        Synchronous, so the referee can still close the log when it is being interrupted.
        """
        if self.outcome is not None:
            return self.outcome
        record = self.record
        record.winner, record.end = winner, end
        record.forfeit = GameForfeit(seat=forfeit.seat, reason=forfeit.reason) if forfeit else None
        digest = game_digest(record)
        faults = {seat: dict(sorted(self.faults[seat].items())) for seat in SEATS}
        hands = len(record.hands)
        self.log.write(
            MatchEndRecord(
                winner=winner,
                marks=record.marks,
                hands=hands,
                end=end,
                detail=detail,
                forfeit=forfeit,
                faults=faults,
                game_digest=digest,
                timing=Timing(wall_time=time.time()),
            )
        )
        self.log.flush()
        self.outcome = MatchOutcome(
            winner=winner,
            marks=dict(record.marks),
            hands=hands,
            end=end,
            detail=detail,
            forfeit=forfeit,
            faults=faults,
            names=dict(self.names),
            seed=self.settings.seed,
            game_digest=digest,
            log_digest=self.log.chain,
            decisions=self.decisions,
            play_seconds=0.0
            if self._play_started is None
            else trio.current_time() - self._play_started,
            sandbox=self.sandbox,
        )
        return self.outcome

    async def _announce(self, outcome: MatchOutcome) -> None:
        """Tell every bot still listening that the match is over, all at once."""
        deadline = trio.current_time() + DELIVERY_TIMEOUT

        async def tell(seat: Seat, line: bytes) -> None:
            # The match is decided: a bot that cannot hear it changes nothing.
            with contextlib.suppress(BotFault):
                await self.connections[seat].send(line, deadline)
                self.delivered.add(seat)

        async with trio.open_nursery() as nursery:
            for seat in SEATS:
                if seat in self.dead:
                    continue
                message = MatchEnd(
                    events=self._take_events(seat),
                    winner=outcome.winner,
                    marks=outcome.marks,
                    reason=outcome.end,
                    detail=told_detail(outcome, seat),
                )
                nursery.start_soon(tell, seat, self._take_outbox(seat) + encode_line(message))


def told_detail(outcome: MatchOutcome, seat: Seat) -> str:
    """The ``match_end`` detail ``seat`` is sent: a forfeit's in full only to the seat that
    forfeited — its fault may quote a refused answer that names the tiles it held — and to
    the others only who forfeited and why (the log keeps every word)."""
    forfeit = outcome.forfeit
    if forfeit is not None and forfeit.seat == seat:
        return outcome.detail
    return public_detail(outcome.detail, forfeit)
