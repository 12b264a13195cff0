"""In-memory fake bots for testing the table without subprocesses.

A ``FakeBot`` sits on the far end of two trio memory streams and speaks the protocol: it
decodes every referee line as a typed ``RefereeMessage`` (so a malformed message from the
referee fails the test), answers ``hello`` and ``act`` through small *policies*, and keeps
everything it was told for the assertions.

A policy is ``policy(act) -> Reply``, where a reply is a ``bytes`` line, a list of steps
(``bytes`` written as they are, ``Sleep(seconds)``, ``CLOSE`` to close the bot's output,
``CLOSE_INPUT`` to stop reading and close its input), or None (say nothing). Replies are raw
bytes, so a test can send garbage, a wrong id, half a line or a line of any length. Run four
bots with ``play_match``, under trio's autojump clock so that timeouts cost no real time.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import msgspec
import trio
import trio.testing

from referee.match.connection import BotConnection
from referee.match.faults import Explain
from referee.match.outcome import MatchOutcome
from referee.match.pacing import IdleSeats
from referee.match.table import Table
from referee.record.log import LogWriter, parse_log
from referee.record.records import (
    ActRecord,
    DealRecord,
    FaultRecord,
    GameForfeit,
    GameHand,
    GameMove,
    GameRecord,
    HandEndRecord,
    Header,
    LogRecord,
    MatchEndRecord,
    MoveRecord,
)
from referee.record.walk import LogWalk
from referee.rules import (
    SEATS,
    Action,
    Bid,
    Hand,
    HandEnded,
    HandStarted,
    Match,
    MatchEnded,
    Pass,
    Play,
    Seat,
    Tile,
    View,
)
from referee.settings import MatchSettings
from referee.wire.messages import (
    Act,
    Forced,
    HandEnd,
    Hello,
    MatchEnd,
    PublicEvent,
    RefereeMessage,
    Rejected,
)

# -- replies ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sleep:
    """A reply step: wait this many seconds (virtual ones under the autojump clock)."""

    seconds: float


class _Close:
    def __repr__(self) -> str:
        return "CLOSE"


#: A reply step: close the bot's output (its stdout), as a bot that exits does.
CLOSE: Final = _Close()


class _CloseInput:
    def __repr__(self) -> str:
        return "CLOSE_INPUT"


#: A reply step: close the bot's input (its stdin) and stop reading, as a bot that exits does.
CLOSE_INPUT: Final = _CloseInput()

Step = bytes | Sleep | _Close | _CloseInput
Reply = bytes | Sequence[Step] | None
Policy = Callable[[Act], Reply]
HelloPolicy = Callable[[Hello], Reply]

_REFEREE_MESSAGE: Final = msgspec.json.Decoder(RefereeMessage)


def line(value: Any) -> bytes:
    """Any value as one JSON line."""
    return msgspec.json.encode(value) + b"\n"


def ready(name: str = "fake") -> bytes:
    return line({"type": "ready", "name": name})


def answer(act_id: int, action: Action | Mapping[str, Any]) -> bytes:
    """An ``action`` message answering act ``act_id``."""
    return line({"type": "action", "id": act_id, "action": action})


# -- policies ---------------------------------------------------------------------------------


def first_legal(act: Act) -> Reply:
    return answer(act.id, act.legal_actions[0])


def always_pass(act: Act) -> Reply:
    """Pass in the bidding (so four of them never play a hand), else the first legal action."""
    return first_legal(act)  # Pass() is always first in a bidding's legal actions


def point_bid_stands(view: View) -> bool:
    return any(type(move.action) is Bid for move in view.bids)


def simple(act: Act) -> Reply:
    """Bid 30 when nobody has bid, otherwise pass; then the first legal action.

    One point contract per hand, decided by the cards: a deterministic, quick match.
    """
    if Bid(30) in act.legal_actions:
        return answer(act.id, Bid(30))
    return first_legal(act)


def random_policy(seed: int) -> Policy:
    """A uniformly random legal action from its own seeded generator (deterministic)."""
    rng = random.Random(seed)

    def policy(act: Act) -> Reply:
        return answer(act.id, rng.choice(act.legal_actions))

    return policy


def misbehave(
    trigger: Callable[[Act], bool],
    bad: Callable[[Act], Reply],
    base: Policy = simple,
    times: int | None = 1,
) -> Policy:
    """``bad`` for the first ``times`` acts ``trigger`` picks (every one if None), else ``base``.

    The policy's ``triggered`` attribute lists the acts it misbehaved on.
    """
    triggered: list[Act] = []

    def policy(act: Act) -> Reply:
        if (times is None or len(triggered) < times) and trigger(act):
            triggered.append(act)
            return bad(act)
        return base(act)

    policy.triggered = triggered  # type: ignore[attr-defined]
    return policy


def delayed(delays: Sequence[float], base: Policy = simple) -> Policy:
    """The n-th act is answered by ``base`` after ``delays[n]`` seconds (at once past the list)."""
    count = 0

    def policy(act: Act) -> Reply:
        nonlocal count
        delay = delays[count] if count < len(delays) else 0.0
        count += 1
        reply = base(act)
        assert isinstance(reply, bytes)
        return [Sleep(delay), reply] if delay else reply

    return policy


def any_act(act: Act) -> bool:
    return True


def illegal_action(act: Act) -> Action:
    """An action that is never legal in the act's phase."""
    return Pass() if act.view.phase == "playing" else Play(Tile(0, 0))


# -- the bot ----------------------------------------------------------------------------------


def _greet(hello: Hello) -> Reply:
    return ready(f"fake-{hello.seat}")


class FakeBot:
    """One scripted bot on the far end of two in-memory streams."""

    def __init__(
        self,
        policy: Policy = simple,
        *,
        hello: HelloPolicy = _greet,
    ) -> None:
        self.policy = policy
        self.hello_policy = hello
        self.seat: Seat | None = None
        #: Every message from the referee, in order, and every byte of them as read.
        self.messages: list[RefereeMessage] = []
        self.received = bytearray()
        #: Every public event received, in order (from act, hand_end and match_end).
        self.events: list[PublicEvent] = []
        #: Each ``act`` with the number of events received up to and including it.
        self.acts: list[tuple[Act, int]] = []
        #: When each message arrived (trio's clock): what a bot can time.
        self.arrivals: list[tuple[RefereeMessage, float]] = []
        #: Each ``hand_end`` with the number of events received up to and including it.
        self.hand_ends: list[tuple[HandEnd, int]] = []
        self.rejections: list[Rejected] = []
        self.hello: Hello | None = None
        self.match_end: MatchEnd | None = None
        self.output_closed = False
        self.input_closed = False
        self.done = trio.Event()
        self._to_bot = trio.testing.memory_stream_one_way_pair()
        self._from_bot = trio.testing.memory_stream_one_way_pair()

    def connection(self, seat: Seat, max_line_bytes: int) -> BotConnection:
        """The referee's end: it writes the bot's input and reads the bot's output."""
        self.seat = seat
        return BotConnection(seat, self._to_bot[0], self._from_bot[1], max_line_bytes)

    async def close_referee_side(self) -> None:
        """What the referee does when the match is over: close the bot's stdin and stdout."""
        await self._to_bot[0].aclose()
        await self._from_bot[1].aclose()

    async def run(self) -> None:
        """Read and answer lines until the input ends."""
        buffer = bytearray()
        try:
            while not self.input_closed:
                try:
                    data = await self._to_bot[1].receive_some()
                except trio.ClosedResourceError:
                    return
                if not data:
                    return
                buffer += data
                self.received += data
                while not self.input_closed and (newline := buffer.find(b"\n")) >= 0:
                    raw = bytes(buffer[:newline])
                    del buffer[: newline + 1]
                    await self._handle(_REFEREE_MESSAGE.decode(raw))
        finally:
            self.done.set()

    async def _handle(self, message: RefereeMessage) -> None:
        self.messages.append(message)
        self.arrivals.append((message, trio.current_time()))
        if isinstance(message, Hello):
            self.hello = message
            await self._perform(self.hello_policy(message))
        elif isinstance(message, Act):
            self.events.extend(message.events)
            self.acts.append((message, len(self.events)))
            await self._perform(self.policy(message))
        elif isinstance(message, HandEnd):
            self.events.extend(message.events)
            self.hand_ends.append((message, len(self.events)))
        elif isinstance(message, MatchEnd):
            self.events.extend(message.events)
            self.match_end = message
        elif isinstance(message, Rejected):
            self.rejections.append(message)

    async def _perform(self, reply: Reply) -> None:
        if reply is None:
            return
        steps: Sequence[Step] = [reply] if isinstance(reply, bytes) else reply
        for step in steps:
            if isinstance(step, Sleep):
                await trio.sleep(step.seconds)
            elif isinstance(step, _Close):
                self.output_closed = True
                await self._from_bot[0].aclose()
            elif isinstance(step, _CloseInput):
                self.input_closed = True
                await self._to_bot[1].aclose()
            elif not self.output_closed:
                try:
                    await self._from_bot[0].send_all(step)
                except trio.BrokenResourceError:  # the referee stopped listening
                    self.output_closed = True

    @property
    def act_messages(self) -> list[Act]:
        return [act for act, _ in self.acts]


# -- a match ----------------------------------------------------------------------------------

R = TypeVar("R")


class Logged:
    """A played match's log records, read by kind (a mix-in of the runs below)."""

    records: list[LogRecord]

    def of(self, kind: type[R]) -> list[R]:
        return [record for record in self.records if isinstance(record, kind)]

    @property
    def header(self) -> Header:
        assert isinstance(self.records[0], Header)
        return self.records[0]

    @property
    def end(self) -> MatchEndRecord:
        assert isinstance(self.records[-1], MatchEndRecord)
        return self.records[-1]


@dataclass
class MatchRun(Logged):
    """What a match over fake bots left behind."""

    outcome: MatchOutcome
    records: list[LogRecord]
    log: bytes
    bots: dict[Seat, FakeBot]
    table: Table


def chained_records(log: bytes) -> list[LogRecord]:
    """The records of a log the table wrote, its chain whole."""
    parsed = parse_log(log)
    assert parsed.broken_at is None, f"chain broken at line {parsed.broken_at}"
    return parsed.records


def settings(**overrides: Any) -> MatchSettings:
    values: dict[str, Any] = {"seed": 42}
    values.update(overrides)
    return MatchSettings(**values)


async def play_match(
    bots: Mapping[Seat, FakeBot] | Sequence[FakeBot],
    match_settings: MatchSettings,
    explain: Explain | None = None,
    idle: IdleSeats | None = None,
) -> MatchRun:
    """Play a whole match between four fake bots; the log goes to memory and is parsed back.

    ``explain`` stands for the runner's, which waits for a bot that went away."""
    seated = dict(bots) if isinstance(bots, Mapping) else dict(zip(SEATS, bots, strict=True))
    buffer = io.BytesIO()
    connections = {
        seat: bot.connection(seat, match_settings.max_line_bytes) for seat, bot in seated.items()
    }
    log, commands = LogWriter(buffer), {seat: f"fake {seat}" for seat in SEATS}
    table = Table(match_settings, connections, log, commands, explain=explain, idle=idle)
    async with trio.open_nursery() as nursery:
        for bot in seated.values():
            nursery.start_soon(bot.run)
        outcome = await table.play()
        for bot in seated.values():
            await bot.close_referee_side()
        with trio.move_on_after(60):
            for bot in seated.values():
                await bot.done.wait()
        nursery.cancel_scope.cancel()
    log = buffer.getvalue()
    return MatchRun(
        outcome=outcome, records=chained_records(log), log=log, bots=seated, table=table
    )


# -- checking a log against the engine --------------------------------------------------------


def game_record_from_log(records: Sequence[LogRecord]) -> GameRecord:
    """The canonical game record rebuilt from the log alone."""
    header = records[0]
    end = records[-1]
    assert isinstance(header, Header) and isinstance(end, MatchEndRecord)
    game = GameRecord(seed=header.seed)
    for record in records:
        if isinstance(record, DealRecord):
            game.hands.append(
                GameHand(hand=record.hand, dealer=record.dealer, deal=dict(record.hands))
            )
        elif isinstance(record, MoveRecord):
            game.hands[-1].moves.append(
                GameMove(seat=record.seat, action=record.action, forced=record.forced)
            )
        elif isinstance(record, HandEndRecord):
            assert game.hands[-1].hand == record.hand
            game.hands[-1].result = record.result
    game.winner, game.marks, game.end = end.winner, end.marks, end.end
    if end.forfeit is not None:
        game.forfeit = GameForfeit(seat=end.forfeit.seat, reason=end.forfeit.reason)
    return game


@dataclass
class Decision:
    """The engine's state when an ``act`` was logged."""

    seat: Seat
    view: View
    legal_actions: list[Action]
    #: Public events of the match before this decision.
    events_before: int
    #: A copy of the hand at this decision, to ask the engine why an action is illegal.
    hand: Hand


@dataclass
class Replay:
    """The log's moves replayed through the rules engine."""

    #: Every public event the engine produced, in order (what every seat must be told).
    events: list[PublicEvent]
    decisions: dict[int, Decision]
    #: Per hand number: public events before its end.
    events_before_hand_end: dict[int, int]
    match: Match


def replay(records: Sequence[LogRecord]) -> Replay:
    """Replay the log's moves through a fresh ``Match``: the engine's own account of the match.

    Also checks each ``deal`` record against the engine's deal. A ``hand_start`` event counts
    as public once the log shows that hand dealt.
    """
    walk = LogWalk(records)
    match = walk.match
    events: list[PublicEvent] = []
    decisions: dict[int, Decision] = {}
    before_end: dict[int, int] = {}
    # A new deal is public once the log shows it dealt; the first hand is announced too.
    announced: HandStarted | None = walk.first_hand
    fault_reason = ""
    for at in walk:
        record = at.record
        if isinstance(record, DealRecord):
            assert record.hand == match.hand.hand_number
            assert record.dealer == match.hand.dealer
            assert record.hands == match.hand.hands
            if announced is not None:
                assert announced.hand_number == record.hand
                events.append(announced)
                announced = None
        elif isinstance(record, ActRecord):
            assert match.turn == record.seat
            decisions[record.id] = Decision(
                seat=record.seat,
                view=match.view(record.seat),
                legal_actions=match.legal_actions(),
                events_before=len(events),
                hand=match.hand.clone(),
            )
            assert record.legal_actions == decisions[record.id].legal_actions
        elif isinstance(record, FaultRecord):
            fault_reason = record.reason
        elif isinstance(record, MoveRecord):
            if record.forced:  # every seat is told the referee played for this one, and why
                events.append(Forced(seat=record.seat, reason=fault_reason))
            for event in at.play():
                if isinstance(event, HandEnded):
                    before_end[event.review.hand_number] = len(events)
                elif isinstance(event, HandStarted):
                    # Announced only if the match goes on (not at the hand limit, not after
                    # a forfeit while the hand's end was being delivered).
                    announced = event
                elif not isinstance(event, MatchEnded):
                    events.append(event)
    return Replay(
        events=events, decisions=decisions, events_before_hand_end=before_end, match=match
    )
