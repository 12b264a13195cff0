"""Logs cut short or forged around the game: truncation, a forged end after a cut, edits only
the log digest can show (timing, names, free text), and the structure around the game — the
readies, a rejection after its fault, the forfeit named in match_end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import msgspec
import pytest
import trio
from support.log_edits import (
    Line,
    base_log,
    body_of,
    forge_end,
    forged,
    naive,
    positions,
    records_of,
    replace,
    split,
    swap,
    verification_error,
)

from referee.record.log import parse_log
from referee.record.records import (
    BotReady,
    DealRecord,
    FaultRecord,
    HandEndRecord,
    LogRecord,
    MatchEndRecord,
    MoveRecord,
    RejectedRecord,
)
from referee.record.verify import verify
from referee.rules import SEATS, Seat

# -- truncation ------------------------------------------------------------------------------


async def test_a_log_cut_short_is_truncated_at_the_missing_line(
    autojump_clock: trio.abc.Clock,
) -> None:
    log = await base_log("random")
    raw = log.splitlines(keepends=True)
    n = len(raw)

    # The last line dropped: nothing to re-chain, the log stops before match_end.
    error = verification_error(b"".join(raw[:-1]))
    assert error.line == n
    assert "truncated" in str(error) and "before the match_end record" in str(error)

    # The last line cut in half.
    error = verification_error(b"".join(raw[:-1]) + raw[-1][: len(raw[-1]) // 2])
    assert error.line == n
    assert f"line {n} is cut off" in str(error)

    # A line in the middle cut in half: the file ends there.
    k = n // 2
    error = verification_error(b"".join(raw[: k - 1]) + raw[k - 1][:40])
    assert error.line == k
    assert f"line {k} is cut off" in str(error)


def cut_with_a_forged_end(log: bytes, after: int) -> tuple[bytes, int]:
    """The log cut after 0-based record ``after``, ended by a forged ``interrupted`` match_end
    (with its own game digest and fault totals), and every chain member recomputed."""
    records = records_of(log)
    kept = records[: after + 1]
    end = records[-1]
    assert isinstance(end, MatchEndRecord)
    hand_ends = [r for r in kept if isinstance(r, HandEndRecord)]
    counts: dict[Seat, Counter[str]] = {seat: Counter() for seat in SEATS}
    for record in kept:
        if isinstance(record, RejectedRecord | FaultRecord):
            counts[record.seat][record.reason] += 1
    forged_end = forge_end(
        kept,
        end,
        winner=None,
        marks=hand_ends[-1].marks if hand_ends else {"AC": 0, "BD": 0},
        hands=sum(isinstance(r, DealRecord) for r in kept),
        end="interrupted",
        detail="the referee was interrupted",
        forfeit=None,
        faults={seat: dict(sorted(counts[seat].items())) for seat in SEATS},
    )
    lines = [*split(log)[: after + 1], Line(body_of(forged_end), b"")]
    return forged(lines), after + 2


async def test_a_cut_log_with_a_forged_end_is_caught_where_a_record_is_missing(
    autojump_clock: trio.abc.Clock,
) -> None:
    log = await base_log("random")
    # Cut right after a hand_end: the table always writes the next deal with it.
    after = positions(records_of(log), HandEndRecord)[0]
    data, end_line = cut_with_a_forged_end(log, after)
    error = verification_error(data)
    assert error.line == end_line
    assert "the DealRecord that follows from the rules" in str(error)


# -- edits that re-simulation cannot see: only log_digest tells ----------------------------------


def rejection_raw_respaced(lines: list[Line], records: list[LogRecord]) -> list[Line]:
    i = positions(records, RejectedRecord)[0]
    return replace(lines, i, lines[i].edited(lambda v: v.update(raw=v["raw"].replace(",", ", "))))


def timing_value(lines: list[Line], records: list[LogRecord]) -> list[Line]:
    i = positions(records, MoveRecord)[0]
    return replace(lines, i, lines[i].edited(lambda v: v["timing"].update(latency_ms=123.5)))


def bot_name(lines: list[Line], records: list[LogRecord]) -> list[Line]:
    i = positions(records, BotReady)[0]
    return replace(lines, i, lines[i].edited(lambda v: v.update(name="someone else")))


def bot_command(lines: list[Line], records: list[LogRecord]) -> list[Line]:
    return replace(lines, 0, lines[0].edited(lambda v: v["bots"].update(A="other bot")))


def fault_detail(lines: list[Line], records: list[LogRecord]) -> list[Line]:
    i = positions(records, FaultRecord)[0]
    return replace(lines, i, lines[i].edited(lambda v: v.update(detail="something else")))


def match_end_detail(lines: list[Line], records: list[LogRecord]) -> list[Line]:
    # Free text (for a forfeit it quotes the fault detail): verify checks the winner and the
    # forfeiting seat, not this sentence.
    i = len(lines) - 1
    return replace(lines, i, lines[i].edited(lambda v: v.update(detail="something else")))


#: Edits of what depends on the clock or on the bots' own bytes and names, or free text: a
#: re-simulation from the seed cannot judge them, so a forged log with them verifies. Only the
#: chain catches them — a naive edit breaks it, a forged one changes log_digest, which a
#: published log_digest (``referee match --json``, tournament results) pins.
UNSEEN: dict[str, Callable[[list[Line], list[LogRecord]], list[Line]]] = {
    "the raw excerpt of a rejection (same reason and rule)": rejection_raw_respaced,
    "a timing value": timing_value,
    "a bot's name": bot_name,
    "a bot's command in the header": bot_command,
    "a fault's detail": fault_detail,
    "match_end's detail": match_end_detail,
}


@pytest.mark.parametrize("case", UNSEEN)
async def test_an_edit_re_simulation_cannot_see_changes_the_log_digest(
    case: str, autojump_clock: trio.abc.Clock
) -> None:
    log = await base_log("faults")
    original = verify(parse_log(log))
    lines = UNSEEN[case](split(log), records_of(log))
    assert naive(lines) != log
    assert verification_error(naive(lines)).line == parse_log(naive(lines)).broken_at
    result = verify(parse_log(forged(lines)))
    assert result.game_digest == original.game_digest
    assert result.log_digest != original.log_digest


async def test_a_cut_log_with_a_forged_interrupted_end_changes_the_log_digest(
    autojump_clock: trio.abc.Clock,
) -> None:
    # A real Ctrl-C leaves exactly such a log (match_end "interrupted" after any record), so
    # the re-simulation accepts it: only the published log_digest shows it is not the log
    # that was written.
    log = await base_log("random")
    original = verify(parse_log(log))
    after = positions(records_of(log), DealRecord)[1]
    data, _ = cut_with_a_forged_end(log, after)
    result = verify(parse_log(data))
    assert result.end == "interrupted"
    assert result.log_digest != original.log_digest
    assert result.game_digest != original.game_digest


# -- forged structure around the game: caught by verify's start-up and rejection checks -------


#: An edit, and the lines where a verifier may fairly report it (1-based).
StructureEdit = Callable[[list[Line], list[LogRecord]], tuple[list[Line], range]]


def delete_ready(lines: list[Line], records: list[LogRecord]) -> tuple[list[Line], range]:
    # Seat A never said ready, yet A plays: caught anywhere up to the first deal.
    i = positions(records, BotReady)[0]
    deal = positions(records, DealRecord)[0]
    return lines[:i] + lines[i + 1 :], range(i + 1, deal + 1)


def duplicate_ready(lines: list[Line], records: list[LogRecord]) -> tuple[list[Line], range]:
    i = positions(records, BotReady)[0]
    return lines[: i + 1] + lines[i:], range(i + 2, i + 3)


def rejection_after_its_fault(
    lines: list[Line], records: list[LogRecord]
) -> tuple[list[Line], range]:
    # act, rejected, act, rejected, act, rejected, fault too_many_rejections: the third
    # rejection moved after the fault (a fault after two rejections, a rejection after it).
    i = positions(records, FaultRecord, lambda f, _: f.reason == "too_many_rejections")[0]
    assert isinstance(records[i - 1], RejectedRecord)
    return swap(lines, i - 1, i), range(i, i + 2)


@pytest.mark.parametrize(
    "edit",
    [delete_ready, duplicate_ready, rejection_after_its_fault],
    ids=["delete a ready", "duplicate a ready", "a rejection after its fault"],
)
async def test_forged_structure_around_the_game_is_detected(
    edit: StructureEdit,
    autojump_clock: trio.abc.Clock,
) -> None:
    # The table writes exactly one ready per seat that started, in seat order, before any
    # start-up fault and the first deal, and a too_many_rejections fault right after the
    # max_rejections-th rejection. That is structure, not timing or bot bytes, so verify checks
    # it and these forged logs fail.
    log = await base_log("faults")
    lines, where = edit(split(log), records_of(log))
    error = verification_error(forged(lines))
    assert error.line in where, str(error)


async def test_a_forfeit_in_match_end_must_be_the_fault_that_forfeited(
    autojump_clock: trio.abc.Clock,
) -> None:
    # forfeit.reason is game content (the game record keeps {"seat", "reason"}): a forger who
    # rewrites it and recomputes game_digest (LOG.md documents how) must still be caught, as the
    # reason contradicts the fault record.
    log = await base_log("faults")
    records = records_of(log)
    end = records[-1]
    assert isinstance(end, MatchEndRecord) and end.forfeit is not None
    assert end.forfeit.reason == "too_many_rejections"
    assert [r.reason for r in records if isinstance(r, FaultRecord)][-1] == "too_many_rejections"
    forfeit = msgspec.structs.replace(end.forfeit, reason="crashed")
    lie = forge_end(records[:-1], end, forfeit=forfeit)
    lines = [*split(log)[:-1], Line(body_of(lie), b"")]
    error = verification_error(forged(lines))
    assert error.line == len(lines)
