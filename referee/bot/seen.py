"""What one seat has seen of the hand in progress, and hands rebuilt from it for simulation.

``Seen`` is built from the seat's view and every public action of the hand (the events):
its own tiles, the dealer, each bid and play with its seat, the contract. From that it knows
the tiles still hidden in the other three hands, how many each holds, and the suits each has
shown out of (a seat that did not follow the called suit holds none of it). ``sample`` deals
the hidden tiles at random consistently with all of that, and ``hand_so_far`` replays the
hand so far through the engine from such a deal: a ``referee.rules.Hand`` at exactly the
state the seat is deciding in, ready for search (``legal_actions``, ``apply``, ``clone``)::

    seen = decision.seen
    for _ in range(50):
        hand = seen.hand_so_far(rng=rng)         # one consistent guess at the hidden tiles
        ...                                  # play it out, score each legal action

With the true hidden tiles (``hand_so_far(hidden)``) the rebuilt hand is the engine's own state.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

from referee.rules.actions import Play
from referee.rules.contract import Contract
from referee.rules.events import Acted, HandStarted
from referee.rules.hand import Hand
from referee.rules.suits import CALLED, FOLLOWERS, TRUMP_SUIT, suit_name
from referee.rules.tiles import SEATS, TILES, Partnership, Seat, Tile
from referee.rules.views import Move, PlayedTile, View

__all__ = ["TRUMP_SUIT", "HandHistory", "HistoryMismatch", "Seen"]


class HistoryMismatch(ValueError):
    """The public actions this seat collected do not agree with its view (events were lost)."""


class HandHistory:
    """Every public action of the current hand, collected from the events as they come."""

    def __init__(self) -> None:
        self.hand_number: int | None = None
        self.moves: list[Move] = []

    def start(self, hand_number: int | None) -> None:
        self.hand_number = hand_number
        self.moves = []

    def see(self, events: Iterable[object]) -> None:
        for event in events:
            if type(event) is HandStarted:
                self.start(event.hand_number)
            elif type(event) is Acted:
                self.moves.append(Move(event.seat, event.action))

    def seen(self, view: View) -> Seen:
        """What the seat knows now; raises ``HistoryMismatch`` if the history disagrees."""
        if self.hand_number is None:  # the first hand, without a hand_start event
            self.hand_number = view.hand_number
        elif view.hand_number != self.hand_number:  # a hand whose start this seat missed
            self.start(view.hand_number)
        return Seen(view, self.moves)


class Seen:
    """One seat's information about the hand in progress (see the module's docstring).

    Attributes: ``seat``, ``dealer``, ``hand_number``, ``marks`` (before this hand),
    ``contract`` (None before trump), ``trump``, ``hand`` (the seat's tiles now, dealt order),
    ``hand_sizes``, ``moves`` (every action of the hand with its seat, in order), ``plays``
    (every tile played, with its seat), ``played`` (those tiles), ``unseen`` (the tiles in the
    other three hands), ``voids`` (per seat, the suits it has shown out of: 0-6, and
    ``TRUMP_SUIT`` for trump), ``others`` (the other three seats).
    """

    __slots__ = (
        "contract",
        "dealer",
        "hand",
        "hand_number",
        "hand_sizes",
        "marks",
        "moves",
        "others",
        "played",
        "plays",
        "seat",
        "trump",
        "unseen",
        "voids",
    )

    def __init__(self, view: View, moves: Sequence[Move]) -> None:
        self.seat: Seat = view.seat
        self.dealer: Seat = view.dealer
        self.hand_number = view.hand_number
        self.marks: dict[Partnership, int] = dict(view.marks)
        self.contract: Contract | None = view.contract
        self.trump = None if view.contract is None else view.contract.trump
        self.hand: tuple[Tile, ...] = tuple(view.hand)
        self.hand_sizes: dict[Seat, int] = dict(view.hand_sizes)
        self.moves: tuple[Move, ...] = tuple(moves)
        self.others: tuple[Seat, ...] = tuple(s for s in SEATS if s != self.seat)
        self.plays: tuple[PlayedTile, ...] = tuple(
            PlayedTile(m.seat, m.action.tile) for m in self.moves if type(m.action) is Play
        )
        self.played: frozenset[Tile] = frozenset(p.tile for p in self.plays)
        self.unseen: frozenset[Tile] = frozenset(TILES) - self.played - set(self.hand)
        self._check(view)
        self.voids: dict[Seat, frozenset[int]] = self._voids()

    def _check(self, view: View) -> None:
        bids = [m for m in self.moves if type(m.action) is not Play][: len(view.bids)]
        problems = []
        if bids != view.bids:
            problems.append("the bids")
        if list(self.plays[len(self.plays) - len(view.trick) :]) != view.trick:
            problems.append("the current trick")
        if len(self.plays) % 4 != len(view.trick) or len(self.plays) > 28:
            problems.append("the number of plays")
        for seat in SEATS:
            played = sum(p.seat == seat for p in self.plays)
            if played + view.hand_sizes[seat] != 7:
                problems.append(f"{seat}'s hand size")
        if (
            len(self.unseen) + len(self.hand) + len(self.played) != 28
            or set(self.hand) & self.played
        ):
            problems.append("the tiles played")
        if problems:
            raise HistoryMismatch(
                f"the events seen this hand disagree with the view ({', '.join(problems)});"
                " a message was lost or the hand's start was missed"
            )

    def _voids(self) -> dict[Seat, frozenset[int]]:
        voids: dict[Seat, set[int]] = {seat: set() for seat in SEATS}
        if self.trump is not None:
            called, followers = CALLED[self.trump], FOLLOWERS[self.trump]
            for start in range(0, len(self.plays), 4):
                trick = self.plays[start : start + 4]
                suit = called[trick[0].tile]
                for play in trick[1:]:
                    if play.tile not in followers[suit]:
                        voids[play.seat].add(suit)
        return {seat: frozenset(suits) for seat, suits in voids.items()}

    # -- the hidden tiles ------------------------------------------------------------------

    def may_hold(self, seat: Seat) -> frozenset[Tile]:
        """The hidden tiles ``seat`` may hold: unseen, and of no suit it has shown out of."""
        if seat == self.seat:
            return frozenset(self.hand)
        allowed = set(self.unseen)
        if self.trump is not None:
            for suit in self.voids[seat]:
                allowed -= FOLLOWERS[self.trump][suit]
        return frozenset(allowed)

    def check(self, hidden: Mapping[Seat, Sequence[Tile]]) -> None:
        """Raise ``ValueError`` unless ``hidden`` (the other seats' tiles now) fits the facts."""
        given: list[Tile] = []
        for seat in self.others:
            tiles = list(hidden[seat])
            if len(tiles) != self.hand_sizes[seat]:
                raise ValueError(f"{seat} holds {self.hand_sizes[seat]} tiles, not {len(tiles)}")
            allowed = self.may_hold(seat)
            for tile in tiles:
                if tile in self.played:
                    raise ValueError(f"{tile} was already played")
                if tile in self.hand:
                    raise ValueError(f"{tile} is in {self.seat}'s own hand")
                if tile not in allowed:
                    shown = ", ".join(sorted(suit_name(s) for s in self.voids[seat]))
                    raise ValueError(f"{seat} showed out of {shown}: it cannot hold {tile}")
            given += tiles
        if len(set(given)) != len(given) or set(given) != self.unseen:
            raise ValueError("the hidden hands must hold each unseen tile exactly once")

    def sample(self, rng: random.Random | None = None) -> dict[Seat, list[Tile]]:
        """The other seats' tiles, drawn at random consistently with everything seen.

        A few uniform deals of the unseen tiles are tried first (an accepted one is uniform
        over the consistent deals); when the voids make those unlikely, tiles are placed one
        at a time, each to a random seat that leaves the rest placeable (always succeeds,
        close to but not exactly uniform).
        """
        rng = rng or random.Random()
        unseen = sorted(self.unseen)
        sizes = [self.hand_sizes[s] for s in self.others]
        allowed = [self.may_hold(s) for s in self.others]
        for _ in range(20):
            rng.shuffle(unseen)
            hands, start = [], 0
            for size in sizes:
                hands.append(unseen[start : start + size])
                start += size
            if all(set(h) <= a for h, a in zip(hands, allowed, strict=True)):
                return {seat: sorted(h) for seat, h in zip(self.others, hands, strict=True)}
        return self._place(unseen, sizes, allowed, rng)

    def _place(
        self,
        tiles: list[Tile],
        sizes: list[int],
        allowed: list[frozenset[Tile]],
        rng: random.Random,
    ) -> dict[Seat, list[Tile]]:
        left = list(sizes)
        todo = list(tiles)
        rng.shuffle(todo)
        hands: list[list[Tile]] = [[] for _ in sizes]
        # Per tile, the seats that may hold it as a bit mask: Hall's condition on masks.
        seats = [sum(1 << k for k in range(len(sizes)) if tile in allowed[k]) for tile in todo]
        for i, tile in enumerate(todo):
            rest = seats[i + 1 :]
            choices = [k for k in range(len(sizes)) if left[k] and tile in allowed[k]]
            choices.sort(key=lambda k: -left[k] * rng.random())  # random, favouring room
            for k in choices:
                left[k] -= 1
                if _placeable(rest, left):
                    hands[k].append(tile)
                    break
                left[k] += 1
            else:
                raise ValueError("no deal of the hidden tiles fits what was seen")
        return {seat: sorted(h) for seat, h in zip(self.others, hands, strict=True)}

    # -- the hand rebuilt ------------------------------------------------------------------

    def deal(self, hidden: Mapping[Seat, Sequence[Tile]]) -> dict[Seat, list[Tile]]:
        """The seven tiles each seat was dealt, given the other seats' tiles now.

        Each seat's tiles now come first, in the order given (the seat's own in its view's
        order), then the tiles it played: replaying the hand leaves them in that order.
        """
        self.check(hidden)
        now: dict[Seat, list[Tile]] = {s: list(hidden[s]) for s in self.others}
        now[self.seat] = list(self.hand)
        for play in self.plays:
            now[play.seat].append(play.tile)
        return now

    def hand_so_far(
        self,
        hidden: Mapping[Seat, Sequence[Tile]] | None = None,
        rng: random.Random | None = None,
    ) -> Hand:
        """A ``Hand`` at this moment: dealt from ``hidden`` (or ``sample(rng)``), replayed."""
        deal = self.deal(self.sample(rng) if hidden is None else hidden)
        hand = Hand(self.dealer, deal, hand_number=self.hand_number, marks=self.marks)
        for move in self.moves:
            hand.apply(move.seat, move.action)
        return hand


def _placeable(seats: list[int], left: list[int]) -> bool:
    """Hall's condition: every set of seats has room for the tiles only those seats may hold
    (``seats``: per tile still to place, the seats that may hold it as a bit mask)."""
    n = len(left)
    for mask in range(1 << n):  # mask 0: a tile no seat may hold
        room = sum(left[k] for k in range(n) if mask >> k & 1)
        only = sum(1 for who in seats if not who & ~mask)
        if only > room:
            return False
    return sum(left) == len(seats)
