"""The bundled bots play complete, clean matches through the real referee."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest
from support.bot_commands import HEURISTIC_BOT, RANDOM_BOT
from support.kit import clean_match

from referee.match.runner import BUNDLED_BOTS


async def test_heuristic_bot_beats_random_bot_on_both_sides(tmp_path: Path) -> None:
    wins = 0
    for seed in (1, 2, 3):
        winner, _ = await clean_match(tmp_path, HEURISTIC_BOT, RANDOM_BOT, seed)
        wins += winner == "AC"
        winner, _ = await clean_match(tmp_path, RANDOM_BOT, HEURISTIC_BOT, seed)
        wins += winner == "BD"
    assert wins >= 5  # measured over 400 matches: 100% (example_bots/README.md)


async def test_bundled_bots_are_deterministic(tmp_path: Path) -> None:
    first = await clean_match(tmp_path, HEURISTIC_BOT, RANDOM_BOT, 11)
    second = await clean_match(tmp_path, HEURISTIC_BOT, RANDOM_BOT, 11)
    assert first == second


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
async def test_javascript_random_bot_plays_a_clean_match(tmp_path: Path) -> None:
    node = shlex.join(["node", str(BUNDLED_BOTS / "random_bot.js")])
    first = await clean_match(tmp_path, node, RANDOM_BOT, 3)
    second = await clean_match(tmp_path, node, RANDOM_BOT, 3)
    assert first == second  # seeded from hello: reproducible in any language
