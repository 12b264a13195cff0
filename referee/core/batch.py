"""Many matches stepped at once in the compiled core, on numpy arrays: the batched environment
training code wants. Needs numpy (``pip install '.[ai]'``) and the compiled core.

``Batch(size, seed)`` holds ``size`` matches, match i from seed ``seed + i`` (mod 2**64); one that
ends is replaced at once by a new one from the next seed, so every slot always has a seat to
act. After every ``step`` (one action a slot, over the canonical action index of
``referee.env.actions``) the batch's arrays describe each slot's position and what the step
did; the C core writes them in place, so they are live views, overwritten by the next step
(copy what you keep):

- ``turns`` ``(size,)`` uint8: the seat to act, 0-3 (A-D); ``masks`` ``(size, 73)`` bool: its
  legal actions;
- ``states`` ``(size, 4, 2575)`` float32 (``states=True``): each seat's information state in
  the layout of ``referee.env.layout.INFORMATION_STATE``, kept up to date in place: a step
  writes only the floats it changes (the acting seat's ``states[i, turns[i]]`` is the one a
  policy reads);
- ``observations`` ``(size, 502)`` float32 (``observations=True``): the observation of the seat
  to act (``OBSERVATION``), written whole each step;
- ``rewards`` ``(size, 4)`` float32: each seat's reward for the step, the marks its side scored
  minus the other side's in a hand that ended (``docs/env.md``); ``marks`` ``(size, 2)``
  int8: the marks each partnership scored; ``hands_ended``, ``matches_ended`` ``(size,)`` bool.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from referee.core import _texas42  # type: ignore[attr-defined]
from referee.core.actions import SIZE, form
from referee.core.engine import CompiledEngine
from referee.errors import IllegalAction
from referee.rules.tiles import SEATS


class Stepped(NamedTuple):
    """What one step did in each slot (fresh arrays): marks each partnership scored
    (``[:, 0]`` A+C, ``[:, 1]`` B+D), whether a hand ended, whether the match ended (the slot
    now holds a new match)."""

    marks: npt.NDArray[np.int8]
    hands: npt.NDArray[np.bool_]
    ended: npt.NDArray[np.bool_]


class Batch:
    """``size`` matches in one C array, stepped together, with the arrays a training loop
    reads written by the core after every step."""

    def __init__(
        self,
        size: int,
        seed: int = 0,
        *,
        rng: int = 1,
        states: bool = False,
        observations: bool = False,
    ) -> None:
        self.size = size
        self._games = _texas42.Batch(size, seed, rng)
        self.turns = np.zeros(size, np.uint8)
        self._masks = np.zeros((size, SIZE), np.uint8)
        self.masks = self._masks.view(np.bool_)
        self.states = np.zeros((size, 4, _texas42.STATE_SIZE), np.float32) if states else None
        self.observations = (
            np.zeros((size, _texas42.OBSERVATION_SIZE), np.float32) if observations else None
        )
        self.marks = np.zeros((size, 2), np.int8)
        self.rewards = np.zeros((size, 4), np.float32)
        self._hands = np.zeros(size, np.uint8)
        self._ended = np.zeros(size, np.uint8)
        self.hands_ended = self._hands.view(np.bool_)
        self.matches_ended = self._ended.view(np.bool_)
        self._games.bind(
            self.turns,
            self._masks,
            self.states,
            self.observations,
            self.marks,
            self.rewards,
            self._hands,
            self._ended,
        )
        for array in self._exposed():
            array.flags.writeable = False  # the core's to write: a change would outlive it

    def _exposed(self) -> list[npt.NDArray[Any]]:
        arrays: list[npt.NDArray[Any] | None] = [self.turns, self.masks, self.marks]
        arrays += [self.rewards, self.hands_ended, self.matches_ended]
        arrays += [self.states, self.observations]
        return [array for array in arrays if array is not None]

    def observe(self) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
        """Each slot's seat to act and its legal-action mask ``(size, 73)`` (fresh copies)."""
        return self.turns.copy(), self.masks.copy()

    def step(self, actions: npt.ArrayLike) -> Stepped:
        """One action a slot (canonical indices), by each slot's seat to act. If one is not
        legal, raises ``IllegalAction`` naming its slot, and no slot changes."""
        chosen = np.ascontiguousarray(actions, dtype=np.int64)
        if chosen.shape != (self.size,):
            raise ValueError(f"one action a match: shape ({self.size},), not {chosen.shape}")
        status = self._games.step(chosen)
        if status < 0:
            slot = -status - 1
            index = int(chosen[slot])
            what = form(index) if 0 <= index < SIZE else index
            seat = SEATS[self._games.match(slot).turn]
            raise IllegalAction(f"match {slot}: {what} is not legal for {seat} now")
        return Stepped(self.marks.copy(), self.hands_ended.copy(), self.matches_ended.copy())

    def random(self, steps: int, *, by_match: bool = False) -> int:
        """``steps`` rounds of random legal play drawn in C, one action in every slot a round,
        the arrays written after each; the hands finished. ``by_match`` plays each match's
        ``steps`` in a row instead and writes the position's arrays once at the end, the
        step's (rewards, marks, ends) zero (faster; the games differ, the draws coming in
        another order)."""
        hands: int = self._games.random(steps, by_match)
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
