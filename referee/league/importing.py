"""``league import``: a tournament's results counted in the league. Each of its entrants is
the league's version with the same name and command, or a new version of that name (labelled
after the results file's fingerprint); each match is recorded with its log as the tournament
wrote it (found and held to its digest first: a missing log refuses the import), in the
tournament's order, all in one transaction (a file imported twice adds
nothing the second time: its matches are already recorded)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import msgspec

from referee.errors import LeagueError, LogError
from referee.league.store import FRESH, Entrant, League, now
from referee.running.logs import own_log
from referee.running.results import MatchResult, ResultsError, in_plan_order, read_results


@dataclass(frozen=True)
class Imported:
    matches: int
    already: int
    added: list[str]


def import_results(league: League, path: Path) -> Imported:
    try:
        header, results = read_results(path)
    except (OSError, ResultsError) as exc:
        raise LeagueError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    fingerprint = header.fingerprint
    source = f"import:{path.resolve()}"
    added: list[str] = []
    recorded = already = 0
    named = {entrant.name for entrant in header.settings.entrants}
    # Every log found and held to its digest before anything is written (and before the
    # write lock is taken: reading the logs may take a while).
    for result in results:  # the file itself first, then its logs
        stranger = next((n for n in (result.first, result.second) if n not in named), None)
        if stranger is not None:
            raise LeagueError(
                f"{path}: match {result.match_id} names {stranger!r}, an entrant its header"
                " does not list: not a results file as 'referee tournament' writes it"
            )
    located: list[tuple[str, MatchResult]] = []
    for result in in_plan_order(results):
        key = f"t{fingerprint}~{result.match_id}"  # tournaments share match ids
        if league.recorded(key):
            already += 1
            continue
        try:
            log, _ = own_log(result, path)
        except (OSError, LogError, ValueError) as exc:
            raise LeagueError(
                f"{path}: match {result.match_id}'s log: {exc}; import needs every log"
                " (keep them beside the results file, or in its logs/)"
            ) from None
        located.append((key, msgspec.structs.replace(result, log=str(log.resolve()))))
    with league.transaction():
        versions: dict[str, Entrant] = {}
        for entrant in header.settings.entrants:
            same = [
                e
                for e in league.entrants()
                if e.name == entrant.name and e.command == entrant.command
            ]
            if same:
                versions[entrant.name] = same[-1]
                continue
            # Another program under a known name is a past version (retired); a name the
            # league does not know yet joins it.
            label = f"t{fingerprint[:8]}"
            known = any(e.name == entrant.name for e in league.entrants())
            cursor = league.db.execute(
                "INSERT INTO entrants (name, version, command, added, retired, mu, sigma)"
                " SELECT ?, ?, ?, ?, ?, ?, ?"
                " WHERE NOT EXISTS (SELECT 1 FROM entrants WHERE name = ? AND version = ?)",
                (
                    entrant.name,
                    label,
                    entrant.command,
                    now(),
                    now() if known else None,
                    FRESH.mu,
                    FRESH.sigma,
                    entrant.name,
                    label,
                ),
            )
            row = league.db.execute(
                "SELECT id FROM entrants WHERE name = ? AND version = ?", (entrant.name, label)
            ).fetchone()
            versions[entrant.name] = league.entrant(row[0])
            if cursor.rowcount:
                added.append(versions[entrant.name].label)
        for key, result in located:
            first, second = versions[result.first], versions[result.second]
            league.record_in_transaction(result, first, second, None, source, key)
            recorded += 1
    return Imported(recorded, already, added)
