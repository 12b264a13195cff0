"""Readable renderings of a replay log: the whole match, one seat's view of it, the public record.

Each function yields lines of text. ``match_lines`` tells everything the log holds (deals
included); ``seat_lines`` only what one seat was shown during the match, rebuilt with the
same engine calls the table made (its views, the public events, its answers); and
``public_lines`` what everyone may see after each hand — every action with its author, and no
tile that was never played.

Every line they yield has been through ``terminal.shown``: what a bot said (its name, a refused
line, a fault's detail, which may quote its stderr) and anything an edited log holds is printed
with its control, bidi and other format characters as visible escapes, never obeyed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final

from referee.record.log import LogFile
from referee.record.records import (
    ActRecord,
    BotReady,
    DealRecord,
    FaultRecord,
    HandEndRecord,
    Header,
    IgnoredRecord,
    MatchEndRecord,
    MoveRecord,
    RejectedRecord,
    TrickRecord,
)
from referee.record.visibility import end_detail, reads_in_full
from referee.record.walk import LogWalk
from referee.rules import Acted, DeclareTrump, HandEnded, HandStarted, Play, TrickTaken
from referee.rules.actions import counted
from referee.rules.contract import HandResult, side_name
from referee.rules.tiles import PARTNERSHIP_OF, SEATS, Partnership, Seat, Tile
from referee.rules.views import Review, View
from referee.terminal.escapes import shown


def tiles_text(tiles: list[Tile]) -> str:
    return " ".join(map(str, tiles)) or "—"


def marks_text(marks: Mapping[Partnership, int]) -> str:
    return f"A+C {marks['AC']}, B+D {marks['BD']}"


def result_text(result: HandResult) -> str:
    if result.winner is None:
        return f"passed: {result.reason}"
    winner = side_name(result.winner)
    return f"{result.outcome}: {result.reason}; {winner} +{counted(result.marks, 'mark')}"


def _header_lines(header: Header, readies: dict[Seat, BotReady]) -> Iterator[str]:
    yield f"Texas 42 match — seed {header.seed} (referee {header.referee_version})"
    for seat in SEATS:
        ready = readies.get(seat)
        name = ready.name if ready else "(not ready)"
        kept = ""
        if ready is not None and ready.reused:
            earlier = ready.previous_matches
            kept = f" [kept after {earlier} earlier match{'es' if earlier > 1 else ''}]"
        side = side_name(PARTNERSHIP_OF[seat])
        if header.people and seat in header.people:
            kept += " [a person, no time limit]"
        yield f"  {seat} ({side}): {name} — {header.bots[seat]}{kept}"
    limits = header.limits
    yield (
        f"  limits: {limits.move_timeout_ms} ms a move, {limits.startup_timeout_ms} ms to start,"
        f" bank {limits.time_bank_ms} ms, {limits.max_rejections} rejections,"
        f" on fault {limits.on_fault} ({limits.max_strikes} strikes), {header.max_hands} hands"
    )


def end_text(end: MatchEndRecord, everything: bool = True) -> str:
    """Who won and why; a forfeit's details only for the whole match (``everything``), as
    ``visibility.end_detail`` says, never in a seat's or the public rendering."""
    winner = side_name(end.winner) if end.winner else "nobody"
    return f"{winner} wins ({end.end}: {end_detail(end, everything)})"


def _end_line(end: MatchEndRecord, everything: bool = True) -> str:
    # The game digest only with everything (``visibility.sees_everything`` says why).
    digest = f"; game digest {end.game_digest}" if everything else ""
    return (
        f"Match over: {end_text(end, everything)}; {marks_text(end.marks)};"
        f" {end.hands} hands{digest}"
    )


def _warnings(log: LogFile) -> Iterator[str]:
    if log.broken_at is not None:
        yield f"WARNING: the log's chain breaks at line {log.broken_at}: it was altered"
    if log.truncated is not None:
        yield f"WARNING: the log is truncated: {log.truncated}"


NOT_VERIFIED: Final = "(shown as logged, not verified: --verify re-simulates the match)"


def match_lines(log: LogFile) -> Iterator[str]:
    """Everything, hand by hand: deals, bids, contract, tricks, results, faults, the end —
    as logged: the last line says so (``--verify`` checks it against the rules)."""
    yield from map(shown, _match_lines(log))
    yield NOT_VERIFIED


def _match_lines(log: LogFile) -> Iterator[str]:
    yield from _warnings(log)
    readies = {r.seat: r for r in log.records if isinstance(r, BotReady)}
    yield from _header_lines(log.header, readies)
    trick: list[str] = []
    bids: list[str] = []
    for record in log.records[1:]:
        if isinstance(record, DealRecord):
            yield ""
            yield f"Hand {record.hand} — dealer {record.dealer}"
            for seat in SEATS:
                yield f"  {seat} holds {tiles_text(record.hands[seat])}"
            trick, bids = [], []
        elif isinstance(record, MoveRecord):
            # The act a bot answered, by its id (what ``referee ask`` takes); a forced move
            # answers none: its fault names the act.
            forced = " (forced by the referee)" if record.forced else ""
            if not record.forced and record.id is not None:
                forced = f" #{record.id}"
            action = record.action
            if isinstance(action, Play):
                trick.append(f"{record.seat} {action.tile}{forced}")
            elif isinstance(action, DeclareTrump):
                yield f"  contract: {record.seat} declares {action}{forced}"
            else:
                bids.append(f"{record.seat} {action}{forced}")
                if len(bids) == 4:
                    yield "  bids: " + " · ".join(bids)
        elif isinstance(record, TrickRecord):
            yield (
                f"  trick {record.trick}: {', '.join(trick)} → {record.winner} wins"
                f" {counted(record.points, 'point')} for {side_name(record.side)}"
            )
            trick = []
        elif isinstance(record, HandEndRecord):
            yield f"  result: {result_text(record.result)}"
            yield f"  marks: {marks_text(record.marks)}"
        elif isinstance(record, RejectedRecord):
            rule = f" [{record.rule}]" if record.rule else ""
            to = f" to #{record.id}" if record.id else ""
            yield (
                f"  ! {record.seat} answer{to} rejected ({record.reason}{rule}): {record.detail}"
            )
            yield f"      raw: {record.raw}"
        elif isinstance(record, IgnoredRecord):
            waiting = f"waiting for id {record.expected_id}"
            yield f"  ! {record.seat} answer ignored ({waiting}): {record.raw}"
        elif isinstance(record, FaultRecord):
            at = f" at #{record.id}" if record.id is not None else ""
            yield (
                f"  ! {record.seat} fault {record.reason}{at}: {record.detail}"
                f" → {record.penalty} (strikes {record.strikes})"
            )
        elif isinstance(record, MatchEndRecord):
            if 0 < len(bids) < 4:
                yield "  bids so far: " + " · ".join(bids)
            if trick:
                yield f"  unfinished trick: {', '.join(trick)}"
            yield ""
            yield _end_line(record)


def public_lines(log: LogFile) -> Iterator[str]:
    """After each hand: every action with its author and the result; unplayed tiles hidden."""
    return map(shown, _public_lines(log))


def _public_lines(log: LogFile) -> Iterator[str]:
    yield from _warnings(log)
    yield "Texas 42 match: the public record"  # never the seed: it deals every hand
    walk = LogWalk(log.records)
    for at in walk:
        record = at.record
        if isinstance(record, MoveRecord):
            for event in at.play():
                if isinstance(event, HandEnded):
                    yield from _review_lines(event.review)
                    yield f"  marks: {marks_text(walk.match.marks)}"
        elif isinstance(record, MatchEndRecord):
            hand = walk.match.hand
            if hand.moves and not hand.is_over:  # cut short: its actions were public too
                yield ""
                yield f"Hand {hand.hand_number} — dealer {hand.dealer} (not finished)"
                yield from (f"  {move}" for move in hand.moves)
            yield ""
            yield _end_line(record, everything=False)


def _review_lines(review: Review, what: str = "") -> Iterator[str]:
    yield ""
    yield f"Hand {review.hand_number}{what} — dealer {review.dealer}"
    plays: list[str] = []
    for move in review.moves:
        if isinstance(move.action, Play):
            plays.append(f"{move.seat} {move.action.tile}")
            if len(plays) == 4:
                yield "  " + ", ".join(plays)
                plays = []
        else:
            yield f"  {move.seat} {move.action}"
    if plays:
        yield "  " + ", ".join(plays)
    yield f"  result: {result_text(review.result)}"


def seat_lines(log: LogFile, seat: Seat) -> Iterator[str]:
    """What ``seat`` was shown: its views at each of its decisions, the public events, its
    answers, and the hand reviews — rebuilt with the engine, never more than the seat saw."""
    return map(shown, _seat_lines(log, seat))


def _seat_lines(log: LogFile, seat: Seat) -> Iterator[str]:
    yield from _warnings(log)
    yield (
        f"Texas 42 match: what {seat}"  # never the seed: it deals every hand
        f" ({side_name(PARTNERSHIP_OF[seat])}) was shown"
    )
    walk = LogWalk(log.records)
    match = walk.match
    seen: list[Acted | TrickTaken | HandStarted] = [walk.first_hand]
    for at in walk:
        record = at.record
        if isinstance(record, ActRecord) and record.seat == seat:
            yield from _event_lines(seen)
            seen = []
            yield from view_lines(match.view(seat), record)
        elif isinstance(record, RejectedRecord) and reads_in_full(seat, record.seat):
            yield f"    rejected ({record.reason}): {record.detail}"
        elif isinstance(record, FaultRecord) and reads_in_full(seat, record.seat):
            yield f"    fault {record.reason}: {record.detail} → {record.penalty}"
        elif isinstance(record, MoveRecord):
            if record.seat == seat:
                how = "the referee played for you" if record.forced else "you answered"
                yield f"    {how}: {record.action}"
            for event in at.play():
                if isinstance(event, HandEnded):
                    yield from _event_lines(seen)
                    seen = []
                    yield from _review_lines(event.review, ", its review")
                    yield f"  marks: {marks_text(match.marks)}"
                elif isinstance(event, Acted | TrickTaken | HandStarted):
                    seen.append(event)
        elif isinstance(record, MatchEndRecord):
            yield ""
            yield _end_line(record, everything=False)


def _event_lines(events: list[Acted | TrickTaken | HandStarted]) -> Iterator[str]:
    for event in events:
        if isinstance(event, Acted):
            yield f"  {event.seat} {event.action}"
        elif isinstance(event, TrickTaken):
            yield (
                f"  trick {event.trick} to {event.winner} ({side_name(event.side)}),"
                f" {counted(event.points, 'point')}"
            )
        else:
            yield ""
            yield f"Hand {event.hand_number} — dealer {event.dealer}"


def view_lines(view: View, act: ActRecord) -> Iterator[str]:
    """A decision as its seat saw it: its tiles, the auction or the contract, the trick so
    far, the piles it may look at, and the legal actions (unescaped: the caller's ``shown``)."""
    yield f"  act {act.id} — your turn ({view.phase})"
    yield f"    your hand: {tiles_text(view.hand)}"
    if view.contract is not None:
        yield f"    contract: {view.contract}"
    elif view.bids:
        yield "    bids: " + " · ".join(map(str, view.bids))
    if view.trick:
        yield "    trick: " + ", ".join(f"{p.seat} {p.tile}" for p in view.trick)
    for pile in view.piles:
        yield f"    pile {pile.trick} ({side_name(pile.side)}): {tiles_text(pile.tiles)}"
    yield "    legal: " + ", ".join(map(str, act.legal_actions))
