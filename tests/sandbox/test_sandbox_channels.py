"""Seats that cannot talk: partners try to pass a hand through the machine rather than the
table. Each channel carries the hand exactly with the sandbox off (so the attack is real) and
nothing under the sandbox.

The partners are B (sender) and D (receiver); A and C play randomly."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import msgspec
import pytest
from support.bot_commands import RANDOM_BOT
from support.processes import BOTS, referee
from support.sandboxed import attack

from referee.match.runner import run_match, stderr_path
from referee.record.log import read_log
from referee.record.records import DealRecord
from referee.rules.tiles import TILES
from referee.sandbox.layers import available
from referee.sandbox.policy import plan
from referee.settings import MatchSettings, SandboxSettings


def _mask(tiles: list[object]) -> int:
    return sum(1 << TILES.index(tile) for tile in tiles)  # type: ignore[arg-type]


async def partners(
    tmp_path: Path, mode: str, bot: str, without_namespaces: bool = False
) -> tuple[str, int, list[str]]:
    """One hand with ``bot`` sending from B to D: D's report, B's true hand, D's layers."""
    commands = {seat: RANDOM_BOT for seat in "AC"}
    for seat, role in (("B", "send"), ("D", "receive")):
        commands[seat] = shlex.join([sys.executable, str(BOTS / bot), "--role", role])
    settings = MatchSettings(seed=11, max_hands=1, move_timeout=3.0)
    log = tmp_path / "logs" / "match.jsonl"
    sandbox = plan(SandboxSettings(mode=mode), settings, commands, [log.parent])  # type: ignore[arg-type]
    if without_namespaces:  # as on a machine that cannot make them: seccomp's fallback
        seats = {
            s: [x for x in layers if x != "namespaces"]
            for s, layers in sandbox.report.seats.items()
        }
        sandbox.report = msgspec.structs.replace(sandbox.report, seats=seats)
    outcome = await run_match(settings, commands, log, sandbox)
    assert outcome.forfeit is None, outcome.forfeit
    deal = next(r for r in read_log(log).records if isinstance(r, DealRecord))
    report = stderr_path(log, "D").read_text()
    said = [line for line in report.splitlines() if line.startswith("CHANNEL")]
    line = said[-1] if said else report
    layers = outcome.sandbox.seats["D"] if outcome.sandbox else []
    return line, _mask(list(deal.hands["B"])), layers


@pytest.mark.skipif(available()["seccomp"] is not None, reason="no seccomp here")
@pytest.mark.parametrize("mode", ["off", "auto", "auto-without-namespaces"])
async def test_partners_cannot_talk_through_thread_nice_values(tmp_path: Path, mode: str) -> None:
    line, hand, layers = await partners(
        tmp_path, mode.split("-")[0], "sched_channel_bot.py", mode.endswith("namespaces")
    )
    if mode == "off":
        assert line.startswith(f"CHANNEL got {hand:07x}"), (line, f"{hand:07x}")
        return
    assert line.startswith("CHANNEL nothing"), line
    # Nothing outside the seat's own tree could even be named: a PID namespace of its own
    # (ESRCH), or where there is none, seccomp's refusal of a pid other than the bot's own.
    refused = "ProcessLookupError" if "namespaces" in layers else "PermissionError"
    assert refused in line, line


@pytest.mark.skipif(available()["tmpfs"] is not None, reason=f"no tmpfs: {available()['tmpfs']}")
@pytest.mark.parametrize("mode", ["off", "auto"])
async def test_writing_moves_no_shared_filesystems_free_space(tmp_path: Path, mode: str) -> None:
    # Free blocks of a filesystem every seat can statvfs: 32 MiB written by one seat would be
    # a bit another could read. The scratch directory is a tmpfs of the seat's own.
    report, _ = await attack(tmp_path, mode, "statvfs")
    assert ("SUCCEEDED" if mode == "off" else "BLOCKED") in report, report


@pytest.mark.skipif(available()["seccomp"] is not None, reason="no seccomp here")
@pytest.mark.parametrize("mode", ["off", "auto"])
def test_the_second_leg_cannot_read_the_first_legs_kept_processes(
    tmp_path: Path, mode: str
) -> None:
    # A warm pool keeps the first leg's processes, stopped, with their threads' nice values:
    # with the sandbox off the second leg reads its opponents' hands there before it bids.
    channel = shlex.join([sys.executable, str(BOTS / "sched_channel_bot.py"), "--role", "both"])
    opponent = RANDOM_BOT
    run = referee(
        "tournament", "--bot", f"chan={channel}", "--bot", f"rand={opponent}", "--seeds", "1",
        "--jobs", "1", "--max-hands", "1", "--move-timeout", "3", "--sandbox", mode,
        "--results", str(tmp_path / "results.jsonl"), "--logs", str(tmp_path / "logs"),
        cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    learned = []  # (what a channel seat found, its opponents' hands) in each match
    for log in sorted((tmp_path / "logs").glob("*.jsonl")):
        records = read_log(log)
        deal = next(r for r in records.records if isinstance(r, DealRecord))
        for seat, command in records.header.bots.items():
            if "sched_channel_bot" in command:
                lines = stderr_path(log, seat).read_text().splitlines()
                said = [line for line in lines if line.startswith("CHANNEL")][-1]
                theirs = {
                    _mask(list(deal.hands[s])) for s in "ABCD" if (s in "AC") != (seat in "AC")
                }
                learned.append((said, theirs))
    assert len(learned) == 4  # two legs, two seats each
    if mode == "off":
        found = [
            {int(m, 16) for m in said.split()[2].split(",")} & theirs
            for said, theirs in learned
            if said.startswith("CHANNEL got")
        ]
        assert any(found), learned  # an opponent's hand, from the other leg's threads
        return
    assert all(said.startswith("CHANNEL nothing") for said, _ in learned), learned


async def _hand_passed(tmp_path: Path, mode: str, bot: list[str]) -> tuple[str, str, int, int]:
    """One hand with ``bot`` in A and C: their reports, and their true hands."""
    commands = {seat: RANDOM_BOT for seat in "BD"}
    commands["A"] = commands["C"] = shlex.join([sys.executable, *bot])
    settings = MatchSettings(seed=12, max_hands=1, move_timeout=5.0)
    log = tmp_path / "logs" / "match.jsonl"
    sandbox = plan(SandboxSettings(mode=mode), settings, commands, [log.parent])  # type: ignore[arg-type]
    outcome = await run_match(settings, commands, log, sandbox)
    assert outcome.forfeit is None, outcome.forfeit
    deal = next(r for r in read_log(log).records if isinstance(r, DealRecord))
    said = [stderr_path(log, seat).read_text() for seat in "AC"]
    return said[0], said[1], _mask(list(deal.hands["A"])), _mask(list(deal.hands["C"]))


@pytest.mark.skipif(available()["seccomp"] is not None, reason="no seccomp here")
@pytest.mark.parametrize("via", ["wake", "exit"])
@pytest.mark.parametrize("mode", ["off", "auto"])
async def test_partners_cannot_talk_through_shared_futexes(
    tmp_path: Path, mode: str, via: str
) -> None:
    # A futex in a page of a file both map is keyed by the file: A wakes the words of its
    # tiles (or ends threads that registered them), C's threads wait on them.
    bot = [str(BOTS / "futex_channel_bot.py"), "--via", via]
    _, received, hand, _ = await _hand_passed(tmp_path, mode, bot)
    got = [line for line in received.splitlines() if line.startswith("CHANNEL got")]
    if mode == "off":
        assert got == [f"CHANNEL got {hand:07x}"], received
    else:  # a wait on a shared word answers at once, and nothing is woken
        assert got == ["CHANNEL got 0000000"], received


@pytest.mark.skipif(available()["namespaces"] is not None, reason="no mount namespace here")
@pytest.mark.parametrize("mode", ["off", "auto"])
async def test_partners_cannot_talk_through_access_times(tmp_path: Path, mode: str) -> None:
    # Files with an mtime in the future: every read moves their access time, which any seat
    # may stat. In the seat's view every mount is read-only, and no read moves it.
    bits = tmp_path / "bits"
    bits.mkdir()
    for index in range(112):
        (bits / f"b{index:03}").write_bytes(b"x")
        os.utime(bits / f"b{index:03}", (0, 4102444800))  # 2100-01-01
    bot = [str(BOTS / "atime_channel_bot.py"), "--bits", str(bits)]
    said_a, said_c, hand_a, hand_c = await _hand_passed(tmp_path, mode, bot)
    if mode == "off":
        assert f"C={hand_c:07x}" in said_a and f"A={hand_a:07x}" in said_c, (said_a, said_c)
    else:
        assert "CHANNEL A saw nothing" in said_a and "CHANNEL C saw nothing" in said_c
