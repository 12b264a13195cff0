"""The league's tables for people (``--json`` gives the same data whole)."""

from __future__ import annotations

from rich.table import Table

from referee.league.standings import LeagueTable, RatingPoint, spread
from referee.match.display import stderr_table
from referee.stats import marks_per_match
from referee.terminal.escapes import markup
from referee.terminal.tables import head_to_head_grid, people_console, print_table

#: Points of a version's history a table shows (evenly spread, the last always).
HISTORY_ROWS = 12


def standings_grid(table: LeagueTable) -> Table:
    """One row a version, ordered by the rating's low end (mu - 3 sigma), which the rating
    column shows (mu ± 3 sigma); its failures beside its results."""
    grid = Table(
        title=f"Standings ({table.recorded} matches recorded; ordered by rating μ - 3σ)",
        header_style="bold",
    )
    columns = (
        "entrant", "version", "rating μ ± 3σ", "played", "wins", "win rate (95% CI)",
        "marks/match", "faults", "forfeits", "void", "playing",
    )  # fmt: skip
    for column in columns:
        grid.add_column(column, justify="left" if column in ("entrant", "version") else "right")
    for row in table.standings:
        grid.add_row(
            markup(row.name),
            markup(row.version),
            f"{row.rating:.1f} ± {3 * row.rating_sigma:.1f}",
            str(row.played),
            str(row.wins),
            f"{row.win_rate:.1%} ({row.win_rate_low:.1%} to {row.win_rate_high:.1%})"
            if row.played
            else "—",
            marks_per_match(row.marks_per_match),
            str(row.faults),
            str(row.forfeits),
            str(row.void),
            "yes" if row.active else "retired",
        )
    return grid


def print_standings(table: LeagueTable) -> None:
    out = people_console()
    print_table(out, standings_grid(table))
    if len(table.standings) > 1:
        labels = [f"{row.name}@{row.version}" for row in table.standings]
        print_table(out, head_to_head_grid(table.head_to_head, table.head_to_head_matches, labels))
    if table.stderr:
        matches = {f"{row.name}@{row.version}": row.matches + row.void for row in table.standings}
        print_table(out, stderr_table(table.stderr, matches))


def print_history(versions: dict[str, list[RatingPoint]]) -> None:
    out = people_console()
    for label, points in versions.items():
        grid = Table(title=f"{label}: {len(points)} matches rated", header_style="bold")
        for column in ("after league match", "recorded", "rating μ ± 3σ"):
            grid.add_column(column, justify="right")
        for point in spread(points, HISTORY_ROWS):
            grid.add_row(
                str(point.match), point.recorded[:19], f"{point.rating:.1f} ± {3 * point.sigma:.1f}"
            )
        print_table(out, grid)
