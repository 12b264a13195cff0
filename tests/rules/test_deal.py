"""The seeded deal: first dealer, shuffle and deal, exactly as ``referee/rules/deal.py`` documents.

The reference implementation below is written from the module docstring alone (it uses
only ``hashlib``, not the engine's ``Stream``). Its agreement with the engine shows the
docstring is precise enough for another language to reproduce every deal; the hard-coded
vectors are the published contract (also in ``protocol/deal-test-vectors.md``).
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import re
from collections import Counter
from collections.abc import Iterator
from typing import ClassVar

import pytest

from referee.errors import SeedError
from referee.rules import LEFT_OF, SEATS, TILES, Match, Pass, deal, first_dealer, shuffled_tiles
from referee.rules.deal import Stream

# -- reference implementation, straight from the docstring --------------------------------------

REF_SEATS = "ABCD"
#: [0|0], [0|1], ..., [0|6], [1|1], ..., [6|6]
REF_CANONICAL = [(lo, hi) for lo in range(7) for hi in range(lo, 7)]


def ref_words(label: str, first_block: int = 0) -> Iterator[int]:
    """Step 1: 32-bit big-endian words, eight per SHA-256 block of "texas42/v1/<label>/<k>"."""
    for k in itertools.count(first_block):
        digest = hashlib.sha256(f"texas42/v1/{label}/{k}".encode("ascii")).digest()
        for i in range(8):
            yield int.from_bytes(digest[4 * i : 4 * i + 4], "big")


def ref_uniform(words: Iterator[int], n: int) -> int:
    """Step 2: rejection sampling, accept x < 2**32 - (2**32 mod n), return x mod n."""
    limit = 2**32 - (2**32 % n)
    for x in words:
        if x < limit:
            return x % n
    raise AssertionError("the stream is endless")


def ref_first_dealer(seed: int) -> str:
    """Step 3."""
    return REF_SEATS[ref_uniform(ref_words(f"{seed}/dealer"), 4)]


def ref_shuffle_words(words: Iterator[int]) -> list[tuple[int, int]]:
    """Step 4 on a given word stream: Fisher-Yates from position 27 down to 1."""
    tiles = list(REF_CANONICAL)
    for i in range(27, 0, -1):
        j = ref_uniform(words, i + 1)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


def ref_shuffled(seed: int, hand_number: int) -> list[tuple[int, int]]:
    return ref_shuffle_words(ref_words(f"{seed}/hand/{hand_number}"))


def ref_deal(seed: int, hand_number: int, dealer: str) -> dict[str, list[str]]:
    """Step 5: position p goes to the seat p + 1 places clockwise of the dealer."""
    hands: dict[str, list[str]] = {s: [] for s in REF_SEATS}
    d = REF_SEATS.index(dealer)
    for p, (lo, hi) in enumerate(ref_shuffled(seed, hand_number)):
        hands[REF_SEATS[(d + p + 1) % 4]].append(f"[{lo}|{hi}]")
    return hands


def text(tiles: list) -> list[str]:
    return [f"[{t[0]}|{t[1]}]" for t in tiles]


# -- (a) the engine agrees with the reference ---------------------------------------------------

SEEDS = [
    0,
    1,
    2,
    3,
    7,
    42,
    255,
    256,
    1000,
    65535,
    2**31 - 1,
    2**31,
    2**32 - 1,
    2**32,
    2**53 + 1,
    10**18,
    2**63,
    2**64 - 2,
    2**64 - 1,
    *range(100, 140),
    *(pow(7, k, 2**64) for k in range(1, 30)),
]


def test_reference_agrees_with_first_dealer() -> None:
    for seed in [*SEEDS, *range(500)]:
        assert first_dealer(seed) == ref_first_dealer(seed), seed


@pytest.mark.parametrize("seed", SEEDS)
def test_reference_agrees_with_shuffle_and_deal(seed: int) -> None:
    for hand_number in (1, 2, 3, 10, 99, 100, 1000, 123456):
        assert text(shuffled_tiles(seed, hand_number)) == text(ref_shuffled(seed, hand_number))
        for dealer in SEATS:
            got = {seat: text(tiles) for seat, tiles in deal(seed, hand_number, dealer).items()}
            assert got == ref_deal(seed, hand_number, dealer), (seed, hand_number, dealer)


def test_uniform_rejection_matches_reference() -> None:
    """Step 2's rejection branch: with n = 3 * 2**30 a quarter of all words are rejected."""
    for n in (3 * 2**30, 2**31 + 1, 5, 28, 2**32 - 1):
        for label in ("0/dealer", "rejection/test", "42/hand/7"):
            stream, words = Stream(label), ref_words(label)
            got = [stream.uniform(n) for _ in range(50)]
            assert got == [ref_uniform(words, n) for _ in range(50)], (n, label)


class _PrimedSha256:
    """A stand-in for ``hashlib.sha256`` whose digest is forced for a few messages."""

    primed: ClassVar[dict[bytes, bytes]] = {}

    def __init__(self, data: bytes = b"") -> None:
        self._data = bytes(data)

    def update(self, more: bytes) -> None:
        self._data += bytes(more)

    def copy(self) -> _PrimedSha256:
        return _PrimedSha256(self._data)

    def digest(self) -> bytes:
        return self.primed.get(self._data) or hashlib.sha256(self._data).digest()


def test_shuffle_rejects_like_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's shuffle skips a rejected word exactly like step 2 says.

    Rejection is astronomically rare for n <= 28 with real hashes, so block 0 of one label is
    replaced by words that must be rejected (2**32 - 1 >= 2**32 - (2**32 mod n) for
    n = 25..28); later blocks are the real ones. The engine reads ``hashlib.sha256`` through
    its module, which is what is patched here.
    """
    # (``referee.rules.deal`` the attribute is the function; the module is in sys.modules.)
    deal_module = importlib.import_module("referee.rules.deal")

    rejected = 2**32 - 1
    assert all(rejected >= 2**32 - (2**32 % n) for n in (28, 27, 26, 25))
    primed = [rejected, 5, rejected, rejected, 2**32 - 5, 17, rejected, 9]
    label = "7/hand/1"
    block0 = f"texas42/v1/{label}/0".encode("ascii")
    _PrimedSha256.primed = {block0: b"".join(w.to_bytes(4, "big") for w in primed)}
    fake = type(hashlib)("hashlib")
    fake.sha256 = _PrimedSha256  # type: ignore[attr-defined]
    monkeypatch.setattr(deal_module, "hashlib", fake)

    got = text(shuffled_tiles(7, 1))
    expected = text(ref_shuffle_words(itertools.chain(primed, ref_words(label, first_block=1))))
    assert got == expected
    assert got != text(ref_shuffled(7, 1))  # the priming did take effect


# -- (b) published test vectors -----------------------------------------------------------------

#: seed -> (first dealer, hand 1 deal per seat in dealt order). Other implementations must match.
VECTORS: dict[int, tuple[str, dict[str, list[str]]]] = {
    0: (
        "B",
        {
            "A": ["[2|4]", "[1|5]", "[4|4]", "[4|5]", "[3|3]", "[3|6]", "[0|3]"],
            "B": ["[2|2]", "[3|5]", "[0|6]", "[2|5]", "[6|6]", "[1|3]", "[1|1]"],
            "C": ["[5|6]", "[0|1]", "[2|3]", "[0|5]", "[0|2]", "[1|2]", "[4|6]"],
            "D": ["[1|4]", "[0|4]", "[2|6]", "[3|4]", "[0|0]", "[5|5]", "[1|6]"],
        },
    ),
    1: (
        "B",
        {
            "A": ["[1|2]", "[1|5]", "[1|6]", "[0|5]", "[2|6]", "[2|4]", "[1|3]"],
            "B": ["[0|3]", "[3|5]", "[1|4]", "[4|4]", "[3|6]", "[2|3]", "[2|2]"],
            "C": ["[0|6]", "[4|5]", "[3|3]", "[5|5]", "[4|6]", "[0|0]", "[6|6]"],
            "D": ["[2|5]", "[0|4]", "[0|1]", "[1|1]", "[3|4]", "[5|6]", "[0|2]"],
        },
    ),
    42: (
        "B",
        {
            "A": ["[3|4]", "[0|1]", "[0|2]", "[0|5]", "[5|6]", "[1|4]", "[6|6]"],
            "B": ["[4|5]", "[2|2]", "[1|1]", "[3|5]", "[2|4]", "[0|6]", "[0|4]"],
            "C": ["[0|3]", "[1|3]", "[0|0]", "[1|2]", "[2|3]", "[2|5]", "[2|6]"],
            "D": ["[5|5]", "[1|6]", "[1|5]", "[3|3]", "[3|6]", "[4|4]", "[4|6]"],
        },
    ),
    2**64 - 1: (
        "C",
        {
            "A": ["[3|4]", "[5|5]", "[2|2]", "[0|3]", "[1|2]", "[2|3]", "[0|6]"],
            "B": ["[0|0]", "[0|2]", "[2|5]", "[2|6]", "[4|5]", "[0|1]", "[1|5]"],
            "C": ["[1|1]", "[3|6]", "[5|6]", "[4|6]", "[1|4]", "[3|5]", "[4|4]"],
            "D": ["[1|3]", "[2|4]", "[6|6]", "[3|3]", "[1|6]", "[0|4]", "[0|5]"],
        },
    ),
}

#: Seed 0, hand 1: the whole shuffled order (position 0 first), for debugging an implementation.
SEED_0_HAND_1_ORDER = re.findall(
    r"\[\d\|\d\]",
    "[5|6] [1|4] [2|4] [2|2] [0|1] [0|4] [1|5] [3|5] [2|3] [2|6] [4|4] [0|6] [0|5] [3|4] "
    "[4|5] [2|5] [0|2] [0|0] [3|3] [6|6] [1|2] [5|5] [3|6] [1|3] [4|6] [1|6] [0|3] [1|1]",
)
#: The first words of the streams "0/dealer" and "0/hand/1".
SEED_0_DEALER_WORDS = [0x274C37AD, 0x0704618E, 0x5576EB3C, 0xF1AA81A4]
SEED_0_HAND_1_WORDS = [0x9D79F45F, 0xA79402A0, 0x09A49474, 0x5ECC0C04]


@pytest.mark.parametrize("seed", sorted(VECTORS))
def test_published_vectors(seed: int) -> None:
    dealer, hands = VECTORS[seed]
    assert first_dealer(seed) == dealer
    assert {s: text(t) for s, t in deal(seed, 1, dealer).items()} == hands
    # The reference implementation reproduces them too (they were computed with it).
    assert ref_first_dealer(seed) == dealer
    assert ref_deal(seed, 1, dealer) == hands
    # And a match starts with exactly this deal.
    match = Match(seed)
    assert match.hand.dealer == dealer
    assert match.hand.hand_number == 1
    for seat in SEATS:
        assert text(match.view(seat).hand) == hands[seat]


def test_published_debugging_vectors() -> None:
    assert list(itertools.islice(ref_words("0/dealer"), 4)) == SEED_0_DEALER_WORDS
    assert list(itertools.islice(ref_words("0/hand/1"), 4)) == SEED_0_HAND_1_WORDS
    assert text(shuffled_tiles(0, 1)) == SEED_0_HAND_1_ORDER
    stream = Stream("0/hand/1")
    assert [stream.uniform(2**32) for _ in range(4)] == SEED_0_HAND_1_WORDS


def test_vectors_document_matches() -> None:
    """protocol/deal-test-vectors.md publishes the same vectors as this module."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "protocol" / "deal-test-vectors.md").read_text()
    for seed, (dealer, hands) in VECTORS.items():
        assert f"### Seed {seed}\n" in doc
        section = doc.split(f"### Seed {seed}\n", 1)[1].split("###", 1)[0]
        assert f"First dealer: **{dealer}**" in section
        for seat in SEATS:
            assert f"- {seat}: `{' '.join(hands[seat])}`" in section, (seed, seat)
    assert " ".join(SEED_0_HAND_1_ORDER) in doc


# -- (c) properties of the deal -----------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 42, 2**64 - 1, 987654321])
@pytest.mark.parametrize("dealer", SEATS)
def test_deal_gives_seven_distinct_tiles_each(seed: int, dealer: str) -> None:
    for hand_number in (1, 2, 17):
        hands = deal(seed, hand_number, dealer)  # type: ignore[arg-type]
        assert sorted(hands) == list(SEATS)
        assert all(len(hands[s]) == 7 for s in SEATS)
        every = [t for s in SEATS for t in hands[s]]
        assert len(set(every)) == 28
        assert sorted(every) == sorted(TILES)
        assert sorted(shuffled_tiles(seed, hand_number)) == list(TILES)


@pytest.mark.parametrize("dealer", SEATS)
def test_dealer_left_gets_positions_0_4_8(dealer: str) -> None:
    for seed in (0, 5, 2**64 - 1):
        order = shuffled_tiles(seed, 3)
        hands = deal(seed, 3, dealer)  # type: ignore[arg-type]
        seat = LEFT_OF[dealer]  # type: ignore[index]
        for offset in range(4):
            assert hands[seat] == order[offset::4], (seed, dealer, seat)
            seat = LEFT_OF[seat]
        assert hands[dealer] == order[3::4]  # type: ignore[index]


BAD_SEEDS = [-1, -(2**64), 2**64, 2**64 + 1, 2**100, 1.0, 0.0, 3.5, "1", "0", None, b"1", [1]]


@pytest.mark.parametrize("seed", [*BAD_SEEDS, True, False])
def test_bad_seeds_raise_seed_error(seed: object) -> None:
    with pytest.raises(SeedError):
        first_dealer(seed)  # type: ignore[arg-type]
    with pytest.raises(SeedError):
        shuffled_tiles(seed, 1)  # type: ignore[arg-type]
    with pytest.raises(SeedError):
        deal(seed, 1, "A")  # type: ignore[arg-type]
    with pytest.raises(SeedError):
        Match(seed)  # type: ignore[arg-type]


def test_seed_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Match(-1)


@pytest.mark.parametrize("seed", [0, 2**64 - 1])
def test_extreme_seeds_are_accepted(seed: int) -> None:
    assert first_dealer(seed) in SEATS
    assert Match(seed).hand.hand_number == 1


def _pass_hand(match: Match) -> None:
    for _ in range(4):
        match.apply(match.turn, Pass())  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [0, 1, 42, 2**64 - 1, 31337])
def test_same_seed_same_deals(seed: int) -> None:
    one, two = Match(seed), Match(seed)
    dealer = first_dealer(seed)
    for number in range(1, 9):
        assert one.hand.hand_number == two.hand.hand_number == number
        assert one.hand.dealer == two.hand.dealer == dealer
        assert one.hand.hands == two.hand.hands
        assert one.hand.hands == deal(seed, number, dealer)
        _pass_hand(one)
        _pass_hand(two)
        dealer = LEFT_OF[dealer]


def test_different_seeds_differ() -> None:
    deals = {tuple(shuffled_tiles(seed, 1)) for seed in range(300)}
    assert len(deals) == 300
    firsts = {tuple(t for s in SEATS for t in Match(seed).hand.hands[s]) for seed in range(50)}
    assert len(firsts) == 50
    # Hands of one match differ from each other too.
    assert len({tuple(shuffled_tiles(7, h)) for h in range(1, 200)}) == 199
    assert Match(1).hand.hands != Match(2).hand.hands


# -- (d) uniformity of the first dealer ---------------------------------------------------------


def test_first_dealer_is_roughly_uniform() -> None:
    counts = Counter(first_dealer(seed) for seed in range(4000))
    assert set(counts) == set(SEATS)
    for seat in SEATS:
        assert 850 <= counts[seat] <= 1150, counts
