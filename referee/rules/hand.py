"""One hand of Texas 42 as a pure state machine: bidding, trump, tricks, early end.

``Hand`` knows nothing of processes, clocks or files. It answers four questions —
whose turn (``turn``), what may they do (``legal_actions``), what happens if they do it
(``apply``), and what may each seat see (``view``) — and keeps the result once the
captured tricks prove it. Every check in ``apply`` runs before the first change, so an
illegal action raises and leaves the hand exactly as it was.
"""

from __future__ import annotations

from referee.errors import (
    GameOver,
    NotAnAction,
    NotYourTurn,
    TileNotInHand,
    WrongPhase,
)
from referee.rules.actions import (
    ALL_TRICKS_BIDS,
    ALL_TRICKS_DECLARATIONS,
    FIRST_ALL_TRICKS_BIDS,
    MAX_POINT_BID,
    MIN_POINT_BID,
    PASS,
    PLAYS,
    POINT_BIDS,
    POINT_DECLARATIONS,
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Pass,
    Play,
)
from referee.rules.contract import Contract, HandResult, passed_result, proven_result
from referee.rules.events import Acted, Event, HandEnded, TrickTaken
from referee.rules.legality import (
    check_all_tricks_bid,
    check_follows,
    check_point_bid,
    declared_contract,
)
from referee.rules.suits import CALLED, FOLLOWERS, STRENGTH
from referee.rules.tiles import (
    COUNT,
    LEFT_OF,
    PARTNERSHIP_OF,
    POINTS_PER_TRICK,
    SEATS,
    TILES,
    Partnership,
    Seat,
    Tile,
)
from referee.rules.views import Move, Phase, Pile, PlayedTile, Review, View

# Legal bids, by the standing point bid (0: none yet), while no all-tricks bid stands.
_BIDS_OVER: dict[int, tuple[Action, ...]] = {
    high: (
        PASS,
        *(POINT_BIDS[p] for p in range(max(MIN_POINT_BID, high + 1), MAX_POINT_BID + 1)),
        *(ALL_TRICKS_BIDS[m] for m in FIRST_ALL_TRICKS_BIDS),
    )
    for high in (0, *range(MIN_POINT_BID, MAX_POINT_BID + 1))
}
_ALL_TILES = frozenset(TILES)


class Hand:
    """The state of one hand, from the deal to its proven result.

    Read-only attributes (change them only through ``apply``):

    - ``dealer``, ``hand_number``, ``marks`` (the match score before this hand);
    - ``phase``: "bidding", "declaring" (the declarer names trump), "playing" or "over";
    - ``turn``: the seat to act, None once the hand is over;
    - ``hands``: every seat's remaining tiles in dealt order (hidden information!);
    - ``bids``, ``contract``, ``trick`` (the current trick), ``piles`` (every captured trick),
      ``points`` and ``tricks_won`` per partnership, ``moves`` (every action so far);
    - ``result``: the ``HandResult`` once the hand is over.
    """

    __slots__ = (
        "_best",
        "_best_strength",
        "_high_bidder",
        "_high_marks",
        "_high_points",
        "_suit",
        "bids",
        "contract",
        "dealer",
        "hand_number",
        "hands",
        "marks",
        "moves",
        "phase",
        "piles",
        "points",
        "result",
        "trick",
        "tricks_won",
        "turn",
    )

    def __init__(
        self,
        dealer: Seat,
        hands: dict[Seat, list[Tile]],
        *,
        hand_number: int = 1,
        marks: dict[Partnership, int] | None = None,
    ) -> None:
        """Start a hand from a deal: ``hands`` maps each seat to its seven tiles, dealt order."""
        if any(len(hands[s]) != 7 for s in SEATS) or set().union(*hands.values()) != _ALL_TILES:
            raise ValueError("a deal gives each seat seven tiles of one double-six set")
        self.dealer: Seat = dealer
        self.hands: dict[Seat, list[Tile]] = {seat: list(hands[seat]) for seat in SEATS}
        self.hand_number = hand_number
        self.marks: dict[Partnership, int] = dict(marks or {"AC": 0, "BD": 0})
        self.phase: Phase = "bidding"
        self.turn: Seat | None = LEFT_OF[dealer]
        self.bids: list[Move] = []
        self.contract: Contract | None = None
        self.trick: list[PlayedTile] = []
        self.piles: list[Pile] = []
        self.points: dict[Partnership, int] = {"AC": 0, "BD": 0}
        self.tricks_won: dict[Partnership, int] = {"AC": 0, "BD": 0}
        self.moves: list[Move] = []
        self.result: HandResult | None = None
        self._high_points = 0
        self._high_marks = 0
        self._high_bidder: Seat | None = None
        self._suit = -1
        self._best: Seat | None = None
        self._best_strength = -1

    # -- questions -------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def legal_actions(self) -> list[Action]:
        """Every action the seat to act may take, in a fixed order; empty once over."""
        phase = self.phase
        if phase == "playing":
            assert self.turn is not None and self.contract is not None
            hand = self.hands[self.turn]
            if self.trick:
                suit = FOLLOWERS[self.contract.trump][self._suit]
                following = [PLAYS[t] for t in hand if t in suit]
                if following:
                    return following  # type: ignore[return-value]
            return [PLAYS[t] for t in hand]
        if phase == "bidding":
            if self._high_marks:
                return [PASS, ALL_TRICKS_BIDS[self._high_marks + 1]]
            return list(_BIDS_OVER[self._high_points])
        if phase == "declaring":
            assert self.contract is None and self._high_marks >= 0
            return list(ALL_TRICKS_DECLARATIONS if self._high_marks else POINT_DECLARATIONS)
        return []

    def view(self, seat: Seat) -> View:
        """What ``seat`` may see now: its own tiles, never another seat's, never a covered pile."""
        piles = self.piles
        contract = self.contract
        if contract is not None and contract.piles is not None:
            piles = piles[-contract.piles :]
        return View(
            seat=seat,
            hand_number=self.hand_number,
            dealer=self.dealer,
            marks=dict(self.marks),
            phase=self.phase,
            turn=self.turn,
            hand=list(self.hands[seat]),
            hand_sizes={s: len(self.hands[s]) for s in SEATS},
            bids=list(self.bids),
            contract=contract,
            trick=list(self.trick),
            piles=list(piles),
        )

    def review(self) -> Review:
        """The public record of the finished hand: every action with its author, the result."""
        if self.result is None:
            raise GameOver("the hand is not over yet; its review comes when it ends")
        return Review(
            hand_number=self.hand_number,
            dealer=self.dealer,
            moves=list(self.moves),
            result=self.result,
        )

    # -- the one way to change a hand ------------------------------------------------------

    def apply(self, seat: Seat, action: Action) -> list[Event]:
        """Let ``seat`` take ``action``; return the public events it caused.

        Raises an ``IllegalAction`` subclass naming what was wrong, with nothing changed.
        """
        if self.turn != seat:
            if self.phase == "over":
                raise GameOver("the hand is over; no action is legal")
            raise NotYourTurn(f"not your turn: it is {self.turn}'s turn, not {seat}'s")
        kind = type(action)
        if kind is Play:
            return self._play(seat, action)  # type: ignore[arg-type]
        if kind is Pass or kind is Bid or kind is AllTricksBid:
            return self._bid(seat, action)
        if kind is DeclareTrump:
            return self._declare(seat, action)  # type: ignore[arg-type]
        raise NotAnAction(f"not an action: {action!r}")

    def _bid(self, seat: Seat, action: Action) -> list[Event]:
        if self.phase != "bidding":
            raise WrongPhase(f"the bidding is over; {action} is not legal now")
        if type(action) is Bid:
            points = check_point_bid(action.points, self._high_points, self._high_marks)
            self._high_points, self._high_bidder = points, seat
        elif type(action) is AllTricksBid:
            marks = check_all_tricks_bid(action.marks, self._high_marks)
            self._high_marks, self._high_bidder = marks, seat
        move = Move(seat, action)
        self.bids.append(move)
        self.moves.append(move)
        events: list[Event] = [Acted(seat, action)]
        if len(self.bids) < 4:
            self.turn = LEFT_OF[seat]
        elif self._high_bidder is None:
            self._finish(passed_result(), events)
        else:
            self.phase, self.turn = "declaring", self._high_bidder
        return events

    def _declare(self, seat: Seat, action: DeclareTrump) -> list[Event]:
        if self.phase != "declaring":
            raise WrongPhase(f"trump is declared after the bidding; {action} is not legal now")
        self.contract = declared_contract(seat, action, self._high_points, self._high_marks)
        self.moves.append(Move(seat, action))
        self.phase = "playing"
        return [Acted(seat, action)]

    def _play(self, seat: Seat, action: Play) -> list[Event]:
        if self.phase != "playing":
            raise WrongPhase(f"no tile is played during the {self.phase}; {action} is not legal")
        contract = self.contract
        assert contract is not None
        tile = action.tile
        hand = self.hands[seat]
        if tile not in hand:
            raise TileNotInHand(f"{seat} does not hold {_tile_text(tile)}")
        trump = contract.trump
        if self.trick:
            followers = FOLLOWERS[trump][self._suit]
            if tile not in followers:
                check_follows(seat, hand, followers, self._suit)
        else:
            self._suit = CALLED[trump][tile]
            self._best_strength = -1
        hand.remove(tile)
        played = PlayedTile(seat, tile)
        self.trick.append(played)
        self.moves.append(Move(seat, action))
        strength = STRENGTH[trump][self._suit][tile]
        if strength > self._best_strength:
            self._best, self._best_strength = seat, strength
        events: list[Event] = [Acted(seat, action)]
        if len(self.trick) < 4:
            self.turn = LEFT_OF[seat]
            return events
        return self._complete_trick(contract, events)

    def _complete_trick(self, contract: Contract, events: list[Event]) -> list[Event]:
        winner = self._best
        assert winner is not None
        side = PARTNERSHIP_OF[winner]
        tiles = [p.tile for p in self.trick]
        points = (
            POINTS_PER_TRICK + COUNT[tiles[0]] + COUNT[tiles[1]] + COUNT[tiles[2]] + COUNT[tiles[3]]
        )
        self.points[side] += points
        self.tricks_won[side] += 1
        number = len(self.piles) + 1
        self.piles.append(Pile(trick=number, side=side, tiles=sorted(tiles)))
        self.trick = []
        self.turn = winner
        events.append(TrickTaken(trick=number, winner=winner, side=side, points=points))
        result = proven_result(contract, self.points, self.tricks_won)
        if result is not None:
            self._finish(result, events)
        return events

    def _finish(self, result: HandResult, events: list[Event]) -> None:
        self.result = result
        self.phase, self.turn = "over", None
        events.append(HandEnded(self.review()))

    # -- simulation helpers ----------------------------------------------------------------

    def clone(self) -> Hand:
        """An independent copy, cheap enough for search (tiles and actions are immutable)."""
        other = Hand.__new__(Hand)
        for name in Hand.__slots__:
            value = getattr(self, name)
            if isinstance(value, list):
                value = list(value)
            elif isinstance(value, dict):
                value = {k: list(v) if isinstance(v, list) else v for k, v in value.items()}
            setattr(other, name, value)
        return other


def _tile_text(tile: object) -> str:
    try:
        low: object
        high: object
        low, high = tile  # type: ignore[misc]
    except (TypeError, ValueError):
        return repr(tile)
    if isinstance(low, int) and isinstance(high, int) and low > high:
        return f"[{low}|{high}] (a tile is written low half first: [{high}|{low}])"
    return f"[{low}|{high}]"
