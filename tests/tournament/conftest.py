"""Fixtures of the tournament tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def commands_may_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests that configure tournaments of made-up commands ("bot-a") and play them through
    fake executors: the check that a command can start (tested in test_cli_first_hour.py)
    would refuse them before the code under test runs."""
    from referee.tournament import config

    monkeypatch.setattr(config, "problem", lambda _command: None)
