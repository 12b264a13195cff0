"""``Match.clone`` branches a whole match: the copy plays on across hands (a new deal, the
score) while the original stays exactly where it was, and replays the same future."""

from __future__ import annotations

import random

from referee.rules import Match


def _play(match: Match, rng: random.Random, actions: int) -> list[object]:
    done = []
    for _ in range(actions):
        if match.is_over:
            break
        action = rng.choice(match.legal_actions())
        done.append(action)
        match.apply(match.turn, action)  # type: ignore[arg-type]
    return done


def _state(match: Match) -> tuple[object, ...]:
    hand = match.hand
    return (dict(match.marks), list(match.results), match.winner, hand.hand_number,
            {s: list(t) for s, t in hand.hands.items()}, list(hand.moves), hand.turn)  # fmt: skip


def test_a_clone_plays_on_across_hands_and_leaves_the_original_alone() -> None:
    match = Match(77)
    _play(match, random.Random(1), 20)
    before = _state(match)
    copy = match.clone()
    _play(copy, random.Random(2), 200)  # several hands: new deals, marks, results
    assert copy.hand.hand_number > match.hand.hand_number
    assert _state(match) == before
    twin = match.clone()
    assert _play(match, random.Random(3), 500) == _play(twin, random.Random(3), 500)
    assert _state(match) == _state(twin)
