"""Many matches stepped at once in the compiled core, on numpy arrays: the shape training
code wants. Needs numpy (``pip install '.[ai]'``) and the compiled core.

``Batch(size, seed)`` holds ``size`` matches, match i from seed ``seed + i`` (mod 2**64); one that
ends is replaced at once by a new one from the next seed, so every slot always has a seat to
act. ``observe`` gives each slot's seat to act and legal-action mask (over the canonical
action index, ``referee.core.actions``); ``step`` takes one action a slot and says what it
scored; ``random`` plays legal actions drawn in C, for speed figures and warm-ups.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from referee.core import _texas42  # type: ignore[attr-defined]
from referee.core.actions import SIZE, form
from referee.core.engine import CompiledEngine
from referee.errors import IllegalAction
from referee.rules.tiles import SEATS


class Stepped(NamedTuple):
    """What one step did in each slot: marks each partnership scored (``[:, 0]`` A+C,
    ``[:, 1]`` B+D), whether a hand ended, whether the match ended (the slot now holds a new
    match)."""

    marks: npt.NDArray[np.int8]
    hands: npt.NDArray[np.bool_]
    ended: npt.NDArray[np.bool_]


class Batch:
    """``size`` matches in one C array, observed and stepped together."""

    def __init__(self, size: int, seed: int = 0, *, rng: int = 1) -> None:
        self.size = size
        self._games = _texas42.Batch(size, seed, rng)
        self._turns = np.zeros(size, np.uint8)
        self._masks = np.zeros((size, SIZE), np.uint8)

    def observe(self) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
        """Each slot's seat to act (0-3: A-D) and its legal actions as a boolean mask of
        ``(size, 73)`` (fresh arrays)."""
        self._games.observe(self._turns, self._masks)
        return self._turns.copy(), self._masks.astype(bool)

    def step(self, actions: npt.ArrayLike) -> Stepped:
        """One action a slot (canonical indices), by each slot's seat to act. If one is not
        legal, raises ``IllegalAction`` naming its slot, and no slot changes."""
        chosen = np.ascontiguousarray(actions, dtype=np.int64)
        if chosen.shape != (self.size,):
            raise ValueError(f"one action a match: shape ({self.size},), not {chosen.shape}")
        marks = np.zeros((self.size, 2), np.int8)
        hands = np.zeros(self.size, np.uint8)
        ended = np.zeros(self.size, np.uint8)
        status = self._games.step(chosen, marks, hands, ended)
        if status < 0:
            slot = -status - 1
            index = int(chosen[slot])
            what = form(index) if 0 <= index < SIZE else index
            seat = SEATS[self._games.match(slot).turn]
            raise IllegalAction(f"match {slot}: {what} is not legal for {seat} now")
        return Stepped(marks, hands.astype(bool), ended.astype(bool))

    def random(self, steps: int) -> int:
        """``steps`` random legal actions in every slot, drawn in C; the hands finished."""
        hands: int = self._games.random(steps)
        return hands

    @property
    def matches_finished(self) -> int:
        finished: int = self._games.counts[0]
        return finished

    def engine(self, slot: int) -> CompiledEngine:
        """A copy of one slot's match, behind ``referee.spec.facts.Engine`` (its state in
        the protocol's JSON forms)."""
        engine = CompiledEngine.__new__(CompiledEngine)
        engine._match = self._games.match(slot)
        return engine
