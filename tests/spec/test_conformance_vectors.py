"""The published conformance vectors: fresh, true to the Python engine, covering every rule,
and able to catch an engine that breaks one."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.broken_engines import Renege

from referee.errors import IllegalAction
from referee.rules import hand as hand_module
from referee.rules.contract import Contract, HandResult
from referee.rules.suits import STRENGTH
from referee.rules.tiles import TRICKS_PER_HAND, Partnership
from referee.spec.conformance import VECTORS, check_engine, read_vectors
from referee.spec.coverage import RULES
from referee.spec.facts import PythonEngine
from referee.spec.schema import PROTOCOL_DIR
from referee.spec.vectors import PERFT, step_after, vector_files

CONFORMANCE_MD = PROTOCOL_DIR / "CONFORMANCE.md"


def test_vector_files_are_fresh() -> None:
    for name, text in vector_files().items():
        path = PROTOCOL_DIR / name
        assert path.read_text() == text, f"{path} is stale: run 'referee schema'"


def test_the_python_engine_conforms() -> None:
    assert check_engine(PythonEngine) == []


def test_the_files_stay_small() -> None:
    sizes = {path.name: path.stat().st_size for path in VECTORS.iterdir()}
    assert set(sizes) == {"positions.jsonl", "perft.jsonl", "matches.jsonl"}
    assert sum(sizes.values()) < 2_000_000, sizes


def test_every_rule_is_exercised_where_the_vectors_say() -> None:
    # Replayed here, each vector's position passes the test of every rule it claims to cover,
    # and every rule is claimed by one vector.
    claimed: dict[str, str] = {}
    for vector in read_vectors("positions"):
        step = step_after(vector["seed"], vector["moves"])
        for rule in vector["covers"]:
            assert rule not in claimed, f"{rule} claimed twice"
            claimed[rule] = vector["id"]
            (holds,) = [r.holds for r in RULES if r.id == rule]
            assert holds(step), f"{vector['id']} does not exercise {rule}"
    assert sorted(claimed) == sorted(rule.id for rule in RULES)


def test_the_vectors_cover_every_trump_and_every_ending() -> None:
    # Read from the vectors themselves: the contracts and results they hold.
    trumps, endings = set(), set()
    for vector in read_vectors("positions") + read_vectors("matches"):
        for event in vector.get("events", []):
            if event["type"] == "hand_end":
                vector.setdefault("results", []).append(event["result"])
        for result in vector.get("results", []):
            contract = result["contract"]
            if contract is None:
                endings.add(("passed", None))
                continue
            trumps.add(contract["trump"])
            early = result["tricks"] < TRICKS_PER_HAND
            endings.add((result["outcome"], contract["bid"]["type"], early))
    assert trumps == {0, 1, 2, 3, 4, 5, 6, "doubles", "no_trump"}
    assert endings >= {
        ("passed", None),
        ("made", "bid", True),
        ("set", "bid", True),
        ("made", "all_tricks", False),
        ("set", "all_tricks", True),
    }


def test_perft_reaches_a_trick_and_a_hand_end() -> None:
    vectors = read_vectors("perft")
    assert len(vectors) == len(PERFT)
    assert any(sum(v["tricks"]) for v in vectors) and any(sum(v["hand_ends"]) for v in vectors)


# -- engines that break one rule each: the vectors must catch them ------------------------------


class _Reordered(PythonEngine):
    """Offers the legal actions in reverse order: the canonical order is part of conformance."""

    __slots__ = ()

    def legal_actions(self) -> list[Any]:
        return super().legal_actions()[::-1]


class _NextSeed(PythonEngine):
    """Deals from the wrong seed."""

    __slots__ = ()

    def __init__(self, seed: int) -> None:
        super().__init__((seed + 1) % 2**64)


class _Lenient(PythonEngine):
    """Answers an illegal action with no events instead of refusing it."""

    __slots__ = ()

    def apply(self, seat: str, action: Any) -> list[Any]:
        try:
            return super().apply(seat, action)
        except IllegalAction:
            return []


def _parted(engine: type[PythonEngine]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for disagreement in check_engine(engine):
        found.setdefault(disagreement.kind, set()).add(disagreement.vector)
    return found


def test_an_engine_offering_another_order_is_caught() -> None:
    parted = _parted(_Reordered)
    assert "deal.seed" in parted["positions"] and parted["matches"]


def test_an_engine_that_lets_a_seat_renege_is_caught() -> None:
    parted = _parted(Renege)
    assert {"lead.trump", "lead.double", "follow.doubles-trump"} <= parted["positions"]
    assert parted["perft"] and parted["matches"]


def test_an_engine_that_does_not_refuse_is_caught() -> None:
    found = check_engine(_Lenient, kinds=["positions"])
    playing = [v for v in read_vectors("positions") if v["state"]["winner"] is None]
    assert len(found) == len(playing)  # (a finished match refuses with GameOver, not lenient)
    assert {d.what.split(" ")[0] for d in found} == {"refusing"}


def test_an_engine_dealing_from_another_seed_is_caught() -> None:
    parted = _parted(_NextSeed)
    assert len(parted["positions"]) == len(read_vectors("positions"))


@pytest.fixture
def late_ends(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A point contract decided only after the seventh trick: no early end."""
    proven = hand_module.proven_result

    def late(
        contract: Contract, points: dict[Partnership, int], tricks_won: dict[Partnership, int]
    ) -> HandResult | None:
        if not contract.is_all_tricks and sum(tricks_won.values()) < TRICKS_PER_HAND:
            return None
        return proven(contract, points, tricks_won)

    monkeypatch.setattr(hand_module, "proven_result", late)
    yield


@pytest.mark.usefixtures("late_ends")
def test_an_engine_without_the_early_end_is_caught() -> None:
    parted = _parted(PythonEngine)
    assert {"trump.fours", "end.point-made-early", "end.point-made-exact"} <= parted["positions"]
    assert "end.point-open-at-limit" not in parted["positions"]  # the hand goes on there


@pytest.fixture
def doubles_low(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A double that is not trump ranks lowest of its suit instead of highest."""
    lowered = {
        trump: {
            suit: {t: (0 if t.is_double and value == 7 else value) for t, value in ranks.items()}
            for suit, ranks in by_suit.items()
        }
        for trump, by_suit in STRENGTH.items()
    }
    monkeypatch.setattr(hand_module, "STRENGTH", lowered)
    yield


@pytest.mark.usefixtures("doubles_low")
def test_an_engine_ranking_doubles_low_is_caught() -> None:
    parted = _parted(PythonEngine)
    assert "win.double-high" in parted["positions"]


def test_the_document_lists_every_rule_and_its_vector() -> None:
    vectors = {rule: v["id"] for v in read_vectors("positions") for rule in v["covers"]}
    rows = re.findall(r"^\| `([a-z0-9.-]+)` \| .* \| `([a-z0-9.-]+)` \|$", _text(), re.M)
    assert dict(rows) == vectors
    assert [rule for rule, _ in rows] == [rule.id for rule in RULES]


def _text() -> str:
    return CONFORMANCE_MD.read_text()


def test_referee_schema_writes_and_checks_the_vectors(tmp_path: Path) -> None:
    # The one regeneration path of the protocol's files covers the vectors: `referee schema
    # --out` writes them, and `--check` names a vector edited by hand stale (each run plays the
    # transcript's match, so the clean `--check` is left to the wheel's test).
    def schema(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "referee", "schema", "--out", str(tmp_path), *args],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip

    assert schema().returncode == 0
    perft = tmp_path / "conformance" / "perft.jsonl"
    perft.write_text(perft.read_text().replace('"nodes":[15,', '"nodes":[16,'))
    checked = schema("--check")
    assert checked.returncode == 2
    assert "stale: conformance/perft.jsonl; run 'referee schema'" in checked.stderr
