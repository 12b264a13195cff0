"""Tiles that win the same worlds told apart with a harder or easier bid (``--margin``): the
tiles kept are those the Python search, the oracle, says win the most worlds at that bid."""

from __future__ import annotations

import random

import pytest
from support.strong import first_lead, mid_hand, worlds_of

from referee.bot import Seen
from referee.rules import Play
from referee.rules.tiles import PARTNERSHIP_OF
from referee.solver.search import INDEX, PythonSolver
from referee.strong import play
from referee.strong.play import choose_tile, tied_again


@pytest.mark.parametrize(("seed", "shift"), [(1, 5), (2, -5), (3, 8), (4, -8)])
def test_the_tiles_kept_win_the_most_worlds_at_the_other_bid(seed: int, shift: int) -> None:
    hand = mid_hand(seed, tricks=3)
    seat = hand.turn
    assert seat is not None and hand.contract is not None
    ours = PARTNERSHIP_OF[seat] == hand.contract.declarers
    target = hand.contract.bid.points + shift  # type: ignore[union-attr]
    tiles = [a.tile for a in hand.legal_actions() if isinstance(a, Play)]
    worlds = [
        (position, 1.0 + n % 2, 0) for n, (position, _) in enumerate(worlds_of(hand, 20, seed))
    ]
    kept = tied_again(hand.contract.trump, 0, target, ours, worlds, tiles, 1e18, 10**9)
    oracle = PythonSolver(hand.contract.trump, 0, target)
    won = {
        tile: sum(w for p, w, _ in worlds if oracle.move_values(p)[INDEX[tile]] == ours)
        for tile in tiles
    }
    assert kept == [tile for tile in tiles if won[tile] == max(won.values())]


def test_a_margin_breaks_ties_among_the_tied_only_and_repeats(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At the first lead many tiles win every world or none; a margin asks again about
    those tiles only (the bid harder when they win, easier when they lose)."""
    asked: list[tuple[int, list[object]]] = []
    real = play.tied_again

    def spy(*args: object) -> list[object]:
        kept = real(*args)  # type: ignore[arg-type]
        asked.append((args[2], args[5]))  # type: ignore[arg-type]
        assert set(kept) <= set(args[5])  # type: ignore[call-overload]
        return kept

    monkeypatch.setattr(play, "tied_again", spy)
    for seed in range(8):
        hand = first_lead(seed)
        seat = hand.turn
        assert seat is not None and hand.contract is not None
        view = hand.view(seat)
        seen = Seen(view, hand.moves)
        legal = [a.tile for a in hand.legal_actions() if isinstance(a, Play)]
        one = choose_tile(view, seen, legal, legal[-1], random.Random(seed), 30.0, margin=5)
        two = choose_tile(view, seen, legal, legal[-1], random.Random(seed), 30.0, margin=5)
        assert one == two
        best = max(one.wins.values())
        assert one.wins[one.tile] == best
    assert asked and all(target in (25, 35) for target, _ in asked)
