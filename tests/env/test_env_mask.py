"""The legal-action mask is the engine's legal actions at every step of random games: the
environment and a bare ``Match`` of the same seed, driven in lockstep, never disagree."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.env.actions import ACTIONS, INDEX
from referee.env.aec import TexasEnv
from referee.rules import Match


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), choices_seed=st.integers(0, 2**32))
def test_the_mask_is_the_engines_legal_actions_at_every_step(seed: int, choices_seed: int) -> None:
    choices = random.Random(choices_seed)
    env = TexasEnv()
    env.reset(seed=seed)
    match = Match(seed)
    while env.agents:
        observation, _, terminated, _, _ = env.last()
        if terminated:
            assert match.is_over
            env.step(None)
            continue
        assert env.agent_selection == match.turn
        legal = match.legal_actions()
        marked = np.flatnonzero(observation["action_mask"]).tolist()
        assert [ACTIONS[i] for i in marked] == sorted(legal, key=INDEX.__getitem__)
        for other in "ABCD":
            if other != match.turn:
                assert not env.action_mask(other).any()  # type: ignore[arg-type]
        action = choices.choice(legal)
        env.step(INDEX[action])
        match.apply(match.turn, action)  # type: ignore[arg-type]
    assert env.game.marks == match.marks
