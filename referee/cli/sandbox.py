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
    it protects. A real sandboxed child tries what each layer forbids. First, whether this
    install's Python lets each seat have a uid of its own, and if not the commands that fix it.

    Exits 0 when every layer a competition needs works for the bundled bots (--sandbox strict
    would start), 1 if not.
    """
    from rich.markup import escape
    from rich.table import Table

    from referee.sandbox.layers import LAYERS
    from referee.sandbox.probe import doctor
    from referee.sandbox.venv import fix
    from referee.terminal.tables import people_console, print_table

    mend = fix()
    rows = doctor()
    machine_ready = all(row.works for row in rows if LAYERS[row.layer].required)
    ready = machine_ready and mend is None
    if json_output:
        typer.echo(json_text({"strict_ready": ready, "venv_fix": mend, "layers": rows}))
    else:
        if mend is not None:
            typer.echo(f"This install: {mend.problem}.")
            typer.echo("The fix: a venv made from a Python every user can run, then its referee:")
            for line in mend.commands:
                typer.echo(f"  {line}")
            typer.echo("")
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
        if ready:
            typer.echo("--sandbox strict: ready")
        elif machine_ready:
            typer.echo(
                "--sandbox strict would refuse the bundled bots and every bot run with this"
                " install's Python: run the commands above"
            )
        else:
            typer.echo("--sandbox strict would refuse to start")
    raise typer.Exit(OK if ready else FAILED)
