"""``referee bench solver``: each core's times trick by trick, what pruning saves, the figure
last."""

from __future__ import annotations

import re

import pytest

from referee.bench import solver
from referee.solver.search import CORE


@pytest.mark.skipif(CORE != "c", reason="no compiled core: built without a C compiler")
def test_the_bench_says_what_pruning_saves_and_ends_with_its_figure() -> None:
    lines = list(solver.lines(3, 1))
    assert [line for line in lines if line.endswith("core:")] == [
        "C core:", "C, not pruned, core:", "Python core:",
    ]  # fmt: skip
    pruning = next(line for line in lines if line.startswith("pruning:"))
    found = re.match(r"pruning: ([\d,]+) positions against ([\d,]+) not pruned", pruning)
    assert found is not None
    pruned, plain = (int(group.replace(",", "")) for group in found.groups())
    assert 0 < pruned < plain
    assert lines[-1].startswith("solver: C ") and "x Python's" in lines[-1]
