"""Properties of random complete matches: who acts when, and exactly which actions are legal
(following suit included); see ``support.spectator``."""

from __future__ import annotations

import itertools
import random

from support.helpers import hand_state
from support.spectator import (
    ALL_TILES,
    PROPERTY_SETTINGS,
    SEAT_ORDER,
    TRUMP_CHOICES,
    Step,
    Tracker,
    called,
    ended,
    follows,
    left_of,
    matches,
    play_match,
)

from referee.errors import GameOver, IllegalAction
from referee.rules import (
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    HandStarted,
    Match,
    Pass,
    Play,
    deal,
    first_dealer,
)


@PROPERTY_SETTINGS
@matches
def test_every_play_follows_suit_when_it_can(
    seed: int, rng: random.Random, pass_rate: float
) -> None:
    def before(match: Match, tr: Tracker, _aux: random.Random) -> None:
        if match.is_over or tr.phase != "playing":
            return
        view = match.view(match.turn)  # type: ignore[arg-type]
        assert view.contract is not None
        listed = {a.tile for a in match.legal_actions() if isinstance(a, Play)}
        assert len(listed) == len(match.legal_actions())  # only plays while playing
        if view.trick:
            suit = called(view.contract.trump, view.trick[0].tile)
            able = [t for t in view.hand if follows(view.contract.trump, suit, t)]
            assert listed == set(able or view.hand), (view.trick, view.hand, listed)
        else:
            assert listed == set(view.hand)  # the leader may lead any tile

    def after(step: Step) -> None:
        if not isinstance(step.action, Play):
            return
        view = step.before
        assert view.contract is not None
        if view.trick:
            suit = called(view.contract.trump, view.trick[0].tile)
            if any(follows(view.contract.trump, suit, t) for t in view.hand):
                assert follows(view.contract.trump, suit, step.action.tile)

    play_match(seed, rng, pass_rate, before=before, after=after)


#: Every well-formed action of every kind (the engine offers only some of them at a time).
UNIVERSE: list[Action] = [
    Pass(),
    *(Bid(p) for p in range(30, 42)),
    *(AllTricksBid(m) for m in range(1, 8)),
    *(DeclareTrump(t, p) for t in TRUMP_CHOICES for p in (None, 1, 2)),
    *(Play(t) for t in ALL_TILES),
]


@PROPERTY_SETTINGS
@matches
def test_legal_actions_are_exact(seed: int, rng: random.Random, pass_rate: float) -> None:
    def before(match: Match, tr: Tracker, aux: random.Random) -> None:
        hand = match.hand
        if match.is_over:
            assert match.legal_actions() == [] and match.turn is None
            for seat in SEAT_ORDER:
                for action in aux.sample(UNIVERSE, 5):
                    try:
                        match.apply(seat, action)  # type: ignore[arg-type]
                    except GameOver:
                        pass
                    else:
                        raise AssertionError(f"{seat} {action} accepted after the match")
            return
        seat = match.turn
        assert seat is not None
        legal = match.legal_actions()
        assert len(set(legal)) == len(legal), legal
        assert set(legal) == tr.legal(), (tr.phase, legal)
        snapshot = hand_state(hand)
        for action in legal:
            clone = hand.clone()
            clone.apply(seat, action)  # must not raise
        assert hand_state(hand) == snapshot  # the clones are independent
        unlisted = [a for a in UNIVERSE if a not in legal]
        marks, results = dict(match.marks), len(match.results)
        for action in aux.sample(unlisted, min(10, len(unlisted))):
            try:
                match.apply(seat, action)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"unlisted {action} accepted in {tr.phase}")
            assert hand_state(hand) == snapshot, action
        other = aux.choice([s for s in SEAT_ORDER if s != seat])
        try:
            match.apply(other, aux.choice(legal))  # type: ignore[arg-type]
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"{other} acted out of turn")
        assert match.hand is hand and hand_state(hand) == snapshot
        assert match.marks == marks and len(match.results) == results

    play_match(seed, rng, pass_rate, before=before)


@PROPERTY_SETTINGS
@matches
def test_deal_rotates_and_bidding_starts_left_of_the_dealer(
    seed: int, rng: random.Random, pass_rate: float
) -> None:
    dealers: list[str] = []

    def check_new_hand(match: Match, number: int) -> None:
        hand = match.hand
        assert hand.hand_number == number
        assert match.turn == left_of(hand.dealer)  # the first bidder
        dealt = deal(seed, number, hand.dealer)
        for seat in SEAT_ORDER:
            view = match.view(seat)  # type: ignore[arg-type]
            assert view.dealer == hand.dealer and view.phase == "bidding"
            assert view.hand == dealt[seat]  # type: ignore[index]
            assert view.marks == match.marks
        dealers.append(hand.dealer)

    def after(step: Step) -> None:
        tr = step.tracker
        assert step.seat == step.before.turn
        if isinstance(step.action, Pass | Bid | AllTricksBid) and len(tr.bids) > 1:
            assert step.seat == left_of(tr.bids[-2][0])  # clockwise bidding
        if isinstance(step.action, DeclareTrump):
            assert step.seat == tr.high_bidder  # the highest bidder declares ...
        if isinstance(step.action, Play) and isinstance(tr.moves[-2][1], DeclareTrump):
            assert tr.contract is not None
            assert step.seat == tr.contract.declarer  # ... and leads the first trick
        started = [e for e in step.events if isinstance(e, HandStarted)]
        if started:
            assert started == [HandStarted(hand_number=tr.number + 1, dealer=left_of(tr.dealer))]  # type: ignore[arg-type]
            check_new_hand(step.match, tr.number + 1)
        elif not step.match.is_over and not ended(step.events):
            assert step.match.turn == tr.turn  # turn order as the rules say

    match = Match(seed)
    assert match.hand.dealer == first_dealer(seed)
    check_new_hand(match, 1)
    match, _ = play_match(seed, rng, pass_rate, after=after)
    assert dealers[0] == first_dealer(seed)
    for previous, current in itertools.pairwise(dealers):
        assert current == left_of(previous)
    assert len(dealers) == len(match.results) + (0 if match.is_over else 1)
