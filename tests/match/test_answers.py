"""Which answer is acceptable now (``referee.wire.answers``), and the states an exchange with a
bot goes through (``referee.match.exchange``)."""

from __future__ import annotations

import io
import json

import pytest
import trio
from support.fakes import FakeBot, answer, line, ready

from referee.errors import BadMessage, BotTimeout
from referee.match.exchange import Decision, Greeting, State
from referee.match.seat import SeatState
from referee.record.log import LogWriter
from referee.rules import Match, Pass
from referee.wire.answers import (
    Awaited,
    Verdict,
    awaiting_action,
    awaiting_ready,
    ignored,
    judge,
    refusal,
)
from referee.wire.messages import PROTOCOL_VERSION, ActionAnswer, Hello, Limits, Ready

READY = Ready(name="bot")


def kinds(buffer: io.BytesIO) -> list[str]:
    """The types of the records written (a bare exchange writes no header)."""
    return [json.loads(text)["type"] for text in buffer.getvalue().splitlines()]


def action(act_id: int) -> ActionAnswer:
    return ActionAnswer(id=act_id, action=Pass())


@pytest.mark.parametrize(
    ("awaited", "message", "verdict"),
    [
        (awaiting_ready(), READY, "answer"),
        (awaiting_ready(), action(1), "wrong_type"),
        (awaiting_ready(kept=True), READY, "answer"),
        (awaiting_ready(kept=True), action(7), "stale"),
        (awaiting_action(5), action(5), "answer"),
        (awaiting_action(5), action(4), "stale"),
        (awaiting_action(5), action(6), "wrong_id"),
        (awaiting_action(5), READY, "wrong_type"),
    ],
)
def test_judge(awaited: Awaited, message: Ready | ActionAnswer, verdict: Verdict) -> None:
    assert judge(awaited, message) == verdict


def test_the_referee_ignores_stale_and_wrong_ids_only() -> None:
    verdicts: list[Verdict] = ["answer", "stale", "wrong_id", "wrong_type"]
    assert [verdict for verdict in verdicts if ignored(verdict)] == ["stale", "wrong_id"]


def test_a_refusal_names_what_was_awaited_and_what_came() -> None:
    refused = refusal(awaiting_action(3), READY)
    assert isinstance(refused, BadMessage)
    assert str(refused) == "expected a 'action' message, got 'ready'"
    assert str(refusal(awaiting_ready(), action(1))) == "expected a 'ready' message, got 'action'"


# -- the states of an exchange -----------------------------------------------------------------


def _seat(bot: FakeBot, previous_matches: int = 0) -> SeatState:
    return SeatState("A", bot.connection("A", 1 << 20), bank=0.0, previous_matches=previous_matches)


def _hello() -> Hello:
    limits = Limits(
        move_timeout_ms=1000,
        startup_timeout_ms=1000,
        time_bank_ms=0,
        max_rejections=3,
        on_fault="forfeit",
        max_strikes=3,
        max_line_bytes=1 << 20,
    )
    return Hello(
        protocol=PROTOCOL_VERSION, seat="A", partnership="AC", seed=1, limits=limits, seed_text="1"
    )


async def test_a_greeting_is_done_at_ready_after_a_refused_line_and_a_stale_answer(
    autojump_clock: trio.abc.Clock,
) -> None:
    bot = FakeBot(hello=lambda _: [b"junk\n", answer(9, Pass()), ready("kept")])
    buffer = io.BytesIO()
    log = LogWriter(buffer)
    greeting = Greeting(_seat(bot, previous_matches=1), log, 3, _hello())
    assert greeting.state is State.NEW
    async with trio.open_nursery() as nursery:
        nursery.start_soon(bot.run)
        got = await greeting.run(trio.current_time() + 1.0)
        nursery.cancel_scope.cancel()
    assert got.name == "kept"
    assert greeting.state is State.DONE
    assert greeting.refused == 1
    log.flush()
    assert kinds(buffer) == ["rejected", "ignored"]


async def test_a_decision_asked_again_after_a_refusal_then_failed_by_the_clock(
    autojump_clock: trio.abc.Clock,
) -> None:
    bot = FakeBot(lambda act: line({"type": "action"}) if act.id == 1 else None)
    match = Match(1)
    turn = match.turn
    assert turn is not None
    buffer = io.BytesIO()
    seat = SeatState(turn, bot.connection(turn, 1 << 20), bank=0.0)
    deadline = trio.current_time() + 1.0
    decision = Decision(seat, LogWriter(buffer), 3, match, match.legal_actions(), deadline, 0)
    assert (decision.state, decision.act_id) == (State.NEW, None)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(bot.run)
        with pytest.raises(BotTimeout):
            await decision.run()
        nursery.cancel_scope.cancel()
    assert decision.state is State.FAILED
    assert (decision.refused, decision.act_id, decision.last_id) == (1, 2, 2)
    assert kinds(buffer) == ["act", "rejected", "act"]
