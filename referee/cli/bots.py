"""``referee bots``: the bundled bots, by the names a bot command may give them."""

from __future__ import annotations

from typing import Annotated

import typer

from referee.cli.app import app
from referee.terminal.escapes import json_text


@app.command("bots")
def bots_command(
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the bots as a JSON list on stdout.")
    ] = False,
) -> None:
    """List the bots that come with the referee: name, language, how it plays, and the command
    that runs it on this install.

    Any bot command may name one instead ('referee match bundled:heuristic bundled:random',
    a tournament's --bot or TOML command, 'league add', check-bot): the log records the
    command it stands for.
    """
    import shlex

    from rich.markup import escape
    from rich.table import Table

    from referee.bundled import CATALOGUE, PREFIX
    from referee.terminal.tables import people_console, print_table

    if json_output:
        typer.echo(
            json_text(
                [
                    {
                        "name": bot.name,
                        "bot": PREFIX + bot.name,
                        "language": bot.language,
                        "about": bot.about,
                        "command": shlex.join(bot.argv()),
                        "argv": bot.argv(),
                    }
                    for bot in CATALOGUE
                ]
            )
        )
        return
    table = Table(title="Bundled bots", header_style="bold")
    for column in ("bot", "language", "plays", "command"):
        table.add_column(column)
    for bot in CATALOGUE:
        table.add_row(
            PREFIX + bot.name, bot.language, escape(bot.about), escape(shlex.join(bot.argv()))
        )
    print_table(people_console(), table)
