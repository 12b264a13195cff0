"""A kit decision's tensors are the environments' and the dataset's: a bot computes, from what
its seat was sent, exactly the information state, observation and mask a network was trained
on — over real logs (each seat's transcript, byte for byte, fed to the kit's own loop, against
``referee dataset``'s rows of the same log) and over in-process matches (against
``PythonGame``) across hands and matches."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import pytest
from support.docs import ROOT

from referee.ask.transcript import transcript
from referee.bot.loop import Bot, Decision, Strategy
from referee.dataset.columns import decoded
from referee.dataset.decisions import Rows, add_log
from referee.env.decisions import information_state_of, mask_of, observation_of
from referee.env.game import PythonGame
from referee.env.policies import KitSeat, policy
from referee.env.tensors import Tensor
from referee.record.log import read_log
from referee.record.records import LogRecord
from referee.rules.actions import Action
from referee.rules.tiles import SEATS, Seat

GOLDEN = ROOT / "tests" / "golden" / "logs"
Seen = tuple[Tensor, Tensor, np.ndarray]


def _kit_tensors(records: Sequence[LogRecord], seat: Seat) -> dict[int, Seen]:
    """Every act the seat was sent in the log, through the kit's loop: its tensors by act id."""
    seen: dict[int, Seen] = {}

    def strategy(decision: Decision) -> Action:
        tensors = information_state_of(decision), observation_of(decision), mask_of(decision)
        seen[decision.id] = tensors
        return decision.legal_actions[0]

    bot = Bot(strategy, "tensors")
    for question in transcript(records, seat).questions:
        for line in question.line(1_000).splitlines(keepends=True):
            bot.handle(line)
    return seen


@pytest.mark.parametrize("name", ["bundled-0", "kit-0", "kept-1", "kept-3"])
def test_the_kit_computes_the_dataset_rows_from_what_each_seat_was_sent(name: str) -> None:
    log = read_log(GOLDEN / f"{name}.jsonl")
    rows = Rows()
    add_log(rows, log, name)
    got = decoded(rows.table())
    seats = got.table["seat"].to_pylist()
    forced = got.table["forced"].to_pylist()
    compared = 0
    for seat in SEATS:
        kit = _kit_tensors(log.records, seat)
        answered = [
            d.ids[-1]
            for d in transcript(log.records, seat).decisions
            if d.played is not None and not d.forced
        ]
        at = [i for i, s in enumerate(seats) if SEATS[s] == seat and not forced[i]]
        assert len(answered) == len(at) > 10
        for act_id, row in zip(answered, at, strict=True):
            state, view, mask = kit[act_id]
            np.testing.assert_array_equal(state, got.information_states[row])
            np.testing.assert_array_equal(view, got.observations[row])
            np.testing.assert_array_equal(mask, got.masks[row])
            compared += 1
    assert compared == len(seats) - sum(forced)


def _recording(choose: Strategy, seat: Seat, into: list[tuple[Seat, Decision]]) -> Strategy:
    def strategy(decision: Decision) -> Action:
        into.append((seat, decision))
        return choose(decision)

    return strategy


def test_the_kit_computes_the_environments_tensors_across_hands_and_matches() -> None:
    decisions = 0
    for seed in (1, 2, 3):
        game = PythonGame(seed)
        checked: list[tuple[Seat, Decision]] = []
        rng = random.Random(seed)
        seats = {
            s: KitSeat(s, _recording(policy(rng.choice(["heuristic", "random"])), s, checked))
            for s in SEATS
        }
        for kit_seat in seats.values():
            kit_seat.start(seed)
        while (turn := game.turn) is not None:
            state, view = game.information_state(turn), game.observation(turn)
            legal = sorted(game.legal())
            index = seats[turn].choose(game)
            seat, decision = checked[-1]
            assert seat == turn
            np.testing.assert_array_equal(information_state_of(decision), state)
            np.testing.assert_array_equal(observation_of(decision), view)
            assert np.flatnonzero(mask_of(decision)).tolist() == legal
            decisions += 1
            events = game.apply(index)
            for kit_seat in seats.values():
                kit_seat.see(events)
    assert decisions > 150
