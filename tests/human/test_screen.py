"""How the person's screen draws a hand, a trick, the points taken and the choices."""

from __future__ import annotations

import io

import msgspec
from support.people import console

from referee.human.choices import label
from referee.human.screen import Screen, points_taken
from referee.human.sorting import hand_groups, in_order
from referee.rules import DOUBLES, NO_TRUMP, Bid, Match, Pile, Play, Tile, View
from referee.rules.actions import Action

HAND = [Tile(0, 0), Tile(2, 6), Tile(6, 6), Tile(4, 6), Tile(3, 5), Tile(5, 5), Tile(1, 4)]


def _flat(groups: list[tuple[str, list[Tile]]]) -> list[tuple[str, list[str]]]:
    return [(name, [str(tile) for tile in tiles]) for name, tiles in groups]


def test_before_trump_by_the_higher_half_doubles_first() -> None:
    assert _flat(hand_groups(HAND, None)) == [
        ("sixes", ["[6|6]", "[4|6]", "[2|6]"]),
        ("fives", ["[5|5]", "[3|5]"]),
        ("fours", ["[1|4]"]),
        ("blanks", ["[0|0]"]),
    ]


def test_with_trump_the_trump_suit_first_then_each_tile_by_the_suit_it_calls() -> None:
    assert _flat(hand_groups(HAND, 4)) == [
        ("trump", ["[4|6]", "[1|4]"]),
        ("sixes", ["[6|6]", "[2|6]"]),
        ("fives", ["[5|5]", "[3|5]"]),
        ("blanks", ["[0|0]"]),
    ]
    assert _flat(hand_groups(HAND, DOUBLES))[0] == ("trump", ["[6|6]", "[5|5]", "[0|0]"])
    assert ("sixes", ["[6|6]", "[4|6]", "[2|6]"]) in _flat(hand_groups(HAND, NO_TRUMP))


def test_points_taken_count_a_point_a_trick() -> None:
    view = Match(1).view("A")
    piles = [
        Pile(trick=1, side="AC", tiles=[Tile(0, 5), Tile(1, 1), Tile(2, 2), Tile(3, 3)]),
        Pile(trick=2, side="BD", tiles=[Tile(4, 6), Tile(5, 5), Tile(0, 1), Tile(0, 2)]),
        Pile(trick=3, side="AC", tiles=[Tile(0, 0), Tile(1, 2), Tile(1, 3), Tile(0, 3)]),
    ]
    view = msgspec.structs.replace(view, piles=piles)
    assert points_taken(view) == {"AC": (2, 7), "BD": (1, 21)}


def _decision(view: View, legal: list[Action]) -> str:
    shown = console()
    Screen(shown, view.seat).decision(view, legal)
    assert isinstance(shown.file, io.StringIO)
    return shown.file.getvalue()


def _under_way() -> tuple[View, list[Action]]:
    """A decision with two tiles on the table and several tiles to choose from."""
    for seed in range(50):
        match = Match(seed)
        while not match.is_over and match.hand.hand_number == 1:
            seat = match.turn
            assert seat is not None
            view, legal = match.view(seat), match.legal_actions()
            if view.phase == "playing" and len(view.trick) == 2 and len(legal) > 2:
                return view, legal
            match.apply(seat, Bid(30) if Bid(30) in legal else legal[0])
    raise AssertionError("no such decision")


def test_a_decision_shows_the_view_and_every_choice_numbered() -> None:
    view, legal = _under_way()
    text = _decision(view, legal)
    numbered = in_order(legal, view)
    for number, action in enumerate(numbered, start=1):
        assert f"{number:>2}  {label(action)}" in text
    assert "Contract" in text and "bid 30" in text and "trump" in text
    lines = {line.split("  ")[0]: line for line in text.splitlines()}
    table = lines["Table"]
    for played in view.trick:
        assert f"{played.seat} {played.tile}" in table
    hand = lines["Your tiles"]
    assert sorted(hand.count(str(tile)) for tile in view.hand) == [1] * len(view.hand)
    # The tiles to play are numbered in the order the hand shows them.
    tiles = [action.tile for action in numbered if isinstance(action, Play)]
    assert len(tiles) > 1
    assert sorted(tiles, key=lambda tile: hand.index(str(tile))) == tiles
