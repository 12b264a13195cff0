"""The viewer's steps (``referee.pages.steps``) against the log they come from: every move a
step, hands and tricks as dealt and played, marks as scored, and each perspective seeing no
more than its views allow — a seat never another seat's unplayed tile, nor what another seat
sent."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import trio
from support.fakes import MatchRun
from support.viewer_logs import HOSTILE_LINE, HOSTILE_NAME, hostile_match, log_of, random_match

from referee.pages.steps import MatchSteps, build, code
from referee.record.records import (
    DealRecord,
    HandEndRecord,
    LogRecord,
    MoveRecord,
    RejectedRecord,
    TrickRecord,
)
from referee.record.verify import verify
from referee.record.visibility import PERSPECTIVES, Perspective
from referee.rules import DeclareTrump, Play
from referee.rules.tiles import SEATS


def steps_of(run: MatchRun, perspectives: Iterable[Perspective] = PERSPECTIVES) -> MatchSteps:
    log = log_of(run)
    return build(log, verify(log), perspectives)


async def test_every_move_is_a_step_with_the_hands_and_tricks_of_the_log(
    autojump_clock: trio.abc.Clock,
) -> None:
    for seed in (1, 2, 3):
        run = await random_match(seed)
        steps = steps_of(run).steps
        records = run.records
        moves = [r for r in records if isinstance(r, MoveRecord)]
        deals = [r for r in records if isinstance(r, DealRecord)]
        played = [s for s in steps if s.kind in ("bid", "trump", "play")]
        assert len(played) == len(moves)
        assert [s.kind for s in steps].count("deal") == len(deals)
        assert steps[-1].kind == "end" and steps[0].kind == "deal"
        # Each step's open hands are the deal less every tile played so far in that hand.
        deal_of = {d.hand: d.hands for d in deals}
        gone: dict[int, set[int]] = {}
        for step, move in zip(played, moves, strict=True):
            assert step.seat == move.seat and step.forced == move.forced
            if isinstance(move.action, Play):
                gone.setdefault(step.hand, set()).add(code(move.action.tile))
            for seat in SEATS:
                dealt = [code(t) for t in deal_of[step.hand][seat]]
                left = [c for c in dealt if c not in gone.get(step.hand, set())]
                assert sorted(step.hands["all"][seat]) == sorted(left)
                assert step.sizes[seat] == len(left)
        # Every trick the log scores is shown complete, with its winner, on the step after
        # its fourth tile.
        tricks = [r for r in records if isinstance(r, TrickRecord)]
        taken = [s for s in steps if s.taken]
        assert [(s.hand, s.winner) for s in taken] == [(t.hand, t.winner) for t in tricks]
        assert all(len(s.trick) == 4 and f"{t.points} point" in (s.taken or "")
                   for s, t in zip(taken, tricks, strict=True))  # fmt: skip
        # The marks after each hand are the log's.
        ends = [r for r in records if isinstance(r, HandEndRecord)]
        results = [s for s in steps if s.result]
        assert [s.marks for s in results] == [e.marks for e in ends]


async def test_a_seat_sees_its_own_hand_and_never_another_seats_unplayed_tile(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await hostile_match()
    everything = steps_of(run)
    for seat in SEATS:
        only = steps_of(run, [seat])
        assert only.perspectives == [seat]
        for full, mine in zip(everything.steps, only.steps, strict=True):
            assert set(mine.hands) == {seat} and set(mine.hands[seat]) == {seat}
            assert mine.hands[seat][seat] == full.hands["all"][seat]
            assert full.hands["public"] == {}
            # No tile in the seat's step (what its page holds) is one another seat still has.
            hidden = {c for other in SEATS if other != seat for c in full.hands["all"][other]}
            shown = set(mine.hands[seat][seat]) | {c for _, c in mine.trick}
            assert not shown & hidden
        tiles_in_piles = {c for piles in only.piles.values() for pile in piles for c in pile.tiles}
        played = {
            code(r.action.tile)
            for r in run.records
            if isinstance(r, MoveRecord) and isinstance(r.action, Play)
        }
        assert tiles_in_piles <= played


async def test_refused_lines_are_kept_for_the_author_and_everything_only(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await hostile_match()
    refused = [r for r in run.records if isinstance(r, RejectedRecord)]
    assert {r.reason for r in refused} >= {"invalid_json", "illegal_action"}
    steps = steps_of(run)
    noted = [s for s in steps.steps if s.notes]
    assert sum(len(s.notes["all"]) for s in noted) == len(refused)
    raws = [n.raw for s in noted for n in s.notes["all"]]
    assert HOSTILE_LINE.decode().rstrip("\n") in raws
    for step in noted:
        for note in step.notes["B"]:
            assert note.raw is not None  # the author reads what it sent
        for seat in ("A", "C", "D", "public"):
            for note in step.notes[seat]:
                assert note.raw is None and note.detail is None  # others: only that it happened
                assert note.seat == "B"
    assert steps.names["B"] == HOSTILE_NAME


async def test_covered_piles_are_face_down_in_every_view_but_everything(
    autojump_clock: trio.abc.Clock,
) -> None:
    """An all-tricks contract with one pile face up: after the second trick the first pile is
    covered for every seat, as its views say; each pile was face up when it was taken."""
    for seed in range(1, 80):
        run = await random_match(seed)
        if hands := one_pile_hands(run.records):
            break
    else:
        raise AssertionError("no all-tricks contract with one pile face up and two tricks")
    steps = steps_of(run)
    in_hand = [s for s in steps.steps if s.hand == hands[0]]
    later = next(s for s in in_hand if s.captured >= 2)
    assert later.face_up == [later.captured]  # only the last pile
    assert later.hands["all"] and later.face_up != list(range(1, later.captured + 1))
    for pile in steps.piles[hands[0]]:
        assert any(pile.trick in s.face_up for s in in_hand)  # each was shown once


def one_pile_hands(records: list[LogRecord]) -> list[int]:
    """Hands of an all-tricks contract with one pile face up and two tricks or more."""
    hand, one_pile, tricks = 0, set[int](), Counter[int]()
    for record in records:
        if isinstance(record, DealRecord):
            hand = record.hand
        elif isinstance(record, MoveRecord) and isinstance(record.action, DeclareTrump):
            if record.action.piles == 1:
                one_pile.add(hand)
        elif isinstance(record, TrickRecord):
            tricks[record.hand] += 1
    return sorted(h for h in one_pile if tricks[h] >= 2)
