"""``league report``: the league's page, in the tournament report's style — the standings and
head to head (``standings``, the one source), each version's rating over time, and the most
recent matches linked to their viewer pages (written beside their logs, after verifying
them, as the tournament report does)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import msgspec

from referee.league.standings import history_all, log_path, spread, standings
from referee.league.store import League
from referee.pages.page import page, write_page
from referee.pages.palette import colours
from referee.pages.plots import intervals, lines
from referee.pages.report_page import match_rows
from referee.pages.time_plot import decision_times, spreads, time_chart
from referee.running.results import MatchResult
from referee.tally.tally import Tally

#: The most recent matches the page lists, each with its viewer page.
RECENT: Final = 200
#: Points each version's rating line is drawn with at most.
LINE_POINTS: Final = 300


def write_report(league: League, out: Path, recent: int = RECENT) -> list[str]:
    table = standings(league)
    labels = [f"{row.name}@{row.version}" for row in table.standings]
    series = [
        (label, [(float(p.match), p.rating) for p in spread(points, LINE_POINTS)])
        for label, points in history_all(league).items()
        if points
    ]
    palette = colours([*labels, *(label for label, _ in series)])  # one per version, everywhere
    rating_plot = lines(
        series, "matches recorded in the league", "rating (openskill mu)", palette=palette
    )
    rate_plot = intervals(
        [
            (f"{row.name}@{row.version}", row.win_rate_low, row.win_rate, row.win_rate_high)
            for row in table.standings
            if row.matches
        ],
        palette,
    )
    decoder = msgspec.json.Decoder(MatchResult)
    latest = [  # each with its log where it is now (a league moved: its logs folder)
        msgspec.structs.replace(result, log=str(log_path(league, result.log)))
        for result in (
            decoder.decode(blob)
            for (blob,) in league.db.execute(
                "SELECT result FROM matches ORDER BY id DESC LIMIT ?", (recent,)
            )
        )
    ]
    commands = {e.label: e.command for e in league.entrants()}
    for e in league.entrants():  # an imported tournament's matches name the entrant alone
        commands.setdefault(e.name, e.command)
    tally = Tally()  # the decision times of the matches listed, from the logs read for them
    rows = match_rows(latest, league.path, out, commands, tally=tally)
    timed = spreads(decision_times(tally), labels)
    text = page(
        "league",
        css="report",
        title=f"Texas 42 league — {league.path.name}",
        table=table,
        names=labels,
        rate_plot=rate_plot,
        rating_plot=rating_plot,
        palette=palette,
        time_plot=time_chart(timed, palette) if timed else None,
        rows=rows,
        recent=len(latest),
    )
    write_page(out, text)
    pages = sum(row.page is not None for row in rows)
    return [
        f"wrote {out}: {table.recorded} matches, the last {len(latest)} listed"
        f" ({pages} viewer pages)"
    ]
