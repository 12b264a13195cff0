"""The example bots and the benchmark bot play many matches in one process, each exactly as a
fresh process plays it, and exit promptly at the end of their input."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.multimatch import exit_at_eof, kept, play

from referee.checkbot.script import hello
from referee.match.process import EXIT_GRACE
from referee.match.runner import BUNDLED_BOTS, run_match
from referee.rules.tiles import SEATS
from referee.settings import MatchSettings
from referee.wire.messages import encode_line

INSTANT_BOT = BUNDLED_BOTS.parent / "referee" / "bench" / "instant_bot.py"
BOTS = [
    pytest.param(shlex.join([sys.executable, str(BUNDLED_BOTS / name)]), id=name)
    for name in ("random_bot.py", "kit_random_bot.py", "heuristic_bot.py")
] + [
    pytest.param(shlex.join([sys.executable, str(INSTANT_BOT)]), id="instant_bot.py"),
    pytest.param(
        shlex.join(["node", str(BUNDLED_BOTS / "random_bot.js")]),
        id="random_bot.js",
        marks=pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed"),
    ),
]
SEEDS = (5, 17, 29)


@pytest.mark.parametrize("command", BOTS)
def test_ready_says_many(command: str) -> None:
    result = subprocess.run(
        shlex.split(command),
        input=encode_line(hello(MatchSettings(seed=1))),
        capture_output=True,
        timeout=30,
        check=True,
    )
    ready = json.loads(result.stdout.splitlines()[0])
    assert ready["type"] == "ready" and ready["matches"] == "many", ready


@pytest.mark.parametrize("command", BOTS)
async def test_three_matches_in_one_process_are_those_of_fresh_processes(
    tmp_path: Path, command: str
) -> None:
    # Four processes of the bot, each kept for three matches, in another seat each time.
    async with kept([command] * 4, tmp_path) as processes:
        for n, seed in enumerate(SEEDS):
            settings = MatchSettings(seed=seed, move_timeout=5.0)
            seating = {seat: processes[(i + n) % 4] for i, seat in enumerate(SEATS)}
            again = await play(settings, seating, tmp_path / f"kept-{n}.jsonl")
            fresh = await run_match(
                settings, dict.fromkeys(SEATS, command), tmp_path / f"fresh-{n}.jsonl"
            )
            assert again.end == "marks", again.detail
            assert all(again.faults[seat] == {} for seat in SEATS), again.faults
            assert again.game_digest == fresh.game_digest, f"match {n + 1} (seed {seed})"
        for process in processes:  # match_end was their last message: now the end of input
            code, seconds = await exit_at_eof(process)
            assert code == 0, f"exit code {code} after {seconds:.2f} s"
            assert seconds < EXIT_GRACE
    for n in range(4):  # nothing went wrong inside any of them
        stderr = tmp_path / f"{n}.stderr"
        assert not stderr.exists() or stderr.read_text() == "", stderr.read_text()
