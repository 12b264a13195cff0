"""How likely a hand is to make each bid with each trump: a small model on hand features,
fitted offline (``referee.strong.fit``) and shipped as ``bidding.json``.

The model is ordinal logistic: for the declarer's hand under one trump, with features ``x``,
P(the declarers make ``b`` points) = 1 / (1 + exp(-(w . x + c[b]))), one intercept per bid
(30-42; 42 points is every trick). It is fitted to double-dummy results — sampled deals of the
other 21 tiles, each solved exactly with the declarer leading — then shifted (``shift``) to
what the bot's own play makes of such hands, measured in self-play.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from referee.rules.actions import DOUBLES, NO_TRUMP, Trump
from referee.rules.suits import STRENGTH, TRUMP_SUIT, is_trump
from referee.rules.tiles import COUNT, TILES, Tile

MODEL: Final = Path(__file__).with_name("bidding.json")
BIDS: Final = tuple(range(30, 43))
#: The trumps the bot considers: the numbers and doubles (no-trump hands bid through doubles
#: or not at all: a simplification the data supports rarely enough to matter).
CANDIDATE_TRUMPS: Final[tuple[Trump, ...]] = (0, 1, 2, 3, 4, 5, 6, DOUBLES)
FEATURES: Final = (
    "trumps",
    "top_trumps",
    "trump_double",
    "off_doubles",
    "count",
    "void_suits",
    "backed_off_tiles",
)


def features(hand: list[Tile] | tuple[Tile, ...], trump: Trump) -> list[float]:
    """The hand's features under ``trump`` (see ``FEATURES``)."""
    assert trump != NO_TRUMP
    trumps = [tile for tile in hand if is_trump(trump, tile)]
    all_trumps = sorted(
        (tile for tile in TILES if is_trump(trump, tile)),
        key=lambda tile: -STRENGTH[trump][TRUMP_SUIT][tile],
    )
    top = sum(1 for tile in all_trumps[:3] if tile in trumps)
    if trump == DOUBLES:
        trump_double = float(any(tile == Tile(6, 6) for tile in hand))
    else:
        trump_double = float(Tile(trump, trump) in trumps)
    off = [tile for tile in hand if tile not in trumps]
    off_doubles = sum(1 for tile in off if tile.low == tile.high)
    suits = {n for tile in off for n in tile}
    void = sum(1 for n in range(7) if n not in suits and (trump == DOUBLES or n != trump))
    # Off tiles behind a double held in their suit: once the double has drawn the suit out,
    # each may take a trick of its own.
    doubled = {tile.low for tile in off if tile.low == tile.high}
    backers = sum(
        1 for tile in off if tile.low != tile.high and (tile.low in doubled or tile.high in doubled)
    )
    count = sum(COUNT[tile] for tile in hand) / 5
    return [len(trumps), top, trump_double, off_doubles, count, void, backers]


@dataclass(frozen=True)
class BiddingModel:
    weights: tuple[float, ...]
    intercepts: dict[int, float]
    #: Added to every log-odds: the bot's own play against double-dummy play.
    shift: float = 0.0

    def chance(self, hand: list[Tile] | tuple[Tile, ...], trump: Trump, bid: int) -> float:
        """P(the declarers make ``bid`` points, the declarer holding ``hand``, under ``trump``)."""
        x = features(hand, trump)
        z = sum(w * v for w, v in zip(self.weights, x, strict=True)) + self.intercepts[bid]
        return 1 / (1 + math.exp(-(z + self.shift)))

    @classmethod
    def load(cls, path: Path = MODEL) -> BiddingModel:
        data = json.loads(path.read_text())
        return cls(
            weights=tuple(data["weights"]),
            intercepts={int(bid): value for bid, value in data["intercepts"].items()},
            shift=data.get("shift", 0.0),
        )
