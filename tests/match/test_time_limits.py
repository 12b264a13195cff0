"""The move clock and the time bank: a stall forfeits, the bank lets slow moves through, an
answer or a crash as the deadline passes is judged by what the bot did.
"""

from __future__ import annotations

import pytest
import trio
from support.fakes import FakeBot, Reply, Sleep, answer, delayed, misbehave, play_match, settings
from support.tables import NO_FAULTS, bots, check_run, faults, moves_of

from referee.errors import BotFault
from referee.record.records import FaultRecord, IgnoredRecord, MoveRecord
from referee.rules import LEFT_OF, SEATS, Seat, first_dealer


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
