"""Trump declaration, the called suit, following, and who wins a trick."""

from __future__ import annotations

import pytest
from support.helpers import (
    CANONICAL,
    PASS,
    SHUFFLED_DEAL,
    act,
    assert_legal,
    assert_rejected,
    contract_hand,
    deal_of,
    new_hand,
    play,
    plays,
    tiles,
)

from referee.errors import InvalidDeclaration, MustFollowSuit, NotYourTurn
from referee.rules import (
    SEATS,
    TILES,
    AllTricksBid,
    Bid,
    Contract,
    DeclareTrump,
    Play,
    Seat,
    Tile,
    TrickTaken,
    Trump,
)
from referee.rules.suits import CALLED, FOLLOWERS, STRENGTH, TRUMP_SUIT

ALL_TRUMPS: list[Trump] = [0, 1, 2, 3, 4, 5, 6, "doubles", "no_trump"]

# -- declaring trump ------------------------------------------------------------------------------


@pytest.mark.parametrize("trump", ALL_TRUMPS)
def test_point_contract_takes_each_of_the_nine_trumps(trump: Trump) -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", Bid(34)), ("B", PASS), ("C", PASS), ("D", PASS))
    act(hand, ("A", DeclareTrump(trump)))
    assert hand.contract == Contract(declarer="A", bid=Bid(34), trump=trump, piles=None)
    assert (hand.phase, hand.turn) == ("playing", "A")


@pytest.mark.parametrize("piles", [1, 2])
@pytest.mark.parametrize("trump", ALL_TRUMPS)
def test_all_tricks_contract_takes_each_trump_with_a_pile_choice(trump: Trump, piles: int) -> None:
    hand = new_hand("A", CANONICAL)
    act(hand, ("B", PASS), ("C", AllTricksBid(2)), ("D", PASS), ("A", PASS))
    act(hand, ("C", DeclareTrump(trump, piles)))
    assert hand.contract == Contract(declarer="C", bid=AllTricksBid(2), trump=trump, piles=piles)
    assert (hand.phase, hand.turn) == ("playing", "C")


@pytest.mark.parametrize("piles", [1, 2])
def test_point_contract_rejects_a_pile_choice(piles: int) -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", Bid(30)), ("B", PASS), ("C", PASS), ("D", PASS))
    assert_rejected(hand, "A", DeclareTrump(6, piles), InvalidDeclaration, "pile")


@pytest.mark.parametrize("piles", [None, 0, 3])
def test_all_tricks_contract_needs_one_or_two_piles(piles: int | None) -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", AllTricksBid(1)), ("B", PASS), ("C", PASS), ("D", PASS))
    assert_rejected(hand, "A", DeclareTrump(6, piles), InvalidDeclaration, "pile")


@pytest.mark.parametrize("trump", [7, -1, "sixes", "trump", "DOUBLES", None, 6.0])
def test_unknown_trump_is_rejected(trump: object) -> None:
    hand = new_hand("D", CANONICAL)
    act(hand, ("A", Bid(30)), ("B", PASS), ("C", PASS), ("D", PASS))
    assert_rejected(hand, "A", DeclareTrump(trump), InvalidDeclaration, "trump")  # type: ignore[arg-type]


# -- the first lead -------------------------------------------------------------------------------


@pytest.mark.parametrize("declarer", SEATS)
def test_declarer_leads_the_first_trick_with_any_tile(declarer: Seat) -> None:
    hand = contract_hand(CANONICAL, declarer, 5, Bid(30))
    assert hand.turn == declarer
    assert_legal(hand, {Play(t) for t in CANONICAL[declarer]})
    other = SEATS[(SEATS.index(declarer) + 1) % 4]
    assert_rejected(hand, other, Play(CANONICAL[other][0]), NotYourTurn, "turn")


# -- following: a trump tile belongs only to trump ------------------------------------------------

TRUMP_LEAD_DEAL = deal_of(
    "56 00 01 02 03 04 05",
    "55 45 66 11 12 13 14",
    "15 25 35 22 23 24 33",
    "06 16 26 36 46 34 44",
)


def test_trump_lead_calls_trump_and_fives_do_not_follow_it() -> None:
    hand = contract_hand(TRUMP_LEAD_DEAL, "A", 6)
    play(hand, "56")  # a trump: it calls trump, not fives
    assert_legal(hand, plays("66"))  # B's [5|5] and [4|5] are no trumps
    assert_rejected(hand, "B", Play(tiles("55")[0]), MustFollowSuit, "must follow trump")
    play(hand, "66")
    assert_legal(hand, plays("15 25 35 22 23 24 33"))  # C holds no six: anything goes
    play(hand, "15")
    assert_legal(hand, plays("06 16 26 36 46"))
    events = play(hand, "46")
    assert [e for e in events if isinstance(e, TrickTaken)] == [
        TrickTaken(trick=1, winner="B", side="BD", points=11)
    ]
    assert hand.turn == "B"


@pytest.mark.parametrize(
    ("b_plays", "d_plays", "winner"),
    [
        ("14", "34", "D"),  # [3|4] > [1|4] > [0|4]: by the other half
        ("45", "34", "B"),  # [4|5] is the highest non-double trump here
        ("45", "44", "D"),  # the double of trump is the highest trump
        ("14", "46", "D"),
    ],
)
def test_number_trumps_rank_double_first_then_by_the_other_half(
    b_plays: str, d_plays: str, winner: Seat
) -> None:
    hand = contract_hand(TRUMP_LEAD_DEAL, "A", 4)
    play(hand, "04")
    assert_legal(hand, plays("45 14"))
    play(hand, b_plays)
    assert_legal(hand, plays("24"))
    play(hand, "24")
    assert_legal(hand, plays("46 34 44"))
    events = play(hand, d_plays)
    taken = [e for e in events if isinstance(e, TrickTaken)]
    assert [(e.trick, e.winner, e.side) for e in taken] == [(1, winner, "BD")]


@pytest.mark.parametrize(("d_plays", "winner"), [("16", "D"), ("34", "B"), ("06", "D")])
def test_any_trump_beats_the_called_suit(d_plays: str, winner: Seat) -> None:
    hand = contract_hand(TRUMP_LEAD_DEAL, "A", 6)
    play(hand, "05")  # calls fives
    assert_legal(hand, plays("55 45"))
    play(hand, "45")
    assert_legal(hand, plays("15 25 35"))
    play(hand, "35")
    assert_legal(hand, plays("06 16 26 36 46 34 44"))  # D has no five: anything, no duty to trump
    play(hand, d_plays)
    assert hand.turn == winner


# -- following: a led non-trump tile calls its higher half; either half follows --------------------

HIGHER_HALF_DEAL = deal_of(
    "35 15 55 00 01 02 03",
    "33 13 56 11 12 14 16",
    "23 34 22 24 26 36 44",
    "05 45 25 04 06 46 66",
)


def test_led_tile_calls_its_higher_half_and_either_half_follows() -> None:
    hand = contract_hand(HIGHER_HALF_DEAL, "A", 0)  # blanks trump
    play(hand, "35")  # calls fives, not threes
    # B must follow with [5|6] (five as its lower half); its threes do not follow.
    assert_legal(hand, plays("56"))
    assert_rejected(hand, "B", Play(tiles("33")[0]), MustFollowSuit, "must follow fives")
    assert_rejected(hand, "B", Play(tiles("13")[0]), MustFollowSuit, "must follow fives")
    play(hand, "56")
    assert_legal(hand, plays("23 34 22 24 26 36 44"))  # C: threes but no five
    play(hand, "23")
    # D's [0|5] is a trump (blanks), so only [4|5] and [2|5] follow.
    assert_legal(hand, plays("45 25"))
    assert_rejected(hand, "D", Play(tiles("05")[0]), MustFollowSuit, "must follow fives")
    events = play(hand, "45")
    # [5|6] > [4|5] > [3|5]: the highest five wins.
    assert [e for e in events if isinstance(e, TrickTaken)] == [
        TrickTaken(trick=1, winner="B", side="BD", points=6)
    ]
    assert hand.turn == "B"


def test_must_follow_only_if_able_and_then_no_duty_to_trump() -> None:
    hand = contract_hand(HIGHER_HALF_DEAL, "A", 0)
    play(hand, "15")  # calls fives
    play(hand, "56")
    play(hand, "44")  # C has no five and need not trump
    play(hand, "25")
    assert hand.turn == "B"  # [5|6] beats [2|5] and [1|5]


# -- following: a non-trump double calls its own number -------------------------------------------

DOUBLE_LEAD_DEAL = deal_of(
    "33 35 00 01 02 04 05",
    "13 11 12 14 15 16 22",
    "36 24 25 26 44 45 46",
    "03 23 34 06 55 56 66",
)


@pytest.mark.parametrize(("c_plays", "winner"), [("36", "C"), ("24", "A")])
def test_non_trump_double_calls_its_number(c_plays: str, winner: Seat) -> None:
    hand = contract_hand(DOUBLE_LEAD_DEAL, "A", 6)
    play(hand, "33")  # calls threes
    assert_legal(hand, plays("13"))
    play(hand, "13")
    # C's only three-showing tile is [3|6], a trump: C may play anything.
    assert_legal(hand, plays("36 24 25 26 44 45 46"))
    play(hand, c_plays)
    assert_legal(hand, plays("03 23 34"))  # [0|6] is a trump, not a three
    assert_rejected(hand, "D", Play(tiles("06")[0]), MustFollowSuit, "must follow threes")
    play(hand, "34")
    # The trump [3|6] beats everything; without it [3|3] beats [3|4]: the double is highest.
    assert hand.turn == winner


# -- doubles trump ---------------------------------------------------------------------------------

DOUBLES_DEAL = deal_of(
    "35 15 01 02 03 04 06",
    "55 11 12 13 14 16 23",
    "45 25 24 26 34 36 46",
    "56 05 00 22 33 44 66",
)


def test_doubles_trump() -> None:
    hand = contract_hand(DOUBLES_DEAL, "A", "doubles")
    play(hand, "35")  # calls fives
    # [5|5] is a trump, not a five: B holds no five and may play anything.
    assert_legal(hand, plays("55 11 12 13 14 16 23"))
    play(hand, "11")
    assert_legal(hand, plays("45 25"))
    play(hand, "45")
    assert_legal(hand, plays("56 05"))
    play(hand, "56")
    assert hand.turn == "B"  # the lowly trump [1|1] beats [5|6]

    play(hand, "55")  # a trump: calls doubles
    assert_legal(hand, plays("25 24 26 34 36 46"))  # C holds no double
    play(hand, "24")
    assert_legal(hand, plays("00 22 33 44 66"))
    assert_rejected(hand, "D", Play(tiles("05")[0]), MustFollowSuit, "must follow trump")
    play(hand, "66")
    assert_legal(hand, plays("15 01 02 03 04 06"))
    play(hand, "01")
    assert hand.turn == "D"  # doubles rank by their number: [6|6] > [5|5]


@pytest.mark.parametrize(("d_plays", "winner"), [("00", "B"), ("44", "B"), ("66", "D")])
def test_doubles_trump_rank_by_number(d_plays: str, winner: Seat) -> None:
    hand = contract_hand(DOUBLES_DEAL, "A", "doubles")
    play(hand, "35 11 45 56")
    play(hand, "55 24")  # B leads the trump [5|5]; C holds no double
    play(hand, d_plays)
    play(hand, "01")
    assert hand.turn == winner


# -- no trump -------------------------------------------------------------------------------------


def test_no_trump_doubles_high() -> None:
    hand = contract_hand(CANONICAL, "C", "no_trump")
    play(hand, "26")  # calls sixes
    assert_legal(hand, plays("36 46 56 66"))
    play(hand, "66")
    assert_legal(hand, plays("06"))
    play(hand, "06")
    assert_legal(hand, plays("16"))
    play(hand, "16")
    assert hand.turn == "D"
    assert hand.tricks_won == {"AC": 0, "BD": 1}


def test_no_trump_off_suit_tiles_never_win() -> None:
    hand = contract_hand(CANONICAL, "A", "no_trump")
    play(hand, "01")  # calls ones
    assert_legal(hand, plays("11 12 13 14 15 16"))
    play(hand, "12")
    assert_legal(hand, plays("23 24 25 26 33 34 35"))  # C has no one
    play(hand, "33")
    assert_legal(hand, plays("36 44 45 46 55 56 66"))
    play(hand, "66")
    # [6|6] and [3|3] are not ones and there is no trump: [1|2] beats [0|1].
    assert hand.turn == "B"


def test_no_trump_double_lead_calls_its_number() -> None:
    hand = contract_hand(CANONICAL, "A", "no_trump")
    play(hand, "00")  # calls blanks: nobody else holds one
    assert_legal(hand, plays("11 12 13 14 15 16 22"))
    play(hand, "16 23 36")
    assert hand.turn == "A"


# -- the winner leads; the hand keeps its dealt order ----------------------------------------------


def test_winner_leads_next_and_hands_keep_dealt_order() -> None:
    hand = contract_hand(SHUFFLED_DEAL, "A", "no_trump")
    play(hand, "36 66 26 56")
    assert hand.turn == "B"
    assert_rejected(hand, "C", Play(tiles("33")[0]), NotYourTurn, "turn")
    assert_rejected(hand, "A", Play(tiles("44")[0]), NotYourTurn, "turn")
    assert_legal(hand, plays("13 02 55 24 11 03"))  # any lead
    play(hand, "13 33 35 22")
    assert hand.turn == "C"
    expected = {
        "A": tiles("44 01 05 12 00"),
        "B": tiles("02 55 24 11 03"),
        "C": tiles("15 06 45 14 04"),
        "D": tiles("23 16 34 25 46"),
    }
    for seat in SEATS:
        assert hand.hands[seat] == expected[seat]
        assert hand.view(seat).hand == expected[seat]


# -- every trump, every lead, every tile: the tables against the rules as written ------------------


def rule_is_trump(trump: Trump, t: Tile) -> bool:
    if trump == "no_trump":
        return False
    if trump == "doubles":
        return t.low == t.high
    return trump in (t.low, t.high)


def rule_called(trump: Trump, led: Tile) -> int | str:
    """The suit ``led`` calls: "trump", or a number (the higher half; a double its number)."""
    return "trump" if rule_is_trump(trump, led) else max(led.low, led.high)


def rule_follows(trump: Trump, called: int | str, t: Tile) -> bool:
    if called == "trump":
        return rule_is_trump(trump, t)
    return not rule_is_trump(trump, t) and called in (t.low, t.high)


def rule_rank(trump: Trump, called: int | str, t: Tile) -> tuple[int, int]:
    """Higher wins: any trump over the called suit, the called suit over everything else."""
    if rule_is_trump(trump, t):
        if trump == "doubles":
            return (2, t.low)
        number = int(trump)
        return (2, 7 if t.low == t.high else t.low + t.high - number)
    if isinstance(called, int) and called in (t.low, t.high):
        return (1, 7 if t.low == t.high else t.low + t.high - called)
    return (0, 0)


@pytest.mark.parametrize("trump", ALL_TRUMPS)
def test_suit_tables_agree_with_the_rules(trump: Trump) -> None:
    for led in TILES:
        called = rule_called(trump, led)
        suit = CALLED[trump][led]
        assert (suit == TRUMP_SUIT) == (called == "trump"), (trump, led)
        if called != "trump":
            assert suit == called, (trump, led)
        assert FOLLOWERS[trump][suit] == {t for t in TILES if rule_follows(trump, called, t)}
        strength = STRENGTH[trump][suit]
        ranks = {t: rule_rank(trump, called, t) for t in TILES}
        assert strength[led] >= 0  # the led tile can always win its own trick
        for a in TILES:
            assert (strength[a] < 0) == (ranks[a] == (0, 0)), (trump, led, a)
            for b in TILES:
                if ranks[a] != (0, 0) and ranks[b] != (0, 0) and a != b:
                    assert (strength[a] > strength[b]) == (ranks[a] > ranks[b]), (trump, led, a, b)
