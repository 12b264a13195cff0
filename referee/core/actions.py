"""The canonical action index in its JSON forms, for the compiled core and its binding.

The index itself (0 pass, 1-12 bids 30-41, 13-17 all tricks 1-5, 18-26 trumps, 27-44 trumps
with 1 or 2 piles, 45-72 plays in ``TILES`` order) is ``referee.env.actions``, the one list of
the game's actions by number; ``texas42.h`` numbers them alike and a test holds the two
equal. Here each index gets the form it has on the wire (``{"type": "bid", "points": 31}``),
which is what ``referee.spec.facts.Engine`` speaks.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from referee.env.actions import ACTIONS, FIRST_PLAY, SIZE
from referee.errors import NotAnAction

#: FORMS[index]: the action's JSON form (do not change one: copy it with ``form``).
FORMS: Final[tuple[dict[str, Any], ...]] = tuple(
    msgspec.json.decode(msgspec.json.encode(a)) for a in ACTIONS
)


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
    if index >= FIRST_PLAY:
        return {"type": "play", "tile": list(action["tile"])}
    return dict(action)


__all__ = ["FORMS", "SIZE", "form", "index_of"]
