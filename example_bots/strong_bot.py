#!/usr/bin/env python3
"""The strong bundled bot: sampled worlds solved exactly for play, a fitted model for bids.

- **Play** (``referee.strong.play``): deal the hidden tiles at random as the seat's
  information allows (``decision.seen``: every tile played with its seat, the suits each seat
  showed out of), solve each deal exactly (``referee.solver.search``: does the declaring side
  reach its bid?), and play the tile that makes — or, defending, sets — the contract in the
  most deals. Worlds are solved until a count of positions (reproducible), with the clock
  as a safety net: a decision never takes more than its budget (``--budget-ms``; by default
  the smaller of 200 ms and a fifth of the time the referee gives). Ties go to the heuristic
  bot's choice, which also answers when no world could be solved in time.
- **Bidding and trump** (``referee.strong.bidding``): for each trump, the chance of making
  each bid, from the hand's features (trump length, top trumps, the trump double, other
  doubles and what backs them, count, voids), fitted offline to solved deals and shifted to
  this bot's own play. It bids the lowest bid it may when that chance is at least even, never
  over its partner, all tricks only when that chance is high; trump is the one most likely to
  make the contract; ``piles`` 1.

Run it with the referee's Python: ``.venv/bin/python example_bots/strong_bot.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

try:
    import referee.bot  # noqa: F401
except ImportError:  # a clone that is not installed: the package is next to this folder
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import heuristic_bot

from referee.bot import SOLVER_CORE, Decision, run
from referee.rules import Action, AllTricksBid, Bid, DeclareTrump, Pass, Play, View
from referee.rules.tiles import PARTNER_OF
from referee.strong.bidding import CANDIDATE_TRUMPS, BiddingModel
from referee.strong.play import (
    BASELINE_NODES,
    BASELINE_WORLD_COST,
    MAX_NODES,
    WORLD_COST,
    choose_tile,
)

#: The chance of making a point bid it needs to bid, and an all-tricks bid.
BID_CHANCE = 0.5
ALL_TRICKS_CHANCE = 0.85


class Strong:
    def __init__(
        self, budget_ms: float | None, max_nodes: int = MAX_NODES, world_cost: int = WORLD_COST
    ) -> None:
        self.budget_ms = budget_ms
        self.max_nodes = max_nodes
        self.world_cost = world_cost
        self.model = BiddingModel.load()

    def __call__(self, decision: Decision) -> Action:
        legal = decision.legal_actions
        if len(legal) == 1:
            return legal[0]
        if any(isinstance(a, Play) for a in legal):
            return self.play(decision, legal)
        if any(isinstance(a, DeclareTrump) for a in legal):
            return self.trump(decision.view, legal)
        return self.bid(decision.view, legal)

    def budget(self, decision: Decision) -> float:
        if self.budget_ms is not None:
            return self.budget_ms / 1000
        return min(0.2, decision.time_ms / 5000)

    def play(self, decision: Decision, legal: list[Action]) -> Action:
        fallback = heuristic_bot.choose_play(decision.view, decision.seen, legal)
        assert isinstance(fallback, Play)
        tiles = [a.tile for a in legal if isinstance(a, Play)]
        choice = choose_tile(
            decision.view,
            decision.seen,
            tiles,
            fallback.tile,
            decision.rng,
            self.budget(decision),
            max_nodes=self.max_nodes,
            world_cost=self.world_cost,
        )
        if choice.clock_stopped:  # kept beside the match log by the referee
            print(
                f"act {decision.id}: out of time after {choice.worlds} worlds; a rerun of this"
                " match may choose otherwise here",
                file=sys.stderr,
            )
        return Play(tile=choice.tile)

    def chance(self, view: View, bid: int) -> tuple[float, object]:
        """The best chance of making ``bid`` over the trumps, and that trump."""
        return max((self.model.chance(view.hand, trump, bid), trump) for trump in CANDIDATE_TRUMPS)  # type: ignore[arg-type]

    def bid(self, view: View, legal: list[Action]) -> Action:
        passing = next(a for a in legal if isinstance(a, Pass))
        high = None
        for move in view.bids:
            if not isinstance(move.action, Pass):
                high = move.seat
        if high == PARTNER_OF[view.seat]:
            return passing  # never over the partner
        all_tricks = [a for a in legal if isinstance(a, AllTricksBid)]
        if all_tricks and self.chance(view, 42)[0] >= ALL_TRICKS_CHANCE:
            return min(all_tricks, key=lambda a: a.marks)
        points = [a for a in legal if isinstance(a, Bid)]
        if points:
            lowest = min(points, key=lambda a: a.points)
            if self.chance(view, lowest.points)[0] >= BID_CHANCE:
                return lowest
        return passing

    def trump(self, view: View, legal: list[Action]) -> Action:
        contract_bid = next(
            (m.action for m in reversed(view.bids) if not isinstance(m.action, Pass)), None
        )
        points = contract_bid.points if isinstance(contract_bid, Bid) else 42
        _, trump = self.chance(view, points)
        for action in legal:
            if (
                isinstance(action, DeclareTrump)
                and action.trump == trump
                and action.piles in (None, 1)
            ):
                return action
        return legal[0]


def main() -> None:
    parser = argparse.ArgumentParser(description="The strong Texas 42 bot.")
    parser.add_argument(
        "--budget-ms",
        type=float,
        help="milliseconds a play may take (default: min(200, a fifth of the move time))",
    )
    parser.add_argument("--nodes", type=int, help="positions searched per play")
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="play as the previous strong bot did (a Python search's budget), to measure against",
    )
    args = parser.parse_args()
    nodes = args.nodes or (BASELINE_NODES if args.baseline else MAX_NODES)
    cost = BASELINE_WORLD_COST if args.baseline else WORLD_COST
    core = "compiled" if SOLVER_CORE == "c" else "Python (no compiled core was built: slower)"
    print(f"strong bot: the {core} search, {nodes:,} positions a play", file=sys.stderr)
    run(Strong(args.budget_ms, nodes, cost), name="strong-baseline" if args.baseline else "strong")


if __name__ == "__main__":
    main()
