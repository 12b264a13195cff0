"""The Python bot kit (``referee.bot``): the loop over in-memory lines, and real matches."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from support.bot_commands import HEURISTIC_BOT, RANDOM_BOT, python
from support.kit import clean_match, first_legal_action

from referee.bot import Decision, HandOver, MatchOver, run
from referee.match.runner import BUNDLED_BOTS
from referee.rules import Action, Bid, Pass, Play, Tile

HELLO = {
    "type": "hello",
    "protocol": 1,
    "seat": "A",
    "partnership": "AC",
    "seed": 13981197600523530638,
    "seed_text": "13981197600523530638",  # a field added later: ignored
    "limits": {"move_timeout_ms": 1000, "startup_timeout_ms": 10000, "time_bank_ms": 0},
}
VIEW = {
    "seat": "A",
    "hand_number": 1,
    "dealer": "D",
    "marks": {"AC": 0, "BD": 0},
    "phase": "bidding",
    "turn": "A",
    "hand": [[1, 1], [3, 6], [2, 6], [3, 3], [6, 6], [0, 1], [4, 4]],
    "hand_sizes": {"A": 7, "B": 7, "C": 7, "D": 7},
    "bids": [],
    "contract": None,
    "trick": [],
    "piles": [],
}
BIDDING = [{"type": "pass"}, {"type": "bid", "points": 30}, {"type": "bid", "points": 31}]


def act(act_id: int, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "type": "act",
        "id": act_id,
        "events": [],
        "view": VIEW,
        "legal_actions": BIDDING,
        "time_ms": 999,
    }
    message.update(extra)
    return message


def play(strategy: Any, messages: list[Any], **hooks: Any) -> tuple[list[dict[str, Any]], str]:
    """Run the loop over these messages (dicts, or raw strings); return (answers, stderr)."""
    lines = [m if isinstance(m, str) else json.dumps(m) + "\n" for m in messages]
    out, err = io.StringIO(), io.StringIO()
    run(strategy, name="test", stdin=iter(lines), stdout=out, stderr=err, **hooks)
    return [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def test_hello_is_answered_with_ready_and_acts_with_their_id() -> None:
    answers, err = play(lambda d: Bid(31), [HELLO, act(4)])
    assert answers == [
        {"type": "ready", "name": "test", "matches": "many"},
        {"type": "action", "id": 4, "action": {"type": "bid", "points": 31}},
    ]
    assert err == ""


def test_a_decision_is_typed() -> None:
    seen: list[Decision] = []

    def strategy(decision: Decision) -> Action:
        seen.append(decision)
        return Pass()

    events = [
        {"type": "acted", "seat": "D", "action": {"type": "pass"}},
        {"type": "forced", "seat": "D", "reason": "timeout"},
        {"type": "added_later", "seat": "D"},  # an event type this kit does not know
        {"type": "acted", "seat": "B", "action": {"type": "bid", "points": 30}, "new": 1},
    ]
    play(strategy, [HELLO, act(2, events=events)])
    (decision,) = seen
    assert decision.id == 2 and decision.seat == "A" and decision.time_ms == 999
    assert decision.view.hand[0] == Tile(1, 1) and decision.view.dealer == "D"
    assert decision.legal_actions == [Pass(), Bid(30), Bid(31)]
    # A forced move is told in order, just before the action played for the seat.
    assert [type(e).__name__ for e in decision.events] == ["Acted", "Forced", "Acted"]
    assert decision.other_events == [events[2]]
    assert decision.hello is not None and decision.hello.seed == HELLO["seed"]
    assert 0 < decision.time_left() <= 0.999


def test_unknown_fields_messages_and_lines_are_ignored() -> None:
    view = {**VIEW, "new_view_field": [1, 2], "bids": [], "contract": None}
    messages = [
        {**HELLO, "something_new": {"x": 1}},
        {"type": "news", "text": "a message type added later"},
        "not json\n",
        "[1, 2]\n",
        act(7, view=view, extra_field=True),
    ]
    answers, _ = play(first_legal_action, messages)
    assert answers[-1] == {"type": "action", "id": 7, "action": {"type": "pass"}}


def test_legal_actions_are_echoed_verbatim() -> None:
    legal = [{"type": "pass", "future": 1}, {"type": "bid", "points": 30}]
    answers, _ = play(first_legal_action, [HELLO, act(3, legal_actions=legal)])
    assert answers[-1]["action"] == {"type": "pass", "future": 1}


def test_a_crashing_strategy_answers_the_first_legal_action() -> None:
    def strategy(decision: Decision) -> Action:
        raise RuntimeError("boom")

    answers, err = play(strategy, [HELLO, act(1), act(2)])
    assert [a.get("action") for a in answers[1:]] == [{"type": "pass"}] * 2
    assert "RuntimeError: boom" in err and "Traceback" in err


def test_an_illegal_choice_is_replaced_with_a_clear_line() -> None:
    answers, err = play(lambda d: Play(Tile(0, 0)), [HELLO, act(5)])
    assert answers[-1] == {"type": "action", "id": 5, "action": {"type": "pass"}}
    assert "not one of the legal actions" in err and "act 5" in err


def test_rejected_is_logged_and_reaches_the_next_decision() -> None:
    rejections = []

    def strategy(decision: Decision) -> Action:
        rejections.append(decision.rejection)
        return Pass()

    rejected = {"type": "rejected", "id": 1, "reason": "illegal_action", "detail": "no (x)"}
    answers, err = play(strategy, [HELLO, act(1), rejected, act(2), act(3)])
    assert [a["id"] for a in answers[1:]] == [1, 2, 3]
    assert rejections[0] is None and rejections[2] is None
    assert rejections[1] is not None and rejections[1].reason == "illegal_action"
    assert "rejected: illegal_action: no (x)" in err


def test_hooks_get_typed_hand_and_match_ends_and_the_loop_stops() -> None:
    got: list[object] = []
    review = {
        "hand_number": 1,
        "dealer": "D",
        "moves": [{"seat": s, "action": {"type": "pass"}} for s in "ABCD"],
        "result": {
            "outcome": "passed",
            "winner": None,
            "marks": 0,
            "points": {"AC": 0, "BD": 0},
            "tricks": 0,
            "reason": "all four passed",
            "contract": None,
        },
    }
    hand_end = {"type": "hand_end", "events": [], "review": review, "marks": {"AC": 0, "BD": 0}}
    match_end = {
        "type": "match_end",
        "events": [],
        "winner": "AC",
        "marks": {"AC": 7, "BD": 0},
        "reason": "marks",
        "detail": "A+C reached 7 marks",
        "later": "ignored",
    }
    answers, _ = play(
        first_legal_action,
        [HELLO, hand_end, match_end, act(9)],  # nothing is read after match_end
        on_hand_end=got.append,
        on_match_end=got.append,
        matches="one",
    )
    assert len(answers) == 1
    assert isinstance(got[0], HandOver) and got[0].review.result.outcome == "passed"
    assert isinstance(got[1], MatchOver) and got[1].winner == "AC"


def test_a_failing_hook_is_logged() -> None:
    def hook(over: HandOver) -> None:
        raise ValueError("hook broke")

    match_end = {"type": "match_end", "events": [], "winner": None, "marks": {"AC": 0, "BD": 0}}
    _, err = play(first_legal_action, [HELLO, match_end], on_match_end=hook)
    assert "hook broke" in err


def test_eof_ends_the_loop() -> None:
    answers, _ = play(first_legal_action, [HELLO])
    assert answers == [{"type": "ready", "name": "test", "matches": "many"}]


def test_a_malformed_act_still_gets_an_answer() -> None:
    answers, err = play(first_legal_action, [HELLO, act(6, view={"seat": "Z"})])
    assert answers[-1] == {"type": "action", "id": 6, "action": {"type": "pass"}}
    assert "could not handle" in err


def test_the_same_seed_gives_the_same_random_choices() -> None:
    def strategy(decision: Decision) -> Action:
        return decision.rng.choice(decision.legal_actions)

    first_run, _ = play(strategy, [HELLO, *(act(i) for i in range(1, 20))])
    second_run, _ = play(strategy, [HELLO, *(act(i) for i in range(1, 20))])
    assert first_run == second_run


# -- real matches through the referee --------------------------------------------------------

KIT_RANDOM = python(BUNDLED_BOTS / "kit_random_bot.py")


async def test_the_kit_random_bot_plays_clean_reproducible_matches(tmp_path: Path) -> None:
    first = await clean_match(tmp_path, KIT_RANDOM, RANDOM_BOT, 21, quiet=True)
    second = await clean_match(tmp_path, KIT_RANDOM, RANDOM_BOT, 21, quiet=True)
    assert first == second


@pytest.mark.parametrize("seed", [4, 5])
async def test_the_kit_heuristic_bot_beats_the_kit_random_bot(tmp_path: Path, seed: int) -> None:
    winner, _ = await clean_match(tmp_path, HEURISTIC_BOT, KIT_RANDOM, seed, quiet=True)
    assert winner == "AC"
