"""Bidding and declaring trump by simulation, as bridge's GIB bids: deal the 21 tiles this seat
cannot see as the auction makes them likely (``worlds``, weighed by ``beliefs``), solve each
deal exactly for each candidate trump (``solver``: do the declarers make the bid, this seat
leading?), and turn the share of deals made into the real chance of making it
(``calibration``: double-dummy play makes more than the bot's own).

- **Candidates.** The fitted feature model (``bidding``) ranks the trumps; the best few are
  solved (no trump too when the hand holds three doubles or more). A hand the model gives
  almost no chance passes without a deal solved.
- **Rounds.** Deals are solved a round at a time; after each, a trump that trails the best by
  more than the noise allows is dropped, and the search stops once the calibrated chance is
  clearly on one side of the chance it needs.
- **The chance it needs.** A pass that leaves the bid to nobody yet is worth nothing; a pass
  that leaves an opponent's contract standing costs what that contract is worth
  (``calibration.opponents_make``). It bids the lowest bid when bidding is worth more than
  passing, never over its partner; all tricks for two marks when two marks at that chance are
  worth more than one at the point bid's.
- **Trump.** The candidate trump made in the most deals at the contract's own target (all
  tricks: every trick), the worlds weighed by the whole auction.

Budgets: the decision's work is bounded by a count of positions (the same on every machine,
so a seeded bot decides alike on every run) and each deal's search by a count of its own (a
deal that needs more is dropped); the clock is only a guard. Everything random comes from the
decision's ``rng``. Without the compiled solver, or with too little time, the fitted model
answers alone (``fallback``).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from referee.rules.actions import (
    DOUBLES,
    NO_TRUMP,
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Pass,
    Trump,
)
from referee.rules.suits import CALLED, STRENGTH, TRUMP_SUIT, is_trump
from referee.rules.tiles import PARTNER_OF, SEATS, TILES, Seat, Tile
from referee.rules.views import View
from referee.solver import search as solver
from referee.solver.search import mask
from referee.strong.beliefs import Auction
from referee.strong.beliefs import shipped as shipped_beliefs
from referee.strong.bidding import CANDIDATE_TRUMPS, BiddingModel
from referee.strong.calibration import Calibration
from referee.strong.fallback import model_bid, model_trump
from referee.strong.simulation import Judge, Settings, Simulation
from referee.strong.worlds import draw

#: The doubles from which no trump is a candidate.
NO_TRUMP_DOUBLES = 3


@dataclass
class Verdict:
    """A decision and how it was reached."""

    action: Action
    #: Per trump solved: (deals made, deals solved) at the level decided on.
    tallies: dict[Trump, tuple[int, int]] = field(default_factory=dict)
    #: The calibrated chance of the action's contract (None: not simulated).
    chance: float | None = None
    nodes: int = 0
    simulated: bool = False
    clock_stopped: bool = False


def candidates(hand: int, chances: dict[Trump, float], count: int, margin: float) -> list[Trump]:
    """The trumps worth solving: the model's best ``count`` within ``margin`` of its best
    chance, and no trump (judged as doubles) when the hand holds many doubles."""
    ranked = sorted(chances, key=lambda t: -chances[t])
    top = chances[ranked[0]]
    chosen = [t for t in ranked[:count] if chances[t] >= top - margin]
    doubles = sum(1 for i, tile in enumerate(TILES) if hand >> i & 1 and tile.low == tile.high)
    if doubles >= NO_TRUMP_DOUBLES and chances[DOUBLES] >= top - margin:
        chosen.append(NO_TRUMP)
    return chosen


def cannot_lose(hand: list[Tile], trump: Trump) -> bool:
    """Does leading from the top take every trick, whatever the others hold? Its trumps are
    the suit's best and at least as many as are out (leading them draws every one), and every
    other tile is the best of the suit it calls but for tiles it holds itself."""
    suit = STRENGTH[trump][TRUMP_SUIT]
    members = sorted((t for t in TILES if is_trump(trump, t)), key=lambda t: -suit[t])
    trumps = [t for t in hand if is_trump(trump, t)]
    if set(members[: len(trumps)]) != set(trumps) or len(trumps) < len(members) - len(trumps):
        return False
    for tile in hand:
        if is_trump(trump, tile):
            continue
        called = STRENGTH[trump][CALLED[trump][tile]]
        if any(called[other] > called[tile] and other not in hand for other in TILES):
            return False
    return True


class Auctioneer:
    """The strong bot's bids and trump: by simulation where it can, by the model where not."""

    def __init__(
        self,
        model: BiddingModel,
        calibration: Calibration,
        settings: Settings | None = None,
    ) -> None:
        self.model = model
        self.calibration = calibration
        self.settings = settings or Settings()

    def simulating(self, budget: float) -> bool:
        return solver.CORE == "c" and budget >= self.settings.min_budget

    def chances(self, view: View, level: int) -> dict[Trump, float]:
        """The fitted model's chance of each trump at ``level`` (42: all tricks); no trump's
        is doubles' (the model knows no no trump)."""
        chances = {t: self.model.chance(view.hand, t, level) for t in CANDIDATE_TRUMPS}
        chances[NO_TRUMP] = chances[DOUBLES]
        return chances

    def simulation(self, view: View, rng: random.Random, budget: float) -> Simulation:
        """Deals for this seat's hand as the auction so far makes them likely."""
        deadline = time.perf_counter() + budget
        settings = self.settings
        worlds = draw(
            view.seat, mask(view.hand), Auction(view.bids, high_passes=settings.high_passes),
            rng, settings.worlds,
            settings.proposals,
        )  # fmt: skip
        return Simulation(view.seat, worlds.deals, settings, deadline)

    def bid(self, view: View, legal: list[Action], rng: random.Random, budget: float) -> Verdict:
        passing = next(a for a in legal if isinstance(a, Pass))
        if not self.simulating(budget):
            return Verdict(model_bid(self.model, view, legal))
        high = next((m for m in reversed(view.bids) if not isinstance(m.action, Pass)), None)
        if high is not None and high.seat == PARTNER_OF[view.seat]:
            return Verdict(passing)  # never over the partner
        points = [a for a in legal if isinstance(a, Bid)]
        all_tricks = sorted(
            (a for a in legal if isinstance(a, AllTricksBid)), key=lambda a: a.marks
        )
        if all_tricks and any(cannot_lose(view.hand, t) for t in (*CANDIDATE_TRUMPS, NO_TRUMP)):
            return Verdict(all_tricks[-1], chance=1.0)  # the most marks it may bid
        level = min(a.points for a in points) if points else None
        chances = self.chances(view, level or 42)
        if max(chances.values()) < self.settings.skip_below:
            return Verdict(passing)
        sim = self.simulation(view, rng, budget)
        caution = self.settings.caution
        # What passing is worth: nothing yet, or an opponent's contract standing.
        passing_value = 0.0
        if high is not None:
            stake = high.action.marks if isinstance(high.action, AllTricksBid) else 1
            theirs = self.calibration.opponents_make
            if isinstance(high.action, Bid):
                theirs = self._theirs(sim, high.seat, high.action.points)
            passing_value = -stake * (2 * theirs - 1)
        trumps = candidates(mask(view.hand), chances, self.settings.trumps, self.settings.margin)
        if level is None:  # an all-tricks bid stands: only the next one is left
            judge = Judge(self.calibration, chances, None)
            bid = all_tricks[0]
            tallies = sim.tally(trumps, None, judge)
            chance = judge.chance(judge.best(tallies), *tallies[judge.best(tallies)])
            action = bid if bid.marks * (2 * chance - 1) > passing_value + caution else passing
            return self._done(Verdict(action, tallies, chance), sim)
        # Bid when 2p - 1, the marks a bid is worth, beats passing.
        judge = Judge(self.calibration, chances, level, need=(1 + passing_value + caution) / 2)
        tallies = sim.tally(trumps, level, judge)
        best = judge.best(tallies)
        if tallies[best][1] == 0:
            return self._done(Verdict(model_bid(self.model, view, legal)), sim)
        chance = judge.chance(best, *tallies[best])
        honest = sim.held_out(level, judge) if self.settings.held_out else None
        if honest is not None:
            chance = judge.chance(best, *honest)
        verdict = Verdict(passing, tallies, chance)
        if 2 * chance - 1 > passing_value + caution:
            verdict.action = min(points, key=lambda a: a.points)
            if self.settings.jumps:
                verdict.action = self._level(view, sim, best, level, chance, points)
            made, solved = tallies[best]
            two = next((a for a in all_tricks if a.marks == 2), None)
            if (
                two is not None
                and self.calibration.all_tricks is not None
                and made >= self.settings.all_tricks_from * solved
            ):
                at_judge = Judge(self.calibration, self.chances(view, 42), None)
                at = sim.tally([best], None, at_judge)
                at_chance = at_judge.chance(best, *at[best])
                if 2 * (2 * at_chance - 1) > 2 * chance - 1:
                    verdict.action, verdict.chance = two, at_chance
        return self._done(verdict, sim)

    def _theirs(self, sim: Simulation, seat: Seat, points: int) -> float:
        """The chance an opponent's standing bid of ``points`` is made against this side:
        solved in the first deals, the opponent's trump the one its hand most likely names."""
        made, solved = sim.contract(
            SEATS.index(seat), points, shipped_beliefs().likeliest_trump,
            self.settings.defence_deals,
        )  # fmt: skip
        return self.calibration.opponents(made / solved if solved else None)

    def _level(
        self,
        view: View,
        sim: Simulation,
        trump: Trump,
        level: int,
        chance: float,
        points: list[Bid],
    ) -> Bid:
        """The point bid worth the most: a higher one is made less often but leaves the
        opponents who speak later fewer bids over it (their chance of bidding, from the
        auction model on their hands in each deal; an overcall leaves this side defending)."""
        me = SEATS.index(view.seat)
        speaking = (SEATS.index(view.dealer) - me) % 4  # seats still to speak after this one
        later = [SEATS[(me + i) % 4] for i in (1, 3) if i <= speaking]
        deals = sim.deals[: max(solved for _, solved in sim.last.values())]
        if not later or not deals:
            return min(points, key=lambda a: a.points)
        model = shipped_beliefs()
        defending = 1 - 2 * self.calibration.opponents_make

        def value(bid: int, made: float) -> float:
            over = 0.0
            for deal in deals:
                stays = 1.0
                for seat in later:
                    stays *= 1 - model.bid_chance(deal[SEATS.index(seat)], bid + 1, overcall=True)
                over += 1 - stays
            over /= len(deals)
            return (1 - over) * (2 * made - 1) + over * defending

        best, best_value = level, value(level, chance)
        for jump in self.settings.jumps:
            bid = min(41, level + jump)
            if bid == best:
                continue
            judge = Judge(self.calibration, self.chances(view, bid), bid)
            tallies = sim.tally([trump], bid, judge, len(deals))
            if tallies[trump][1] < len(deals):
                break  # out of positions
            worth = value(bid, judge.chance(trump, *tallies[trump]))
            if worth > best_value:
                best, best_value = bid, worth
        return Bid(points=best)

    def _done(self, verdict: Verdict, sim: Simulation) -> Verdict:
        verdict.nodes = sim.nodes
        verdict.simulated = True
        verdict.clock_stopped = sim.clock_stopped
        return verdict

    def trump(self, view: View, legal: list[Action], rng: random.Random, budget: float) -> Verdict:
        contract_bid = next(
            (m.action for m in reversed(view.bids) if not isinstance(m.action, Pass)), None
        )
        target = contract_bid.points if isinstance(contract_bid, Bid) else None
        piles = 1 if target is None else None
        fallback = model_trump(self.model, view, legal)
        if not self.simulating(budget):
            return Verdict(fallback)

        def declare(trump: Trump) -> Action:
            return next(
                (a for a in legal if isinstance(a, DeclareTrump) and a.trump == trump
                 and a.piles == piles),
                fallback,
            )  # fmt: skip

        if target is None:
            sure = [t for t in (*CANDIDATE_TRUMPS, NO_TRUMP) if cannot_lose(view.hand, t)]
            if sure:
                return Verdict(declare(sure[0]), chance=1.0)
        chances = self.chances(view, target or 42)
        trumps = candidates(mask(view.hand), chances, self.settings.trumps, self.settings.margin)
        if len(trumps) == 1:
            return Verdict(declare(trumps[0]))
        sim = self.simulation(view, rng, budget)
        judge = Judge(self.calibration, chances, target)
        tallies = sim.tally(trumps, target, judge)
        if all(solved == 0 for _, solved in tallies.values()):
            return self._done(Verdict(fallback), sim)
        best = max(trumps, key=lambda t: (tallies[t][0] / max(1, tallies[t][1]), chances[t]))
        if target is not None:
            best = judge.best(tallies)
        return self._done(Verdict(declare(best), tallies, judge.chance(best, *tallies[best])), sim)
