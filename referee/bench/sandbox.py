"""What the sandbox costs a bot's start: each layer alone, and all of them, against a bare
start, measured in the same run.

One round starts four bots as a match does — one seat after the other, then waits for all —
with the whole cycle the referee pays: each seat's jail made (the Landlock ruleset, the
control group's bounds), the process spawned with the layers entered between ``fork`` and
``exec``, the program run to its exit, the jail undone. A bare start is the ``--sandbox off``
path (no ``preexec_fn``, so Python can use ``vfork``). Rounds alternate between the variants,
so a noisy machine slows them all alike; each figure is the median round over four bots.

A root of its own per seat (``--sandbox-private-root``) is not among the defaults: it is
measured apart, over all the default layers — a bot's first start (the skeleton built and
every file bound, then unmounted at its end), and a kept bot's next match (its scratch
emptied), which is what a warm pool pays for each match after the first.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec

from referee.record.sandbox import Layer
from referee.rules.tiles import SEATS
from referee.sandbox import paths, root_tree
from referee.sandbox.layers import LAYERS
from referee.sandbox.paths import unreadable_by_others
from referee.sandbox.policy import SandboxPlan, plan
from referee.sandbox.seats import MatchJails
from referee.settings import MatchLimits, SandboxSettings

#: The cost limit for all layers together, per bot start.
LIMIT_MS = 15.0
#: The private root is measured in one round of every this many (at least three).
PRIVATE_ROOT_SHARE = 6


@dataclass(frozen=True)
class SandboxBench:
    program: list[str]
    bare_ms: float
    #: Extra milliseconds per start over the bare start: each layer alone, and "all".
    extra_ms: dict[str, float]
    layers: list[str]
    #: A root of its own per seat, over "all": a bot's first start, and a kept bot's next
    #: match (emptying its scratch); None where the machine cannot give one.
    private_root: PrivateRoot | None = None


@dataclass(frozen=True)
class PrivateRoot:
    first_start_ms: float
    next_match_ms: float
    #: Milliseconds a kept bot's next match takes without it (the control).
    next_match_without_ms: float
    #: Files bound one by one, and entries of the skeleton in all.
    files: int
    entries: int


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


#: A bot that waits for its next match: it reads its stdin to the end.
_WAITING = "import sys; sys.stdin.read()"


def _next_match(program: list[str], sandbox: SandboxPlan, rounds: int) -> float:
    """Milliseconds a kept bot's next match takes to make ready (``SeatJail.next_match``):
    the median over the four seats' bots, each made ready ``rounds`` times."""
    waiting = [*program[:-1], _WAITING]
    jails = MatchJails(sandbox)
    times: list[float] = []
    started = []
    try:
        for seat in SEATS:
            jail = jails.jail(seat)
            assert jail is not None
            run = subprocess.Popen(waiting, stdin=subprocess.PIPE, start_new_session=True,
                                   preexec_fn=jail.enter, env=jail.environment())  # fmt: skip
            jail.started(run.pid)
            started.append((jail, run))
        for _ in range(rounds):
            for jail, run in started:
                begun = time.perf_counter()
                why = jail.next_match(run.pid)
                times.append(time.perf_counter() - begun)
                if why is not None:
                    raise RuntimeError(f"a kept bot could not be made ready: {why}")
    finally:
        for jail, run in started:
            with contextlib.suppress(OSError):
                if run.stdin is not None:
                    run.stdin.close()
            jail.kill()
            run.wait()
            jails.release(jail)
        jails.close()
    return statistics.median(times) * 1000


def _private_root(program: list[str], full: SandboxPlan, rounds: int) -> PrivateRoot | None:
    command = " ".join(program[:1])
    private = plan(SandboxSettings(private_root=True), full.limits, dict.fromkeys(SEATS, command))
    if Layer.PRIVATE_ROOT not in private.report.seats["A"]:
        return None
    _start(program, private)  # warm up: the listing, remembered per process
    first, without = [], []
    for _ in range(rounds):
        first.append(_start(program, private))
        without.append(_start(program, full))
    allowed = [*map(Path, paths.SYSTEM), paths.PACKAGE, *private.readable.get("A", [])]
    tree = root_tree.tree(allowed, private.secrets)
    return PrivateRoot(
        first_start_ms=(statistics.median(first) - statistics.median(without)) * 1000 / 4,
        next_match_ms=_next_match(program, private, rounds),
        next_match_without_ms=_next_match(program, full, rounds),
        files=len(tree.files),
        entries=tree.entries,
    )


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
    # A private root's start takes a few hundred milliseconds: fewer rounds say it as well.
    private = _private_root(program, full, max(3, rounds // PRIVATE_ROOT_SHARE))
    return SandboxBench(program, bare, extra, layers, private)


def lines(rounds: int) -> Iterator[str]:
    """Run the benchmark; its lines for people, the figure last."""
    result = run(rounds)
    yield f"bare start: {result.bare_ms:.1f} ms per bot ({' '.join(result.program)})"
    for name, extra in result.extra_ms.items():
        if name != "all":
            yield f"  {name:<15} {extra:+.1f} ms"
    private = result.private_root
    if private is not None:
        yield (
            f"private root (--sandbox-private-root), over all: {private.first_start_ms:+.1f} ms a"
            f" bot's first start ({private.files:,} files bound one by one,"
            f" {private.entries:,} entries); a kept bot's next match {private.next_match_ms:.1f}"
            f" ms ({private.next_match_without_ms:.1f} ms without)"
        )
    yield f"limit: +{LIMIT_MS:.0f} ms per bot start"
    yield f"sandbox: {result.extra_ms['all']:+.1f} ms per bot start ({', '.join(result.layers)})"
