"""Replay logs edited as a forger would, for the tests of ``verify``: a log as lines, each
changed and re-chained, and the positions of its records.

Tampering is done two ways. A *naive* edit changes a line's bytes and keeps the chain members
as they were, so the chain breaks at the first edited line. A *forgery* recomputes every chain
member afterwards with ``referee.record.log.next_chain`` (exactly what the referee's own writer
does), so the chain is whole and only the re-simulation can catch the edit.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest

from referee.errors import VerificationError
from referee.record.log import next_chain, parse_log
from referee.record.records import (
    ActRecord,
    DealRecord,
    LogRecord,
    MatchEndRecord,
    canonical_json,
    game_digest,
)
from referee.record.verify import Verified, game_record, verify
from support.fakes import MatchRun, any_act, misbehave, play_match, settings
from support.faulty_matches import illegal
from support.tables import bots, random_match

ROOT = Path(__file__).resolve().parents[2]
CHAIN = re.compile(rb',"chain":"([0-9a-f]{64})"\}$')


# -- logs as lines, edited and re-chained ------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One log line: the record without its chain member, and the chain it was written with."""

    body: bytes
    chain: bytes

    @property
    def value(self) -> dict[str, Any]:
        return msgspec.json.decode(self.body)  # type: ignore[no-any-return]

    def edited(self, change: Callable[[dict[str, Any]], object]) -> Line:
        """The record decoded, changed in place by ``change``, encoded again; old chain kept."""
        value = self.value
        change(value)
        return Line(msgspec.json.encode(value), self.chain)


def split(log: bytes) -> list[Line]:
    lines = []
    for raw in log.splitlines():
        match = CHAIN.search(raw)
        assert match is not None
        lines.append(Line(raw[: match.start()] + b"}", match.group(1)))
    return lines


def naive(lines: list[Line]) -> bytes:
    """The lines with the chain members they had: an edit that does not touch the chain."""
    return b"".join(line.body[:-1] + b',"chain":"' + line.chain + b'"}\n' for line in lines)


def forged(lines: list[Line]) -> bytes:
    """The lines with every chain member recomputed: an edit the chain cannot see."""
    out, chain = [], ""
    for line in lines:
        chain = next_chain(chain, line.body)
        out.append(line.body[:-1] + b',"chain":"' + chain.encode() + b'"}\n')
    return b"".join(out)


def records_of(log: bytes) -> list[LogRecord]:
    return parse_log(log).records


def verification_error(log: bytes) -> VerificationError:
    parsed = parse_log(log)
    with pytest.raises(VerificationError) as caught:
        verify(parsed)
    return caught.value


def positions(
    records: list[LogRecord], kind: type, where: Callable[[Any, int], bool] | None = None
) -> list[int]:
    """0-based indexes of the records of ``kind`` for which ``where(record, index)`` holds."""
    return [
        i for i, r in enumerate(records) if isinstance(r, kind) and (where is None or where(r, i))
    ]


def act_of(records: list[LogRecord], act_id: int | None) -> ActRecord:
    (act,) = [r for r in records if isinstance(r, ActRecord) and r.id == act_id]
    return act


def forge_end(records: list[LogRecord], last: MatchEndRecord, **changes: Any) -> MatchEndRecord:
    """``last`` changed, with the game digest a forger would recompute for ``records``."""
    changed = msgspec.structs.replace(last, **changes)
    digest = game_digest(game_record([*records, changed]))
    return msgspec.structs.replace(changed, game_digest=digest)


def body_of(record: LogRecord) -> bytes:
    return msgspec.json.encode(record)


def check_verified(run: MatchRun) -> Verified:
    """``verify`` accepts the log and agrees with the outcome the table returned."""
    result = verify(parse_log(run.log))
    outcome = run.outcome
    assert result.game_digest == outcome.game_digest
    assert result.log_digest == outcome.log_digest
    assert (result.end, result.winner, result.marks, result.hands) == (
        outcome.end,
        outcome.winner,
        outcome.marks,
        outcome.hands,
    )
    assert result.records == len(run.records)
    return result


async def base_log(name: str) -> bytes:
    if name == "random":  # bids, all-tricks contracts, several hands
        return (await random_match(3)).log
    # rejections (illegal_action), too_many_rejections faults, forced moves, a forfeit
    run = await play_match(
        bots(D=misbehave(any_act, illegal, times=None)),
        settings(seed=8, on_fault="random", max_strikes=2),
    )
    return run.log


@dataclass
class Tampered:
    lines: list[Line]
    #: The line a naive edit breaks the chain at.
    naive_line: int
    #: The line the re-simulation rejects a forgery at, and words of its message.
    forged_line: int
    words: str


Edit = Callable[[list[Line], list[LogRecord]], Tampered]


def replace(lines: list[Line], index: int, line: Line) -> list[Line]:
    return [*lines[:index], line, *lines[index + 1 :]]


def swap(lines: list[Line], i: int, j: int) -> list[Line]:
    out = list(lines)
    out[i], out[j] = out[j], out[i]
    return out


def swap_first_tiles(hand: int) -> Edit:
    def edit(lines: list[Line], records: list[LogRecord]) -> Tampered:
        i = positions(records, DealRecord)[hand - 1]

        def change(value: dict[str, Any]) -> None:
            hands = value["hands"]
            hands["A"][0], hands["B"][0] = hands["B"][0], hands["A"][0]

        words = "the first deal from the seed" if hand == 1 else "the DealRecord that follows"
        return Tampered(replace(lines, i, lines[i].edited(change)), i + 1, i + 1, words)

    return edit


def not_a_log(case: str, directory: Path, real_log: bytes) -> Path:
    path = directory / f"{case}.jsonl"
    if case == "empty":
        path.write_bytes(b"")
    elif case == "binary":
        path.write_bytes(random.Random(1).randbytes(3000))
    elif case == "binary without a line end":
        path.write_bytes(bytes(range(256)).replace(b"\n", b""))
    elif case == "a JSON schema":
        path.write_bytes((ROOT / "protocol" / "log.schema.json").read_bytes())
    elif case == "a game record":
        path.write_bytes(canonical_json(game_record(records_of(real_log))) + b"\n")
    elif case == "log_version 2":
        lines = split(real_log)
        lines[0] = lines[0].edited(lambda v: v.update(log_version=2))
        path.write_bytes(forged(lines))
    elif case == "a directory":
        path.mkdir()
    elif case == "a pipe nobody writes to":  # opening it for reading must not wait
        os.mkfifo(path)
    else:
        assert case == "missing"
    return path


NOT_LOGS = [
    "empty",
    "binary",
    "binary without a line end",
    "a JSON schema",
    "a game record",
    "log_version 2",
    "a directory",
    "a pipe nobody writes to",
    "missing",
]
