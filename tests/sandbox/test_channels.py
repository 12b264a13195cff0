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
import trio

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
    tmp_path: Path,
    key: str,
    variant: str,
    helper: Path | str,
    hands: int = 1,
    seed: int | None = None,
    move_timeout: float = 0.2,
) -> list[Trial]:
    """``hands`` hands, each a new deal (or each the deal of ``seed``, when given)."""
    bench = Bench(tmp_path, move_timeout, helper)
    row = ROW[key]
    seeds = [random.getrandbits(64) if seed is None else seed for _ in range(hands)]
    return [(await bench.hand([row], variant, one))[key] for one in seeds]


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


#: The timing test's move timeout: the sender delays by 0.02 and 0.1 of it a symbol step, and
#: the receiver reads a wait within 0.35 of a step of one (10.5 ms here; at 0.2 s, 7 ms, and a
#: loaded machine's late wake-ups left fewer hands read: 7 of 40 against 12 of 40 at 0.3 s).
TIMING_MOVE = 0.3
#: Unpaced deals the timing test plays at most to find one that carries: most hands are short
#: and leave the receiver one wait to read or none, so one deal in four to seven carries at
#: loads of 4 to 8 on 2 CPUs (7 of 30, 9 of 60: thirty all failing, 1 run in 100 or fewer);
#: at 11, busy loops beside, the reads are noise (1 deal of 20 carried at a 1 s move timeout).
DEALS = 30


def _seen(trial: Trial) -> list[tuple[int, int | None]]:
    """The timing receiver's waits: (the sender's decision, what it read there or None), from
    its note (``index:value``)."""
    if trial.received is None:
        return []
    seen = trial.note.rsplit(" heard=", 1)[0].split(",")
    pairs = [one.split(":") for one in seen if one.strip()]
    return [(int(index), None if value == "None" else int(value)) for index, value in pairs]


def _waits(trial: Trial) -> list[int]:
    return [index for index, _ in _seen(trial)]


def _carries(trial: Trial) -> bool:
    """The receiver read three bits or more, none wrong, a tile the sender holds among them,
    and measured two waits or more."""
    tiles = sum(sent == 1 == read for sent, read in zip(trial.sent, trial.word, strict=True))
    read = trial.known >= 3 and trial.wrong_known == 0 and tiles > 0
    return read and len(_waits(trial)) >= 2


async def _paired_deals(tmp_path: Path, helper: Path | str) -> tuple[list[Trial], Trial, Trial]:
    """The timing test's deals: the unpaced ones tried, the one replayed, and its replay."""
    tried: list[tuple[Trial, int]] = []
    for deal in range(DEALS):
        seed = random.getrandbits(64)
        open_folder = tmp_path / f"open{deal}"
        (unpaced,) = await _hands(
            open_folder, "timing", "before", helper, seed=seed, move_timeout=TIMING_MOVE
        )
        tried.append((unpaced, seed))
        if _carries(unpaced):
            break
    unpaced, seed = max(tried, key=lambda one: (_carries(one[0]), len(_waits(one[0]))))
    (paced,) = await _hands(
        tmp_path / "paced", "timing", "closed", helper, seed=seed, move_timeout=TIMING_MOVE
    )
    return [trial for trial, _ in tried], unpaced, paced


def test_answer_delays_reach_the_partner_unless_paced(tmp_path: Path, helper: Path | str) -> None:
    """Unpaced, new deals until one carries the sender's answer delays to the receiver (the
    control: the attack is real, here and now); then the same deal again, paced: the same
    decisions, so the same waits for the receiver to read, moments later under the same load,
    and it reads none of them as a symbol.

    How many deals carry depends on the deals and the load, not on ``--pace``: the receiver
    reads a wait only where exactly one of the sender's decisions fell between two of its
    own, and a late wake-up on a loaded machine misreads it. Hence deals until one carries
    (``_carries``), rather than six at most. A tile must be among the bits read: a receiver
    that hears no delay reads zeros, right for most bits (a silent sender's receiver read
    three or more, none wrong, in 4 of 30 unpaced hands here; a tile held, in none of 60).
    Two waits or more, so that with pace broken the replay, reading what the control read,
    fails even when load spoils one of its reads. Paced, every wait is a whole number of move
    timeouts, three at least, far beyond any symbol's delay: under any load the replay reads
    no symbol, and with pace broken it reads the short waits the control read, as symbols.

    When no deal carries, the deal with the most waits is replayed all the same (pace is held
    to the same), and then: if the receiver never read a wait as a delay (a symbol above 0),
    the sender sent none and the attack is not real, a failure; if it did, load garbled the
    delays it heard, and the test is skipped, saying so (the control, not the defence, is
    what load took away; a silent sender's receiver read only zeros, or nothing, at a load of
    8, 27 waits in 30 deals).

    Formerly: up to six new deals unpaced, then one other deal paced, held to read nothing
    or as much wrong as a guess. It failed under load (no deal of six carried), and with pace
    ignored still passed 3 runs of 8 (its paced deal often left no wait to read). Now, with
    pace ignored (or its hold), it failed 20 runs of 20, 4 of them beside busy loops, 3 of
    those by the replay of a deal that carried nothing; with pace, beside busy loops, it
    passed 13 runs of 16 and skipped 3."""
    # played in a trio.run of its own: pytest-trio drops the reason of a skip in an async test
    tried, unpaced, paced = trio.run(_paired_deals, tmp_path, helper)
    assert paced.received is not None, paced  # a receiver that never reported proves nothing
    assert _waits(paced) == _waits(unpaced), (unpaced, paced)  # the same chances to read
    assert paced.known == 0, (unpaced, paced)
    if _carries(unpaced):
        return
    reads = [value for trial in tried for _, value in _seen(trial)]
    delays = sum(1 for value in reads if value)
    said = f"{delays} of the {len(reads)} waits of {len(tried)} unpaced deals read as a delay"
    assert delays, f"no deal carried, {said}: the sender's delays never reached the receiver"
    pytest.skip(f"too loaded to read the channel unpaced ({said}, none carried a tile)")


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
