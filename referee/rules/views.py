"""What a seat may see: the per-seat view, and the public review of a finished hand.

These types are the game content of the wire protocol, so every field is documented in
``protocol/`` and the JSON Schema is generated from them.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from referee.rules.actions import Action
from referee.rules.contract import Contract, HandResult
from referee.rules.tiles import Partnership, Seat, Tile

Phase = Literal["bidding", "declaring", "playing", "over"]


class Move(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An action with its author."""

    seat: Seat
    action: Action

    def __str__(self) -> str:
        return f"{self.seat} {self.action}"


class PlayedTile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A tile in the current trick and the seat that played it."""

    seat: Seat
    tile: Tile


class Pile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A captured trick as the table shows it: its number, who won it, tiles in sorted order.

    Never which seat played which tile, nor in what order.
    """

    trick: int
    side: Partnership
    tiles: list[Tile]


class View(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Everything one seat may see at this moment, and nothing more."""

    seat: Seat
    hand_number: int
    dealer: Seat
    marks: dict[Partnership, int]
    phase: Phase
    turn: Seat | None
    hand: list[Tile]
    hand_sizes: dict[Seat, int]
    bids: list[Move]
    contract: Contract | None
    trick: list[PlayedTile]
    piles: list[Pile]


class Review(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The public record of a finished hand: every action with its author, and the result.

    It holds only tiles that were played; a hand that ended early keeps the rest hidden.
    """

    hand_number: int
    dealer: Seat
    moves: list[Move]
    result: HandResult
