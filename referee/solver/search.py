"""Does the declaring side reach its bid, if every hand were known and both sides played
perfectly? An exact ("double dummy") search of a hand's play, on bit masks.

Two cores give the same answers: ``_search.c``, compiled at install (30-plus times faster),
and ``PythonSolver`` here, used where no compiler was found and as the oracle the tests hold
the compiled one to. ``Solver`` is the one in use and ``CORE`` says which it is.

Tiles are numbered as ``TILES`` lists them (0 = [0|0] ... 27 = [6|6]) and a hand is a 28-bit
mask; seats are 0-3 (A-D). For each trump the suit a tile calls, the tiles that follow each
suit and each tile's strength are tables (``Tables``), so a trick is a few lookups.

The question asked is the zero-window one the rules end a hand on: the declarers make a
point contract once they hold the bid and are set once the defenders hold more than 42 minus
it (an all-tricks contract is set by the defenders' first trick). So the search is an
AND/OR tree — the declarers need one move that makes, the defenders one that sets — cut as
soon as either is found, with the answers of positions at trick boundaries remembered.

Pruned (the default; ``pruned=False`` searches as the baselines did): of twin tiles in a
hand — equal count, the same suits, no other seat's tile between them (``Tables.twins``: in
42, trumps of equal count) — one is tried, since the other has its value; and a seat
following a trick tries the cheap play first (``follow_order``), so the cut comes sooner.
The same answers from about half the positions at the first lead (``referee bench solver``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Final

from referee.rules.actions import Trump
from referee.rules.suits import CALLED, FOLLOWERS, STRENGTH
from referee.rules.tiles import COUNT, TILES, TOTAL_POINTS, Tile
from referee.solver.pruning import follow_order, trick_best

INDEX: Final[dict[Tile, int]] = {tile: i for i, tile in enumerate(TILES)}
#: The clock is read once every this many positions plus one (a power of two, minus one).
_CLOCK_EVERY: Final = 255


class OutOfTime(Exception):
    """The search passed its deadline."""


#: Hand points of each tile by index.
POINTS: Final[tuple[int, ...]] = tuple(COUNT[tile] for tile in TILES)


def mask(tiles: list[Tile] | tuple[Tile, ...]) -> int:
    bits = 0
    for tile in tiles:
        bits |= 1 << INDEX[tile]
    return bits


def indices(bits: int) -> list[int]:
    """The tile indices in a mask, lowest first."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


@dataclass(frozen=True)
class Tables:
    """One trump's rules as lookups: ``called[tile]`` the suit a led tile calls,
    ``followers[suit]`` the mask of tiles that follow it, ``strength[suit][tile]`` how
    strongly a tile bids for a trick of that suit (-1: it cannot win).

    And the tiles that may be twins: ``twins[tile]`` the mask of tiles with the same count,
    the same suit called and the same suits followed or won (in 42, trumps of equal count),
    and ``between[x][y]`` the tiles whose strength lies between twins ``x`` and ``y`` in some
    suit. Twins in one hand with none of ``between`` held by another seat are the same tile
    for the rest of the hand (only their order against other hands' tiles ever counts), so a
    search tries one of them."""

    called: tuple[int, ...]
    followers: tuple[int, ...]
    strength: tuple[tuple[int, ...], ...]
    twins: tuple[int, ...]
    between: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, trump: Trump) -> Tables:
        suits = range(8)
        called = tuple(CALLED[trump][tile] for tile in TILES)
        followers = tuple(mask(tuple(FOLLOWERS[trump][suit])) for suit in suits)
        strength = tuple(tuple(STRENGTH[trump][suit][tile] for tile in TILES) for suit in suits)

        def alike(x: int, y: int) -> bool:
            return (POINTS[x], called[x]) == (POINTS[y], called[y]) and all(
                (strength[suit][x] < 0, followers[suit] >> x & 1)
                == (strength[suit][y] < 0, followers[suit] >> y & 1)
                for suit in suits
            )

        def between(x: int, y: int) -> int:
            tiles = 0
            for row in strength:
                low, high = sorted((row[x], row[y]))
                if low >= 0:
                    tiles |= mask([TILES[t] for t in range(len(TILES)) if low < row[t] < high])
            return tiles

        ours = range(len(TILES))
        return cls(
            called=called,
            followers=followers,
            strength=strength,
            twins=tuple(sum(1 << y for y in ours if y != x and alike(x, y)) for x in ours),
            between=tuple(tuple(between(x, y) for y in ours) for x in ours),
        )

    def twin(self, tried: int, tile: int, others: int, suit: int, best: int) -> int | None:
        """The one of the ``tried`` tiles of the same hand ``tile`` is a twin of, while the
        other seats hold ``others`` and the trick's best strength in its ``suit`` is ``best``
        (suit -1: leading), or None. A twin has the value of the tile it twins."""
        for x in indices(tried & self.twins[tile]):
            if self.between[x][tile] & others:
                continue
            if suit < 0 or (self.strength[suit][x] > best) == (self.strength[suit][tile] > best):
                return x
        return None


_TABLES: dict[Trump, Tables] = {}


def tables(trump: Trump) -> Tables:
    found = _TABLES.get(trump)
    if found is None:
        found = _TABLES[trump] = Tables.of(trump)
    return found


@dataclass(frozen=True)
class Position:
    """A moment of a hand's play: every seat's tiles, whose turn, the trick so far as
    (seat, tile) pairs, and the points and tricks each side holds (``declarers``' first)."""

    hands: tuple[int, int, int, int]
    turn: int
    trick: tuple[tuple[int, int], ...] = ()
    points: tuple[int, int] = (0, 0)
    tricks: tuple[int, int] = (0, 0)


def result(target: int | None, ours: int, theirs: int, left: int) -> bool | None:
    """A contract's result once a trick is taken (did the declarers make it?), or None while
    it is open: ``target`` the bid's points (None: all tricks, where the defenders' first
    trick has set it already), ``ours``/``theirs`` the declarers'/defenders' points, ``left``
    the tiles still in hand."""
    if target is None:
        return None if left else True
    if ours >= target:
        return True
    if theirs > TOTAL_POINTS - target:
        return False
    return None


def playable(hand: int, suit: int, rules: Tables) -> int:
    """The tiles of ``hand`` that may be played to a trick of ``suit`` (-1: leading it, any):
    the suit's followers if it holds any."""
    if suit < 0:
        return hand
    return hand & rules.followers[suit] or hand


def advance(position: Position, tile: int, declarers: int, target: int | None,
            rules: Tables) -> Position | bool:  # fmt: skip
    """The position once the seat to play plays ``tile``: the next seat's turn, or the trick
    scored and its winner to lead; or, when that trick ends the hand, its result."""
    a, b, c, d = (
        hand & ~(1 << tile) if seat == position.turn else hand
        for seat, hand in enumerate(position.hands)
    )
    hands = (a, b, c, d)
    trick = (*position.trick, (position.turn, tile))
    if len(trick) < 4:
        return replace(position, hands=hands, turn=(position.turn + 1) % 4, trick=trick)
    strength = rules.strength[rules.called[trick[0][1]]]
    winner = max(trick, key=lambda down: strength[down[1]])[0]
    points = 1 + sum(POINTS[down[1]] for down in trick)
    ours, theirs = position.points
    taken, lost = position.tricks
    if winner % 2 == declarers:
        ours, taken = ours + points, taken + 1
    elif target is None:
        return False
    else:
        theirs, lost = theirs + points, lost + 1
    done = result(target, ours, theirs, a | b | c | d)
    if done is not None:
        return done
    return Position(hands=hands, turn=winner, points=(ours, theirs), tricks=(taken, lost))


@dataclass
class PythonSolver:
    """Answers make-or-set questions for one contract: ``declarers`` is 0 (A+C) or 1 (B+D),
    ``target`` the bid's points, or None for an all-tricks bid. The search in Python: the
    fallback where the compiled one (``_search.c``) was not built, and the oracle the tests
    hold it to (``pruned=False``: the plainest search)."""

    trump: Trump
    declarers: int
    target: int | None
    #: ``time.perf_counter()`` past which a search gives up (``OutOfTime``); None: never.
    deadline: float | None = None
    #: Positions after which a search gives up (``OutOfTime``): a budget that does not depend
    #: on the machine, so that what is given up is the same on every run; None: never.
    max_nodes: int | None = None
    #: Positions searched (for the benchmark).
    nodes: int = 0
    #: Try one of twin tiles, and follow in ``follow_order`` (False: every tile, strongest
    #: first, as the search was before: the same answers from more positions).
    pruned: bool = True
    _memo: dict[tuple[int, int, int, int, int, int], bool] = field(default_factory=dict)
    #: (hand, suit) -> the tiles it may play, in the order they are tried.
    _choices: dict[tuple[int, int], tuple[int, ...]] = field(default_factory=dict)
    #: (hand, suit, best strength, ahead) -> the same, pruned (``follow_order``).
    _follows: dict[tuple[int, int, int, bool], tuple[int, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rules = tables(self.trump)

    def makes(self, position: Position) -> bool:
        """Do the declarers make the contract from ``position`` with best play on both sides?"""
        trick = list(position.trick)
        suit = self.rules.called[trick[0][1]] if trick else -1
        return self._play(list(position.hands), position.turn, trick, suit, *position.points)

    def move_values(self, position: Position) -> dict[int, bool]:
        """For each tile the seat to play may play: do the declarers make after it?"""
        values: dict[int, bool] = {}
        rules = self.rules
        suit = rules.called[position.trick[0][1]] if position.trick else -1
        hand = position.hands[position.turn]
        a, b, c, d = position.hands
        others = (a | b | c | d) & ~hand
        _, best = trick_best(position.trick, suit, rules.strength)
        tried = 0
        for tile in sorted(self._order(hand, suit)):  # index order
            twin = rules.twin(tried, tile, others, suit, best) if self.pruned else None
            if twin is not None:
                values[tile] = values[twin]
                continue
            tried |= 1 << tile
            hands = list(position.hands)
            hands[position.turn] &= ~(1 << tile)
            trick = [*position.trick, (position.turn, tile)]
            called = rules.called[trick[0][1]]
            values[tile] = self._after(hands, trick, called, *position.points)
        return values

    # -- the search ----------------------------------------------------------------------

    def _after(self, hands: list[int], trick: list[tuple[int, int]], suit: int, ours: int,
               theirs: int) -> bool:  # fmt: skip
        """The value once the last tile of ``trick`` is down: the next seat plays, or the
        trick is complete and scored."""
        if len(trick) < 4:
            return self._play(hands, (trick[-1][0] + 1) % 4, trick, suit, ours, theirs)
        strength = self.rules.strength[suit]
        winner = max(trick, key=lambda played: strength[played[1]])[0]
        points = 1 + POINTS[trick[0][1]] + POINTS[trick[1][1]] + POINTS[trick[2][1]]
        points += POINTS[trick[3][1]]
        if winner % 2 == self.declarers:
            ours += points
        elif self.target is None:
            return False
        else:
            theirs += points
        settled = result(self.target, ours, theirs, hands[0] | hands[1] | hands[2] | hands[3])
        if settled is not None:
            return settled
        return self._lead(hands, winner, ours, theirs)

    def _lead(self, hands: list[int], leader: int, ours: int, theirs: int) -> bool:
        key = (hands[0], hands[1], hands[2], hands[3], leader, ours)
        known = self._memo.get(key)
        if known is None:
            known = self._memo[key] = self._play(hands, leader, [], -1, ours, theirs)
        else:
            self.nodes += 1  # a position answered from memory takes time too
        return known

    def _spent(self) -> bool:
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            return True
        return self.deadline is not None and time.perf_counter() > self.deadline

    def _order(self, hand: int, suit: int) -> tuple[int, ...]:
        """The tiles ``hand`` may play to a trick of ``suit`` (-1: leading it), strongest
        first — by the led suit, or leading by the suit each calls: the side to move most
        often wins with its best tile, and a cut comes sooner."""
        rules = self.rules
        if suit < 0:
            return tuple(
                sorted(indices(hand), key=lambda tile: -rules.strength[rules.called[tile]][tile])
            )
        strength = rules.strength[suit]
        return tuple(sorted(indices(playable(hand, suit, rules)), key=lambda t: -strength[t]))

    def _play(self, hands: list[int], seat: int, trick: list[tuple[int, int]], suit: int,
              ours: int, theirs: int) -> bool:  # fmt: skip
        self.nodes += 1
        if not self.nodes & _CLOCK_EVERY and self._spent():
            raise OutOfTime  # nothing half-searched is remembered: _lead stores on return
        hand = hands[seat]
        rules = self.rules
        choices = self._choices.get((hand, suit))
        if choices is None:
            choices = self._choices[hand, suit] = self._order(hand, suit)
        declaring = seat % 2 == self.declarers
        best = -1
        if self.pruned and trick:
            winner, best = trick_best(trick, suit, rules.strength)
            key = (hand, suit, best, winner % 2 == seat % 2)
            ordered = self._follows.get(key)
            if ordered is None:
                ordered = follow_order(choices, suit, best, key[3], rules.strength, POINTS)
                self._follows[key] = ordered
            choices = ordered
        others = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hand
        tried = 0
        for tile in choices:
            if (
                self.pruned
                and tried & rules.twins[tile]
                and rules.twin(tried, tile, others, suit, best) is not None
            ):
                continue
            tried |= 1 << tile
            hands[seat] = hand & ~(1 << tile)
            trick.append((seat, tile))
            lead_suit = rules.called[tile] if len(trick) == 1 else suit
            value = self._after(hands, trick, lead_suit, ours, theirs)
            trick.pop()
            hands[seat] = hand
            if value == declaring:  # the declarers found a make, or the defenders a set
                return value
        return not declaring


class CompiledSolver:
    """``PythonSolver``'s interface over the compiled search (``_search.c``)."""

    def __init__(
        self,
        trump: Trump,
        declarers: int,
        target: int | None,
        deadline: float | None = None,
        max_nodes: int | None = None,
        pruned: bool = True,
    ) -> None:
        self.trump = trump
        self.declarers = declarers
        self.target = target
        self.pruned = pruned
        rules = tables(trump)
        self._search = _compiled.Solver(
            rules.called,
            rules.followers,
            rules.strength,
            POINTS,
            declarers,
            -1 if target is None else target,
            -1 if max_nodes is None else max_nodes,
            twins=rules.twins,
            between=rules.between,
            pruned=pruned,
        )
        self.deadline = deadline

    @property
    def deadline(self) -> float | None:
        return self._deadline

    @deadline.setter
    def deadline(self, when: float | None) -> None:
        """A ``time.perf_counter()`` time, read by the search on its own clock."""
        self._deadline = when
        if when is None:
            self._search.deadline = -1.0
        else:
            self._search.deadline = _compiled.monotonic() + (when - time.perf_counter())

    @property
    def max_nodes(self) -> int | None:
        bound = int(self._search.max_nodes)
        return None if bound < 0 else bound

    @max_nodes.setter
    def max_nodes(self, bound: int | None) -> None:
        """Raised for a second search of the same worlds (its table kept)."""
        self._search.max_nodes = -1 if bound is None else bound

    @property
    def nodes(self) -> int:
        return int(self._search.nodes)

    @nodes.setter
    def nodes(self, value: int) -> None:
        self._search.nodes = value

    def makes(self, position: Position) -> bool:
        made = self._search.makes(*_arguments(position))
        if made is None:
            raise OutOfTime
        return bool(made)

    def move_values(self, position: Position) -> dict[int, bool]:
        values = self._search.move_values(*_arguments(position))
        if values is None:
            raise OutOfTime
        return values  # type: ignore[no-any-return]


def _arguments(position: Position) -> tuple[object, ...]:
    return position.hands, position.turn, position.trick, position.points


try:
    from referee.solver import _search as _compiled  # type: ignore[attr-defined]
except ImportError:  # built without a C compiler: the Python search answers alike
    _compiled = None

#: A search of either core (their interfaces are the same).
Search = PythonSolver | CompiledSolver
#: The search in use, and its name: "c" (compiled at install), or "python".
Solver: Final[type[PythonSolver] | type[CompiledSolver]] = (
    PythonSolver if _compiled is None else CompiledSolver
)
CORE: Final = "python" if _compiled is None else "c"
