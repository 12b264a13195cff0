"""The compiled core plays exactly the Python engine's rules: every published conformance
vector, whole random matches move by move, and any of the 73 actions at any position — taken
or refused alike, refused with the same exception and nothing changed."""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import referee.core
from referee.core import CORE, new_engine
from referee.core.actions import FORMS, SIZE, form, index_of
from referee.errors import NotAnAction
from referee.spec.conformance import check_engine
from referee.spec.facts import PythonEngine
from referee.spec.lockstep import lockstep
from referee.spec.vectors import match_seed

compiled = pytest.mark.skipif(CORE != "c", reason="the core was built without a C compiler")


def test_every_action_has_one_index_and_back() -> None:
    assert len(FORMS) == SIZE == 73
    assert [index_of(form(i)) for i in range(SIZE)] == list(range(SIZE))
    assert index_of({"type": "play", "tile": (3, 5)}) == index_of({"type": "play", "tile": [3, 5]})


@pytest.mark.parametrize(
    "action",
    [
        {"type": "trump", "trump": True},
        {"type": "bid", "points": 42},
        {"type": "bid"},
        "pass",
        None,
    ],
)
def test_what_is_no_action_has_no_index(action: Any) -> None:
    with pytest.raises(NotAnAction):
        index_of(action)


@compiled
def test_the_core_agrees_with_every_published_vector() -> None:
    from referee.core.engine import CompiledEngine

    assert check_engine(CompiledEngine) == []


@compiled
def test_the_core_agrees_with_the_reference_over_whole_random_matches() -> None:
    from referee.core.engine import CompiledEngine

    assert lockstep(CompiledEngine, matches=150) == []


def _position(number: int, steps: int) -> tuple[Any, PythonEngine]:
    """The same position in both engines: ``steps`` random legal actions into a match."""
    from referee.core.engine import CompiledEngine

    seed = match_seed(number)
    engine, oracle, rng = CompiledEngine(seed), PythonEngine(seed), random.Random(number)
    for _ in range(steps):
        seat = oracle.turn
        if seat is None:
            break
        action = rng.choice(oracle.legal_actions())
        engine.apply(seat, action)
        oracle.apply(seat, action)
    return engine, oracle


@compiled
@settings(max_examples=150, deadline=None)
@given(
    number=st.integers(0, 10**6),
    steps=st.integers(0, 120),
    seat=st.sampled_from("ABCD") | st.none(),
    pick=st.integers(0, SIZE - 1) | st.floats(0, 1, exclude_max=True),
)
def test_any_action_is_taken_or_refused_as_the_reference_does(
    number: int, steps: int, seat: str | None, pick: int | float
) -> None:
    """Any seat (or the one to act: ``None``), any action (or, as a fraction, a legal one)."""
    engine, oracle = _position(number, steps)
    seat = seat or oracle.turn or "A"
    legal = oracle.legal_actions()
    if isinstance(pick, float):
        action = legal[int(pick * len(legal))] if legal else form(0)
    else:
        action = form(pick)
    before = oracle.state()
    try:
        expected: Any = oracle.apply(seat, action)
    except Exception as refusal:
        with pytest.raises(type(refusal)):
            engine.apply(seat, action)
        assert engine.state() == before
    else:
        assert engine.apply(seat, action) == expected
        assert engine.state() == oracle.state()


@compiled
def test_the_legal_indices_are_the_legal_actions() -> None:
    for steps in (0, 4, 5, 30):
        engine, oracle = _position(9, steps)
        assert [form(i) for i in engine.legal_indices()] == oracle.legal_actions()


@compiled
def test_a_clone_goes_its_own_way() -> None:
    engine, _ = _position(5, 30)
    copy, before = engine.clone(), engine.state()
    copy.apply(copy.turn, copy.legal_actions()[-1])
    assert engine.state() == before and copy.state() != before


def test_the_package_imports_without_the_extension() -> None:
    """As where no C compiler was found: the extension cannot be imported."""
    code = (
        "import sys; sys.modules['referee.core._texas42'] = None\n"
        "import referee.core as core\n"
        "print(core.CORE, type(core.new_engine(1)).__name__)"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.split() == ["python", "PythonEngine"]


def test_without_the_compiled_core_the_python_engine_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(referee.core, "CompiledEngine", None)
    engine = new_engine(3)
    assert type(engine) is PythonEngine
    assert engine.legal_actions() == PythonEngine(3).legal_actions()
