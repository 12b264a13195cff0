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
    kept, spent = tied_again(hand.contract.trump, 0, target, ours, worlds, tiles, 1e18, 10**9)
    oracle = PythonSolver(hand.contract.trump, 0, target)
    won = {
        tile: sum(w for p, w, _ in worlds if oracle.move_values(p)[INDEX[tile]] == ours)
        for tile in tiles
    }
    assert kept == [tile for tile in tiles if won[tile] == max(won.values())] and spent > 0


def test_a_margin_asks_again_about_the_tied_tiles_with_the_bid_moved_the_right_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At the first lead many tiles win every world or none. The declarer (A, bid 30) asks
    again with the bid 5 harder when its tied tiles win half the weight or more, 5 easier when
    they lose, and only about those tiles; the worlds counted are the bot's without a margin."""
    asked = 0
    real = play.tied_again

    def spy(*args: object) -> tuple[list[object], int]:
        nonlocal asked
        target, solved, tied = args[2], args[4], args[5]
        assert isinstance(solved, list) and isinstance(tied, list)
        total = sum(weight for _, weight, _ in solved)
        won = sum(weight for _, weight, wins in solved if wins >> INDEX[tied[0]] & 1)
        assert all(  # every tile asked about ties with the first
            sum(weight for _, weight, wins in solved if wins >> INDEX[tile] & 1) == won
            for tile in tied
        )
        assert target == (35 if 2 * won >= total else 25)
        asked += 1
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(play, "tied_again", spy)
    for seed in range(8):
        hand = first_lead(seed)
        view = hand.view("A")
        seen = Seen(view, hand.moves)
        legal = [a.tile for a in hand.legal_actions() if isinstance(a, Play)]
        plain = choose_tile(view, seen, legal, legal[-1], random.Random(seed), 30.0)
        one = choose_tile(view, seen, legal, legal[-1], random.Random(seed), 30.0, margin=5)
        two = choose_tile(view, seen, legal, legal[-1], random.Random(seed), 30.0, margin=5)
        assert one == two and (one.wins, one.worlds) == (plain.wins, plain.worlds)
        assert one.wins[one.tile] == max(plain.wins.values())
    assert asked >= 2
