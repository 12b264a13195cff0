"""The canonical action index: every action the engine can offer has one fixed index, the
blocks sit where the docs say, and anything else is refused with ``NotAnAction``."""

from __future__ import annotations

import pytest

from referee.env.actions import (
    ACTIONS,
    FIRST_ALL_TRICKS_BID,
    FIRST_ALL_TRICKS_TRUMP,
    FIRST_BID,
    FIRST_PLAY,
    FIRST_POINT_TRUMP,
    SIZE,
    action_at,
    index_of,
)
from referee.errors import NotAnAction
from referee.rules import TILES, AllTricksBid, Bid, DeclareTrump, Pass, Play, Tile


def test_each_block_holds_its_actions_in_the_documented_order() -> None:
    assert SIZE == 73 and len(set(ACTIONS)) == SIZE
    assert ACTIONS[0] == Pass()
    assert [ACTIONS[FIRST_BID + i] for i in range(12)] == [Bid(p) for p in range(30, 42)]
    assert [ACTIONS[FIRST_ALL_TRICKS_BID + i] for i in range(5)] == [
        AllTricksBid(m) for m in range(1, 6)
    ]
    trumps = [0, 1, 2, 3, 4, 5, 6, "doubles", "no_trump"]
    assert [ACTIONS[FIRST_POINT_TRUMP + i] for i in range(9)] == [DeclareTrump(t) for t in trumps]
    assert [ACTIONS[FIRST_ALL_TRICKS_TRUMP + i] for i in range(18)] == [
        DeclareTrump(t, p) for t in trumps for p in (1, 2)
    ]
    assert [ACTIONS[FIRST_PLAY + i] for i in range(28)] == [Play(t) for t in TILES]
    assert (FIRST_BID, FIRST_ALL_TRICKS_BID, FIRST_POINT_TRUMP) == (1, 13, 18)
    assert (FIRST_ALL_TRICKS_TRUMP, FIRST_PLAY) == (27, 45)


def test_index_and_action_are_inverse_for_equal_but_new_structs() -> None:
    for index, action in enumerate(ACTIONS):
        assert action_at(index) is action
        rebuilt = type(action)(**{f: getattr(action, f) for f in action.__struct_fields__})
        assert index_of(rebuilt) == index
    assert index_of(Play(Tile(6, 6))) == SIZE - 1


@pytest.mark.parametrize("index", [-1, 73, 1.5, "3", None, 10**20])
def test_an_index_outside_the_range_is_not_an_action(index: object) -> None:
    with pytest.raises(NotAnAction, match="0-72"):
        action_at(index)


def test_an_action_the_game_never_offers_has_no_index() -> None:
    for wrong in (Bid(29), AllTricksBid(6), DeclareTrump(7), DeclareTrump(3, 3), "pass"):
        with pytest.raises(NotAnAction):
            index_of(wrong)  # type: ignore[arg-type]
