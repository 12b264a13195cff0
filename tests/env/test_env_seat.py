"""The Gymnasium one-seat environment: Gymnasium's checker, kit strategies and callables at
the other seats, rewards that add up to the match's marks, illegal actions refused (or
replaced by a random legal one when asked), and the core install free of the AI packages."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from referee.bot import Decision
from referee.env.actions import INDEX, SIZE
from referee.env.seat import SeatEnv
from referee.errors import InvalidBid, NotAnAction
from referee.rules import PARTNERSHIP_OF, Bid, Pass


def _first_legal(env: SeatEnv, seed: int) -> tuple[float, dict[str, int]]:
    _, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        _, reward, done, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert not truncated
        total += reward
    return total, info["marks"]


def test_passes_gymnasiums_checker() -> None:
    # the checker steps random indices: a random legal action stands in for an illegal one
    check_env(SeatEnv("C", "random", illegal="random"), skip_render_check=True)


@pytest.mark.parametrize("opponents", ["heuristic", "kit-random", "random"])
def test_the_reward_adds_up_to_the_marks_won_minus_conceded(opponents: str) -> None:
    env = SeatEnv("B", opponents)
    total, marks = _first_legal(env, 7)
    assert max(marks.values()) >= 7
    side = PARTNERSHIP_OF["B"]
    assert total == marks[side] - marks["AC"]
    assert _first_legal(SeatEnv("B", opponents), 7) == (total, marks)  # seeded: the same


def test_a_callable_plays_a_seat_and_sees_every_decision() -> None:
    seen: list[Decision] = []

    def passer(decision: Decision) -> object:
        seen.append(decision)
        return Pass() if Pass() in decision.legal_actions else decision.legal_actions[-1]

    env = SeatEnv("A", {"B": passer, "C": "random", "D": "heuristic"}, episode="hand")
    _first_legal(env, 3)
    assert seen and all(d.seat == "B" for d in seen)
    last = seen[-1]
    assert list(last.seen.hand) == last.view.hand and list(last.seen.moves[:4]) == last.view.bids


def test_an_illegal_index_raises_and_changes_nothing() -> None:
    env = SeatEnv("D", "random")
    observation, info = env.reset(seed=5)
    for index, error in ((SIZE, NotAnAction), (INDEX[Bid(30)] - 1, InvalidBid)):
        legal = np.flatnonzero(info["action_mask"]).tolist()
        if index in legal:
            continue  # seed 5: D is the fourth to bid; what stands decides
        with pytest.raises(error):
            env.step(index)
        assert np.array_equal(env._observe(), observation)
        assert np.array_equal(env.action_masks(), info["action_mask"])


def test_a_random_legal_action_replaces_an_illegal_one_when_asked() -> None:
    env = SeatEnv("A", "random", illegal="random")
    _, info = env.reset(seed=1)
    _, _, _, _, info = env.step(SIZE - 1)  # a play, in the bidding
    assert info["illegal"] is True


def test_the_core_install_imports_no_ai_package() -> None:
    code = (
        "import sys, referee.cli.app, referee.rules, referee.bot;"
        "print(sorted({'numpy', 'gymnasium', 'pettingzoo'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
