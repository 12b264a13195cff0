"""A summary on the terminal: rich tables that never cut a word off a terminal.

Rich narrows a table too wide for the page by taking width from its widest columns, words or
not, and cuts what no longer fits. Here the columns are given their widths: each at least its
longest word (its header's included), the room left shared by what each would take more.
Off a terminal (a file, a pipe) the page is as wide as those words need (80 columns at
least), so every header and word is whole and cells wrap between words; on a terminal
narrower than that, cells fold at the window's edge. Every cell goes through ``markup``:
names come from bots and results files.
"""

from __future__ import annotations

from typing import Final

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from referee.tally.summary import Summary
from referee.tally.tables import TableView, inputs_lines, tables
from referee.terminal import markup, shown

#: Logs not counted listed one by one on the terminal; ``--json`` lists them all.
SHOWN_SKIPPED: Final = 10


def _texts(view: TableView) -> list[list[str]]:
    """Each column's header and cells, as they will be drawn."""
    rows = [row for group in view.groups for row in group]
    return [[shown(text) for text in (column, *(row[i] for row in rows))]
            for i, column in enumerate(view.columns)]  # fmt: skip


def column_widths(view: TableView, page: int, stretch: bool) -> list[int] | None:
    """Each column's width for a page ``page`` cells wide (None: each at its widest fits);
    ``stretch``: the page may grow to fit every column's longest word."""
    texts = _texts(view)
    least = [max([cell_len(word) for text in column for word in text.split()] or [1])
             for column in texts]  # fmt: skip
    most = [max(least[i], *(cell_len(text) for text in column)) for i, column in enumerate(texts)]
    room = page - (3 * len(texts) + 1)  # a space either side of each cell, and the rules
    if sum(most) <= room:
        return None
    if stretch:
        room = max(room, sum(least))
    elif sum(least) > room:
        return None  # rich folds what does not fit the window
    spare, wanting = room - sum(least), [m - n for m, n in zip(most, least, strict=True)]
    total = sum(wanting)
    if not total:  # every column as narrow as its longest word: nothing to share
        return least
    return [n + spare * want // total for n, want in zip(least, wanting, strict=True)]


def rich_table(view: TableView, widths: list[int] | None) -> Table:
    table = Table(
        title=view.title,
        caption=view.note or None,
        caption_justify="left",
        header_style="bold",
        title_justify="left",
    )
    for index, (column, numeric) in enumerate(zip(view.columns, view.numeric, strict=True)):
        table.add_column(
            markup(column),
            justify="right" if numeric else "left",
            overflow="fold",
            width=None if widths is None else widths[index],
        )
    for group in view.groups:
        for index, row in enumerate(group):
            table.add_row(*map(markup, row), end_section=index == len(group) - 1)
    return table


def print_table(console: Console, view: TableView, page: int) -> None:
    """Print ``view`` on a page ``page`` cells wide, wider off a terminal if its words need."""
    widths = column_widths(view, page, stretch=not console.is_terminal)
    needed = page if widths is None else sum(widths) + 3 * len(widths) + 1
    console.width = max(page, needed)  # print's own width cannot go past the console's
    console.print(rich_table(view, widths))


def print_summary(summary: Summary, out: Console, err: Console) -> None:
    """The tables on ``out``; what was counted too, and each log that was not on ``err``."""
    lines = inputs_lines(summary)
    out.print(markup(lines[0]))
    skipped = lines[2:]
    if skipped:
        err.print(markup(lines[1]))
        for line in skipped[:SHOWN_SKIPPED]:
            err.print(markup(line))
        if len(skipped) > SHOWN_SKIPPED:
            err.print(f"  … and {len(skipped) - SHOWN_SKIPPED} more (--json lists them all)")
    page = out.width
    for view in tables(summary):
        out.print()
        print_table(out, view, page)
