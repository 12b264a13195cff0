"""The strong bot's exact solver against the rules engine itself: on random endings of real
hands, every legal tile's make-or-set value equals a naive minimax over ``referee.rules``
(trick winners and early ends included, since the minimax plays the engine to the end)."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.solver import CORES, trick_winner

from referee.rules import Hand, Play
from referee.rules.deal import deal
from referee.rules.events import TrickTaken
from referee.rules.tiles import PARTNERSHIP_OF, SEATS, Partnership
from referee.solver.search import (
    INDEX,
    Position,
    PythonSolver,
    mask,
    tables,
)


def naive(hand: Hand, declarers: Partnership) -> bool:
    """Do the declarers make it from here? Every line of play, through the engine."""
    if hand.is_over:
        assert hand.result is not None
        return hand.result.winner == declarers
    seat = hand.turn
    assert seat is not None
    values = (naive(_after(hand, seat, action), declarers) for action in hand.legal_actions())
    return any(values) if PARTNERSHIP_OF[seat] == declarers else all(values)


def _after(hand: Hand, seat: str, action: object) -> Hand:
    copy = hand.clone()
    copy.apply(seat, action)  # type: ignore[arg-type]
    return copy


@dataclass
class Ending:
    hand: Hand
    declarers: Partnership


def ending(seed: int, tricks_left: int, into_trick: int) -> Ending | None:
    """A real hand bid, declared and played at random until ``tricks_left`` tricks remain,
    ``into_trick`` tiles into the next; None when the hand ended before."""
    rng = random.Random(seed)
    dealer = rng.choice(SEATS)
    hand = Hand(dealer, deal(seed, 1, dealer))
    bidder = hand.turn
    assert bidder is not None
    hand.apply(bidder, rng.choice([a for a in hand.legal_actions() if type(a).__name__ != "Pass"]))
    while hand.phase == "bidding":
        assert hand.turn is not None
        hand.apply(hand.turn, hand.legal_actions()[0])  # the others pass
    assert hand.turn is not None
    hand.apply(hand.turn, rng.choice(hand.legal_actions()))  # the trump (and piles)
    assert hand.contract is not None
    rules = tables(hand.contract.trump)
    while (len(hand.piles), len(hand.trick)) != (7 - tricks_left, into_trick):
        if hand.is_over:
            return None
        seat = hand.turn
        assert seat is not None
        trick = [(SEATS.index(p.seat), INDEX[p.tile]) for p in hand.trick]
        action = rng.choice(hand.legal_actions())
        assert isinstance(action, Play)
        for event in hand.apply(seat, action):
            if isinstance(event, TrickTaken):  # the solver's trick winner is the engine's
                played = (*trick, (SEATS.index(seat), INDEX[action.tile]))
                assert SEATS[trick_winner(played, rules)] == event.winner
    if hand.is_over:
        return None
    return Ending(hand, hand.contract.declarers)


def position(hand: Hand, declarers: Partnership) -> Position:
    defenders: Partnership = "BD" if declarers == "AC" else "AC"
    assert hand.turn is not None
    return Position(
        hands=(mask(hand.hands["A"]), mask(hand.hands["B"]), mask(hand.hands["C"]),
               mask(hand.hands["D"])),
        turn=SEATS.index(hand.turn),
        trick=tuple((SEATS.index(p.seat), INDEX[p.tile]) for p in hand.trick),
        points=(hand.points[declarers], hand.points[defenders]),
    )  # fmt: skip


@pytest.mark.parametrize("pruned", [True, False])
@pytest.mark.parametrize("Solver", CORES)
@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    tricks_left=st.integers(1, 3),
    into_trick=st.integers(0, 3),
)
def test_every_legal_tiles_value_is_the_naive_minimaxs(
    Solver: type[PythonSolver], pruned: bool, seed: int, tricks_left: int, into_trick: int
) -> None:
    # Most random hands are decided before their last tricks: take the first from ``seed`` on
    # that still has an ending to solve.
    found = next(
        e for n in range(1000) if (e := ending(seed + n, tricks_left, into_trick)) is not None
    )
    hand, declarers = found.hand, found.declarers
    contract = hand.contract
    assert contract is not None and hand.turn is not None
    target = None if contract.is_all_tricks else contract.bid.points  # type: ignore[union-attr]
    solver = Solver(contract.trump, 0 if declarers == "AC" else 1, target, pruned=pruned)
    values = solver.move_values(position(hand, declarers))
    expected = {
        INDEX[action.tile]: naive(_after(hand, hand.turn, action), declarers)  # type: ignore[attr-defined]
        for action in hand.legal_actions()
    }
    assert values == expected
    assert solver.makes(position(hand, declarers)) == naive(hand, declarers)


@pytest.mark.parametrize("Solver", CORES)
def test_positions_answered_from_memory_count_toward_the_budget(Solver: type[PythonSolver]) -> None:
    """Solving a position again finds its answers remembered, and still counts them: the
    count of positions is the decision's work, whatever kind it is. Three tiles into a trick,
    each last tile completes it, and the next lead is all the second search asks of memory."""
    found = next(
        e for n in range(1000) if (e := ending(n, 3, 3)) is not None and not e.hand.is_over
    )
    hand, declarers = found.hand, found.declarers
    contract = hand.contract
    assert contract is not None
    target = None if contract.is_all_tricks else contract.bid.points  # type: ignore[union-attr]
    solver = Solver(contract.trump, 0 if declarers == "AC" else 1, target)
    first = solver.move_values(position(hand, declarers))
    searched = solver.nodes
    again = solver.move_values(position(hand, declarers))
    remembered = solver.nodes - searched
    assert again == first
    # One remembered lead per tile that leaves the hand open (no new position is searched).
    assert 0 < remembered <= len(first) < searched
