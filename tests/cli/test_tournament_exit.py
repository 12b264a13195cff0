"""The tournament command's exit status says how the tournament ended: 0 when every match
was played, 1 when some were not (``--resume`` would play them), 128 + the signal that
stopped it. The driver's ``Outcome`` is replaced here; the real endings are played in
tests/tournament."""

from __future__ import annotations

import signal

import pytest
from support.bot_commands import HEURISTIC_BOT, RANDOM_BOT
from typer.testing import CliRunner

import referee.tournament.driver
from referee.cli import app
from referee.cli.exits import FAILED, OK, by_signal
from referee.tournament.driver import Outcome

ENTRANTS = ["--bot", f"a={RANDOM_BOT}", "--bot", f"b={HEURISTIC_BOT}", "--seeds", "1"]


@pytest.mark.parametrize(
    ("outcome", "status"),
    [
        (Outcome(), OK),
        (Outcome(not_played=["a~b~s0~1"]), FAILED),
        (Outcome(interrupted=signal.SIGINT), 130),
        (Outcome(interrupted=signal.SIGTERM), by_signal(signal.SIGTERM)),
    ],
)
def test_the_exit_status_follows_the_outcome(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object, outcome: Outcome, status: int
) -> None:
    monkeypatch.setattr(referee.tournament.driver, "run", lambda *args, **kwargs: outcome)
    result = CliRunner().invoke(app, ["tournament", *ENTRANTS, "--results", f"{tmp_path}/r"])
    assert result.exit_code == status, result.output
