"""A real tournament for the tests of ``referee stats``: two entrants of the bundled random
bot, three deal seeds in duplicate, the sandbox off; its results file is named relative to
where it ran (``t/results.jsonl``), as a user's would be, so the logs it records are too."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.processes import referee
from support.tournaments import RANDOM


@pytest.fixture(scope="session")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results file; the logs are in ``logs/`` beside it. Never changed by a test (copy
    it first)."""
    folder = tmp_path_factory.mktemp("stats")
    done = referee(
        "tournament", "--bot", f"r1={RANDOM}", "--bot", f"r2={RANDOM}", "--seeds", "3",
        "--seed", "11", "--jobs", "2", "--sandbox", "off", "--results", "t/results.jsonl",
        cwd=folder,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder / "t" / "results.jsonl"
