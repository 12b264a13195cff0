"""Positions and the strong bot for its tests: real hands from the engine, and
``example_bots/strong_bot.py`` loaded as a module."""

from __future__ import annotations

from types import ModuleType

from referee.env.policies import bundled_program
from referee.rules import Bid, DeclareTrump, Hand, Pass
from referee.rules.deal import deal


def first_lead(seed: int) -> Hand:
    """A hand where the first bidder bid 30 with fives as trump, at the opening lead."""
    hand = Hand("D", deal(seed, 1, "D"))
    hand.apply("A", Bid(points=30))
    for seat in ("B", "C", "D"):
        hand.apply(seat, Pass())
    hand.apply("A", DeclareTrump(trump=5))
    return hand


def mid_hand(seed: int, tricks: int) -> Hand:
    """``first_lead`` played on with each seat's first legal tile for ``tricks`` tricks (the
    first deal from ``seed`` on that is still open then)."""
    while True:
        hand = first_lead(seed)
        while not hand.is_over and len(hand.piles) < tricks:
            seat = hand.turn
            assert seat is not None
            hand.apply(seat, hand.legal_actions()[0])
        if not hand.is_over:
            return hand
        seed += 1


def strong_bot() -> ModuleType:
    """``example_bots/strong_bot.py`` as a module, loaded as the arena loads it."""
    return bundled_program("strong")
