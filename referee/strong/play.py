"""Choosing a tile by sampled worlds (perfect-information Monte Carlo): deal the hidden tiles
at random as the seat's information allows, solve each deal exactly, keep the tile that makes
(or, for the defenders, sets) the contract in the most of them.

It is an anytime search with two budgets, both checked inside the search, where an
unfinished world is dropped. Worlds are solved until ``max_nodes`` positions have been
searched: a count, so a seeded bot solves the same worlds and answers the same way on any
machine fast enough, and ``replay --rerun`` reproduces its matches. The clock is the safety
net: past ``budget`` seconds the world in hand is dropped too, so a slow machine still answers
in time (and then perhaps otherwise). A fallback tile (the caller's: a heuristic's choice)
breaks ties and answers when no world was finished. Everything random comes from the ``rng``
it is given.

Worlds are weighed by the auction (``beliefs``): a world counts as much as it makes each
other seat's bid or pass, and the declarer's trump, likely for the hand it gives that seat
(the tiles it holds in the world and the tiles it has played), so a deal where a seat that
passed holds three doubles counts little. With ``read``, worlds are weighed by the play so far
too (``reading``: a seat that threw count it could have kept most likely could not).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Final

from referee.bot import Seen
from referee.rules.actions import Trump
from referee.rules.tiles import COUNT, PARTNERSHIP_OF, SEATS, TOTAL_POINTS, Tile
from referee.rules.views import View
from referee.solver.search import CORE, INDEX, OutOfTime, Position, Solver, mask, tables
from referee.strong.beliefs import Auction, played_masks
from referee.strong.lookahead import fusion_losses
from referee.strong.reading import clues, play_weight

#: Positions searched per decision with the compiled search: about 50 ms here at the first
#: lead (the slowest; 90 ms at most in 30 first leads), a quarter of the default budget, so
#: that the count rather than the clock ends a decision (and a rerun repeats it) unless
#: something else takes the CPU. The Python search gets a fortieth of it, for the same time.
MAX_NODES: Final = 2_000_000 if CORE == "c" else 50_000
#: Worlds per decision at most: past a few hundred, more change the counts little.
MAX_WORLDS: Final = 256
#: Positions a world is charged for its dealing and set-up (about as long as that many
#: positions take to search), so that many cheap late worlds count as the time they take.
WORLD_COST: Final = 4_000 if CORE == "c" else 100
#: What the previous strong bot (``strong_bot.py --baseline``) used: the Python search's
#: budget, whatever the core.
BASELINE_NODES: Final = 50_000
BASELINE_WORLD_COST: Final = 100


@dataclass(frozen=True)
class Choice:
    """The tile chosen, and how it was: per candidate tile the worlds it won, and how many
    worlds were solved."""

    tile: Tile
    #: The worlds' weights (the auction's likelihood of each, and the play's when read)
    #: summed per tile that wins them.
    wins: dict[Tile, float]
    worlds: int
    #: The clock, not the count of positions, stopped the search: a rerun may choose otherwise.
    clock_stopped: bool = False
    #: Worlds the best tiles were looked ahead in (``ahead``; 0: not looked ahead).
    looked: int = 0


def points_taken(view: View) -> tuple[int, int]:
    """Hand points (A+C's, B+D's) in the captured piles the view shows; for a point contract
    every pile is face up."""
    points = {"AC": 0, "BD": 0}
    for pile in view.piles:
        points[pile.side] += 1 + sum(COUNT[tile] for tile in pile.tiles)
    return points["AC"], points["BD"]


def tied_again(
    trump: Trump,
    declarers: int,
    target: int,
    ours: bool,
    solved: list[tuple[Position, float, int]],
    tied: list[Tile],
    deadline: float,
    max_nodes: int,
    pruned: bool = True,
) -> tuple[list[Tile], int]:
    """Of the ``tied`` tiles, those that win the most weight of the ``solved`` worlds with the
    declarers' bid at ``target`` instead (over the worlds solved before the counts ran out),
    and the positions that took."""
    solver = Solver(trump, declarers, target, deadline=deadline, max_nodes=max(1, max_nodes),
                    pruned=pruned)  # fmt: skip
    again = dict.fromkeys(tied, 0.0)
    for position, weight, _ in solved:
        try:
            values = solver.move_values(position)
        except OutOfTime:
            break
        for tile in tied:
            if values[INDEX[tile]] == ours:
                again[tile] += weight
    best = max(again.values())
    return [tile for tile in tied if again[tile] == best], solver.nodes


def choose_tile(
    view: View,
    seen: Seen,
    candidates: list[Tile],
    fallback: Tile,
    rng: random.Random,
    budget: float,
    max_nodes: int = MAX_NODES,
    max_worlds: int = MAX_WORLDS,
    world_cost: int = WORLD_COST,
    weigh: bool = True,
    high_passes: bool = True,
    read: bool = False,
    ahead: int = 0,
    margin: int = 0,
    pruned: bool = True,
) -> Choice:
    """The candidate tile that wins the most sampled worlds within the budgets (weighed by
    the auction unless ``weigh`` is false, and by the play so far if ``read``;
    ``high_passes``: as ``beliefs.evidence``). With ``ahead``, half as many positions again
    look that many of the best tiles one of the seat's own moves deeper in the first of the
    same worlds (``lookahead``): each tile's count, less what counting the worlds one by one
    overrated it by there, chooses. With ``margin``, a third as many again tell tiles that
    tie apart in the same worlds with the bid that many points harder when they win (room
    for a misjudged world) or easier when they lose (a chance for the other side to go
    wrong). ``pruned``: the search's (``Solver``)."""
    deadline = time.perf_counter() + budget
    contract = view.contract
    assert contract is not None
    declarers = 0 if contract.declarers == "AC" else 1
    target = None if contract.is_all_tricks else contract.bid.points  # type: ignore[union-attr]
    solver = Solver(contract.trump, declarers, target, deadline=deadline, max_nodes=max_nodes,
                    pruned=pruned)  # fmt: skip
    ac, bd = points_taken(view)
    points = (ac, bd) if declarers == 0 else (bd, ac)
    ours = PARTNERSHIP_OF[view.seat] == contract.declarers
    wins = dict.fromkeys(candidates, 0.0)
    auction = Auction.of(tuple(view.bids), contract, high_passes) if weigh else None
    played = played_masks(seen)
    found = clues(seen) if read else []
    worlds = 0
    clock_stopped = False
    solved: list[tuple[Position, float, int]] = []  # and the tiles that win it
    if len(candidates) > 1:
        while worlds < max_worlds and solver.nodes < max_nodes:
            if time.perf_counter() >= deadline:
                clock_stopped = True
                break
            hidden = seen.sample(rng)
            hands = {**hidden, view.seat: list(view.hand)}
            position = Position(
                hands=(mask(hands["A"]), mask(hands["B"]), mask(hands["C"]), mask(hands["D"])),
                turn=SEATS.index(view.seat),
                trick=tuple((SEATS.index(p.seat), INDEX[p.tile]) for p in view.trick),
                points=points,
            )
            try:
                values = solver.move_values(position)
            except OutOfTime:  # the unfinished world is dropped
                clock_stopped = time.perf_counter() > deadline
                break
            worlds += 1
            solver.nodes += world_cost  # dealing and setting up a world takes time too
            weight = play_weight(found, position.hands)
            if auction is not None:
                dealt = {
                    seat: hand | played[seat]
                    for seat, hand in zip(SEATS, position.hands, strict=True)
                }
                weight *= auction.deal_weight(dealt, view.seat)
            won = 0
            for tile in candidates:
                if values[INDEX[tile]] == ours:
                    wins[tile] += weight
                    won |= 1 << INDEX[tile]
            solved.append((position, weight, won))
    best = max(wins.values())
    tied = [tile for tile in candidates if wins[tile] == best]
    # the ties and the look ahead get positions of their own, past the worlds' count
    limit = max_nodes + (max_nodes // 3 if margin else 0) + (max_nodes // 2 if ahead > 1 else 0)
    if margin and len(tied) > 1 and target is not None and solved and not clock_stopped:
        winning = 2 * best >= sum(weight for _, weight, _ in solved)
        harder = target + (margin if winning == ours else -margin)  # the declarers' bid
        shifted = min(TOTAL_POINTS, max(1, harder))
        tied, spent = tied_again(contract.trump, declarers, shifted, ours, solved, tied,
                                 deadline, limit - solver.nodes, pruned)  # fmt: skip
        solver.nodes += spent
        clock_stopped = time.perf_counter() > deadline
    chosen = fallback if fallback in tied else tied[0]
    ranked = sorted(candidates, key=lambda tile: (tile != chosen, -wins[tile]))[:ahead]
    if ahead > 1 and len(ranked) > 1 and not clock_stopped and wins[ranked[1]] > 0:
        tiles = [INDEX[tile] for tile in ranked]
        rules = tables(contract.trump)
        solver.max_nodes = limit
        losses, looked = fusion_losses(solver, solved, tiles, target, rules, ours)
        if looked:  # each count less what fusing overrated it by, on the worlds looked ahead in
            total = sum(weight for _, weight, _ in solved)
            chosen = max(ranked, key=lambda tile: wins[tile] / total - losses[INDEX[tile]])
        clock_stopped = time.perf_counter() > deadline
        return Choice(chosen, wins, worlds, clock_stopped, looked)
    return Choice(chosen, wins, worlds, clock_stopped)
