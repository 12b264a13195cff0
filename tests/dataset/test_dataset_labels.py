"""The labels are the exact solver's answers on the real deal, asked afresh at each decision
(the searches the labeller keeps through a hand change no answer); bids have none; a search
stopped at its bound gives up that decision's labels."""

from __future__ import annotations

import numpy as np
import trio
from support.viewer_logs import log_of, random_match

from referee.dataset.columns import NO_LABEL
from referee.dataset.labels import Labeller
from referee.env.actions import INDEX
from referee.record.records import MoveRecord
from referee.record.walk import LogWalk
from referee.solver import makes, play_values


def test_labels_are_the_solvers_answers_asked_afresh() -> None:
    log = log_of(trio.run(random_match, 21))
    labeller, kinds = Labeller(), set()
    for moment in LogWalk(log.records):
        if type(moment.record) is not MoveRecord:
            continue
        hand = moment.match.hand
        got, given_up = labeller.labels(hand)
        assert not given_up
        expected = np.full(73, NO_LABEL, np.int8)
        if hand.phase == "playing":
            for play, made in play_values(hand).items():
                expected[INDEX[play]] = made
        elif hand.phase == "declaring":
            assert hand.turn is not None
            for action in hand.legal_actions():
                declared = hand.clone()
                declared.apply(hand.turn, action)
                expected[INDEX[action]] = makes(declared)
        np.testing.assert_array_equal(got, expected)
        kinds.add((hand.phase, bool((got == 1).any()), bool((got == 0).any())))
    assert {phase for phase, _, _ in kinds} == {"bidding", "declaring", "playing"}
    assert any(made and set_ for phase, made, set_ in kinds if phase == "playing")


def test_a_search_past_its_bound_gives_up_its_labels() -> None:
    log = log_of(trio.run(random_match, 21))
    labeller = Labeller(max_nodes=10)
    gave_up = 0
    for moment in LogWalk(log.records):
        if type(moment.record) is MoveRecord and moment.match.hand.phase == "declaring":
            got, given_up = labeller.labels(moment.match.hand)
            gave_up += given_up
            assert given_up == bool((got == NO_LABEL).all())
    assert gave_up > 0
