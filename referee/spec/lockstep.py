"""Two engines side by side on random matches, every decision compared: the other half of the
hook that holds a new engine (a compiled core) to the reference, beyond the published vectors.

Both engines offer ``facts.Engine``; the moves are drawn from the reference's legal actions
with a seeded generator, so a disagreement names a seed and a move that reproduce it.
"""

from __future__ import annotations

import random
from typing import Any

from referee.spec.conformance import Disagreement, Parted, same
from referee.spec.facts import Engine, NewEngine, PythonEngine
from referee.spec.vectors import match_seed

_PASS = {"type": "pass"}


def lockstep(
    new_engine: NewEngine,
    *,
    reference: NewEngine = PythonEngine,
    matches: int = 100,
    first: int = 0,
    states: bool = True,
) -> list[Disagreement]:
    """Play ``matches`` whole matches (seeds ``match_seed(first)``, ...) in both engines and
    return where they part: the seat to act, the legal actions (in order) and the events of
    every move, and with ``states`` the state after it. One disagreement at most per match."""
    found = []
    for number in range(first, first + matches):
        seed = match_seed(number)
        engine, oracle = new_engine(seed), reference(seed)
        try:
            _play(engine, oracle, random.Random(number), states)
        except Parted as parted:
            found.append(
                Disagreement("lockstep", f"seed {seed}", parted.what, parted.expected, parted.got)
            )
        except Exception as error:  # the engine's own failure is a disagreement too
            raised = f"{type(error).__name__}: {error}"
            found.append(
                Disagreement("lockstep", f"seed {seed}", "the engine raised", None, raised)
            )
    return found


def _play(engine: Engine, oracle: Engine, rng: random.Random, states: bool) -> None:
    """One match, move by move; bidding passes half the time, so that contracts are varied."""
    index = 0
    while True:
        seat = oracle.turn
        same(f"move {index}: the seat to act", seat, engine.turn)
        if seat is None:
            return
        legal = list(oracle.legal_actions())
        same(f"move {index}: the legal actions", legal, list(engine.legal_actions()))
        action: Any = legal[int(rng.random() * len(legal))]
        if legal[0] == _PASS and rng.random() < 0.5:
            action = _PASS
        expected = list(oracle.apply(seat, action))
        same(f"move {index}: the events of {action}", expected, list(engine.apply(seat, action)))
        if states:
            same(f"move {index}: the state after it", oracle.state(), engine.state())
        index += 1
