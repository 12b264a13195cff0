"""The OpenSpiel game: OpenSpiel's own random-simulation checks pass, a resampled state is
one the player cannot tell from the real one, and OpenSpiel's MCTS and ISMCTS bots play a
hand of it to the end (ISMCTS through ``resample_from_infostate``).

OpenSpiel is the ``openspiel`` extra, not the ``test`` one (with SciPy it is a large
install): without it these tests are skipped, and say so."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel",
    reason="OpenSpiel (the openspiel extra) is not installed: the test extra brings it on"
    " CPython 3.11 to 3.13, for which it has wheels",
)

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from referee.env.openspiel import TexasState  # noqa: E402


def _dealt(game: object, rng: np.random.RandomState) -> object:
    state = game.new_initial_state()  # type: ignore[attr-defined]
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.randint(len(outcomes))][0])
    return state


def test_passes_openspiels_random_simulation_checks() -> None:
    game = pyspiel.load_game("python_texas42")
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)


def test_a_resampled_state_keeps_everything_the_player_knows() -> None:
    game = pyspiel.load_game("python_texas42")
    rng = np.random.RandomState(4)
    state = _dealt(game, rng)
    differed = 0
    while not state.is_terminal():  # type: ignore[attr-defined]
        player = state.current_player()  # type: ignore[attr-defined]
        for _ in range(3):
            other = state.resample_from_infostate(
                player, pyspiel.UniformProbabilitySampler(0.0, 1.0)
            )  # type: ignore[attr-defined]
            assert other.information_state_string(player) == state.information_state_string(player)  # type: ignore[attr-defined]
            assert other.information_state_tensor(player) == state.information_state_tensor(player)  # type: ignore[attr-defined]
            assert other.legal_actions() == state.legal_actions()  # type: ignore[attr-defined]
            differed += str(other) != str(state)
        state.apply_action(rng.choice(state.legal_actions()))  # type: ignore[attr-defined]
    assert differed  # the hidden tiles did move


def test_mcts_and_ismcts_play_a_hand_to_its_end(monkeypatch: pytest.MonkeyPatch) -> None:
    resampled = []
    real = TexasState.resample_from_infostate

    def counting(self: TexasState, player: int, sampler: object) -> TexasState:
        resampled.append(player)
        return real(self, player, sampler)

    monkeypatch.setattr(TexasState, "resample_from_infostate", counting)
    game = pyspiel.load_game("python_texas42")
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    bots = {
        0: ismcts.ISMCTSBot(game, evaluator, 2.0, 25, random_state=np.random.RandomState(2)),
        1: mcts.MCTSBot(game, 2.0, 25, evaluator, random_state=np.random.RandomState(3)),
    }
    state = _dealt(game, rng)
    while not state.is_terminal():  # type: ignore[attr-defined]
        player = state.current_player()  # type: ignore[attr-defined]
        bot = bots.get(player % 2)
        action = bot.step(state) if bot else rng.choice(state.legal_actions())  # type: ignore[attr-defined]
        assert action in state.legal_actions()  # type: ignore[attr-defined]
        state.apply_action(action)  # type: ignore[attr-defined]
    returns = state.returns()  # type: ignore[attr-defined]
    assert sum(returns) == 0 and returns[0] == returns[2] and returns[1] == returns[3]
    assert resampled and set(resampled) <= {0, 2}
