"""Reading the play: a world is weighed by what each other seat's plays would have been with
the tiles it gives that seat, checked against the engine's own legal tiles at each play of
real hands."""

from __future__ import annotations

import random

import pytest
from support.strong import first_lead

from referee.bot import Seen
from referee.rules import Hand, Play
from referee.rules.suits import CALLED, STRENGTH, TRUMP_SUIT, follows
from referee.rules.tiles import COUNT, PARTNERSHIP_OF, SEATS, Seat
from referee.solver.search import mask
from referee.strong.play import choose_tile
from referee.strong.reading import COUNT_THROWN, NOT_TAKEN, clues, play_weight


def played_out(seed: int, tricks: int) -> Hand:
    """``first_lead(seed)`` played at random for ``tricks`` tricks and one tile more."""
    hand = first_lead(seed)
    rng = random.Random(seed)
    while not hand.is_over and len(hand.piles) * 4 + len(hand.trick) < 4 * tricks + 1:
        seat = hand.turn
        assert seat is not None
        hand.apply(seat, rng.choice(hand.legal_actions()))
    return hand


def expected_weight(hand: Hand, seed: int, reader: Seat) -> float:
    """The true deal's weight, replaying the plays of ``first_lead(seed)`` on the engine: its
    legal tiles at each play, not the reading's masks."""
    contract = hand.contract
    assert contract is not None
    replay = first_lead(seed)
    plays = [m for m in hand.moves if isinstance(m.action, Play)]
    weight = 1.0
    for at, move in enumerate(plays):
        assert isinstance(move.action, Play)
        tile, seat, place = move.action.tile, move.seat, at % 4
        legal = [a.tile for a in replay.legal_actions() if isinstance(a, Play)]
        held = list(replay.hands[seat])
        if place and seat != reader:
            trick = [(p.seat, p.action.tile) for p in plays[at - place : at]]  # type: ignore[union-attr]
            suit = CALLED[contract.trump][trick[0][1]]
            strength = STRENGTH[contract.trump][suit]
            before = max(trick, key=lambda p: strength[p[1]])
            after = before if strength[before[1]] >= strength[tile] else (seat, tile)
            theirs = PARTNERSHIP_OF[after[0]] != PARTNERSHIP_OF[seat]
            if theirs and COUNT[tile] and any(COUNT[t] < COUNT[tile] for t in legal):
                weight *= COUNT_THROWN[place]
            out_of_suit = suit != TRUMP_SUIT and not follows(contract.trump, suit, tile)
            could_take = any(strength[t] > strength[before[1]] for t in held)
            if out_of_suit and theirs and after == before and could_take:
                weight *= NOT_TAKEN[any(COUNT[t] for _, t in trick) > 0]
        replay.apply(seat, move.action)
    return weight


def test_the_true_deal_is_weighed_as_the_engine_says_its_plays_were() -> None:
    fired = 0
    for seed in range(60):
        hand = played_out(seed, tricks=1 + seed % 5)
        for reader in SEATS:
            seen = Seen(hand.view(reader), hand.moves)
            now = {seat: mask(tiles) for seat, tiles in hand.hands.items()}
            found = clues(seen)
            weight = play_weight(found, (now["A"], now["B"], now["C"], now["D"]))
            assert weight == pytest.approx(expected_weight(hand, seed, reader))
            fired += weight < 1
    assert fired > 20  # random play throws count often: the readings were exercised


def test_the_readers_own_plays_say_nothing() -> None:
    hand = played_out(4, tricks=3)
    for reader in SEATS:
        seen = Seen(hand.view(reader), hand.moves)
        assert all(SEATS[clue.seat] != reader for clue in clues(seen))
    before_any_play = first_lead(4)
    assert clues(Seen(before_any_play.view("B"), before_any_play.moves)) == []


def test_without_the_cheaper_tiles_the_same_hand_was_forced() -> None:
    """A seat that threw count with a cheaper legal tile in hand: its hand then without the
    cheaper tiles had no choice, and a world giving it that hand is not discounted."""
    for seed in range(200):
        hand = played_out(seed, tricks=2)
        seen = Seen(hand.view("A"), hand.moves)
        thrown = [c for c in clues(seen) if c.within is not None]
        now = {seat: mask(tiles) for seat, tiles in hand.hands.items()}
        true = (now["A"], now["B"], now["C"], now["D"])
        for clue in thrown:
            then = true[clue.seat] | clue.later
            if clue.applies(then):
                assert not clue.applies(then & ~clue.suspect)
                assert play_weight([clue], true) == clue.weight
                return
    raise AssertionError("no seed threw count with a cheaper tile in hand")


def test_the_play_reads_the_worlds_when_asked() -> None:
    for seed in range(9, 60):  # the first position with a choice and a play to read
        hand = played_out(seed, tricks=3)
        seat = hand.turn
        assert seat is not None
        view = hand.view(seat)
        legal = [a.tile for a in hand.legal_actions() if isinstance(a, Play)]
        seen = Seen(view, hand.moves)
        if clues(seen) and len(legal) > 1:
            break
    else:
        raise AssertionError("no position with a choice and a play to read")
    rng = random.Random
    plain = choose_tile(view, seen, legal, legal[0], rng(1), 30.0, max_worlds=64)
    read = choose_tile(view, seen, legal, legal[0], rng(1), 30.0, max_worlds=64, read=True)
    assert plain.worlds == read.worlds == 64
    assert plain.wins != read.wins
