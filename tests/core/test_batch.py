"""The batched core steps every match exactly as the Python engine would, with the masks of
its legal actions, the marks it scores, and a new match from the next seed in a slot whose
match ended; an illegal action in one slot changes no slot."""

from __future__ import annotations

import numpy as np
import pytest

from referee.core import CORE
from referee.core.actions import form, index_of
from referee.errors import IllegalAction
from referee.spec.facts import PythonEngine

pytestmark = pytest.mark.skipif(CORE != "c", reason="the core was built without a C compiler")


def test_a_batch_plays_as_the_reference_over_whole_matches() -> None:
    from referee.core.batch import Batch

    size, seed = 6, 2**64 - 4  # seeds up to the top of the range
    batch, rng = Batch(size, seed), np.random.default_rng(7)
    oracles = [PythonEngine((seed + i) % 2**64) for i in range(size)]  # seeds wrap
    next_seed, finished = seed + size, 0
    for _ in range(1200):
        turns, masks = batch.observe()
        for slot, oracle in enumerate(oracles):
            legal = [index_of(action) for action in oracle.legal_actions()]
            assert "ABCD"[turns[slot]] == oracle.turn
            assert sorted(legal) == list(np.flatnonzero(masks[slot]))
        actions = [rng.choice(np.flatnonzero(mask)) for mask in masks]
        stepped = batch.step(actions)
        for slot, oracle in enumerate(oracles):
            events = oracle.apply(oracle.turn or "", form(int(actions[slot])))
            ends = [e["result"] for e in events if e["type"] == "hand_end"]
            scored = [0, 0]
            if ends and ends[0]["winner"]:
                scored[["AC", "BD"].index(ends[0]["winner"])] = ends[0]["marks"]
            assert list(stepped.marks[slot]) == scored
            assert stepped.hands[slot] == bool(ends)
            assert stepped.ended[slot] == (events[-1]["type"] == "match_end")
            if stepped.ended[slot]:
                oracles[slot] = PythonEngine(next_seed % 2**64)
                next_seed, finished = next_seed + 1, finished + 1
            assert batch.engine(slot).state() == oracles[slot].state()
    assert finished >= 2 and batch.matches_finished == finished


def test_an_illegal_action_changes_no_slot() -> None:
    from referee.core.batch import Batch

    batch = Batch(3, 11)
    _, masks = batch.observe()
    before = [batch.engine(slot).state() for slot in range(3)]
    actions = [int(np.flatnonzero(mask)[0]) for mask in masks]
    actions[2] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(IllegalAction, match="match 2"):
        batch.step(actions)
    assert [batch.engine(slot).state() for slot in range(3)] == before


def test_random_play_finishes_hands_and_matches() -> None:
    from referee.core.batch import Batch

    batch = Batch(64, 5)
    hands = batch.random(400)
    assert hands > 64 and batch.matches_finished > 0
    turns, masks = batch.observe()
    assert masks.sum(axis=1).min() >= 1 and turns.max() <= 3
