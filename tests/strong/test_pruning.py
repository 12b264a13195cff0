"""The pruned search: twin tiles (trumps of equal count with no other seat's tile between
them) are tried once, and a seat following a trick tries the cheap play first. It answers as
the plain search does (``test_solver``, ``test_solver_cores``) from far fewer positions."""

from __future__ import annotations

import pytest
from support.solver import CORES
from support.strong import first_lead, worlds_of

from referee.rules.actions import DOUBLES, NO_TRUMP, TRUMPS
from referee.rules.tiles import TILES, tile
from referee.solver.pruning import follow_order
from referee.solver.search import (
    INDEX,
    POINTS,
    Position,
    PythonSolver,
    mask,
    tables,
)


def _i(text: str) -> int:
    return INDEX[tile(text)]


def _tiles(bits: int) -> set[str]:
    return {str(TILES[i]) for i in range(28) if bits >> i & 1}


def _names(*texts: str) -> list[str]:
    return [str(tile(text)) for text in texts]


def test_twins_are_the_trumps_of_equal_count() -> None:
    fives = tables(5)
    assert _tiles(fives.twins[_i("5-1")]) == set(_names("5-2", "5-3", "5-4", "5-6"))
    assert fives.twins[_i("5-5")] == 0  # the only trump that counts ten
    assert fives.twins[_i("5-0")] == 0  # and five
    assert fives.twins[_i("6-4")] == 0  # an off tile follows two suits no other tile shares
    doubles = tables(DOUBLES)
    assert _tiles(doubles.twins[_i("0-0")]) == set(_names("1-1", "2-2", "3-3", "4-4", "6-6"))
    assert all(twins == 0 for twins in tables(NO_TRUMP).twins)  # no suit is every tile's
    for trump in TRUMPS:  # twins both ways
        rules = tables(trump)
        assert all(rules.twins[y] >> x & 1 for x in range(28) for y in range(28)
                   if rules.twins[x] >> y & 1)  # fmt: skip


def test_a_tile_between_them_held_elsewhere_or_down_on_the_trick_parts_twins() -> None:
    fives = tables(5)
    high, low, middle = _i("5-4"), _i("5-2"), _i("5-3")
    tried = 1 << high
    assert fives.twin(tried, low, mask([tile("6-6")]), -1, -1) == high  # leading
    assert fives.twin(tried, low, 1 << middle, -1, -1) is None  # another seat holds 5-3
    assert fives.twin(0, low, 0, -1, -1) is None  # nothing tried yet
    suit = fives.called[_i("6-6")]  # sixes led, 5-3 trumped in: 5-4 wins the trick, 5-2 not
    best = fives.strength[suit][middle]
    assert fives.twin(tried, low, 0, suit, best) is None
    assert fives.twin(tried, low, 0, suit, fives.strength[suit][_i("6-6")]) == high


def test_a_follower_tries_the_cheap_play_first() -> None:
    rules = tables(1)
    suit = rules.called[_i("6-3")]  # sixes led, aces trump
    strength = rules.strength[suit]
    choices = tuple(sorted((_i("6-6"), _i("6-4"), _i("6-0")), key=lambda t: -strength[t]))
    ahead = follow_order(choices, suit, strength[_i("6-5")], True, rules.strength, POINTS)
    # partner winning: count on the trick first, then the weakest
    assert [str(TILES[t]) for t in ahead] == _names("6-4", "6-0", "6-6")
    behind = follow_order(choices, suit, strength[_i("6-2")], False, rules.strength, POINTS)
    # the tiles that win (count first), then the rest
    assert [str(TILES[t]) for t in behind] == _names("6-4", "6-6", "6-0")
    beaten = follow_order(choices, suit, strength[_i("6-5")], False, rules.strength, POINTS)
    # only 6-6 wins; then the least count
    assert [str(TILES[t]) for t in beaten] == _names("6-6", "6-0", "6-4")


@pytest.mark.parametrize("Solver", CORES)
def test_pruning_answers_alike_from_far_fewer_positions(Solver: type[PythonSolver]) -> None:
    """First leads of real hands, in sampled worlds: every tile's value unchanged, and well
    under the plain search's positions (about half, measured)."""
    pruned_nodes = plain_nodes = 0
    for seed in range(4 if Solver is PythonSolver else 12):
        hand = first_lead(seed)
        contract = hand.contract
        assert contract is not None
        declarers = 0 if contract.declarers == "AC" else 1
        for position, _ in worlds_of(hand, 2, seed):
            pruned = Solver(contract.trump, declarers, 30)
            plain = Solver(contract.trump, declarers, 30, pruned=False)
            assert pruned.move_values(position) == plain.move_values(position)
            pruned_nodes += pruned.nodes
            plain_nodes += plain.nodes
    assert pruned_nodes < 0.75 * plain_nodes


@pytest.mark.parametrize("Solver", CORES)
def test_a_trump_on_the_trick_between_two_parts_them_in_either_core(
    Solver: type[PythonSolver],
) -> None:
    """Blanks trump, A led 4-5 and B trumped with 0-3: C's 0-4 and 0-2 are trumps of no count
    with nothing between them in another hand, but 0-4 overtrumps and 0-2 does not."""
    hands = (
        mask([tile(t) for t in ("0-0", "0-6", "3-3", "4-6")]),
        mask([tile(t) for t in ("2-2", "2-3", "3-4", "4-4")]),
        mask([tile(t) for t in ("0-2", "0-4", "1-1", "1-4", "3-6")]),
        mask([tile(t) for t in ("1-2", "2-4", "2-6", "5-5", "6-6")]),
    )
    trick = ((0, _i("4-5")), (1, _i("0-3")))
    position = Position(hands, 2, trick, (6, 6))
    pruned = Solver(0, 0, 36).move_values(position)
    assert pruned == Solver(0, 0, 36, pruned=False).move_values(position)
    assert (pruned[_i("0-4")], pruned[_i("0-2")]) == (True, False)
