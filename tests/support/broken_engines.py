"""Engines that each break one rule on purpose: the conformance vectors and the lockstep must
find them (a check that cannot fail proves nothing)."""

from __future__ import annotations

from typing import Any

from referee.spec.facts import PythonEngine


class Renege(PythonEngine):
    """Lets a seat play any tile it holds, following suit or not."""

    __slots__ = ()

    def legal_actions(self) -> list[Any]:
        hand = self.match.hand
        if hand.phase == "playing" and hand.turn is not None:
            return [{"type": "play", "tile": list(t)} for t in hand.hands[hand.turn]]
        return super().legal_actions()
