"""Playing a logged match again (``referee replay --rerun``): what its header says it was
played under, where the new log goes, and why a re-run that differs may differ."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from referee.match.commands import problem
from referee.record.records import Header, MatchEndRecord
from referee.rules.tiles import Seat
from referee.settings import MatchSettings
from referee.terminal.escapes import shown

if TYPE_CHECKING:
    from referee.match.outcome import MatchOutcome
    from referee.record.log import LogFile


@dataclass(frozen=True)
class Rerun:
    """A logged match to play again: the same bots, seed and limits, a new log beside it."""

    bots: dict[Seat, str]
    settings: MatchSettings
    log: Path
    #: The game digest the log ends with; None for a log cut short.
    logged_digest: str | None


def logged_settings(header: Header) -> MatchSettings:
    """The settings a logged match was played under: its limits, and the sandbox bounds
    where the header has them (older logs do not: the defaults stand)."""
    settings = MatchSettings.from_log(header.seed, header.limits, header.max_hands)
    sandbox = header.sandbox
    if sandbox is None or not sandbox.memory_mb:
        return settings
    return msgspec.structs.replace(
        settings,
        memory_mb=sandbox.memory_mb,
        cpu_seconds=sandbox.cpu_seconds,
        max_processes=sandbox.max_processes,
        file_size_mb=sandbox.file_size_mb,
        scratch_mb=sandbox.scratch_mb or settings.scratch_mb,
    )


def rerun_of(replay_log: LogFile) -> Rerun:
    """The re-run of a logged match; ``ValueError`` with one line when it cannot be played
    here: a person played in it, an earlier re-run's log is in the way, or a logged command
    cannot start (the real cause, rather than "the game differs" after the match)."""
    header = replay_log.header
    if header.people:
        seats = " and ".join(header.people)
        raise ValueError(
            f"cannot re-run: a person played seat {seats} (referee play), and a person's"
            " moves cannot be played again; --verify checks the log instead"
        )
    log = replay_log.path.with_name(replay_log.path.stem + ".rerun.jsonl")
    if log.exists():
        raise ValueError(f"{log} exists (an earlier re-run): remove it first")
    for seat, command in header.bots.items():
        why = problem(command)
        if why is not None:
            raise ValueError(
                f"cannot re-run: seat {seat}: {why}; the logged commands are run as written:"
                " re-run from the directory the match was played in"
            )
    end = replay_log.records[-1]
    logged = end.game_digest if isinstance(end, MatchEndRecord) else None
    return Rerun(header.bots, logged_settings(header), log, logged)


def difference(rerun: Rerun, outcome: MatchOutcome) -> str | None:
    """Why the re-run's game is not the logged one, in one line; None when it is."""
    if outcome.game_digest == rerun.logged_digest:
        return None
    started = [seat for seat in rerun.bots if outcome.names.get(seat)]
    if len(started) < len(rerun.bots):
        missing = ", ".join(seat for seat in rerun.bots if seat not in started)
        return (
            f"the game differs: seat {missing} did not start this time"
            f" ({shown(outcome.detail)}); see the new log's faults"
        )
    return "the game differs (are the bots deterministic?)"
