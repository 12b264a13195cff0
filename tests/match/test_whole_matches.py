"""Whole matches at the table over fake bots: to seven marks, the same log for the same seed,
every public event to every seat once, views that hide other hands, the hands limit.

The helpers and the checks every match passes are in ``support.tables``.
"""

from __future__ import annotations

import msgspec
import trio
from support.fakes import FakeBot, MatchRun, always_pass, play_match, replay, settings
from support.tables import NO_FAULTS, check_run, random_match

from referee.record.records import (
    ActRecord,
    BotReady,
    DealRecord,
    HandEndRecord,
    MatchEndRecord,
    MoveRecord,
    TrickRecord,
)
from referee.rules import LEFT_OF, PARTNERSHIP_OF, SEATS, Play, Seat, Tile, first_dealer
from referee.rules.tiles import OPPONENTS_OF


async def test_random_bots_play_to_seven_marks(autojump_clock: trio.abc.Clock) -> None:
    run = await random_match(7)
    outcome = run.outcome
    assert outcome.end == "marks"
    assert outcome.winner is not None
    loser = OPPONENTS_OF[outcome.winner]
    assert outcome.marks[outcome.winner] >= 7 > outcome.marks[loser]
    side = f"{outcome.winner[0]}+{outcome.winner[1]}"
    assert outcome.detail == f"{side} reached {outcome.marks[outcome.winner]} marks"
    assert outcome.forfeit is None
    assert outcome.faults == NO_FAULTS
    assert outcome.names == {seat: f"fake-{seat}" for seat in SEATS}
    assert outcome.seed == 7
    assert outcome.decisions == len(run.of(MoveRecord)) == len(run.of(ActRecord))

    # hello: protocol, seat, partnership, limits, and a per-seat seed that is not the match's.
    seeds = set()
    for seat, bot in run.bots.items():
        hello = bot.hello
        assert hello is not None and bot.messages[0] == hello
        assert (hello.protocol, hello.seat, hello.partnership) == (1, seat, PARTNERSHIP_OF[seat])
        assert hello.limits == settings(seed=7).limits()
        seeds.add(hello.seed)
    assert len(seeds) == 4 and 7 not in seeds

    header = run.header
    assert header.seed == 7
    assert header.limits == settings(seed=7).limits()
    assert header.bots == {seat: f"fake {seat}" for seat in SEATS}
    assert [(r.seat, r.name) for r in run.of(BotReady)] == [(s, f"fake-{s}") for s in SEATS]
    assert isinstance(run.records[-1], MatchEndRecord)
    assert run.end.winner == outcome.winner
    hand_ends = run.of(HandEndRecord)
    assert len(hand_ends) == outcome.hands
    assert hand_ends[-1].marks == outcome.marks
    assert [r.hand for r in run.of(DealRecord)] == list(range(1, outcome.hands + 1))
    # Every move answers the act just before it, by id, and none is forced.
    for previous, record in zip(run.records, run.records[1:], strict=False):
        if isinstance(record, MoveRecord):
            assert isinstance(previous, ActRecord)
            assert (record.id, record.seat, record.forced) == (previous.id, previous.seat, False)
            assert record.action in previous.legal_actions
    check_run(run)


async def test_same_seed_and_bots_give_the_same_digest_and_log(
    autojump_clock: trio.abc.Clock,
) -> None:
    first, second, other = await random_match(11), await random_match(11), await random_match(12)
    assert first.outcome.game_digest == second.outcome.game_digest
    assert first.outcome.game_digest != other.outcome.game_digest

    def untimed(run: MatchRun) -> list[object]:
        records = [msgspec.json.decode(raw) for raw in run.log.splitlines()]
        for record in records:
            record.pop("timing", None)
            record.pop("chain")  # hashes the timings too
        return records

    assert untimed(first) == untimed(second)


async def test_every_seat_gets_every_public_event_once_in_order(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await random_match(3)
    engine = replay(run.records)
    assert engine.events  # the engine's own sequence of public events
    for seat, bot in run.bots.items():
        assert bot.events == engine.events, seat
        # Before each of its decisions a bot has seen every event so far, its own included.
        for act, seen in bot.acts:
            assert seen == engine.decisions[act.id].events_before
        assert len(bot.hand_ends) == run.outcome.hands
        for hand_end, seen in bot.hand_ends:
            assert seen == engine.events_before_hand_end[hand_end.review.hand_number]
        assert bot.match_end is not None
        assert bot.match_end.events == []  # nothing happened after the last hand_end
    check_run(run)


async def test_views_never_show_another_seats_tiles(autojump_clock: trio.abc.Clock) -> None:
    run = await random_match(5)
    acts = {act.id: act for bot in run.bots.values() for act in bot.act_messages}
    deal: dict[Seat, list[Tile]] = {}
    played: set[Tile] = set()
    checked = 0
    for record in run.records:
        if isinstance(record, DealRecord):
            deal, played = record.hands, set()
        elif isinstance(record, MoveRecord) and isinstance(record.action, Play):
            played.add(record.action.tile)
        elif isinstance(record, ActRecord):
            view = acts[record.id].view
            seat = record.seat
            hidden = {t for s in SEATS if s != seat for t in deal[s] if t not in played}
            own = [t for t in deal[seat] if t not in played]
            assert view.hand == own  # in dealt order, played tiles removed
            shown = set(view.hand)
            shown |= {p.tile for p in view.trick}
            shown |= {t for pile in view.piles for t in pile.tiles}
            assert not shown & hidden
            assert {p.tile for p in view.trick} <= played
            assert view.hand_sizes == {
                s: len([t for t in deal[s] if t not in played]) for s in SEATS
            }
            checked += 1
    assert checked == len(run.of(ActRecord)) > 100
    check_run(run)


async def test_four_passing_bots_end_at_max_hands(autojump_clock: trio.abc.Clock) -> None:
    seed = 9
    run = await play_match([FakeBot(always_pass) for _ in SEATS], settings(seed=seed, max_hands=5))
    outcome = run.outcome
    assert outcome.end == "max_hands"
    assert outcome.winner is None
    assert outcome.forfeit is None
    assert outcome.hands == 5
    assert outcome.marks == {"AC": 0, "BD": 0}
    assert outcome.detail == "no partnership reached 7 marks in 5 hands"
    assert outcome.faults == NO_FAULTS
    assert outcome.decisions == 20
    dealers = [r.dealer for r in run.of(DealRecord)]
    expected = [first_dealer(seed)]
    for _ in range(4):
        expected.append(LEFT_OF[expected[-1]])
    assert dealers == expected
    assert [r.result.outcome for r in run.of(HandEndRecord)] == ["passed"] * 5
    assert [r.result.winner for r in run.of(HandEndRecord)] == [None] * 5
    assert not run.of(TrickRecord)
    assert len(run.of(MoveRecord)) == 20
    for bot in run.bots.values():
        assert len(bot.hand_ends) == 5
        assert bot.match_end is not None
        assert bot.match_end.reason == "max_hands"
        assert bot.match_end.winner is None
        assert not bot.rejections
    check_run(run)
