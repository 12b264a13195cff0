"""``referee bench core`` measures what it says, in one run, and ends with its ratio."""

from __future__ import annotations

import re

import pytest

from referee.core import CORE

pytestmark = pytest.mark.skipif(CORE != "c", reason="the core was built without a C compiler")


def test_the_bench_ends_with_the_ratio_of_the_batched_core_to_the_python_engine() -> None:
    from referee.bench import core

    shown = list(core.lines(hands=40_000, seed=3, batch=64, rounds=2))
    assert [line.split(":")[0] for line in shown] == [
        "python engine",
        "core, batched (64 matches)",
        "core, one match at a time",
        "the deal (SHA-256) alone",
        "core batched / python engine",
    ]
    python, batched = (float(re.sub(r"[^\d.]", "", line.split(":")[1].split("hands/s")[0]))
                       for line in shown[:2])  # fmt: skip
    ratio = re.match(r"core batched / python engine: ([\d,]+)x", shown[-1])
    assert ratio and batched > 5 * python  # even on a loaded machine the core is far ahead
