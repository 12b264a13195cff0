"""Hand points, the early end of a hand, marks, and the end of the match."""

from __future__ import annotations

import pytest
from support.helpers import (
    EXAMPLE_DEAL,
    PASS,
    SIXES_TO_A,
    act,
    clockwise,
    contract_hand,
    deal_of,
    new_hand,
    play,
)

from referee.rules import (
    COUNT,
    TILES,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Event,
    HandEnded,
    HandStarted,
    Match,
    MatchEnded,
    Partnership,
    TrickTaken,
    tile,
)


def trick_points(events: list[Event]) -> list[tuple[int, str, str, int]]:
    return [(e.trick, e.winner, e.side, e.points) for e in events if isinstance(e, TrickTaken)]


# -- hand points --------------------------------------------------------------------------------


def test_count_tiles() -> None:
    expected = {tile("05"): 5, tile("14"): 5, tile("23"): 5, tile("46"): 10, tile("55"): 10}
    for t in TILES:
        assert COUNT[t] == expected.get(t, 0), t
        assert t.points == expected.get(t, 0), t
    assert sum(COUNT[t] for t in TILES) == 35
    assert len(TILES) == 28


def test_a_full_hand_is_worth_42_points() -> None:
    # A sweeps with all seven sixes; the others shed their tiles in dealt order.
    hand = contract_hand(SIXES_TO_A, "A", 6, AllTricksBid(1), 2)
    events: list[Event] = []
    for k, b, c, d in zip(
        ["66", "56", "46", "36", "26", "16", "06"],
        ["00", "01", "02", "03", "04", "05", "11"],
        ["12", "13", "14", "15", "22", "23", "24"],
        ["25", "33", "34", "35", "44", "45", "55"],
        strict=True,
    ):
        assert hand.phase == "playing"
        events += play(hand, f"{k} {b} {c} {d}")
    assert trick_points(events) == [
        (1, "A", "AC", 1),
        (2, "A", "AC", 1),
        (3, "A", "AC", 1 + 10 + 5),  # [4|6], [1|4]
        (4, "A", "AC", 1),
        (5, "A", "AC", 1),
        (6, "A", "AC", 1 + 5 + 5),  # [0|5], [2|3]
        (7, "A", "AC", 1 + 10),  # [5|5]
    ]
    assert hand.points == {"AC": 42, "BD": 0}
    result = hand.result
    assert result is not None
    assert (result.outcome, result.winner, result.marks, result.tricks) == ("made", "AC", 1, 7)
    assert result.points == {"AC": 42, "BD": 0}


# A holds six trumps (sixes) and [0|0]; D's [0|6] is the only other trump.
BID_41_DEAL = deal_of(
    "00 66 56 46 36 26 16",
    "01 02 03 04 05 11 12",
    "13 14 15 22 23 24 55",
    "06 25 33 34 35 44 45",
)


def test_41_made_on_the_last_trick_and_both_sides_sum_to_42() -> None:
    hand = contract_hand(BID_41_DEAL, "A", 6, Bid(41))
    events = play(hand, "00 01 22 06")  # D trumps a trick without count: BD 1 = 42 - 41
    assert hand.points == {"AC": 0, "BD": 1}
    assert hand.phase == "playing"  # 1 is not more than 42 - 41: not set yet
    events += play(hand, "33 36 03 13")
    for trick in ["66 02 14 25", "56 04 15 34", "46 05 23 35", "26 11 24 44"]:
        assert hand.phase == "playing"
        events += play(hand, trick)
    assert hand.points == {"AC": 30, "BD": 1}
    assert hand.phase == "playing"
    events += play(hand, "16 12 55 45")
    assert trick_points(events) == [
        (1, "D", "BD", 1),
        (2, "A", "AC", 1),
        (3, "A", "AC", 6),
        (4, "A", "AC", 1),
        (5, "A", "AC", 21),
        (6, "A", "AC", 1),
        (7, "A", "AC", 11),
    ]
    result = hand.result
    assert result is not None
    assert (result.outcome, result.winner, result.marks, result.tricks) == ("made", "AC", 1, 7)
    assert result.points == {"AC": 41, "BD": 1}
    assert sum(result.points.values()) == 42


# -- point contracts end as soon as the result is proven -----------------------------------------


def test_point_contract_made_as_soon_as_the_declarers_reach_the_bid() -> None:
    hand = contract_hand(SIXES_TO_A, "A", 6, Bid(38))
    play(hand, "66 05 14 55")
    assert hand.points == {"AC": 21, "BD": 0}
    play(hand, "56 00 23 25")
    assert hand.points == {"AC": 27, "BD": 0}
    assert (hand.phase, hand.result) == ("playing", None)
    events = play(hand, "46 01 12 33")
    assert isinstance(events[-1], HandEnded)
    result = hand.result
    assert result is not None
    assert (result.outcome, result.winner, result.marks) == ("made", "AC", 1)
    assert result.points == {"AC": 38, "BD": 0}
    assert result.tricks == 3
    assert hand.is_over
    assert {s: len(t) for s, t in hand.hands.items()} == {"A": 4, "B": 4, "C": 4, "D": 4}


def test_point_contract_set_as_soon_as_the_defenders_exceed_42_minus_bid() -> None:
    # B bids 36: the defenders A+C may hold 6 points; the 7th proves the contract lost.
    hand = contract_hand(SIXES_TO_A, "B", 6, Bid(36))
    assert hand.turn == "B"
    play(hand, "11 14 33 66")
    assert hand.points == {"AC": 6, "BD": 0}
    assert (hand.phase, hand.result) == ("playing", None)
    assert hand.turn == "A"
    events = play(hand, "56 00 12 34")
    assert isinstance(events[-1], HandEnded)
    result = hand.result
    assert result is not None
    assert (result.outcome, result.winner, result.marks) == ("set", "AC", 1)
    assert result.points == {"AC": 7, "BD": 0}
    assert result.tricks == 2


# -- all-tricks contracts -----------------------------------------------------------------------


@pytest.mark.parametrize("marks", [1, 2])
def test_all_tricks_made_after_the_seventh_trick_for_the_bid_marks(marks: int) -> None:
    hand = contract_hand(SIXES_TO_A, "A", 6, AllTricksBid(marks), 1)
    for trick in [
        "66 00 12 25",
        "56 01 13 33",
        "46 02 14 34",
        "36 03 15 35",
        "26 04 22 44",
        "16 05 23 45",
    ]:
        play(hand, trick)
        assert (hand.phase, hand.result) == ("playing", None)
    assert hand.points["AC"] >= 30  # a point contract would have ended long ago
    play(hand, "06 11 24 55")
    result = hand.result
    assert result is not None
    assert (result.outcome, result.winner, result.marks, result.tricks) == ("made", "AC", marks, 7)


def test_all_tricks_set_at_the_defenders_first_trick() -> None:
    # Fives trump: A holds only [5|6] as trump and leads sixes; B trumps the third trick.
    hand = contract_hand(SIXES_TO_A, "A", 5, AllTricksBid(2), 2)
    play(hand, "66 11 12 33")
    play(hand, "46 00 13 34")
    assert (hand.phase, hand.result) == ("playing", None)
    assert hand.tricks_won == {"AC": 2, "BD": 0}
    events = play(hand, "36 05 22 44")
    assert trick_points(events) == [(3, "B", "BD", 6)]
    result = hand.result
    assert result is not None
    assert (result.outcome, result.winner, result.marks, result.tricks) == ("set", "BD", 2, 3)
    assert result.points == {"AC": 12, "BD": 6}


def test_four_mark_all_tricks_contract() -> None:
    hand = new_hand("A", SIXES_TO_A)
    act(
        hand,
        ("B", AllTricksBid(1)),
        ("C", AllTricksBid(2)),
        ("D", AllTricksBid(3)),
        ("A", AllTricksBid(4)),
        ("A", DeclareTrump(6, 1)),
    )
    for trick in [
        "66 00 12 25",
        "56 01 13 33",
        "46 02 14 34",
        "36 03 15 35",
        "26 04 22 44",
        "16 05 23 45",
        "06 11 24 55",
    ]:
        play(hand, trick)
    result = hand.result
    assert result is not None
    assert (result.outcome, result.winner, result.marks) == ("made", "AC", 4)


def test_point_contract_is_worth_one_mark_whatever_the_bid() -> None:
    hand = contract_hand(SIXES_TO_A, "A", 6, Bid(41))
    for trick in ["66 05 14 55", "56 00 23 25", "46 01 12 33", "36 02 13 34", "26 03 15 35"]:
        play(hand, trick)
    assert hand.points == {"AC": 40, "BD": 0}
    assert (hand.phase, hand.result) == ("playing", None)
    play(hand, "16 04 22 44")
    result = hand.result
    assert result is not None
    assert (result.outcome, result.winner, result.marks) == ("made", "AC", 1)
    assert result.points == {"AC": 41, "BD": 0}
    assert result.tricks == 6


# -- marks in the match -------------------------------------------------------------------------


def match_at(marks: dict[Partnership, int], seed: int = 11) -> Match:
    """A match whose score is ``marks`` and whose current hand (dealt by D) is SIXES_TO_A.

    White-box set-up: the public ``marks`` and ``hand`` attributes are replaced, so the test
    controls the deal instead of searching seeds.
    """
    match = Match(seed)
    match.marks = dict(marks)
    match.hand = new_hand("D", SIXES_TO_A, hand_number=5, marks=match.marks)
    return match


SWEEP = ["66 00 12 25", "56 01 13 33", "46 02 14 34", "36 03 15 35", "26 04 22 44", "16 05 23 45"]


def test_only_the_declarers_score_when_made() -> None:
    match = match_at({"AC": 2, "BD": 4})
    act(match, ("A", Bid(38)), ("B", PASS), ("C", PASS), ("D", PASS), ("A", DeclareTrump(6)))
    events = play(match, "66 05 14 55 56 00 23 25 46 01 12 33")
    assert match.marks == {"AC": 3, "BD": 4}
    assert match.results[-1].winner == "AC"
    assert events[-1] == HandStarted(hand_number=6, dealer="A")
    assert match.hand.marks == {"AC": 3, "BD": 4}
    assert match.view("C").marks == {"AC": 3, "BD": 4}


def test_only_the_defenders_score_when_set() -> None:
    match = match_at({"AC": 2, "BD": 4})
    match.hand = new_hand("D", EXAMPLE_DEAL, hand_number=5, marks=match.marks)
    act(match, ("A", Bid(30)), ("B", PASS), ("C", PASS), ("D", PASS), ("A", DeclareTrump(6)))
    play(match, "55 35 05 66")
    assert match.marks == {"AC": 2, "BD": 5}


def test_match_is_won_with_overshoot_six_plus_two_is_eight() -> None:
    match = match_at({"AC": 6, "BD": 6})
    act(match, ("A", AllTricksBid(2)), ("B", PASS), ("C", PASS), ("D", PASS))
    act(match, ("A", DeclareTrump(6, 1)))
    for trick in SWEEP:
        play(match, trick)
        assert not match.is_over
    events = play(match, "06 11 24 55")
    assert match.marks == {"AC": 8, "BD": 6}
    assert match.winner == "AC"
    assert match.is_over
    assert events[-1] == MatchEnded(winner="AC", marks={"AC": 8, "BD": 6})
    assert not any(isinstance(e, HandStarted) for e in events)
    assert match.hand.hand_number == 5  # no new hand is dealt
    assert [r.outcome for r in match.results] == ["made"]


def test_match_is_won_at_exactly_seven() -> None:
    match = match_at({"AC": 5, "BD": 6})
    match.hand = new_hand("D", EXAMPLE_DEAL, hand_number=5, marks=match.marks)
    act(match, ("A", Bid(30)), ("B", PASS), ("C", PASS), ("D", PASS), ("A", DeclareTrump(6)))
    events = play(match, "55 35 05 66")
    assert match.marks == {"AC": 5, "BD": 7}
    assert match.winner == "BD"
    assert events[-1] == MatchEnded(winner="BD", marks={"AC": 5, "BD": 7})


def test_six_marks_do_not_win() -> None:
    match = match_at({"AC": 5, "BD": 0})
    act(match, ("A", Bid(38)), ("B", PASS), ("C", PASS), ("D", PASS), ("A", DeclareTrump(6)))
    play(match, "66 05 14 55 56 00 23 25 46 01 12 33")
    assert match.marks == {"AC": 6, "BD": 0}
    assert not match.is_over
    assert match.winner is None
    assert match.hand.phase == "bidding"


@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_seeded_match_keeps_score_and_rotates_the_deal(seed: int) -> None:
    """A whole match: the first bidder bids, the rest pass, everyone plays its first legal tile."""
    match = Match(seed)
    dealer = match.hand.dealer
    marks = {"AC": 0, "BD": 0}
    for number in range(1, 200):
        hand = match.hand
        assert hand.hand_number == number
        assert hand.dealer == dealer
        assert hand.marks == marks
        first = clockwise(dealer)[1]
        opening = AllTricksBid(2) if number % 3 == 0 else Bid(30)
        act(match, (first, opening), *((s, PASS) for s in clockwise(dealer)[2:]), (dealer, PASS))
        act(match, (first, DeclareTrump(number % 7, 1 if number % 3 == 0 else None)))
        while not hand.is_over:
            act(match, (hand.turn, match.legal_actions()[0]))  # type: ignore[arg-type]
        result = hand.result
        assert result is not None
        assert result.outcome in ("made", "set")
        assert result.winner == (
            hand.contract.declarers if result.outcome == "made" else hand.contract.defenders  # type: ignore[union-attr]
        )
        assert result.marks == (2 if number % 3 == 0 else 1)
        loser = "BD" if result.winner == "AC" else "AC"
        marks = {result.winner: marks[result.winner] + result.marks, loser: marks[loser]}
        assert match.marks == marks
        if max(marks.values()) >= 7:
            assert match.is_over
            assert match.winner == result.winner
            assert match.hand is hand
            assert len(match.results) == number
            return
        assert not match.is_over
        dealer = clockwise(dealer)[1]
    pytest.fail("the match never ended")
