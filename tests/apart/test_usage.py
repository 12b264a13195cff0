"""Seats apart asked for wrongly: each a usage mistake in one line (exit 2) that says what to
give, before any log, results file or cluster is made; and the option's value may be left
out (``--seats-apart`` alone is ``hosts``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.bot_commands import RANDOM_BOT
from typer.testing import CliRunner

from referee.apart.placement import LOCAL_IS_ONE_HOST
from referee.cli import app
from referee.cli.options import given_values

RUNNER = CliRunner()
#: Two entrants, so that a tournament gets as far as its seats.
TWO = ["--bot", f"a={RANDOM_BOT}", "--bot", f"b={RANDOM_BOT}"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["match", "--seats-apart"], "--seats-apart needs a Dask cluster"),
        (["match", "--dask", "local"], "--dask plays a match with its seats apart"),
        (["match", "--dask", "local", "--seats-apart"], LOCAL_IS_ONE_HOST),
        (["tournament", *TWO, "--seats-apart=workers", "--seeds", "1"], "needs a Dask cluster"),
        (
            ["tournament", *TWO, "--dask", "local", "--seats-apart", "--seeds", "1"],
            LOCAL_IS_ONE_HOST,
        ),
        (["league", "run", "x.db", "--seats-apart"], "--seats-apart needs a Dask cluster"),
        (["bench", "apart", "--dask", "local", "--seats-apart=hosts"], LOCAL_IS_ONE_HOST),
    ],
)
def test_a_wrong_combination_is_one_line(
    args: list[str], said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = RUNNER.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert said in result.output and result.output.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # no log, no results file


def test_a_tournament_file_may_seat_apart_but_not_without_a_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "t.toml"
    entrants = "".join(f'[[bot]]\nname = "{n}"\ncommand = "{RANDOM_BOT}"\n' for n in "ab")
    config.write_text('seeds = 1\nseats_apart = "workers"\n' + entrants)
    result = RUNNER.invoke(app, ["tournament", str(config)])
    assert result.exit_code == 2 and "needs a Dask cluster" in result.output
    config.write_text('seeds = 1\nseats_apart = "anywhere"\n' + entrants)
    result = RUNNER.invoke(app, ["tournament", str(config)])
    assert result.exit_code == 2 and "seats_apart" in result.output


@pytest.mark.parametrize(
    ("given", "read"),
    [
        (["--seats-apart"], ["--seats-apart=hosts"]),
        (["--seats-apart", "--dask", "x"], ["--seats-apart=hosts", "--dask", "x"]),
        (["--seats-apart", "workers"], ["--seats-apart", "workers"]),
        (["--seats-apart", "bot.py"], ["--seats-apart=hosts", "bot.py"]),
        (["--seats-apart=workers"], ["--seats-apart=workers"]),
        (["--", "--seats-apart"], ["--", "--seats-apart"]),
    ],
)
def test_the_value_may_be_left_out(given: list[str], read: list[str]) -> None:
    assert given_values(given) == read
