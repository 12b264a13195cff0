#!/usr/bin/env python3
"""A search bot in 30 lines, with the kit's exact solver: for each play, deal the tiles it
cannot see at random as its information allows, solve each deal exactly, and play the tile
that makes (or, defending, sets) the contract in the most deals. Bids like the random bot
but never above 31; names its longest suit trump. Run it with the referee's Python:
``.venv/bin/python example_bots/search_bot.py``."""

from collections import Counter

from referee.bot import Decision, play_values, run
from referee.rules import Action, Bid, DeclareTrump, Pass, Play

WORLDS = 24  # deals solved per play


def strategy(decision: Decision) -> Action:
    legal = decision.legal_actions
    plays = [action for action in legal if isinstance(action, Play)]
    if len(plays) > 1:
        view = decision.view
        ours = view.contract is not None and view.seat in view.contract.declarers
        votes: Counter[Action] = Counter()
        for _ in range(WORLDS):  # each deal consistent with everything the seat saw
            for play, made in play_values(decision.hand_so_far()).items():
                votes[play] += made == ours  # a make for the declarers, a set for us
        return max(plays, key=lambda play: votes[play])
    if any(isinstance(action, DeclareTrump) for action in legal):
        held = Counter(n for tile in decision.view.hand for n in set(tile))
        wanted = max(range(7), key=lambda n: held[n])
        return next(
            (a for a in legal if isinstance(a, DeclareTrump) and a.trump == wanted), legal[0]
        )
    bids = [action for action in legal if isinstance(action, Bid) and action.points <= 31]
    return decision.rng.choice([*bids, Pass()]) if bids else legal[0]


if __name__ == "__main__":
    run(strategy, name="search")
