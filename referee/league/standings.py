"""What the league's database says: the standings (ratings kept up to date by each result,
counts summed by SQLite, so a hundred thousand matches answer at once), each version's
rating over time, and whether every recorded log is still the one recorded.

Every function here only reads: it runs beside ``league run`` (WAL) without blocking it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import msgspec

from referee.errors import LogError
from referee.league.store import League
from referee.match.stderr_lines import StderrSummary, StderrTotals
from referee.record.log import read_log
from referee.rules.tiles import Seat
from referee.stats import wilson_interval


class LeagueStanding(msgspec.Struct, frozen=True):
    """One entrant version's line."""

    name: str
    version: str
    active: bool
    #: openskill's mean and uncertainty; the standings are ordered by ``rating_ordinal``,
    #: mu - 3 sigma, the low end of the interval shown, mu ± 3 sigma (``rating_low`` to
    #: ``rating_high``): never another interval than the one that orders.
    rating: float
    rating_sigma: float
    rating_low: float
    rating_high: float
    rating_ordinal: float
    #: Matches played (``played``; ``matches`` is the same count, its older name), of them
    #: won and unfinished; void matches (bots of both sides failed to start) apart.
    matches: int
    played: int
    wins: int
    unfinished: int
    void: int
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    #: Marks won minus marks conceded over the matches played; and a match, over those
    #: that ended without a forfeit (None if none did): a forfeited match's marks are those
    #: on the board when a bot failed, so a version that forfeits early would look ahead.
    mark_difference: int
    marks_per_match: float | None
    #: Faults of its seats (timeouts, crashes, illegal plays, ...; refused answers are not
    #: faults) and the matches it forfeited, void ones included.
    faults: int
    forfeits: int


class LeagueTable(msgspec.Struct, frozen=True):
    standings: list[LeagueStanding]
    #: head_to_head[a][b]: a's score against b (a win 1, an unfinished match 0.5), and the
    #: matches they played; labels ``name@version``.
    head_to_head: dict[str, dict[str, float]]
    head_to_head_matches: dict[str, dict[str, int]]
    recorded: int
    #: What each version's bots wrote on stderr, faults or not (versions that wrote nothing
    #: left out), by label.
    stderr: dict[str, StderrTotals] = msgspec.field(default_factory=dict)


def standings(league: League, include_retired: bool = True) -> LeagueTable:
    entrants = league.entrants()
    labels = {e.id: e.label for e in entrants}
    counts: dict[int, list[float]] = {e.id: [0, 0, 0, 0, 0.0, 0, 0, 0, 0, 0] for e in entrants}
    h2h: dict[str, dict[str, float]] = {}
    h2h_n: dict[str, dict[str, int]] = {}
    query = """
        SELECT first, second, winner, void, count(*), sum(mark_difference), sum(first_faults),
            sum(second_faults), sum(forfeit = first), sum(forfeit = second),
            sum(forfeit IS NULL), sum(CASE WHEN forfeit IS NULL THEN mark_difference END)
        FROM matches GROUP BY first, second, winner, void
    """
    for row in league.db.execute(query):
        first, second, winner, void, n, marks = row[:6]
        for me, other, sign, (faults, forfeits) in (
            (first, second, 1, (row[6], row[8])),
            (second, first, -1, (row[7], row[9])),
        ):
            counts[me][6] += faults
            counts[me][7] += forfeits or 0
            tally = counts[me]
            if void:
                tally[3] += n
                continue
            score = 0.5 if winner is None else float(winner == me)
            tally[0] += n
            tally[1] += n if winner == me else 0
            tally[2] += n if winner is None else 0
            tally[4] += score * n
            tally[5] += sign * marks
            tally[8] += row[10]
            tally[9] += sign * (row[11] or 0)
            a, b = labels[me], labels[other]
            h2h.setdefault(a, {}).setdefault(b, 0.0)
            h2h[a][b] += score * n
            h2h_n.setdefault(a, {}).setdefault(b, 0)
            h2h_n[a][b] += n
    table = []
    for e in entrants:
        if e.retired is not None and not include_retired:
            continue
        n, wins, unfinished, void, score, marks, faults, forfeits, clean, clean_marks = counts[e.id]
        low, high = wilson_interval(score, int(n))
        table.append(
            LeagueStanding(
                name=e.name,
                version=e.version,
                active=e.retired is None,
                rating=e.mu,
                rating_sigma=e.sigma,
                rating_low=e.ordinal,
                rating_high=e.mu + 3 * e.sigma,
                rating_ordinal=e.ordinal,
                matches=int(n),
                played=int(n),
                wins=int(wins),
                unfinished=int(unfinished),
                void=int(void),
                win_rate=score / n if n else 0.0,
                win_rate_low=low,
                win_rate_high=high,
                mark_difference=int(marks),
                marks_per_match=clean_marks / clean if clean else None,
                faults=int(faults),
                forfeits=int(forfeits),
            )
        )
    table.sort(key=lambda s: (-s.rating_ordinal, s.name, s.version))
    shown = {f"{row.name}@{row.version}" for row in table}
    written = {label: totals for label, totals in stderr_totals(league).items() if label in shown}
    return LeagueTable(table, h2h, h2h_n, league.match_count(), written)


def stderr_totals(league: League) -> dict[str, StderrTotals]:
    """Each version's stderr over its matches (the first entrant holds A+C), by label: read
    from the matches' ``stderr`` column through its index, never from the results' blobs."""
    labels = {e.id: e.label for e in league.entrants()}
    decoder = msgspec.json.Decoder(dict[Seat, StderrSummary])
    totals: dict[str, StderrTotals] = {}
    query = "SELECT first, second, stderr FROM matches WHERE stderr IS NOT NULL"
    for first, second, column in league.db.execute(query):
        stderr = decoder.decode(column)
        for side, entrant in (("AC", first), ("BD", second)):
            written = [summary for seat, summary in stderr.items() if seat in side]
            totals.setdefault(labels[entrant], StderrTotals()).add(written)
    return {label: total for label, total in totals.items() if total.matches}


class RatingPoint(msgspec.Struct, frozen=True):
    """A version's rating after one of its matches: the league's match count then."""

    match: int
    recorded: str
    rating: float
    sigma: float


def history(league: League, name: str) -> dict[str, list[RatingPoint]]:
    """Each version of ``name`` (by label): its rating after each of its matches."""
    versions = [e for e in league.entrants() if e.name == name]
    out: dict[str, list[RatingPoint]] = {}
    for e in versions:
        rows = league.db.execute(
            "SELECT ratings.match, matches.recorded, ratings.mu, ratings.sigma FROM ratings"
            " JOIN matches ON matches.id = ratings.match WHERE ratings.entrant = ?"
            " ORDER BY ratings.match",
            (e.id,),
        )
        out[e.label] = [RatingPoint(*row) for row in rows]
    return out


def spread(points: list[RatingPoint], count: int) -> list[RatingPoint]:
    """At most ``count`` of a history's points, evenly spread, its first and last among
    them: what a table or a plot of it shows."""
    if len(points) <= count:
        return points
    step = (len(points) - 1) / (count - 1)
    return [points[round(k * step)] for k in range(count)]


def history_all(league: League) -> dict[str, list[RatingPoint]]:
    """Every version's rating after each of its matches (one query)."""
    labels = {e.id: e.label for e in league.entrants()}
    out: dict[str, list[RatingPoint]] = {label: [] for label in labels.values()}
    rows = league.db.execute(
        "SELECT ratings.entrant, ratings.match, matches.recorded, ratings.mu, ratings.sigma"
        " FROM ratings JOIN matches ON matches.id = ratings.match ORDER BY ratings.match"
    )
    for entrant, *point in rows:
        out[labels[entrant]].append(RatingPoint(*point))
    return out


@dataclass(frozen=True)
class LogProblem:
    match_id: str
    log: str
    problem: str


def log_path(league: League, recorded: str) -> Path:
    """A recorded log's path: as recorded, else in the league's logs folder (moved)."""
    path = Path(recorded)
    if path.is_file():
        return path
    return league.logs / path.name


def verify_logs(league: League) -> tuple[int, list[LogProblem]]:
    """Each recorded match's log, read and held to the digest recorded with it: (matches
    checked, the problems)."""
    problems: list[LogProblem] = []
    checked = 0
    for match_id, log, digest in league.db.execute(
        "SELECT match_id, log, log_digest FROM matches ORDER BY id"
    ).fetchall():
        checked += 1
        path = log_path(league, log)
        if not path.is_file():
            problems.append(LogProblem(match_id, log, "the log is missing"))
            continue
        try:
            head = read_log(path).head
        except (OSError, LogError, ValueError) as exc:
            problems.append(LogProblem(match_id, log, f"the log cannot be read: {exc}"))
            continue
        if head != digest:
            problems.append(
                LogProblem(match_id, log, f"its digest is {head[:16]}…, not {digest[:16]}…")
            )
    return checked, problems
