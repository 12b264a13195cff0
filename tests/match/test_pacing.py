"""Paced turns and frozen idle seats, at the table (in memory, on trio's virtual clock): under
``--pace`` every message a bot receives goes out on a grid of deadlines that no bot's speed
moves; under ``--freeze-idle`` a seat runs only for its own decisions.
"""

from __future__ import annotations

import pytest
import trio
from support.fakes import (
    FakeBot,
    Sleep,
    answer,
    delayed,
    misbehave,
    play_match,
    settings,
)
from support.tables import bots, check_run

from referee.record.records import FaultRecord, MoveRecord
from referee.rules.tiles import SEATS, Seat
from referee.wire.messages import Act, MatchEnd

MOVE = 1.0
STARTUP = 10.0
#: Seat A's thinking times: every one of them is a message a timing channel could carry.
THINKING = [0.05, 0.9, 0.3, 0.7, 0.0, 0.5, 0.95, 0.2] * 40


def _arrivals(run_bots: dict[Seat, FakeBot], kind: type) -> list[float]:
    """When every message of ``kind`` arrived, at any seat, in order of time."""
    return sorted(
        when for bot in run_bots.values() for message, when in bot.arrivals if type(message) is kind
    )


def _off_grid(times: list[float], opening: float) -> list[float]:
    """How far each time is from the grid of whole move timeouts after ``opening``."""
    return [abs((when - opening) / MOVE - round((when - opening) / MOVE)) for when in times]


async def _paced(pace: bool, **overrides: object) -> tuple[dict[Seat, FakeBot], float]:
    seated = dict(zip(SEATS, bots(A=delayed(THINKING)), strict=True))
    opened = trio.current_time()
    run = await play_match(
        seated,
        settings(
            seed=7, move_timeout=MOVE, startup_timeout=STARTUP, pace=pace or None, **overrides
        ),
    )
    check_run(run)
    return run.bots, opened + STARTUP


async def test_paced_acts_go_out_on_the_grid_whatever_a_seat_takes(
    autojump_clock: trio.abc.Clock,
) -> None:
    seated, opening = await _paced(True)
    acts = _arrivals(seated, Act)
    assert len(acts) > 30
    assert acts[0] == pytest.approx(opening)  # the play begins at the start-up deadline
    assert max(_off_grid(acts, opening)) < 1e-6
    # one decision per beat: the n-th act goes out n - 1 beats after the opening
    assert [round((when - opening) / MOVE) for when in acts] == list(range(len(acts)))
    (end,) = {when for bot in seated.values() for m, when in bot.arrivals if type(m) is MatchEnd}
    assert max(_off_grid([end], opening)) < 1e-6


async def test_without_pace_the_acts_carry_a_seats_thinking_time(
    autojump_clock: trio.abc.Clock,
) -> None:
    # the control: the same match unpaced leaks seat A's delays into every later act's time
    seated, opening = await _paced(False)
    assert max(_off_grid(_arrivals(seated, Act), opening)) > 0.2


async def test_a_paced_overrun_is_a_fault_told_on_the_grid(
    autojump_clock: trio.abc.Clock,
) -> None:
    policy = misbehave(
        lambda act: act.view.phase == "playing",
        lambda act: [Sleep(3 * MOVE), answer(act.id, act.legal_actions[0])],
    )
    opened = trio.current_time()
    run = await play_match(
        bots(C=policy),
        settings(seed=3, move_timeout=MOVE, startup_timeout=STARTUP, pace=True, on_fault="random"),
    )
    opening = opened + STARTUP
    (fault, *_) = run.of(FaultRecord)
    assert (fault.seat, fault.reason) == ("C", "timeout")
    assert max(_off_grid(_arrivals(run.bots, Act), opening)) < 1e-6
    assert len(run.of(MoveRecord)) == len(_arrivals(run.bots, Act))


async def test_a_paced_forfeit_is_told_at_the_deadline_not_at_the_crash(
    autojump_clock: trio.abc.Clock,
) -> None:
    policy = misbehave(
        lambda act: act.view.phase == "playing",
        lambda act: [Sleep(0.3), b"not json\n", b"not json\n", b"not json\n"],
    )
    opened = trio.current_time()
    run = await play_match(
        bots(B=policy), settings(seed=5, move_timeout=MOVE, startup_timeout=STARTUP, pace=True)
    )
    assert run.outcome.end == "forfeit"
    ends = _arrivals(run.bots, MatchEnd)
    assert ends and max(_off_grid(ends, opened + STARTUP)) < 1e-6


def test_pace_needs_no_time_bank() -> None:
    with pytest.raises(ValueError, match="--pace needs --time-bank 0"):
        settings(pace=True, time_bank=5.0)


class Recorder:
    """Stands for the runner's stopping of bot processes: who runs, at each moment."""

    def __init__(self, seated: dict[Seat, FakeBot]) -> None:
        self.running = set(SEATS)
        self.seated = seated
        self.calls: list[tuple[str, Seat]] = []
        #: Each act and the seats running when it arrived.
        self.seen: list[tuple[Seat, frozenset[Seat]]] = []

    def freeze(self, seat: Seat) -> None:
        self.calls.append(("freeze", seat))
        self.running.discard(seat)

    def thaw(self, seat: Seat) -> None:
        self.calls.append(("thaw", seat))
        self.running.add(seat)


async def test_frozen_idle_seats_run_only_for_their_own_decisions(
    autojump_clock: trio.abc.Clock,
) -> None:
    seated = dict(zip(SEATS, bots(), strict=True))
    idle = Recorder(seated)
    for seat, bot in seated.items():
        policy = bot.policy

        def watched(act: Act, seat: Seat = seat, policy=policy):  # type: ignore[no-untyped-def]
            idle.seen.append((seat, frozenset(idle.running)))
            return policy(act)

        bot.policy = watched
    run = await play_match(seated, settings(seed=11, freeze_idle=True), idle=idle)
    check_run(run)
    assert len(idle.seen) > 30
    assert all(running == {seat} for seat, running in idle.seen)
    assert idle.running == set(SEATS)  # every seat runs again to hear the end


async def test_without_freeze_idle_nothing_is_stopped(autojump_clock: trio.abc.Clock) -> None:
    seated = dict(zip(SEATS, bots(), strict=True))
    idle = Recorder(seated)
    run = await play_match(seated, settings(seed=11), idle=idle)
    check_run(run)
    assert idle.calls == []


async def test_a_paced_forfeit_at_start_up_is_told_at_the_opening(
    autojump_clock: trio.abc.Clock,
) -> None:
    # C refuses to say ready at once (three bad lines): the others hear of it at the start-up
    # deadline, not at the moment C gave up
    seated = dict(zip(SEATS, bots(), strict=True))
    seated["C"] = FakeBot(hello=lambda hello: [b"no\n", b"no\n", b"no\n"])
    opened = trio.current_time()
    run = await play_match(
        seated, settings(seed=5, move_timeout=MOVE, startup_timeout=STARTUP, pace=True)
    )
    assert run.outcome.end == "forfeit" and run.outcome.forfeit is not None
    assert run.outcome.forfeit.seat == "C"
    ends = _arrivals(run.bots, MatchEnd)
    assert ends and all(when == pytest.approx(opened + STARTUP) for when in ends), ends
