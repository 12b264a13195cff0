"""Looking one of the seat's own moves ahead: the position after a tile is the engine's, one
world's score is the exact search's value, and many worlds' scores never exceed the sampled
worlds' counts — less where the win was a guess."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.strong import mid_hand, position_of, worlds_of

from referee.bot import Seen
from referee.rules import AllTricksBid, Bid, DeclareTrump, Hand, Pass, Play
from referee.rules.actions import TRUMPS, Trump
from referee.rules.deal import deal
from referee.rules.tiles import PARTNERSHIP_OF, SEATS, Seat
from referee.solver.search import INDEX, Position, Solver, advance, tables
from referee.strong.lookahead import SAMPLES, Ahead, pareto
from referee.strong.play import choose_tile


def contracted(seed: int, trump: Trump, points: int | None, bidder: Seat) -> Hand:
    """``bidder``'s contract (``points``, or all tricks for a mark when None), the first to
    speak, at the first lead."""
    dealer = SEATS[(SEATS.index(bidder) - 1) % 4]
    hand = Hand(dealer, deal(seed, 1, dealer))
    hand.apply(bidder, Bid(points=points) if points is not None else AllTricksBid(marks=1))
    for step in range(1, 4):
        hand.apply(SEATS[(SEATS.index(bidder) + step) % 4], Pass())
    hand.apply(bidder, DeclareTrump(trump=trump, piles=None if points is not None else 1))
    return hand


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    trump=st.sampled_from(TRUMPS),
    points=st.sampled_from([30, 34, 38, 41, None]),
    bidder=st.sampled_from(SEATS),
)
def test_the_position_after_a_tile_is_the_engines(
    seed: int, trump: Trump, points: int | None, bidder: Seat
) -> None:
    hand = contracted(seed, trump, points, bidder)
    declarers = 0 if PARTNERSHIP_OF[bidder] == "AC" else 1
    target = None if points is None else points
    rules = tables(trump)
    rng = random.Random(seed)
    while not hand.is_over:
        before = position_of(hand)
        action = rng.choice(hand.legal_actions())
        assert isinstance(action, Play) and hand.turn is not None
        hand.apply(hand.turn, action)
        after = advance(before, INDEX[action.tile], declarers, target, rules)
        if hand.is_over:
            assert hand.result is not None
            assert after == (hand.result.outcome == "made")
        else:
            assert after == position_of(hand)


def test_a_front_keeps_the_sets_no_other_contains() -> None:
    assert sorted(pareto([0b0011, 0b0001, 0b0110, 0b0011, 0b0100, 0])) == [0b0011, 0b0110]
    assert pareto([0]) == [0]


def ahead_of(hand: Hand) -> tuple[Ahead, list[int], bool]:
    """The look ahead for the seat to play (no count of positions), its legal tiles, and
    whether it declares."""
    seat = hand.turn
    assert seat is not None and hand.contract is not None
    ours = PARTNERSHIP_OF[seat] == hand.contract.declarers
    declarers = 0 if hand.contract.declarers == "AC" else 1
    target = hand.contract.bid.points  # type: ignore[union-attr]
    solver = Solver(hand.contract.trump, declarers, target)
    tiles = [INDEX[a.tile] for a in hand.legal_actions() if isinstance(a, Play)]
    return Ahead(solver, target, tables(hand.contract.trump), ours), tiles, ours


def counted(ahead: Ahead, worlds: list[Position], tile: int, ours: bool) -> list[bool]:
    """Which worlds ``tile`` wins one by one (the exact search's value in each)."""
    return [ahead.solver.move_values(position)[tile] == ours for position in worlds]


@pytest.mark.parametrize("seed", range(6))
def test_one_worlds_score_is_the_exact_value_and_many_never_exceed_the_count(seed: int) -> None:
    """With one world nothing is fused: the score is the search's value of the tile. Over many,
    a tile's score is at most the worlds it wins one by one."""
    hand = mid_hand(seed, tricks=3 + seed % 3)
    ahead, tiles, ours = ahead_of(hand)
    worlds = [position for position, _ in worlds_of(hand, 24, seed)]
    turn = worlds[0].turn
    for tile in tiles:
        wins = counted(ahead, worlds, tile, ours)
        for position, won in zip(worlds, wins, strict=True):
            assert ahead.score([position], tile, turn, [1.0]) == (1.0 if won else 0.0)
        assert ahead.score(worlds, tile, turn, [1.0] * len(worlds)) <= sum(wins)


def test_when_the_seat_leads_next_in_every_world_it_plays_one_tile_for_all() -> None:
    """Playing last to a trick it then wins, the seat leads next in every world with nothing
    new seen: the score is the best single next tile's weight of worlds, solved exactly."""
    checked = 0
    for seed in range(40):
        hand = mid_hand(seed, tricks=3)
        while len(hand.trick) < 3 and not hand.is_over:
            assert hand.turn is not None
            hand.apply(hand.turn, hand.legal_actions()[0])
        if hand.is_over:
            continue
        ahead, tiles, ours = ahead_of(hand)
        worlds = [position for position, _ in worlds_of(hand, 12, seed)]
        weights = [1.0 + world % 3 for world in range(len(worlds))]
        for tile in tiles:
            after = [advance(p, tile, ahead.solver.declarers, ahead.target, ahead.rules)
                     for p in worlds]  # fmt: skip
            if not all(isinstance(p, Position) and p.turn == worlds[0].turn for p in after):
                continue  # the trick is lost, or it ended the hand
            nexts = [ahead.solver.move_values(p) for p in after]  # type: ignore[arg-type]
            best = max(
                sum(w for w, values in zip(weights, nexts, strict=True) if values[t2] == ours)
                for t2 in nexts[0]
            )
            assert ahead.score(worlds, tile, worlds[0].turn, weights) == best
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize(("tricks", "seed"), [(2, 5), (3, 24)])
def test_a_win_that_needs_a_guess_scores_less_than_its_count(tricks: int, seed: int) -> None:
    """Positions (of the few in a hundred here) where a tile wins more worlds one by one than
    the seat can win playing one next tile in the worlds it cannot tell apart."""
    hand = mid_hand(seed, tricks)
    rng = random.Random(seed)
    for _ in range(rng.randrange(4)):
        assert hand.turn is not None
        hand.apply(hand.turn, rng.choice(hand.legal_actions()))
    ahead, tiles, ours = ahead_of(hand)
    worlds = [position for position, _ in worlds_of(hand, 16, seed)]
    fell = 0
    for tile in tiles:
        score = ahead.score(worlds, tile, worlds[0].turn, [1.0] * len(worlds))
        fell += score < sum(counted(ahead, worlds, tile, ours))
    assert fell > 0


def test_looking_ahead_repeats_for_a_seed_and_fits_its_count() -> None:
    hand = mid_hand(1, tricks=2)
    seat = hand.turn
    assert seat is not None
    view = hand.view(seat)
    seen = Seen(view, hand.moves)
    legal = [a.tile for a in hand.legal_actions() if isinstance(a, Play)]
    plain = choose_tile(view, seen, legal, legal[0], random.Random(4), 30.0)
    one = choose_tile(view, seen, legal, legal[0], random.Random(4), 30.0, ahead=3)
    two = choose_tile(view, seen, legal, legal[0], random.Random(4), 30.0, ahead=3)
    assert one == two and one.looked in SAMPLES and one.tile in legal and not one.clock_stopped
    assert (one.wins, one.worlds) == (plain.wins, plain.worlds)  # the same worlds counted
    small = choose_tile(
        view, seen, legal, legal[0], random.Random(4), 30.0, ahead=3, max_nodes=300_000
    )
    assert small.looked < one.looked and not small.clock_stopped
