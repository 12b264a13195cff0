"""Bids and trump from the fitted feature model alone (``bidding``): what the strong bot did
before it bid by simulation, and what it does still when no deal can be solved in time (no
compiled solver, or too little time). ``strong_bot.py --bidding model`` bids this way
throughout, as the baseline the simulation is measured against.

It bids the lowest bid it may when the model's chance is at least even, never over its
partner, all tricks (the fewest marks) only when that chance is high; trump is the one the
model gives the best chance of making the contract; ``piles`` 1.
"""

from __future__ import annotations

from typing import Final

from referee.rules.actions import Action, AllTricksBid, Bid, DeclareTrump, Pass, Trump
from referee.rules.tiles import PARTNER_OF
from referee.rules.views import View
from referee.strong.bidding import CANDIDATE_TRUMPS, BiddingModel

#: The chance of making a point bid it needs to bid, and an all-tricks bid.
BID_CHANCE: Final = 0.5
ALL_TRICKS_CHANCE: Final = 0.85


def best_chance(model: BiddingModel, view: View, bid: int) -> tuple[float, Trump]:
    """The best chance of making ``bid`` over the trumps, and that trump."""
    return max((model.chance(view.hand, trump, bid), trump) for trump in CANDIDATE_TRUMPS)


def model_bid(model: BiddingModel, view: View, legal: list[Action]) -> Action:
    passing = next(a for a in legal if isinstance(a, Pass))
    high = None
    for move in view.bids:
        if not isinstance(move.action, Pass):
            high = move.seat
    if high == PARTNER_OF[view.seat]:
        return passing  # never over the partner
    all_tricks = [a for a in legal if isinstance(a, AllTricksBid)]
    if all_tricks and best_chance(model, view, 42)[0] >= ALL_TRICKS_CHANCE:
        return min(all_tricks, key=lambda a: a.marks)
    points = [a for a in legal if isinstance(a, Bid)]
    if points:
        lowest = min(points, key=lambda a: a.points)
        if best_chance(model, view, lowest.points)[0] >= BID_CHANCE:
            return lowest
    return passing


def model_trump(model: BiddingModel, view: View, legal: list[Action]) -> Action:
    contract_bid = next(
        (m.action for m in reversed(view.bids) if not isinstance(m.action, Pass)), None
    )
    points = contract_bid.points if isinstance(contract_bid, Bid) else 42
    _, trump = best_chance(model, view, points)
    for action in legal:
        if isinstance(action, DeclareTrump) and action.trump == trump and action.piles in (None, 1):
            return action
    return legal[0]
