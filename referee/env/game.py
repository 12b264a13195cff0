"""The seam between the environments and an engine: ``Game``, and the Python engine behind it.

The environments ask an engine only what ``Game`` lists — whose turn, the legal action
indices, apply an index, each seat's view and tensors, a clone — so a compiled core that
answers the same questions plugs in underneath without a change above it. ``PythonGame`` is
``referee.rules`` behind the seam: the readable reference, and the oracle of any other.
"""

from __future__ import annotations

from typing import Protocol

from referee.env.actions import action_at, indices
from referee.env.tensors import (
    Tensor,
    add_moves,
    information_state,
    information_state_text,
    observation,
    observation_text,
)
from referee.errors import GameOver
from referee.rules.actions import Play
from referee.rules.events import Event
from referee.rules.hand import Hand
from referee.rules.match import Match
from referee.rules.tiles import Partnership, Seat, Tile
from referee.rules.views import View


def dealt(hand: Hand, seat: Seat) -> list[Tile]:
    """The tiles ``seat`` was dealt this hand: those it holds and those it played."""
    played = [m.action.tile for m in hand.moves if m.seat == seat and type(m.action) is Play]
    return hand.hands[seat] + played


class Game(Protocol):
    """One seeded episode of the game, driven by action indices."""

    seed: int

    @property
    def turn(self) -> Seat | None:
        """The seat to act; None once the episode is over."""

    @property
    def is_over(self) -> bool: ...

    @property
    def marks(self) -> dict[Partnership, int]:
        """The score now (after the hands finished so far)."""

    def legal(self) -> list[int]:
        """The legal action indices of the seat to act, in the engine's order."""

    def apply(self, index: int) -> list[Event]:
        """The seat to act takes action ``index``: the public events it caused. Raises an
        ``IllegalAction`` (``NotAnAction`` for an index out of range) with nothing changed."""

    def view(self, seat: Seat) -> View: ...

    def information_state(self, seat: Seat) -> Tensor: ...

    def observation(self, seat: Seat) -> Tensor: ...

    def information_state_text(self, seat: Seat) -> str: ...

    def observation_text(self, seat: Seat) -> str: ...

    def clone(self) -> Game:
        """An independent copy: what it does changes nothing here, and the reverse."""


class PythonGame:
    """``referee.rules`` behind the seam: a match from ``seed`` exactly as the referee deals it,
    or only its first hand (``one_hand``)."""

    __slots__ = ("_kept", "match", "one_hand", "seed")

    def __init__(self, seed: int, *, one_hand: bool = False) -> None:
        self.seed = seed
        self.one_hand = one_hand
        self.match = Match(seed)
        #: Each seat's information state as last made: its hand, how many events it holds.
        self._kept: dict[Seat, tuple[Hand, int, Tensor]] = {}

    @property
    def hand(self) -> Hand:
        return self.match.hand

    @property
    def turn(self) -> Seat | None:
        return self.match.hand.turn  # None once the hand is over, and a match ends with one

    @property
    def is_over(self) -> bool:
        return self.match.hand.is_over if self.one_hand else self.match.is_over

    @property
    def marks(self) -> dict[Partnership, int]:
        return self.match.marks

    def legal(self) -> list[int]:
        return indices(self.match.hand.legal_actions())  # none once over

    def apply(self, index: int) -> list[Event]:
        action = action_at(index)
        seat = self.turn
        if seat is None:
            raise GameOver("the episode is over; no action is legal until a reset")
        if self.one_hand:
            return self.match.hand.apply(seat, action)
        return self.match.apply(seat, action)

    def view(self, seat: Seat) -> View:
        return self.match.hand.view(seat)

    def dealt(self, seat: Seat) -> list[Tile]:
        return dealt(self.match.hand, seat)

    def information_state(self, seat: Seat) -> Tensor:
        """Made once a hand and then brought up to date: only the events since are added."""
        hand = self.match.hand
        moves = hand.moves
        kept = self._kept.get(seat)
        if kept is not None and kept[0] is hand:
            tensor = kept[2]
            add_moves(tensor, seat, moves, kept[1])
        else:
            tensor = information_state(seat, hand.dealer, hand.marks, self.dealt(seat), moves)
        self._kept[seat] = (hand, len(moves), tensor)
        return tensor.copy()

    def observation(self, seat: Seat) -> Tensor:
        return observation(self.match.hand.view(seat))

    def information_state_text(self, seat: Seat) -> str:
        hand = self.match.hand
        return information_state_text(seat, hand.dealer, hand.marks, self.dealt(seat), hand.moves)

    def observation_text(self, seat: Seat) -> str:
        return observation_text(self.match.hand.view(seat))

    def clone(self) -> PythonGame:
        other = PythonGame.__new__(PythonGame)
        other.seed, other.one_hand, other.match = self.seed, self.one_hand, self.match.clone()
        other._kept = {}  # its hand is a new one: made afresh when first asked
        return other
