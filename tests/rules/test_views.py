"""What each seat may see (``Hand.view``) and the public review of a finished hand."""

from __future__ import annotations

import msgspec
import pytest
from support.helpers import (
    CANONICAL,
    EXAMPLE_DEAL,
    PASS,
    SHUFFLED_DEAL,
    SIXES_TO_A,
    act,
    contract_hand,
    new_hand,
    pile,
    play,
    tiles,
    tiles_in,
)

from referee.errors import GameOver
from referee.rules import (
    SEATS,
    AllTricksBid,
    Bid,
    Contract,
    DeclareTrump,
    Hand,
    HandEnded,
    Move,
    Pile,
    Play,
    PlayedTile,
    Review,
    Seat,
    Tile,
    View,
)


def played_tiles(hand: Hand) -> set[Tile]:
    return {m.action.tile for m in hand.moves if isinstance(m.action, Play)}


def assert_private(hand: Hand) -> None:
    """Views differ only in ``seat`` and ``hand``; no seat ever sees another's unplayed tile."""
    views = {seat: msgspec.to_builtins(hand.view(seat)) for seat in SEATS}
    for seat in SEATS:
        own = set(hand.hands[seat])
        others_unplayed = {t for s in SEATS if s != seat for t in hand.hands[s]}
        assert {Tile(*t) for t in views[seat]["hand"]} == own
        assert not tiles_in(views[seat]) & others_unplayed
    public = [
        {k: v for k, v in view.items() if k not in ("seat", "hand")} for view in views.values()
    ]
    assert all(p == public[0] for p in public)


def test_view_at_the_deal() -> None:
    hand = new_hand("B", SHUFFLED_DEAL, hand_number=4, marks={"AC": 3, "BD": 5})
    written = {
        "A": "44 01 36 22 05 12 00",
        "B": "66 13 02 55 24 11 03",
        "C": "15 33 06 45 14 26 04",
        "D": "23 56 16 34 35 25 46",
    }
    for seat in SEATS:
        assert hand.view(seat) == View(
            seat=seat,
            hand_number=4,
            dealer="B",
            marks={"AC": 3, "BD": 5},
            phase="bidding",
            turn="C",
            hand=tiles(written[seat]),  # dealt order, not sorted
            hand_sizes={"A": 7, "B": 7, "C": 7, "D": 7},
            bids=[],
            contract=None,
            trick=[],
            piles=[],
        )
    assert_private(hand)


def test_view_shows_bids_with_seats_and_the_contract() -> None:
    hand = new_hand("B", CANONICAL)
    act(hand, ("C", Bid(30)), ("D", PASS), ("A", AllTricksBid(1)), ("B", PASS))
    bids = [
        Move("C", Bid(30)),
        Move("D", PASS),
        Move("A", AllTricksBid(1)),
        Move("B", PASS),
    ]
    for seat in SEATS:
        view = hand.view(seat)
        assert view.bids == bids
        assert (view.phase, view.turn, view.contract) == ("declaring", "A", None)
    act(hand, ("A", DeclareTrump(5, 2)))
    contract = Contract(declarer="A", bid=AllTricksBid(1), trump=5, piles=2)
    for seat in SEATS:
        view = hand.view(seat)
        assert view.bids == bids  # the declaration is not a bid
        assert view.contract == contract
        assert (view.phase, view.turn) == ("playing", "A")
    assert_private(hand)


def test_view_shows_the_current_trick_in_play_order() -> None:
    hand = contract_hand(CANONICAL, "C", "no_trump")
    play(hand, "26 56 06")
    expected = [
        PlayedTile("C", tiles("26")[0]),
        PlayedTile("D", tiles("56")[0]),
        PlayedTile("A", tiles("06")[0]),
    ]
    for seat in SEATS:
        view = hand.view(seat)
        assert view.trick == expected
        assert view.hand_sizes == {"A": 6, "B": 7, "C": 6, "D": 6}
        assert view.turn == "B"
        assert view.piles == []
    assert hand.view("C").hand == tiles("23 24 25 33 34 35")
    assert hand.view("B").hand == tiles("11 12 13 14 15 16 22")
    assert_private(hand)


P1 = pile(1, "AC", "00 12 25 66")
P2 = pile(2, "AC", "01 13 33 56")
P3 = pile(3, "AC", "02 14 34 46")


@pytest.mark.parametrize(
    ("bid", "piles", "after_1", "after_2", "after_3"),
    [
        (Bid(30), None, [P1], [P1, P2], [P1, P2, P3]),
        (AllTricksBid(1), 1, [P1], [P2], [P3]),
        (AllTricksBid(2), 2, [P1], [P1, P2], [P2, P3]),
    ],
    ids=["point", "all-tricks-1", "all-tricks-2"],
)
def test_visible_piles_and_covering(
    bid: Bid | AllTricksBid,
    piles: int | None,
    after_1: list[Pile],
    after_2: list[Pile],
    after_3: list[Pile],
) -> None:
    hand = contract_hand(SIXES_TO_A, "A", 6, bid, piles)

    def shown() -> list[Pile]:
        views = [hand.view(seat) for seat in SEATS]
        assert all(v.piles == views[0].piles for v in views)
        return views[0].piles

    play(hand, "66 00 12 25")
    assert shown() == after_1
    play(hand, "56 01 13 33")
    assert shown() == after_2
    play(hand, "46 02 14")
    # A trick in progress covers nothing: a pile turns face down when a newer trick completes.
    assert shown() == after_2
    assert [p.tile for p in hand.view("B").trick] == tiles("46 02 14")
    play(hand, "34")
    assert shown() == after_3
    assert hand.phase == "playing"
    assert_private(hand)


def test_piles_name_the_winning_side_not_the_seat() -> None:
    hand = contract_hand(SHUFFLED_DEAL, "A", "no_trump", Bid(30))
    play(hand, "36 66 26 56")  # B wins
    play(hand, "13 33 35 22")  # C wins
    expected = [pile(1, "BD", "26 36 56 66"), pile(2, "AC", "13 22 33 35")]
    for seat in SEATS:
        assert hand.view(seat).piles == expected
    encoded = msgspec.json.encode(hand.view("A").piles)
    assert msgspec.json.decode(encoded) == [
        {"trick": 1, "side": "BD", "tiles": [[2, 6], [3, 6], [5, 6], [6, 6]]},
        {"trick": 2, "side": "AC", "tiles": [[1, 3], [2, 2], [3, 3], [3, 5]]},
    ]


def test_view_after_the_hand_keeps_marks_and_dealer() -> None:
    hand = new_hand("C", CANONICAL, hand_number=9, marks={"AC": 6, "BD": 2})
    act(hand, ("D", PASS), ("A", PASS), ("B", PASS), ("C", PASS))
    for seat in SEATS:
        view = hand.view(seat)
        assert (view.phase, view.turn, view.dealer, view.hand_number) == ("over", None, "C", 9)
        assert view.marks == {"AC": 6, "BD": 2}  # a passed hand scores nothing
        assert view.hand == CANONICAL[seat]


# -- the review ---------------------------------------------------------------------------------


def test_review_of_a_hand_that_ended_early() -> None:
    hand = new_hand("D", EXAMPLE_DEAL)
    act(hand, ("A", Bid(30)), ("B", PASS), ("C", PASS), ("D", PASS), ("A", DeclareTrump(6)))
    events = play(hand, "55 35 05 66")
    review = hand.review()
    assert review.hand_number == 1
    assert review.dealer == "D"
    assert review.moves == [
        Move("A", Bid(30)),
        Move("B", PASS),
        Move("C", PASS),
        Move("D", PASS),
        Move("A", DeclareTrump(6)),
        Move("A", Play(tiles("55")[0])),
        Move("B", Play(tiles("35")[0])),
        Move("C", Play(tiles("05")[0])),
        Move("D", Play(tiles("66")[0])),
    ]
    assert review.result == hand.result
    assert review.result.outcome == "set"
    # The 24 tiles never played stay hidden.
    assert tiles_in(msgspec.to_builtins(review)) == set(tiles("55 35 05 66"))
    ended = [e for e in events if isinstance(e, HandEnded)]
    assert len(ended) == 1
    assert ended[0].review == review
    assert tiles_in(msgspec.to_builtins(ended[0])) == set(tiles("55 35 05 66"))


def test_review_of_a_passed_hand() -> None:
    hand = new_hand("A", CANONICAL)
    act(hand, ("B", PASS), ("C", PASS), ("D", PASS), ("A", PASS))
    review = hand.review()
    assert review.moves == [Move("B", PASS), Move("C", PASS), Move("D", PASS), Move("A", PASS)]
    assert review.result.outcome == "passed"
    assert tiles_in(msgspec.to_builtins(review)) == set()


def test_review_of_a_full_hand_has_every_move() -> None:
    hand = contract_hand(SIXES_TO_A, "A", 6, AllTricksBid(1), 1)
    order = "66 00 12 25 56 01 13 33 46 02 14 34 36 03 15 35 26 04 22 44 16 05 23 45 06 11 24 55"
    play(hand, order)
    review = hand.review()
    assert len(review.moves) == 4 + 1 + 28
    plays_seen = [(m.seat, m.action.tile) for m in review.moves if isinstance(m.action, Play)]
    seats: list[Seat] = ["A", "B", "C", "D"] * 7
    assert plays_seen == list(zip(seats, tiles(order), strict=True))
    assert played_tiles(hand) == tiles_in(msgspec.to_builtins(review))
    assert len(tiles_in(msgspec.to_builtins(review))) == 28


def test_review_before_the_end_raises_game_over() -> None:
    hand = new_hand("D", EXAMPLE_DEAL)
    with pytest.raises(GameOver):
        hand.review()
    act(hand, ("A", Bid(30)), ("B", PASS), ("C", PASS), ("D", PASS))
    with pytest.raises(GameOver):
        hand.review()
    act(hand, ("A", DeclareTrump(6)))
    with pytest.raises(GameOver):
        hand.review()
    play(hand, "55 35 05")
    with pytest.raises(GameOver):
        hand.review()
    play(hand, "66")
    assert isinstance(hand.review(), Review)


# -- the wire format ----------------------------------------------------------------------------


def views_along_a_hand() -> list[View]:
    hand = new_hand("A", SIXES_TO_A, hand_number=2, marks={"AC": 1, "BD": 4})
    seen = [hand.view(s) for s in SEATS]
    act(hand, ("B", Bid(31)), ("C", PASS), ("D", AllTricksBid(1)), ("A", AllTricksBid(2)))
    seen += [hand.view(s) for s in SEATS]
    act(hand, ("A", DeclareTrump("no_trump", 2)))
    play(hand, "66 00 12 25 56 01")
    seen += [hand.view(s) for s in SEATS]
    return seen


@pytest.mark.parametrize("index", range(12))
def test_view_json_round_trip(index: int) -> None:
    view = views_along_a_hand()[index]
    decoded = msgspec.json.decode(msgspec.json.encode(view), type=View)
    assert decoded == view
    assert type(decoded) is View


def test_view_json_round_trip_with_point_contract_and_doubles() -> None:
    hand = contract_hand(SHUFFLED_DEAL, "A", "doubles", Bid(41))
    play(hand, "44 66 33")
    for seat in SEATS:
        view = hand.view(seat)
        assert msgspec.json.decode(msgspec.json.encode(view), type=View) == view
    assert msgspec.json.decode(msgspec.json.encode(hand.view("A")))["contract"] == {
        "declarer": "A",
        "bid": {"type": "bid", "points": 41},
        "trump": "doubles",
        "piles": None,
    }


def test_review_json_round_trip() -> None:
    hand = new_hand("D", EXAMPLE_DEAL)
    act(hand, ("A", Bid(30)), ("B", PASS), ("C", PASS), ("D", PASS), ("A", DeclareTrump(6)))
    play(hand, "55 35 05 66")
    review = hand.review()
    assert msgspec.json.decode(msgspec.json.encode(review), type=Review) == review
