"""How the rules engine's events become log records: written once, used by the live match
(which writes them) and by verify (which expects them where the rules put them)."""

from __future__ import annotations

from referee.record.records import DealRecord, HandEndRecord, TrickRecord
from referee.rules import HandEnded, HandStarted, Match, TrickTaken
from referee.rules.hand import Hand
from referee.rules.tiles import SEATS


def deal_record(hand: Hand) -> DealRecord:
    """The record of a hand's deal: who dealt and every seat's seven tiles."""
    deal = {seat: list(hand.hands[seat]) for seat in SEATS}
    return DealRecord(hand=hand.hand_number, dealer=hand.dealer, hands=deal)


def event_record(
    event: object, match: Match, hand_number: int
) -> TrickRecord | HandEndRecord | DealRecord | None:
    """The record an engine event leaves in the log, if any. ``hand_number`` is the hand the
    move was made in (after the last trick, ``match.hand`` is the next one already)."""
    if type(event) is TrickTaken:
        return TrickRecord(
            hand=hand_number,
            trick=event.trick,
            winner=event.winner,
            side=event.side,
            points=event.points,
        )
    if type(event) is HandEnded:
        review = event.review
        return HandEndRecord(hand=review.hand_number, result=review.result, marks=dict(match.marks))
    if type(event) is HandStarted:
        return deal_record(match.hand)
    return None
