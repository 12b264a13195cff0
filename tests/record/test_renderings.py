"""The text renderings of a log: one seat's and the public one never show a tile that was
hidden when it was shown; the full one shows everything in order, as logged.

TILE_TEXT matches a tile as the renderings write it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import trio
from support.fakes import Sleep, any_act, first_legal, misbehave, play_match, settings
from support.faulty_matches import FAULTY, illegal, playing
from support.tables import bots, random_match

from referee.record import render
from referee.record.log import LogFile, parse_log
from referee.record.records import (
    DealRecord,
    FaultRecord,
    HandEndRecord,
    MoveRecord,
    RejectedRecord,
    TrickRecord,
)
from referee.rules import SEATS, DeclareTrump, Play, Seat, Tile
from referee.rules.contract import side_name

TILE_TEXT = re.compile(r"\[(\d)\|(\d)\]")


# -- 4. renderings ------------------------------------------------------------------------------


class Tracked(list):  # type: ignore[type-arg]
    """A log's records that remember which one a rendering is at (``at``, 0-based)."""

    at = -1

    def __iter__(self) -> Iterator[Any]:
        for index in range(len(self)):
            self.at = index
            yield self[index]


def tiles_shown_that_were_hidden(
    log: LogFile, lines: Iterator[str], seat: Seat | None
) -> tuple[list[str], int]:
    """Each rendered line showing a tile that ``seat`` (None: anyone) could not see when it
    was shown: neither in the seat's own deal nor played so far in the hand; and how many
    tiles were shown in all. Lines are taken one at a time, so "so far" is the record the
    rendering had reached."""
    records = log.records
    assert isinstance(records, Tracked)
    leaks = []
    count = 0
    for line in lines:
        visible: set[Tile] = set()
        for record in records[: records.at + 1]:
            if isinstance(record, DealRecord):
                visible = set(record.hands[seat]) if seat else set()
            elif isinstance(record, MoveRecord) and isinstance(record.action, Play):
                visible.add(record.action.tile)
        for low, high in TILE_TEXT.findall(line):
            count += 1
            if Tile(int(low), int(high)) not in visible:
                leaks.append(f"after record {records.at + 1}: {line}")
    return leaks, count


def tracked(data: bytes) -> LogFile:
    log = parse_log(data)
    log.records = Tracked(log.records)
    return log


async def test_seat_and_public_renderings_never_show_a_hidden_tile(
    autojump_clock: trio.abc.Clock,
) -> None:
    logs = [(await random_match(seed)).log for seed in range(30)]
    forced = FAULTY["crash, random then forfeit"]()
    logs.append((await play_match(forced[0], forced[1])).log)
    timeouts = FAULTY["timeout, random: forced moves, strikes, then forfeit"]()
    logs.append((await play_match(timeouts[0], timeouts[1])).log)
    shown: Counter[str] = Counter()
    for data in logs:
        for seat in SEATS:
            log = tracked(data)
            leaks, count = tiles_shown_that_were_hidden(log, render.seat_lines(log, seat), seat)
            assert leaks == []
            shown["seat"] += count
        log = tracked(data)
        leaks, count = tiles_shown_that_were_hidden(log, render.public_lines(log), None)
        assert leaks == []
        shown["public"] += count
    assert shown["seat"] > 10_000 and shown["public"] > 1_000
    # The check itself finds hidden tiles: the full rendering shows every deal.
    log = tracked(logs[0])
    leaks, _ = tiles_shown_that_were_hidden(log, render.match_lines(log), "A")
    assert leaks


def in_order(lines: list[str], wanted: list[str]) -> None:
    """Each wanted text is in a line after the line of the one before it."""
    at = 0
    for text in wanted:
        found = next((i for i in range(at, len(lines)) if text in lines[i]), None)
        assert found is not None, f"not found after line {at}: {text!r}"
        at = found + 1


async def test_the_full_rendering_shows_everything_in_order(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(
        bots(
            B=misbehave(playing, illegal),
            C=misbehave(lambda act: act.id > 20, lambda act: [Sleep(1.5), first_legal(act)]),
            D=misbehave(any_act, lambda act: b"{not json\n"),
        ),
        settings(seed=12, on_fault="random"),
    )
    assert run.outcome.end == "marks" and run.outcome.hands > 1
    assert {"illegal_action", "invalid_json", "timeout"} <= {
        reason for seat in SEATS for reason in run.outcome.faults[seat]
    }
    lines = list(render.match_lines(parse_log(run.log)))
    wanted = []
    plays: list[str] = []
    for record in run.records:
        if isinstance(record, DealRecord):
            wanted.append(f"Hand {record.hand} — dealer {record.dealer}")
            for seat in SEATS:
                wanted.append(f"  {seat} holds {render.tiles_text(record.hands[seat])}")
        elif isinstance(record, MoveRecord) and isinstance(record.action, Play):
            # The act it answered by its id (``referee ask`` takes it); forced: no act.
            forced = " (forced by the referee)" if record.forced else f" #{record.id}"
            plays.append(f"{record.seat} {record.action.tile}{forced}")
        elif isinstance(record, TrickRecord):
            points = f"{record.points} point{'s' if record.points != 1 else ''}"
            wanted.append(
                f"  trick {record.trick}: {', '.join(plays)} → {record.winner} wins {points}"
                f" for {side_name(record.side)}"
            )
            plays = []
        elif isinstance(record, HandEndRecord):
            wanted.append(f"  result: {render.result_text(record.result)}")
            wanted.append(f"  marks: {render.marks_text(record.marks)}")
            plays = []
        elif isinstance(record, RejectedRecord):
            wanted.append(f"  ! {record.seat} answer to #{record.id} rejected ({record.reason}")
            wanted.append(f"      raw: {record.raw}")
        elif isinstance(record, FaultRecord):
            wanted.append(
                f"  ! {record.seat} fault {record.reason} at #{record.id}: {record.detail}"
                f" → {record.penalty} (strikes {record.strikes})"
            )
    assert any(move.forced for move in run.of(MoveRecord))
    end = run.end
    wanted.append(f"Match over: {side_name(end.winner)} wins (marks: {end.detail})")  # type: ignore[arg-type]
    in_order(lines, wanted)
    # Every decision's id is shown: bids and declarations too, each in its hand.
    answered = [m for m in run.of(MoveRecord) if not m.forced and not isinstance(m.action, Play)]
    text, at = "\n".join(lines), 0
    for move in answered:  # several to a line (the bids): in order in the text
        declares = "declares " if isinstance(move.action, DeclareTrump) else ""
        at = text.index(f"{move.seat} {declares}{move.action} #{move.id}", at) + 1
    tricks = [line for line in lines if line.startswith("  trick ")]
    assert len(tricks) == len(run.of(TrickRecord))
    assert lines[-1] == render.NOT_VERIFIED  # the last line says it was shown as logged
    assert lines[-2].endswith(f"game digest {end.game_digest}")
