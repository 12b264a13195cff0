"""The worked examples of RULES.md (and of the Polish original), played out move by move."""

from __future__ import annotations

import msgspec
import pytest
from support.helpers import (
    EXAMPLE_DEAL,
    PASS,
    act,
    assert_legal,
    assert_rejected,
    contract_hand,
    deal_of,
    new_hand,
    pile,
    play,
    plays,
    tiles,
)

from referee.errors import MustFollowSuit
from referee.rules import (
    SEATS,
    AllTricksBid,
    Bid,
    Contract,
    DeclareTrump,
    HandEnded,
    HandStarted,
    Match,
    Play,
    PlayedTile,
    TrickTaken,
)

# -- example 1: sixes trump, A bid 30 ------------------------------------------------------------


def test_trump_wins_the_fives_trick_and_sets_the_contract_at_once() -> None:
    hand = new_hand("D", EXAMPLE_DEAL)
    act(hand, ("A", Bid(30)), ("B", PASS), ("C", PASS), ("D", PASS))
    assert (hand.phase, hand.turn) == ("declaring", "A")
    act(hand, ("A", DeclareTrump(6)))
    assert hand.contract == Contract(declarer="A", bid=Bid(30), trump=6, piles=None)
    assert (hand.phase, hand.turn) == ("playing", "A")

    play(hand, "55")
    # B holds one five, [3|5]; [1|6], [2|6] are trumps, not fives.
    assert_legal(hand, plays("35"))
    play(hand, "35")

    # The table as the original shows it after two plays.
    for seat in SEATS:
        view = hand.view(seat)
        assert view.trick == [PlayedTile("A", tiles("55")[0]), PlayedTile("B", tiles("35")[0])]
        assert view.hand_sizes == {"A": 6, "B": 6, "C": 7, "D": 7}
        assert view.piles == []
        assert view.contract == Contract(declarer="A", bid=Bid(30), trump=6, piles=None)

    assert_legal(hand, plays("05 15 25 45"))
    play(hand, "05")

    # D has no five: [5|6] is a trump, so every one of D's tiles may be played.
    assert hand.turn == "D"
    assert_legal(hand, plays("66 56 00 11 22 33 44"))
    events = play(hand, "66")

    trick_events = [e for e in events if isinstance(e, TrickTaken)]
    assert trick_events == [TrickTaken(trick=1, winner="D", side="BD", points=16)]
    assert isinstance(events[-1], HandEnded)

    assert hand.is_over
    assert hand.turn is None
    assert hand.legal_actions() == []
    result = hand.result
    assert result is not None
    assert result.outcome == "set"
    assert result.winner == "BD"
    assert result.marks == 1  # one mark, not 16
    assert result.points == {"AC": 0, "BD": 16}
    assert result.tricks == 1
    assert events[-1].review.result == result  # type: ignore[attr-defined]

    remaining = {
        "A": tiles("01 02 03 04 06 12"),
        "B": tiles("13 14 16 23 24 26"),
        "C": tiles("15 25 45 34 36 46"),
        "D": tiles("56 00 11 22 33 44"),
    }
    for seat in SEATS:
        view = hand.view(seat)
        assert view.hand == remaining[seat]
        assert view.hand_sizes == {"A": 6, "B": 6, "C": 6, "D": 6}
        assert view.trick == []
        assert view.piles == [pile(1, "BD", "05 35 55 66")]


def test_worked_example_scores_one_mark_in_the_match() -> None:
    match = Match(seed=42)
    # White-box set-up: play the worked example's deal as the match's first hand.
    match.hand = new_hand("D", EXAMPLE_DEAL, hand_number=1, marks=match.marks)
    act(match, ("A", Bid(30)), ("B", PASS), ("C", PASS), ("D", PASS), ("A", DeclareTrump(6)))
    events = play(match, "55 35 05 66")
    assert match.marks == {"AC": 0, "BD": 1}
    assert [r.outcome for r in match.results] == ["set"]
    assert not match.is_over
    assert events[-1] == HandStarted(hand_number=2, dealer="A")
    assert match.hand.marks == {"AC": 0, "BD": 1}


def test_five_six_is_not_a_five_for_a_seat_holding_other_fives() -> None:
    # As the example, but B holds [5|6] next to [3|5]: only [3|5] follows the fives.
    deal = deal_of(
        "55 01 02 03 04 06 12",
        "35 56 13 14 23 24 26",
        "05 15 25 45 34 36 46",
        "66 16 00 11 22 33 44",
    )
    hand = contract_hand(deal, "A", 6, Bid(30))
    play(hand, "55")
    assert_legal(hand, plays("35"))
    assert_rejected(hand, "B", Play(tiles("56")[0]), MustFollowSuit, "must follow fives")


def test_five_six_is_a_five_when_sixes_are_not_trump() -> None:
    # Control for the test above: with blanks trump, [5|6] is an ordinary five.
    deal = deal_of(
        "55 01 02 03 04 06 12",
        "35 56 13 14 23 24 26",
        "05 15 25 45 34 36 46",
        "66 16 00 11 22 33 44",
    )
    hand = contract_hand(deal, "A", 0, Bid(30))
    play(hand, "55")
    assert_legal(hand, plays("35 56"))


# -- example 2: what each contract shows after three tricks won by A+C, no trump -------------------

VISIBILITY_DEAL = deal_of(
    "66 55 04 00 01 02 03",
    "26 35 14 11 12 13 22",
    "06 05 44 23 24 25 33",
    "16 15 34 36 45 46 56",
)
PILE_1 = pile(1, "AC", "06 16 26 66")
PILE_2 = pile(2, "AC", "05 15 35 55")
PILE_3 = pile(3, "AC", "04 14 34 44")


@pytest.mark.parametrize(
    ("bid", "piles", "visible"),
    [
        (Bid(30), None, [PILE_1, PILE_2, PILE_3]),
        (AllTricksBid(1), 1, [PILE_3]),
        (AllTricksBid(1), 2, [PILE_2, PILE_3]),
    ],
    ids=["point-bid-30", "all-tricks-1-pile", "all-tricks-2-piles"],
)
def test_visible_piles_after_three_tricks(
    bid: Bid | AllTricksBid, piles: int | None, visible: list[object]
) -> None:
    hand = contract_hand(VISIBILITY_DEAL, "A", "no_trump", bid, piles)
    # Trick 1: sixes, A's double wins. Trick 2: fives, A's double wins. Trick 3: A leads
    # [0|4], C's [4|4] wins. The play order differs from the sorted order of every pile.
    play(hand, "66 26 06 16")
    assert hand.turn == "A"
    play(hand, "55 35 05 15")
    assert hand.turn == "A"
    play(hand, "04 14 44 34")
    assert hand.turn == "C"
    assert hand.phase == "playing"
    assert hand.points == {"AC": 1 + 16 + 6, "BD": 0}

    contract = Contract(declarer="A", bid=bid, trump="no_trump", piles=piles)
    for seat in SEATS:
        view = hand.view(seat)
        assert view.contract == contract
        assert view.piles == visible
        assert view.trick == []
        assert view.hand_sizes == {"A": 4, "B": 4, "C": 4, "D": 4}
        for shown in view.piles:
            assert shown.tiles == sorted(shown.tiles)
            # A pile names its trick and the winning side, never a seat or a play order.
            assert set(msgspec.to_builtins(shown)) == {"trick", "side", "tiles"}
