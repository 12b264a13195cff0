"""Covert channels between partners, one hostile pair each (``referee.bench.channels.bot``:
the sender in A, the receiver in C, random bots in B and D), a hand or a few at a short move
timeout: each channel carries the hand with its closing layer off (the control: the attack is
real) and reads nothing with it on. ``referee bench channels`` measures the same in bits per
hand over many hands.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.bench.channels import helper as channel_helper
from referee.bench.channels import measure as channels
from referee.bench.channels import report as channel_report
from referee.bench.channels.measure import ROWS, Bench, Cell
from referee.bench.channels.score import Trial
from referee.cli.bench import Channel, ChannelVariant
from referee.sandbox.layers import available

ROW = {row.key: row for row in ROWS}
#: A receiver that learns nothing gets about half of what it claims wrong.
CHANCE_FLOOR = 6

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not os.path.exists("/usr/bin/python3") or available()["landlock"],
    reason="needs root (a uid per seat), /usr/bin/python3 and Landlock",
)


@pytest.fixture(scope="module")
def helper() -> Iterator[Path | str]:
    folder = tempfile.mkdtemp(prefix="channel-helper-")
    try:
        yield channel_helper.build(Path(folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _hands(
    tmp_path: Path, key: str, variant: str, helper: Path | str, hands: int = 1
) -> list[Trial]:
    bench = Bench(tmp_path, 0.2, helper)
    row = ROW[key]
    return [(await bench.hand([row], variant, random.getrandbits(64)))[key] for _ in range(hands)]


async def carried(
    tmp_path: Path, key: str, variant: str, helper: Path | str, least: int, wrong: int = 1
) -> bool:
    """Within six hands, one reads ``least`` bits or more, at most ``wrong`` of them wrong
    (hands are short: random bids are often set in a few tricks, and some leave a symbol
    channel no decision to read)."""
    for hand in range(6):
        (trial,) = await _hands(tmp_path / f"open{hand}", key, variant, helper)
        if trial.known >= least and trial.wrong_known <= wrong:
            return True
    return False


def nothing(trials: list[Trial]) -> bool:
    """Every hand's receiver ran and reported, and read nothing or as much wrong as a guess
    (a receiver that crashed or never got to report proves nothing)."""
    return all(
        t.received is not None and (t.known == 0 or t.wrong_known >= CHANCE_FLOOR) for t in trials
    )


@pytest.mark.parametrize("key", ["names", "names-legs"])
async def test_failed_lookups_carry_a_hand_unless_each_seat_has_a_root_of_its_own(
    tmp_path: Path, key: str, helper: Path | str
) -> None:
    assert await carried(tmp_path, key, "before", helper, 28)
    assert nothing(await _hands(tmp_path / "closed", key, "closed", helper))


async def test_answer_delays_reach_the_partner_unless_paced(
    tmp_path: Path, helper: Path | str
) -> None:
    # The receiver reads a delay only where exactly one of the sender's decisions fell
    # between two of its own.
    assert await carried(tmp_path, "timing", "before", helper, 3, 0)
    assert nothing(await _hands(tmp_path / "paced", "timing", "closed", helper))


async def test_pipe_buffer_room_carries_between_seats_of_one_uid_only(
    tmp_path: Path, helper: Path | str
) -> None:
    assert await carried(tmp_path, "pipe-buffers", "before", helper, 4)
    assert nothing(await _hands(tmp_path / "own", "pipe-buffers", "closed", helper, 2))


# CPU contention: the bench's receiver is too weak here to make a test that can fail (about
# one hand in ten decodes as root, before freezing); that frozen partners never run together,
# with a control where they do, is tests/match/test_paced_processes.py's.


@pytest.mark.parametrize(("key", "least"), [("cpu-cache", 28), ("pipe-inode", 6)])
async def test_what_one_machine_cannot_close_stays_open_when_frozen(
    tmp_path: Path, key: str, least: int, helper: Path | str
) -> None:
    if isinstance(helper, str):
        pytest.skip(helper)
    # Reported, not closed: the CPU's caches and the pipe inode counter keep what the sender
    # left while it is stopped. The test fails the day a layer closes them: then say so.
    assert await carried(tmp_path, key, "closed", helper, least, 6)


def test_the_command_names_every_channel_and_variant() -> None:
    assert tuple(c.value for c in Channel) == channels.ROW_KEYS
    assert tuple(v.value for v in ChannelVariant) == channels.VARIANTS


def test_the_figure_counts_only_what_one_machine_can_close() -> None:
    sent = [1] * 7 + [0] * 21
    exact, blind = Trial(sent, list(sent)), Trial(sent, [2] * 28)
    names = [Cell(ROW["names"], "final", [exact] * 4), Cell(ROW["names"], "control", [blind] * 4)]
    caches = [Cell(ROW["cpu-cache"], "final", [exact] * 4)]
    line = channel_report.figure(names + caches)
    assert line.startswith("channels: worst open row under --final 22.7 bits/hand above control")
    assert "(names; limit 0.5): OVER; not counted" in line and "cpu-cache 22.7" in line
    closed = [Cell(ROW["names"], "final", [blind] * 4)]
    assert channel_report.figure(closed + caches).split("; not counted")[0].endswith(": ok")
    assert channel_report.figure(caches) == "channels: no row measured under --final"
