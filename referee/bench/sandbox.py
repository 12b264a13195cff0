"""What the sandbox costs a bot's start: each layer alone, and all of them, against a bare
start, measured in the same run.

One round starts four bots as a match does — one seat after the other, then waits for all —
with the whole cycle the referee pays: each seat's jail made (the Landlock ruleset, the
control group's bounds), the process spawned with the layers entered between ``fork`` and
``exec``, the program run to its exit, the jail undone. A bare start is the ``--sandbox off``
path (no ``preexec_fn``, so Python can use ``vfork``). Rounds alternate between the variants,
so a noisy machine slows them all alike; each figure is the median round over four bots.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import msgspec

from referee.record.sandbox import Layer
from referee.rules.tiles import SEATS
from referee.sandbox.layers import LAYERS
from referee.sandbox.paths import unreadable_by_others
from referee.sandbox.policy import SandboxPlan, plan
from referee.sandbox.seats import MatchJails
from referee.settings import MatchLimits, SandboxSettings

#: The cost limit for all layers together, per bot start.
LIMIT_MS = 15.0


@dataclass(frozen=True)
class SandboxBench:
    program: list[str]
    bare_ms: float
    #: Extra milliseconds per start over the bare start: each layer alone, and "all".
    extra_ms: dict[str, float]
    layers: list[str]


def _program() -> list[str]:
    """A Python start (what most bots are), with an interpreter other users can run when
    there is one, so the per-seat uid is part of the measurement."""
    for python in ("/usr/bin/python3", sys.executable):
        if os.path.exists(python) and unreadable_by_others([python]) is None:
            return [python, "-I", "-S", "-c", "pass"]
    return [sys.executable, "-I", "-S", "-c", "pass"]


def _only(full: SandboxPlan, layers: list[Layer]) -> SandboxPlan:
    report = msgspec.structs.replace(full.report, seats=dict.fromkeys(SEATS, layers))
    return SandboxPlan(full.settings, full.limits, report, full.readable, view=full.view)


def _start(program: list[str], sandbox: SandboxPlan | None) -> float:
    """Seconds to start the four seats' bots as a match does (one after the other, then
    wait for all), sandbox made and undone included."""
    started = time.perf_counter()
    if sandbox is None:
        runs = [subprocess.Popen(program, start_new_session=True) for _ in SEATS]
        if any(run.wait() != 0 for run in runs):
            raise RuntimeError("a bare start failed")
        return time.perf_counter() - started
    jails = MatchJails(sandbox)
    try:
        seats = [jails.jail(seat) for seat in SEATS]
        runs = []
        for jail in seats:
            assert jail is not None
            run = subprocess.Popen(
                program, start_new_session=True, preexec_fn=jail.enter, env=jail.environment()
            )
            jail.started(run.pid)
            runs.append(run)
        for jail, run in zip(seats, runs, strict=True):
            assert jail is not None
            if run.wait() != 0:
                raise RuntimeError(f"the sandboxed start failed under {jail.layers}")
            jail.kill()
            jail.ended(run.pid)
            while not jail.empty():
                time.sleep(0.001)
            jail.close()
    finally:
        jails.close()
    return time.perf_counter() - started


def run(rounds: int) -> SandboxBench:
    program = _program()
    command = " ".join(program[:1])
    full = plan(SandboxSettings(), MatchLimits(), dict.fromkeys(SEATS, command))
    layers = full.report.seats["A"]
    variants: dict[str, SandboxPlan | None] = {"bare": None}
    for layer in map(Layer, layers):
        # The reaper is one process per referee, not a cost per start; a layer part of
        # another's mechanism (Landlock's TCP and scoping rules) is measured with it.
        if layer != Layer.REAPER and LAYERS[layer].part_of is None:
            needs: list[Layer] = [Layer.REAPER, layer] if layer == Layer.NO_CAPS else [layer]
            variants[layer] = _only(full, needs)
    # What a seat sees of the machine (its memory and CPUs, and sysinfo's answer), apart:
    # the rest of "all" is the start as it was before seats were shown their size.
    variants["machine view"] = dataclasses.replace(full, view=None)
    variants["all"] = full
    times: dict[str, list[float]] = {name: [] for name in variants}
    for variant in variants.values():  # warm up: page cache, the reaper, the filter
        _start(program, variant)
    for _ in range(rounds):
        for name, variant in variants.items():
            times[name].append(_start(program, variant))
    median = {name: statistics.median(values) * 1000 / 4 for name, values in times.items()}
    bare = median.pop("bare")
    extra = {name: value - bare for name, value in median.items()}
    extra["machine view"] = median["all"] - median["machine view"]
    return SandboxBench(program, bare, extra, layers)


def lines(rounds: int) -> Iterator[str]:
    """Run the benchmark; its lines for people, the figure last."""
    result = run(rounds)
    yield f"bare start: {result.bare_ms:.1f} ms per bot ({' '.join(result.program)})"
    for name, extra in result.extra_ms.items():
        if name != "all":
            yield f"  {name:<15} {extra:+.1f} ms"
    yield f"limit: +{LIMIT_MS:.0f} ms per bot start"
    yield f"sandbox: {result.extra_ms['all']:+.1f} ms per bot start ({', '.join(result.layers)})"
