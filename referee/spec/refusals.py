"""The moves a position must refuse, for its conformance vector: RULES.md's *Digital play* —
an illegal action is refused and changes nothing.

A few near misses for each phase, not every illegal action (the legal list already says
that everything else is illegal): the tiles a seat holds but may not play, one it does not
hold, a bid that does not beat the standing one, an all-tricks bid of the wrong marks, a
declaration with the wrong pile choice, an action of another phase, and a legal action
taken by a seat whose turn it is not.
"""

from __future__ import annotations

from referee.rules.actions import (
    ALL_TRICKS_BIDS,
    PASS,
    PLAYS,
    POINT_BIDS,
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
)
from referee.rules.match import Match
from referee.rules.tiles import LEFT_OF, SEATS, TILES
from referee.rules.views import Move


def refused_moves(match: Match) -> list[Move]:
    """Moves ``match`` must refuse now, each leaving it as it is."""
    hand, seat = match.hand, match.turn
    if seat is None:
        return [Move(SEATS[0], PASS)]
    legal = match.legal_actions()
    held = hand.hands[seat]
    tries: list[Action]
    if hand.phase == "playing":
        kept = [t for t in held if PLAYS[t] not in legal]
        absent = next(t for t in TILES if t not in held)
        tries = [*(PLAYS[t] for t in kept[:3]), PLAYS[absent], PASS]
    elif hand.phase == "declaring":
        offered = legal[0]
        assert type(offered) is DeclareTrump
        wrong_piles = 1 if offered.piles is None else None
        tries = [DeclareTrump(offered.trump, wrong_piles), PASS, PLAYS[held[0]]]
    else:
        bids = [a for a in legal if type(a) is Bid]
        marks = max((a.marks for a in legal if type(a) is AllTricksBid), default=2)
        tries = [ALL_TRICKS_BIDS[marks + 1] if marks < 5 else ALL_TRICKS_BIDS[1]]
        if bids and bids[0].points > 30:
            tries.append(POINT_BIDS[bids[0].points - 1])  # one that does not beat the standing bid
        elif not bids:
            tries.append(POINT_BIDS[41])  # no point bid over all tricks (or over 41)
        tries += [DeclareTrump(6), PLAYS[held[0]]]
    moves = [Move(seat, action) for action in tries if action not in legal]
    return [*moves, Move(LEFT_OF[seat], legal[0])]
