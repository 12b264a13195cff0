"""Properties of random complete matches: a view and a hand's review show no hidden tile (see
``support.spectator``)."""

from __future__ import annotations

import random

import msgspec
from support.spectator import (
    PROPERTY_SETTINGS,
    SEAT_ORDER,
    Step,
    Tracker,
    ended,
    matches,
    play_match,
    tile_json,
    tile_shaped,
)

from referee.rules import (
    Match,
)


@PROPERTY_SETTINGS
@matches
def test_views_never_show_hidden_information(
    seed: int, rng: random.Random, pass_rate: float
) -> None:
    def before(match: Match, tr: Tracker, _aux: random.Random) -> None:
        trick_tiles = {t for _, t in tr.trick}
        shown = tr.visible_piles()
        pile_tiles = {t for _, _, tiles in shown for t in tiles}
        covered = {t for _, _, tiles in tr.piles for t in tiles} - pile_tiles
        for seat in SEAT_ORDER:
            view = match.view(seat)  # type: ignore[arg-type]
            assert view.seat == seat and view.turn == tr.turn and view.phase == tr.phase
            assert view.hand_number == tr.number and view.dealer == tr.dealer
            # Its own tiles, in dealt order minus the ones played.
            assert view.hand == tr.hands[seat]
            assert view.hand_sizes == {s: len(tr.hands[s]) for s in SEAT_ORDER}
            assert [(m.seat, m.action) for m in view.bids] == tr.bids
            assert [(p.seat, p.tile) for p in view.trick] == tr.trick
            piles = [(p.trick, p.side, p.tiles) for p in view.piles]
            assert piles == shown, (tr.contract, piles)
            for p in view.piles:
                assert p.tiles == sorted(p.tiles)
            if tr.contract is None:
                assert view.contract is None
            else:
                c = view.contract
                assert c is not None
                assert (c.declarer, c.trump, c.piles) == (
                    tr.contract.declarer,
                    tr.contract.trump,
                    tr.contract.piles,
                )
            raw = msgspec.json.encode(view)
            allowed = set(tr.hands[seat]) | trick_tiles | pile_tiles
            seen = tile_shaped(msgspec.json.decode(raw))
            assert set(seen) <= allowed, set(seen) - allowed
            assert len(seen) == len(set(seen))  # no tile is shown twice
            hidden = {t for s in SEAT_ORDER if s != seat for t in tr.hands[s]} | covered
            for t in hidden:
                assert tile_json(t) not in raw, (seat, t)

    play_match(seed, rng, pass_rate, before=before)


@PROPERTY_SETTINGS
@matches
def test_review_lists_every_action_and_only_played_tiles(
    seed: int, rng: random.Random, pass_rate: float
) -> None:
    def after(step: Step) -> None:
        for end in ended(step.events):
            tr = step.tracker
            review = end.review
            assert review.hand_number == tr.number and review.dealer == tr.dealer
            assert [(m.seat, m.action) for m in review.moves] == tr.moves
            raw = msgspec.json.encode(review)
            seen = tile_shaped(msgspec.json.decode(raw))
            assert set(seen) == tr.played
            for seat in SEAT_ORDER:
                for t in tr.hands[seat]:  # never played: stays hidden
                    assert tile_json(t) not in raw, t

    play_match(seed, rng, pass_rate, after=after)
