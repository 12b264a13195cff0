"""Running a command's work in the foreground: Ctrl-C, SIGTERM and SIGHUP end it cleanly
(its bots closed, exit 130, 143, 129, one line saying what was left), and a failure of the
referee itself exits 1 with one line — never a traceback. ``match``, ``play`` and ``ask``
share it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import typer

from referee.cli.exits import FAILED, by_signal
from referee.terminal.escapes import shown

T = TypeVar("T")


def in_foreground(main: Callable[[], Awaitable[T]], left: str, path: Path | None = None) -> T:
    """Run ``main`` (under ``match.runner.in_foreground``'s signals); ``left`` says what an
    interruption leaves ("the log ends there: LOG"); ``path`` names the file an error of the
    system is about when it names none."""
    from functools import partial

    import trio

    from referee.match import runner

    try:
        return trio.run(partial(runner.in_foreground, main))
    except BaseException as exc:
        if runner.interrupted(exc):
            cause = runner.leaf_error(exc)
            signum = cause.signum if isinstance(cause, runner.Terminated) else 2
            typer.echo(f"referee: interrupted; {left}", err=True)
            raise typer.Exit(by_signal(signum)) from None
        cause = runner.leaf_error(exc)
        if isinstance(cause, OSError) and (cause.filename or path):
            typer.echo(f"referee: {cause.strerror or cause}: {cause.filename or path}", err=True)
        else:
            typer.echo(
                f"referee: internal error: {type(cause).__name__}: {shown(str(cause))}", err=True
            )
        raise typer.Exit(FAILED) from None
