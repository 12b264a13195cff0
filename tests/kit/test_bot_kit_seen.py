"""The kit's reconstruction of a hand from one seat's information (``Decision.seen``).

Whole matches are played in-process: four kit ``Bot`` loops get the lines the referee would
send them (the engine's own views, legal actions and public events, with new fields and an
unknown event type mixed in when ``noise`` is on), and at every decision the deciding seat's
strategy checks what the kit rebuilt against the engine's real state.
"""

from __future__ import annotations

import io
import json
import random
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.helpers import hand_state
from support.kit import message_line

from referee.bot import Bot, Decision, HistoryMismatch, Seen
from referee.rules import Action, HandStarted, Match, Tile
from referee.rules.events import HandEnded, MatchEnded
from referee.rules.suits import CALLED, FOLLOWERS
from referee.rules.tiles import SEATS, TILES, Seat


def _noisy(value: Any, rng: random.Random) -> Any:
    """``value`` with unknown fields added to some of its objects, at any depth."""
    if isinstance(value, dict):
        out = {k: _noisy(v, rng) for k, v in value.items()}
        is_map = set(value) <= {"A", "B", "C", "D", "AC", "BD"}  # marks, hand_sizes: not structs
        if not is_map and rng.random() < 0.3:
            out["added_later"] = {"x": [1, 2]}
        return out
    if isinstance(value, list):
        return [_noisy(v, rng) for v in value]
    return value


def true_voids(match: Match) -> dict[Seat, set[int]]:
    """The suits each seat showed out of, from the engine's own record of the hand."""
    hand = match.hand
    voids: dict[Seat, set[int]] = {s: set() for s in SEATS}
    if hand.contract is None:
        return voids
    trump = hand.contract.trump
    plays = [(m.seat, m.action.tile) for m in hand.moves if hasattr(m.action, "tile")]
    for start in range(0, len(plays), 4):
        trick = plays[start : start + 4]
        suit = CALLED[trump][trick[0][1]]
        for seat, tile in trick[1:]:
            if tile not in FOLLOWERS[trump][suit]:
                voids[seat].add(suit)
    return voids


def check_sample(seen: Seen, hidden: dict[Seat, list[Tile]], match: Match) -> None:
    hand = match.hand
    me = seen.seat
    played = {m.action.tile for m in hand.moves if hasattr(m.action, "tile")}
    voids = true_voids(match)
    given: list[Tile] = []
    for seat in SEATS:
        if seat == me:
            assert seat not in hidden
            continue
        tiles = hidden[seat]
        assert len(tiles) == len(hand.hands[seat])  # the real hand sizes
        for tile in tiles:
            assert tile not in played, f"{seat} got {tile}, already played"
            assert tile not in hand.hands[me], f"{seat} got {tile}, which {me} holds"
            assert hand.contract is None or not any(
                tile in FOLLOWERS[hand.contract.trump][s] for s in voids[seat]
            ), f"{seat} got {tile} of a suit it showed out of"
        given += tiles
    assert sorted(given) == sorted(set(TILES) - played - set(hand.hands[me]))
    rebuilt = seen.hand_so_far(hidden)  # any consistent fill replays legally
    assert rebuilt.legal_actions() == match.legal_actions()
    assert rebuilt.trick == hand.trick and rebuilt.piles == hand.piles
    assert rebuilt.points == hand.points and rebuilt.contract == hand.contract


def check_void_refused(seen: Seen, truth: dict[Seat, list[Tile]], match: Match) -> None:
    """Giving a seat a tile of a suit it showed out of (by a swap) is refused."""
    contract = match.hand.contract
    if contract is None:
        return
    for seat, suits in true_voids(match).items():
        if seat == seen.seat or not suits or not truth[seat]:
            continue
        for other in seen.others:
            if other == seat:
                continue
            for tile in truth[other]:
                if any(tile in FOLLOWERS[contract.trump][s] for s in suits):
                    wrong = dict(truth)
                    wrong[seat] = [tile, *truth[seat][1:]]
                    wrong[other] = [truth[seat][0] if t == tile else t for t in truth[other]]
                    with pytest.raises(ValueError, match="showed out of"):
                        seen.hand_so_far(wrong)
                    return


def play_in_process(seed: int, noise: bool, max_hands: int = 3, announce_first: bool = True) -> int:
    """Play a match between four kit bots that check the kit at every decision; return the
    number of decisions checked."""
    match = Match(seed)
    noise_rng = random.Random(seed)
    failures: list[str] = []
    checked = 0

    def strategy(decision: Decision) -> Action:
        nonlocal checked
        try:
            seat = decision.seat
            assert seat == match.turn
            assert decision.legal_actions == match.legal_actions()
            seen = decision.seen
            truth = {s: list(match.hand.hands[s]) for s in SEATS if s != seat}
            rebuilt = decision.hand_so_far(truth)
            assert hand_state(rebuilt) == hand_state(match.hand)  # the engine's own state
            assert {s: set(v) for s, v in seen.voids.items()} == true_voids(match)
            rng = random.Random(checked)
            for _ in range(3):
                check_sample(seen, seen.sample(rng), match)
            # the constructive placement too (what sample falls back to under many voids)
            others = list(seen.others)
            placed = seen._place(
                sorted(seen.unseen),
                [seen.hand_sizes[s] for s in others],
                [seen.may_hold(s) for s in others],
                rng,
            )
            check_sample(seen, placed, match)
            check_void_refused(seen, truth, match)
            checked += 1
        except Exception as error:  # the kit would swallow it: record it
            failures.append(f"{type(error).__name__}: {error}")
            raise
        return decision.rng.choice(decision.legal_actions)

    bots = {s: Bot(strategy, s, log=io.StringIO()) for s in SEATS}
    pending: dict[Seat, list[Any]] = {s: [] for s in SEATS}
    if announce_first:
        for s in SEATS:
            pending[s].append(HandStarted(hand_number=1, dealer=match.hand.dealer))
    for index, seat in enumerate(SEATS):
        hello = {
            "type": "hello",
            "protocol": 1,
            "seat": seat,
            "partnership": "AC" if seat in "AC" else "BD",
            "seed": seed + index,
            "limits": {},
        }
        assert bots[seat].handle(message_line(hello)) is not None

    def events_of(seat: Seat) -> list[Any]:
        events = [msgspec.to_builtins(e) for e in pending[seat]]
        pending[seat] = []
        if noise and noise_rng.random() < 0.2:
            events.insert(noise_rng.randrange(len(events) + 1), {"type": "forced", "seat": "B"})
        return events

    act_id = 0
    while not match.is_over and match.hand.hand_number <= max_hands:
        seat = match.turn
        assert seat is not None
        act_id += 1
        message = {
            "type": "act",
            "id": act_id,
            "events": events_of(seat),
            "view": msgspec.to_builtins(match.view(seat)),
            "legal_actions": msgspec.to_builtins(match.legal_actions()),
            "time_ms": 1000,
        }
        if noise:
            message = {
                **_noisy({k: v for k, v in message.items() if k != "legal_actions"}, noise_rng),
                "legal_actions": message["legal_actions"],
            }
        answer = bots[seat].handle(message_line(message))
        assert not failures, failures
        assert answer is not None
        reply = json.loads(answer)
        assert reply["id"] == act_id
        action = msgspec.convert(reply["action"], Action)  # type: ignore[arg-type]
        for event in match.apply(seat, action):
            if type(event) is HandEnded:
                for s in SEATS:
                    hand_end = {
                        "type": "hand_end",
                        "events": events_of(s),
                        "review": msgspec.to_builtins(event.review),
                        "marks": dict(match.marks),
                    }
                    assert bots[s].handle(message_line(hand_end)) is None
            elif type(event) is not MatchEnded:
                for s in SEATS:
                    pending[s].append(event)
    for s in SEATS:
        assert "Traceback" not in bots[s].log.getvalue()  # type: ignore[union-attr]
    return checked


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), noise=st.booleans(), announce_first=st.booleans())
def test_reconstruction_matches_the_engine_at_every_decision(
    seed: int, noise: bool, announce_first: bool
) -> None:
    assert play_in_process(seed, noise, announce_first=announce_first) > 0


def test_many_decisions_are_checked() -> None:
    assert sum(play_in_process(seed, noise=False, max_hands=6) for seed in range(5)) > 200


def test_lost_events_are_reported() -> None:
    match = Match(3)
    for _ in range(6):
        match.apply(match.turn, match.legal_actions()[0])  # type: ignore[arg-type]
    from referee.bot import HandHistory

    history = HandHistory()  # it saw none of the actions
    with pytest.raises(HistoryMismatch, match="disagree with the view"):
        history.seen(match.view(match.turn))  # type: ignore[arg-type]


def test_an_inconsistent_fill_is_refused() -> None:
    match = Match(3)
    seat = match.turn
    assert seat is not None
    from referee.bot import HandHistory

    seen = HandHistory().seen(match.view(seat))
    truth = {s: list(match.hand.hands[s]) for s in SEATS if s != seat}
    other = seen.others[0]
    wrong = dict(truth)
    wrong[other] = [*truth[other][:-1], match.hand.hands[seat][0]]  # a tile the seat holds
    with pytest.raises(ValueError, match="own hand"):
        seen.hand_so_far(wrong)
    short = dict(truth)
    short[other] = truth[other][:-1]
    with pytest.raises(ValueError, match="holds 7 tiles"):
        seen.hand_so_far(short)
