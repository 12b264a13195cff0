"""The arrays the batch's core writes are checked when bound (size, item type), read-only to
Python, forgotten when the batch is made again; matches played by match leave the position's
arrays right and the step's zero."""

from __future__ import annotations

import numpy as np
import pytest

from referee.core import CORE
from referee.env.layout import INFORMATION_STATE

pytestmark = pytest.mark.skipif(CORE != "c", reason="the core was built without a C compiler")


def _outputs(size: int, states: object = None) -> list[object]:
    return [
        np.zeros(size, np.uint8), np.zeros((size, 73), np.uint8), states, None,
        np.zeros((size, 2), np.int8), np.zeros((size, 4), np.float32),
        np.zeros(size, np.uint8), np.zeros(size, np.uint8),
    ]  # fmt: skip


def test_a_bound_array_of_the_wrong_size_or_type_is_refused() -> None:
    from referee.core import _texas42  # type: ignore[attr-defined]

    games = _texas42.Batch(3, 1)
    with pytest.raises(ValueError, match="turns: 3 bytes expected, got 4"):
        games.bind(np.zeros(4, np.uint8), *_outputs(3)[1:])
    half = np.zeros((3, 2 * INFORMATION_STATE.size), np.float64)  # as many bytes
    with pytest.raises(TypeError, match="states: items of format 'f' expected, got 'd'"):
        games.bind(*_outputs(3, half))
    with pytest.raises(TypeError, match="rewards"):
        games.bind(*_outputs(3)[:5], np.zeros((3, 2), np.float64), *_outputs(3)[6:])
    games.bind(*_outputs(3, np.zeros((3, 4, INFORMATION_STATE.size), np.float32)))


def test_the_arrays_are_the_cores_to_write() -> None:
    from referee.core.batch import Batch

    batch = Batch(4, 9, states=True, observations=True)
    assert batch.states is not None
    for array in (batch.turns, batch.masks, batch.rewards, batch.states, batch.observations):
        assert array is not None
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1


def test_a_batch_made_again_forgets_the_arrays_bound_before() -> None:
    from referee.core import _texas42  # type: ignore[attr-defined]

    games = _texas42.Batch(4, 1)
    turns = np.full(4, 9, np.uint8)
    games.bind(turns, *_outputs(4)[1:])
    games.__init__(2, 5)  # smaller: a step must not write the old arrays' rows
    before = turns.copy()  # as the first bind wrote it
    games.step(np.zeros(2, np.int64))  # every first bidder may pass
    np.testing.assert_array_equal(turns, before)  # unbound: nothing written there


def test_play_by_match_leaves_the_position_and_no_steps_outcome() -> None:
    from referee.core.batch import Batch

    batch = Batch(8, 3, states=True)
    assert batch.states is not None
    whole = np.zeros(INFORMATION_STATE.size, np.float32)
    for _ in range(3):
        batch.random(57, by_match=True)
        assert not batch.rewards.any() and not batch.marks.any()
        assert not batch.hands_ended.any() and not batch.matches_ended.any()
        for slot in range(batch.size):
            match = batch.engine(slot)._match
            for seat in range(4):
                match.information_state(seat, whole)
                np.testing.assert_array_equal(batch.states[slot, seat], whole)
        batch.random(5)  # by rounds again, from the states the by-match play left
        for slot in range(batch.size):
            batch.engine(slot)._match.information_state(0, whole)
            np.testing.assert_array_equal(batch.states[slot, 0], whole)
    assert batch.matches_finished > 0
