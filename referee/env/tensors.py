"""A seat's information state and observation as float32 tensors, and as text for people.

The information state is everything the seat was sent in this hand: the marks, the dealer,
the tiles it was dealt and every ``acted`` event in order (perfect recall, as a kit bot's
``Seen`` has it). The observation is its ``View`` now and nothing else: whatever the view
hides (the other hands, covered piles) the tensor cannot hold, since it is made from the
view alone. Layouts: ``referee.env.layout``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import numpy as np
import numpy.typing as npt

from referee.env.actions import FIRST_POINT_TRUMP, INDEX
from referee.env.layout import (
    ACTED_SIZE,
    INFORMATION_STATE,
    OBSERVATION,
    PILE_SIZE,
    PLAYED_SIZE,
)
from referee.rules.actions import TRUMPS
from referee.rules.contract import Contract
from referee.rules.tiles import PARTNERSHIP_OF, SEATS, TILES, Partnership, Seat, Tile
from referee.rules.views import Move, View

Tensor = npt.NDArray[np.float32]

#: ``RELATIVE[observer][seat]``: 0 the observer, 1 its left, 2 its partner, 3 its right.
RELATIVE: Final[dict[Seat, dict[Seat, int]]] = {
    o: {s: (SEATS.index(s) - SEATS.index(o)) % 4 for s in SEATS} for o in SEATS
}
_TILE: Final = {t: i for i, t in enumerate(TILES)}
_PHASES: Final = {"bidding": 0, "declaring": 1, "playing": 2, "over": 3}
_TRUMP: Final = {t: i for i, t in enumerate(TRUMPS)}
_DEALER_AT: Final = INFORMATION_STATE["dealer"].offset
_MARKS_AT: Final = INFORMATION_STATE["marks"].offset
_DEALT: Final = {t: INFORMATION_STATE["dealt"].offset + i for i, t in enumerate(TILES)}
_HISTORY_AT: Final = INFORMATION_STATE["history"].offset


def _sides(seat: Seat, marks: dict[Partnership, int]) -> tuple[int, int]:
    us = PARTNERSHIP_OF[seat]
    return marks[us], marks["BD" if us == "AC" else "AC"]


def information_state(
    seat: Seat,
    dealer: Seat,
    marks: dict[Partnership, int],
    dealt: Iterable[Tile],
    moves: list[Move],
) -> Tensor:
    """The information-state tensor of ``seat``: ``moves`` are the hand's acted events."""
    out = np.zeros(INFORMATION_STATE.size, dtype=np.float32)
    rel = RELATIVE[seat]
    ours, theirs = _sides(seat, marks)
    if ours or theirs:
        out[_MARKS_AT : _MARKS_AT + 2] = (ours / 7, theirs / 7)
    out[[_DEALER_AT + rel[dealer], *(_DEALT[t] for t in dealt)]] = 1
    add_moves(out, seat, moves, 0)
    return out


def add_moves(out: Tensor, seat: Seat, moves: list[Move], start: int) -> None:
    """Write ``moves[start:]`` into the history of ``seat``'s information state ``out``
    (the environments keep a seat's tensor and add each hand's new events only)."""
    rel = RELATIVE[seat]
    slot = _HISTORY_AT + start * ACTED_SIZE
    ones: list[int] = []
    for move in moves[start:]:
        ones += (slot + rel[move.seat], slot + 4 + INDEX[move.action])
        slot += ACTED_SIZE
    out[ones] = 1


def observation(view: View) -> Tensor:
    """The observation tensor of ``view.seat``, made from its view alone."""
    layout = OBSERVATION
    out = np.zeros(layout.size, dtype=np.float32)
    rel = RELATIVE[view.seat]
    ones = [
        layout["dealer"].offset + rel[view.dealer],
        layout["phase"].offset + _PHASES[view.phase],
    ]
    if view.turn is not None:
        ones.append(layout["turn"].offset + rel[view.turn])
    ours, theirs = _sides(view.seat, view.marks)
    marks_at = layout["marks"].offset
    out[marks_at : marks_at + 2] = (ours / 7, theirs / 7)
    hand_at = layout["hand"].offset
    ones += [hand_at + _TILE[t] for t in view.hand]
    sizes_at = layout["hand_sizes"].offset
    for s, size in view.hand_sizes.items():
        out[sizes_at + rel[s]] = size / 7
    slot = layout["bids"].offset
    for move in view.bids:
        ones.append(slot + INDEX[move.action])
        slot += layout["bids"].size // 4
    if view.contract is not None:
        ones += _contract(view.contract, rel, layout["contract"].offset)
    slot = layout["trick"].offset
    for played in view.trick:
        ones += (slot + rel[played.seat], slot + 4 + _TILE[played.tile])
        slot += PLAYED_SIZE
    ones += _piles(view, layout["piles"].offset)
    out[ones] = 1
    return out


def _contract(contract: Contract, rel: dict[Seat, int], at: int) -> list[int]:
    bid_at = at + 4
    trump_at = bid_at + FIRST_POINT_TRUMP - 1  # after the 17 bids, index 1-17
    ones = [at + rel[contract.declarer], bid_at + INDEX[contract.bid] - 1]
    ones.append(trump_at + _TRUMP[contract.trump])
    if contract.piles is not None:
        ones.append(trump_at + len(TRUMPS) + contract.piles - 1)
    return ones


def _piles(view: View, at: int) -> list[int]:
    """Every captured trick: the ones the view shows with their side and tiles; covered ones
    (before the first shown, or all of them while no pile is shown) as taken only."""
    played = 28 - sum(view.hand_sizes.values()) - len(view.trick)
    taken = played // 4
    us = PARTNERSHIP_OF[view.seat]
    ones = [at + PILE_SIZE * n for n in range(taken)]
    for pile in view.piles:
        slot = at + PILE_SIZE * (pile.trick - 1)
        ones += (slot + 1, slot + (2 if pile.side == us else 3))
        ones += [slot + 4 + _TILE[t] for t in pile.tiles]
    return ones


# -- text, for people ----------------------------------------------------------------------


def information_state_text(
    seat: Seat,
    dealer: Seat,
    marks: dict[Partnership, int],
    dealt: Iterable[Tile],
    moves: list[Move],
) -> str:
    """The information state in one line per kind: what the tensor holds, readable."""
    tiles = " ".join(map(str, sorted(dealt)))
    acted = "; ".join(map(str, moves)) or "nothing yet"
    return (
        f"seat {seat}, dealer {dealer}, marks AC {marks['AC']} BD {marks['BD']}\n"
        f"dealt {tiles}\n"
        f"acted {acted}"
    )


def observation_text(view: View) -> str:
    """The observation as lines: the view's fields, covered piles left out as it leaves them."""
    lines = [
        f"seat {view.seat}, dealer {view.dealer}, marks AC {view.marks['AC']} BD"
        f" {view.marks['BD']}, {view.phase}" + (f", {view.turn} to act" if view.turn else ""),
        "hand " + " ".join(map(str, view.hand)),
        "bids " + ("; ".join(map(str, view.bids)) or "none yet"),
    ]
    if view.contract is not None:
        lines.append(f"contract {view.contract}")
    if view.trick:
        lines.append("trick " + "; ".join(f"{p.seat} {p.tile}" for p in view.trick))
    for pile in view.piles:
        lines.append(f"pile {pile.trick} to {pile.side}: " + " ".join(map(str, pile.tiles)))
    return "\n".join(lines)
