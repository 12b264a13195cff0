"""How big a viewer page is and how fast it opens and steps, for the longest log a match can
leave (200 hands: nearly all passed, a dozen played) and a full match of played hands.

The page is built as ``referee replay --html`` builds it (verify, steps, template) and
opened from disk in headless Chromium (Debian's, with its chromedriver, through selenium:
the test extras). The page measures itself: the time from its script's start to the end of
its first render, and each step's render after a key press. The limits are what a person
notices: a page that opens within a second, a step within one frame (1/60 s) — 99 steps in
100: the browser's garbage collector may pause the odd one.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import trio

from referee.bench.browser import start_session
from referee.match.runner import run_match
from referee.pages.match_page import match_page
from referee.record.log import read_log
from referee.record.records import MatchEndRecord
from referee.rules import SEATS
from referee.settings import MatchSettings
from referee.stats import percentile

HERE: Final = Path(__file__).resolve().parent
FIRST_RENDER_LIMIT_MS: Final = 1000.0
STEP_LIMIT_MS: Final = 1000 / 60

#: Step through every step, timing each render as the page does it for a key press.
_STEP_ALL = """
const times = [];
const total = JSON.parse(document.getElementById('match-data').textContent).steps.length;
for (let i = 1; i < total; i++) {
  const started = performance.now();
  document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));
  times.push(performance.now() - started);
}
return {times: times, step: Number(document.body.dataset.step), total: total};
"""


@dataclass(frozen=True)
class PageBench:
    name: str
    hands: int
    steps: int
    bytes: int
    build_ms: float
    first_render_ms: float
    step_mean_ms: float
    step_p99_ms: float
    step_max_ms: float


def _log(every: int, max_hands: int, folder: Path, seed: int) -> Path:
    """A match between four passing bots that play every ``every``-th hand."""
    path = folder / f"every{every}.jsonl"
    command = f"{sys.executable} -S -I {HERE / 'passing_bot.py'} {every}"
    settings = MatchSettings(seed=seed, max_hands=max_hands)
    trio.run(run_match, settings, dict.fromkeys(SEATS, command), path)
    return path


def _measure(session: Any, name: str, log_path: Path) -> PageBench:
    log = read_log(log_path)
    end = log.records[-1]
    assert isinstance(end, MatchEndRecord)
    started = time.perf_counter()
    page = match_page(log)
    build_ms = (time.perf_counter() - started) * 1000
    path = log_path.with_suffix(".html")
    path.write_text(page, encoding="utf-8")
    session.get(path.resolve().as_uri())
    deadline = time.monotonic() + 30
    while session.execute_script("return document.body.dataset.ready") != "true":
        if time.monotonic() > deadline:
            raise RuntimeError(f"{path} never finished its first render")
        time.sleep(0.01)
    first = float(session.execute_script("return document.body.dataset.firstRenderMs"))
    stepped = session.execute_script(_STEP_ALL)
    if stepped["step"] != stepped["total"]:  # the page counts its steps from 1
        raise RuntimeError(f"{path}: stepping stopped at {stepped['step']}")
    times = stepped["times"]
    return PageBench(
        name=name,
        hands=end.hands,
        steps=stepped["total"],
        bytes=len(page.encode()),
        build_ms=build_ms,
        first_render_ms=first,
        step_mean_ms=statistics.fmean(times),
        step_p99_ms=percentile(times, 0.99),
        step_max_ms=max(times),
    )


def run(seed: int = 1) -> list[PageBench]:
    """The 200-hand log and a full match (every hand played), each built and opened."""
    session = start_session()
    try:
        with tempfile.TemporaryDirectory(prefix="texas42-viewer-bench-") as folder:
            longest = _log(16, 200, Path(folder), seed)
            full = _log(1, 200, Path(folder), seed)
            return [
                _measure(session, "200-hand log", longest),
                _measure(session, "full match", full),
            ]
    finally:
        session.quit()


def lines(seed: int) -> Iterator[str]:
    """Run the benchmark (``NoBrowser`` without a browser); its lines, the figure last."""
    results = run(seed)
    for result in results:
        yield (
            f"{result.name}: {result.hands} hands, {result.steps} steps,"
            f" {result.bytes / 1024:.0f} KiB; built in {result.build_ms:.0f} ms; first render"
            f" {result.first_render_ms:.0f} ms; a step {result.step_mean_ms:.2f} ms mean,"
            f" {result.step_p99_ms:.1f} ms p99, {result.step_max_ms:.1f} ms max"
        )
    yield (
        f"limits: first render {FIRST_RENDER_LIMIT_MS:.0f} ms,"
        f" a step {STEP_LIMIT_MS:.1f} ms at p99 (one frame at 60 Hz)"
    )
    longest = results[0]
    yield (
        f"viewer: {longest.name} {longest.bytes / 1024:.0f} KiB, first render"
        f" {longest.first_render_ms:.0f} ms"
        f" ({longest.first_render_ms / FIRST_RENDER_LIMIT_MS:.0%} of its limit), a step"
        f" {longest.step_p99_ms:.1f} ms p99 ({longest.step_p99_ms / STEP_LIMIT_MS:.0%}"
        " of a frame)"
    )
