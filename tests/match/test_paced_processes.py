"""Paced turns and frozen idle seats with real bot processes under the default sandbox: a
sender in seat A that delays its answers by two bits of its hand, a receiver in seat C that
times its own messages, and every bot noting when it ran (``tests/bots/turn_probe_bot.py``).

Each test has its control: without the option, the same bots carry the delays, or run at the
same time as their partner.
"""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict
from pathlib import Path

import pytest
import trio
from support.bot_commands import RANDOM_BOT, python
from support.processes import BOTS

from referee.match.runner import run_match, stderr_path
from referee.rules.tiles import SEATS, Seat
from referee.settings import MatchSettings

MOVE = 0.14  # not a divisor of the half second the referee waits for a bot that went away
STEP = 0.02
PROBE = python(BOTS / "turn_probe_bot.py")
THINKER = python(BOTS / "turn_probe_bot.py", "--think", "0.02")
SENDER = python(BOTS / "turn_probe_bot.py", "--send", str(STEP))


def _play(
    tmp_path: Path, name: str, commands: dict[str, str] | None = None, **options: object
) -> dict[Seat, list[list[str]]]:
    commands = {"A": SENDER, "B": RANDOM_BOT, "C": PROBE, "D": RANDOM_BOT, **(commands or {})}
    if options.get("freeze_idle"):
        commands = dict.fromkeys(SEATS, THINKER)  # each stop lasts three others' thinking
    log = tmp_path / f"{name}.jsonl"
    settings = MatchSettings(
        seed=21,
        max_hands=3,
        move_timeout=MOVE,
        startup_timeout=3.0,
        **options,  # type: ignore[arg-type]
    )
    outcome = trio.run(run_match, settings, commands, log)
    assert outcome.forfeit is None or options.get("on_fault"), outcome.detail
    said = {}
    for seat in SEATS:
        copy = stderr_path(log, seat)
        text = copy.read_text() if copy.exists() else ""  # none kept of a silent bot
        said[seat] = [line.split() for line in text.splitlines()]
    return said


def _gaps_by_symbol(said: dict[Seat, list[list[str]]]) -> dict[int, list[float]]:
    """C's wait from its answer to its next act, by the symbol A sent in between."""
    sent = {int(words[1]): int(words[3]) for words in said["A"] if words[0] == "ANSWER"}
    acts = [(int(w[1]), float(w[2])) for w in said["C"] if w[0] == "ACT"]
    answers = {int(w[1]): float(w[2]) for w in said["C"] if w[0] == "ANSWER"}
    gaps: dict[int, list[float]] = defaultdict(list)
    for (before, _), (after, heard) in itertools.pairwise(acts):
        between = [symbol for act_id, symbol in sent.items() if before < act_id < after]
        if len(between) == 1:
            gaps[between[0]].append(heard - answers[before])
    return gaps


def test_without_pace_the_referees_timing_carries_a_partners_delays(tmp_path: Path) -> None:
    gaps = _gaps_by_symbol(_play(tmp_path, "timing"))
    pairs = [(symbol, gap) for symbol, found in gaps.items() for gap in found]
    assert len(pairs) >= 4 and len(gaps) >= 2, gaps
    # seconds of C's wait per step of A's symbol: all of STEP reaches C
    assert statistics.linear_regression(*zip(*pairs, strict=True)).slope > 0.7 * STEP, gaps


def test_paced_acts_reach_a_partner_on_the_grid(tmp_path: Path) -> None:
    said = _play(tmp_path, "timing", pace=True)
    # the first act costs the bot more to read (its first parse): timed from the second on
    acts = [float(w[2]) for w in said["C"] if w[0] == "ACT"][1:]
    assert len(acts) >= 6 and any(w[0] == "ANSWER" and w[3] != "0" for w in said["A"])
    beats = [(when - acts[0]) / MOVE for when in acts]
    off = [abs(beat - round(beat)) * MOVE for beat in beats]
    # seconds from the grid: nothing of A's delays (a loaded machine may wake a bot late)
    assert statistics.median(off) < 0.003 and max(off) < STEP, off


def test_a_seat_that_goes_away_cannot_move_the_grid(tmp_path: Path) -> None:
    # A closes its output at its third act and stays: the referee looks into how it ended
    # only until the deadline, so the next act still goes out on the grid
    vanisher = python(BOTS / "turn_probe_bot.py", "--vanish", "3")
    said = _play(tmp_path, "vanish", pace=True, on_fault="random", commands={"A": vanisher})
    acts = [float(w[2]) for w in said["C"] if w[0] == "ACT"][1:]
    assert len(acts) >= 4
    off = [abs(b - round(b)) * MOVE for b in ((when - acts[0]) / MOVE for when in acts)]
    assert statistics.median(off) < 0.003 and max(off) < STEP, off


def _overlap(one: list[tuple[float, float]], other: list[tuple[float, float]]) -> float:
    return sum(
        max(0.0, min(end, end2) - max(start, start2))
        for start, end in one
        for start2, end2 in other
    )


@pytest.mark.parametrize("freeze", [False, True], ids=["control", "frozen"])
def test_frozen_idle_seats_never_run_beside_their_partner(tmp_path: Path, freeze: bool) -> None:
    said = _play(tmp_path, "freeze", freeze_idle=freeze or None)
    runs = {
        seat: [(float(w[1]), float(w[2])) for w in lines if w[0] == "RUN"]
        for seat, lines in said.items()
    }
    together = _overlap(runs["A"], runs["C"])
    alone = sum(end - start for start, end in runs["A"])
    if not freeze:  # the control: the ticking threads run the whole match long
        assert together > 0.5 * alone
    else:  # each ran only for its own decisions: a few milliseconds at the edges at most
        # (start-up is not frozen: both bots start at once, and on a loaded machine their
        # first stretches, until the opening freezes them, may overlap a few tenths)
        assert min(len(runs["A"]), len(runs["C"])) > 3, runs  # stopped between decisions
        played = _overlap(runs["A"][1:], runs["C"][1:])
        assert played < 0.05 + 0.01 * len(runs["A"]), runs
