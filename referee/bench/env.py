"""How many steps per second the PettingZoo environment takes, against the bare engine.

Both play random legal actions from the same seeds, in alternating rounds so a noisy machine
slows both alike: the engine through ``Match`` (``legal_actions``, ``apply``), the
environment as a training loop drives it — ``last()`` (the information-state tensor and the
mask), a random index where the mask is 1, ``step``. The figure is the environment's steps/s,
beside the issue's goal and the engine's rate measured in the same run.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from referee.env.aec import TexasEnv
from referee.rules import Match

#: What the issue asks of the AEC environment on one core.
GOAL_STEPS_PER_SECOND = 50_000


@dataclass(frozen=True)
class Round:
    engine: float  # steps per second
    env: float


def engine_steps(steps: int, seed: int) -> float:
    """Steps/s of random legal play through the bare engine."""
    draw = random.Random(seed).random
    done = matches = 0
    start = time.perf_counter()
    while done < steps:
        match = Match(seed + matches)
        matches += 1
        while match.winner is None and done < steps:
            seat = match.turn
            assert seat is not None
            legal = match.legal_actions()
            match.apply(seat, legal[int(draw() * len(legal))])
            done += 1
    return steps / (time.perf_counter() - start)


def env_steps(steps: int, seed: int) -> float:
    """Steps/s of random legal play through ``TexasEnv``, observing before each step."""
    draw = random.Random(seed).random
    env = TexasEnv()
    done = matches = 0
    start = time.perf_counter()
    while done < steps:
        env.reset(seed=seed + matches)
        matches += 1
        while env.agents and done < steps:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[int(draw() * len(legal))]))
            done += 1
    return steps / (time.perf_counter() - start)


def run(steps: int, rounds: int, seed: int) -> list[Round]:
    env_steps(min(steps, 500), seed)  # imports and first calls, outside the measure
    return [Round(engine_steps(steps, seed + r), env_steps(steps, seed + r)) for r in range(rounds)]


def lines(steps: int, rounds: int, seed: int) -> Iterator[str]:
    """Run the benchmark; its lines for people, the figure last."""
    results = run(steps, rounds, seed)
    engine = statistics.median(r.engine for r in results)
    env = statistics.median(r.env for r in results)
    yield f"{rounds} rounds of {steps:,} random legal steps each, engine then environment"
    yield f"bare engine (legal actions + apply): {engine:,.0f} steps/s"
    yield (
        f"AEC environment (last: tensor + mask; step): {env:,.0f} steps/s,"
        f" {env / engine:.0%} of the engine's"
    )
    share = env / GOAL_STEPS_PER_SECOND
    yield (
        f"goal: {GOAL_STEPS_PER_SECOND:,} steps/s; {share:.0%} of it"
        + ("" if share >= 1 else " (the lever: a compiled core under referee.env.game.Game)")
    )
    yield f"env: {env:,.0f} AEC steps/s against the engine's {engine:,.0f} ({env / engine:.0%})"
