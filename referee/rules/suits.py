"""Suits, following and trick-taking strength, precomputed for each of the nine trumps.

The rules, in the words of RULES.md:

- A trump tile belongs only to the trump suit.
- A led tile calls a suit: a trump tile calls trump; any other tile calls its higher half
  (a non-trump double calls its own number).
- A tile follows the called suit when it is a trump tile (trump called), or when it is not a
  trump tile and either half shows the called number.
- The highest trump wins; without trump, the highest tile of the called suit. In a number suit
  the double is highest and the rest rank by their other half; doubles-trump rank by number.

Every rule question during play is then one dict lookup in the tables below.
"""

from __future__ import annotations

from typing import Final

from referee.rules.actions import DOUBLES, NO_TRUMP, TRUMPS, Trump
from referee.rules.tiles import SUIT_NAMES, TILES, Tile

#: The suit key of the trump suit (number suits are 0-6).
TRUMP_SUIT: Final = 7
Suit = int


def is_trump(trump: Trump, tile: Tile) -> bool:
    if trump == NO_TRUMP:
        return False
    if trump == DOUBLES:
        return tile.low == tile.high
    return trump in tile


def called_suit(trump: Trump, tile: Tile) -> Suit:
    """The suit a tile calls when it is led."""
    return TRUMP_SUIT if is_trump(trump, tile) else tile.high


def follows(trump: Trump, suit: Suit, tile: Tile) -> bool:
    if suit == TRUMP_SUIT:
        return is_trump(trump, tile)
    return not is_trump(trump, tile) and suit in tile


def strength(trump: Trump, suit: Suit, tile: Tile) -> int:
    """How strongly ``tile`` bids for a trick in which ``suit`` was called; -1 cannot win."""
    if is_trump(trump, tile):
        if trump == DOUBLES:
            return 100 + tile.low
        return 100 + (7 if tile.low == tile.high else tile.low + tile.high - int(trump))
    if suit != TRUMP_SUIT and suit in tile:
        return 7 if tile.low == tile.high else tile.low + tile.high - suit
    return -1


def suit_name(suit: Suit) -> str:
    return "trump" if suit == TRUMP_SUIT else SUIT_NAMES[suit]


_SUITS: Final = (*range(7), TRUMP_SUIT)

#: CALLED[trump][tile] -> the suit the tile calls when led.
CALLED: Final[dict[Trump, dict[Tile, Suit]]] = {
    t: {tile: called_suit(t, tile) for tile in TILES} for t in TRUMPS
}
#: FOLLOWERS[trump][suit] -> the tiles that follow that suit.
FOLLOWERS: Final[dict[Trump, dict[Suit, frozenset[Tile]]]] = {
    t: {s: frozenset(tile for tile in TILES if follows(t, s, tile)) for s in _SUITS} for t in TRUMPS
}
#: STRENGTH[trump][suit][tile] -> the tile's strength in a trick where that suit was called.
STRENGTH: Final[dict[Trump, dict[Suit, dict[Tile, int]]]] = {
    t: {s: {tile: strength(t, s, tile) for tile in TILES} for s in _SUITS} for t in TRUMPS
}
