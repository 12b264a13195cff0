"""The canonical action index: every action of the game as one integer 0-72, the same in the C
core (``texas42.h``), its binding and any environment built on it, and each index's form on
the wire (``{"type": "bid", "points": 31}``).

    0        pass
    1..12    bid 30..41 points
    13..17   all tricks for 1..5 marks
    18..26   trump 0-6, "doubles", "no_trump" (a point contract)
    27..44   the same nine trumps, each with 1 then 2 piles face up (all tricks)
    45..72   play a tile, the 28 in canonical order ([0|0], [0|1], ... [6|6])
"""

from __future__ import annotations

from typing import Any, Final

from referee.errors import NotAnAction
from referee.rules.actions import MAX_POINT_BID, MIN_POINT_BID, TRUMPS
from referee.rules.tiles import TILES

PASS: Final = 0
BID: Final = 1
ALL_TRICKS: Final = 13
TRUMP: Final = 18
TRUMP_PILES: Final = 27
PLAY: Final = 45
COUNT: Final = 73


def _forms() -> tuple[dict[str, Any], ...]:
    forms: list[dict[str, Any]] = [{"type": "pass"}]
    forms += [{"type": "bid", "points": p} for p in range(MIN_POINT_BID, MAX_POINT_BID + 1)]
    forms += [{"type": "all_tricks", "marks": m} for m in range(1, 6)]
    forms += [{"type": "trump", "trump": t} for t in TRUMPS]
    forms += [{"type": "trump", "trump": t, "piles": p} for t in TRUMPS for p in (1, 2)]
    forms += [{"type": "play", "tile": [t.low, t.high]} for t in TILES]
    return tuple(forms)


#: FORMS[index]: the action's JSON form (do not change one: copy it with ``form``).
FORMS: Final = _forms()


def _key(action: Any) -> tuple[Any, ...] | None:
    """A hashable key of a JSON-form action, or None when a value is not a plain number,
    string or tile (``True`` must not pass for the trump 1)."""
    if not isinstance(action, dict):
        return None
    key = []
    for name, value in sorted(action.items()):
        if type(value) in (list, tuple) and all(type(half) is int for half in value):
            key.append((name, tuple(value)))
        elif type(value) in (int, str):
            key.append((name, value))
        else:
            return None
    return tuple(key)


_INDEX: Final = {_key(form): index for index, form in enumerate(FORMS)}


def index_of(action: Any) -> int:
    """The canonical index of an action in its JSON form; ``NotAnAction`` if it has none."""
    index = _INDEX.get(_key(action))
    if index is None:
        raise NotAnAction(f"not one of the game's actions: {action!r}")
    return index


def form(index: int) -> dict[str, Any]:
    """A fresh copy of the JSON form of the action ``index``."""
    action = FORMS[index]
    if index >= PLAY:
        return {"type": "play", "tile": list(action["tile"])}
    return dict(action)
