"""The checks of an action that the hand's state does not settle in a line: whether a bid may
stand over the bids before it, the contract a declaration makes, and why a tile that does not
follow suit may not be played. Pure functions that raise before anything changes, as
``Hand.apply`` promises; the hand keeps the state and calls them."""

from __future__ import annotations

from referee.errors import InvalidBid, InvalidDeclaration, MustFollowSuit
from referee.rules.actions import (
    ALL_TRICKS_BIDS,
    FIRST_ALL_TRICKS_BIDS,
    MAX_POINT_BID,
    MIN_POINT_BID,
    POINT_BIDS,
    TRUMPS,
    AllTricksBid,
    Bid,
    DeclareTrump,
)
from referee.rules.contract import Contract
from referee.rules.suits import suit_name
from referee.rules.tiles import Seat, Tile


def check_point_bid(points: object, high_points: int, high_marks: int) -> int:
    """The points of a point bid that beats the standing bids; raises ``InvalidBid``."""
    if high_marks:
        raise InvalidBid(f"an all-tricks bid of {high_marks} stands; no point bid can beat it")
    if type(points) is not int or not MIN_POINT_BID <= points <= MAX_POINT_BID:
        raise InvalidBid(f"a point bid is a whole number from 30 to 41, not {points!r}")
    if points <= high_points:
        raise InvalidBid(f"bid must beat {high_points}")
    return points


def check_all_tricks_bid(marks: object, high_marks: int) -> int:
    """The marks of an all-tricks bid that may follow the standing one; raises ``InvalidBid``."""
    if high_marks:
        if type(marks) is not int or marks != high_marks + 1:
            raise InvalidBid(f"an all-tricks bid must now be exactly {high_marks + 1} marks")
    elif type(marks) is not int or marks not in FIRST_ALL_TRICKS_BIDS:
        raise InvalidBid(f"the first all-tricks bid is 1 or 2 marks, not {marks!r}")
    return marks


def declared_contract(
    seat: Seat, action: DeclareTrump, high_points: int, high_marks: int
) -> Contract:
    """The contract ``seat`` declares with ``action`` over the winning bid (``high_marks``
    for an all-tricks bid, else ``high_points``); raises ``InvalidDeclaration``."""
    trump, piles = action.trump, action.piles
    if type(trump) not in (int, str) or trump not in TRUMPS:
        raise InvalidDeclaration(f"trump is a number 0-6, 'doubles' or 'no_trump', not {trump!r}")
    if high_marks:
        if type(piles) is not int or piles not in (1, 2):
            raise InvalidDeclaration(
                f"an all-tricks contract keeps 1 or 2 piles face up; choose one, not {piles!r}"
            )
        bid: Bid | AllTricksBid = ALL_TRICKS_BIDS[high_marks]
    else:
        if piles is not None:
            raise InvalidDeclaration("a point contract has no pile choice: every pile is seen")
        bid = POINT_BIDS[high_points]
    return Contract(declarer=seat, bid=bid, trump=trump, piles=piles)


def check_follows(seat: Seat, hand: list[Tile], followers: frozenset[Tile], suit: int) -> None:
    """A tile outside the suit led was played: ``MustFollowSuit`` if ``seat`` holds one in it."""
    held = [t for t in hand if t in followers]
    if held:
        raise MustFollowSuit(
            f"must follow {suit_name(suit)}: {seat} holds {', '.join(map(str, held))}"
        )
