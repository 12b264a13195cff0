"""Solving sampled deals for the bidding: one decision's questions — does a side make a bid
under a trump, its declarer leading? — over one set of deals (``worlds``), within one count of
positions for the whole decision and one for each deal (a deal that needs more is dropped);
the clock is only a guard. ``Simulation.tally`` solves a question for a few trumps round by
round, dropping trumps that trail and stopping once the answer is clear; ``Judge`` turns the
deals made into the real chance of making the contract (``calibration``)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from referee.rules.actions import Trump
from referee.rules.tiles import SEATS, Seat
from referee.solver import search as solver
from referee.solver.search import OutOfTime, Position
from referee.strong.calibration import Calibration
from referee.strong.worlds import Deal

#: Positions a solved deal is charged for setting it up (about its time in positions).
SOLVE_COST = 1_000


@dataclass(frozen=True)
class Settings:
    """The counts that bound a decision, and the choices' thresholds."""

    #: Deals solved per question at most, and the uniform deals weighed to draw them.
    worlds: int = 32
    proposals: int = 128
    #: Deals solved between checks (pruning trumps, stopping once clear).
    round: int = 8
    #: Positions a decision searches at most, and one deal at most.
    max_nodes: int = 1_500_000
    deal_nodes: int = 600_000
    #: Deals an opponent's standing contract is solved in, to price a pass.
    defence_deals: int = 16
    #: Trumps solved at most, and how far under the best the model's chance may be.
    trumps: int = 3
    margin: float = 0.2
    #: The fitted model's chance under which a hand passes unsolved.
    skip_below: float = 0.08
    #: Simulated chance at the point bid from which all tricks is solved too.
    all_tricks_from: float = 0.85
    #: Bids above the lowest weighed as well (points above it), to keep later opponents out:
    #: none by default (measured: see the strong bot's README section).
    jumps: tuple[int, ...] = ()
    #: Seconds under which the fitted model answers alone.
    min_budget: float = 0.03


class Simulation:
    """One decision's questions on one set of deals, within one count of positions."""

    def __init__(self, seat: Seat, deals: list[Deal], settings: Settings, deadline: float) -> None:
        self.turn = SEATS.index(seat)
        self.deals = deals
        self.settings = settings
        self.deadline = deadline
        self.nodes = 0
        self.clock_stopped = False
        self._answers: dict[tuple[Deal, int, Trump, int | None], bool | None] = {}
        #: The last tally's counts.
        self.last: Tallies = {}

    @property
    def spent(self) -> bool:
        return self.clock_stopped or self.nodes >= self.settings.max_nodes

    def makes(
        self, k: int, trump: Trump, target: int | None, declarer: int | None = None
    ) -> bool | None:
        """Does the ``declarer``'s side (a seat's index; None: this seat's) make ``target``
        (None: every trick) in deal ``k`` under ``trump``, the declarer leading? None: not
        known within the budgets."""
        deal = self.deals[k]
        turn = self.turn if declarer is None else declarer
        key = (deal, turn, trump, target)
        if key in self._answers:
            return self._answers[key]
        if target is not None:  # made at a higher bid, or set at a lower one, says it already
            for (other, seat, other_trump, other_target), answer in self._answers.items():
                if (other, seat, other_trump) == (deal, turn, trump) and other_target is not None:
                    if answer is True and other_target >= target:
                        return True
                    if answer is False and other_target <= target:
                        return False
        if self.spent:
            return None
        if time.perf_counter() > self.deadline:
            self.clock_stopped = True
            return None
        left = self.settings.max_nodes - self.nodes
        search = solver.Solver(
            trump,
            turn % 2,
            target,
            deadline=self.deadline,
            max_nodes=min(self.settings.deal_nodes, left),
        )
        made: bool | None
        try:
            made = search.makes(Position(hands=deal, turn=turn))
        except OutOfTime:
            made = None
            self.clock_stopped = time.perf_counter() > self.deadline
        self.nodes += search.nodes + SOLVE_COST
        if made is not None or search.nodes < left:  # too hard a deal is dropped for good
            self._answers[key] = made
        return made

    def contract(
        self, declarer: int, target: int, trump_of: Callable[[int], Trump], deals: int
    ) -> tuple[int, int]:
        """(deals made, deals solved) of another seat's contract over the first ``deals``
        deals: the ``declarer``'s side at ``target``, under the trump ``trump_of`` its hand
        (a mask) in each deal."""
        made = solved = 0
        for k in range(min(deals, len(self.deals))):
            trump = trump_of(self.deals[k][declarer])
            answer = self.makes(k, trump, target, declarer)
            if answer is not None:
                made += answer
                solved += 1
            if self.spent:
                break
        return made, solved

    def tally(
        self, trumps: list[Trump], target: int | None, judge: Judge, deals: int | None = None
    ) -> Tallies:
        """(deals made, deals solved) per trump at ``target`` over the first ``deals`` deals
        (None: all), round by round: a trump whose chance is surely under the best one's is
        dropped, and the rounds end once the best one's is surely above or below
        ``judge.need`` (None: never early)."""
        made = dict.fromkeys(trumps, 0)
        solved = dict.fromkeys(trumps, 0)
        active = list(trumps)
        for k in range(len(self.deals) if deals is None else deals):
            for trump in active:
                answer = self.makes(k, trump, target)
                if answer is not None:
                    made[trump] += answer
                    solved[trump] += 1
            if self.spent:
                break
            if (k + 1) % self.settings.round == 0:
                bounds = {t: judge.bounds(t, made[t], solved[t]) for t in active}
                best = max(active, key=lambda t: bounds[t][1])
                active = [t for t in active if bounds[t][2] >= bounds[best][1]]
                low, _, high = bounds[best]
                if judge.need is not None and (high < judge.need or low > judge.need):
                    break
        self.last = {t: (made[t], solved[t]) for t in trumps}
        return self.last


Tallies = dict[Trump, tuple[int, int]]


@dataclass(frozen=True)
class Judge:
    """Turns deals made into the real chance of making a contract (``calibration``, with the
    fitted model's chance of each trump), and says when that is clear enough."""

    calibration: Calibration
    modelled: dict[Trump, float]
    level: int | None
    #: The chance the decision turns on (None: none, the choice of a trump).
    need: float | None = None

    def chance(self, trump: Trump, made: int, solved: int) -> float:
        if not solved:
            return 0.0
        return self.calibration.chance(made / solved, self.modelled[trump], self.level)

    def bounds(self, trump: Trump, made: int, solved: int) -> tuple[float, float, float]:
        """The chance two standard errors of the share below, at, and above it."""
        p = (made + 0.5) / (solved + 1)
        error = 2 * math.sqrt(p * (1 - p) / max(1, solved))
        modelled = self.modelled[trump]
        return (
            self.calibration.chance(max(0.0, p - error), modelled, self.level),
            self.chance(trump, made, solved),
            self.calibration.chance(min(1.0, p + error), modelled, self.level),
        )

    def best(self, tallies: Tallies) -> Trump:
        """The trump of the highest chance (ties: the first)."""
        return max(tallies, key=lambda t: self.chance(t, *tallies[t]))
