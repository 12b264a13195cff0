"""Deals of the tiles a seat cannot see, drawn as likely as the auction makes them.

Before the play nothing is seen but the seat's own seven tiles, so a deal of the other 21 is
uniform but for what the bids say. The draw is sampling-importance-resampling: ``proposals``
uniform deals, each weighed by the auction model (``beliefs``: the product over the other
seats of P(their actions | their hand)), then ``count`` of them drawn in proportion to those
weights (systematic resampling: one random offset, so the draw is stable and cheap). The
worlds drawn are then as likely as their weights, and a strong bid ahead of this seat shows
in them as a strong hand. Everything random comes from the ``rng`` given.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from referee.rules.tiles import SEATS, Seat
from referee.strong.beliefs import Auction

#: A deal: the four seats' tiles as ``TILES`` masks, A first.
Deal = tuple[int, int, int, int]


@dataclass(frozen=True)
class Worlds:
    """The deals drawn, and how well the proposals covered the auction's weights."""

    deals: list[Deal]
    #: The effective sample size of the proposals (1/sum of squared normalised weights): a
    #: small one says the auction allowed few of the uniform deals.
    effective: float


def draw(
    seat: Seat,
    hand: int,
    auction: Auction | None,
    rng: random.Random,
    count: int,
    proposals: int,
) -> Worlds:
    """``count`` deals of the tiles outside ``hand`` to the other seats, resampled by the
    auction's weights from ``proposals`` uniform ones (uniform ones if ``auction`` is None)."""
    me = SEATS.index(seat)
    others = [i for i in range(4) if i != me]
    rest = [i for i in range(28) if not hand >> i & 1]
    deals: list[Deal] = []
    weights: list[float] = []
    for _ in range(proposals if auction is not None else count):
        rng.shuffle(rest)
        hands = [0, 0, 0, 0]
        hands[me] = hand
        for k, other in enumerate(others):
            bits = 0
            for i in rest[7 * k : 7 * k + 7]:
                bits |= 1 << i
            hands[other] = bits
        deal: Deal = (hands[0], hands[1], hands[2], hands[3])
        deals.append(deal)
        if auction is not None:
            w = 1.0
            for other in others:
                w *= auction.weight(SEATS[other], hands[other])
            weights.append(w)
    if auction is None:
        return Worlds(deals, float(len(deals)))
    total = sum(weights)
    if total <= 0:  # nothing fits the model: keep the uniform deals
        return Worlds(deals[:count], 0.0)
    effective = total * total / sum(w * w for w in weights)
    step = total / count
    at = rng.random() * step
    chosen: list[Deal] = []
    running = 0.0
    k = 0
    for deal, w in zip(deals, weights, strict=True):
        running += w
        while k < count and at + k * step < running:
            chosen.append(deal)
            k += 1
    while len(chosen) < count:  # rounding at the very end
        chosen.append(deals[-1])
    return Worlds(chosen, effective)
