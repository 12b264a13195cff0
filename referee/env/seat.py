"""One seat as a Gymnasium environment: the agent plays it, kit strategies play the other three.

``step`` takes the agent's action index, then lets the other seats act until it is the
agent's turn again or the episode ends; the reward is the agent's marks won minus conceded
in the hands that ended meanwhile (as ``referee.env.aec``). The legal-action mask is in
``info["action_mask"]`` and ``action_masks()`` (the name maskable-PPO implementations call).
An illegal index raises the engine's ``IllegalAction`` and changes nothing; with
``illegal="random"`` a random legal action is played in its place and ``info["illegal"]``
says so, as the referee's ``on_fault = "random"`` does for a bot.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Final, Literal

import gymnasium
import numpy as np
from gymnasium import spaces

from referee.bot.loop import Strategy
from referee.env.actions import SIZE
from referee.env.aec import EPISODES, OBSERVED, Episode, Observed, hand_rewards, mask
from referee.env.game import Game, PythonGame
from referee.env.layout import INFORMATION_STATE, OBSERVATION
from referee.env.policies import KitSeat, policy
from referee.env.tensors import Tensor
from referee.rules.tiles import SEATS, Seat

#: What an illegal index does: raise, or play a random legal action in its place.
Illegal = Literal["raise", "random"]
DEFAULT_OPPONENT: Final = "heuristic"


class SeatEnv(gymnasium.Env[Tensor, Any]):
    """Texas 42 from ``seat``'s chair (see the module's docstring).

    ``opponents``: one strategy for the three other seats or one per seat — a kit
    ``Strategy`` (``Decision`` -> action), ``"random"``, or a bundled kit bot's name
    (``"heuristic"``, the default; ``"kit-random"``, ``"search"``).
    """

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012  # an instance field of gymnasium.Env

    def __init__(
        self,
        seat: Seat = "A",
        opponents: Strategy | str | Mapping[Seat, Strategy | str] = DEFAULT_OPPONENT,
        *,
        observed: Observed = "information_state",
        episode: Episode = "match",
        illegal: Illegal = "raise",
        render_mode: str | None = None,
    ) -> None:
        if seat not in SEATS:
            raise ValueError(f"seat is one of A, B, C, D, not {seat!r}")
        if (
            observed not in OBSERVED
            or episode not in EPISODES
            or illegal not in ("raise", "random")
        ):
            raise ValueError(
                f"observed: {', '.join(OBSERVED)}; episode: {', '.join(EPISODES)};"
                f" illegal: raise, random (given {observed!r}, {episode!r}, {illegal!r})"
            )
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode is ansi or None, not {render_mode!r}")
        others = [s for s in SEATS if s != seat]
        chosen = opponents if isinstance(opponents, Mapping) else dict.fromkeys(others, opponents)
        if set(chosen) != set(others):
            raise ValueError(f"opponents name the seats {', '.join(others)}, each once")
        self.seat: Seat = seat
        self.observed: Observed = observed
        self.episode: Episode = episode
        self.illegal: Illegal = illegal
        self.render_mode = render_mode
        self.others = {s: KitSeat(s, policy(chosen[s])) for s in others}
        size = (INFORMATION_STATE if observed == "information_state" else OBSERVATION).size
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.action_space = spaces.Discrete(SIZE)
        self.game: Game = PythonGame(0, one_hand=episode == "hand")
        self._substitute = random.Random()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Tensor, dict[str, Any]]:
        """Deal match ``seed`` as the referee does (a seed drawn from ``np_random`` when None);
        the other seats then act until it is this seat's turn."""
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, 2**63))
        self.game = PythonGame(seed, one_hand=self.episode == "hand")
        self._substitute.seed(seed)
        for other in self.others.values():
            other.start(seed)
        reward = self._others_play()
        assert reward == 0 and not self.game.is_over  # every hand waits for this seat's bid
        return self._observe(), self._info()

    def step(self, action: int) -> tuple[Tensor, float, bool, bool, dict[str, Any]]:
        legal = self.game.legal()
        substituted = False
        if self.illegal == "random" and legal and action not in legal:
            action, substituted = self._substitute.choice(legal), True
        events = self.game.apply(action)  # raises on an illegal action, before any change
        for other in self.others.values():
            other.see(events)
        rewards = hand_rewards(events)
        reward = rewards[self.seat] if rewards else 0
        reward += self._others_play()
        info = self._info()
        if substituted:
            info["illegal"] = True
        return self._observe(), float(reward), self.game.is_over, False, info

    def _others_play(self) -> int:
        """The other seats act until this seat's turn or the end; this seat's reward meanwhile."""
        reward = 0
        game = self.game
        while (turn := game.turn) is not None and turn != self.seat:
            events = game.apply(self.others[turn].choose(game))
            for other in self.others.values():
                other.see(events)
            rewards = hand_rewards(events)
            if rewards:
                reward += rewards[self.seat]
        return reward

    def _observe(self) -> Tensor:
        if self.observed == "information_state":
            return self.game.information_state(self.seat)
        return self.game.observation(self.seat)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "marks": dict(self.game.marks)}

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.int8]]:
        """The legal-action mask (int8 over the 73 indices; all 0 once the episode is over)."""
        return mask(self.game.legal() if self.game.turn == self.seat else [])

    def render(self) -> str | None:
        """This seat's view as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None
        return self.game.observation_text(self.seat)
