"""What the auction says about the hands: a model of how a seat bids, as a likelihood
P(its action | its hand), to weigh sampled deals by.

A hand's **strength under a trump** is a sum over its tiles of a value by the tile's role
under that trump — its rank in the trump suit (the top trump, the second, ...), an off-suit
double, another off tile — plus its count; the hand's strength is the best over the nine
trumps (no trump has a fitted bias of its own). Every role's value is fitted to logs, so the
sum is a table lookup: the 28-bit hand mask in four 7-tile chunks, one table per chunk and
trump (a few microseconds a hand).

A seat's **bid or pass** then has the likelihood of an ordinal choice: it bids at ``level``
(30-41 points; all tricks its own level) with chance ``sigmoid(strength - threshold(level))``,
``threshold`` rising with the level, lower when an opponent holds the bid (an overcall). A
pass is ``1 -`` that chance at the lowest bid it could have made. A pass while its partner
holds the bid says nothing (the bundled bots never bid over their partner): weight 1. The
**declarer's trump** has a softmax likelihood over the nine trumps' strengths.

The model is fitted (``referee strong fit-beliefs LOGS``) to the true hands and
actions in match logs — the heuristic and strong bots against each other — and shipped as
``beliefs.json``. The API, for the bidding simulation (``auction``) and for play:

- ``Auction.of(bids, contract=None)`` (cached: one per auction), then
  ``auction.weight(seat, hand_mask)`` for one seat, ``auction.deal_weight(hands, me)`` for a
  whole deal (the product over the seats but ``me``);
- ``weight(view_or_bids, seat, hand_mask, contract=True)``, the same in one call (from a
  ``View``, the declarer's trump counts once a contract stands);
- ``hand_mask``: the seat's whole hand as dealt, bit ``i`` for ``TILES[i]``
  (``solver.mask``): during play, the tiles a world gives it now plus those it played
  (``played_masks(seen)``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final

from referee.bot.seen import Seen
from referee.rules.actions import NO_TRUMP, TRUMPS, AllTricksBid, Bid, Pass, Trump
from referee.rules.contract import Contract
from referee.rules.suits import STRENGTH, TRUMP_SUIT, is_trump
from referee.rules.tiles import COUNT, PARTNER_OF, SEATS, TILES, Seat
from referee.rules.views import Move, View

MODEL: Final = Path(__file__).with_name("beliefs.json")
#: Roles a tile has under a trump: its rank in the trump suit (0: the best trump ... 6), an
#: off-suit double (7), another off tile (8: the baseline, value 0); then its count.
TRUMP_RANKS: Final = 7
OFF_DOUBLE: Final = 7
ROLES: Final = 9
#: The level that stands for an all-tricks bid in ``threshold``.
ALL_TRICKS: Final = 42


def role(trump: Trump, index: int) -> int:
    """The role of ``TILES[index]`` under ``trump``."""
    tile = TILES[index]
    if is_trump(trump, tile):
        strength = STRENGTH[trump][TRUMP_SUIT][tile]
        return sum(1 for other in TILES if STRENGTH[trump][TRUMP_SUIT][other] > strength)
    return OFF_DOUBLE if tile.low == tile.high else ROLES - 1


#: ROLE[t][i]: the role of tile ``i`` under ``TRUMPS[t]``.
ROLE: Final = tuple(tuple(role(trump, i) for i in range(len(TILES))) for trump in TRUMPS)


def role_counts(trump_index: int, hand: int) -> list[int]:
    """How many tiles of the hand have each role under ``TRUMPS[trump_index]`` (fitting)."""
    counts = [0] * ROLES
    for i in range(len(TILES)):
        if hand >> i & 1:
            counts[ROLE[trump_index][i]] += 1
    return counts


def hand_count(hand: int) -> int:
    """Hand points held in count tiles."""
    return sum(COUNT[TILES[i]] for i in range(len(TILES)) if hand >> i & 1)


@dataclass(frozen=True)
class Beliefs:
    """The fitted model: ``values[r]`` per role (the last, other off tiles, 0), ``count``
    per point of count held, ``no_trump`` added to no trump's strength; the bid threshold
    ``base + per_point * (level - 30) + past_34 * max(0, level - 34) - overcall * [an
    opponent holds the bid]``, all tricks at ``all_tricks``; ``trump_sharpness`` for the
    declaration's softmax."""

    values: tuple[float, ...]
    count: float
    no_trump: float
    base: float
    per_point: float
    past_34: float
    overcall: float
    all_tricks: float
    trump_sharpness: float

    def __post_init__(self) -> None:
        # CHUNKS[t][c][bits]: the strength under TRUMPS[t] of the tiles 7c..7c+6 in ``bits``.
        chunks = []
        for t, trump in enumerate(TRUMPS):
            value = [
                self.values[ROLE[t][i]] + self.count * COUNT[TILES[i]] for i in range(len(TILES))
            ]
            bias = self.no_trump if trump == NO_TRUMP else 0.0
            per_trump = []
            for c in range(4):
                table = []
                for bits in range(128):
                    total = bias if c == 0 else 0.0
                    for j in range(7):
                        if bits >> j & 1:
                            total += value[7 * c + j]
                    table.append(total)
                per_trump.append(tuple(table))
            chunks.append(tuple(per_trump))
        object.__setattr__(self, "_chunks", tuple(chunks))

    def strengths(self, hand: int) -> list[float]:
        """The hand's strength under each of ``TRUMPS``, in that order."""
        a, b, c, d = hand & 127, hand >> 7 & 127, hand >> 14 & 127, hand >> 21 & 127
        return [t0[a] + t1[b] + t2[c] + t3[d] for t0, t1, t2, t3 in self._chunks]  # type: ignore[attr-defined]

    def likeliest_trump(self, hand: int) -> Trump:
        """The trump a declarer holding ``hand`` most likely names."""
        strengths = self.strengths(hand)
        return TRUMPS[strengths.index(max(strengths))]

    def strength(self, hand: int) -> float:
        return max(self.strengths(hand))

    def threshold(self, level: int, overcall: bool) -> float:
        if level >= ALL_TRICKS:
            return self.all_tricks
        return (
            self.base
            + self.per_point * (level - 30)
            + self.past_34 * max(0, level - 34)
            - (self.overcall if overcall else 0.0)
        )

    def bid_chance(self, hand: int, level: int, overcall: bool) -> float:
        """P(a seat holding ``hand`` bids at ``level``, or higher)."""
        return _sigmoid(self.strength(hand) - self.threshold(level, overcall))

    def trump_chance(self, hand: int, trump: Trump) -> float:
        """P(a declarer holding ``hand`` names ``trump``)."""
        scores = [self.trump_sharpness * s for s in self.strengths(hand)]
        top = max(scores)
        total = sum(math.exp(s - top) for s in scores)
        return math.exp(scores[TRUMPS.index(trump)] - top) / total

    @classmethod
    def load(cls, path: Path = MODEL) -> Beliefs:
        return cls.from_dict(json.loads(path.read_text()))

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Beliefs:
        fields = {name: data[name] for name in cls.__dataclass_fields__}
        fields["values"] = tuple(fields["values"])  # type: ignore[arg-type]
        return cls(**fields)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def _sigmoid(z: float) -> float:
    if z < -30:
        return 1e-13
    return 1 / (1 + math.exp(-z))


@dataclass(frozen=True)
class Evidence:
    """What one seat's action in the auction says: it bid at ``level`` (``bid``) or passed
    when ``level`` was the lowest bid open to it; ``overcall``: an opponent held the bid."""

    level: int
    bid: bool
    overcall: bool


#: The highest lowest-open-bid at which a pass is read when high passes are not: the model
#: was fitted on bots that never bid over 34, so it has never seen a pass over 35 or more.
HIGHEST_READ_PASS: Final = 35


def evidence(bids: Sequence[Move], high_passes: bool = True) -> dict[Seat, Evidence]:
    """Each seat's informative action in an auction (a pass under its partner's bid, or a
    seat that has not spoken, is not in it; nor, unless ``high_passes``, a pass over a point
    bid above 34, which the fit never saw)."""
    out: dict[Seat, Evidence] = {}
    high: Move | None = None
    for move in bids:
        action = move.action
        holder = high.seat if high is not None else None
        standing = high.action if high is not None else None
        lowest = (
            ALL_TRICKS
            if isinstance(standing, AllTricksBid)
            else 30
            if standing is None
            else standing.points + 1  # type: ignore[union-attr]
        )
        overcall = holder is not None and holder != PARTNER_OF[move.seat]
        if isinstance(action, Pass):
            unread = not high_passes and HIGHEST_READ_PASS < lowest < ALL_TRICKS
            if (holder is None or overcall) and not unread:
                out[move.seat] = Evidence(lowest, bid=False, overcall=overcall)
        else:
            level = action.points if isinstance(action, Bid) else ALL_TRICKS
            out[move.seat] = Evidence(level, bid=True, overcall=overcall)
            high = move
    return out


@lru_cache(maxsize=1)
def shipped() -> Beliefs:
    """The model in ``beliefs.json``, read once."""
    return Beliefs.load()


class Auction:
    """The likelihood of each seat's action in one auction (and the declarer's trump)."""

    def __init__(
        self,
        bids: Sequence[Move],
        contract: Contract | None = None,
        model: Beliefs | None = None,
        high_passes: bool = True,
    ) -> None:
        self.model = model or shipped()
        self.evidence = evidence(bids, high_passes)
        self.contract = contract

    @classmethod
    @lru_cache(maxsize=64)
    def of(
        cls, bids: tuple[Move, ...], contract: Contract | None = None, high_passes: bool = True
    ) -> Auction:
        """The auction of the shipped model, kept for the next call with the same bids."""
        return cls(bids, contract, high_passes=high_passes)

    def weight(self, seat: Seat, hand: int) -> float:
        """P(``seat``'s actions | it holds ``hand``): its bid or pass, and, for the
        declarer, its trump. 1 for a seat whose actions say nothing."""
        found = self.evidence.get(seat)
        chance = 1.0
        if found is not None:
            bids = self.model.bid_chance(hand, found.level, found.overcall)
            chance = bids if found.bid else 1.0 - bids
        contract = self.contract
        if contract is not None and contract.declarer == seat:
            chance *= self.model.trump_chance(hand, contract.trump)
        return chance

    def deal_weight(self, hands: Mapping[Seat, int], me: Seat) -> float:
        """The weight of a whole deal (each seat's dealt hand as a mask) for the seat ``me``:
        the product of every other seat's ``weight``."""
        total = 1.0
        for seat, hand in hands.items():
            if seat != me:
                total *= self.weight(seat, hand)
        return total


def played_masks(seen: Seen) -> dict[Seat, int]:
    """The tiles each seat has played so far in the hand, as masks: a seat's dealt hand is
    the tiles a sampled world gives it now plus these."""
    played = dict.fromkeys(SEATS, 0)
    for play in seen.plays:
        played[play.seat] |= 1 << TILES.index(play.tile)
    return played


def weight(
    view_or_bids: View | Sequence[Move], seat: Seat, hand: int, contract: bool = True
) -> float:
    """P(``seat``'s actions in the auction | it was dealt ``hand``), a mask of ``TILES``
    indices: its bid or pass and, once a contract stands and ``contract`` is true, the
    declarer's trump. Only ratios between hands of one seat mean anything."""
    if isinstance(view_or_bids, View):
        bids = tuple(view_or_bids.bids)
        known = view_or_bids.contract if contract else None
    else:
        bids, known = tuple(view_or_bids), None
    return Auction.of(bids, known).weight(seat, hand)
