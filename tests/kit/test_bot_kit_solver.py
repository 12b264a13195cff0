"""The kit's exact search, for a Python author's own search bot: ``play_values`` and ``makes``
on an engine ``Hand`` with every tile known (a deal from ``hand_so_far``), answered in the
engine's own actions; the example search bot passes check-bot."""

from __future__ import annotations

import random

import pytest
from support.bot_commands import python

from referee.bot import SOLVER_CORE, makes, play_values
from referee.checkbot import check_bot
from referee.errors import RulesError
from referee.match.runner import BUNDLED_BOTS
from referee.rules import Bid, DeclareTrump, Hand, Pass, Play
from referee.rules.deal import deal


def _contract(seed: int, trump: int = 6, points: int = 30) -> Hand:
    hand = Hand("D", deal(seed, 1, "D"))
    hand.apply("A", Bid(points=points))
    for seat in ("B", "C", "D"):
        hand.apply(seat, Pass())
    hand.apply("A", DeclareTrump(trump=trump))
    return hand


def _naive(hand: Hand) -> bool:
    """Does A+C make it? Every line of play through the engine (late in a hand only)."""
    if hand.is_over:
        assert hand.result is not None
        return hand.result.winner == "AC"
    seat = hand.turn
    assert seat is not None
    results = []
    for action in hand.legal_actions():
        copy = hand.clone()
        copy.apply(seat, action)
        results.append(_naive(copy))
    return any(results) if seat in "AC" else all(results)


def test_each_legal_play_gets_the_engines_own_answer() -> None:
    for seed in range(40):
        hand = _contract(seed)
        rng = random.Random(seed)
        while not hand.is_over and len(hand.piles) < 5:
            assert hand.turn is not None
            hand.apply(hand.turn, rng.choice(hand.legal_actions()))
        if hand.is_over:
            continue
        assert hand.turn is not None
        values = play_values(hand)
        assert set(values) == {a for a in hand.legal_actions() if isinstance(a, Play)}
        for play, made in values.items():
            copy = hand.clone()
            copy.apply(hand.turn, play)
            assert made == _naive(copy)
        assert makes(hand) == _naive(hand)


def test_a_hand_still_in_its_bidding_has_nothing_to_search() -> None:
    with pytest.raises(RulesError, match="not in its play"):
        play_values(Hand("D", deal(1, 1, "D")))


def test_the_core_in_use_is_named() -> None:
    assert SOLVER_CORE in ("c", "python")


def test_the_example_search_bot_passes_every_check() -> None:
    report = check_bot(python(BUNDLED_BOTS / "search_bot.py"), match=False)
    assert report.ok, [check.detail for check in report.checks if check.status != "passed"]
