"""Positions and the strong bot for its tests: real hands from the engine, and
``example_bots/strong_bot.py`` loaded as a module."""

from __future__ import annotations

import random
from types import ModuleType

from referee.bot import Seen
from referee.env.policies import bundled_program
from referee.rules import Bid, DeclareTrump, Hand, Pass
from referee.rules.deal import deal
from referee.rules.tiles import SEATS
from referee.solver.search import INDEX, Position, mask


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


def position_of(hand: Hand) -> Position:
    """The engine's hand as the search sees it (points and tricks the declarers' first)."""
    assert hand.turn is not None and hand.contract is not None
    sides = ("AC", "BD") if hand.contract.declarers == "AC" else ("BD", "AC")
    return Position(
        hands=(
            mask(hand.hands["A"]),
            mask(hand.hands["B"]),
            mask(hand.hands["C"]),
            mask(hand.hands["D"]),
        ),
        turn=SEATS.index(hand.turn),
        trick=tuple((SEATS.index(p.seat), INDEX[p.tile]) for p in hand.trick),
        points=(hand.points[sides[0]], hand.points[sides[1]]),
        tricks=(hand.tricks_won[sides[0]], hand.tricks_won[sides[1]]),
    )


def worlds_of(hand: Hand, count: int, seed: int) -> list[tuple[Position, float]]:
    """``count`` deals of the hidden tiles as the seat to play may see them, each weight 1."""
    seat = hand.turn
    assert seat is not None
    view = hand.view(seat)
    seen = Seen(view, hand.moves)
    rng = random.Random(seed)
    real = position_of(hand)
    worlds = []
    for _ in range(count):
        hidden = {**seen.sample(rng), seat: list(view.hand)}
        hands = (mask(hidden["A"]), mask(hidden["B"]), mask(hidden["C"]), mask(hidden["D"]))
        worlds.append((Position(hands, real.turn, real.trick, real.points), 1.0))
    return worlds
