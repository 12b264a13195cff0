"""The kit across matches: it says ``many`` (or ``one`` when asked), reads on after
``match_end`` until EOF, and each ``hello`` starts a match that knows nothing of the last."""

from __future__ import annotations

import io
import json
from typing import Any

from support.kit import first_legal_action, message_line

from referee.bot import Bot, Decision, run
from referee.rules import Action, HandStarted, Match, Seat
from referee.rules.views import Move


def hello(seat: Seat, seed: int) -> str:
    partnership = "AC" if seat in "AC" else "BD"
    return message_line(
        {
            "type": "hello",
            "protocol": 1,
            "seat": seat,
            "partnership": partnership,
            "seed": seed,
            "limits": {},
        }
    )


def match_end(reason: str = "marks") -> str:
    marks = {"AC": 7, "BD": 2}
    return message_line(
        {
            "type": "match_end",
            "events": [],
            "winner": "AC",
            "marks": marks,
            "reason": reason,
            "detail": "",
        }
    )


def opening(seed: int, moves: int, *, announced: bool) -> tuple[Seat, str, list[Move]]:
    """The first ``moves`` actions of match ``seed``'s first hand (the first legal one each):
    the seat to act next, its ``act`` (id 1), and those moves. Without ``announced``, the
    act's events lack the hand's ``hand_start``."""
    match = Match(seed)
    events: list[Any] = [HandStarted(hand_number=1, dealer=match.hand.dealer)] if announced else []
    played: list[Move] = []
    for _ in range(moves):
        seat = match.turn
        assert seat is not None
        action = match.legal_actions()[0]
        played.append(Move(seat, action))
        events += match.apply(seat, action)
    seat = match.turn
    assert seat is not None
    act = {
        "type": "act",
        "id": 1,
        "events": events,
        "view": match.view(seat),
        "legal_actions": match.legal_actions(),
        "time_ms": 1000,
    }
    return seat, message_line(act), played


def recording(decisions: list[Decision]) -> Any:
    def strategy(decision: Decision) -> Action:
        decisions.append(decision)
        _ = decision.seen  # built now, from what the kit holds now
        return decision.rng.choice(decision.legal_actions)

    return strategy


def test_ready_says_many_by_default_and_one_when_asked() -> None:
    out = io.StringIO()
    run(first_legal_action, name="t", stdin=[hello("A", 1)], stdout=out)
    assert json.loads(out.getvalue()) == {"type": "ready", "name": "t", "matches": "many"}
    answer = Bot(first_legal_action, "t", matches="one").handle(hello("A", 1))
    assert answer is not None
    assert json.loads(answer) == {"type": "ready", "name": "t", "matches": "one"}


def test_a_many_bot_reads_on_after_match_end_and_returns_at_eof() -> None:
    seat_1, act_1, _ = opening(1, 2, announced=True)
    seat_2, act_2, _ = opening(2, 1, announced=True)
    lines = [hello(seat_1, 5), act_1, match_end(), hello(seat_2, 6), act_2, match_end()]
    out = io.StringIO()
    run(first_legal_action, stdin=iter(lines), stdout=out)
    answers = [json.loads(line)["type"] for line in out.getvalue().splitlines()]
    assert answers == ["ready", "action", "ready", "action"]


def test_a_one_bot_stops_at_match_end() -> None:
    seat, act, _ = opening(1, 2, announced=True)
    out = io.StringIO()
    lines = [hello(seat, 5), match_end(), hello(seat, 6), act]  # nothing read after match_end
    run(first_legal_action, matches="one", stdin=iter(lines), stdout=out)
    assert [json.loads(line)["type"] for line in out.getvalue().splitlines()] == ["ready"]


def test_nothing_of_the_earlier_match_is_seen_after_the_next_hello() -> None:
    seat_1, act_1, _ = opening(3, 2, announced=True)
    # The next match's first act does not announce its hand: hand 1 again, as the last one
    # was, so only the kit's reset at hello keeps the old match's bids out of what it saw.
    seat_2, act_2, moves_2 = opening(4, 1, announced=False)
    assert seat_2 != seat_1
    rejected = message_line(
        {"type": "rejected", "id": 1, "reason": "illegal_action", "detail": "x"}
    )
    decisions: list[Decision] = []
    bot = Bot(recording(decisions), log=io.StringIO())
    for line in (hello(seat_1, 7), act_1, rejected, match_end("forfeit")):
        bot.handle(line)
    assert bot.rejection is not None and bot.history.moves
    assert bot.handle(hello(seat_2, 8)) is not None
    assert bot.rejection is None and bot.history.moves == [] and bot.history.hand_number is None
    answer = bot.handle(act_2)
    later = decisions[-1]
    assert later.hello is not None and (later.hello.seat, later.hello.seed) == (seat_2, 8)
    assert later.rejection is None
    assert list(later.seen.moves) == moves_2 and later.seen.seat == seat_2
    # Everything as a fresh bot that only ever saw the second match.
    fresh_decisions: list[Decision] = []
    fresh = Bot(recording(fresh_decisions), log=io.StringIO())
    fresh.handle(hello(seat_2, 8))
    assert fresh.handle(act_2) == answer
    assert fresh_decisions[0].seen.moves == later.seen.moves
    assert fresh.rng.getstate() == bot.rng.getstate()
    assert "Traceback" not in bot.log.getvalue()  # type: ignore[union-attr]
