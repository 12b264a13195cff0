"""The league's tables for people (``--json`` gives the same data whole)."""

from __future__ import annotations

from rich.table import Table

from referee.display import people_console, print_table
from referee.league.standings import LeagueTable, RatingPoint
from referee.terminal import markup

#: Points of a version's history a table shows (evenly spread, the last always).
HISTORY_ROWS = 12


def standings_grid(table: LeagueTable) -> Table:
    grid = Table(title=f"Standings ({table.recorded} matches recorded)", header_style="bold")
    columns = (
        "entrant", "version", "rating (95%)", "matches", "wins", "win rate (95% CI)",
        "marks ±", "void", "playing",
    )  # fmt: skip
    for column in columns:
        grid.add_column(column, justify="left" if column in ("entrant", "version") else "right")
    for row in table.standings:
        half = (row.rating_high - row.rating_low) / 2
        grid.add_row(
            markup(row.name),
            markup(row.version),
            f"{row.rating:.1f} ± {half:.1f}",
            str(row.matches),
            str(row.wins),
            f"{row.win_rate:.1%} ({row.win_rate_low:.1%} to {row.win_rate_high:.1%})"
            if row.matches
            else "—",
            f"{row.mark_difference:+d}",
            str(row.void),
            "yes" if row.active else "retired",
        )
    return grid


def head_to_head_grid(table: LeagueTable) -> Table:
    labels = [f"{row.name}@{row.version}" for row in table.standings]
    grid = Table(title="Head to head (row's score against column)", header_style="bold")
    grid.add_column("")
    for label in labels:
        grid.add_column(markup(label), justify="right")
    for a in labels:
        cells = []
        for b in labels:
            n = table.head_to_head_matches.get(a, {}).get(b, 0)
            score = table.head_to_head.get(a, {}).get(b, 0.0)
            cells.append("—" if a == b else f"{score:g}/{n}" if n else "")
        grid.add_row(markup(a), *cells)
    return grid


def print_standings(table: LeagueTable) -> None:
    out = people_console()
    print_table(out, standings_grid(table))
    if len(table.standings) > 1:
        print_table(out, head_to_head_grid(table))


def print_history(versions: dict[str, list[RatingPoint]]) -> None:
    out = people_console()
    for label, points in versions.items():
        grid = Table(title=f"{label}: {len(points)} matches rated", header_style="bold")
        for column in ("after league match", "recorded", "rating (95%)"):
            grid.add_column(column, justify="right")
        for point in sampled(points, HISTORY_ROWS):
            grid.add_row(
                str(point.match), point.recorded[:19], f"{point.rating:.1f} ± {2 * point.sigma:.1f}"
            )
        print_table(out, grid)


def sampled(points: list[RatingPoint], count: int) -> list[RatingPoint]:
    """At most ``count`` points, evenly spread, the first and the last among them."""
    if len(points) <= count:
        return points
    step = (len(points) - 1) / (count - 1)
    return [points[round(k * step)] for k in range(count)]
