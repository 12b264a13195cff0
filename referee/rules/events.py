"""Public events: what ``apply`` reports, and what every seat at the table is told."""

from __future__ import annotations

import msgspec

from referee.rules.actions import Action
from referee.rules.contract import HandResult
from referee.rules.tiles import Partnership, Seat
from referee.rules.views import Review


class _Event(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


class Acted(_Event, frozen=True, tag="acted"):
    """A seat bid, passed, declared trump or played a tile."""

    seat: Seat
    action: Action


class TrickTaken(_Event, frozen=True, tag="trick"):
    """A trick completed: ``winner`` played its highest tile; ``points`` went to ``side``."""

    trick: int
    winner: Seat
    side: Partnership
    points: int


class HandEnded(_Event, frozen=True, tag="hand_end"):
    """The hand is over; ``review`` is its public record."""

    review: Review

    @property
    def result(self) -> HandResult:
        return self.review.result


class HandStarted(_Event, frozen=True, tag="hand_start"):
    """A new hand was dealt."""

    hand_number: int
    dealer: Seat


class MatchEnded(_Event, frozen=True, tag="match_end"):
    """A partnership reached the marks to win."""

    winner: Partnership
    marks: dict[Partnership, int]


Event = Acted | TrickTaken | HandEnded | HandStarted | MatchEnded
