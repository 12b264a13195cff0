"""``referee schema``: the protocol's JSON Schemas and example transcript."""

from __future__ import annotations

from pathlib import Path
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
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="The folder to write (or with --check, to compare). Default: the clone's"
            " protocol/; an installed referee checks the copies it ships and writes only here.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write the JSON Schemas of the protocol and the replay log, the example transcript (from a
    real match) and the conformance vectors (protocol/conformance/) into protocol/."""
    from referee import bundled
    from referee.spec.schema import SCHEMA_FILES, render
    from referee.spec.transcript import TRANSCRIPT_FILE, transcript, untimed
    from referee.spec.vectors import vector_files

    folder = out or (bundled.PROTOCOL if check else bundled.CLONE_PROTOCOL)
    if folder is None:  # the installed copies are pip's: a user writes the files elsewhere
        raise fail(
            f"this referee is installed ({bundled.PROTOCOL}), not run from a clone:"
            " give --out DIR to write the files there, or --check to compare its copies"
        )
    if folder.exists() and not folder.is_dir():
        raise fail(f"--out {folder}: not a directory")
    files = {folder / name: render(make()).encode() for name, make in SCHEMA_FILES.items()}
    files[folder / TRANSCRIPT_FILE] = transcript()
    files.update((folder / name, text.encode()) for name, text in vector_files().items())
    stale = []
    for path, content in files.items():
        if path.exists() and untimed(path.read_bytes()) == untimed(content):
            continue  # (the schemas hold no time_ms: for them this is a plain comparison)
        stale.append(str(path.relative_to(folder)))
        if not check:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)
            except OSError as error:
                raise fail(f"cannot write {path}: {error.strerror or error}") from None
            typer.echo(f"wrote {path}")
    if check and stale:
        raise fail(f"stale: {', '.join(stale)}; run 'referee schema' to regenerate")
