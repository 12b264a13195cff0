"""One hand of Texas 42 as an OpenSpiel game, registered from Python as ``python_texas42``.

Importing this module registers the game (``pyspiel.load_game("python_texas42")``). It
needs OpenSpiel (the ``openspiel`` extra; not in ``ai``: with SciPy it is a large install).

- Players 0-3 are seats A-D; the dealer is D, so A bids first.
- The deal is 28 chance nodes: the k-th deals a tile, uniformly among those left, to seat
  ``k // 7`` (A first); chance outcome ``i`` is ``TILES[i]``.
- Actions are the canonical action index (``referee.env.actions``), 73 distinct.
- Returns, at the end only: every seat of the side that scored +marks, the other -marks
  (0 if all four passed), as the environments reward a hand.
- The information state (string and tensor) and the observation are ``referee.env``'s; an
  observer asked for perfect recall gets the information state, otherwise the observation.
- ``resample_from_infostate`` deals the hidden tiles again consistently with everything the
  player has seen (the kit's ``Seen.sample``), so OpenSpiel's ISMCTS can search the game.
"""

from __future__ import annotations

import random
from typing import Any, Final

import numpy as np
import pyspiel

from referee.bot.seen import Seen
from referee.env.actions import ACTIONS, SIZE, action_at, indices
from referee.env.game import dealt
from referee.env.layout import INFORMATION_STATE, OBSERVATION
from referee.env.tensors import (
    information_state,
    information_state_text,
    observation,
    observation_text,
)
from referee.rules.hand import Hand
from referee.rules.tiles import PARTNERSHIP_OF, SEATS, TILES, Partnership, Seat, Tile

DEALER: Final[Seat] = "D"
NO_MARKS: Final[dict[Partnership, int]] = {"AC": 0, "BD": 0}
#: The most marks one hand can score: an all-tricks bid of 5 marks.
MOST_MARKS: Final = 5.0

GAME_TYPE: Final = pyspiel.GameType(
    short_name="python_texas42",
    long_name="Texas 42 (one hand)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=4,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
)
GAME_INFO: Final = pyspiel.GameInfo(
    num_distinct_actions=SIZE,
    max_chance_outcomes=len(TILES),
    num_players=4,
    min_utility=-MOST_MARKS,
    max_utility=MOST_MARKS,
    utility_sum=0.0,
    max_game_length=4 + 1 + len(TILES),
)


class TexasGame(pyspiel.Game):  # type: ignore[misc]
    """The game: one hand, dealt by chance."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(GAME_TYPE, GAME_INFO, params or {})

    def new_initial_state(self) -> TexasState:
        return TexasState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> TexasObserver:
        if params:
            raise ValueError(f"the observer takes no parameters, not {params}")
        perfect_recall = iig_obs_type is None or iig_obs_type.perfect_recall
        return TexasObserver(perfect_recall=bool(perfect_recall))


class TexasState(pyspiel.State):  # type: ignore[misc]
    """A hand being dealt (``hand`` None) or played (``hand``, the engine's)."""

    def __init__(self, game: TexasGame) -> None:
        super().__init__(game)
        self.dealing: dict[Seat, list[Tile]] = {s: [] for s in SEATS}
        self.hand: Hand | None = None

    def current_player(self) -> int:
        hand = self.hand
        if hand is None:
            return int(pyspiel.PlayerId.CHANCE)
        if hand.turn is None:
            return int(pyspiel.PlayerId.TERMINAL)
        return SEATS.index(hand.turn)

    def _legal_actions(self, player: int) -> list[int]:
        assert self.hand is not None
        return sorted(indices(self.hand.legal_actions()))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        given = {t for tiles in self.dealing.values() for t in tiles}
        left = [i for i, t in enumerate(TILES) if t not in given]
        return [(i, 1.0 / len(left)) for i in left]

    def _apply_action(self, action: int) -> None:
        if self.hand is None:
            count = sum(map(len, self.dealing.values()))
            self.dealing[SEATS[count // 7]].append(TILES[action])
            if count + 1 == len(TILES):
                self.hand = Hand(DEALER, self.dealing)
            return
        assert self.hand.turn is not None
        self.hand.apply(self.hand.turn, action_at(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {TILES[action]}"
        return str(ACTIONS[action])

    def is_terminal(self) -> bool:
        return self.hand is not None and self.hand.is_over

    def returns(self) -> list[float]:
        if self.hand is None or self.hand.result is None:
            return [0.0] * 4
        result = self.hand.result
        if result.winner is None:
            return [0.0] * 4
        return [
            float(result.marks if PARTNERSHIP_OF[s] == result.winner else -result.marks)
            for s in SEATS
        ]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TexasState:
        """A state ``player_id`` cannot tell from this one: the other seats' tiles dealt
        again at random, consistently with everything it has seen."""
        other = TexasState(self.get_game())
        rng = random.Random(_draw(probability_sampler))
        seat = SEATS[player_id]
        if self.hand is None:  # still dealing: the tiles not yet its own go anywhere
            other.dealing = {s: list(t) for s, t in self.dealing.items()}
            given = {t for tiles in self.dealing.values() for t in tiles}
            rest = [t for t in TILES if t not in given]
            rng.shuffle(rest)
            for s in SEATS:
                if s != seat:
                    size = len(self.dealing[s])
                    other.dealing[s], rest = rest[:size], rest[size:]
            return other
        hand = Seen(self.hand.view(seat), self.hand.moves).hand_so_far(None, rng)
        other.hand = hand
        other.dealing = {s: dealt(hand, s) for s in SEATS}
        return other

    def __str__(self) -> str:
        if self.hand is None:
            return "dealing: " + "; ".join(
                f"{s} {' '.join(map(str, t))}" for s, t in self.dealing.items()
            )
        return "\n".join(
            [f"{s}: {' '.join(map(str, self.hand.hands[s]))}" for s in SEATS]
            + ["; ".join(map(str, self.hand.moves))]
        )


def _draw(sampler: Any) -> int:
    """A seed from OpenSpiel's probability sampler, or a fresh one if it gives none."""
    try:
        return int(float(sampler()) * 2**53)
    except Exception:
        return random.getrandbits(64)


class TexasObserver:
    """The information state (perfect recall) or the observation, as OpenSpiel observes."""

    def __init__(self, *, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        layout = INFORMATION_STATE if perfect_recall else OBSERVATION
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = {f.name: self.tensor[f.offset : f.offset + f.size] for f in layout.fields}

    def set_from(self, state: TexasState, player: int) -> None:
        seat = SEATS[player]
        hand = state.hand
        if hand is None:  # dealing: only its own tiles so far
            self.tensor.fill(0)
            tiles = self.dict["dealt" if self.perfect_recall else "hand"]
            tiles[[TILES.index(t) for t in state.dealing[seat]]] = 1
            self.dict["dealer"][(SEATS.index(DEALER) - player) % 4] = 1
        elif self.perfect_recall:
            self.tensor[:] = information_state(
                seat, DEALER, NO_MARKS, dealt(hand, seat), hand.moves
            )
        else:
            self.tensor[:] = observation(hand.view(seat))

    def string_from(self, state: TexasState, player: int) -> str:
        seat = SEATS[player]
        hand = state.hand
        if hand is None:
            return f"seat {seat}, dealing: " + " ".join(map(str, state.dealing[seat]))
        if self.perfect_recall:
            return information_state_text(seat, DEALER, NO_MARKS, dealt(hand, seat), hand.moves)
        return observation_text(hand.view(seat))


pyspiel.register_game(GAME_TYPE, TexasGame)
