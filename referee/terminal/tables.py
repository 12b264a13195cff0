"""Readable output for people (``--json`` is for scripts): the one console, and tables printed
whole, on a terminal and off it.

Off a terminal — a pipe, a file, a CI log — rich would cut a table to 80 columns (headers
``entra…``, commands ``random_b…``). Here a table is printed at its natural width there, and
on a terminal its columns wrap without cutting a header word.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table as RichTable

from referee.terminal.escapes import markup


def counts_text(counts: Mapping[str, int]) -> str:
    """Counts by kind in words: ``timeout 2, crashed 1`` ("" for none)."""
    return ", ".join(f"{kind} {n}" for kind, n in counts.items())


def head_to_head_grid(
    scores: Mapping[str, Mapping[str, float]],
    played: Mapping[str, Mapping[str, int]],
    names: list[str],
) -> RichTable:
    """The head-to-head table of a tournament or a league: each row's score against each
    column over the matches they played (a pair that never met is left blank)."""
    grid = RichTable(title="Head to head (row's score against column)", header_style="bold")
    grid.add_column("")
    for name in names:
        grid.add_column(markup(name), justify="right")
    for row in names:
        cells = []
        for column in names:
            if row == column:
                cells.append("—")
                continue
            count = played.get(row, {}).get(column, 0)
            score = scores.get(row, {}).get(column, 0.0)
            cells.append(f"{score:g}/{count}" if count else "")
        grid.add_row(markup(row), *cells)
    return grid


def people_console(stderr: bool = False) -> Console:
    """A console for people. Names, commands, details and paths come from bots and users:
    they are printed through ``markup`` (escaped controls, no rich markup), and emoji codes
    (``:x:``) stay as written."""
    return Console(stderr=stderr, soft_wrap=True, emoji=False)


def print_table(console: Console, table: RichTable) -> None:
    """Print ``table`` with every word whole where it can be.

    Off a terminal it is printed at its natural width, one line a row, so that a file or a
    pipe gets every header and command. On a terminal each column is given at least its
    longest word (its header's included) and the room left is shared by what each would take
    more — rich alone narrows the widest columns, words or not, and cuts them (``entra…``);
    on a terminal narrower than the words, cells fold but header words stay whole, and
    narrower than those, everything folds at its edge (a table wider than the window would
    be broken by the terminal itself).
    """
    least, most, overhead = _measures(console, table)
    for column in table.columns:
        if column.overflow == "ellipsis":
            column.overflow = "fold"
    if not console.is_terminal:
        width = console.width
        console.width = max(width, sum(most) + overhead)
        try:
            console.print(table)
        finally:
            console.width = width
        return
    room = console.width - overhead
    headers = [max(map(len, str(column.header).split() or [""])) for column in table.columns]
    if sum(most) > room:  # too wide: the words whole if they fit, else the headers' words
        for low in (least, headers):
            if sum(low) <= room:
                _allot(table, low, most, room)
                break
    console.print(table)


def _allot(table: RichTable, least: list[int], most: list[int], room: int) -> None:
    """Each column at least ``least`` wide, the rest of ``room`` shared by what each would
    take more."""
    spare = room - sum(least)
    wanting = [high - low for low, high in zip(least, most, strict=True)]
    total = sum(wanting) or 1
    for column, low, want in zip(table.columns, least, wanting, strict=True):
        column.width = low + spare * want // total


def _measures(console: Console, table: RichTable) -> tuple[list[int], list[int], int]:
    """Each column's narrowest width (its longest word) and widest (its longest cell), and
    the cells a row takes beyond its columns' (padding and rules)."""
    options = console.options.update_width(1 << 16)
    least: list[int] = []
    most: list[int] = []
    for column in table.columns:
        low, high = 1, 1
        for cell in (column.header, *column.cells):
            measured = Measurement.get(console, options, cell)
            low, high = max(low, measured.minimum), max(high, measured.maximum)
        least.append(low)
        most.append(high)
    natural = Measurement.get(console, options, table).maximum
    return least, most, max(0, natural - sum(most))
