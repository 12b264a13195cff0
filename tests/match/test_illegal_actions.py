"""Every kind of illegal action: the exact exception, a helpful message, and nothing changed."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support.helpers import (
    EXAMPLE_DEAL,
    PASS,
    act,
    assert_match_rejected,
    assert_rejected,
    contract_hand,
    hand_state,
    match_state,
    new_hand,
    play,
)

from referee.errors import (
    GameOver,
    IllegalAction,
    InvalidBid,
    InvalidDeclaration,
    MustFollowSuit,
    NotAnAction,
    NotYourTurn,
    RulesError,
    TileNotInHand,
    WrongPhase,
    reason_code,
)
from referee.rules import (
    SEATS,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Hand,
    Match,
    Play,
    tile,
)

# -- situations ---------------------------------------------------------------------------------


def bidding() -> Hand:
    """Dealer D: A to bid first."""
    return new_hand("D", EXAMPLE_DEAL)


def over_33() -> Hand:
    hand = bidding()
    act(hand, ("A", Bid(33)))
    return hand


def over_all_tricks_1() -> Hand:
    hand = bidding()
    act(hand, ("A", AllTricksBid(1)))
    return hand


def declaring_points() -> Hand:
    hand = bidding()
    act(hand, ("A", Bid(30)), ("B", PASS), ("C", PASS), ("D", PASS))
    return hand


def declaring_all_tricks() -> Hand:
    hand = bidding()
    act(hand, ("A", PASS), ("B", PASS), ("C", AllTricksBid(2)), ("D", PASS))
    return hand


def leading() -> Hand:
    """Sixes trump, A (declarer) to lead."""
    return contract_hand(EXAMPLE_DEAL, "A", 6, Bid(30))


def following_fives() -> Hand:
    """A led [5|5]; B holds [3|5] (its only five), [1|6] and [2|6] (trumps)."""
    hand = leading()
    play(hand, "55")
    return hand


def following_trump() -> Hand:
    """A led the trump [0|6]; B holds the trumps [1|6] and [2|6]."""
    hand = leading()
    play(hand, "06")
    return hand


def over_after_passes() -> Hand:
    hand = bidding()
    act(hand, ("A", PASS), ("B", PASS), ("C", PASS), ("D", PASS))
    return hand


def over_after_set() -> Hand:
    hand = following_fives()
    play(hand, "35 05 66")
    return hand


T = tile

CASES: list[tuple[str, Callable[[], Hand], str, object, type[RulesError], str]] = [
    # not your turn
    ("bid-out-of-turn", bidding, "B", PASS, NotYourTurn, r"turn"),
    ("dealer-bids-first", bidding, "D", Bid(30), NotYourTurn, r"turn"),
    ("bid-twice", over_33, "A", Bid(35), NotYourTurn, r"turn"),
    ("declare-not-declarer", declaring_points, "C", DeclareTrump(6), NotYourTurn, r"turn"),
    (
        "declare-not-high-bidder",
        declaring_all_tricks,
        "A",
        DeclareTrump(6, 1),
        NotYourTurn,
        r"turn",
    ),
    ("lead-not-declarer", leading, "B", Play(T("35")), NotYourTurn, r"turn"),
    ("play-out-of-turn", following_fives, "C", Play(T("05")), NotYourTurn, r"turn"),
    ("play-twice", following_fives, "A", Play(T("01")), NotYourTurn, r"turn"),
    ("not-a-seat", bidding, "E", PASS, NotYourTurn, r"turn"),
    # wrong phase
    ("play-in-bidding", bidding, "A", Play(T("55")), WrongPhase, r"bidding"),
    ("declare-in-bidding", bidding, "A", DeclareTrump(6), WrongPhase, r"bidding"),
    ("pass-in-declaring", declaring_points, "A", PASS, WrongPhase, r"bidding is over"),
    ("bid-in-declaring", declaring_points, "A", Bid(31), WrongPhase, r"bidding is over"),
    ("play-in-declaring", declaring_points, "A", Play(T("55")), WrongPhase, r"declaring"),
    ("pass-in-play", following_fives, "B", PASS, WrongPhase, r"bidding is over"),
    ("bid-in-play", following_fives, "B", Bid(35), WrongPhase, r"bidding is over"),
    ("all-tricks-in-play", leading, "A", AllTricksBid(1), WrongPhase, r"bidding is over"),
    ("declare-in-play", leading, "A", DeclareTrump(5), WrongPhase, r"trump"),
    # not an action
    ("string", bidding, "A", "pass", NotAnAction, r"not an action"),
    ("none", bidding, "A", None, NotAnAction, r"not an action"),
    ("dict", bidding, "A", {"type": "pass"}, NotAnAction, r"not an action"),
    ("int", bidding, "A", 30, NotAnAction, r"not an action"),
    ("bare-tile", leading, "A", T("55"), NotAnAction, r"not an action"),
    # tile not in hand
    ("lead-partners-tile", leading, "A", Play(T("05")), TileNotInHand, r"\[0\|5\]"),
    ("follow-with-foreign-tile", following_fives, "B", Play(T("45")), TileNotInHand, r"\[4\|5\]"),
    ("play-played-tile", following_fives, "B", Play(T("55")), TileNotInHand, r"\[5\|5\]"),
    # must follow suit
    (
        "trump-instead-of-five",
        following_fives,
        "B",
        Play(T("16")),
        MustFollowSuit,
        "must follow fives",
    ),
    (
        "five-instead-of-trump",
        following_trump,
        "B",
        Play(T("35")),
        MustFollowSuit,
        "must follow trump",
    ),
    (
        "off-suit-instead-of-trump",
        following_trump,
        "B",
        Play(T("13")),
        MustFollowSuit,
        "must follow trump",
    ),
    (
        "off-suit-instead-of-five",
        following_fives,
        "B",
        Play(T("13")),
        MustFollowSuit,
        "must follow fives",
    ),
    # bids
    ("bid-equal", over_33, "B", Bid(33), InvalidBid, r"bid must beat 33"),
    ("bid-lower", over_33, "B", Bid(31), InvalidBid, r"bid must beat 33"),
    ("bid-29", bidding, "A", Bid(29), InvalidBid, r"30 to 41"),
    ("bid-42", bidding, "A", Bid(42), InvalidBid, r"30 to 41"),
    ("bid-not-integer", bidding, "A", Bid(30.5), InvalidBid, r"30 to 41"),  # type: ignore[arg-type]
    ("bid-string", bidding, "A", Bid("31"), InvalidBid, r"30 to 41"),  # type: ignore[arg-type]
    ("first-all-tricks-3", bidding, "A", AllTricksBid(3), InvalidBid, r"1 or 2"),
    ("first-all-tricks-0", over_33, "B", AllTricksBid(0), InvalidBid, r"1 or 2"),
    ("all-tricks-same", over_all_tricks_1, "B", AllTricksBid(1), InvalidBid, r"exactly 2"),
    ("all-tricks-jump", over_all_tricks_1, "B", AllTricksBid(3), InvalidBid, r"exactly 2"),
    ("point-after-all-tricks", over_all_tricks_1, "B", Bid(41), InvalidBid, r"all.tricks"),
    # declarations
    ("trump-7", declaring_points, "A", DeclareTrump(7), InvalidDeclaration, r"trump"),  # type: ignore[arg-type]
    ("trump-name", declaring_points, "A", DeclareTrump("sixes"), InvalidDeclaration, r"trump"),  # type: ignore[arg-type]
    ("trump-bool", declaring_points, "A", DeclareTrump(True), InvalidDeclaration, r"trump"),
    ("piles-on-points", declaring_points, "A", DeclareTrump(6, 1), InvalidDeclaration, r"pile"),
    (
        "no-piles-all-tricks",
        declaring_all_tricks,
        "C",
        DeclareTrump(6),
        InvalidDeclaration,
        r"pile",
    ),
    ("three-piles", declaring_all_tricks, "C", DeclareTrump(6, 3), InvalidDeclaration, r"pile"),
    (
        "bad-trump-all-tricks",
        declaring_all_tricks,
        "C",
        DeclareTrump(9, 1),
        InvalidDeclaration,
        r"trump",
    ),  # type: ignore[arg-type]
    # the hand is over
    ("pass-after-passes", over_after_passes, "A", PASS, GameOver, r"over"),
    ("bid-after-passes", over_after_passes, "B", Bid(30), GameOver, r"over"),
    ("play-after-set", over_after_set, "D", Play(T("00")), GameOver, r"over"),
    ("declare-after-set", over_after_set, "A", DeclareTrump(6), GameOver, r"over"),
]


@pytest.mark.parametrize(
    ("make", "seat", "action", "error", "message"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_illegal_action_is_rejected_and_changes_nothing(
    make: Callable[[], Hand], seat: str, action: object, error: type[RulesError], message: str
) -> None:
    hand = make()
    assert_rejected(hand, seat, action, error, message)


def test_illegal_actions_are_rules_errors_and_game_over_is_not_illegal_action() -> None:
    for error in (NotYourTurn, WrongPhase, NotAnAction, InvalidBid, InvalidDeclaration):
        assert issubclass(error, IllegalAction)
    assert issubclass(TileNotInHand, IllegalAction)
    assert issubclass(MustFollowSuit, IllegalAction)
    assert not issubclass(GameOver, IllegalAction)
    assert issubclass(GameOver, RulesError)
    assert reason_code(MustFollowSuit) == "must_follow_suit"
    assert reason_code(NotYourTurn("x")) == "not_your_turn"


def test_rejected_play_keeps_tile_order_and_the_same_legal_moves() -> None:
    hand = following_fives()
    before = list(hand.hands["B"])
    for action in (Play(T("16")), Play(T("26")), Play(T("13")), Play(T("45")), PASS):
        with pytest.raises(IllegalAction):
            hand.apply("B", action)
    assert hand.hands["B"] == before
    assert hand.turn == "B"
    assert hand.legal_actions() == [Play(T("35"))]
    play(hand, "35")  # and the legal play still works
    assert hand.turn == "C"


def test_many_rejections_in_a_row_change_nothing() -> None:
    hand = following_fives()
    before = hand_state(hand)
    attempts: list[tuple[str, object]] = [
        (seat, action)
        for seat in SEATS
        for action in (PASS, Bid(35), AllTricksBid(2), DeclareTrump(6), Play(T("26")), None)
    ]
    for seat, action in attempts:
        with pytest.raises(IllegalAction):
            hand.apply(seat, action)  # type: ignore[arg-type]
    assert hand_state(hand) == before


# -- the match --------------------------------------------------------------------------------


def test_match_rejects_out_of_turn_and_changes_nothing() -> None:
    match = Match(seed=5)
    not_turn = next(s for s in SEATS if s != match.turn)
    assert_match_rejected(match, not_turn, PASS, NotYourTurn, r"turn")
    assert_match_rejected(match, match.turn, Bid(29), InvalidBid, r"30 to 41")
    assert_match_rejected(match, match.turn, Play(T("00")), WrongPhase, r"bidding")
    assert_match_rejected(match, match.turn, "bid 30", NotAnAction, r"not an action")


def test_match_rejects_everything_after_it_is_won() -> None:
    match = Match(seed=5)
    match.marks = {"AC": 0, "BD": 6}
    match.hand = new_hand("D", EXAMPLE_DEAL, hand_number=3, marks=match.marks)
    act(match, ("A", Bid(30)), ("B", PASS), ("C", PASS), ("D", PASS), ("A", DeclareTrump(6)))
    play(match, "55 35 05 66")
    assert match.winner == "BD"
    state = match_state(match)
    for seat in SEATS:
        for action in (PASS, Bid(30), DeclareTrump(6), Play(T("00")), Play(T("56"))):
            assert_match_rejected(match, seat, action, GameOver, r"over")
    assert match_state(match) == state
