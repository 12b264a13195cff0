"""Replay logs after the match: ``verify``, tamper detection, files that are not logs, the
renderings (whole match, one seat, public), and the ``referee replay`` command.

Most logs come from ``fakes.play_match`` (in memory, under the autojump clock); a few real
``referee match`` / ``referee replay`` runs go through the command line with the bundled bots.

Tampering is done two ways. A *naive* edit changes a line's bytes and keeps the chain members
as they were, so the chain breaks at the first edited line. A *forgery* recomputes every chain
member afterwards with ``referee.record.log.next_chain`` (exactly what the referee's own writer
does), so the chain is whole and only the re-simulation can catch the edit.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shlex
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio
from support.fakes import (
    CLOSE,
    CLOSE_INPUT,
    FakeBot,
    MatchRun,
    Policy,
    Reply,
    Sleep,
    always_pass,
    answer,
    any_act,
    delayed,
    first_legal,
    illegal_action,
    misbehave,
    play_match,
    random_policy,
    ready,
    settings,
    simple,
)

from referee.errors import LogError, VerificationError
from referee.match.runner import BUNDLED_BOTS, run_match
from referee.record import render
from referee.record.log import LogFile, next_chain, parse_log, read_log
from referee.record.records import (
    ActRecord,
    BotReady,
    DealRecord,
    FaultRecord,
    HandEndRecord,
    Header,
    LogRecord,
    MatchEndRecord,
    MoveRecord,
    RejectedRecord,
    TrickRecord,
    canonical_json,
    game_digest,
)
from referee.record.verify import Verified, game_record, verify
from referee.rules import (
    LEFT_OF,
    SEATS,
    TILES,
    Bid,
    Match,
    Pass,
    Play,
    Seat,
    Tile,
    TrickTaken,
)
from referee.rules.contract import side_name
from referee.settings import MatchSettings
from referee.wire.messages import Act, Hello

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = shlex.join([sys.executable, str(BUNDLED_BOTS / "random_bot.py")])
TILE_TEXT = re.compile(r"\[(\d)\|(\d)\]")
CHAIN = re.compile(rb',"chain":"([0-9a-f]{64})"\}$')

# -- logs as lines, edited and re-chained ------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One log line: the record without its chain member, and the chain it was written with."""

    body: bytes
    chain: bytes

    @property
    def value(self) -> dict[str, Any]:
        return msgspec.json.decode(self.body)  # type: ignore[no-any-return]

    def edited(self, change: Callable[[dict[str, Any]], object]) -> Line:
        """The record decoded, changed in place by ``change``, encoded again; old chain kept."""
        value = self.value
        change(value)
        return Line(msgspec.json.encode(value), self.chain)


def split(log: bytes) -> list[Line]:
    lines = []
    for raw in log.splitlines():
        match = CHAIN.search(raw)
        assert match is not None
        lines.append(Line(raw[: match.start()] + b"}", match.group(1)))
    return lines


def naive(lines: list[Line]) -> bytes:
    """The lines with the chain members they had: an edit that does not touch the chain."""
    return b"".join(line.body[:-1] + b',"chain":"' + line.chain + b'"}\n' for line in lines)


def forged(lines: list[Line]) -> bytes:
    """The lines with every chain member recomputed: an edit the chain cannot see."""
    out, chain = [], ""
    for line in lines:
        chain = next_chain(chain, line.body)
        out.append(line.body[:-1] + b',"chain":"' + chain.encode() + b'"}\n')
    return b"".join(out)


def records_of(log: bytes) -> list[LogRecord]:
    return parse_log(log).records


def verification_error(log: bytes) -> VerificationError:
    parsed = parse_log(log)
    with pytest.raises(VerificationError) as caught:
        verify(parsed)
    return caught.value


def positions(
    records: list[LogRecord], kind: type, where: Callable[[Any, int], bool] | None = None
) -> list[int]:
    """0-based indexes of the records of ``kind`` for which ``where(record, index)`` holds."""
    return [
        i for i, r in enumerate(records) if isinstance(r, kind) and (where is None or where(r, i))
    ]


def act_of(records: list[LogRecord], act_id: int | None) -> ActRecord:
    (act,) = [r for r in records if isinstance(r, ActRecord) and r.id == act_id]
    return act


def forge_end(records: list[LogRecord], last: MatchEndRecord, **changes: Any) -> MatchEndRecord:
    """``last`` changed, with the game digest a forger would recompute for ``records``."""
    changed = msgspec.structs.replace(last, **changes)
    digest = game_digest(game_record([*records, changed]))
    return msgspec.structs.replace(changed, game_digest=digest)


def body_of(record: LogRecord) -> bytes:
    return msgspec.json.encode(record)


# -- matches -------------------------------------------------------------------------------


def bots(**policies: Policy) -> list[FakeBot]:
    return [FakeBot(policies.get(seat, simple)) for seat in SEATS]


def silent(hello: Hello) -> Reply:
    return None


async def random_match(seed: int) -> MatchRun:
    return await play_match(
        [FakeBot(random_policy(seed * 10 + i)) for i in range(4)], settings(seed=seed)
    )


def playing(act: Act) -> bool:
    return act.view.phase == "playing"


def illegal(act: Act) -> Reply:
    return answer(act.id, illegal_action(act))


def stall(act: Act) -> Reply:
    return [Sleep(30), answer(act.id, act.legal_actions[0])]


def stale_then_right(act: Act) -> Reply:
    return [answer(act.id - 1, act.legal_actions[-1]), answer(act.id, act.legal_actions[0])]


def play_a_tile_not_held(act: Act) -> Reply:
    return answer(act.id, Play(next(t for t in TILES if t not in act.view.hand)))


def long_line(act: Act) -> Reply:
    return [b"x" * 10_000 + b"\n", answer(act.id, act.legal_actions[0])]


#: Matches with every kind of fault: (bots, settings, the end, faults the match must show).
FAULTY: dict[str, Callable[[], tuple[list[FakeBot], MatchSettings, str, dict[Seat, dict]]]] = {
    "invalid_json": lambda: (
        bots(C=misbehave(any_act, lambda act: [Sleep(0.4), b"{not json\n"])),
        settings(seed=4),
        "marks",
        {"C": {"invalid_json": 1}},
    ),
    "invalid_utf8": lambda: (
        bots(
            C=misbehave(
                any_act,
                lambda act: (
                    b'{"type":"action","id":%d,"action":{"type":"pass"},"x":"\xff"}\n' % act.id
                ),
            )
        ),
        settings(seed=4),
        "marks",
        {"C": {"invalid_utf8": 1}},
    ),
    "bad_message": lambda: (
        bots(
            C=misbehave(
                any_act,
                lambda act: (
                    b'{"type":"action","id":%d,"action":{"type":"bid","points":29}}\n' % act.id
                ),
            )
        ),
        settings(seed=4),
        "marks",
        {"C": {"bad_message": 1}},
    ),
    "illegal_action": lambda: (
        bots(B=misbehave(playing, illegal)),
        settings(seed=8),
        "marks",
        {"B": {"illegal_action": 1}},
    ),
    "illegal_action: a tile not held": lambda: (
        bots(C=misbehave(playing, play_a_tile_not_held)),
        settings(seed=4),
        "marks",
        {"C": {"illegal_action": 1}},
    ),
    "a refused line cut to 200 characters": lambda: (
        bots(C=misbehave(any_act, lambda act: b"{" + b"x" * 500 + b"\n")),
        settings(seed=4),
        "marks",
        {"C": {"invalid_json": 1}},
    ),
    "too_many_rejections, forfeit": lambda: (
        bots(B=misbehave(any_act, illegal, times=None)),
        settings(seed=8),
        "forfeit",
        {"B": {"illegal_action": 3, "too_many_rejections": 1}},
    ),
    "too_many_rejections, random then forfeit": lambda: (
        bots(D=misbehave(any_act, illegal, times=None)),
        settings(seed=8, on_fault="random", max_strikes=2),
        "forfeit",
        {"D": {"illegal_action": 9, "too_many_rejections": 3}},
    ),
    "ignored stale id": lambda: (
        bots(A=misbehave(lambda act: act.id > 1, stale_then_right)),
        settings(seed=6),
        "marks",
        {"A": {"ignored": 1}},
    ),
    "timeout, forfeit": lambda: (
        bots(C=misbehave(playing, stall)),
        settings(seed=2),
        "forfeit",
        {"C": {"timeout": 1}},
    ),
    "timeout, random: forced moves, strikes, then forfeit": lambda: (
        bots(C=misbehave(playing, stall, times=None)),
        settings(seed=2, on_fault="random", max_strikes=2),
        "forfeit",
        {"C": {"timeout": 3}},
    ),
    "time bank, timeout under random, late answer ignored": lambda: (
        bots(B=delayed([1.5, 0.5, 2.6, 0.2])),
        settings(seed=13, time_bank=2.0, on_fault="random"),
        "marks",
        {"B": {"timeout": 1, "ignored": 1}},
    ),
    "crash, forfeit": lambda: (
        bots(A=misbehave(playing, lambda act: [CLOSE])),
        settings(seed=5),
        "forfeit",
        {"A": {"crashed": 1}},
    ),
    "crash, random then forfeit": lambda: (
        bots(A=misbehave(playing, lambda act: [CLOSE])),
        settings(seed=5, on_fault="random", max_strikes=2),
        "forfeit",
        {"A": {"crashed": 3}},
    ),
    "stops reading, random": lambda: (
        bots(B=misbehave(lambda act: act.id > 5, lambda act: [CLOSE_INPUT])),
        settings(seed=3, on_fault="random"),
        "forfeit",
        {"B": {"timeout": 1, "crashed": 3}},
    ),
    "line_too_long, forfeit": lambda: (
        bots(D=misbehave(lambda act: act.id > 3, long_line)),
        settings(seed=10, max_line_bytes=4096),
        "forfeit",
        {"D": {"line_too_long": 1}},
    ),
    "line_too_long, random": lambda: (
        bots(D=misbehave(lambda act: act.id > 3, long_line)),
        settings(seed=10, max_line_bytes=4096, on_fault="random"),
        "marks",
        {"D": {"line_too_long": 1, "ignored": 1}},
    ),
    "start-up timeout, forfeit": lambda: (
        [FakeBot(), FakeBot(), FakeBot(), FakeBot(hello=silent)],
        settings(seed=1),
        "forfeit",
        {"D": {"timeout": 1}},
    ),
    "start-up timeout under random still forfeits": lambda: (
        [FakeBot(), FakeBot(), FakeBot(), FakeBot(hello=silent)],
        settings(seed=1, on_fault="random"),
        "forfeit",
        {"D": {"timeout": 1}},
    ),
    "start-up timeout of one partnership": lambda: (
        [FakeBot(hello=silent), FakeBot(), FakeBot(hello=silent), FakeBot()],
        settings(seed=1),
        "forfeit",
        {"A": {"timeout": 1}, "C": {"timeout": 1}},
    ),
    "start-up timeout of both partnerships: void": lambda: (
        [FakeBot(), FakeBot(), FakeBot(hello=silent), FakeBot(hello=silent)],
        settings(seed=1),
        "void",
        {"C": {"timeout": 1}, "D": {"timeout": 1}},
    ),
    "exit before ready": lambda: (
        [FakeBot(), FakeBot(hello=lambda hello: [CLOSE]), FakeBot(), FakeBot()],
        settings(seed=1),
        "forfeit",
        {"B": {"crashed": 1}},
    ),
    "junk before ready": lambda: (
        [FakeBot(), FakeBot(), FakeBot(hello=lambda hello: [b"garbage\n", ready()]), FakeBot()],
        settings(seed=3),
        "marks",
        {"C": {"invalid_json": 1}},
    ),
    "all pass until max_hands": lambda: (
        [FakeBot(always_pass) for _ in SEATS],
        settings(seed=9, max_hands=5),
        "max_hands",
        {},
    ),
    "max_hands after a played hand": lambda: (
        bots(),
        settings(seed=3, max_hands=1),
        "max_hands",
        {},
    ),
}


def check_verified(run: MatchRun) -> Verified:
    """``verify`` accepts the log and agrees with the outcome the table returned."""
    result = verify(parse_log(run.log))
    outcome = run.outcome
    assert result.game_digest == outcome.game_digest
    assert result.log_digest == outcome.log_digest
    assert (result.end, result.winner, result.marks, result.hands) == (
        outcome.end,
        outcome.winner,
        outcome.marks,
        outcome.hands,
    )
    assert result.records == len(run.records)
    return result


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


# -- 2. tamper detection -----------------------------------------------------------------------


async def base_log(name: str) -> bytes:
    if name == "random":  # bids, all-tricks contracts, several hands
        return (await random_match(3)).log
    # rejections (illegal_action), too_many_rejections faults, forced moves, a forfeit
    run = await play_match(
        bots(D=misbehave(any_act, illegal, times=None)),
        settings(seed=8, on_fault="random", max_strikes=2),
    )
    return run.log


@dataclass
class Tampered:
    lines: list[Line]
    #: The line a naive edit breaks the chain at.
    naive_line: int
    #: The line the re-simulation rejects a forgery at, and words of its message.
    forged_line: int
    words: str


Edit = Callable[[list[Line], list[LogRecord]], Tampered]


def replace(lines: list[Line], index: int, line: Line) -> list[Line]:
    return [*lines[:index], line, *lines[index + 1 :]]


def swap(lines: list[Line], i: int, j: int) -> list[Line]:
    out = list(lines)
    out[i], out[j] = out[j], out[i]
    return out


def swap_first_tiles(hand: int) -> Edit:
    def edit(lines: list[Line], records: list[LogRecord]) -> Tampered:
        i = positions(records, DealRecord)[hand - 1]

        def change(value: dict[str, Any]) -> None:
            hands = value["hands"]
            hands["A"][0], hands["B"][0] = hands["B"][0], hands["A"][0]

        words = "the first deal from the seed" if hand == 1 else "the DealRecord that follows"
        return Tampered(replace(lines, i, lines[i].edited(change)), i + 1, i + 1, words)

    return edit


def bid_to_another_legal_bid(lines: list[Line], records: list[LogRecord]) -> Tampered:
    # A bid followed by another bidding decision: the next act's legal bids must change.
    def fits(move: MoveRecord, i: int) -> bool:
        following = records[i + 1]
        return (
            isinstance(move.action, Bid)
            and Bid(move.action.points + 1) in act_of(records, move.id).legal_actions
            and isinstance(following, ActRecord)
            and Pass() in following.legal_actions
        )

    i = positions(records, MoveRecord, fits)[0]
    line = lines[i].edited(
        lambda value: value["action"].update(points=value["action"]["points"] + 1)
    )
    return Tampered(replace(lines, i, line), i + 1, i + 2, "legal actions")


def bid_below_the_standing_bid(lines: list[Line], records: list[LogRecord]) -> Tampered:
    def fits(move: MoveRecord, i: int) -> bool:
        return (
            isinstance(move.action, Bid) and Bid(30) not in act_of(records, move.id).legal_actions
        )

    i = positions(records, MoveRecord, fits)[0]
    line = lines[i].edited(lambda value: value["action"].update(points=30))
    return Tampered(replace(lines, i, line), i + 1, i + 1, "an illegal action was applied")


def trick_winner(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = positions(records, TrickRecord)[0]
    line = lines[i].edited(lambda value: value.update(winner=LEFT_OF[value["winner"]]))
    return Tampered(replace(lines, i, line), i + 1, i + 1, "the TrickRecord that follows")


def played_tile_not_held(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = positions(records, MoveRecord, lambda m, _: isinstance(m.action, Play))[0]
    move = records[i]
    assert isinstance(move, MoveRecord)
    deal = records[positions(records, DealRecord)[0]]
    assert isinstance(deal, DealRecord)
    other = next(t for t in TILES if t not in deal.hands[move.seat])
    line = lines[i].edited(lambda value: value["action"].update(tile=list(other)))
    return Tampered(replace(lines, i, line), i + 1, i + 1, "an illegal action was applied")


def played_tile_another_legal_one(lines: list[Line], records: list[LogRecord]) -> Tampered:
    """The last play of a trick, changed to another legal tile that changes the trick's
    winner or points (the engine says which): the move itself is legal, its trick is not."""
    header = records[0]
    assert isinstance(header, Header)
    match = Match(header.seed)
    for i, record in enumerate(records):
        if not isinstance(record, MoveRecord):
            continue
        logged = records[i + 1]
        if isinstance(record.action, Play) and isinstance(logged, TrickRecord):
            for other in match.legal_actions():
                events = match.hand.clone().apply(record.seat, other)
                (trick,) = [e for e in events if isinstance(e, TrickTaken)]
                if (trick.winner, trick.points) != (logged.winner, logged.points):
                    assert isinstance(other, Play)
                    line = lines[i].edited(
                        lambda value, t=other.tile: value["action"].update(tile=list(t))
                    )
                    words = "the TrickRecord that follows"
                    return Tampered(replace(lines, i, line), i + 1, i + 2, words)
        match.apply(record.seat, record.action)
    raise AssertionError("no trick whose last play could change it")


def first_play_of_a_trick(records: list[LogRecord]) -> int:
    """A play that is followed by the next seat's act (not by a trick record)."""
    return positions(
        records,
        MoveRecord,
        lambda m, i: isinstance(m.action, Play) and isinstance(records[i + 1], ActRecord),
    )[0]


def delete_move(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = first_play_of_a_trick(records)
    return Tampered(lines[:i] + lines[i + 1 :], i + 1, i + 1, "seat to act")


def delete_act(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = first_play_of_a_trick(records) - 1
    assert isinstance(records[i], ActRecord)
    return Tampered(lines[:i] + lines[i + 1 :], i + 1, i + 1, "a move that answers no act")


def duplicate_move(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = first_play_of_a_trick(records)
    return Tampered(lines[: i + 1] + lines[i:], i + 2, i + 2, "seat to act")


def duplicate_deal(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = positions(records, DealRecord)[1]
    return Tampered(lines[: i + 1] + lines[i:], i + 2, i + 2, "a deal that does not follow")


def swap_act_and_move(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = first_play_of_a_trick(records)
    return Tampered(swap(lines, i - 1, i), i, i, "a move that answers no act")


def swap_two_moves(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = first_play_of_a_trick(records)
    j = i + 2  # act, move, act, move: the next seat's move
    assert isinstance(records[j], MoveRecord) and records[j].seat != records[i].seat  # type: ignore[union-attr]
    return Tampered(swap(lines, i, j), i + 1, i + 1, "seat to act")


def game_digest_only(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = len(lines) - 1
    line = lines[i].edited(lambda value: value.update(game_digest="0" * 64))
    return Tampered(replace(lines, i, line), i + 1, i + 1, "game digest")


def first_forced_move(records: list[LogRecord]) -> int:
    return positions(records, MoveRecord, lambda m, _: m.forced)[0]


def forced_move_another_action(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = first_forced_move(records)
    fault = records[i - 1]
    move = records[i]
    assert isinstance(fault, FaultRecord) and isinstance(move, MoveRecord)
    other = next(a for a in act_of(records, fault.id).legal_actions if a != move.action)
    line = lines[i].edited(lambda value: value.update(action=msgspec.to_builtins(other)))
    return Tampered(replace(lines, i, line), i + 1, i + 1, "the fault policy's seeded choice")


def forced_flag_dropped(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = first_forced_move(records)
    line = lines[i].edited(lambda value: value.update(forced=False))
    return Tampered(replace(lines, i, line), i + 1, i + 1, "forced move is missing")


def fault_penalty(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = positions(records, FaultRecord)[0]
    line = lines[i].edited(lambda value: value.update(penalty="forfeit"))
    return Tampered(replace(lines, i, line), i + 1, i + 1, "penalty")


def fault_strikes(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = positions(records, FaultRecord)[0]
    line = lines[i].edited(lambda value: value.update(strikes=value["strikes"] + 1))
    return Tampered(replace(lines, i, line), i + 1, i + 1, "strikes")


def delete_fault(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = positions(records, FaultRecord)[0]
    return Tampered(lines[:i] + lines[i + 1 :], i + 1, i + 1, "a forced move without a fault")


def rejection_reason(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = positions(records, RejectedRecord)[0]
    line = lines[i].edited(lambda value: value.update(reason="bad_message", rule=None))
    return Tampered(replace(lines, i, line), i + 1, i + 1, "well-formed action message")


def rejection_rule(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = positions(records, RejectedRecord)[0]
    line = lines[i].edited(lambda value: value.update(rule="must_follow_suit"))
    return Tampered(replace(lines, i, line), i + 1, i + 1, "the broken rule")


# The next three are caught only by the fault totals in match_end (the last line), not at the
# edited line: a fault's reason depends on the clock and the bot's bytes, which re-simulation
# cannot see; an invalid_utf8 rejection's raw excerpt has lost its bad bytes, so verify does
# not re-judge it (it could notice that the excerpt has no U+FFFD where bad bytes would be);
# and verify does not count the rejections before a too_many_rejections fault.


def fault_reason(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = positions(records, FaultRecord)[0]
    line = lines[i].edited(lambda value: value.update(reason="timeout"))
    return Tampered(replace(lines, i, line), i + 1, len(lines), "fault counts")


def rejection_reason_invalid_utf8(lines: list[Line], records: list[LogRecord]) -> Tampered:
    i = positions(records, RejectedRecord)[0]
    line = lines[i].edited(lambda value: value.update(reason="invalid_utf8", rule=None))
    return Tampered(replace(lines, i, line), i + 1, len(lines), "fault counts")


def delete_rejection(lines: list[Line], records: list[LogRecord]) -> Tampered:
    # The act that followed the refusal is now asked again with no refusal before it.
    i = positions(records, RejectedRecord)[0]
    assert isinstance(records[i + 1], ActRecord)
    return Tampered(lines[:i] + lines[i + 1 :], i + 1, i + 1, "asked again without a rejection")


TAMPERING: dict[str, tuple[str, Edit]] = {
    "deal: a tile of the first hand": ("random", swap_first_tiles(1)),
    "deal: a tile of a later hand": ("random", swap_first_tiles(2)),
    "bid: another legal bid": ("random", bid_to_another_legal_bid),
    "bid: below the standing bid": ("random", bid_below_the_standing_bid),
    "trick winner": ("random", trick_winner),
    "played tile: one the seat does not hold": ("random", played_tile_not_held),
    "played tile: another legal one": ("random", played_tile_another_legal_one),
    "delete a move": ("random", delete_move),
    "delete an act": ("random", delete_act),
    "duplicate a move": ("random", duplicate_move),
    "duplicate a deal": ("random", duplicate_deal),
    "swap an act and its move": ("random", swap_act_and_move),
    "swap two moves": ("random", swap_two_moves),
    "game_digest only": ("random", game_digest_only),
    "forced move: another legal action": ("faults", forced_move_another_action),
    "forced move: flag dropped": ("faults", forced_flag_dropped),
    "fault: penalty": ("faults", fault_penalty),
    "fault: strikes": ("faults", fault_strikes),
    "delete a fault": ("faults", delete_fault),
    "rejection: reason": ("faults", rejection_reason),
    "rejection: rule": ("faults", rejection_rule),
    "fault: reason (caught by the totals)": ("faults", fault_reason),
    "rejection: reason invalid_utf8 (caught by the totals)": (
        "faults",
        rejection_reason_invalid_utf8,
    ),
    "delete a rejection": ("faults", delete_rejection),
}


async def test_forging_rebuilds_the_referees_own_chain(autojump_clock: trio.abc.Clock) -> None:
    log = await base_log("random")
    assert forged(split(log)) == log == naive(split(log))


@pytest.mark.parametrize("case", TAMPERING)
async def test_a_naive_edit_breaks_the_chain_at_its_line(
    case: str, autojump_clock: trio.abc.Clock
) -> None:
    base, edit = TAMPERING[case]
    log = await base_log(base)
    tampered = edit(split(log), records_of(log))
    data = naive(tampered.lines)
    assert data != log
    assert parse_log(data).broken_at == tampered.naive_line
    error = verification_error(data)
    assert error.line == tampered.naive_line
    assert str(error).startswith(f"line {tampered.naive_line}: the chain does not match")


@pytest.mark.parametrize("case", TAMPERING)
async def test_a_forged_chain_does_not_hide_an_edit_from_the_re_simulation(
    case: str, autojump_clock: trio.abc.Clock
) -> None:
    base, edit = TAMPERING[case]
    log = await base_log(base)
    tampered = edit(split(log), records_of(log))
    data = forged(tampered.lines)
    parsed = parse_log(data)
    assert (parsed.broken_at, parsed.truncated) == (None, None)  # the chain is whole
    error = verification_error(data)
    assert (error.line, tampered.words in str(error)) == (tampered.forged_line, True), str(error)


# -- truncation ------------------------------------------------------------------------------


async def test_a_log_cut_short_is_truncated_at_the_missing_line(
    autojump_clock: trio.abc.Clock,
) -> None:
    log = await base_log("random")
    raw = log.splitlines(keepends=True)
    n = len(raw)

    # The last line dropped: nothing to re-chain, the log stops before match_end.
    error = verification_error(b"".join(raw[:-1]))
    assert error.line == n
    assert "truncated" in str(error) and "before the match_end record" in str(error)

    # The last line cut in half.
    error = verification_error(b"".join(raw[:-1]) + raw[-1][: len(raw[-1]) // 2])
    assert error.line == n
    assert f"line {n} is cut off" in str(error)

    # A line in the middle cut in half: the file ends there.
    k = n // 2
    error = verification_error(b"".join(raw[: k - 1]) + raw[k - 1][:40])
    assert error.line == k
    assert f"line {k} is cut off" in str(error)


def cut_with_a_forged_end(log: bytes, after: int) -> tuple[bytes, int]:
    """The log cut after 0-based record ``after``, ended by a forged ``interrupted`` match_end
    (with its own game digest and fault totals), and every chain member recomputed."""
    records = records_of(log)
    kept = records[: after + 1]
    end = records[-1]
    assert isinstance(end, MatchEndRecord)
    hand_ends = [r for r in kept if isinstance(r, HandEndRecord)]
    counts: dict[Seat, Counter[str]] = {seat: Counter() for seat in SEATS}
    for record in kept:
        if isinstance(record, RejectedRecord | FaultRecord):
            counts[record.seat][record.reason] += 1
    forged_end = forge_end(
        kept,
        end,
        winner=None,
        marks=hand_ends[-1].marks if hand_ends else {"AC": 0, "BD": 0},
        hands=sum(isinstance(r, DealRecord) for r in kept),
        end="interrupted",
        detail="the referee was interrupted",
        forfeit=None,
        faults={seat: dict(sorted(counts[seat].items())) for seat in SEATS},
    )
    lines = [*split(log)[: after + 1], Line(body_of(forged_end), b"")]
    return forged(lines), after + 2


async def test_a_cut_log_with_a_forged_end_is_caught_where_a_record_is_missing(
    autojump_clock: trio.abc.Clock,
) -> None:
    log = await base_log("random")
    # Cut right after a hand_end: the table always writes the next deal with it.
    after = positions(records_of(log), HandEndRecord)[0]
    data, end_line = cut_with_a_forged_end(log, after)
    error = verification_error(data)
    assert error.line == end_line
    assert "the DealRecord that follows from the rules" in str(error)


# -- edits that re-simulation cannot see: only log_digest tells ----------------------------------


def rejection_raw_respaced(lines: list[Line], records: list[LogRecord]) -> list[Line]:
    i = positions(records, RejectedRecord)[0]
    return replace(lines, i, lines[i].edited(lambda v: v.update(raw=v["raw"].replace(",", ", "))))


def timing_value(lines: list[Line], records: list[LogRecord]) -> list[Line]:
    i = positions(records, MoveRecord)[0]
    return replace(lines, i, lines[i].edited(lambda v: v["timing"].update(latency_ms=123.5)))


def bot_name(lines: list[Line], records: list[LogRecord]) -> list[Line]:
    i = positions(records, BotReady)[0]
    return replace(lines, i, lines[i].edited(lambda v: v.update(name="someone else")))


def bot_command(lines: list[Line], records: list[LogRecord]) -> list[Line]:
    return replace(lines, 0, lines[0].edited(lambda v: v["bots"].update(A="other bot")))


def fault_detail(lines: list[Line], records: list[LogRecord]) -> list[Line]:
    i = positions(records, FaultRecord)[0]
    return replace(lines, i, lines[i].edited(lambda v: v.update(detail="something else")))


def match_end_detail(lines: list[Line], records: list[LogRecord]) -> list[Line]:
    # Free text (for a forfeit it quotes the fault detail): verify checks the winner and the
    # forfeiting seat, not this sentence.
    i = len(lines) - 1
    return replace(lines, i, lines[i].edited(lambda v: v.update(detail="something else")))


#: Edits of what depends on the clock or on the bots' own bytes and names, or free text: a
#: re-simulation from the seed cannot judge them, so a forged log with them verifies. Only the
#: chain catches them — a naive edit breaks it, a forged one changes log_digest, which a
#: published log_digest (``referee match --json``, tournament results) pins.
UNSEEN: dict[str, Callable[[list[Line], list[LogRecord]], list[Line]]] = {
    "the raw excerpt of a rejection (same reason and rule)": rejection_raw_respaced,
    "a timing value": timing_value,
    "a bot's name": bot_name,
    "a bot's command in the header": bot_command,
    "a fault's detail": fault_detail,
    "match_end's detail": match_end_detail,
}


@pytest.mark.parametrize("case", UNSEEN)
async def test_an_edit_re_simulation_cannot_see_changes_the_log_digest(
    case: str, autojump_clock: trio.abc.Clock
) -> None:
    log = await base_log("faults")
    original = verify(parse_log(log))
    lines = UNSEEN[case](split(log), records_of(log))
    assert naive(lines) != log
    assert verification_error(naive(lines)).line == parse_log(naive(lines)).broken_at
    result = verify(parse_log(forged(lines)))
    assert result.game_digest == original.game_digest
    assert result.log_digest != original.log_digest


async def test_a_cut_log_with_a_forged_interrupted_end_changes_the_log_digest(
    autojump_clock: trio.abc.Clock,
) -> None:
    # A real Ctrl-C leaves exactly such a log (match_end "interrupted" after any record), so
    # the re-simulation accepts it: only the published log_digest shows it is not the log
    # that was written.
    log = await base_log("random")
    original = verify(parse_log(log))
    after = positions(records_of(log), DealRecord)[1]
    data, _ = cut_with_a_forged_end(log, after)
    result = verify(parse_log(data))
    assert result.end == "interrupted"
    assert result.log_digest != original.log_digest
    assert result.game_digest != original.game_digest


# -- forgeries verify does not catch (bugs: kept failing) ---------------------------------------


#: An edit, and the lines where a verifier may fairly report it (1-based).
StructureEdit = Callable[[list[Line], list[LogRecord]], tuple[list[Line], range]]


def delete_ready(lines: list[Line], records: list[LogRecord]) -> tuple[list[Line], range]:
    # Seat A never said ready, yet A plays: caught anywhere up to the first deal.
    i = positions(records, BotReady)[0]
    deal = positions(records, DealRecord)[0]
    return lines[:i] + lines[i + 1 :], range(i + 1, deal + 1)


def duplicate_ready(lines: list[Line], records: list[LogRecord]) -> tuple[list[Line], range]:
    i = positions(records, BotReady)[0]
    return lines[: i + 1] + lines[i:], range(i + 2, i + 3)


def rejection_after_its_fault(
    lines: list[Line], records: list[LogRecord]
) -> tuple[list[Line], range]:
    # act, rejected, act, rejected, act, rejected, fault too_many_rejections: the third
    # rejection moved after the fault (a fault after two rejections, a rejection after it).
    i = positions(records, FaultRecord, lambda f, _: f.reason == "too_many_rejections")[0]
    assert isinstance(records[i - 1], RejectedRecord)
    return swap(lines, i - 1, i), range(i, i + 2)


@pytest.mark.parametrize(
    "edit",
    [delete_ready, duplicate_ready, rejection_after_its_fault],
    ids=["delete a ready", "duplicate a ready", "a rejection after its fault"],
)
async def test_forged_structure_around_the_game_is_detected(
    edit: StructureEdit,
    autojump_clock: trio.abc.Clock,
) -> None:
    # The table writes exactly one ready per seat that started, in seat order, before any
    # start-up fault and the first deal, and a too_many_rejections fault right after the
    # max_rejections-th rejection. That is structure, not timing or bot bytes, so verify checks
    # it and these forged logs fail.
    log = await base_log("faults")
    lines, where = edit(split(log), records_of(log))
    error = verification_error(forged(lines))
    assert error.line in where, str(error)


async def test_a_forfeit_in_match_end_must_be_the_fault_that_forfeited(
    autojump_clock: trio.abc.Clock,
) -> None:
    # forfeit.reason is game content (the game record keeps {"seat", "reason"}): a forger who
    # rewrites it and recomputes game_digest (LOG.md documents how) must still be caught, as the
    # reason contradicts the fault record.
    log = await base_log("faults")
    records = records_of(log)
    end = records[-1]
    assert isinstance(end, MatchEndRecord) and end.forfeit is not None
    assert end.forfeit.reason == "too_many_rejections"
    assert [r.reason for r in records if isinstance(r, FaultRecord)][-1] == "too_many_rejections"
    forfeit = msgspec.structs.replace(end.forfeit, reason="crashed")
    lie = forge_end(records[:-1], end, forfeit=forfeit)
    lines = [*split(log)[:-1], Line(body_of(lie), b"")]
    error = verification_error(forged(lines))
    assert error.line == len(lines)


# -- 3. files that are not logs ---------------------------------------------------------------


def not_a_log(case: str, directory: Path, real_log: bytes) -> Path:
    path = directory / f"{case}.jsonl"
    if case == "empty":
        path.write_bytes(b"")
    elif case == "binary":
        path.write_bytes(random.Random(1).randbytes(3000))
    elif case == "binary without a line end":
        path.write_bytes(bytes(range(256)).replace(b"\n", b""))
    elif case == "a JSON schema":
        path.write_bytes((ROOT / "protocol" / "log.schema.json").read_bytes())
    elif case == "a game record":
        path.write_bytes(canonical_json(game_record(records_of(real_log))) + b"\n")
    elif case == "log_version 2":
        lines = split(real_log)
        lines[0] = lines[0].edited(lambda v: v.update(log_version=2))
        path.write_bytes(forged(lines))
    elif case == "a directory":
        path.mkdir()
    elif case == "a pipe nobody writes to":  # opening it for reading must not wait
        os.mkfifo(path)
    else:
        assert case == "missing"
    return path


NOT_LOGS = [
    "empty",
    "binary",
    "binary without a line end",
    "a JSON schema",
    "a game record",
    "log_version 2",
    "a directory",
    "a pipe nobody writes to",
    "missing",
]


@pytest.mark.parametrize("case", NOT_LOGS)
async def test_a_file_that_is_not_a_log_is_one_clear_log_error(
    case: str, tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    path = not_a_log(case, tmp_path, (await random_match(1)).log)
    open_before = set(os.listdir("/proc/self/fd"))
    with pytest.raises(LogError) as caught:
        read_log(path)
    # Nothing is left open (a directory's descriptor once was, and a hostile bot test found it).
    assert set(os.listdir("/proc/self/fd")) <= open_before
    message = str(caught.value)
    assert "\n" not in message
    assert str(path) in message
    if case == "log_version 2":
        assert "version 2" in message


# -- 4. renderings ------------------------------------------------------------------------------


class Tracked(list):  # type: ignore[type-arg]
    """A log's records that remember which one a rendering is at (``at``, 0-based)."""

    at = -1

    def __iter__(self) -> Iterator[Any]:
        for index in range(len(self)):
            self.at = index
            yield self[index]


def tiles_shown_that_were_hidden(
    log: LogFile, lines: Iterator[str], seat: Seat | None
) -> tuple[list[str], int]:
    """Each rendered line showing a tile that ``seat`` (None: anyone) could not see when it
    was shown: neither in the seat's own deal nor played so far in the hand; and how many
    tiles were shown in all. Lines are taken one at a time, so "so far" is the record the
    rendering had reached."""
    records = log.records
    assert isinstance(records, Tracked)
    leaks = []
    count = 0
    for line in lines:
        visible: set[Tile] = set()
        for record in records[: records.at + 1]:
            if isinstance(record, DealRecord):
                visible = set(record.hands[seat]) if seat else set()
            elif isinstance(record, MoveRecord) and isinstance(record.action, Play):
                visible.add(record.action.tile)
        for low, high in TILE_TEXT.findall(line):
            count += 1
            if Tile(int(low), int(high)) not in visible:
                leaks.append(f"after record {records.at + 1}: {line}")
    return leaks, count


def tracked(data: bytes) -> LogFile:
    log = parse_log(data)
    log.records = Tracked(log.records)
    return log


async def test_seat_and_public_renderings_never_show_a_hidden_tile(
    autojump_clock: trio.abc.Clock,
) -> None:
    logs = [(await random_match(seed)).log for seed in range(30)]
    forced = FAULTY["crash, random then forfeit"]()
    logs.append((await play_match(forced[0], forced[1])).log)
    timeouts = FAULTY["timeout, random: forced moves, strikes, then forfeit"]()
    logs.append((await play_match(timeouts[0], timeouts[1])).log)
    shown: Counter[str] = Counter()
    for data in logs:
        for seat in SEATS:
            log = tracked(data)
            leaks, count = tiles_shown_that_were_hidden(log, render.seat_lines(log, seat), seat)
            assert leaks == []
            shown["seat"] += count
        log = tracked(data)
        leaks, count = tiles_shown_that_were_hidden(log, render.public_lines(log), None)
        assert leaks == []
        shown["public"] += count
    assert shown["seat"] > 10_000 and shown["public"] > 1_000
    # The check itself finds hidden tiles: the full rendering shows every deal.
    log = tracked(logs[0])
    leaks, _ = tiles_shown_that_were_hidden(log, render.match_lines(log), "A")
    assert leaks


def in_order(lines: list[str], wanted: list[str]) -> None:
    """Each wanted text is in a line after the line of the one before it."""
    at = 0
    for text in wanted:
        found = next((i for i in range(at, len(lines)) if text in lines[i]), None)
        assert found is not None, f"not found after line {at}: {text!r}"
        at = found + 1


async def test_the_full_rendering_shows_everything_in_order(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await play_match(
        bots(
            B=misbehave(playing, illegal),
            C=misbehave(lambda act: act.id > 20, lambda act: [Sleep(1.5), first_legal(act)]),
            D=misbehave(any_act, lambda act: b"{not json\n"),
        ),
        settings(seed=12, on_fault="random"),
    )
    assert run.outcome.end == "marks" and run.outcome.hands > 1
    assert {"illegal_action", "invalid_json", "timeout"} <= {
        reason for seat in SEATS for reason in run.outcome.faults[seat]
    }
    lines = list(render.match_lines(parse_log(run.log)))
    wanted = []
    plays: list[str] = []
    for record in run.records:
        if isinstance(record, DealRecord):
            wanted.append(f"Hand {record.hand} — dealer {record.dealer}")
            for seat in SEATS:
                wanted.append(f"  {seat} holds {render.tiles_text(record.hands[seat])}")
        elif isinstance(record, MoveRecord) and isinstance(record.action, Play):
            forced = " (forced by the referee)" if record.forced else ""
            plays.append(f"{record.seat} {record.action.tile}{forced}")
        elif isinstance(record, TrickRecord):
            points = f"{record.points} point{'s' if record.points != 1 else ''}"
            wanted.append(
                f"  trick {record.trick}: {', '.join(plays)} → {record.winner} wins {points}"
                f" for {side_name(record.side)}"
            )
            plays = []
        elif isinstance(record, HandEndRecord):
            wanted.append(f"  result: {render.result_text(record.result)}")
            wanted.append(f"  marks: {render.marks_text(record.marks)}")
            plays = []
        elif isinstance(record, RejectedRecord):
            wanted.append(f"  ! {record.seat} answer rejected ({record.reason}")
            wanted.append(f"      raw: {record.raw}")
        elif isinstance(record, FaultRecord):
            wanted.append(
                f"  ! {record.seat} fault {record.reason}: {record.detail} → {record.penalty}"
                f" (strikes {record.strikes})"
            )
    assert any(move.forced for move in run.of(MoveRecord))
    end = run.end
    wanted.append(f"Match over: {side_name(end.winner)} wins (marks: {end.detail})")  # type: ignore[arg-type]
    in_order(lines, wanted)
    tricks = [line for line in lines if line.startswith("  trick ")]
    assert len(tricks) == len(run.of(TrickRecord))
    assert lines[-1] == render.NOT_VERIFIED  # the last line says it was shown as logged
    assert lines[-2].endswith(f"game digest {end.game_digest}")


# -- the command line ---------------------------------------------------------------------------


def referee(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def one_line(stream: str) -> str:
    assert stream.endswith("\n") and stream.count("\n") == 1, stream
    assert "Traceback" not in stream
    return stream.strip()


@dataclass(frozen=True)
class RealMatch:
    path: Path
    outcome: dict[str, Any]


@pytest.fixture(scope="module")
def real_match(tmp_path_factory: pytest.TempPathFactory) -> RealMatch:
    """The bundled heuristic bot (A+C) against the bundled random bot, seed 5."""
    path = tmp_path_factory.mktemp("real") / "match.jsonl"
    played = referee("match", "--seed", 5, "--log", path, "--json")
    assert played.returncode == 0, played.stderr
    return RealMatch(path, json.loads(played.stdout))


@pytest.mark.parametrize("case", NOT_LOGS)
def test_replay_of_a_file_that_is_not_a_log_exits_2_with_one_line(
    case: str, tmp_path: Path, real_match: RealMatch
) -> None:
    path = not_a_log(case, tmp_path, real_match.path.read_bytes())
    result = referee("replay", path)
    assert result.returncode == 2
    assert one_line(result.stderr).startswith("referee: ")
    assert result.stdout == ""


def test_replay_verify_of_a_real_match(real_match: RealMatch) -> None:
    result = referee("replay", real_match.path, "--verify")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("verified: ")
    assert f"game digest: {real_match.outcome['game_digest']}" in lines
    assert f"log digest:  {real_match.outcome['log_digest']}" in lines


@pytest.mark.parametrize("how", ["naive", "forged"])
def test_replay_verify_of_an_edited_log_exits_1(
    how: str, real_match: RealMatch, tmp_path: Path
) -> None:
    data = real_match.path.read_bytes()
    tampered = swap_first_tiles(1)(split(data), records_of(data))
    path = tmp_path / "edited.jsonl"
    path.write_bytes(naive(tampered.lines) if how == "naive" else forged(tampered.lines))
    result = referee("replay", path, "--verify")
    assert result.returncode == 1
    message = one_line(result.stderr)
    words = "the chain does not match" if how == "naive" else "the first deal from the seed"
    assert message.startswith(f"verification failed: line {tampered.naive_line}: {words}")


@pytest.mark.parametrize(
    "modes", [["--verify", "--json"], ["--seat", "A", "--public"], ["--json", "--rerun"]]
)
def test_replay_with_two_modes_exits_2(modes: list[str], real_match: RealMatch) -> None:
    result = referee("replay", real_match.path, *modes)
    assert result.returncode == 2
    assert one_line(result.stderr) == (
        "referee: choose one of --seat, --public, --verify, --json, --rerun"
    )


def test_replay_json_prints_the_canonical_game_record(real_match: RealMatch) -> None:
    result = referee("replay", real_match.path, "--json")
    assert result.returncode == 0, result.stderr
    printed = result.stdout
    assert "\n" not in printed  # exactly the bytes game_digest hashes: no newline
    assert hashlib.sha256(printed.encode()).hexdigest() == real_match.outcome["game_digest"]
    # Compact JSON with sorted keys, as LOG.md defines it.
    record = json.loads(printed)
    assert printed == json.dumps(record, sort_keys=True, separators=(",", ":"))
    assert record["seed"] == 5 and record["end"] == "marks"
    assert len(record["hands"]) == real_match.outcome["hands"]


def test_replay_renders_a_real_match(real_match: RealMatch) -> None:
    for mode, first in (
        ([], "Texas 42 match — seed 5"),
        (["--seat", "B"], "Texas 42 match: what B (B+D) was shown"),
        (["--public"], "Texas 42 match: the public record"),
    ):
        result = referee("replay", real_match.path, *mode)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[0].startswith(first)
        assert result.stderr == ""
        # A seat's and the public rendering never give the seed: it deals every hand.
        assert ("seed 5" in result.stdout) == (mode == [])


def test_replay_json_of_a_log_without_its_first_deal(real_match: RealMatch, tmp_path: Path) -> None:
    # A move before any deal: one line saying the log does not follow the rules (exit 2), no
    # traceback.
    data = real_match.path.read_bytes()
    i = positions(records_of(data), DealRecord)[0]
    lines = split(data)
    path = tmp_path / "no-deal.jsonl"
    path.write_bytes(forged(lines[:i] + lines[i + 1 :]))
    result = referee("replay", path, "--json")
    assert "Traceback" not in result.stderr
    assert result.returncode == 2
    assert one_line(result.stderr).startswith("referee: ")


def test_rerun_of_deterministic_bots_is_the_same_game(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    played = referee("match", "--seed", 5, "--log", path, "--json")
    assert played.returncode == 0, played.stderr
    digest = json.loads(played.stdout)["game_digest"]
    result = referee("replay", path, "--rerun")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "rerun: same game"
    assert f"logged game digest: {digest}" in result.stdout
    assert f"rerun game digest:  {digest}" in result.stdout
    assert verify(read_log(tmp_path / "m.rerun.jsonl")).game_digest == digest


CHAOS_BOT = """\
import json, os, random, sys
rng = random.Random(os.urandom(16))  # not the seed from hello: every run differs
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "chaos"}), flush=True)
    elif message["type"] == "act":
        action = rng.choice(message["legal_actions"])
        print(json.dumps({"type": "action", "id": message["id"], "action": action}), flush=True)
    elif message["type"] == "match_end":
        break
"""


def test_rerun_of_a_nondeterministic_bot_reports_a_difference(tmp_path: Path) -> None:
    bot = tmp_path / "bots" / "chaos_bot.py"  # not beside the log: the bot could read it
    bot.parent.mkdir()
    bot.write_text(CHAOS_BOT)
    command = shlex.join([sys.executable, str(bot)])
    path = tmp_path / "chaos.jsonl"
    played = referee("match", command, command, "--seed", 5, "--log", path, "--json")
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["end"] == "marks"
    result = referee("replay", path, "--rerun")
    assert result.returncode == 1
    lines = result.stderr.splitlines()  # the sandbox line, the verdict
    assert lines[0].startswith("sandbox auto:")
    assert "rerun: the game differs" in lines[-1]
    logged, rerun = (line.split()[3] for line in result.stdout.splitlines()[:2])
    assert logged == json.loads(played.stdout)["game_digest"] != rerun
