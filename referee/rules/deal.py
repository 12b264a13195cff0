"""Seeded randomness that any language can reproduce: first dealer and every deal.

The algorithm (version 1), for a match seed ``S`` (an integer, 0 <= S < 2**64):

1. A *stream* with label ``L`` is the sequence of 32-bit unsigned integers read big-endian,
   eight per block, from the blocks ``SHA-256("texas42/v1/" + L + "/" + k)`` for
   k = 0, 1, 2, ... (the text is ASCII, numbers in decimal without leading zeros).
2. ``uniform(n)`` takes the next integer x of the stream; it accepts x when
   ``x < 2**32 - (2**32 mod n)`` and returns ``x mod n``, otherwise it draws again
   (rejection, so there is no modulo bias).
3. The first dealer is ``"ABCD"[uniform(4)]`` on the stream labelled ``"S/dealer"``.
4. Hand number ``h`` (1 for the first hand of the match) is shuffled on the stream labelled
   ``"S/hand/h"``: start from the 28 tiles in canonical order ([0|0], [0|1], ..., [0|6],
   [1|1], ..., [6|6]); for i from 27 down to 1, swap positions i and ``uniform(i + 1)``
   (Fisher-Yates).
5. Dealing: the tile at position p (0-27) goes to the seat p + 1 places clockwise of the
   dealer, so the dealer's left gets positions 0, 4, 8, ...; each hand keeps that order.

Test vectors are in ``tests/rules/test_deal.py`` and ``protocol/deal-test-vectors.md``.
"""

from __future__ import annotations

import hashlib
import struct
from typing import TypeVar

from referee.errors import SeedError
from referee.rules.tiles import SEATS, TILES, Seat, Tile

MAX_SEED = 2**64 - 1
_TWO_32 = 2**32
T = TypeVar("T")


def check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise SeedError(f"a match seed must be an integer from 0 to 2**64-1, not {seed!r}")
    return seed


class Stream:
    """The deterministic stream of 32-bit integers for one label (see the module docstring)."""

    __slots__ = ("_block", "_hasher", "_next", "_words")

    def __init__(self, label: str) -> None:
        self._hasher = hashlib.sha256(f"texas42/v1/{label}/".encode("ascii"))
        self._block = 0
        self._words: tuple[int, ...] = ()
        self._next = 0

    def _extend(self, blocks: int) -> None:
        """Append the next ``blocks`` blocks to the words not yet used."""
        digests = []
        for _ in range(blocks):
            h = self._hasher.copy()
            h.update(str(self._block).encode("ascii"))
            digests.append(h.digest())
            self._block += 1
        fresh = struct.unpack(f">{8 * blocks}I", b"".join(digests))
        self._words = self._words[self._next :] + fresh
        self._next = 0

    def uniform(self, n: int) -> int:
        """A uniform integer in ``range(n)``, by rejection sampling."""
        limit = 2**32 - (2**32 % n)
        while True:
            if self._next == len(self._words):
                self._extend(1)
            x = self._words[self._next]
            self._next += 1
            if x < limit:
                return x % n

    def shuffle(self, items: list[T]) -> None:
        """Fisher-Yates in place: for i from len-1 down to 1, swap i and ``uniform(i + 1)``."""
        # ``uniform`` inlined over words fetched in one go: this runs for every hand dealt.
        self._buffer(len(items) - 1)
        words, w = self._words, self._next
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            x = words[w]
            w += 1
            if x >= _TWO_32 - _TWO_32 % n:  # rejected: about once in 150 million deals
                self._next = w
                j = self.uniform(n)
                self._buffer(i - 1)
                words, w = self._words, self._next
            else:
                j = x % n
            items[i], items[j] = items[j], items[i]
        self._next = w

    def _buffer(self, count: int) -> None:
        """Make sure at least ``count`` unused words are buffered."""
        wanted = count - (len(self._words) - self._next)
        if wanted > 0:
            self._extend(-(-wanted // 8))


def first_dealer(seed: int) -> Seat:
    return SEATS[Stream(f"{check_seed(seed)}/dealer").uniform(4)]


def shuffled_tiles(seed: int, hand_number: int) -> list[Tile]:
    tiles = list(TILES)
    Stream(f"{check_seed(seed)}/hand/{hand_number}").shuffle(tiles)
    return tiles


def deal(seed: int, hand_number: int, dealer: Seat) -> dict[Seat, list[Tile]]:
    """Every seat's seven tiles, in the order they were dealt."""
    tiles = shuffled_tiles(seed, hand_number)
    start = SEATS.index(dealer) + 1
    # Position p goes to the seat p + 1 places clockwise of the dealer: every fourth tile.
    return {seat: tiles[(i - start) % 4 :: 4] for i, seat in enumerate(SEATS)}
