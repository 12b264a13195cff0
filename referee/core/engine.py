"""The compiled core behind ``referee.spec.facts.Engine``: a match whose values are the
protocol's JSON forms, so that ``check_engine`` and ``lockstep`` hold it to the Python engine.

The C match (``_texas42.Match``) speaks integers: seats 0-3, the canonical action index
(``actions``), tiles 0-27. This module turns them into the forms ``protocol/CONFORMANCE.md``
writes, and the core's error codes into the referee's exceptions, with nothing changed.
"""

from __future__ import annotations

from typing import Any, Final

from referee.core import _texas42  # type: ignore[attr-defined]
from referee.core.actions import form, index_of
from referee.errors import (
    GameOver,
    IllegalAction,
    InvalidBid,
    InvalidDeclaration,
    MustFollowSuit,
    NotAnAction,
    NotYourTurn,
    TileNotInHand,
    WrongPhase,
)
from referee.rules.actions import TRUMPS
from referee.rules.deal import check_seed
from referee.rules.tiles import PARTNERSHIPS, SEATS, TILES

#: The core's error codes (``texas42.h``'s T42_ERR_*), as the referee's exceptions.
ERRORS: Final[dict[int, tuple[type[IllegalAction | GameOver], str]]] = {
    -1: (NotAnAction, "not one of the game's actions"),
    -2: (GameOver, "the match is over; no action is legal"),
    -3: (NotYourTurn, "not your turn"),
    -4: (WrongPhase, "that kind of action is not legal in this phase"),
    -5: (InvalidBid, "that bid does not beat the standing one, or is not the next step"),
    -6: (InvalidDeclaration, "that pile choice does not fit the contract"),
    -7: (TileNotInHand, "the seat does not hold that tile"),
    -8: (MustFollowSuit, "the seat holds a tile of the suit led and must follow"),
}
PHASES: Final = ("bidding", "declaring", "playing", "over")
OUTCOMES: Final = ("made", "set", "passed")
_TILES: Final = tuple((t.low, t.high) for t in TILES)


def _tiles(raw: bytes) -> list[list[int]]:
    return [list(_TILES[tile]) for tile in raw]


def _sides(ac: int, bd: int) -> dict[str, int]:
    return {"AC": ac, "BD": bd}


def _contract(declarer: int, all_tricks: int, bid: int, trump: int, piles: int) -> Any:
    return {
        "declarer": SEATS[declarer],
        "bid": {"type": "all_tricks", "marks": bid}
        if all_tricks
        else {"type": "bid", "points": bid},
        "trump": TRUMPS[trump],
        "piles": piles or None,
    }


class CompiledEngine:
    """A match in the compiled core, offering ``referee.spec.facts.Engine``."""

    __slots__ = ("_match",)

    def __init__(self, seed: int) -> None:
        self._match = _texas42.Match(check_seed(seed))

    @property
    def turn(self) -> str | None:
        turn = self._match.turn
        return None if turn is None else SEATS[turn]

    def legal_indices(self) -> bytes:
        """The legal actions as canonical indices (one byte each), in the canonical order."""
        indices: bytes = self._match.legal()
        return indices

    def legal_actions(self) -> list[Any]:
        return [form(index) for index in self._match.legal()]

    def apply(self, seat: str, action: Any) -> list[Any]:
        if seat not in SEATS:
            raise NotYourTurn(f"not a seat: {seat!r}")
        index = index_of(action)
        caused = self._match.apply(SEATS.index(seat), index)
        if type(caused) is int:
            error, text = ERRORS[caused]
            raise error(f"{text}: {seat} {action}")
        events: list[Any] = [{"type": "acted", "seat": seat, "action": form(index)}]
        if caused is not None:
            events += _events(caused)
            if events[-1]["type"] == "match_end":  # the score after the last hand
                raw = self._match.raw()
                events[-1]["marks"] = _sides(raw[15], raw[16])
        return events

    def state(self) -> dict[str, Any]:
        (number, dealer, phase, turn, hands, bids, contract, trick, leader, p_ac, p_bd,
         t_ac, t_bd, pile_tiles, pile_sides, m_ac, m_bd, winner) = self._match.raw()  # fmt: skip
        first_bidder = (dealer + 1) % 4
        piles = [
            {
                "trick": k + 1,
                "side": PARTNERSHIPS[side],
                "tiles": _tiles(pile_tiles[4 * k : 4 * k + 4]),
            }
            for k, side in enumerate(pile_sides)
        ]
        shown = len(piles) if contract is None or not contract[4] else contract[4]
        return {
            "hand_number": number,
            "dealer": SEATS[dealer],
            "phase": PHASES[phase],
            "turn": None if turn < 0 else SEATS[turn],
            "hands": {seat: _tiles(held) for seat, held in zip(SEATS, hands, strict=True)},
            "bids": [
                {"seat": SEATS[(first_bidder + k) % 4], "action": form(index)}
                for k, index in enumerate(bids)
            ],
            "contract": None if contract is None else _contract(*contract),
            "trick": [
                {"seat": SEATS[(leader + k) % 4], "tile": list(_TILES[tile])}
                for k, tile in enumerate(trick)
            ],
            "points": _sides(p_ac, p_bd),
            "tricks_won": _sides(t_ac, t_bd),
            "piles": piles,
            "face_up": [pile["trick"] for pile in piles[len(piles) - min(shown, len(piles)) :]],
            "marks": _sides(m_ac, m_bd),
            "winner": None if winner < 0 else PARTNERSHIPS[winner],
        }

    def clone(self) -> CompiledEngine:
        other = type(self).__new__(type(self))
        other._match = self._match.copy()
        return other


def _events(caused: tuple[int, ...]) -> list[Any]:
    """The events after ``acted``, from the tuple ``_texas42.Match.apply`` gives."""
    (trick, number, winner, points, ended, outcome, side, marks, p_ac, p_bd, tricks, has_contract,
     *contract, started, hand_number, dealer, match_ended) = caused  # fmt: skip
    events: list[Any] = []
    if trick:
        events.append(
            {
                "type": "trick",
                "trick": number,
                "winner": SEATS[winner],
                "side": PARTNERSHIPS[winner % 2],
                "points": points,
            }
        )
    if ended:
        result = {
            "outcome": OUTCOMES[outcome],
            "winner": None if side < 0 else PARTNERSHIPS[side],
            "marks": marks,
            "points": _sides(p_ac, p_bd),
            "tricks": tricks,
            "contract": _contract(*contract) if has_contract else None,
        }
        events.append({"type": "hand_end", "result": result})
    if started:
        events.append({"type": "hand_start", "hand_number": hand_number, "dealer": SEATS[dealer]})
    if match_ended:
        events.append({"type": "match_end", "winner": PARTNERSHIPS[side], "marks": None})
    return events
