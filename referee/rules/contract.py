"""The contract, when captured tricks prove its result, and the marks it is worth."""

from __future__ import annotations

from typing import Literal

import msgspec

from referee.rules.actions import AllTricksBid, Bid, Trump, counted, trump_name
from referee.rules.tiles import (
    OPPONENTS_OF,
    PARTNERSHIP_OF,
    TOTAL_POINTS,
    TRICKS_PER_HAND,
    Partnership,
    Seat,
)


def side_name(side: Partnership) -> str:
    """``"AC"`` -> ``"A+C"``, as the rules write a partnership."""
    return f"{side[0]}+{side[1]}"


class Contract(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What the declarer bid and declared. ``piles`` is 1 or 2 for all tricks, else null."""

    declarer: Seat
    bid: Bid | AllTricksBid
    trump: Trump
    piles: int | None = None

    @property
    def declarers(self) -> Partnership:
        return PARTNERSHIP_OF[self.declarer]

    @property
    def defenders(self) -> Partnership:
        return OPPONENTS_OF[PARTNERSHIP_OF[self.declarer]]

    @property
    def is_all_tricks(self) -> bool:
        return type(self.bid) is AllTricksBid

    @property
    def stake(self) -> int:
        """Marks the contract is worth: 1 for a point bid, the bid marks for all tricks."""
        bid = self.bid
        return bid.marks if isinstance(bid, AllTricksBid) else 1

    def __str__(self) -> str:
        return f"{self.declarer} {self.bid}, trump {trump_name(self.trump)}" + (
            f", {counted(self.piles, 'pile')} face up" if self.piles else ""
        )


Outcome = Literal["made", "set", "passed"]


class HandResult(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How a hand ended: ``made``, ``set`` (the contract failed) or ``passed`` (all four passed).

    ``winner`` is the only partnership that scores (``null`` after four passes), ``marks`` what
    it scored, ``points`` the hand points each side captured, ``tricks`` how many were played.
    """

    outcome: Outcome
    winner: Partnership | None
    marks: int
    points: dict[Partnership, int]
    tricks: int
    reason: str
    contract: Contract | None = None


def proven_result(
    contract: Contract, points: dict[Partnership, int], tricks_won: dict[Partnership, int]
) -> HandResult | None:
    """The result the captured tricks prove, or None while it is still open.

    A point contract is made once the declarers hold the bid, and set once the defenders hold
    more than 42 - bid. An all-tricks contract is set by the defenders' first trick and made
    after the seventh.
    """
    declarers, defenders = contract.declarers, contract.defenders
    tricks = tricks_won["AC"] + tricks_won["BD"]
    bid = contract.bid
    outcome: Outcome
    if isinstance(bid, AllTricksBid):
        if tricks_won[defenders]:
            outcome, reason = "set", f"{side_name(defenders)} took trick {tricks}"
        elif tricks == TRICKS_PER_HAND:
            outcome, reason = "made", f"{side_name(declarers)} took all {tricks} tricks"
        else:
            return None
    else:
        target = bid.points
        if points[declarers] >= target:
            outcome = "made"
            reason = f"{side_name(declarers)} took {points[declarers]} points, at least {target}"
        elif points[defenders] > TOTAL_POINTS - target:
            outcome = "set"
            reason = (
                f"{side_name(defenders)} took {points[defenders]} points; {side_name(declarers)}"
                f" can reach at most {TOTAL_POINTS - points[defenders]} < {target}"
            )
        else:
            return None
    return HandResult(
        outcome=outcome,
        winner=declarers if outcome == "made" else defenders,
        marks=contract.stake,
        points=dict(points),
        tricks=tricks,
        reason=reason,
        contract=contract,
    )


def passed_result() -> HandResult:
    return HandResult(
        outcome="passed",
        winner=None,
        marks=0,
        points={"AC": 0, "BD": 0},
        tricks=0,
        reason="all four passed; the deal moves on",
    )
