"""``referee schema``: the protocol's JSON Schemas and example transcript."""

from __future__ import annotations

from typing import Annotated

import typer

from referee.cli.app import app
from referee.cli.options import (
    fail,
)


@app.command("schema")
def schema_command(
    check: Annotated[
        bool, typer.Option("--check", help="Only check that the files are up to date.")
    ] = False,
) -> None:
    """Write the JSON Schemas of the protocol and the replay log, and the example transcript
    (from a real match), into protocol/."""
    from referee.spec.schema import PROTOCOL_DIR, SCHEMA_FILES, render
    from referee.spec.transcript import TRANSCRIPT, transcript, untimed

    files = {PROTOCOL_DIR / name: render(make()).encode() for name, make in SCHEMA_FILES.items()}
    files[TRANSCRIPT] = transcript()
    stale = []
    for path, content in files.items():
        if path.exists() and untimed(path.read_bytes()) == untimed(content):
            continue  # (the schemas hold no time_ms: for them this is a plain comparison)
        stale.append(path.name)
        if not check:
            path.write_bytes(content)
            typer.echo(f"wrote {path}")
    if check and stale:
        raise fail(f"stale: {', '.join(stale)}; run 'referee schema' to regenerate")
