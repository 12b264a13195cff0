"""A kept bot that cannot start its next match is replaced by a fresh process, and the fault
is that match's record of it (penalty ``restart``), with fake bots over memory streams."""

from __future__ import annotations

import io

import pytest
import trio
from support.fakes import FakeBot, chained_records, delayed, line, play_match, settings
from support.log_edits import forged, positions, records_of, split

from referee.errors import BotStartFailed, VerificationError
from referee.match.connection import BotConnection
from referee.match.outcome import MatchOutcome
from referee.match.table import Table
from referee.record.log import LogWriter, parse_log
from referee.record.records import BotReady, FaultRecord, IgnoredRecord
from referee.record.verify import verify
from referee.rules.tiles import SEATS, Seat
from referee.wire.answers import MAX_IGNORED


def _silent(hello: object) -> None:
    return None


def _many(hello: object) -> bytes:
    return line({"type": "ready", "name": "many", "matches": "many"})


async def _play(
    first: FakeBot,
    previous: dict[Seat, int],
    replacement: FakeBot | None,
) -> tuple[MatchOutcome, bytes, Table]:
    """A match where A is ``first`` and the others are plain fakes; a restart of A seats
    ``replacement`` (or fails to start when there is none)."""
    match_settings = settings(startup_timeout=2.0)
    bots = {"A": first, **{seat: FakeBot() for seat in SEATS[1:]}}
    buffer = io.BytesIO()
    connections = {seat: bot.connection(seat, 1 << 20) for seat, bot in bots.items()}
    async with trio.open_nursery() as nursery:

        async def restart(seat: Seat) -> BotConnection:
            if replacement is None:
                raise BotStartFailed("cannot start 'bot': No such file or directory")
            nursery.start_soon(replacement.run)
            return replacement.connection(seat, 1 << 20)

        for bot in bots.values():
            nursery.start_soon(bot.run)
        table = Table(
            match_settings,
            connections,
            LogWriter(buffer),
            {seat: "bot" for seat in SEATS},
            previous_matches=previous,
            restart=restart,
        )
        outcome = await table.play()
        nursery.cancel_scope.cancel()
    return outcome, buffer.getvalue(), table


async def test_a_kept_bot_that_does_not_answer_hello_is_replaced_and_the_match_played(
    autojump_clock: trio.abc.Clock,
) -> None:
    fresh = FakeBot(hello=_many)
    outcome, log, table = await _play(FakeBot(hello=_silent), {"A": 3, "B": 3}, fresh)
    records = chained_records(log)
    faults = [record for record in records if isinstance(record, FaultRecord)]
    assert [(f.seat, f.reason, f.penalty) for f in faults] == [("A", "timeout", "restart")]
    readies = {record.seat: record for record in records if isinstance(record, BotReady)}
    assert (readies["A"].reused, readies["A"].previous_matches) == (False, 0)
    assert (readies["B"].reused, readies["B"].previous_matches) == (True, 3)
    assert outcome.end == "marks"
    assert outcome.faults["A"] == {"timeout": 1}
    assert fresh.hello is not None and fresh.hello.seat == "A"
    verify(parse_log(log))
    assert table.reusable("A")  # the fresh process was charged nothing: it may be kept
    assert not table.reusable("B")  # it says one match


async def test_a_replacement_that_cannot_start_forfeits_as_any_start_up_failure(
    autojump_clock: trio.abc.Clock,
) -> None:
    outcome, log, _ = await _play(FakeBot(hello=_silent), {"A": 1}, None)
    faults = [record for record in chained_records(log) if isinstance(record, FaultRecord)]
    assert [(f.seat, f.penalty) for f in faults] == [("A", "restart"), ("A", "forfeit")]
    assert faults[1].reason == "start_failed"
    assert outcome.end == "forfeit" and outcome.winner == "BD"
    verify(parse_log(log))


async def test_a_bot_started_for_the_match_is_never_restarted(
    autojump_clock: trio.abc.Clock,
) -> None:
    outcome, log, _ = await _play(FakeBot(hello=_silent), {}, FakeBot())
    faults = [record for record in chained_records(log) if isinstance(record, FaultRecord)]
    assert [(f.seat, f.reason, f.penalty) for f in faults] == [("A", "timeout", "forfeit")]
    assert outcome.end == "forfeit"
    verify(parse_log(log))


async def test_only_a_bot_that_said_many_and_was_charged_nothing_may_be_kept(
    autojump_clock: trio.abc.Clock,
) -> None:
    slow_once = FakeBot(delayed([5.0]), hello=_many)  # times out, then plays on
    bots = {"A": slow_once, "B": FakeBot(hello=_many), "C": FakeBot(hello=_many)}
    bots["D"] = FakeBot()  # says nothing of matches: one
    run = await play_match(bots, settings(on_fault="random"))
    assert "timeout" in run.outcome.faults["A"]
    table_says = {record.seat: record.matches for record in run.of(BotReady)}
    assert table_says == {"A": "many", "B": "many", "C": "many", "D": "one"}
    assert [seat for seat in SEATS if run.table.reusable(seat)] == ["B", "C"]


def _flood(hello: object) -> bytes:
    """A kept bot still answering its last match: ``MAX_IGNORED`` late answers, no ready."""
    late = line({"type": "action", "id": 7, "action": {"type": "pass"}})
    return late * MAX_IGNORED


async def test_a_kept_bot_flooding_late_answers_is_replaced_and_the_log_verifies(
    autojump_clock: trio.abc.Clock,
) -> None:
    outcome, log, _ = await _play(FakeBot(hello=_flood), {"A": 2}, FakeBot(hello=_many))
    records = chained_records(log)
    faults = [record for record in records if isinstance(record, FaultRecord)]
    assert [(f.seat, f.reason, f.penalty) for f in faults] == [
        ("A", "too_many_rejections", "restart")
    ]
    assert sum(isinstance(record, IgnoredRecord) for record in records) == MAX_IGNORED
    assert outcome.end == "marks"
    verify(parse_log(log))


async def test_a_flood_that_forfeits_verifies_and_one_answer_fewer_does_not(
    autojump_clock: trio.abc.Clock,
) -> None:
    outcome, log, _ = await _play(FakeBot(hello=_flood), {"A": 2}, None)
    assert outcome.end == "forfeit"
    verify(parse_log(log))  # the fault comes after the other seats' readies, not an ignored
    lines = split(log)
    first = positions(records_of(log), IgnoredRecord)[0]
    del lines[first]  # MAX_IGNORED - 1 ignored answers cannot be the fault
    with pytest.raises(VerificationError, match="rejections before the fault"):
        verify(parse_log(forged(lines)))
