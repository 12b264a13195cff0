"""``verify`` passes every log the table writes: random matches, every kind of fault, bots that
cannot start. Every record type has its check.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
import trio
from support.fakes import any_act, misbehave, play_match, ready, settings
from support.faulty_matches import FAULTY
from support.log_edits import check_verified
from support.tables import bots, random_match

from referee.match.runner import BUNDLED_BOTS, run_match
from referee.record.log import read_log
from referee.record.records import RejectedRecord
from referee.record.verify import verify
from referee.rules import SEATS, Seat
from referee.settings import MatchSettings

RANDOM_BOT = shlex.join([sys.executable, str(BUNDLED_BOTS / "random_bot.py")])


# -- 1. verify passes for every valid log ------------------------------------------------------


async def test_verify_passes_for_thirty_random_matches(autojump_clock: trio.abc.Clock) -> None:
    digests = set()
    for seed in range(30):
        run = await random_match(seed)
        assert run.outcome.end == "marks"
        digests.add(check_verified(run).game_digest)
    assert len(digests) == 30


@pytest.mark.parametrize("case", FAULTY)
async def test_verify_passes_for_matches_with_faults(
    case: str, autojump_clock: trio.abc.Clock
) -> None:
    match_bots, match_settings, end, expected = FAULTY[case]()
    run = await play_match(match_bots, match_settings)
    # The match is the one the case names: its end and its faults.
    assert run.outcome.end == end
    assert run.outcome.faults == {seat: expected.get(seat, {}) for seat in SEATS}
    check_verified(run)


async def test_verify_passes_when_a_bot_answers_an_act_with_ready(
    autojump_clock: trio.abc.Clock,
) -> None:
    # The table refuses a `ready` sent in answer to an act as bad_message ("expected a 'action'
    # message, got 'ready'"); verify re-judges the kept line and agrees.
    run = await play_match(bots(C=misbehave(any_act, lambda act: ready("again"))), settings(seed=4))
    (rejected,) = run.of(RejectedRecord)
    assert (rejected.reason, rejected.detail) == (
        "bad_message",
        "expected a 'action' message, got 'ready'",
    )
    check_verified(run)


@pytest.mark.parametrize(
    ("commands", "end"),
    [
        ({"A": "/nonexistent/bot", "B": RANDOM_BOT, "C": RANDOM_BOT, "D": RANDOM_BOT}, "forfeit"),
        # A and B: no such program; C: a command that cannot be split; D: an empty one.
        ({"A": "/nonexistent/bot", "B": "/nonexistent/bot", "C": "'", "D": ""}, "void"),
    ],
)
async def test_verify_passes_when_a_bot_cannot_be_started(
    commands: dict[Seat, str], end: str, tmp_path: Path
) -> None:
    path = tmp_path / "start.jsonl"
    outcome = await run_match(MatchSettings(seed=7), commands, path)
    assert outcome.end == end
    assert outcome.faults["A"] == {"start_failed": 1}
    result = verify(read_log(path))
    assert (result.game_digest, result.log_digest) == (outcome.game_digest, outcome.log_digest)
