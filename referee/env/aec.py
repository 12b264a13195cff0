"""The game as a PettingZoo AEC environment: four agents "A"-"D", one acting at a time.

Each agent observes a dict, PettingZoo's convention for games with illegal moves:
``observation`` — its information state (default) or its observation, float32, layouts in
``referee.env.layout`` — and ``action_mask`` — int8 over the 73 action indices, 1 where
legal, all 0 for an agent whose turn it is not. Rewards are marks, at each hand's end: every
seat of the side that scored gets +marks, every seat of the other side -marks (a passed hand
0), so the four rewards of a step sum to zero and one seat's total is its side's marks won
minus conceded. ``reset(seed=s)`` deals match ``s`` exactly as the referee does; a reset
without a seed takes the next seed from a generator seeded by the last seed given.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar, Final, Literal

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from referee.env.actions import SIZE
from referee.env.game import Game, PythonGame
from referee.env.layout import INFORMATION_STATE, OBSERVATION
from referee.env.tensors import Tensor
from referee.rules.events import Event, HandEnded
from referee.rules.tiles import LEFT_OF, PARTNERSHIP_OF, SEATS, Seat

#: What an agent's ``observation`` holds: everything it was sent, or its view now.
Observed = Literal["information_state", "observation"]
#: How long an episode lasts: a match to 7 marks, or its first hand.
Episode = Literal["match", "hand"]

EPISODES: Final[tuple[Episode, ...]] = ("match", "hand")
OBSERVED: Final[tuple[Observed, ...]] = ("information_state", "observation")


def mask(legal: list[int]) -> np.ndarray[Any, np.dtype[np.int8]]:
    """The legal-action mask: int8 over the action index, 1 at each legal index."""
    out = np.zeros(SIZE, dtype=np.int8)
    out[legal] = 1
    return out


def hand_rewards(events: list[Event]) -> dict[Seat, int] | None:
    """Each seat's reward for the hand that ``events`` ended (None if none ended)."""
    for event in events:
        if type(event) is HandEnded:
            result = event.review.result
            if result.winner is None:
                return dict.fromkeys(SEATS, 0)
            return {
                s: result.marks if PARTNERSHIP_OF[s] == result.winner else -result.marks
                for s in SEATS
            }
    return None


class TexasEnv(AECEnv[Seat, dict[str, Any], int]):  # type: ignore[misc]  # untyped base
    """Texas 42 for four agents (see the module's docstring for observations and rewards)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "texas42_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        *,
        observed: Observed = "information_state",
        episode: Episode = "match",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if observed not in OBSERVED:
            raise ValueError(f"observed is one of {', '.join(OBSERVED)}, not {observed!r}")
        if episode not in EPISODES:
            raise ValueError(f"episode is one of {', '.join(EPISODES)}, not {episode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is ansi, human or None, not {render_mode!r}")
        self.observed: Observed = observed
        self.episode: Episode = episode
        self.render_mode = render_mode
        self.possible_agents: list[Seat] = list(SEATS)
        size = (INFORMATION_STATE if observed == "information_state" else OBSERVATION).size
        space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (SIZE,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(SEATS, space)
        self.action_spaces = dict.fromkeys(SEATS, spaces.Discrete(SIZE))
        self._seeds = random.Random()
        self.game: Game = PythonGame(0, one_hand=episode == "hand")
        self._start()

    def observation_space(self, agent: Seat) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: Seat) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- the AEC cycle ---------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal match ``seed`` (from the seed generator when None); ``options`` are unused."""
        if seed is not None:
            self._seeds.seed(seed)
        else:
            seed = self._seeds.getrandbits(64)
        self.game = PythonGame(seed, one_hand=self.episode == "hand")
        self._start()

    def _start(self) -> None:
        self.agents = list(SEATS)
        self.rewards = dict.fromkeys(SEATS, 0.0)
        self._cumulative_rewards = dict.fromkeys(SEATS, 0.0)
        self.terminations = dict.fromkeys(SEATS, False)
        self.truncations = dict.fromkeys(SEATS, False)
        self.infos: dict[Seat, dict[str, Any]] = {s: {} for s in SEATS}
        turn = self.game.turn
        assert turn is not None
        self.agent_selection = turn

    def step(self, action: int | None) -> None:
        """The selected agent takes ``action``, an index 0-72; an illegal one raises the
        engine's ``IllegalAction`` (``NotAnAction`` out of range) and changes nothing."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        events = self.game.apply(action)  # type: ignore[arg-type]  # the game checks it
        self._cumulative_rewards[agent] = 0.0
        rewards = hand_rewards(events)
        self.rewards = {s: float(rewards[s]) if rewards else 0.0 for s in self.agents}
        turn = self.game.turn
        if turn is None:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = LEFT_OF[agent]
        else:
            self.agent_selection = turn
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: Seat) -> dict[str, Any]:
        tensor = (
            self.game.information_state(agent)
            if self.observed == "information_state"
            else self.game.observation(agent)
        )
        return {"observation": tensor, "action_mask": self.action_mask(agent)}

    # -- for agents and search -------------------------------------------------------------

    def action_mask(self, agent: Seat) -> np.ndarray[Any, np.dtype[np.int8]]:
        """``agent``'s legal-action mask (all 0 when it is not its turn)."""
        return mask(self.game.legal() if agent == self.game.turn else [])

    def information_state(self, agent: Seat) -> Tensor:
        return self.game.information_state(agent)

    def observation_tensor(self, agent: Seat) -> Tensor:
        return self.game.observation(agent)

    def information_state_string(self, agent: Seat) -> str:
        return self.game.information_state_text(agent)

    def observation_string(self, agent: Seat) -> str:
        return self.game.observation_text(agent)

    def clone(self) -> TexasEnv:
        """An independent copy of the whole environment, for search: stepping either changes
        nothing in the other."""
        other = TexasEnv.__new__(TexasEnv)
        other.__dict__.update(self.__dict__)
        other.game = self.game.clone()
        other._seeds = random.Random()
        other._seeds.setstate(self._seeds.getstate())
        other.agents = list(self.agents)
        for name in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
            setattr(other, name, dict(getattr(self, name)))
        other.infos = {s: dict(info) for s, info in self.infos.items()}
        return other

    def render(self) -> str | None:
        """The view of the seat to act (of every seat once over), as text."""
        turn = self.game.turn
        seats = [turn] if turn is not None else list(SEATS)
        text = "\n\n".join(self.game.observation_text(s) for s in seats)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the game holds no process, file or window."""
