"""What ``referee ask`` sends a bot is what the table sent its seat, byte for byte.

Each match is played by the real table over in-memory fake bots that keep every byte they
read; the seat's transcript rebuilt from the log must be those bytes — every decision of every
seat, up to each act (``time_ms`` aside: it is the clock's) — through rejections, forced moves,
faults under ``--on-fault random``, all-tricks hands, early ends, start-up refusals, and the
hand limit. Hypothesis then draws bots that misbehave at random.
"""

from __future__ import annotations

import io
import random
from typing import Any

import msgspec
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.fakes import (
    CLOSE,
    CLOSE_INPUT,
    FakeBot,
    MatchRun,
    Reply,
    Sleep,
    answer,
    chained_records,
    illegal_action,
    play_match,
    random_policy,
    ready,
)
from support.fakes import settings as match_settings
from support.faulty_matches import FAULTY
from support.tables import random_match
from support.told import normal, sent

from referee.ask.transcript import transcript
from referee.match.connection import BotConnection
from referee.match.table import Table
from referee.record.log import LogWriter
from referee.record.records import ActRecord, MoveRecord, RejectedRecord
from referee.rules import SEATS, AllTricksBid, Seat
from referee.wire.messages import Act

#: Lines a seat may be sent after its last decision: they need no answer.
_TRAILING = (b'{"type":"hand_end"', b'{"type":"match_end"', b'{"type":"rejected"')


def check_told(run: MatchRun) -> int:
    """Every seat's transcript against what its bot read; the acts compared."""
    compared = 0
    for seat, bot in run.bots.items():
        told = transcript(run.records, seat)
        assert [q.act_id for q in told.questions if q.decision] == [
            r.id for r in run.of(ActRecord) if r.seat == seat
        ]
        received = normal(bytes(bot.received))
        position = 0
        for line in received.splitlines(keepends=True):
            position += len(line)
            if line.startswith(b'{"type":"act"'):
                act = msgspec.json.decode(line, type=Act)
                assert sent(told.through(act.id)) == received[:position], (seat, act.id)
                compared += 1
        rebuilt = sent(told.questions)
        if not received.startswith(rebuilt):
            # Only a bot that went away misses its last act (the table logs it all the same).
            last = told.questions[-1]
            assert last.decision is not None and bot.output_closed | bot.input_closed
            assert received.startswith(sent(told.questions[:-1]))
            rebuilt = sent(told.questions[:-1])
        rest = received[len(rebuilt) :]
        assert all(line.startswith(_TRAILING) for line in rest.splitlines()), rest[:200]
    return compared


async def test_random_matches_are_told_again_exactly(autojump_clock: trio.abc.Clock) -> None:
    compared = 0
    all_tricks = False
    for seed in range(1, 7):
        run = await random_match(seed)
        compared += check_told(run)
        all_tricks |= any(type(m.action) is AllTricksBid for m in run.of(MoveRecord))
    assert all_tricks  # an all-tricks hand is among them: its piles and its early end
    assert compared > 400


async def test_a_fresh_process_after_a_restart_is_told_its_own_start(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A kept bot that refuses to start its next match (junk, then silence) is replaced; the
    fresh process's start (a junk line refused, then ready) is the seat's transcript."""
    kept = FakeBot(hello=lambda hello: [b"junk\n"])
    fresh = FakeBot(hello=lambda hello: [b"more junk\n", ready("fresh")])
    bots = {"A": kept, **{seat: FakeBot() for seat in SEATS[1:]}}
    buffer = io.BytesIO()
    connections = {seat: bot.connection(seat, 1 << 20) for seat, bot in bots.items()}
    async with trio.open_nursery() as nursery:

        async def restart(seat: Seat) -> BotConnection:
            nursery.start_soon(fresh.run)
            return fresh.connection(seat, 1 << 20)

        for bot in bots.values():
            nursery.start_soon(bot.run)
        table = Table(
            match_settings(seed=6, startup_timeout=2.0),
            connections,
            LogWriter(buffer),
            {seat: "bot" for seat in SEATS},
            previous_matches={"A": 2},
            restart=restart,
        )
        outcome = await table.play()
        for bot in [*bots.values(), fresh]:
            await bot.close_referee_side()
        nursery.cancel_scope.cancel()
    assert outcome.end == "marks"
    records = chained_records(buffer.getvalue())
    rejected = [r for r in records if isinstance(r, RejectedRecord)]
    assert [(r.seat, r.id) for r in rejected] == [("A", 0), ("A", 0)]  # one each
    told = transcript(records, "A")
    assert [type(q.message).__name__ for q in told.questions[:3]] == ["Hello", "Rejected", "Act"]
    assert normal(bytes(fresh.received)).startswith(sent(told.questions))
    assert not normal(bytes(kept.received)).startswith(sent(told.questions[:2]))


@pytest.mark.parametrize("case", list(FAULTY))
async def test_matches_with_faults_are_told_again_exactly(
    case: str, autojump_clock: trio.abc.Clock
) -> None:
    bots, match, _, _ = FAULTY[case]()
    run = await play_match(bots, match)
    check_told(run)


# -- bots that misbehave at random ----------------------------------------------------------


def wayward(seed: int, faults: float) -> Any:
    """A random bot that now and then answers illegally, with junk, a stale or a wrong id,
    late, not at all, or goes away."""
    rng = random.Random(seed)
    base = random_policy(seed)

    def policy(act: Act) -> Reply:
        right = base(act)
        assert isinstance(right, bytes)
        if rng.random() >= faults:
            return right
        kind = rng.choice(["illegal", "junk", "stale", "wrong", "late", "silent", "exit", "deaf"])
        if kind == "illegal":
            return [answer(act.id, illegal_action(act)), right]
        if kind == "junk":
            return [b"thinking...\n", right]
        if kind == "stale":
            return [answer(act.id - 1, act.legal_actions[0]), right]
        if kind == "wrong":
            return [answer(act.id + 7, act.legal_actions[0]), right]
        if kind == "late":
            return [Sleep(rng.choice([0.5, 1.5, 3.0])), right]
        if kind == "silent":
            return None
        return [CLOSE] if kind == "exit" else [CLOSE_INPUT]

    return policy


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**64 - 1),
    faults=st.sampled_from([0.0, 0.05, 0.2]),
    on_fault=st.sampled_from(["forfeit", "random"]),
    max_rejections=st.integers(1, 3),
    max_hands=st.integers(1, 6),
    time_bank=st.sampled_from([0.0, 1.0]),
)
def test_misbehaving_bots_are_told_again_exactly(
    seed: int, faults: float, on_fault: str, max_rejections: int, max_hands: int, time_bank: float
) -> None:
    match = match_settings(
        seed=seed,
        on_fault=on_fault,
        max_rejections=max_rejections,
        max_hands=max_hands,
        max_strikes=4,
        time_bank=time_bank,
    )
    bots = [FakeBot(wayward(seed + i, faults)) for i in range(len(SEATS))]

    async def play() -> MatchRun:
        return await play_match(bots, match)

    run = trio.run(play, clock=trio.testing.MockClock(autojump_threshold=0))
    check_told(run)
