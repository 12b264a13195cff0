"""Helpers shared by the rules tests: explicit deals, driving a hand, checking "nothing changed".

Tiles are written as two digits in any order (``"55"``, ``"35"`` is ``[3|5]``), separated by
spaces, in the order they were dealt. Every deal a test uses is written out in full (28 tiles),
so the reader can check by eye that each play in the test is legal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import msgspec
import pytest

from referee.errors import RulesError
from referee.rules import (
    SEATS,
    TILES,
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Event,
    Hand,
    Match,
    Pass,
    Pile,
    Play,
    Seat,
    Tile,
    Trump,
    tile,
)

#: The seat to the right of each seat (it deals when the seat on its left is to bid first).
RIGHT_OF: dict[Seat, Seat] = {"A": "D", "B": "A", "C": "B", "D": "C"}

PASS = Pass()


def clockwise(first: Seat) -> list[Seat]:
    """The four seats clockwise from ``first``: ``clockwise("C") == ["C", "D", "A", "B"]``."""
    i = SEATS.index(first)
    return [SEATS[(i + k) % 4] for k in range(4)]


def tiles(text: str) -> list[Tile]:
    """``"55 35 05"`` -> ``[[5|5], [3|5], [0|5]]``, in the written order."""
    return [tile(word) for word in text.split()]


def deal_of(a: str, b: str, c: str, d: str) -> dict[Seat, list[Tile]]:
    """A full deal written seat by seat; checks it is seven tiles each of one double-six set."""
    hands: dict[Seat, list[Tile]] = {"A": tiles(a), "B": tiles(b), "C": tiles(c), "D": tiles(d)}
    everything = [t for seat in SEATS for t in hands[seat]]
    assert all(len(hands[seat]) == 7 for seat in SEATS), "test deal: seven tiles per seat"
    assert sorted(everything) == sorted(TILES), "test deal: each of the 28 tiles exactly once"
    return hands


def plays(text: str) -> set[Action]:
    """The set of ``Play`` actions for the tiles written in ``text``."""
    return {Play(t) for t in tiles(text)}


def pile(trick: int, side: str, text: str) -> Pile:
    """A captured pile as the table must show it; ``text`` is written in sorted order already."""
    return Pile(trick=trick, side=side, tiles=tiles(text))  # type: ignore[arg-type]


# The canonical order cut into four hands: A all blanks, D the high tiles.
CANONICAL = deal_of(
    "00 01 02 03 04 05 06",
    "11 12 13 14 15 16 22",
    "23 24 25 26 33 34 35",
    "36 44 45 46 55 56 66",
)

# A holds all seven sixes; nobody else has a six.
SIXES_TO_A = deal_of(
    "66 56 46 36 26 16 06",
    "00 01 02 03 04 05 11",
    "12 13 14 15 22 23 24",
    "25 33 34 35 44 45 55",
)

# No seat's tiles are dealt in sorted order.
SHUFFLED_DEAL = deal_of(
    "44 01 36 22 05 12 00",
    "66 13 02 55 24 11 03",
    "15 33 06 45 14 26 04",
    "23 56 16 34 35 25 46",
)

# The worked example of RULES.md: A [5|5], B [3|5], C [0|5]; D has no five but holds [5|6].
EXAMPLE_DEAL = deal_of(
    "55 01 02 03 04 06 12",
    "35 13 14 16 23 24 26",
    "05 15 25 45 34 36 46",
    "66 56 00 11 22 33 44",
)


def new_hand(
    dealer: Seat,
    deal: dict[Seat, list[Tile]],
    *,
    hand_number: int = 1,
    marks: dict[str, int] | None = None,
) -> Hand:
    return Hand(dealer, deal, hand_number=hand_number, marks=marks)  # type: ignore[arg-type]


def act(hand: Hand | Match, *moves: tuple[Seat, Action]) -> list[Event]:
    """Apply ``(seat, action)`` pairs in order; return all the events they caused."""
    events: list[Event] = []
    for seat, action in moves:
        events.extend(hand.apply(seat, action))
    return events


def play(hand: Hand | Match, text: str) -> list[Event]:
    """Play the tiles written in ``text``, each by the seat whose turn it is."""
    events: list[Event] = []
    for t in tiles(text):
        seat = hand.turn
        assert seat is not None, "test: the hand is already over"
        events.extend(hand.apply(seat, Play(t)))
    return events


def contract_hand(
    deal: dict[Seat, list[Tile]],
    declarer: Seat,
    trump: Trump,
    bid: Bid | AllTricksBid | None = None,
    piles: int | None = None,
    *,
    marks: dict[str, int] | None = None,
) -> Hand:
    """A hand in play: ``declarer`` bids first (its right-hand seat deals), the others pass."""
    hand = new_hand(RIGHT_OF[declarer], deal, marks=marks)
    first, second, third, fourth = clockwise(declarer)
    act(hand, (first, bid or Bid(30)), (second, PASS), (third, PASS), (fourth, PASS))
    act(hand, (declarer, DeclareTrump(trump, piles)))
    return hand


def hand_state(hand: Hand) -> dict[str, Any]:
    """The complete state of a hand as plain data: equal states mean equal hands."""
    return {name: msgspec.to_builtins(getattr(hand, name)) for name in Hand.__slots__}


def match_state(match: Match) -> dict[str, Any]:
    """Everything a match holds, as plain data."""
    return {
        "hand": hand_state(match.hand),
        "marks": dict(match.marks),
        "results": msgspec.to_builtins(match.results),
        "winner": match.winner,
    }


def assert_rejected(
    hand: Hand,
    seat: Any,
    action: Any,
    error: type[RulesError],
    message: str,
) -> RulesError:
    """``apply`` raises exactly ``error`` with ``message`` (a regex) and changes nothing."""
    before = hand_state(hand)
    legal_before = hand.legal_actions()
    with pytest.raises(RulesError) as caught:
        hand.apply(seat, action)
    assert type(caught.value) is error, f"expected {error.__name__}, got {caught.value!r}"
    assert re.search(message, str(caught.value), re.IGNORECASE), str(caught.value)
    assert hand_state(hand) == before
    assert hand.legal_actions() == legal_before
    return caught.value


def assert_match_rejected(
    match: Match, seat: Any, action: Any, error: type[RulesError], message: str
) -> None:
    before = match_state(match)
    with pytest.raises(RulesError) as caught:
        match.apply(seat, action)
    assert type(caught.value) is error, f"expected {error.__name__}, got {caught.value!r}"
    assert re.search(message, str(caught.value), re.IGNORECASE), str(caught.value)
    assert match_state(match) == before


def assert_legal(hand: Hand | Match, expected: Iterable[Action]) -> None:
    """The legal actions are exactly ``expected`` (as a set), each offered once."""
    legal = hand.legal_actions()
    assert len(legal) == len(set(legal)), f"duplicate legal actions: {legal}"
    assert set(legal) == set(expected)


def tiles_in(data: Any) -> set[Tile]:
    """Every tile under a ``tile``, ``tiles`` or ``hand`` key of plain (to_builtins) data."""
    found: set[Tile] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "tile":
                found.add(Tile(*value))
            elif key in ("tiles", "hand"):
                found.update(Tile(*v) for v in value)
            else:
                found |= tiles_in(value)
    elif isinstance(data, list):
        for item in data:
            found |= tiles_in(item)
    return found
