"""The person never sees a tile another seat holds before it is played.

Over many seeds and every seat, everything drawn on the person's screen up to each of their
decisions is checked against the deals in the log: each tile written there must be one the
person holds this hand, one already played this hand, or one played in the hand before
(whose last trick and result are drawn at the start of this one). A tile that another seat
held and had not played would be a leak, whatever its place on the screen.
"""

from __future__ import annotations

import pytest
from support.people import PersonRun, by_number, play_with_person, tiles_in

from referee.human.screen import KEYS
from referee.record.records import ActRecord, DealRecord, MoveRecord
from referee.rules import SEATS, Play, Seat, Tile


def _visible(run: PersonRun, seat: Seat) -> dict[int | None, set[Tile]]:
    """Per act of the person (None: after their last), the tiles they may have seen by then:
    their hand's deal, and every tile played this hand and the hand before."""
    played: dict[int, set[Tile]] = {0: set()}
    visible: dict[int | None, set[Tile]] = {}
    hand, dealt = 0, set()
    for record in run.records:
        if isinstance(record, DealRecord):
            hand, dealt = record.hand, set(record.hands[seat])
            played[hand] = set()
        elif isinstance(record, ActRecord) and record.seat == seat:
            visible[record.id] = dealt | played[hand] | played[hand - 1]
        elif isinstance(record, MoveRecord) and isinstance(record.action, Play):
            played[hand].add(record.action.tile)
    visible[None] = dealt | played[hand] | played[hand - 1]
    return visible


def _screen(run: PersonRun) -> list[tuple[int | None, str]]:
    """The screen cut at each prompt: what had been drawn since the previous one, with the act
    it was drawn for (None for what came after the last decision)."""
    cuts: list[tuple[int | None, str]] = []
    start = 0
    for prompt in run.prompts:
        if prompt.act is not None:
            cuts.append((prompt.act.id, run.screen[start : prompt.at]))
            start = prompt.at
    cuts.append((None, run.screen[start:]))
    return cuts


@pytest.mark.parametrize("seat", SEATS)
async def test_no_tile_of_another_seat_is_ever_drawn(seat: Seat) -> None:
    checked = 0
    for seed in range(12):
        run = await play_with_person(by_number(seed), seat=seat, seed=seed * 7 + 1)
        visible = _visible(run, seat)
        for act, text in _screen(run):
            for line in KEYS:
                text = text.replace(line, "")
            shown = tiles_in(text)
            leaked = shown - visible[act]
            assert not leaked, f"seed {seed}, act {act}: {sorted(leaked)} drawn"
            checked += len(shown)
    assert checked > 1000  # the check saw the tiles it is about


async def test_the_check_sees_a_tile_drawn_before_its_time() -> None:
    # The same check, on a screen with one more line: the tiles seat B was dealt, drawn at
    # the person's first decision before B played any of them.
    run = await play_with_person(by_number(1), seat="A", seed=5)
    first = next(prompt for prompt in run.prompts if prompt.act is not None)
    assert first.act is not None
    deal = next(record for record in run.records if isinstance(record, DealRecord))
    planted = " ".join(map(str, deal.hands["B"]))
    text = run.screen[: first.at] + planted
    assert tiles_in(text) - _visible(run, "A")[first.act.id] == set(deal.hands["B"])
