#!/usr/bin/env python3
"""The strong bundled bot: sampled worlds solved exactly, for play and for bids.

- **Play** (``referee.strong.play``): deal the hidden tiles at random as the seat's
  information allows (``decision.seen``: every tile played with its seat, the suits each seat
  showed out of), solve each deal exactly (``referee.solver.search``: does the declaring side
  reach its bid?), and play the tile that makes — or, defending, sets — the contract in the
  most deals, each deal weighed by how likely it makes the other seats' bids, passes and the
  declarer's trump (``referee.strong.beliefs``; ``--uniform-worlds`` counts them alike).
  Worlds are solved until a count of positions (reproducible), with the clock as a safety
  net. Ties go to the heuristic bot's choice, which also answers when no world could be
  solved in time.
- **Bidding and trump** (``referee.strong.auction``): deals of the 21 tiles it cannot see,
  drawn as the auction makes them likely (``referee.strong.beliefs``: a model of how seats
  bid, fitted to logs), each solved exactly for the best few trumps (does its side make the
  bid, this seat leading?); the share of deals made, with the fitted feature model's chance
  (``referee.strong.bidding``), gives the real chance of making it (``calibration``, fitted
  to the bot's own contracts). It bids the lowest bid when a bid is worth more than a pass
  (which may leave an opponent's contract standing), never over its partner, all tricks
  for two marks with a hand that cannot lose a trick; trump is the one most likely to make
  the contract, by the same deals; ``piles`` 1. ``--bidding model`` bids by the feature
  model alone, as the bot did before (and as it does without the compiled solver or time).
- **Budgets** (``referee.strong.budget``): counts of positions and worlds fixed from the move
  time ``hello`` gives (never from a clock reading, so ``replay --rerun`` reproduces), three
  times as large for bids, trump and the first two tricks; the clock is only a guard, at 45%
  of the move time (``--budget-ms`` sets another). ``--baseline`` and ``--older-baseline``
  play as the two earlier versions did, to measure against.

Run it with the referee's Python: ``.venv/bin/python example_bots/strong_bot.py``.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import replace
from pathlib import Path

try:
    import referee.bot  # noqa: F401
except ImportError:  # a clone that is not installed: the package is next to this folder
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import heuristic_bot

from referee.bot import SOLVER_CORE, Decision, run
from referee.rules import Action, DeclareTrump, Play
from referee.strong.auction import Auctioneer, Verdict
from referee.strong.bidding import BiddingModel
from referee.strong.budget import Budgets, move_ms
from referee.strong.calibration import Calibration
from referee.strong.calibration import shipped as shipped_calibration
from referee.strong.fallback import model_bid, model_trump
from referee.strong.play import (
    BASELINE_NODES,
    BASELINE_WORLD_COST,
    WORLD_COST,
    choose_tile,
)
from referee.strong.simulation import Settings


class Strong:
    def __init__(
        self,
        budget_ms: float | None = None,
        max_nodes: int | None = None,
        world_cost: int = WORLD_COST,
        bidding: str = "simulation",
        weigh: bool = True,
        baseline: bool = False,
        move_ms: int | None = None,
        settings: Settings | None = None,
        name: str = "strong",
        calibration: Calibration | None = None,
    ) -> None:
        self.budget_ms = budget_ms
        self.max_nodes = max_nodes
        self.world_cost = world_cost
        self.bidding = bidding
        self.weigh = weigh
        self.baseline = baseline
        self.move_ms = move_ms
        chosen = settings or Settings()
        # the baselines search as they did then, whatever else they are set to do
        self.settings = replace(chosen, pruned=False) if baseline else chosen
        self.name = name
        self.model = BiddingModel.load()
        self.calibration = calibration or shipped_calibration()
        self.auctioneers: dict[Settings, Auctioneer] = {}

    def __call__(self, decision: Decision) -> Action:
        legal = decision.legal_actions
        if len(legal) == 1:
            return legal[0]
        if any(isinstance(a, Play) for a in legal):
            return self.play(decision, legal)
        if any(isinstance(a, DeclareTrump) for a in legal):
            return self.trump(decision, legal)
        return self.bid(decision, legal)

    def budgets(self, decision: Decision) -> Budgets:
        """This match's budgets: from the move time ``hello`` gave (or ``--move-ms``)."""
        limits = decision.hello.limits if decision.hello is not None else {}
        ms = self.move_ms or move_ms(limits, decision.time_ms)
        return Budgets(ms, fixed=self.baseline, settings=self.settings)

    def guard(self, budgets: Budgets) -> float:
        return budgets.seconds if self.budget_ms is None else self.budget_ms / 1000

    def auctioneer(self, budgets: Budgets) -> Auctioneer:
        settings = budgets.auction()
        if settings not in self.auctioneers:
            self.auctioneers[settings] = Auctioneer(self.model, self.calibration, settings)
        return self.auctioneers[settings]

    def play(self, decision: Decision, legal: list[Action]) -> Action:
        fallback = heuristic_bot.choose_play(decision.view, decision.seen, legal)
        assert isinstance(fallback, Play)
        tiles = [a.tile for a in legal if isinstance(a, Play)]
        budgets = self.budgets(decision)
        budget = budgets.play(decision.view)
        choice = choose_tile(
            decision.view,
            decision.seen,
            tiles,
            fallback.tile,
            decision.rng,
            self.guard(budgets),
            max_nodes=self.max_nodes or budget.nodes,
            max_worlds=budget.worlds,
            world_cost=self.world_cost,
            weigh=self.weigh,
            high_passes=self.settings.high_passes,
            read=self.settings.read_play,
            ahead=self.settings.look_ahead,
            margin=self.settings.tie_margin,
            pruned=self.settings.pruned,
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
        budgets = self.budgets(decision)
        verdict = self.auctioneer(budgets).bid(
            decision.view, legal, auction_rng(decision), self.guard(budgets)
        )
        return self.answer(decision, verdict)

    def trump(self, decision: Decision, legal: list[Action]) -> Action:
        if self.bidding == "model":
            return model_trump(self.model, decision.view, legal)
        budgets = self.budgets(decision)
        verdict = self.auctioneer(budgets).trump(
            decision.view, legal, auction_rng(decision), self.guard(budgets)
        )
        return self.answer(decision, verdict)

    def answer(self, decision: Decision, verdict: Verdict) -> Action:
        if verdict.clock_stopped:  # kept beside the match log by the referee
            print(
                f"act {decision.id}: out of time after {verdict.nodes} positions; a rerun of"
                " this match may choose otherwise here",
                file=sys.stderr,
            )
        return verdict.action


def auction_rng(decision: Decision) -> random.Random:
    """The randomness of one bidding or trump decision: seeded from the match's seed, the hand
    and the seat, so that it is reproducible and leaves ``decision.rng`` — the play's — as
    it was (a change to the bidding then changes no play of a hand bid alike)."""
    view = decision.view
    seed = decision.hello.seed if decision.hello is not None else 0
    return random.Random(f"{seed}/{view.hand_number}/{view.seat}/{view.phase}")


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="The strong Texas 42 bot.")
    parser.add_argument(
        "--budget-ms",
        type=float,
        help="milliseconds after which the clock stops a decision's search (default: 45%% of"
        " the move time; the baseline's, min(200, a fifth of it))",
    )
    parser.add_argument(
        "--move-ms",
        type=int,
        help="size the budgets for this move time instead of the one hello gives",
    )
    parser.add_argument("--nodes", type=int, help="positions searched per play")
    parser.add_argument(
        "--bidding",
        choices=("simulation", "model"),
        help="bids and trump by solved deals (the default), or by the fitted model alone",
    )
    parser.add_argument(
        "--uniform-worlds",
        action="store_true",
        help="count every world of the play alike, not as the auction makes it likely",
    )
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="a bid's chance counted on deals its trump was not chosen on (a lever on trial)",
    )
    parser.add_argument(
        "--distinct-deals",
        action="store_true",
        help="the auction's early stops count a deal drawn twice once (a lever on trial)",
    )
    parser.add_argument(
        "--unread-high-passes",
        action="store_true",
        help="read nothing into a pass over a bid above 34, which the auction model never saw"
        " (a lever on trial)",
    )
    parser.add_argument(
        "--unpruned-search",
        action="store_true",
        help="search every tile, strongest first, as the baselines do (the same answers from"
        " about twice the positions at the first lead, so fewer worlds; to measure against)",
    )
    parser.add_argument(
        "--calibration",
        type=Path,
        metavar="FILE",
        help="bid by this calibration (written by 'referee strong calibrate --out FILE')"
        " instead of the one shipped beside the bot",
    )
    parser.add_argument(
        "--read-play",
        action="store_true",
        help="weigh the play's worlds by what the other seats' plays say: count thrown to"
        " the opponents, tricks left to them (a lever on trial)",
    )
    parser.add_argument(
        "--look-ahead",
        type=int,
        default=0,
        metavar="TILES",
        help="look the best TILES (2-7) tiles of a play one of the seat's own moves deeper,"
        " where it must play one tile in every world it cannot tell apart (0: off, the"
        " default; a lever on trial)",
    )
    parser.add_argument(
        "--margin",
        type=int,
        default=0,
        metavar="POINTS",
        help="tell tiles that win (or lose) the same worlds apart by the same worlds with the"
        " bid POINTS (1-12) harder when they win, easier when they lose (0: off, the"
        " heuristic bot's tile, the default; a lever on trial)",
    )
    parser.add_argument(
        "--caution",
        type=float,
        default=0.0,
        metavar="MARKS",
        help="bid only when bidding is worth this many marks more than passing, -1 to 1"
        " (default 0; the simulation's bids, not the fitted model's fallback; a lever on"
        " trial)",
    )
    versions = parser.add_mutually_exclusive_group()
    versions.add_argument(
        "--baseline",
        action="store_true",
        help="play as the strong bot did before its budgets scaled with the move time (the"
        " same counts at any move time, hard decisions or not), to measure against",
    )
    versions.add_argument(
        "--older-baseline",
        action="store_true",
        help="play as the strong bot before that did (the fitted model's bids, uniform"
        " worlds, a Python search's budget)",
    )
    return parser


def strategy_from(argv: list[str]) -> Strong:
    """The bot its command-line flags describe (the arena plays it in process this way:
    ``--policy "s=strong --move-ms 250"``)."""
    flags = parser()
    args = flags.parse_args(argv)
    if not -1 <= args.caution <= 1:
        flags.error(f"--caution {args.caution}: give marks between -1 and 1")
    if not 0 <= args.margin <= 12:
        flags.error(f"--margin {args.margin}: give 0 (off) to 12 points")
    if args.look_ahead not in (0, *range(2, 8)):
        flags.error(f"--look-ahead {args.look_ahead}: give 0 (off) or 2 to 7 tiles to compare")
    refitted = None
    if args.calibration is not None:
        try:
            refitted = Calibration.load(args.calibration)
        except (OSError, ValueError, TypeError) as error:
            flags.error(
                f"--calibration {args.calibration}: not a calibration ({error}); 'referee"
                " strong calibrate LOGS --out FILE' writes one"
            )
    older = args.older_baseline
    return Strong(
        args.budget_ms,
        args.nodes or (BASELINE_NODES if older else None),
        BASELINE_WORLD_COST if older else WORLD_COST,
        args.bidding or ("model" if older else "simulation"),
        not (args.uniform_worlds or older),
        baseline=args.baseline or older,
        move_ms=args.move_ms,
        settings=Settings(
            held_out=args.held_out,
            distinct=args.distinct_deals,
            high_passes=not args.unread_high_passes,
            caution=args.caution,
            read_play=args.read_play,
            look_ahead=args.look_ahead,
            tie_margin=args.margin,
            pruned=not args.unpruned_search,
        ),
        name="strong-older-baseline" if older else "strong-baseline" if args.baseline else "strong",
        calibration=refitted,
    )


def main() -> None:
    strong = strategy_from(sys.argv[1:])
    core = "compiled" if SOLVER_CORE == "c" else "Python (no compiled core was built: slower)"
    if strong.max_nodes:
        budgets = f"{strong.max_nodes:,} positions a play"
    elif strong.baseline:
        budgets = "budgets as before, whatever the move time"
    else:
        budgets = "budgets scaled with the move time"
    print(
        f"strong bot ({strong.name}): the {core} search, {budgets}, bids by"
        f" {strong.bidding}, worlds {'weighed by the auction' if strong.weigh else 'uniform'}",
        file=sys.stderr,
    )
    run(strong, name=strong.name)


if __name__ == "__main__":
    main()
