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
    #: The bid's chance counted on deals its trump was not chosen on (``held_out``), not as
    #: the best trump's share on the deals that chose it.
    held_out: bool = False
    #: The early stops' errors of the distinct deals solved, not of every deal drawn (a deal
    #: the resampling drew twice is one observation, not two).
    distinct: bool = False
    #: Read a pass over a point bid above 34 as the fitted model says (it never saw one).
    high_passes: bool = True
    #: Marks a bid must be worth above passing (0: bid at any edge). The estimate that
    #: decides a bid is the highest of several noisy ones, so a bid at a small edge is
    #: more often an overrated hand than a good one.
    caution: float = 0.0
    #: Weigh the play's worlds by what the other seats' plays say (``reading``).
    read_play: bool = False
    #: Tiles of the play scored one of the seat's own moves deeper (``lookahead``; 0: none).
    look_ahead: int = 0
    #: Points by which tied tiles of the play are compared again with a harder (winning) or
    #: easier (losing) bid (``play.tied_again``; 0: ties go to the heuristic bot's tile).
    tie_margin: int = 0
    #: Search pruned (twin tiles tried once, follows cheap first: the same answers from
    #: about half the positions, so more deals and worlds in the same count); False: as
    #: the baselines searched.
    pruned: bool = True


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
        found, answer = self._known(key)
        if found:
            return answer
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
            pruned=self.settings.pruned,
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

    def _known(self, key: tuple[Deal, int, Trump, int | None]) -> tuple[bool, bool | None]:
        """(found, the answer) already known for ``key``: asked before, or said by a higher
        bid made or a lower one set on the same deal, seat and trump."""
        if key in self._answers:
            return True, self._answers[key]
        deal, turn, trump, target = key
        if target is not None:
            for (other, seat, other_trump, other_target), answer in self._answers.items():
                if (other, seat, other_trump) == (deal, turn, trump) and other_target is not None:
                    if answer is True and other_target >= target:
                        return True, True
                    if answer is False and other_target <= target:
                        return True, False
        return False, None

    def held_out(self, target: int | None, judge: Judge) -> tuple[int, int] | None:
        """(deals made, deals solved) of the trump the last tally chose, counted on deals it
        was not chosen on, so that choosing the best of several trumps on the same deals adds
        no optimism (the bid's chance was the best trump's share: about 2-3 points too
        high). Two-fold: the trump best on the even deals is counted on the odd ones, and the
        other way round. Among the trumps the tally kept to its end (a trump dropped early
        trailed clearly), on the deals each of them was solved on; nothing is searched again.
        None: one trump kept, no choice to correct."""
        solved = max((n for _, n in self.last.values()), default=0)
        kept = [t for t, (_, n) in self.last.items() if n == solved]
        if len(kept) < 2:
            return None
        rows: list[dict[Trump, bool]] = []
        for deal in self.deals[:solved]:
            answers = {t: self._known((deal, self.turn, t, target))[1] for t in kept}
            if all(a is not None for a in answers.values()):
                rows.append({t: bool(a) for t, a in answers.items()})
        halves = (rows[0::2], rows[1::2])
        if not all(halves):
            return None
        made = 0
        for chosen_on, counted_on in (halves, halves[::-1]):
            share = {t: sum(row[t] for row in chosen_on) for t in kept}
            best = max(kept, key=lambda t: judge.chance(t, share[t], len(chosen_on)))
            made += sum(row[best] for row in counted_on)
        return made, len(rows)

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
        #: The distinct deals each trump was solved on: resampling repeats deals.
        distinct: dict[Trump, set[Deal]] = {t: set() for t in trumps}
        active = list(trumps)
        for k in range(len(self.deals) if deals is None else deals):
            for trump in active:
                answer = self.makes(k, trump, target)
                if answer is not None:
                    made[trump] += answer
                    solved[trump] += 1
                    distinct[trump].add(self.deals[k])
            if self.spent:
                break
            if (k + 1) % self.settings.round == 0:
                bounds = {
                    t: judge.bounds(
                        t, made[t], solved[t], len(distinct[t]) if self.settings.distinct else None
                    )
                    for t in active
                }
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

    def bounds(
        self, trump: Trump, made: int, solved: int, effective: int | None = None
    ) -> tuple[float, float, float]:
        """The chance two standard errors of the share below, at, and above it; the error is
        of ``effective`` independent deals when given (the distinct ones among those solved:
        a deal drawn twice is one observation), else of ``solved``."""
        p = (made + 0.5) / (solved + 1)
        error = 2 * math.sqrt(p * (1 - p) / max(1, solved if effective is None else effective))
        modelled = self.modelled[trump]
        return (
            self.calibration.chance(max(0.0, p - error), modelled, self.level),
            self.chance(trump, made, solved),
            self.calibration.chance(min(1.0, p + error), modelled, self.level),
        )

    def best(self, tallies: Tallies) -> Trump:
        """The trump of the highest chance (ties: the first)."""
        return max(tallies, key=lambda t: self.chance(t, *tallies[t]))
