"""The search asked about a ``referee.rules.Hand``: the engine's hand (every tile known — a
deal you sampled, or ``Decision.hand_so_far()``) turned into the search's position, and its
answers turned back into the engine's actions."""

from __future__ import annotations

from referee.errors import RulesError
from referee.rules import Hand, Play
from referee.rules.tiles import SEATS, TILES, Partnership
from referee.solver.search import INDEX, Position, Search, Solver, mask


def _defenders(declarers: Partnership) -> Partnership:
    return "BD" if declarers == "AC" else "AC"


def search_of(hand: Hand, max_nodes: int | None = None) -> tuple[Search, Position]:
    """The search for ``hand``'s contract and the position to ask it about."""
    contract = hand.contract
    if contract is None or hand.phase != "playing" or hand.turn is None:
        raise RulesError("the hand is not in its play: no contract to make or set yet")
    declarers = contract.declarers
    target = None if contract.is_all_tricks else contract.bid.points  # type: ignore[union-attr]
    search = Solver(contract.trump, SEATS.index(contract.declarer) % 2, target, max_nodes=max_nodes)
    position = Position(
        hands=tuple(mask(hand.hands[seat]) for seat in SEATS),  # type: ignore[arg-type]
        turn=SEATS.index(hand.turn),
        trick=tuple((SEATS.index(played.seat), INDEX[played.tile]) for played in hand.trick),
        points=(hand.points[declarers], hand.points[_defenders(declarers)]),
    )
    return search, position


def play_values(hand: Hand, max_nodes: int | None = None) -> dict[Play, bool]:
    """For each play the seat to move may make in ``hand`` (every tile known), whether the
    declaring side makes its contract after it, both sides playing perfectly from there.
    ``max_nodes`` bounds the positions searched (``OutOfTime`` past it)."""
    search, position = search_of(hand, max_nodes)
    values = search.move_values(position)
    return {Play(tile=TILES[index]): made for index, made in values.items()}


def makes(hand: Hand, max_nodes: int | None = None) -> bool:
    """Does the declaring side make its contract from ``hand`` (every tile known), both sides
    playing perfectly?"""
    search, position = search_of(hand, max_nodes)
    return search.makes(position)
