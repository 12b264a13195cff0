"""The batch writes each seat's information state and the acting seat's observation float for
float as the Python encoders make them (``referee.env.tensors``), after every step, across
hands and matches; its rewards are the environments'; the C layout is the documented one."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core import CORE
from referee.env.aec import hand_rewards
from referee.env.game import PythonGame
from referee.env.layout import INFORMATION_STATE, OBSERVATION
from referee.rules.tiles import SEATS

pytestmark = pytest.mark.skipif(CORE != "c", reason="the core was built without a C compiler")

HEADER = Path(__file__).parents[2] / "referee" / "core" / "texas42.h"


def test_the_headers_offsets_are_the_documented_layout() -> None:
    defines = dict(re.findall(r"#define T42_(\w+) (\d+)", HEADER.read_text()))
    for prefix, layout in (("STATE_", INFORMATION_STATE), ("OBS_", OBSERVATION)):
        named = {n: int(v) for n, v in defines.items() if n.startswith(prefix)}
        expected = {prefix + f.name.upper(): f.offset for f in layout.fields}
        extra = {prefix + "SIZE": layout.size}
        if prefix == "STATE_":
            extra[prefix + "ACTED"] = 77
        assert named == {**expected, **extra}
    assert int(defines["STATE_HISTORY"]) + 33 * int(defines["STATE_ACTED"]) == 2575


def test_every_step_writes_the_tensors_the_python_encoders_make() -> None:
    from referee.core.batch import Batch

    size, seed = 4, 900
    batch = Batch(size, seed, states=True, observations=True)
    games = [PythonGame(seed + i) for i in range(size)]
    next_seed, rng, finished = seed + size, np.random.default_rng(3), 0
    assert batch.states is not None and batch.observations is not None
    for _ in range(700):
        for slot, game in enumerate(games):
            seat = game.turn
            assert seat is not None and SEATS[batch.turns[slot]] == seat
            assert sorted(game.legal()) == list(np.flatnonzero(batch.masks[slot]))
            for s, observer in enumerate(SEATS):
                expected = game.information_state(observer)
                np.testing.assert_array_equal(batch.states[slot, s], expected)
            np.testing.assert_array_equal(batch.observations[slot], game.observation(seat))
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in batch.masks]
        batch.step(actions)
        for slot, game in enumerate(games):
            rewards = hand_rewards(game.apply(actions[slot])) or dict.fromkeys(SEATS, 0)
            assert list(batch.rewards[slot]) == [rewards[s] for s in SEATS]
            if game.is_over:
                assert batch.matches_ended[slot]
                games[slot], next_seed, finished = (
                    PythonGame(next_seed),
                    next_seed + 1,
                    finished + 1,
                )
    assert finished >= 3


def test_random_rounds_keep_the_states_those_of_the_position() -> None:
    from referee.core.batch import Batch

    batch = Batch(32, 77, states=True, observations=True)
    assert batch.states is not None and batch.observations is not None
    whole = np.zeros(INFORMATION_STATE.size, np.float32)
    seen = np.zeros(OBSERVATION.size, np.float32)
    for _ in range(6):
        batch.random(37)
        for slot in range(batch.size):
            match = batch.engine(slot)._match
            for seat in range(4):
                match.information_state(seat, whole)
                np.testing.assert_array_equal(batch.states[slot, seat], whole)
            match.observation(match.turn, seen)
            np.testing.assert_array_equal(batch.observations[slot], seen)
    assert batch.matches_finished > 0


def test_a_finished_match_gives_the_last_hands_tensors() -> None:
    """Over, the tensors are those of the last hand (its marks before it), as in Python."""
    from referee.core import _texas42  # type: ignore[attr-defined]

    match, game, rng = _texas42.Match(5), PythonGame(5), np.random.default_rng(1)
    whole = np.zeros(INFORMATION_STATE.size, np.float32)
    seen = np.zeros(OBSERVATION.size, np.float32)
    while not game.is_over:
        action = int(rng.choice(game.legal()))
        assert not isinstance(match.apply(match.turn, action), int)  # no error code
        game.apply(action)
    for s, seat in enumerate(SEATS):
        match.information_state(s, whole)
        np.testing.assert_array_equal(whole, game.information_state(seat))
        match.observation(s, seen)
        np.testing.assert_array_equal(seen, game.observation(seat))
    with pytest.raises(ValueError, match="2575 float32"):
        match.information_state(0, np.zeros(10, np.float32))
    with pytest.raises(ValueError, match="a seat is 0-3"):
        match.observation(4, seen)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), steps=st.integers(0, 300), pick=st.randoms())
def test_any_position_gives_every_seat_the_python_tensors(
    seed: int, steps: int, pick: random.Random
) -> None:
    from referee.core import _texas42  # type: ignore[attr-defined]

    match, game = _texas42.Match(seed), PythonGame(seed)
    for _ in range(steps):
        if game.is_over:
            break
        action = pick.choice(game.legal())
        match.apply(match.turn, action)
        game.apply(action)
    whole = np.zeros(INFORMATION_STATE.size, np.float32)
    seen = np.zeros(OBSERVATION.size, np.float32)
    for s, seat in enumerate(SEATS):
        match.information_state(s, whole)
        np.testing.assert_array_equal(whole, game.information_state(seat))
        match.observation(s, seen)
        np.testing.assert_array_equal(seen, game.observation(seat))
