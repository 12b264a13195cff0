"""A fault carries the lines its exchange refused, so that the runner can tell a runtime's
report of a bound (a JVM's, on stdout) from a protocol fault; and a bot gone away stays gone,
whichever bound explains it. In memory: the runner's explanation is stood in for by the
classification itself (``overruns.charged``)."""

from __future__ import annotations

import trio
from support.fakes import CLOSE, Sleep, Step, answer, any_act, misbehave, play_match, settings
from support.tables import bots

from referee.errors import BotFault, TooManyRejections
from referee.record.log import parse_log
from referee.record.records import FaultRecord, RejectedRecord
from referee.record.verify import verify
from referee.rules.tiles import Seat
from referee.sandbox.overruns import Evidence, charged
from referee.settings import MatchLimits
from referee.wire.messages import Act

LIMITS = MatchLimits(memory_mb=64)
#: What a JVM under ``RLIMIT_DATA`` writes on stdout as it dies (Debian's Java 17).
JVM_REPORT = [
    b"#\n",
    b"# There is insufficient memory for the Java Runtime Environment to continue.\n",
    b"# Native memory allocation (mmap) failed to map 8192 bytes. Error detail: committing"
    b" reserved memory.\n",
    b"# An error report file with more information is saved as:\n",
]


def playing(act: Act) -> bool:
    return act.view.phase == "playing"


class Explainer:
    """The runner's explanation, as ``BotProcess.explain`` makes it of a bot that has ended
    with nothing on stderr: the classification of what the exchange read."""

    def __init__(self) -> None:
        self.asked: list[BotFault] = []

    async def __call__(self, seat: Seat, fault: BotFault) -> BotFault:
        self.asked.append(fault)
        return charged(fault, Evidence(returncode=1, stdout=fault.said), LIMITS)


async def test_a_jvm_report_on_stdout_is_charged_as_the_memory_bound(
    autojump_clock: trio.abc.Clock,
) -> None:
    explain = Explainer()
    policy = misbehave(playing, lambda act: [Sleep(0.01), *JVM_REPORT])
    run = await play_match(bots(C=policy), settings(seed=2), explain=explain)
    (asked,) = explain.asked
    assert type(asked) is TooManyRejections
    # The lines refused, and the one read after them and not yet judged.
    assert asked.said == tuple(line.decode().rstrip("\n") for line in JVM_REPORT)
    outcome = run.outcome
    assert outcome.forfeit is not None
    assert (outcome.forfeit.seat, outcome.forfeit.reason) == ("C", "memory_limit")
    assert "its runtime wrote on stdout: '# There is insufficient memory" in outcome.detail
    assert "(seen as too_many_rejections)" in outcome.detail
    assert [r.reason for r in run.of(RejectedRecord)] == ["invalid_json"] * 3
    (fault,) = run.of(FaultRecord)
    assert fault.reason == "memory_limit"
    verify(parse_log(run.log))


async def test_lines_refused_in_another_decision_are_not_carried(
    autojump_clock: trio.abc.Clock,
) -> None:
    # The report was refused once, the bot answered, and later crashed: the crash is its own.
    explain = Explainer()
    said = {"times": 0}

    def reply(act: Act) -> list[Step]:
        said["times"] += 1
        if said["times"] == 1:  # refused, and asked again
            return [JVM_REPORT[1]]
        if said["times"] == 2:  # answered
            return [answer(act.id, act.legal_actions[0])]
        return [CLOSE]  # a later decision

    policy = misbehave(any_act, reply, times=3)
    run = await play_match(bots(B=policy), settings(seed=4), explain=explain)
    (asked,) = explain.asked
    assert asked.said == ()
    assert run.outcome.forfeit is not None
    assert run.outcome.forfeit.reason == "crashed"


async def test_a_crash_explained_by_a_bound_leaves_the_seat_gone(
    autojump_clock: trio.abc.Clock,
) -> None:
    # Under `random`, a seat whose bot died is not asked again: its later decisions are
    # charged at once, and the runner is asked once.
    explain = Explainer()
    policy = misbehave(playing, lambda act: [*JVM_REPORT[:2], CLOSE])
    run = await play_match(
        bots(A=policy),
        settings(seed=2, on_fault="random", max_strikes=2, max_rejections=5),
        explain=explain,
    )
    assert len(explain.asked) == 1
    faults = run.of(FaultRecord)
    assert [f.reason for f in faults] == ["memory_limit"] * 3
    assert run.outcome.forfeit is not None and run.outcome.forfeit.seat == "A"
    verify(parse_log(run.log))
