"""How many hands per second the rules engine plays through its public API.

Random legal actions drive ``Match`` exactly as the referee does — ``turn``,
``legal_actions``, ``apply`` — so bidding, trump, play and early ends are all exercised,
and every dealt hand counts, all-pass redeals included. Views are not built: the
referee builds one per decision, and ``--views`` adds that cost.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass

from referee.rules import Match

#: What the engine aims for on one core of a 2-core machine.
TARGET_HANDS_PER_SECOND = 25_000


@dataclass(frozen=True)
class EngineBench:
    hands: int
    matches: int
    actions: int
    seconds: float

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds

    @property
    def microseconds_per_action(self) -> float:
        return self.seconds / self.actions * 1e6


def run(hands: int, seed: int, *, views: bool = False) -> EngineBench:
    """Play random matches from consecutive seeds until ``hands`` hands have been dealt."""
    rng = random.Random(seed)
    draw = rng.random  # an index from a float: cheaper than rng.choice, as uniform
    played = actions = matches = 0
    start = time.perf_counter()
    while played < hands:
        match = Match(seed + matches)
        matches += 1
        while match.winner is None and played < hands:
            seat = match.turn
            assert seat is not None
            if views:
                match.view(seat)
            hand = match.hand
            legal = match.legal_actions()
            match.apply(seat, legal[int(draw() * len(legal))])
            actions += 1
            if hand is not match.hand or match.winner is not None:
                played += 1
    return EngineBench(played, matches, actions, time.perf_counter() - start)


def lines(hands: int, seed: int, *, views: bool = False) -> Iterator[str]:
    """Run the benchmark; its lines for people, the figure last."""
    result = run(hands, seed, views=views)
    yield (
        f"played {result.hands} hands ({result.matches} matches, {result.actions} actions)"
        f" in {result.seconds:.2f} s on one core"
    )
    yield f"{result.microseconds_per_action:.2f} µs per action (legal actions + apply)"
    yield (
        f"target: {TARGET_HANDS_PER_SECOND:,} hands/s;"
        f" {result.hands_per_second / TARGET_HANDS_PER_SECOND:.0%} of it"
    )
    yield f"engine: {result.hands_per_second:.0f} hands/s"
