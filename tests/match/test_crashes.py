"""Bots that go away or send too much: a closed output, a crash under the ``random`` policy,
over-long lines, exits after a hand, and what each seat is told of a forfeit.
"""

from __future__ import annotations

import trio
from support.fakes import (
    CLOSE,
    CLOSE_INPUT,
    Policy,
    Reply,
    answer,
    game_record_from_log,
    misbehave,
    play_match,
    settings,
    simple,
)
from support.tables import acts_of, bots, check_run, faults, faults_of, moves_of

from referee.record.records import ActRecord, FaultRecord, HandEndRecord, IgnoredRecord
from referee.rules import Seat
from referee.wire.messages import Act


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
