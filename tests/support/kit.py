"""Helpers of the bot-kit tests: a message as the kit reads it, the simplest strategy, and a
real match between two bot commands that must be clean."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from referee.bot import Decision
from referee.match.runner import run_match, seat_commands, stderr_path
from referee.rules import SEATS, Action
from referee.settings import MatchSettings


def message_line(message: Any) -> str:
    """A referee message (a dict or msgspec structs) as the line the kit reads."""
    return json.dumps(msgspec.to_builtins(message)) + "\n"


def first_legal_action(decision: Decision) -> Action:
    """The strategy that always plays the first legal action."""
    return decision.legal_actions[0]


async def clean_match(
    tmp_path: Path, first: str, second: str, seed: int, *, quiet: bool = False
) -> tuple[str | None, str]:
    """A match of ``first`` (A and C) against ``second`` (B and D) to 7 marks with no fault
    (and, when ``quiet``, nothing on any bot's stderr): its winner and its game digest."""
    settings = MatchSettings(seed=seed, move_timeout=5.0)
    log = tmp_path / f"m{seed}.jsonl"
    outcome = await run_match(settings, seat_commands([first, second]), log)
    assert outcome.end == "marks", outcome.detail
    assert all(outcome.faults[seat] == {} for seat in SEATS), outcome.faults
    if quiet:  # no rejection, no strategy failure, no decoding trouble
        for seat in SEATS:
            stderr = stderr_path(log, seat)
            assert not stderr.exists() or stderr.read_text() == "", stderr.read_text()
    return outcome.winner, outcome.game_digest
