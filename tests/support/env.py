"""Helpers for the environment tests: random legal play through ``TexasEnv``."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np

from referee.env.aec import TexasEnv


def random_steps(env: TexasEnv, rng: random.Random) -> Iterator[tuple[str, int]]:
    """Play ``env`` to its end with random legal indices taken from the mask; yield each
    (agent, index) just before it is stepped."""
    while env.agents:
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        index = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
        yield env.agent_selection, index
        env.step(index)
