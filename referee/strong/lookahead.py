"""Scoring the best few tiles one of the seat's own moves deeper, without strategy fusion: αμ
(Cazenave and Ventos, for bridge card play) at depth two.

Sampled worlds (``play``) score a tile world by world, as if the seat would go on to play each
world knowing it: a tile whose wins need a right guess later counts them all. Here the worlds
are searched together, over the tiles everyone sees played, up to the seat's next turn, where
it must play one tile in all the worlds that reached it. A result is a set of worlds won (a
bit mask over the worlds); a node's value is every set the seat can still choose between,
none inside another (a Pareto front):

- at the seat's next turn, one set per tile it may play (the worlds where the declarers make,
  or defending are set, after it, each solved exactly);
- at another seat's turn, that seat plays knowing the world, as sampled worlds assume: each
  tile it may play in some world is a branch over the worlds where it holds it (it shows that
  much), and in each world it takes the branch best for its side — an opponent the worst of
  ours, the partner the best; the fronts combine set by set, intersected (opponent) or joined
  (partner);
- a node with one world left is that world's exact value: nothing is left to tell apart.

A tile's score is the heaviest set of its front: never more than the worlds it wins one by one,
less where a win was a guess.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from referee.solver.search import (
    OutOfTime,
    Position,
    Search,
    Tables,
    advance,
    indices,
    playable,
)

#: Positions each world's step through the tree is charged (the Python around the search
#: takes time too), so that the count bounds the look ahead.
STEP_COST: Final = 200
#: Positions each pair of sets combined at a node is charged.
PAIR_COST: Final = 20

Front = list[int]


def pareto(sets: Iterable[int]) -> Front:
    """The sets none of the others contains (the seat would never choose a smaller one)."""
    kept: Front = []
    for one in sorted(set(sets), key=lambda bits: -bits.bit_count()):
        if not any(one | other == other for other in kept):
            kept.append(one)
    return kept


class Ahead:
    """One decision's look ahead: the worlds' positions after a candidate tile, searched
    together up to the seat's next turn within the solver's count of positions (past it,
    ``OutOfTime``)."""

    def __init__(self, solver: Search, target: int | None, rules: Tables, ours: bool) -> None:
        self.solver = solver
        self.target = target
        self.rules = rules
        self.ours = ours

    def score(self, worlds: list[Position], tile: int, seat: int, weights: list[float]) -> float:
        """The weight of worlds the seat wins at most when it plays ``tile`` now and one tile
        for all the worlds it cannot tell apart at its next turn."""
        front = self._after({w: position for w, position in enumerate(worlds)}, tile, seat)
        return max(sum(weights[w] for w in indices(won)) for won in front)

    def _after(self, positions: dict[int, Position], tile: int, seat: int) -> Front:
        """The front of ``positions`` (worlds by number) once the seat to play plays ``tile``."""
        self._charge(len(positions))
        ended = 0
        going: dict[int, Position] = {}
        for world, position in positions.items():
            after = advance(position, tile, self.solver.declarers, self.target, self.rules)
            if isinstance(after, bool):
                ended |= (1 << world) if after == self.ours else 0
            else:
                going[world] = after
        return self._front(going, seat) if going else [ended]

    def _front(self, positions: dict[int, Position], seat: int) -> Front:
        if len(positions) == 1:
            ((world, position),) = positions.items()
            return [1 << world if self.solver.makes(position) == self.ours else 0]
        turn = next(iter(positions.values())).turn
        if turn == seat:  # the seat's next turn: one tile for all these worlds
            won: dict[int, int] = {}
            for world, position in positions.items():
                for tile, made in self.solver.move_values(position).items():
                    won[tile] = won.get(tile, 0) | ((1 << world) if made == self.ours else 0)
            return pareto(won.values())
        everyone = sum(1 << world for world in positions)
        branches: dict[int, dict[int, Position]] = {}
        for world, position in positions.items():
            suit = self.rules.called[position.trick[0][1]] if position.trick else -1
            for tile in indices(playable(position.hands[position.turn], suit, self.rules)):
                branches.setdefault(tile, {})[world] = position
        partner = turn % 2 == seat % 2
        front: Front | None = None
        for tile, holding in branches.items():
            sets = self._after(holding, tile, seat)
            if not partner:  # an opponent's branch does not bind the worlds it cannot take
                elsewhere = everyone & ~sum(1 << world for world in holding)
                sets = [one | elsewhere for one in sets]
            if front is None:
                front = sets
                continue
            self.solver.nodes += PAIR_COST * len(front) * len(sets)
            if partner:
                front = pareto(a | b for a in front for b in sets)
            else:
                front = pareto(a & b for a in front for b in sets)
        assert front is not None
        return front

    def _charge(self, worlds: int) -> None:
        self.solver.nodes += STEP_COST * worlds
        bound = self.solver.max_nodes
        if bound is not None and self.solver.nodes > bound:
            raise OutOfTime


#: The worlds looked ahead in: the first of these many that the count of positions allows
#: (each try costs about twice the last, so the tries that run out waste at most as much).
SAMPLES: Final = (8, 16, 32, 64)


def fusion_losses(
    solver: Search,
    worlds: list[tuple[Position, float, int]],
    tiles: list[int],
    target: int | None,
    rules: Tables,
    ours: bool,
) -> tuple[dict[int, float], int]:
    """How much each of ``tiles`` is overrated by counting worlds one by one: over the first
    worlds of ``worlds`` (position, weight, mask of the tiles that win it), the share of their
    weight it wins one by one less its score here. The most worlds ``SAMPLES`` offers within
    the solver's count of positions, and how many; ({}, 0) when not even the fewest fit."""
    ahead = Ahead(solver, target, rules, ours)
    losses: dict[int, float] = {}
    looked = 0
    tried = 0
    for size in SAMPLES:
        sample = worlds[:size]
        if len(sample) <= tried:  # no more worlds than the last try
            break
        tried = len(sample)
        positions = [position for position, _, _ in sample]
        weights = [weight for _, weight, _ in sample]
        total = sum(weights)
        seat = positions[0].turn
        try:
            scores = {tile: ahead.score(positions, tile, seat, weights) for tile in tiles}
        except OutOfTime:
            break
        if total > 0:
            losses = {
                tile: (sum(w for _, w, won in sample if won >> tile & 1) - scores[tile]) / total
                for tile in tiles
            }
            looked = len(sample)
    return losses, looked
