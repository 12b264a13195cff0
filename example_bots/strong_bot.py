#!/usr/bin/env python3
"""The strong bundled bot: sampled worlds solved exactly for play, a fitted model for bids.

- **Play** (``referee.strong.play``): deal the hidden tiles at random as the seat's
  information allows (``decision.seen``: every tile played with its seat, the suits each seat
  showed out of), solve each deal exactly (``referee.strong.solver``: does the declaring side
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

from referee.bot import Decision, run
from referee.rules import Action, DeclareTrump, Play
from referee.strong import calibration
from referee.strong.auction import Auctioneer, Verdict
from referee.strong.bidding import BiddingModel
from referee.strong.fallback import model_bid, model_trump
from referee.strong.play import MAX_NODES, choose_tile


class Strong:
    def __init__(
        self, budget_ms: float | None, max_nodes: int = MAX_NODES, bidding: str = "simulation"
    ) -> None:
        self.budget_ms = budget_ms
        self.max_nodes = max_nodes
        self.bidding = bidding
        self.model = BiddingModel.load()
        self.auctioneer = Auctioneer(self.model, calibration.shipped())

    def __call__(self, decision: Decision) -> Action:
        legal = decision.legal_actions
        if len(legal) == 1:
            return legal[0]
        if any(isinstance(a, Play) for a in legal):
            return self.play(decision, legal)
        if any(isinstance(a, DeclareTrump) for a in legal):
            return self.trump(decision, legal)
        return self.bid(decision, legal)

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
        )
        if choice.clock_stopped:  # kept beside the match log by the referee
            print(
                f"act {decision.id}: out of time after {choice.worlds} worlds; a rerun of this"
                " match may choose otherwise here",
                file=sys.stderr,
            )
        return Play(tile=choice.tile)

    def bid(self, decision: Decision, legal: list[Action]) -> Action:
        if self.bidding == "model":
            return model_bid(self.model, decision.view, legal)
        verdict = self.auctioneer.bid(decision.view, legal, decision.rng, self.budget(decision))
        return self.answer(decision, verdict)

    def trump(self, decision: Decision, legal: list[Action]) -> Action:
        if self.bidding == "model":
            return model_trump(self.model, decision.view, legal)
        verdict = self.auctioneer.trump(decision.view, legal, decision.rng, self.budget(decision))
        return self.answer(decision, verdict)

    def answer(self, decision: Decision, verdict: Verdict) -> Action:
        if verdict.clock_stopped:  # kept beside the match log by the referee
            print(
                f"act {decision.id}: out of time after {verdict.nodes} positions; a rerun of"
                " this match may choose otherwise here",
                file=sys.stderr,
            )
        return verdict.action


def main() -> None:
    parser = argparse.ArgumentParser(description="The strong Texas 42 bot.")
    parser.add_argument(
        "--budget-ms",
        type=float,
        help="milliseconds a play may take (default: min(200, a fifth of the move time))",
    )
    parser.add_argument("--nodes", type=int, default=MAX_NODES, help="positions per play")
    parser.add_argument(
        "--bidding",
        choices=("simulation", "model"),
        default="simulation",
        help="bids and trump by solved deals (default), or by the fitted model alone",
    )
    args = parser.parse_args()
    run(Strong(args.budget_ms, args.nodes, args.bidding), name="strong")


if __name__ == "__main__":
    main()
