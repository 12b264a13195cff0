"""Tamper detection: every edit of the game content breaks the chain at its line when made
naively, and is caught by the re-simulation at a known line when the chain is forged
(``support.log_edits`` says how each is made).
"""

from __future__ import annotations

import msgspec
import pytest
import trio
from support.log_edits import (
    Edit,
    Line,
    Tampered,
    act_of,
    base_log,
    forged,
    naive,
    positions,
    records_of,
    replace,
    split,
    swap,
    swap_first_tiles,
    verification_error,
)

from referee.record.log import parse_log
from referee.record.records import (
    ActRecord,
    DealRecord,
    FaultRecord,
    Header,
    LogRecord,
    MoveRecord,
    RejectedRecord,
    TrickRecord,
)
from referee.rules import LEFT_OF, TILES, Bid, Match, Pass, Play, TrickTaken

# -- 2. tamper detection -----------------------------------------------------------------------


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


# The next two are caught only by the fault totals in match_end (the last line), not at the
# edited line: a fault's reason depends on the clock and the bot's bytes, which re-simulation
# cannot see; an invalid_utf8 rejection's raw excerpt has lost its bad bytes, so verify does
# not re-judge it (it could notice that the excerpt has no U+FFFD where bad bytes would be).
# A deleted rejection, after them, is caught at its line: the act after it is asked again
# with no refusal before it.


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
