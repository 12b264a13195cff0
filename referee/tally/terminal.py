"""A summary on the terminal: its tables as rich tables, printed whole by
``referee.terminal.tables.print_table`` (no word cut off a terminal; on one, each column at
least its longest word). Every cell goes through ``markup``: names come from bots and results
files.
"""

from __future__ import annotations

from typing import Final

from rich.console import Console
from rich.table import Table

from referee.tally.summary import Summary
from referee.tally.tables import TableView, inputs_lines, tables
from referee.terminal.escapes import markup
from referee.terminal.tables import print_table

#: Logs not counted listed one by one on the terminal; ``--json`` lists them all.
SHOWN_SKIPPED: Final = 10


def rich_table(view: TableView) -> Table:
    table = Table(
        title=view.title,
        caption=view.note or None,
        caption_justify="left",
        header_style="bold",
        title_justify="left",
    )
    for column, numeric in zip(view.columns, view.numeric, strict=True):
        table.add_column(
            markup(column),
            justify="right" if numeric else "left",
            overflow="fold",
        )
    for group in view.groups:
        for index, row in enumerate(group):
            table.add_row(*map(markup, row), end_section=index == len(group) - 1)
    return table


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
    for view in tables(summary):
        out.print()
        print_table(out, rich_table(view))
