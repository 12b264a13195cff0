"""The facts the conformance vectors state, in the protocol's JSON form, and the small interface
an engine offers to be checked against them.

Any engine — the Python one here, a compiled core, one written in another language and loaded
from Python — is checked through ``Engine``: a match from a seed, its legal actions, ``apply``,
``state`` and ``clone``, every value in the wire's JSON form (``{"type": "bid", "points": 31}``,
tiles as ``[3, 5]``). ``PythonEngine`` is ``referee.rules`` behind that interface: the readable
reference every other engine is held to. ``protocol/CONFORMANCE.md`` describes every field.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import msgspec

from referee.rules.actions import Action
from referee.rules.events import Event, HandEnded
from referee.rules.match import Match
from referee.rules.tiles import SEATS, Seat


class Engine(Protocol):
    """A match of Texas 42 as a conformance check drives it. Values are JSON-shaped: dicts,
    lists, strings, integers and None, exactly as ``protocol/CONFORMANCE.md`` writes them."""

    @property
    def turn(self) -> str | None:
        """The seat to act ("A"-"D"), None once the match is over."""
        ...

    def legal_actions(self) -> Sequence[Any]:
        """Every legal action, in the canonical order."""
        ...

    def apply(self, seat: str, action: Any) -> Sequence[Any]:
        """Take ``action`` for ``seat``; the events it caused (trick, hand_end, ...). An action
        that is not legal for that seat now raises (any exception) and changes nothing."""
        ...

    def state(self) -> dict[str, Any]:
        """The key facts of the position (the ``state`` of a position vector)."""
        ...

    def clone(self) -> Engine:
        """An independent copy (for the perft counts)."""
        ...


#: How a check starts an engine: a new match from its seed.
NewEngine = Callable[[int], Engine]


def json_form(value: object) -> Any:
    """``value`` as JSON reads it back: tuples become lists, structs dicts."""
    return msgspec.json.decode(msgspec.json.encode(value))


def state_facts(match: Match) -> dict[str, Any]:
    """The position's key facts: the hand in progress (the last one once the match is over),
    every seat's tiles, the captured piles and which are face up, the score."""
    hand = match.hand
    contract = hand.contract
    face_up = hand.piles
    if contract is not None and contract.piles is not None:
        face_up = face_up[-contract.piles :]
    facts: dict[str, Any] = json_form(
        {
            "hand_number": hand.hand_number,
            "dealer": hand.dealer,
            "phase": hand.phase,
            "turn": hand.turn,
            "hands": {seat: hand.hands[seat] for seat in SEATS},
            "bids": hand.bids,
            "contract": contract,
            "trick": hand.trick,
            "points": hand.points,
            "tricks_won": hand.tricks_won,
            "piles": hand.piles,
            "face_up": [pile.trick for pile in face_up],
            "marks": match.marks,
            "winner": match.winner,
        }
    )
    return facts


def event_facts(events: Sequence[Event]) -> list[Any]:
    """The events as the vectors write them: the engine's public events, but a hand's end
    gives only its result, without the review's moves or the ``reason`` in words."""
    facts: list[Any] = []
    for event in events:
        if type(event) is HandEnded:
            result = msgspec.structs.asdict(event.result)
            del result["reason"]
            facts.append({"type": "hand_end", "result": result})
        else:
            facts.append(event)
    encoded: list[Any] = json_form(facts)
    return encoded


class PythonEngine:
    """``referee.rules.Match`` behind the ``Engine`` interface: the reference."""

    __slots__ = ("match",)

    def __init__(self, seed: int) -> None:
        self.match = Match(seed)

    @property
    def turn(self) -> Seat | None:
        return self.match.turn

    def legal_actions(self) -> list[Any]:
        legal: list[Any] = json_form(self.match.legal_actions())
        return legal

    def apply(self, seat: str, action: Any) -> list[Any]:
        move = msgspec.convert(action, Action)
        return event_facts(self.match.apply(seat, move))  # type: ignore[arg-type]

    def state(self) -> dict[str, Any]:
        return state_facts(self.match)

    def clone(self) -> PythonEngine:
        other = type(self).__new__(type(self))  # a subclass's copy stays of its class
        other.match = copied(self.match)
        return other


def copied(match: Match) -> Match:
    """An independent copy of a match (``Hand.clone`` for the hand in progress)."""
    other = Match.__new__(Match)
    other.seed = match.seed
    other.marks = dict(match.marks)
    other.results = list(match.results)
    other.winner = match.winner
    other._next_deal = None
    other.hand = match.hand.clone()
    return other
