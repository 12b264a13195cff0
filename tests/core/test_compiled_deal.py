"""The compiled core deals exactly as ``protocol/deal-test-vectors.md`` says: the published
vectors read from the document itself, and the Python deal over seeds from the whole range."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.core import CORE
from referee.rules import TILES, deal, first_dealer, shuffled_tiles, tile

pytestmark = pytest.mark.skipif(CORE != "c", reason="the core was built without a C compiler")

DOCUMENT = Path(__file__).resolve().parents[2] / "protocol" / "deal-test-vectors.md"


def published() -> list[tuple[int, str, dict[str, list[str]]]]:
    """Each vector of the document: its seed, first dealer and hand 1 seat by seat."""
    vectors = []
    for section in DOCUMENT.read_text().split("### Seed ")[1:]:
        seed = int(section.split()[0])
        dealer = re.search(r"First dealer: \*\*([ABCD])\*\*", section)
        rows = dict(re.findall(r"- ([ABCD]): `([^`]+)`", section))
        assert dealer and len(rows) == 4
        vectors.append((seed, dealer.group(1), {s: row.split() for s, row in rows.items()}))
    return vectors


def test_the_document_holds_vectors_across_the_range() -> None:
    seeds = [seed for seed, _, _ in published()]
    assert 0 in seeds and 2**64 - 1 in seeds and len(seeds) >= 4


@pytest.mark.parametrize(("seed", "dealer", "hands"), published())
def test_the_published_deals(seed: int, dealer: str, hands: dict[str, list[str]]) -> None:
    from referee.core.engine import CompiledEngine

    state = CompiledEngine(seed).state()
    assert state["dealer"] == dealer
    assert state["hands"] == {s: [list(tile(t)) for t in row] for s, row in hands.items()}


def test_the_published_shuffle_of_seed_0() -> None:
    from referee.core import _texas42  # type: ignore[attr-defined]

    order = DOCUMENT.read_text().split("Hand 1 shuffled order, position 0 first:")[1]
    expected = [tile(t) for t in re.findall(r"\[\d\|\d\]", order)]
    assert [TILES[i] for i in _texas42.shuffled(0, 1)] == expected


@pytest.fixture(params=["portable", "extensions"])
def sha256(request: pytest.FixtureRequest) -> Iterator[str]:
    """The deal's SHA-256 each way: the portable C, and the processor's SHA extensions."""
    from referee.core import _texas42  # type: ignore[attr-defined]

    wanted = request.param == "extensions"
    if _texas42.sha_extensions(int(wanted)) != wanted:
        pytest.skip("this processor has no SHA extensions")
    yield request.param
    _texas42.sha_extensions(1)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**64 - 1), number=st.integers(1, 10**6))
def test_every_deal_is_the_python_one(sha256: str, seed: int, number: int) -> None:
    from referee.core import _texas42  # type: ignore[attr-defined]

    assert "ABCD"[_texas42.first_dealer(seed)] == first_dealer(seed)
    assert [TILES[i] for i in _texas42.shuffled(seed, number)] == shuffled_tiles(seed, number)


def test_later_hands_are_dealt_by_the_next_seat() -> None:
    from referee.core.engine import CompiledEngine

    engine = CompiledEngine(7)
    for _ in range(4):  # four passes: the deal moves on
        engine.apply(engine.turn or "", {"type": "pass"})
    state = engine.state()
    hands = deal(7, 2, state["dealer"])
    assert state["hand_number"] == 2 and state["dealer"] == "BCDA"["ABCD".index(first_dealer(7))]
    assert state["hands"] == {s: [list(t) for t in row] for s, row in hands.items()}
