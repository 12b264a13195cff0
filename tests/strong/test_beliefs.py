"""The auction model: what a bid or a pass says about a hand (a likelihood, fast enough to
weigh hundreds of deals a decision), and its fit to logs."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from referee.bot import Seen
from referee.rules import AllTricksBid, Bid, DeclareTrump, Hand, Pass, Tile
from referee.rules.actions import TRUMPS
from referee.rules.deal import deal
from referee.rules.tiles import TILES
from referee.rules.views import Move
from referee.solver.search import mask
from referee.strong import beliefs
from referee.strong.beliefs import ALL_TRICKS, Auction, Beliefs, Evidence, evidence, weight
from referee.strong.fit_beliefs import examples, fit
from referee.strong.logs import all_hands, log_paths

GOLDEN = Path(__file__).parent.parent / "golden" / "logs"
SIXES = mask([Tile(low, 6) for low in range(7)])
WEAK = mask([Tile(0, 1), Tile(0, 2), Tile(0, 3), Tile(1, 2), Tile(1, 3), Tile(0, 4), Tile(2, 4)])


def random_hands(count: int, seed: int = 1) -> list[int]:
    rng = random.Random(seed)
    return [mask(rng.sample(TILES, 7)) for _ in range(count)]


def test_a_bid_makes_a_strong_hand_likelier_and_a_pass_a_weak_one() -> None:
    bids = [Move(seat="B", action=Bid(points=30)), Move(seat="C", action=Pass())]
    assert weight(bids, "B", SIXES) > 10 * weight(bids, "B", WEAK)
    assert weight(bids, "C", WEAK) > 10 * weight(bids, "C", SIXES)  # C passed an opponent's 30


def test_a_higher_bid_says_more_and_a_pass_under_the_partner_says_nothing() -> None:
    hands = random_hands(400)
    opened = [Move(seat="A", action=Bid(points=30))]
    high = [Move(seat="A", action=Bid(points=36))]
    # The hands a 36 leaves likely are stronger, on average, than a 30's.
    model = beliefs.shipped()

    def mean_strength(bids: list[Move]) -> float:
        weights = [weight(bids, "A", h) for h in hands]
        return sum(w * model.strength(h) for w, h in zip(weights, hands, strict=True)) / sum(
            weights
        )

    assert mean_strength(high) > mean_strength(opened)
    under_partner = [*opened, Move(seat="B", action=Pass()), Move(seat="C", action=Pass())]
    assert {weight(under_partner, "C", h) for h in hands[:20]} == {1.0}
    assert weight(under_partner, "D", WEAK) == 1.0  # D has not spoken


def test_each_seats_evidence_is_read_from_the_auction() -> None:
    bids = [
        Move(seat="B", action=Pass()),
        Move(seat="C", action=Bid(points=30)),
        Move(seat="D", action=Bid(points=33)),
        Move(seat="A", action=Pass()),
    ]
    assert evidence(bids) == {
        "B": Evidence(30, bid=False, overcall=False),
        "C": Evidence(30, bid=True, overcall=False),
        "D": Evidence(33, bid=True, overcall=True),
        "A": Evidence(34, bid=False, overcall=True),
    }
    after_all_tricks = [Move(seat="B", action=AllTricksBid(marks=2)), Move(seat="C", action=Pass())]
    assert evidence(after_all_tricks)["C"] == Evidence(ALL_TRICKS, bid=False, overcall=True)


def test_a_pass_over_a_bid_above_34_is_read_only_when_asked() -> None:
    """The fit never saw a pass over 35 or more: unread, such a pass says nothing, while a
    pass over 34, a bid of 35 itself and a pass over all tricks are read as before."""
    bids = [
        Move(seat="A", action=Bid(points=34)),
        Move(seat="B", action=Pass()),
        Move(seat="C", action=Pass()),
        Move(seat="D", action=Bid(points=35)),
        Move(seat="A", action=Pass()),
    ]
    read, unread = evidence(bids), evidence(bids, high_passes=False)
    assert read["A"] == Evidence(36, bid=False, overcall=True)  # its pass over D's 35
    assert unread["A"] == Evidence(34, bid=True, overcall=False)  # its bid alone
    assert read["B"] == unread["B"] == Evidence(35, bid=False, overcall=True)
    assert unread["D"] == read["D"] == Evidence(35, bid=True, overcall=True)
    over = [*bids[:4], Move(seat="A", action=Bid(points=36)), Move(seat="B", action=Pass())]
    assert evidence(over)["B"] == Evidence(37, bid=False, overcall=True)
    assert evidence(over, high_passes=False)["B"] == Evidence(35, bid=False, overcall=True)
    top = [Move(seat="A", action=AllTricksBid(marks=2)), Move(seat="B", action=Pass())]
    assert evidence(top, high_passes=False)["B"] == Evidence(ALL_TRICKS, bid=False, overcall=True)
    sixes = 0b1111111 << 21  # the top seven tiles: a hand that would have bid
    assert Auction(over, high_passes=False).weight("B", sixes) != Auction(over).weight("B", sixes)


def test_the_declarers_trump_counts_once_a_contract_stands() -> None:
    hand = Hand("D", deal(3, 1, "D"))
    hand.apply("A", Bid(points=30))
    for seat in "BCD":
        hand.apply(seat, Pass())
    view = hand.view("B")  # no contract yet: the bid alone
    assert weight(view, "A", SIXES) == weight(list(view.bids), "A", SIXES)
    hand.apply("A", DeclareTrump(trump=6))
    view = hand.view("B")
    with_trump = weight(view, "A", SIXES) / weight(view, "A", WEAK)
    without = weight(view, "A", SIXES, contract=False) / weight(view, "A", WEAK, contract=False)
    assert with_trump > without  # all seven sixes: the sixes named say so again


def test_the_trump_chances_are_a_distribution() -> None:
    model = beliefs.shipped()
    for hand in random_hands(20):
        assert sum(model.trump_chance(hand, t) for t in TRUMPS) == pytest.approx(1.0)
    assert max(TRUMPS, key=lambda t: model.trump_chance(SIXES, t)) == 6


def test_strengths_are_the_sum_of_the_tiles_values() -> None:
    """The chunked tables give what the roles' values add up to, for every trump."""
    model = beliefs.shipped()
    for hand in random_hands(50, seed=2):
        for t, trump in enumerate(TRUMPS):
            counts = beliefs.role_counts(t, hand)
            expected = sum(v * c for v, c in zip(model.values, counts, strict=True))
            expected += model.count * beliefs.hand_count(hand)
            expected += model.no_trump if trump == "no_trump" else 0.0
            assert model.strengths(hand)[t] == pytest.approx(expected)


def test_a_weight_takes_microseconds() -> None:
    """Hundreds of deals are weighed per decision: a weight must cost a few microseconds
    (the bound is loose: a loaded machine must not fail it)."""
    hands = random_hands(2000, seed=3)
    auction = Auction.of((Move(seat="A", action=Bid(points=31)),))
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for hand in hands:
            auction.weight("A", hand)
        best = min(best, (time.perf_counter() - started) / len(hands))
    assert best < 100e-6


def test_the_model_round_trips_through_its_file(tmp_path: Path) -> None:
    model = beliefs.shipped()
    path = tmp_path / "beliefs.json"
    path.write_text(json.dumps(model.to_dict()))
    assert Beliefs.load(path).strengths(SIXES) == model.strengths(SIXES)


def test_the_fit_learns_that_bidders_are_stronger_from_logs() -> None:
    data = examples(list(all_hands(log_paths(GOLDEN))), names={"heuristic"})
    assert len(data) > 20
    model, line = fit(data, steps=60)
    assert "log-loss" in line
    said = [e for e in data if e.said is not None]
    bidders = [model.strength(e.hand) for e in said if e.said and e.said.bid]
    passers = [model.strength(e.hand) for e in said if e.said and not e.said.bid]
    assert sum(bidders) / len(bidders) > sum(passers) / len(passers)


def test_in_play_a_deal_is_weighed_by_the_hands_as_dealt() -> None:
    """Mid-hand, a seat's dealt hand is what a world gives it now plus what it played."""
    hand = Hand("D", deal(4, 1, "D"))
    hand.apply("A", Bid(points=31))
    for seat in "BCD":
        hand.apply(seat, Pass())
    hand.apply("A", DeclareTrump(trump=4))
    dealt = {seat: mask(tiles) for seat, tiles in hand.hands.items()}
    for _ in range(4):  # the first trick
        seat = hand.turn
        assert seat is not None
        hand.apply(seat, hand.legal_actions()[0])
    seen = Seen(hand.view("B"), hand.moves)
    played = beliefs.played_masks(seen)
    now = {seat: mask(tiles) for seat, tiles in hand.hands.items()}
    assert {seat: now[seat] | played[seat] for seat in now} == dealt
    auction = Auction.of(tuple(hand.view("B").bids), hand.view("B").contract)
    expected = 1.0
    for seat in "ACD":
        expected *= auction.weight(seat, dealt[seat])  # type: ignore[arg-type]
    assert auction.deal_weight(dealt, "B") == pytest.approx(expected)
    assert auction.weight("A", dealt["A"]) < 1.0  # the bid and the trump both count
