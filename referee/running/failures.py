"""Why entrants' bots failed in a competition: each kind of fault of each entrant once, with
the first match it happened in and that bot's stderr, so that a crash's cause is read where
the standings are, not dug out of a thousand logs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import msgspec

from referee.match.outcome import BotFailure
from referee.rules.tiles import Seat
from referee.running.results import MatchResult


@dataclass(frozen=True)
class FailureKind:
    """One entrant's fault of one reason: how many matches it happened in, and the first."""

    entrant: str
    command: str
    reason: str
    matches: int
    match_id: str
    seat: Seat
    first: BotFailure
    #: Whether the seat's bot ran under any sandbox layer.
    sandboxed: bool


def failure_kinds(results: Iterable[MatchResult], commands: dict[str, str]) -> list[FailureKind]:
    """Every (entrant, reason) with a failure, in the order they first happened."""
    first: dict[tuple[str, str], FailureKind] = {}
    counted: dict[tuple[str, str], set[str]] = {}
    for result in results:
        for seat, failure in result.failures.items():
            entrant = result.seats[seat]
            key = (entrant, failure.reason)
            counted.setdefault(key, set()).add(result.match_id)
            if key not in first:
                sandbox = result.sandbox
                first[key] = FailureKind(
                    entrant=entrant,
                    command=commands.get(entrant, ""),
                    reason=failure.reason,
                    matches=0,
                    match_id=result.match_id,
                    seat=seat,
                    first=failure,
                    sandboxed=sandbox is not None and bool(sandbox.seats.get(seat)),
                )
    return [replace(kind, matches=len(counted[key])) for key, kind in first.items()]


def only_first_tails(result: MatchResult, first: set[Seat]) -> MatchResult:
    """``result`` with the stderr lines kept only for the seats in ``first`` (the first
    failure of its kind in the tournament): every copy is beside its log, and a results file
    of thousands of crashes must not hold thousands of tails."""
    kept = {
        seat: failure
        if seat in first
        else msgspec.structs.replace(
            failure, stderr=msgspec.structs.replace(failure.stderr, lines=[])
        )
        for seat, failure in result.failures.items()
    }
    return msgspec.structs.replace(result, failures=kept) if kept != result.failures else result


def new_failures(result: MatchResult, seen: set[tuple[str, str]]) -> list[tuple[Seat, str]]:
    """The seats of ``result`` whose (entrant, reason) is not in ``seen`` yet (added)."""
    fresh = []
    for seat, failure in result.failures.items():
        key = (result.seats[seat], failure.reason)
        if key not in seen:
            seen.add(key)
            fresh.append((seat, result.seats[seat]))
    return fresh
