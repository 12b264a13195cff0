"""Choosing a tile from sampled worlds: reproducible for a seed, within its budget, and
never worse informed than its fallback (real hands from the engine)."""

from __future__ import annotations

import functools
import operator
import random
import time

import pytest
from support.strong import first_lead, mid_hand

from referee.bot import Seen
from referee.rules import Hand, Play
from referee.solver.search import mask
from referee.strong.beliefs import Auction
from referee.strong.play import (
    BASELINE_NODES,
    BASELINE_WORLD_COST,
    MAX_WORLDS,
    WORLD_COST,
    Choice,
    choose_tile,
)


def choose(hand: Hand, rng: random.Random, budget: float, **limits: int | bool) -> Choice:
    """The tile ``choose_tile`` picks for the seat to play, with its own limits unless
    ``limits`` (``max_nodes``, ``max_worlds``) says otherwise."""
    seat = hand.turn
    assert seat is not None
    view = hand.view(seat)
    legal = [action.tile for action in hand.legal_actions() if isinstance(action, Play)]
    seen = Seen(view, hand.moves)
    return choose_tile(view, seen, legal, legal[0], rng, budget, **limits)


def test_the_same_seed_chooses_the_same_tile_from_the_same_worlds() -> None:
    hand = mid_hand(3, tricks=3)
    one = choose(hand, random.Random(7), budget=30.0, max_worlds=20)
    two = choose(hand, random.Random(7), budget=30.0, max_worlds=20)
    assert one == two and one.worlds == 20
    other = choose(hand, random.Random(8), budget=30.0, max_worlds=20)
    assert other.worlds == 20  # other worlds, perhaps another choice


def test_a_decision_never_overruns_its_budget() -> None:
    for seed in range(4):
        hand = first_lead(seed)  # the slowest position to solve
        started = time.perf_counter()
        choice = choose(hand, random.Random(seed), budget=0.05)
        assert time.perf_counter() - started < 0.05 + 0.02
        assert choice.tile in hand.hands["A"]


def test_a_forced_tile_needs_no_world() -> None:
    hand = mid_hand(4, tricks=6)  # one tile each is left
    choice = choose(hand, random.Random(1), budget=1.0)
    assert choice.worlds == 0 and choice.tile in hand.hands[hand.turn]  # type: ignore[index]


def test_the_node_budget_makes_the_choice_the_same_on_any_machine() -> None:
    """Worlds are solved until a count of positions, not a time: the same worlds each run.
    (The baseline's count, so that the count and not the cap on worlds ends it on either
    search core.)"""
    hand = mid_hand(5, tricks=2)
    limits = {"max_nodes": BASELINE_NODES, "world_cost": BASELINE_WORLD_COST}
    one = choose(hand, random.Random(11), budget=30.0, **limits)
    two = choose(hand, random.Random(11), budget=30.0, **limits)
    assert one == two and 1 < one.worlds < MAX_WORLDS and not one.clock_stopped


def test_cheap_late_worlds_stop_at_the_cap_and_each_costs_its_dealing() -> None:
    """Late in a hand a world takes few positions: the cap on worlds ends the decision, and
    with a small count each world's dealing charge is what runs it out."""
    hand = mid_hand(2, tricks=5)
    capped = choose(hand, random.Random(3), budget=30.0)
    assert capped.worlds == MAX_WORLDS and not capped.clock_stopped
    counted = choose(hand, random.Random(3), budget=30.0, max_nodes=20 * WORLD_COST)
    assert counted.worlds <= 20 and not counted.clock_stopped


def test_each_world_counts_as_likely_as_the_auction_makes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A world is weighed by the hands it means each seat was dealt (its tiles now and the
    tiles it played), and a tile's score is the weight of the worlds it wins."""
    hand = mid_hand(6, tricks=2)
    seat = hand.turn
    assert seat is not None
    mine = mask(hand.hands[seat])
    played = {
        s: mask([m.action.tile for m in hand.moves if m.seat == s and isinstance(m.action, Play)])
        for s in "ABCD"
    }  # type: ignore[attr-defined]
    weights: list[float] = []
    real = Auction.deal_weight

    def spy(self: Auction, hands: dict[str, int], me: str) -> float:
        assert me == seat and hands[seat] == mine | played[seat]
        assert sorted(bin(h).count("1") for h in hands.values()) == [7, 7, 7, 7]
        assert functools.reduce(operator.or_, hands.values()) == (1 << 28) - 1
        weights.append(real(self, hands, me))  # type: ignore[arg-type]
        return weights[-1]

    monkeypatch.setattr(Auction, "deal_weight", spy)
    weighed = choose(hand, random.Random(5), budget=30.0, max_worlds=40)
    assert len(weights) == weighed.worlds == 40 and len(set(weights)) > 1
    assert max(weighed.wins.values()) <= sum(weights) + 1e-9
    monkeypatch.undo()
    alike = choose(hand, random.Random(5), budget=30.0, max_worlds=40, weigh=False)
    assert all(float(v).is_integer() for v in alike.wins.values()) and alike.worlds == 40
    assert weighed.wins != alike.wins  # the same worlds, counted otherwise


def test_a_pruned_search_counts_more_worlds_in_the_same_positions() -> None:
    """Pruning changes no world's answer, only what a world costs: at a first lead the same
    count of positions solves more of the same worlds (the first ones alike), and the bot
    chooses from more."""
    hand = first_lead(4)
    pruned = choose(hand, random.Random(2), budget=60.0, max_nodes=400_000)
    plain = choose(hand, random.Random(2), budget=60.0, max_nodes=400_000, pruned=False)
    assert pruned.worlds > plain.worlds * 1.3
    few = choose(hand, random.Random(2), budget=60.0, max_worlds=plain.worlds)
    assert few.wins == plain.wins  # the same worlds, the same answers
