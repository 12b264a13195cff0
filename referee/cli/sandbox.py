"""``referee sandbox``: probe this machine's sandbox."""

from __future__ import annotations

from typing import Annotated

import typer

from referee.cli.app import app
from referee.cli.exits import FAILED, OK
from referee.terminal.escapes import json_text


@app.command("sandbox")
def sandbox_command(
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the layers as a JSON list on stdout.")
    ] = False,
) -> None:
    """Probe this machine's sandbox: each layer, whether it works here and why not, and what
    it protects. A real sandboxed child tries what each layer forbids.

    Exits 0 when every layer a competition needs works (--sandbox strict would start), 1 if
    not.
    """
    from rich.markup import escape
    from rich.table import Table

    from referee.sandbox.layers import LAYERS
    from referee.sandbox.probe import doctor
    from referee.terminal.tables import people_console, print_table

    rows = doctor()
    ready = all(row.works for row in rows if LAYERS[row.layer].required)
    if json_output:
        typer.echo(json_text({"strict_ready": ready, "layers": rows}))
    else:
        table = Table(title="Sandbox layers on this machine", header_style="bold")
        for column in ("layer", "works", "detail", "protects"):
            table.add_column(column)
        for row in rows:
            table.add_row(
                row.layer,
                "[green]yes[/]" if row.works else "[red]no[/]",
                escape(row.detail),
                escape(row.protects),
            )
        print_table(people_console(), table)
        typer.echo("--sandbox strict: ready" if ready else "--sandbox strict would refuse to start")
    raise typer.Exit(OK if ready else FAILED)
