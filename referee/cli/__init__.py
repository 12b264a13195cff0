"""The ``referee`` command line: one module per command, each registering itself on ``app``
(in this order, which is the order of ``referee --help``)."""

# isort: off
from referee.cli import help as _help  # noqa: F401  (typer's help, mended before any command)
from referee.cli.app import app
from referee.cli import match, play, bots, check_bot, replay, tournament, league, report, ask, stats  # noqa: F401
from referee.cli import arena, dataset  # noqa: F401
from referee.cli import bench, sandbox, schema, strong  # noqa: F401

# isort: on

__all__ = ["app"]
