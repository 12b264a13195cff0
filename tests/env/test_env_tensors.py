"""The tensors: the information state holds every acted event of the hand and the dealt tiles
(decoded back, they are the engine's own), the observation is the seat's view and nothing
else (the same view gives the same tensor whatever the hidden tiles; covered piles show as
taken only), and the layouts in docs/env.md are the code's."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
from support.env import random_steps

from referee.env.actions import ACTIONS
from referee.env.aec import TexasEnv
from referee.env.game import dealt
from referee.env.layout import ACTED_SIZE, INFORMATION_STATE, MAX_ACTED, OBSERVATION, PILE_SIZE
from referee.env.tensors import RELATIVE, information_state, observation
from referee.rules import SEATS, TILES, AllTricksBid, DeclareTrump, Match, Pass

ROOT = Path(__file__).resolve().parents[2]


def _decode_history(tensor: np.ndarray, seat: str) -> list[tuple[str, object]]:
    block = INFORMATION_STATE["history"]
    slots = tensor[block.offset : block.offset + block.size].reshape(MAX_ACTED, ACTED_SIZE)
    by_relative = {r: s for s, r in RELATIVE[seat].items()}  # type: ignore[index]
    moves = []
    for slot in slots:
        if not slot.any():
            break
        assert slot[:4].sum() == 1 and slot[4:].sum() == 1
        moves.append((by_relative[int(np.argmax(slot[:4]))], ACTIONS[int(np.argmax(slot[4:]))]))
    return moves


def _tiles(tensor: np.ndarray, offset: int) -> set[object]:
    return {TILES[i] for i in np.flatnonzero(tensor[offset : offset + len(TILES)])}


def test_the_information_state_holds_every_acted_event_and_the_dealt_tiles() -> None:
    env = TexasEnv(episode="hand")
    env.reset(seed=17)
    dealt = {s: set(env.game.view(s).hand) for s in SEATS}  # type: ignore[attr-defined]
    for _ in random_steps(env, random.Random(9)):
        hand = env.game.hand  # type: ignore[attr-defined]
        for seat in SEATS:
            tensor = env.information_state(seat)  # type: ignore[arg-type]
            assert tensor.dtype == np.float32 and tensor.shape == (INFORMATION_STATE.size,)
            assert _decode_history(tensor, seat) == [(m.seat, m.action) for m in hand.moves]
            assert _tiles(tensor, INFORMATION_STATE["dealt"].offset) == dealt[seat]
            assert set(np.unique(tensor)) <= {0.0, 1.0}  # no marks yet in a first hand


def test_the_kept_information_state_is_the_one_made_afresh_across_a_match() -> None:
    env = TexasEnv()
    env.reset(seed=31)
    hands = set()
    for _ in random_steps(env, random.Random(2)):
        hand = env.game.hand  # type: ignore[attr-defined]
        hands.add(hand.hand_number)
        for seat in SEATS:
            fresh = information_state(seat, hand.dealer, hand.marks, dealt(hand, seat), hand.moves)
            assert np.array_equal(env.information_state(seat), fresh)  # type: ignore[arg-type]
        kept = env.information_state("A")
        kept[:] = 0  # a copy: writing to it changes nothing kept
        assert env.information_state("A").any()
    assert len(hands) > 1


def test_the_observation_is_made_from_the_view_alone() -> None:
    rng = random.Random(4)
    match = Match(23)
    while match.marks == {"AC": 0, "BD": 0} and not match.is_over:
        hand = match.hand
        for seat in SEATS:
            view = hand.view(seat)
            tensor = observation(view)
            assert tensor.shape == (OBSERVATION.size,)
            assert _tiles(tensor, OBSERVATION["hand"].offset) == set(view.hand)
            # the other seats' tiles dealt otherwise: the same view, the same tensor
            others = [s for s in SEATS if s != seat]
            hidden = [t for s in others for t in hand.hands[s]]
            rng.shuffle(hidden)
            moved = hand.clone()
            for s in others:
                size = len(moved.hands[s])
                moved.hands[s], hidden = hidden[:size], hidden[size:]
            assert moved.view(seat) == view
            assert np.array_equal(observation(moved.view(seat)), tensor)
        legal = match.legal_actions()
        match.apply(match.turn, rng.choice(legal))  # type: ignore[arg-type]


def test_covered_piles_are_taken_but_show_no_tile() -> None:
    match = Match(5)
    hand = match.hand
    first = hand.turn
    hand.apply(first, AllTricksBid(1))  # type: ignore[arg-type]
    for _ in range(3):
        hand.apply(hand.turn, Pass())  # type: ignore[arg-type]
    hand.apply(first, DeclareTrump(6, 1))  # type: ignore[arg-type]
    rng = random.Random(1)
    while len(hand.piles) < 3 and not hand.is_over:
        hand.apply(hand.turn, rng.choice(hand.legal_actions()))  # type: ignore[arg-type]
    if hand.is_over:  # the defenders took a trick: the hand ended; the piles still count
        assert hand.piles
    taken = len(hand.piles)
    for seat in SEATS:
        tensor = observation(hand.view(seat))
        block = OBSERVATION["piles"]
        piles = tensor[block.offset : block.offset + block.size].reshape(7, PILE_SIZE)
        assert piles[:, 0].tolist() == [1.0] * taken + [0.0] * (7 - taken)
        assert piles[taken - 1, 1] == 1 and piles[taken - 1, 4:].sum() == 4  # the last one
        assert not piles[: taken - 1, 1:].any()  # the covered ones: taken only


def _ai_doc() -> str:
    return (ROOT / "docs" / "env.md").read_text()


def test_the_docs_example_loop_runs_as_written(capsys: object) -> None:
    example = re.findall(r"```python\n(.*?)```", _ai_doc(), re.DOTALL)[0]
    exec(compile(example, "docs/env.md", "exec"), {})
    printed = capsys.readouterr().out  # type: ignore[attr-defined]
    assert re.fullmatch(r"\{'AC': \d+, 'BD': \d+\}\n", printed)


def test_the_docs_print_the_layouts_of_the_code() -> None:
    text = _ai_doc()
    assert INFORMATION_STATE.table() in text
    assert OBSERVATION.table() in text
    assert f"{INFORMATION_STATE.size} floats" in text and f"{OBSERVATION.size} floats" in text
    for index, action in enumerate(ACTIONS):
        assert f"| {index} | `{action}` |" in text
