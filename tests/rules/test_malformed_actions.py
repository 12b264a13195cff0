"""Actions no position allows, tried in every phase of real matches: refused, changing nothing."""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest
from support.helpers import hand_state
from support.spectator import (
    SEAT_ORDER,
    choose,
)

from referee.errors import GameOver, IllegalAction
from referee.rules import (
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Match,
    Pass,
    Play,
    Tile,
)

#: Actions that are never legal whatever the position (Python callers can build them: structs
#: are not validated on construction, only when decoded from the wire).
MALFORMED: list[Any] = [
    Bid(29),
    Bid(42),
    Bid(0),
    Bid(True),
    Bid(30.0),
    AllTricksBid(0),
    AllTricksBid(-1),
    AllTricksBid(True),
    DeclareTrump(7),
    DeclareTrump(-1),
    DeclareTrump("spades"),
    DeclareTrump(None),
    DeclareTrump(0, 3),
    DeclareTrump(0, 0),
    Play(Tile(7, 7)),
    Play(None),
    None,
    "pass",
    {"type": "pass"},
    Pass,
]


def _replay(seed: int, log: list[tuple[str, Action]]) -> Match:
    match = Match(seed)
    for seat, action in log:
        match.apply(seat, action)  # type: ignore[arg-type]
    return match


PHASES = [
    "bidding_first",
    "bidding_later",
    "declaring_points",
    "declaring_all_tricks",
    "playing_lead",
    "playing_follow",
    "match_over",
]


@functools.cache
def _positions() -> dict[str, tuple[int, list[tuple[str, Action]]]]:
    """A position in each phase, as (seed, actions from the start of the match)."""
    found: dict[str, tuple[int, list[tuple[str, Action]]]] = {}
    for seed in range(200):
        rng = random.Random(seed)
        match = Match(seed)
        log: list[tuple[str, Action]] = []
        while not match.is_over:
            view = match.view(match.turn)  # type: ignore[arg-type]
            legal = match.legal_actions()
            if view.phase == "bidding":
                key = "bidding_later" if view.bids else "bidding_first"
            elif view.phase == "declaring":
                all_tricks = any(isinstance(a, DeclareTrump) and a.piles for a in legal)
                key = "declaring_all_tricks" if all_tricks else "declaring_points"
            else:
                key = "playing_follow" if view.trick else "playing_lead"
            found.setdefault(key, (seed, list(log)))
            action = choose(rng, legal, 0.3)
            log.append((match.turn, action))  # type: ignore[arg-type]
            match.apply(match.turn, action)  # type: ignore[arg-type]
        found.setdefault("match_over", (seed, log))
        if len(found) == len(PHASES):
            break
    return found


def test_positions_cover_every_phase() -> None:
    assert sorted(_positions()) == sorted(PHASES)


@pytest.mark.parametrize("where", PHASES)
@pytest.mark.parametrize("action", MALFORMED, ids=repr)
def test_malformed_actions_are_rejected_in_every_phase(where: str, action: Any) -> None:
    """An action no position allows raises IllegalAction (GameOver once over), changing nothing."""
    seed, log = _positions()[where]
    match = _replay(seed, log)
    snapshot, marks = hand_state(match.hand), dict(match.marks)
    expected = GameOver if match.is_over else IllegalAction
    for seat in SEAT_ORDER:  # the seat to act, and the others
        with pytest.raises(expected):
            match.apply(seat, action)  # type: ignore[arg-type]
        assert hand_state(match.hand) == snapshot and match.marks == marks
