"""Bidding and declaring trump by simulation: sensible on constructed hands, reproducible for
a seed, within its counts and its clock, and the fitted model's answer without the compiled
solver."""

from __future__ import annotations

import random
import statistics
import time

import pytest

from referee.rules import AllTricksBid, Bid, DeclareTrump, Hand, Pass, Tile
from referee.rules.deal import deal
from referee.rules.tiles import TILES, Seat
from referee.solver import search as solver
from referee.solver.search import mask
from referee.strong.auction import Auctioneer, Verdict
from referee.strong.bidding import BiddingModel
from referee.strong.calibration import Calibration, shipped
from referee.strong.fallback import model_bid, model_trump
from referee.strong.simulation import Judge, Settings, Simulation

SIXES = [Tile(low, 6) for low in range(7)]
FIVES = [Tile(5, 5), Tile(5, 6), Tile(4, 5), Tile(0, 5), Tile(3, 3), Tile(1, 1), Tile(2, 6)]
WEAK = [Tile(0, 1), Tile(0, 2), Tile(0, 3), Tile(1, 2), Tile(1, 3), Tile(0, 4), Tile(2, 4)]


def auctioneer(**settings: object) -> Auctioneer:
    return Auctioneer(BiddingModel.load(), shipped(), Settings(**settings))  # type: ignore[arg-type]


def dealt(first: list[Tile], seed: int = 1) -> Hand:
    """A hand with the dealer D and A (the first to bid) holding ``first``."""
    rest = [tile for tile in TILES if tile not in first]
    random.Random(seed).shuffle(rest)
    return Hand("D", {"A": list(first), "B": rest[:7], "C": rest[7:14], "D": rest[14:]})


def bid(
    hand: Hand, seat: Seat, rng: random.Random, budget: float = 5.0, **settings: int
) -> Verdict:
    return auctioneer(**settings).bid(hand.view(seat), hand.legal_actions(), rng, budget)


def test_a_hand_of_every_trump_bids_all_tricks_for_two_marks_and_names_that_trump() -> None:
    hand = dealt(SIXES)
    verdict = bid(hand, "A", random.Random(1))
    assert verdict.action == AllTricksBid(marks=2)  # it cannot lose a trick
    hand.apply("A", verdict.action)
    for seat in "BCD":
        hand.apply(seat, Pass())
    named = auctioneer().trump(hand.view("A"), hand.legal_actions(), random.Random(2), 5.0)
    assert named.action == DeclareTrump(trump=6, piles=1)


def test_a_strong_hand_bids_from_solved_deals_and_names_its_long_suit() -> None:
    strong = [Tile(6, 6), Tile(5, 6), Tile(4, 6), Tile(3, 6), Tile(5, 5), Tile(4, 4), Tile(0, 1)]
    hand = dealt(strong)
    verdict = bid(hand, "A", random.Random(1))
    assert verdict.simulated and verdict.action == Bid(points=30)
    assert verdict.chance is not None and verdict.chance > 0.6
    made, solved = verdict.tallies[6]
    assert solved >= Settings().round and made == solved
    hand.apply("A", verdict.action)
    for seat in "BCD":
        hand.apply(seat, Pass())
    named = auctioneer().trump(hand.view("A"), hand.legal_actions(), random.Random(2), 5.0)
    assert named.action == DeclareTrump(trump=6)


def test_a_weak_hand_passes() -> None:
    for seed in range(3):
        assert bid(dealt(WEAK, seed), "A", random.Random(seed)).action == Pass()


def test_it_never_bids_over_its_partner() -> None:
    rest = [tile for tile in TILES if tile not in SIXES and tile not in WEAK]
    hand = Hand("D", {"A": WEAK, "B": rest[:7], "C": SIXES, "D": rest[7:]})
    hand.apply("A", Bid(points=30))
    hand.apply("B", Pass())
    verdict = bid(hand, "C", random.Random(1))
    assert verdict.action == Pass() and not verdict.simulated


def test_the_same_seed_decides_the_same_way_from_the_same_deals() -> None:
    for seed in range(3):
        hand = Hand("D", deal(seed, 1, "D"))
        hand.apply("A", Bid(points=30))
        one = bid(hand, "B", random.Random(seed))
        two = bid(hand, "B", random.Random(seed))
        assert (one.action, one.tallies, one.nodes) == (two.action, two.tallies, two.nodes)


def test_the_count_of_positions_ends_a_decision_not_the_clock() -> None:
    hand = dealt(
        [Tile(5, 5), Tile(5, 6), Tile(4, 5), Tile(0, 5), Tile(3, 3), Tile(1, 1), Tile(2, 6)]
    )
    verdict = bid(hand, "A", random.Random(3), max_nodes=200_000)
    assert verdict.simulated and not verdict.clock_stopped
    assert verdict.nodes <= 200_000 + Settings().deal_nodes
    solved = sum(n for _, n in verdict.tallies.values())
    more = bid(hand, "A", random.Random(3), max_nodes=2_000_000)
    assert sum(n for _, n in more.tallies.values()) >= solved


def test_a_decision_never_passes_its_budget() -> None:
    hand = dealt(
        [Tile(5, 5), Tile(5, 6), Tile(4, 5), Tile(0, 5), Tile(3, 3), Tile(1, 1), Tile(2, 6)]
    )
    for seed in range(3):
        started = time.perf_counter()
        verdict = bid(hand, "A", random.Random(seed), budget=0.04, max_nodes=10**9)
        assert time.perf_counter() - started < 0.04 + 0.03
        assert verdict.action in hand.legal_actions()


def test_too_little_time_leaves_it_to_the_model() -> None:
    hand = dealt(SIXES)
    verdict = bid(hand, "A", random.Random(1), budget=0.001)
    assert not verdict.simulated
    assert verdict.action == model_bid(BiddingModel.load(), hand.view("A"), hand.legal_actions())


def test_without_the_compiled_solver_the_model_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver, "CORE", "python")
    monkeypatch.setattr(solver, "Solver", solver.PythonSolver)
    model = BiddingModel.load()
    for seed in range(4):
        hand = Hand("D", deal(seed, 1, "D"))
        verdict = bid(hand, "A", random.Random(seed))
        assert not verdict.simulated
        assert verdict.action == model_bid(model, hand.view("A"), hand.legal_actions())
    hand = dealt(SIXES)
    hand.apply("A", Bid(points=30))
    for seat in "BCD":
        hand.apply(seat, Pass())
    named = auctioneer().trump(hand.view("A"), hand.legal_actions(), random.Random(1), 5.0)
    assert named.action == model_trump(model, hand.view("A"), hand.legal_actions())


def test_an_opponents_standing_bid_is_priced_by_solving_it() -> None:
    """Over B's 30, A holding every six: B's side rarely makes 30 whatever trump it names, and
    the calibrated chance of its contract falls with the share of deals it makes."""
    rest = [tile for tile in TILES if tile not in SIXES]
    random.Random(4).shuffle(rest)
    deals = [
        (mask(SIXES), mask(rest[:7]), mask(rest[7:14]), mask(rest[14:])),
        (mask(rest[:7]), mask(SIXES), mask(rest[7:14]), mask(rest[14:])),
    ]
    sim = Simulation("A", deals, Settings(), time.perf_counter() + 60)
    made, solved = sim.contract(1, 30, lambda hand: 6, deals=2)
    assert solved == 2 and made == 1  # B makes 30 holding the sixes, not against them
    assert sim.makes(1, 6, 30, declarer=1) is True and sim.makes(0, 6, 30, declarer=1) is False
    calibration = Calibration(defence_intercept=0.0, defence_slope=1.0, opponents_make=0.55)
    assert calibration.opponents(0.2) < calibration.opponents(0.9)
    assert calibration.opponents(None) == 0.55
    assert Calibration(opponents_make=0.55).opponents(0.9) == 0.55  # no map fitted


def test_a_higher_bid_is_weighed_only_with_opponents_left_to_keep_out() -> None:
    """Levels above the lowest are a setting (measured against the heuristic bot, they lost
    matches): the last to speak has nobody to keep out and bids the lowest; the first may
    bid higher, one of the levels weighed."""
    strong = [Tile(6, 6), Tile(5, 6), Tile(4, 6), Tile(3, 6), Tile(5, 5), Tile(4, 4), Tile(0, 1)]
    jumping = auctioneer(jumps=(2, 4))
    first = dealt(strong)
    verdict = jumping.bid(first.view("A"), first.legal_actions(), random.Random(5), 5.0)
    assert verdict.action in (Bid(points=30), Bid(points=32), Bid(points=34))
    rest = [tile for tile in TILES if tile not in strong]
    last = Hand("D", {"A": rest[:7], "B": rest[7:14], "C": rest[14:], "D": strong})
    for seat in "ABC":
        last.apply(seat, Pass())
    verdict = jumping.bid(last.view("D"), last.legal_actions(), random.Random(5), 5.0)
    assert verdict.action == Bid(points=30)


def _coin_flips(trumps: int, deals: int, rng: random.Random) -> Simulation:
    """A simulation whose answers are coin flips, each trump made on half the deals: the
    trumps are all alike, so any one's share is an honest estimate of one half."""
    fake: list[tuple[int, int, int, int]] = [(k, 0, 0, 0) for k in range(deals)]
    sim = Simulation("A", fake, Settings(), time.perf_counter() + 60)
    kinds = list(range(trumps))
    for world in fake:
        for trump in kinds:
            sim._answers[(world, 0, trump, 30)] = rng.random() < 0.5  # type: ignore[index]
    sim.last = {t: (sum(sim._answers[(d, 0, t, 30)] for d in fake), deals) for t in kinds}  # type: ignore[index]
    return sim


def test_the_held_out_chance_loses_the_best_of_trumps_optimism() -> None:
    """The best of three alike trumps' shares over 32 deals averages well over one half (the
    selection's optimism); counted on the deals it was not chosen on, one half."""
    judge = Judge(shipped(), dict.fromkeys(range(3), 0.5), 30)
    rng = random.Random(5)
    best, held = [], []
    for _ in range(400):
        sim = _coin_flips(3, 32, rng)
        best.append(max(made for made, _ in sim.last.values()) / 32)
        counted = sim.held_out(30, judge)
        assert counted is not None and counted[1] == 32
        held.append(counted[0] / counted[1])
    assert statistics.mean(best) > 0.55
    assert abs(statistics.mean(held) - 0.5) < 0.015


def test_one_trump_kept_has_no_choice_to_correct() -> None:
    sim = _coin_flips(1, 32, random.Random(1))
    assert sim.held_out(30, Judge(shipped(), {0: 0.5}, 30)) is None
    two = _coin_flips(2, 32, random.Random(1))
    two.last[1] = (two.last[1][0], 8)  # trump 1 was dropped after a round: trump 0 is kept alone
    assert two.held_out(30, Judge(shipped(), {0: 0.5, 1: 0.5}, 30)) is None


def test_the_bid_takes_the_held_out_count_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked, the bid's chance is the chosen trump's at the held-out count (here a poor one, so
    the strong hand's bid turns to a pass); not asked, the tally's, and the bid stands."""
    strong = [Tile(6, 6), Tile(5, 6), Tile(4, 6), Tile(3, 6), Tile(5, 5), Tile(4, 4), Tile(0, 1)]
    asked: list[int | None] = []

    def poor(self: Simulation, target: int | None, judge: Judge) -> tuple[int, int]:
        asked.append(target)
        return 1, 16

    monkeypatch.setattr(Simulation, "held_out", poor)
    plain = bid(dealt(strong), "A", random.Random(1))
    assert plain.action == Bid(points=30) and not asked
    held = bid(dealt(strong), "A", random.Random(1), held_out=True)
    assert asked == [30] and held.tallies == plain.tallies
    assert held.chance is not None and held.chance < 0.5 and held.action == Pass()


def test_a_deal_drawn_again_is_not_a_new_observation_for_the_early_stop() -> None:
    """Eight deals, each drawn four times in a row, all made: counted as 32 the first round
    of eight looks sure and the tally stops; counted as the distinct deals it has seen (two
    after a round) it goes on until enough distinct ones agree."""
    worlds: list[tuple[int, int, int, int]] = [(k, 0, 0, 0) for k in range(8) for _ in range(4)]
    judge = Judge(shipped(), {0: 0.5}, 30, need=shipped().chance(0.7, 0.5, 30))
    solved = {}
    for distinct in (False, True):
        sim = Simulation("A", worlds, Settings(distinct=distinct), time.perf_counter() + 60)
        for world in set(worlds):
            sim._answers[(world, 0, 0, 30)] = True  # type: ignore[index]
        solved[distinct] = sim.tally([0], 30, judge)[0][1]  # type: ignore[list-item]
    assert solved == {False: 8, True: 16}
    wide, narrow = judge.bounds(0, 8, 8, effective=2), judge.bounds(0, 8, 8)
    assert wide[0] < narrow[0] and wide[1] == narrow[1] and wide[2] >= narrow[2]


def test_caution_passes_a_bid_worth_less_than_it_over_passing() -> None:
    """The first to speak bids when its chance is worth more marks than passing (nothing yet)
    by the caution: a hand it opens at no caution passes once the caution is above what its
    bid was worth, and each verdict keeps to its own rule."""
    flipped = 0
    for seed in range(40):
        hand = Hand("D", deal(seed, 1, "D"))
        plain = bid(hand, "A", random.Random(seed))
        if not isinstance(plain.action, Bid) or plain.chance is None:
            continue
        caution = min(0.95, 2 * plain.chance - 1 + 0.1)
        careful = auctioneer(caution=caution).bid(
            hand.view("A"), hand.legal_actions(), random.Random(seed), 5.0
        )
        assert careful.chance is not None
        assert isinstance(careful.action, Bid) == (2 * careful.chance - 1 > caution)
        flipped += isinstance(careful.action, Pass)
    assert flipped >= 3
