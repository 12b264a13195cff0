"""Answers the table refuses (illegal, malformed) and the ones it ignores (stale or wrong
ids): the ``rejected`` message, the log's records, and the fault once there are too many.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import trio
from support.fakes import (
    Decision,
    Reply,
    Sleep,
    answer,
    any_act,
    game_record_from_log,
    illegal_action,
    line,
    misbehave,
    play_match,
    point_bid_stands,
    replay,
    settings,
)
from support.tables import acts_of, bots, check_run, faults, faults_of, moves_of

from referee.errors import IllegalAction
from referee.record.records import ActRecord, FaultRecord, IgnoredRecord, MoveRecord, RejectedRecord
from referee.rules import LEFT_OF, Bid, Play, Seat, Tile, first_dealer
from referee.wire.messages import Act


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
