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
    fields = {"seed": 21, "max_hands": 3, "move_timeout": MOVE, "startup_timeout": 3.0}
    settings = MatchSettings(**{**fields, **options})  # type: ignore[arg-type]
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


def _acts(lines: list[list[str]]) -> list[tuple[int, float]]:
    """(act id, when the bot heard it) of each act but its first, which costs the bot more to
    read (its first parse)."""
    return [(int(w[1]), float(w[2])) for w in lines if w[0] == "ACT"][1:]


def _off_grid(when: float, phase: float) -> float:
    """Seconds from ``when`` to the nearest point of the grid of ``MOVE`` through ``phase``."""
    beat = (when - phase) / MOVE
    return abs(beat - round(beat)) * MOVE


def _phase(whens: list[float]) -> float:
    """The phase of the grid of ``MOVE`` that acts heard at ``whens`` are on: the median of
    their offsets, so that no one act woken late (the first included) can move it."""
    first = min(whens)
    signed = [(beat - round(beat)) * MOVE for beat in ((w - first) / MOVE for w in whens)]
    return first + statistics.median(signed)


def test_paced_acts_reach_a_partner_on_the_grid(tmp_path: Path) -> None:
    """A delays its answers by up to three ``STEP``: under pace none of that reaches C, whose
    acts after a delayed answer are on the grid the other acts are on. Without pace (the
    control, ``test_without_pace_the_referees_timing_carries_a_partners_delays``), each
    delay moves C's next act by one to three ``STEP``.

    The grid is the one A's acts and C's acts after nothing to carry (A sent 0, or did not
    answer in between) are on, and their median distance from it is what the machine's load
    alone puts between an act and the grid: the control. C's acts after a delayed answer may
    be no further from that grid, in median, than that and a third of ``STEP``, the least a
    delay that reached C would move them (an absolute bound, with one act as the grid's
    origin, is what load alone broke: one late origin moved every act)."""
    said = _play(tmp_path, "timing", pace=True)
    sent = {int(w[1]): int(w[3]) for w in said["A"] if w[0] == "ANSWER"}
    acts = [(int(w[1]), float(w[2])) for w in said["C"] if w[0] == "ACT"]
    still, carried = [when for _, when in _acts(said["A"])], []
    # the first act costs the bot more to read (its first parse): timed from the second on
    for (before, _), (act, when) in itertools.pairwise(acts):
        delays = [symbol for act_id, symbol in sent.items() if before < act_id < act]
        (carried if any(delays) else still).append(when)
    assert len(still) >= 8 and len(carried) >= 3, (sent, acts)
    phase = _phase(still)
    control = statistics.median(_off_grid(when, phase) for when in still)
    moved = statistics.median(_off_grid(when, phase) for when in carried)
    assert control < STEP / 3, f"not on a grid, or too loaded to tell: {control * 1000:.1f} ms"
    assert moved - control < STEP / 3, (moved, control, still, carried)


#: Where the referee's half second for a bot that went away would put the next act if it ran
#: past the deadline: that far from the grid (0.5 s is 3.57 moves: 0.06 s off).
MOVED = min(0.5 % MOVE, MOVE - 0.5 % MOVE)


def test_a_seat_that_goes_away_cannot_move_the_grid(tmp_path: Path) -> None:
    """A closes its output at its fifth act and stays: the referee looks into how it ended
    only until the deadline, so the acts after it still go out on the grid the acts before
    it were on. Without that bound every act after it would be ``MOVED`` (0.06 s) off.

    The control is the same match before the vanish (A's and C's acts, same processes, same
    load): their median is the grid's phase, and their own median distance from it is what
    the machine's load alone puts between an act and the grid. C's acts after the vanish may
    be no further from that grid, in median, than that and a third of ``MOVED`` (an absolute
    bound failed on a loaded machine: one late act taken as the grid's origin moved them all,
    and one act woken late failed ``max``). A moved grid moves every act after the vanish by
    ``MOVED``: no load brings that back under the bound (measured on 2 CPUs: the difference
    under 1 ms idle and 2.2 ms beside eight busy loops; with the deadline bound removed from
    ``Turns.explaining``, 53 to 57 ms idle and 45 to 51 ms loaded). Strikes without end, so
    that C acts a few times after the vanish instead of A forfeiting at its fourth fault."""
    vanisher = python(BOTS / "turn_probe_bot.py", "--vanish", "5")
    said = _play(
        tmp_path, "vanish", pace=True, on_fault="random", max_strikes=1000, commands={"A": vanisher}
    )
    heard = _acts(said["A"])
    assert len(heard) == 4, said["A"]  # its fifth act, the last it heard, is where it went
    away = heard[-1][0]
    before = sorted(when for act, when in heard + _acts(said["C"]) if act <= away)
    after = [when for act, when in _acts(said["C"]) if act > away]
    assert len(before) >= 5 and len(after) >= 5, said
    phase = _phase(before)
    control = statistics.median(_off_grid(when, phase) for when in before)
    moved = statistics.median(_off_grid(when, phase) for when in after)
    assert control < MOVED / 3, f"too loaded to tell: acts {control * 1000:.1f} ms off the grid"
    assert moved - control < MOVED / 3, (moved, control, before, after)


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
