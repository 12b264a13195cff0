"""The PettingZoo environment: the API test, seeds that reproduce a trajectory, rewards in
marks that sum to zero and add up to the engine's score, illegal indices refused with
nothing changed, and clones that do not share state."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test
from support.env import random_steps

from referee.env.actions import INDEX, SIZE
from referee.env.aec import TexasEnv
from referee.errors import GameOver, IllegalAction, InvalidBid, NotAnAction, WrongPhase
from referee.rules import PARTNERSHIP_OF, Bid, Match, Play


@pytest.mark.parametrize("observed", ["information_state", "observation"])
# Its advice for other games (agents named "player_0", a Box rather than the Dict that
# carries the mask, which PettingZoo's own card games use too) does not fit this one.
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_passes_pettingzoos_api_test(observed: str) -> None:
    api_test(TexasEnv(observed=observed), num_cycles=200)  # type: ignore[arg-type]


def test_a_seed_deals_the_referees_match_and_replays_the_same_trajectory() -> None:
    def trajectory(seed: int) -> list[tuple[str, int, float]]:
        env = TexasEnv()
        env.reset(seed=seed)
        assert env.game.view("A").hand == Match(seed).view("A").hand
        return [(a, i, env.rewards[a]) for a, i in random_steps(env, random.Random(5))]

    first = trajectory(11)
    assert trajectory(11) == first
    assert trajectory(12) != first


def test_a_reset_without_seed_follows_the_last_seed_given() -> None:
    env = TexasEnv()
    env.reset(seed=3)
    env.reset()
    after = env.game.seed
    env.reset(seed=3)
    env.reset()
    assert env.game.seed == after != 3


def test_rewards_sum_to_zero_and_total_each_sides_marks() -> None:
    env = TexasEnv()
    env.reset(seed=21)
    totals = dict.fromkeys("ABCD", 0.0)
    hands = 0
    rng = random.Random(2)
    while env.agents:
        _, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        mask = env.action_mask(env.agent_selection)
        env.step(rng.choice(np.flatnonzero(mask).tolist()))
        assert sum(env.rewards.values()) == 0
        if any(env.rewards.values()):
            hands += 1
        for agent, reward in env.rewards.items():
            totals[agent] += reward
    marks = env.game.marks
    assert hands >= 1 and max(marks.values()) >= 7
    for seat, total in totals.items():
        side = PARTNERSHIP_OF[seat]  # type: ignore[index]
        other = "BD" if side == "AC" else "AC"
        assert total == marks[side] - marks[other]


def _state(env: TexasEnv) -> tuple[object, ...]:
    return (
        env.agent_selection,
        dict(env.rewards),
        dict(env._cumulative_rewards),
        [env.game.information_state(s).tobytes() for s in "ABCD"],  # type: ignore[arg-type]
        env.game.legal(),
    )


@pytest.mark.parametrize(
    ("index", "error"),
    [(SIZE, NotAnAction), (-1, NotAnAction), (INDEX[Bid(30)], InvalidBid)],
)
def test_an_illegal_index_raises_the_engines_error_and_changes_nothing(
    index: int, error: type[IllegalAction]
) -> None:
    env = TexasEnv()
    env.reset(seed=4)
    env.step(INDEX[Bid(31)])
    before = _state(env)
    with pytest.raises(error):
        env.step(index)
    assert _state(env) == before


def test_a_play_in_the_bidding_is_the_wrong_phase() -> None:
    env = TexasEnv()
    env.reset(seed=4)
    tile = env.game.view(env.agent_selection).hand[0]
    before = _state(env)
    with pytest.raises(WrongPhase):
        env.step(INDEX[Play(tile)])
    assert _state(env) == before


def test_an_action_after_the_episode_is_game_over() -> None:
    env = TexasEnv(episode="hand")
    env.reset(seed=8)
    for _ in random_steps(env, random.Random(1)):
        pass
    with pytest.raises(GameOver):
        env.game.apply(0)


def test_a_clone_goes_its_own_way() -> None:
    env = TexasEnv()
    env.reset(seed=9)
    steps = random_steps(env, random.Random(3))
    for _ in range(12):
        next(steps)
    copy = env.clone()
    before = _state(copy)
    for _ in range(30):
        next(steps)  # the original plays on
    assert _state(copy) == before
    clone_steps = random_steps(copy, random.Random(4))
    for _ in range(30):
        next(clone_steps)
    assert _state(copy) != before
    # and the original, cloned again, replays exactly what it would have
    again = env.clone()
    a = [x for x in random_steps(env, random.Random(6))]
    b = [x for x in random_steps(again, random.Random(6))]
    assert a == b


def test_one_hand_episodes_end_with_the_first_hand() -> None:
    env = TexasEnv(episode="hand")
    env.reset(seed=30)
    list(random_steps(env, random.Random(8)))
    assert env.game.is_over and env.game.marks == {"AC": 0, "BD": 0}
    assert not env.agents
