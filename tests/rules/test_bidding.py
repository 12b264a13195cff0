"""One round of bidding: order, point bids, all-tricks bids, four passes, the declarer."""

from __future__ import annotations

import pytest
from support.helpers import (
    CANONICAL,
    PASS,
    act,
    assert_legal,
    assert_rejected,
    clockwise,
    new_hand,
)

from referee.errors import InvalidBid
from referee.rules import (
    SEATS,
    TRUMPS,
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    HandEnded,
    HandStarted,
    Match,
    Move,
    Seat,
)

LEFT: dict[Seat, Seat] = {"A": "B", "B": "C", "C": "D", "D": "A"}
OPENING: set[Action] = {PASS, *(Bid(p) for p in range(30, 42)), AllTricksBid(1), AllTricksBid(2)}


@pytest.mark.parametrize(
    ("dealer", "order"),
    [("A", "BCDA"), ("B", "CDAB"), ("C", "DABC"), ("D", "ABCD")],
)
def test_bidding_starts_left_of_dealer_and_the_dealer_speaks_last(dealer: Seat, order: str) -> None:
    hand = new_hand(dealer, CANONICAL)
    seen = []
    for action in (Bid(30), PASS, PASS, PASS):
        seen.append(hand.turn)
        assert hand.phase == "bidding"
        hand.apply(hand.turn, action)  # type: ignore[arg-type]
    assert "".join(seen) == order  # type: ignore[arg-type]
    assert hand.phase == "declaring"


def test_each_seat_speaks_once() -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", Bid(30)), ("B", Bid(31)), ("C", Bid(32)), ("D", Bid(33)))
    # After the dealer the bidding is over: nobody bids a second time.
    assert hand.phase == "declaring"
    assert hand.turn == "D"
    assert hand.bids == [
        Move("A", Bid(30)),
        Move("B", Bid(31)),
        Move("C", Bid(32)),
        Move("D", Bid(33)),
    ]


def test_opening_legal_actions() -> None:
    hand = new_hand("D", CANONICAL)
    assert_legal(hand, OPENING)
    assert len(hand.legal_actions()) == 15


def test_a_pass_keeps_every_bid_open() -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", PASS), ("B", PASS))
    assert_legal(hand, OPENING)


def test_legal_actions_over_a_point_bid() -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", Bid(33)))
    assert_legal(hand, {PASS, *(Bid(p) for p in range(34, 42)), AllTricksBid(1), AllTricksBid(2)})
    act(hand, ("B", PASS))
    # A pass does not lower the bar.
    assert_legal(hand, {PASS, *(Bid(p) for p in range(34, 42)), AllTricksBid(1), AllTricksBid(2)})


def test_legal_actions_over_41() -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", Bid(41)))
    assert_legal(hand, {PASS, AllTricksBid(1), AllTricksBid(2)})


@pytest.mark.parametrize(
    ("bids", "expected"),
    [
        ([AllTricksBid(1)], {PASS, AllTricksBid(2)}),
        ([AllTricksBid(2)], {PASS, AllTricksBid(3)}),
        ([Bid(35), AllTricksBid(1)], {PASS, AllTricksBid(2)}),
        ([AllTricksBid(1), PASS], {PASS, AllTricksBid(2)}),
        ([AllTricksBid(2), AllTricksBid(3), AllTricksBid(4)], {PASS, AllTricksBid(5)}),
    ],
)
def test_legal_actions_over_an_all_tricks_bid(bids: list[Action], expected: set[Action]) -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, *zip(clockwise("A"), bids, strict=False))
    assert_legal(hand, expected)


def test_point_bids_must_beat_the_current_point_bid() -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", Bid(33)))
    assert_rejected(hand, "B", Bid(33), InvalidBid, "bid must beat 33")
    assert_rejected(hand, "B", Bid(30), InvalidBid, "bid must beat 33")
    act(hand, ("B", Bid(34)))
    assert_rejected(hand, "C", Bid(34), InvalidBid, "bid must beat 34")
    act(hand, ("C", PASS), ("D", Bid(41)))
    assert hand.contract is None
    assert (hand.phase, hand.turn) == ("declaring", "D")


@pytest.mark.parametrize("points", [0, 29, 42, 43, 100, -30])
def test_point_bids_are_30_to_41(points: int) -> None:
    hand = new_hand("D", CANONICAL)
    assert_rejected(hand, "A", Bid(points), InvalidBid, "30")


@pytest.mark.parametrize("points", [30, 41])
def test_point_bid_bounds_are_legal(points: int) -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", Bid(points)))
    assert hand.bids == [Move("A", Bid(points))]
    assert hand.turn == "B"


@pytest.mark.parametrize("marks", [1, 2])
def test_first_all_tricks_bid_of_one_or_two(marks: int) -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", Bid(41)), ("B", AllTricksBid(marks)))
    assert hand.bids[-1] == Move("B", AllTricksBid(marks))


@pytest.mark.parametrize("marks", [0, 3, 4, -1])
def test_first_all_tricks_bid_is_not_other_marks(marks: int) -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", Bid(30)))
    assert_rejected(hand, "B", AllTricksBid(marks), InvalidBid, "1 or 2")


@pytest.mark.parametrize(("first", "bad"), [(1, 1), (1, 3), (2, 2), (2, 4), (2, 1)])
def test_later_all_tricks_bid_is_exactly_one_more(first: int, bad: int) -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", AllTricksBid(first)))
    assert_rejected(hand, "B", AllTricksBid(bad), InvalidBid, f"exactly {first + 1}")
    act(hand, ("B", AllTricksBid(first + 1)))
    assert hand.bids[-1] == Move("B", AllTricksBid(first + 1))


def test_all_tricks_bids_can_climb_around_the_table() -> None:
    hand = new_hand("D", CANONICAL)
    act(
        hand,
        ("A", AllTricksBid(2)),
        ("B", AllTricksBid(3)),
        ("C", AllTricksBid(4)),
        ("D", AllTricksBid(5)),
    )
    assert (hand.phase, hand.turn) == ("declaring", "D")
    act(hand, ("D", DeclareTrump(6, 1)))
    assert hand.contract is not None
    assert hand.contract.bid == AllTricksBid(5)
    assert hand.contract.stake == 5


@pytest.mark.parametrize("points", [30, 35, 41])
def test_no_point_bid_after_an_all_tricks_bid(points: int) -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", AllTricksBid(1)))
    assert_rejected(hand, "B", Bid(points), InvalidBid, "all.tricks")


def test_42_is_not_a_point_bid_even_as_the_top() -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", Bid(41)))
    assert Bid(42) not in hand.legal_actions()
    assert_rejected(hand, "B", Bid(42), InvalidBid, "41")


def test_four_passes_end_the_hand_without_marks() -> None:
    hand = new_hand("B", CANONICAL, marks={"AC": 2, "BD": 3})
    events = act(hand, ("C", PASS), ("D", PASS), ("A", PASS), ("B", PASS))
    assert hand.is_over
    assert hand.phase == "over"
    assert hand.turn is None
    assert hand.contract is None
    assert hand.legal_actions() == []
    result = hand.result
    assert result is not None
    assert (result.outcome, result.winner, result.marks) == ("passed", None, 0)
    assert result.tricks == 0
    assert isinstance(events[-1], HandEnded)
    assert events[-1].review.result == result


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 2**64 - 1])
def test_after_four_passes_the_next_seat_deals(seed: int) -> None:
    match = Match(seed)
    dealers = [match.hand.dealer]
    for number in range(2, 7):
        hand = match.hand
        events = act(match, *((seat, PASS) for seat in clockwise(LEFT[hand.dealer])))
        assert events[-1] == HandStarted(hand_number=number, dealer=LEFT[hand.dealer])
        assert match.hand is not hand
        assert match.hand.hand_number == number
        assert match.hand.phase == "bidding"
        assert match.hand.turn == LEFT[match.hand.dealer]
        dealers.append(match.hand.dealer)
    assert match.marks == {"AC": 0, "BD": 0}
    assert [r.outcome for r in match.results] == ["passed"] * 5
    assert all(r.winner is None and r.marks == 0 for r in match.results)
    assert not match.is_over
    first = SEATS.index(dealers[0])
    assert dealers == [SEATS[(first + k) % 4] for k in range(6)]


@pytest.mark.parametrize(
    ("dealer", "bids", "declarer", "bid"),
    [
        ("A", [Bid(30), Bid(35), PASS, PASS], "C", Bid(35)),
        ("A", [Bid(30), PASS, PASS, Bid(31)], "A", Bid(31)),
        ("A", [Bid(41), PASS, PASS, PASS], "B", Bid(41)),
        ("C", [PASS, PASS, PASS, Bid(30)], "C", Bid(30)),
        ("A", [AllTricksBid(1), PASS, AllTricksBid(2), PASS], "D", AllTricksBid(2)),
        ("A", [Bid(41), AllTricksBid(1), PASS, PASS], "C", AllTricksBid(1)),
        ("B", [Bid(40), PASS, AllTricksBid(2), PASS], "A", AllTricksBid(2)),
    ],
)
def test_highest_bidder_declares(
    dealer: Seat, bids: list[Action], declarer: Seat, bid: Action
) -> None:
    hand = new_hand(dealer, CANONICAL)
    act(hand, *zip(clockwise(LEFT[dealer]), bids, strict=True))
    assert hand.phase == "declaring"
    assert hand.turn == declarer
    if isinstance(bid, AllTricksBid):
        expected = {DeclareTrump(t, piles) for t in TRUMPS for piles in (1, 2)}
    else:
        expected = {DeclareTrump(t) for t in TRUMPS}
    assert_legal(hand, expected)
    act(hand, (declarer, DeclareTrump(3, 2 if isinstance(bid, AllTricksBid) else None)))
    assert hand.contract is not None
    assert hand.contract.declarer == declarer
    assert hand.contract.bid == bid
    # The declarer leads the first trick.
    assert (hand.phase, hand.turn) == ("playing", declarer)
