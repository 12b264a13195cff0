"""A kept bot's scratch directory is emptied between matches whatever the bot built there:
2,000 nested directories each match, which a recursive walk could not remove (every reuse of
that process lost its match)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.processes import many_bot, with_marker
from support.tournaments import seatings, warm_tournament

from referee.running.results import read_results
from referee.sandbox.layers import available


@pytest.mark.skipif(available()["tmpfs"] is not None, reason=f"no tmpfs: {available()['tmpfs']}")
def test_nested_directories_in_a_kept_bots_scratch_are_emptied(tmp_path: Path) -> None:
    marker = f"nest-{tmp_path.name}"
    bots = [
        arg for name in "ab" for arg in ("--bot", f"{name}={many_bot(marker, '--nest', '2000')}")
    ]
    warm_tournament(tmp_path, *bots, "--seeds", "2", "--jobs", "1")
    _, results = read_results(tmp_path / "results.jsonl")
    assert len(results) == 4  # every match played: none lost to a scratch left full
    assert all(result.forfeit is None for result in results), [r.forfeit for r in results]
    seated = seatings(tmp_path / "logs")
    kept = [s for s in seated if s.hello["hello"] > 1]
    assert kept, "some process was kept for a second match"
    assert all(s.hello["left"] == [] for s in seated), "what the last match left is gone"
    assert not with_marker(marker)
