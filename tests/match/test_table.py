"""Table.play over four in-memory fake bots: the match logic, the fault policy and the log.

Every test takes trio's autojump clock (pytest-trio uses a ``Clock`` only when it is an
argument of the test), so timeouts and time banks cost no real time.
Each test checks the outcome and the log, and ``check_run`` checks, for every match, that the
log replays through the rules engine, that its game record gives the logged digest, and that
every bot was told exactly what the engine says it should have been told.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import pytest
import trio
from support.fakes import (
    CLOSE,
    CLOSE_INPUT,
    Decision,
    FakeBot,
    MatchRun,
    Policy,
    Reply,
    Sleep,
    always_pass,
    answer,
    any_act,
    delayed,
    game_record_from_log,
    illegal_action,
    line,
    misbehave,
    play_match,
    point_bid_stands,
    random_policy,
    ready,
    replay,
    settings,
    simple,
)

from referee.errors import BotFault, IllegalAction
from referee.match.table import told_detail
from referee.record.records import (
    ActRecord,
    BotReady,
    DealRecord,
    FaultRecord,
    HandEndRecord,
    Header,
    IgnoredRecord,
    MatchEndRecord,
    MoveRecord,
    RejectedRecord,
    TrickRecord,
    game_digest,
)
from referee.rules import LEFT_OF, PARTNERSHIP_OF, SEATS, Bid, Move, Play, Seat, Tile, first_dealer
from referee.rules.tiles import OPPONENTS_OF
from referee.wire.messages import Act, Hello

NO_FAULTS: dict[Seat, dict[str, int]] = {seat: {} for seat in SEATS}


def faults(**by_seat: dict[str, int]) -> dict[Seat, dict[str, int]]:
    return {seat: by_seat.get(seat, {}) for seat in SEATS}  # type: ignore[misc]


def bots(**policies: Policy) -> list[FakeBot]:
    """Four fake bots: ``simple`` unless a seat's policy is given (``bots(B=...)``)."""
    return [FakeBot(policies.get(seat, simple)) for seat in SEATS]


def check_run(run: MatchRun) -> None:
    """Everything that must hold for any match, whatever the bots did."""
    records, outcome, end = run.records, run.outcome, run.end
    assert isinstance(records[0], Header)
    assert sum(isinstance(r, Header) for r in records) == 1
    assert sum(isinstance(r, MatchEndRecord) for r in records) == 1

    # The outcome is the match_end record; its digest is the log's game record's digest.
    assert (outcome.winner, outcome.marks, outcome.hands, outcome.end) == (
        end.winner,
        end.marks,
        end.hands,
        end.end,
    )
    assert (outcome.detail, outcome.forfeit, outcome.faults) == (
        end.detail,
        end.forfeit,
        end.faults,
    )
    game = game_record_from_log(records)
    assert game_digest(game) == end.game_digest == outcome.game_digest
    assert outcome.hands == len(game.hands) == len(run.of(DealRecord))
    if outcome.end == "forfeit":
        assert outcome.forfeit is not None
        assert outcome.winner == OPPONENTS_OF[PARTNERSHIP_OF[outcome.forfeit.seat]]
    else:
        assert outcome.forfeit is None

    # The log replays through the engine (every move legal, every deal the seed's deal).
    engine = replay(records)
    hand_ends = {record.hand: record for record in run.of(HandEndRecord)}
    for record in hand_ends.values():
        assert engine.match.results[record.hand - 1] == record.result
    if outcome.end == "marks":
        assert engine.match.winner == outcome.winner
        assert engine.match.marks == outcome.marks

    # Every bot was told every public event once, in order, before each decision and
    # before each hand_end; its views and legal actions are the engine's.
    for seat, bot in run.bots.items():
        if bot.messages:
            assert isinstance(bot.messages[0], Hello)
            assert bot.messages[0].seat == seat
        for act, seen in bot.acts:
            decision = engine.decisions[act.id]
            assert decision.seat == seat == act.view.seat == act.view.turn
            assert act.view == decision.view
            assert act.legal_actions == decision.legal_actions
            assert seen == decision.events_before
            assert bot.events[:seen] == engine.events[:seen]
        for hand_end, seen in bot.hand_ends:
            number = hand_end.review.hand_number
            assert seen == engine.events_before_hand_end[number]
            assert bot.events[:seen] == engine.events[:seen]
            assert hand_end.review.result == hand_ends[number].result
            assert hand_end.marks == hand_ends[number].marks
            logged = game.hands[number - 1].moves
            assert hand_end.review.moves == [Move(m.seat, m.action) for m in logged]
        if bot.match_end is not None:
            assert bot.events == engine.events
            assert bot.match_end.winner == outcome.winner
            assert bot.match_end.marks == outcome.marks
            assert bot.match_end.reason == outcome.end
            assert bot.match_end.detail == told_detail(outcome, bot.seat)  # type: ignore[arg-type]


def moves_of(run: MatchRun, seat: Seat) -> list[MoveRecord]:
    return [m for m in run.of(MoveRecord) if m.seat == seat]


def acts_of(run: MatchRun, seat: Seat) -> list[ActRecord]:
    return [a for a in run.of(ActRecord) if a.seat == seat]


def faults_of(run: MatchRun, seat: Seat) -> list[FaultRecord]:
    return [f for f in run.of(FaultRecord) if f.seat == seat]


# -- whole matches ---------------------------------------------------------------------------


async def random_match(seed: int) -> MatchRun:
    return await play_match(
        [FakeBot(random_policy(seed * 10 + i)) for i in range(4)], settings(seed=seed)
    )


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


# -- rejected answers ------------------------------------------------------------------------


def second_bidder(seed: int) -> Seat:
    return LEFT_OF[LEFT_OF[first_dealer(seed)]]


def cannot_follow_with(act: Act) -> Tile | None:
    """A tile in hand that does not follow the called suit, when the seat must follow."""
    if act.view.phase != "playing" or not act.view.trick:
        return None
    for held in act.view.hand:
        if Play(held) not in act.legal_actions:
            return held
    return None


ILLEGAL_ONCE: dict[str, tuple[Callable[[Act], bool], Callable[[Act], Reply], str, str]] = {
    "bid-must-beat": (
        lambda act: act.view.phase == "bidding" and point_bid_stands(act.view),
        lambda act: answer(act.id, Bid(30)),
        "invalid_bid",
        "bid must beat 30",
    ),
    "must-follow": (
        lambda act: cannot_follow_with(act) is not None,
        lambda act: answer(act.id, Play(cannot_follow_with(act))),  # type: ignore[arg-type]
        "must_follow_suit",
        "must follow ",
    ),
}


@pytest.mark.parametrize("case", ILLEGAL_ONCE)
async def test_an_illegal_answer_is_rejected_and_asked_again(
    case: str, autojump_clock: trio.abc.Clock
) -> None:
    seed = 21
    trigger, bad, rule, words = ILLEGAL_ONCE[case]
    seat = second_bidder(seed)
    policy = misbehave(trigger, bad)
    run = await play_match(bots(**{seat: policy}), settings(seed=seed))
    bot = run.bots[seat]
    (refused,) = policy.triggered  # type: ignore[attr-defined]
    engine = replay(run.records)
    decision: Decision = engine.decisions[refused.id]

    # The engine's own words for the refused action.
    sent = Bid(30) if case == "bid-must-beat" else Play(cannot_follow_with(refused))  # type: ignore[arg-type]
    with pytest.raises(IllegalAction) as why:
        decision.hand.clone().apply(seat, sent)
    detail = str(why.value)
    assert words in detail

    # The bot hears `rejected`, then a fresh act for the same decision with a new id.
    (rejected,) = bot.rejections
    assert (rejected.id, rejected.reason) == (refused.id, "illegal_action")
    assert rejected.detail == f"{detail} ({rule})"
    acts = bot.act_messages
    again = acts[acts.index(refused) + 1]
    assert again.id == refused.id + 1
    assert again.legal_actions == refused.legal_actions
    assert again.view == refused.view
    assert again.events == []
    assert bot.messages.index(rejected) == bot.messages.index(refused) + 1
    assert bot.messages.index(again) == bot.messages.index(rejected) + 1

    # The log: act, rejected (with the rule), act again, the accepted move for the new id.
    (record,) = run.of(RejectedRecord)
    assert (record.id, record.seat, record.reason, record.detail, record.rule) == (
        refused.id,
        seat,
        "illegal_action",
        detail,
        rule,
    )
    at = run.records.index(record)
    assert run.records[at - 1] == ActRecord(
        id=refused.id, seat=seat, legal_actions=decision.legal_actions
    )
    assert run.records[at + 1] == ActRecord(
        id=again.id, seat=seat, legal_actions=decision.legal_actions
    )
    move = run.records[at + 2]
    assert isinstance(move, MoveRecord)
    assert (move.seat, move.id, move.forced) == (seat, again.id, False)
    assert not [m for m in run.of(MoveRecord) if m.id == refused.id]
    # Nothing changed: the engine was in the same position for both acts.
    assert engine.decisions[again.id].view == decision.view
    assert engine.decisions[again.id].hand.hands == decision.hand.hands

    assert run.outcome.end == "marks"
    assert run.outcome.faults == faults(**{seat: {"illegal_action": 1}})
    assert run.outcome.decisions == len(run.of(MoveRecord)) == len(run.of(ActRecord)) - 1
    check_run(run)


async def test_an_illegal_answer_is_logged_with_its_line(autojump_clock: trio.abc.Clock) -> None:
    # LOG.md: a `rejected` record has `raw`, "the line, cut to 200 characters" — for every
    # reason, illegal_action included.
    seed = 21
    seat = second_bidder(seed)
    sent = line({"type": "action", "id": 2, "action": Bid(30)})
    policy = misbehave(
        lambda act: act.view.phase == "bidding" and point_bid_stands(act.view),
        lambda act: line({"type": "action", "id": act.id, "action": Bid(30)}),
    )
    run = await play_match(bots(**{seat: policy}), settings(seed=seed))
    (refused,) = policy.triggered  # type: ignore[attr-defined]
    assert refused.id == 2
    (record,) = run.of(RejectedRecord)
    assert record.reason == "illegal_action"
    assert record.raw == sent.decode().strip()


MALFORMED = {
    "invalid_json": (lambda act: [Sleep(0.4), b"{not json\n"], "{not json"),
    "invalid_utf8": (
        lambda act: b'{"type":"action","id":%d,"action":{"type":"pass"},"x":"\xff"}\n' % act.id,
        None,
    ),
    "bad_message": (
        lambda act: b'{"type":"action","id":%d,"action":{"type":"bid","points":29}}\n' % act.id,
        None,
    ),
}


@pytest.mark.parametrize("reason", MALFORMED)
async def test_a_malformed_answer_is_rejected_with_its_reason(
    reason: str, autojump_clock: trio.abc.Clock
) -> None:
    bad, raw = MALFORMED[reason]
    policy = misbehave(any_act, bad)
    run = await play_match(bots(C=policy), settings(seed=4))
    (refused,) = policy.triggered  # type: ignore[attr-defined]
    (rejected,) = run.bots["C"].rejections
    assert (rejected.id, rejected.reason) == (refused.id, reason)
    (record,) = run.of(RejectedRecord)
    assert (record.id, record.seat, record.reason, record.rule) == (refused.id, "C", reason, None)
    assert record.detail == rejected.detail
    if raw is not None:
        assert record.raw == raw
    # The fresh act has a new id and the time that is left: a refused answer does not stop
    # the clock.
    acts = run.bots["C"].act_messages
    again = acts[acts.index(refused) + 1]
    assert again.id == refused.id + 1
    assert again.legal_actions == refused.legal_actions
    assert refused.time_ms == 1000
    assert again.time_ms == (600 if reason == "invalid_json" else 1000)
    assert run.outcome.end == "marks"
    assert run.outcome.faults == faults(C={reason: 1})
    check_run(run)


async def test_illegal_every_time_forfeits_after_max_rejections(
    autojump_clock: trio.abc.Clock,
) -> None:
    policy = misbehave(any_act, lambda act: answer(act.id, illegal_action(act)), times=None)
    run = await play_match(bots(B=policy), settings(seed=8, on_fault="forfeit"))
    outcome = run.outcome
    assert outcome.end == "forfeit"
    assert outcome.winner == "AC"
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == ("B", "too_many_rejections")
    assert outcome.forfeit.detail.startswith("3 answers refused for one decision (last: ")
    assert outcome.detail.startswith("B forfeits: too_many_rejections: 3 answers refused")
    assert outcome.faults == faults(B={"illegal_action": 3, "too_many_rejections": 1})
    assert outcome.hands == 1

    acts = acts_of(run, "B")
    assert len(acts) == 3
    assert [a.id for a in acts] == [acts[0].id, acts[0].id + 1, acts[0].id + 2]
    rejected = run.of(RejectedRecord)
    assert [(r.id, r.seat, r.reason, r.rule) for r in rejected] == [
        (a.id, "B", "illegal_action", "wrong_phase") for a in acts
    ]
    (fault,) = run.of(FaultRecord)
    assert (fault.seat, fault.reason, fault.penalty, fault.strikes, fault.id) == (
        "B",
        "too_many_rejections",
        "forfeit",
        0,
        acts[-1].id,
    )
    assert not moves_of(run, "B")
    assert game_record_from_log(run.records).hands[-1].result is None
    bot = run.bots["B"]
    assert [r.id for r in bot.rejections] == [a.id for a in acts]
    assert [a.id for a in bot.act_messages] == [a.id for a in acts]
    for other in run.bots.values():
        assert other.match_end is not None
        assert other.match_end.reason == "forfeit"
        assert other.match_end.winner == "AC"
    check_run(run)


async def test_illegal_every_time_under_random_plays_forced_moves_then_forfeits(
    autojump_clock: trio.abc.Clock,
) -> None:
    policy = misbehave(any_act, lambda act: answer(act.id, illegal_action(act)), times=None)
    run = await play_match(bots(D=policy), settings(seed=8, on_fault="random", max_strikes=2))
    outcome = run.outcome
    assert outcome.end == "forfeit"
    assert outcome.winner == "AC"
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == ("D", "too_many_rejections")
    assert outcome.faults == faults(D={"illegal_action": 9, "too_many_rejections": 3})

    faulted = faults_of(run, "D")
    assert [(f.reason, f.penalty, f.strikes) for f in faulted] == [
        ("too_many_rejections", "random", 1),
        ("too_many_rejections", "random", 2),
        ("too_many_rejections", "forfeit", 3),
    ]
    forced = moves_of(run, "D")
    assert len(forced) == 2
    assert all(m.forced and m.id is None for m in forced)
    # Each forced move is one of the legal actions of the decision it settled.
    for fault, move in zip(faulted, forced, strict=False):
        (act,) = [a for a in run.of(ActRecord) if a.id == fault.id]
        assert move.action in act.legal_actions
        assert run.records.index(move) == run.records.index(fault) + 1
    game = game_record_from_log(run.records)
    assert [m.forced for h in game.hands for m in h.moves if m.seat == "D"] == [True, True]
    check_run(run)

    # The forced moves come from the match seed: the same match again is the same game.
    again = await play_match(
        bots(D=misbehave(any_act, lambda act: answer(act.id, illegal_action(act)), times=None)),
        settings(seed=8, on_fault="random", max_strikes=2),
    )
    assert again.outcome.game_digest == outcome.game_digest


# -- stale answers ---------------------------------------------------------------------------


@pytest.mark.parametrize("offset", [-1, +1, +1000])
async def test_a_wrong_id_is_ignored_and_the_right_answer_accepted(
    offset: int, autojump_clock: trio.abc.Clock
) -> None:
    def wrong_then_right(act: Act) -> Reply:
        return [
            answer(act.id + offset, act.legal_actions[-1]),
            answer(act.id, act.legal_actions[0]),
        ]

    policy = misbehave(lambda act: act.id > 1, wrong_then_right)
    run = await play_match(bots(A=policy), settings(seed=6))
    (act,) = policy.triggered  # type: ignore[attr-defined]
    assert act.legal_actions[0] != act.legal_actions[-1]
    (ignored,) = run.of(IgnoredRecord)
    assert ignored == IgnoredRecord(
        seat="A",
        expected_id=act.id,
        raw=answer(act.id + offset, act.legal_actions[-1]).decode().strip(),
    )
    (move,) = [m for m in run.of(MoveRecord) if m.id == act.id]
    assert (move.seat, move.action, move.forced) == ("A", act.legal_actions[0], False)
    assert run.records.index(move) == run.records.index(ignored) + 1
    assert not run.bots["A"].rejections
    assert not run.of(RejectedRecord)
    assert run.outcome.end == "marks"
    assert run.outcome.faults == faults(A={"ignored": 1})
    check_run(run)


# -- time ------------------------------------------------------------------------------------


async def test_a_bot_that_stalls_past_the_move_timeout_forfeits(
    autojump_clock: trio.abc.Clock,
) -> None:
    policy = misbehave(
        lambda act: act.view.phase == "playing",
        lambda act: [Sleep(30), answer(act.id, act.legal_actions[0])],
    )
    run = await play_match(bots(C=policy), settings(seed=2, move_timeout=1.0))
    (act,) = policy.triggered  # type: ignore[attr-defined]
    outcome = run.outcome
    assert outcome.end == "forfeit"
    assert outcome.winner == "BD"
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == ("C", "timeout")
    assert outcome.forfeit.detail == "no answer in time"
    assert outcome.detail == "C forfeits: timeout: no answer in time"
    assert outcome.faults == faults(C={"timeout": 1})
    (fault,) = run.of(FaultRecord)
    assert (fault.seat, fault.reason, fault.penalty, fault.id) == (
        "C",
        "timeout",
        "forfeit",
        act.id,
    )
    assert fault.timing is not None
    assert fault.timing.latency_ms == pytest.approx(1000)
    assert act.time_ms == 1000
    assert isinstance(run.records[-2], FaultRecord)
    check_run(run)


async def test_the_time_bank_lets_slow_moves_through_and_is_debited(
    autojump_clock: trio.abc.Clock,
) -> None:
    # move timeout 1 s, bank 2 s: 1.5 s uses 0.5 s of bank; 0.5 s uses none; 2.6 s is more
    # than the 2.5 s left, a timeout that empties the bank; a late answer is then ignored.
    seat: Seat = "B"
    run = await play_match(
        bots(**{seat: delayed([1.5, 0.5, 2.6, 0.2])}),
        settings(seed=13, move_timeout=1.0, time_bank=2.0, on_fault="random"),
    )
    acts = run.bots[seat].act_messages
    assert [a.time_ms for a in acts[:4]] == pytest.approx([3000, 2500, 2500, 1000], abs=1)
    moves = moves_of(run, seat)
    timings = [m.timing for m in moves[:4]]
    assert all(t is not None for t in timings)
    assert [m.forced for m in moves[:4]] == [False, False, True, False]
    assert [m.id for m in moves[:4]] == [acts[0].id, acts[1].id, None, acts[3].id]
    assert [t.latency_ms for t in timings] == pytest.approx([1500, 500, 2500, 300])  # type: ignore[union-attr]
    assert [t.bank_ms for t in timings[:2]] == pytest.approx([1500, 1500])  # type: ignore[union-attr]
    assert timings[3].bank_ms == 0  # type: ignore[union-attr]
    (fault,) = run.of(FaultRecord)
    assert (fault.seat, fault.reason, fault.penalty, fault.strikes, fault.id) == (
        seat,
        "timeout",
        "random",
        1,
        acts[2].id,
    )
    # The answer to act 3 arrives during act 4: recorded, never applied.
    (ignored,) = run.of(IgnoredRecord)
    assert (ignored.seat, ignored.expected_id) == (seat, acts[3].id)
    assert f'"id":{acts[2].id},' in ignored.raw
    assert run.outcome.end == "marks"
    assert run.outcome.faults == faults(**{seat: {"timeout": 1, "ignored": 1}})
    check_run(run)


class AnswersAsTimeRunsOut(FakeBot):
    """Answers its first act, then moves the clock past that act's deadline before the
    referee has run again: the answer has been read, and the deadline has passed."""

    def __init__(self, clock: trio.testing.MockClock, seconds: float) -> None:
        super().__init__()
        self.clock, self.seconds = clock, seconds

    async def _perform(self, reply: Reply) -> None:
        await super()._perform(reply)
        if len(self.acts) == 1:
            self.clock.jump(self.seconds)


async def test_an_answer_read_as_its_deadline_passes_costs_nobody_a_fault(
    mock_clock: trio.testing.MockClock,
) -> None:
    # The answer is read as its deadline passes: it counts, and the next seat's exchange is
    # not charged with the time that ran out.
    dealer = first_dealer(5)
    first = LEFT_OF[dealer]
    seated = {seat: FakeBot() for seat in SEATS}
    seated[first] = AnswersAsTimeRunsOut(mock_clock, 2.0)
    run = await play_match(seated, settings(seed=5, move_timeout=1.0, time_bank=0.0))
    assert run.outcome.end == "marks"
    assert run.outcome.faults == NO_FAULTS
    assert not any(move.forced for move in run.of(MoveRecord))
    check_run(run)


class CrashesAsTimeRunsOut(FakeBot):
    """Closes its output a moment after its first act and, before the referee runs again,
    moves the clock past that act's deadline."""

    def __init__(self, clock: trio.testing.MockClock, seconds: float) -> None:
        super().__init__(lambda act: [Sleep(0.1)])
        self.clock, self.seconds = clock, seconds

    async def _perform(self, reply: Reply) -> None:
        await super()._perform(reply)
        if len(self.acts) == 1 and not self.output_closed:
            self.output_closed = True
            self._from_bot[0].close()  # no checkpoint: the referee has not run yet
            self.clock.jump(self.seconds)


async def test_a_crash_as_its_deadline_passes_is_a_crash(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # The end of the bot's output is read as its deadline passes: looking into the crash
    # (the runner waits for the process) is not cut short by that deadline.
    first = LEFT_OF[first_dealer(5)]
    seated = {seat: FakeBot() for seat in SEATS}
    seated[first] = CrashesAsTimeRunsOut(autojump_clock, 2.0)
    explained: list[Seat] = []

    async def explain(seat: Seat, fault: BotFault) -> BotFault:
        await trio.sleep(0)
        explained.append(seat)
        return fault

    run = await play_match(seated, settings(seed=5, move_timeout=1.0, time_bank=0.0), explain)
    assert explained == [first]
    assert run.outcome.forfeit is not None
    assert (run.outcome.forfeit.seat, run.outcome.forfeit.reason) == (first, "crashed")
    check_run(run)


# -- start-up --------------------------------------------------------------------------------


def silent(hello: Hello) -> Reply:
    return None


async def test_a_bot_that_never_answers_hello_forfeits(autojump_clock: trio.abc.Clock) -> None:
    run = await play_match(
        [FakeBot(), FakeBot(), FakeBot(), FakeBot(hello=silent)],
        settings(seed=1, startup_timeout=10.0),
    )
    outcome = run.outcome
    assert outcome.end == "forfeit"
    assert outcome.winner == "AC"
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == ("D", "timeout")
    assert outcome.detail == "D failed to start: timeout: no answer in time"
    assert outcome.faults == faults(D={"timeout": 1})
    assert outcome.hands == 0
    assert outcome.decisions == 0
    assert outcome.names == {"A": "fake-A", "B": "fake-B", "C": "fake-C", "D": ""}
    assert [type(r).__name__ for r in run.records] == [
        "Header",
        "BotReady",
        "BotReady",
        "BotReady",
        "FaultRecord",
        "MatchEndRecord",
    ]
    (fault,) = run.of(FaultRecord)
    assert (fault.seat, fault.reason, fault.penalty, fault.strikes) == (
        "D",
        "timeout",
        "forfeit",
        0,
    )
    for seat in "ABC":
        end = run.bots[seat].match_end
        assert end is not None and end.reason == "forfeit" and end.winner == "AC"
    check_run(run)


async def test_a_startup_fault_forfeits_even_under_random(autojump_clock: trio.abc.Clock) -> None:
    run = await play_match(
        [FakeBot(), FakeBot(), FakeBot(), FakeBot(hello=silent)],
        settings(seed=1, on_fault="random"),
    )
    assert run.outcome.end == "forfeit"
    assert run.outcome.forfeit is not None and run.outcome.forfeit.seat == "D"
    assert run.outcome.winner == "AC"
    assert run.outcome.faults == faults(D={"timeout": 1})
    check_run(run)


async def test_a_seat_that_fails_to_start_does_not_fault_the_seats_that_answered(
    autojump_clock: trio.abc.Clock,
) -> None:
    # A is silent; B, C and D answer hello at once. Only A failed to start.
    run = await play_match(
        [FakeBot(hello=silent), FakeBot(), FakeBot(), FakeBot()], settings(seed=1)
    )
    assert run.outcome.faults == faults(A={"timeout": 1})
    assert run.outcome.end == "forfeit"
    assert run.outcome.forfeit is not None and run.outcome.forfeit.seat == "A"
    assert run.outcome.winner == "BD"
    assert [r.seat for r in run.of(BotReady)] == ["B", "C", "D"]
    check_run(run)


async def test_bots_of_one_partnership_failing_to_start_forfeit(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(
        [FakeBot(hello=silent), FakeBot(), FakeBot(hello=silent), FakeBot()], settings(seed=1)
    )
    assert run.outcome.end == "forfeit"
    assert run.outcome.winner == "BD"
    assert run.outcome.forfeit is not None
    assert (run.outcome.forfeit.seat, run.outcome.forfeit.reason) == ("A", "timeout")
    assert run.outcome.faults == faults(A={"timeout": 1}, C={"timeout": 1})
    check_run(run)


async def test_bots_of_both_partnerships_failing_to_start_void_the_match(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(
        [FakeBot(), FakeBot(), FakeBot(hello=silent), FakeBot(hello=silent)], settings(seed=1)
    )
    outcome = run.outcome
    assert outcome.end == "void"
    assert outcome.winner is None
    assert outcome.forfeit is None
    assert outcome.detail == "bots of both partnerships failed to start"
    assert outcome.faults == faults(C={"timeout": 1}, D={"timeout": 1})
    assert [f.seat for f in run.of(FaultRecord)] == ["C", "D"]
    for seat in "AB":
        end = run.bots[seat].match_end
        assert end is not None and end.reason == "void" and end.winner is None
    check_run(run)


async def test_a_bot_that_exits_before_ready_forfeits_as_crashed(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(
        [FakeBot(), FakeBot(hello=lambda hello: [CLOSE]), FakeBot(), FakeBot()], settings(seed=1)
    )
    assert run.outcome.end == "forfeit"
    assert run.outcome.forfeit is not None
    assert (run.outcome.forfeit.seat, run.outcome.forfeit.reason) == ("B", "crashed")
    check_run(run)


@pytest.mark.parametrize(
    ("junk", "reason", "detail"),
    [
        (b"garbage\n", "invalid_json", "JSON is malformed"),
        (b'{"type":"action","id":0,"action":{"type":"pass"}}\n', "bad_message", "expected a"),
        (b'{"type":"ready"}\n', "bad_message", "missing required field `name`"),
    ],
)
async def test_junk_before_ready_is_rejected_and_ready_still_accepted(
    junk: bytes, reason: str, detail: str, autojump_clock: trio.abc.Clock
) -> None:
    run = await play_match(
        [FakeBot(), FakeBot(), FakeBot(hello=lambda hello: [junk, ready("late")]), FakeBot()],
        settings(seed=3),
    )
    bot = run.bots["C"]
    (rejected,) = bot.rejections
    assert (rejected.id, rejected.reason) == (0, reason)
    assert detail in rejected.detail
    assert bot.messages[1] == rejected
    (record,) = run.of(RejectedRecord)
    assert (record.id, record.seat, record.reason) == (0, "C", reason)
    assert record.raw == junk.decode().strip()
    assert run.records.index(record) < run.records.index(
        next(r for r in run.of(BotReady) if r.seat == "C")
    )
    assert run.outcome.names["C"] == "late"
    assert run.outcome.end == "marks"
    assert run.outcome.faults == faults(C={reason: 1})
    check_run(run)


# -- crashes and long lines ------------------------------------------------------------------


async def test_a_bot_that_closes_its_output_mid_hand_crashed(
    autojump_clock: trio.abc.Clock,
) -> None:
    policy = misbehave(lambda act: act.view.phase == "playing", lambda act: [CLOSE])
    run = await play_match(bots(A=policy), settings(seed=5))
    (act,) = policy.triggered  # type: ignore[attr-defined]
    outcome = run.outcome
    assert outcome.end == "forfeit"
    assert outcome.winner == "BD"
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == ("A", "crashed")
    assert outcome.faults == faults(A={"crashed": 1})
    (fault,) = run.of(FaultRecord)
    assert (fault.seat, fault.reason, fault.penalty, fault.id) == (
        "A",
        "crashed",
        "forfeit",
        act.id,
    )
    assert fault.timing is not None and fault.timing.latency_ms == 0
    assert run.bots["A"].match_end is None  # a crashed bot is not told
    check_run(run)


async def test_a_crashed_bot_under_random_gets_forced_moves_until_it_forfeits(
    autojump_clock: trio.abc.Clock,
) -> None:
    policy = misbehave(lambda act: act.view.phase == "playing", lambda act: [CLOSE])
    run = await play_match(bots(A=policy), settings(seed=5, on_fault="random", max_strikes=2))
    (act,) = policy.triggered  # type: ignore[attr-defined]
    assert run.outcome.end == "forfeit"
    assert run.outcome.forfeit is not None
    assert (run.outcome.forfeit.seat, run.outcome.forfeit.reason) == ("A", "crashed")
    assert [(f.penalty, f.strikes) for f in faults_of(run, "A")] == [
        ("random", 1),
        ("random", 2),
        ("forfeit", 3),
    ]
    assert faults_of(run, "A")[0].id == act.id
    # No act is sent to a crashed bot: its later decisions are forced at once.
    assert [a.id for a in acts_of(run, "A")][-1] == act.id
    assert [f.id for f in faults_of(run, "A")][1:] == [None, None]
    after = [m for m in moves_of(run, "A") if m.forced]
    assert len(after) == 2
    check_run(run)


async def test_an_over_long_line_is_a_fault(autojump_clock: trio.abc.Clock) -> None:
    policy = misbehave(
        lambda act: act.id > 3,
        lambda act: [b"x" * 10_000 + b"\n", answer(act.id, act.legal_actions[0])],
    )
    run = await play_match(bots(D=policy), settings(seed=10, max_line_bytes=4096))
    (act,) = policy.triggered  # type: ignore[attr-defined]
    outcome = run.outcome
    assert outcome.end == "forfeit"
    assert outcome.winner == "AC"
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == ("D", "line_too_long")
    assert outcome.faults == faults(D={"line_too_long": 1})
    (fault,) = run.of(FaultRecord)
    assert (fault.seat, fault.reason, fault.id) == ("D", "line_too_long", act.id)
    assert run.header.limits.max_line_bytes == 4096
    check_run(run)


async def test_a_ten_mib_line_under_random_is_one_fault_and_the_bot_plays_on(
    autojump_clock: trio.abc.Clock,
) -> None:
    def flood(act: Act) -> Reply:
        return [b"x" * (10 << 20) + b"\n", answer(act.id, act.legal_actions[0])]

    policy = misbehave(lambda act: act.id > 3, flood)
    run = await play_match(
        bots(D=policy), settings(seed=10, max_line_bytes=1 << 20, on_fault="random")
    )
    (act,) = policy.triggered  # type: ignore[attr-defined]
    (fault,) = run.of(FaultRecord)
    assert (fault.seat, fault.reason, fault.penalty, fault.id) == (
        "D",
        "line_too_long",
        "random",
        act.id,
    )
    # The answer after the long line came too late for its decision: ignored, not applied.
    (ignored,) = run.of(IgnoredRecord)
    assert ignored.seat == "D" and ignored.expected_id > act.id
    assert run.outcome.end == "marks"
    assert run.outcome.faults == faults(D={"line_too_long": 1, "ignored": 1})
    check_run(run)


# -- a bot that exits after its last action of a hand ----------------------------------------


def exit_after(act_id: int) -> Policy:
    """``simple``, but on act ``act_id`` stop reading, answer, and exit."""
    return misbehave(
        lambda act: act.id == act_id,
        lambda act: [CLOSE_INPUT, simple(act), CLOSE],  # type: ignore[list-item]
    )


async def test_a_bot_that_exits_after_a_hand_forfeits_at_its_next_act(
    autojump_clock: trio.abc.Clock,
) -> None:
    # hand_end goes out in the same write as the seat's next act, so the exit is found there.
    seed = 21
    clean = await play_match(bots(), settings(seed=seed))
    hand_one_end = clean.records.index(clean.of(HandEndRecord)[0])
    last_act = [
        r for r in clean.records[:hand_one_end] if isinstance(r, ActRecord) and r.seat == "B"
    ][-1]

    run = await play_match(bots(B=exit_after(last_act.id)), settings(seed=seed))
    outcome = run.outcome
    assert outcome.end == "forfeit"
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == ("B", "crashed")
    assert outcome.winner == "AC"
    assert outcome.hands == 2
    (fault,) = run.of(FaultRecord)
    next_act = [a for a in run.of(ActRecord) if a.seat == "B"][-1]
    assert next_act.id > last_act.id
    assert (fault.seat, fault.reason, fault.penalty, fault.id) == (
        "B",
        "crashed",
        "forfeit",
        next_act.id,
    )
    # The first hand was over and is scored before the fault.
    assert run.records.index(run.of(HandEndRecord)[0]) < run.records.index(fault)
    assert game_record_from_log(run.records).hands[0].result == clean.of(HandEndRecord)[0].result
    check_run(run)


async def test_a_bot_that_exits_after_the_winning_hand_does_not_undo_the_win(
    autojump_clock: trio.abc.Clock,
) -> None:
    # RULES.md: "A partnership with at least 7 marks after a hand wins the match." A seat of the
    # winning side that exits after its last play, before the final hand_end reaches it, must
    # not turn that win into a forfeit (match_end itself is delivered on a best-effort basis).
    seed = 21
    clean = await play_match(bots(), settings(seed=seed))
    winner = clean.outcome.winner
    assert clean.outcome.end == "marks" and winner is not None
    seat: Seat = winner[0]  # type: ignore[assignment]
    last_act = [a for a in clean.of(ActRecord) if a.seat == seat][-1]

    run = await play_match(bots(**{seat: exit_after(last_act.id)}), settings(seed=seed))
    assert run.of(HandEndRecord)[-1].marks == clean.outcome.marks
    assert run.outcome.end == "marks"
    assert run.outcome.winner == winner
    assert run.outcome.marks == clean.outcome.marks
    assert run.outcome.forfeit is None
    check_run(run)


async def test_only_the_forfeiting_seat_is_told_what_its_refused_answers_said(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A forfeit's detail can quote a refused play, which names tiles the seat held: the other
    bots are told who forfeited and why, the log keeps every word."""
    from support.viewer_logs import forfeit_match

    run = await forfeit_match()
    assert run.outcome.forfeit is not None and run.outcome.forfeit.seat == "B"
    assert "holds" in run.outcome.detail
    for seat, bot in run.bots.items():
        assert bot.match_end is not None
        if seat == "B":
            assert bot.match_end.detail == run.outcome.detail
        else:
            assert bot.match_end.detail == f"B forfeits: {run.outcome.forfeit.reason}"
            assert "holds" not in bot.match_end.detail
