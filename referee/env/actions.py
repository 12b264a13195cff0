"""The canonical action index: every action a seat can ever take, as a fixed integer 0-72.

A network's output layer needs a fixed action set; the engine's actions are structs. The
index puts them in the engine's own orders, one block per kind, and never changes (a model
trained on it stays valid)::

    0          pass
    1 - 12     bid 30 .. bid 41
    13 - 17    all tricks for 1 .. 5 marks (1 or 2 first, then one more each: 5 at most)
    18 - 26    trump 0 .. 6, doubles, no trump      (a point contract: no pile choice)
    27 - 44    trump t with 1, then 2 piles face up (an all-tricks contract), t as above
    45 - 72    play a tile, the 28 tiles in ``TILES`` order ([0|0], [0|1], ... [6|6])

Pure Python: the index needs no numpy, and the compiled core uses the same numbers.
"""

from __future__ import annotations

from typing import Final

from referee.errors import NotAnAction
from referee.rules.actions import (
    ALL_TRICKS_BIDS,
    ALL_TRICKS_DECLARATIONS,
    PASS,
    PLAYS,
    POINT_BIDS,
    POINT_DECLARATIONS,
    Action,
)
from referee.rules.tiles import TILES

#: Every action in index order: ``ACTIONS[i]`` is the action of index ``i``.
ACTIONS: Final[tuple[Action, ...]] = (
    PASS,
    *POINT_BIDS.values(),
    *ALL_TRICKS_BIDS.values(),
    *POINT_DECLARATIONS,
    *ALL_TRICKS_DECLARATIONS,
    *(PLAYS[t] for t in TILES),
)
#: How many actions there are (the size of the action space and of the mask).
SIZE: Final = len(ACTIONS)

#: Where each block starts; a block runs to the next one's start.
FIRST_BID: Final = 1
FIRST_ALL_TRICKS_BID: Final = FIRST_BID + len(POINT_BIDS)
FIRST_POINT_TRUMP: Final = FIRST_ALL_TRICKS_BID + len(ALL_TRICKS_BIDS)
FIRST_ALL_TRICKS_TRUMP: Final = FIRST_POINT_TRUMP + len(POINT_DECLARATIONS)
FIRST_PLAY: Final = FIRST_ALL_TRICKS_TRUMP + len(ALL_TRICKS_DECLARATIONS)
#: The bids (pass, point bids, all-tricks bids) are the indices below this.
BIDDING_ACTIONS: Final = FIRST_POINT_TRUMP

#: Each action's index; actions are hashable, equal structs hash equal.
INDEX: Final[dict[Action, int]] = {action: i for i, action in enumerate(ACTIONS)}
#: A tile's play index, by tile: ``PLAY_INDEX[t] == INDEX[Play(t)]``.
PLAY_INDEX: Final = {t: FIRST_PLAY + i for i, t in enumerate(TILES)}


def index_of(action: Action) -> int:
    """The index of ``action``; ``NotAnAction`` for anything that is no action of the game."""
    try:
        return INDEX[action]
    except (KeyError, TypeError):
        raise NotAnAction(f"not an action of the game: {action!r}") from None


def action_at(index: object) -> Action:
    """The action of ``index`` (an int 0-72, a numpy integer too); ``NotAnAction`` else."""
    try:
        number: int = int(index)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        raise NotAnAction(
            f"an action index is a whole number 0-{SIZE - 1}, not {index!r}"
        ) from None
    if number != index or not 0 <= number < SIZE:
        raise NotAnAction(f"an action index is a whole number 0-{SIZE - 1}, not {index!r}")
    return ACTIONS[number]


def indices(actions: list[Action]) -> list[int]:
    """The indices of a list of actions (the engine's legal actions), in its order."""
    return [INDEX[a] for a in actions]
