"""A hand passed through the page cache by timing reads (``referee.bench``'s channel bots):
with the sandbox off the channel must carry it (the control: the attack is real); with every
page a bot may read pinned before each match (``referee.sandbox.resident.warm``), leg 2 of a
duplicate pair must learn nothing of leg 1's hand.

``referee.bench.channels.cache`` measures the same in bits per match, over many hands, for
partners live in one match too. Each test here is one hand: a few matches of four bots.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from referee.bench.channels.cache import Bench, Result
from referee.sandbox import resident
from referee.sandbox.layers import available

#: A receiver that learns nothing gets about half of the 28 bits wrong; below this, a run of
#: luck that rare (under 1 in 2,000) or a channel.
CHANCE_FLOOR = 6

needs_sandbox = pytest.mark.skipif(
    available()["landlock"] is not None or available()["seccomp"] is not None,
    reason=f"this kernel has no Landlock or seccomp: {available()}",
)


async def _trial(tmp_path: Path, variant: str, scenario: str, medium: str = "pages") -> int:
    """Bits of the sender's hand the receiver got wrong, out of 28."""
    bench = Bench(tmp_path)
    result = Result(variant, scenario)
    try:
        await bench.prime(variant)  # the pool the bots find, to start from cold pages
        nonce = random.getrandbits(48)  # names no earlier run looked up
        await bench.trial(variant, scenario, 0x5EED0000 + len(scenario), result, medium, nonce)
    finally:
        resident.release()
    (trial,) = result.trials
    assert trial.received is not None, trial.note  # the receiver found its slots and read
    return sum(a != b for a, b in zip(trial.sent, trial.received, strict=True))


@pytest.mark.parametrize("scenario", ["partners", "legs"])
async def test_the_channel_carries_a_hand_without_the_sandbox(
    tmp_path: Path, scenario: str
) -> None:
    assert await _trial(tmp_path, "off", scenario) <= 1


@needs_sandbox
async def test_pinned_pages_carry_nothing_from_leg_to_leg(tmp_path: Path) -> None:
    assert await _trial(tmp_path, "resident", "legs") >= CHANCE_FLOOR


@needs_sandbox
@pytest.mark.skipif(os.geteuid() != 0, reason="forgetting lookups needs root")
async def test_forgotten_lookups_carry_nothing_from_leg_to_leg(tmp_path: Path) -> None:
    # Missing names looked up in leg 1 are remembered (negative dentries) and answer faster in
    # leg 2, unless the lookup caches are dropped between the legs.
    assert await _trial(tmp_path / "kept", "resident", "legs", "names") <= 1
    assert await _trial(tmp_path / "dropped", "forget", "legs", "names") >= CHANCE_FLOOR
