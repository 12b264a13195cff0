"""A tournament's logs, as its results file names them: finding a result's own log, and
what a results line says otherwise than that log (the report and ``referee stats`` read a
tournament's logs this way)."""

from __future__ import annotations

from pathlib import Path

from referee.errors import LogError
from referee.record.log import LogFile, read_log
from referee.record.records import MatchEndRecord
from referee.running.results import MatchResult


def own_log(result: MatchResult, results_file: Path) -> tuple[Path, LogFile]:
    """A result's log: at its path as recorded (relative to where the tournament ran), else
    in the results file's folder or its ``logs/`` (a tournament moved, or reported from
    elsewhere) — the first whose digest is the result's, so no other log stands in for it."""
    recorded = Path(result.log)
    if not recorded.name:
        raise ValueError(f"match {result.match_id}: no log path recorded")
    folder = results_file.parent
    found = []
    for candidate in (recorded, folder / recorded.name, folder / "logs" / recorded.name):
        if candidate.is_file():
            log = read_log(candidate)
            if log.head == result.log_digest:
                return candidate, log
            found.append(str(candidate))
    if found:
        raise LogError(f"{', '.join(found)}: another match's log (its digest differs)")
    raise FileNotFoundError(f"{recorded} is not there, nor beside {results_file}")


def disagreement(result: MatchResult, log: LogFile, commands: dict[str, str]) -> str:
    """What a results line says otherwise than its (verified) log, or "": who won, how, and
    which entrant's program sat where (``commands``: each entrant's, from the settings)."""
    end, header = log.records[-1], log.header
    if not isinstance(end, MatchEndRecord):
        return "the end (its log has no match_end record)"
    pairs = {
        "who sat where": (
            {seat: commands.get(name) for seat, name in result.seats.items()},
            dict(header.bots),
        ),
        "the winner": (result.winner_side, end.winner),
        "the marks": (result.marks, end.marks),
        "the hands": (result.hands, end.hands),
        "the end": (result.end, end.end),
        "the game digest": (result.game_digest, end.game_digest),
        "the seed": (result.seed, header.seed),
    }
    return ", ".join(what for what, (said, logged) in pairs.items() if said != logged)
