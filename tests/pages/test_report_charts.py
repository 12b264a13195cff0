"""The report's charts and tables in headless Chromium, on a real tournament of sixteen
entrants (a gauntlet: the first plays each other once in duplicate, so most pairs never
meet): one colour per entrant across every chart, end labels that do not overlap, pairs that
never met left unshaded, a decision-time strip per entrant from the logs' timings, and a page
that fits a 1,280 px window without scrolling sideways."""

from __future__ import annotations

import itertools
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.browser import open_browser, url

from referee.pages.palette import colours
from referee.pages.plots import LABEL_GAP, lines, spread_labels
from referee.pages.time_plot import spreads
from referee.record.records import MoveRecord
from referee.running.logs import own_log
from referee.running.results import read_results

ROOT = Path(__file__).resolve().parents[2]
INSTANT = shlex.join([sys.executable, str(ROOT / "referee" / "bench" / "instant_bot.py")])
HEURISTIC = shlex.join([sys.executable, str(ROOT / "example_bots" / "heuristic_bot.py")])
#: Sixteen entrants with names as long as people give them; a heuristic bot or two among
#: instant ones, so the standings' order is not the entrants' order.
NAMES = [f"entrant-{k:02d}-{'heuristic' if k % 5 == 3 else 'instant'}" for k in range(16)]

#: Per chart, per entrant, the colours it is drawn in (every stroke and fill of its group).
CHART_COLOURS = """
const out = {};
for (const svg of document.querySelectorAll('svg.plot')) {
  const kind = [...svg.classList].find((c) => c !== 'plot');
  out[kind] = {};
  for (const group of svg.querySelectorAll('[data-name]')) {
    const found = new Set();
    for (const e of group.querySelectorAll('[stroke], [fill]')) {
      for (const a of ['stroke', 'fill']) {
        const v = e.getAttribute(a);
        if (v && v !== 'none') found.add(v.toLowerCase());
      }
    }
    out[kind][group.dataset.name] = [...found];
  }
}
out.swatches = {};
for (const row of document.querySelectorAll('#standings tbody tr')) {
  out.swatches[row.dataset.name] = getComputedStyle(row.querySelector('.swatch')).backgroundColor;
}
return out;
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sixteen")
    results = folder / "results.jsonl"
    bots = [
        part
        for k, name in enumerate(NAMES)
        for part in ("--bot", f"{name}={HEURISTIC if k % 5 == 3 else INSTANT}")
    ]
    done = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", *bots, "--format", "gauntlet",
         "--seeds", "1", "--seed", "5", "--jobs", "2", "--results", str(results), "--report"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder / "report.html"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from open_browser(1280, 900)


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def test_each_entrant_has_one_colour_in_every_chart(report: Path, browser: Any) -> None:
    browser.get(url(report))
    found = browser.execute_script(CHART_COLOURS)
    swatches = found.pop("swatches")
    assert set(found) == {"intervals", "lines", "times", "rates"}
    palette = colours(NAMES)
    seen: dict[str, set[str]] = {}
    for chart, groups in found.items():
        for name, drawn in groups.items():
            assert drawn == [palette[name].lower()], f"{name} in the {chart} chart"
            seen.setdefault(name, set()).update(drawn)
    assert set(seen) == set(NAMES)  # every entrant in at least one chart
    assert len({palette[n] for n in NAMES}) == 16  # sixteen entrants, sixteen colours
    assert swatches == {name: _rgb(palette[name]) for name in NAMES}
    # The standings' order is not the entrants' order: colours by position would differ.
    order = browser.execute_script(
        "return [...document.querySelectorAll('#standings tbody tr')].map((r) => r.dataset.name)"
    )
    assert order != NAMES


def test_the_line_charts_end_labels_do_not_overlap(report: Path, browser: Any) -> None:
    browser.get(url(report))
    boxes = browser.execute_script(
        """return [...document.querySelectorAll('svg.lines .series')].map((g) => {
          const b = g.querySelector('text.label').getBoundingClientRect();
          const end = g.querySelector('polyline').points;
          const last = end.getItem(end.numberOfItems - 1);
          const leader = g.querySelector('polyline.leader').points;
          return {name: g.dataset.name, top: b.top, bottom: b.bottom, left: b.left,
                  right: b.right, lineEnd: [last.x, last.y],
                  leaderFrom: [leader.getItem(0).x, leader.getItem(0).y],
                  leaderTo: leader.getItem(leader.numberOfItems - 1).y,
                  labelY: Number(g.querySelector('text.label').getAttribute('y'))};
        });"""
    )
    assert len(boxes) == 16
    ends = sorted(round(b["lineEnd"][1]) for b in boxes)
    assert len(set(ends)) < 16  # the premise: some lines end at the same height
    for i, one in enumerate(boxes):
        for other in boxes[i + 1 :]:
            apart = one["bottom"] <= other["top"] + 0.5 or other["bottom"] <= one["top"] + 0.5
            assert apart, f"{one['name']} and {other['name']} overlap"
        # Each label is joined to its own line's end.
        assert one["leaderFrom"] == pytest.approx(one["lineEnd"], abs=0.2)
        assert one["leaderTo"] == pytest.approx(one["labelY"] - 4, abs=0.2)


def test_pairs_that_never_met_are_unshaded(report: Path, browser: Any) -> None:
    browser.get(url(report))
    cells = browser.execute_script(
        """return [...document.querySelectorAll('#head-to-head td[data-row]')].map((c) => [
          c.dataset.row, c.dataset.column, c.textContent.trim(),
          getComputedStyle(c).backgroundColor, c.classList.contains('unmet')]);"""
    )
    met = {(NAMES[0], other) for other in NAMES[1:]} | {(other, NAMES[0]) for other in NAMES[1:]}
    assert len(cells) == 16 * 15
    for row, column, text, background, unmet in cells:
        if (row, column) in met:
            assert not unmet and re.fullmatch(r"\d+%\d+(\.5)?/2", text), text
            assert background != "rgba(0, 0, 0, 0)"
        else:
            assert unmet and text == "—", (row, column, text)
            assert background == "rgba(0, 0, 0, 0)"  # no shade: not a 50% score


def test_decision_times_are_drawn_from_the_logs(report: Path, browser: Any) -> None:
    results_file = report.with_name("results.jsonl")
    _, results = read_results(results_file)
    times: dict[str, list[float]] = {}
    for result in results:
        _, log = own_log(result, results_file)
        for record in log.records:
            if not isinstance(record, MoveRecord) or record.forced or record.timing is None:
                continue
            if (ms := record.timing.latency_ms) is not None:
                times.setdefault(result.seats[record.seat], []).append(ms)
    expected = {s.name: s for s in spreads(times, NAMES)}
    browser.get(url(report))
    rows = browser.execute_script(
        """return [...document.querySelectorAll('svg.times g.row')].map((g) => [
          g.dataset.name, Number(g.dataset.median), Number(g.dataset.p99), Number(g.dataset.max),
          g.querySelector('.figures').textContent]);"""
    )
    assert [name for name, *_ in rows] == NAMES
    for name, median, p99, most, said in rows:
        assert median == pytest.approx(expected[name].median_ms, rel=1e-6)
        assert p99 == pytest.approx(expected[name].p99_ms, rel=1e-6)
        assert most == pytest.approx(expected[name].max_ms, rel=1e-6)
        assert said.startswith("median ") and " · p99 " in said and " · max " in said


def test_the_page_fits_a_1280_pixel_window(report: Path, browser: Any) -> None:
    browser.set_window_size(1280, 900)
    browser.get(url(report))
    widths = browser.execute_script(
        """const d = document.documentElement;
        return {page: [d.scrollWidth, d.clientWidth, window.innerWidth],
                tables: [...document.querySelectorAll('.scroll')].map((s) =>
                  [s.parentElement.id, s.scrollWidth, s.clientWidth])};"""
    )
    scroll, client, inner = widths["page"]
    assert inner <= 1280 and scroll <= client
    for section, inside, shown in widths["tables"]:
        assert inside <= shown, f"the {section} table scrolls sideways"


def test_spread_labels_keeps_order_and_gap() -> None:
    wanted = [100.0, 100.0, 100.0, 40.0, 41.0, 300.0, 12.0]
    placed = spread_labels(wanted, 10.0)
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    ys = [placed[i] for i in order]
    assert all(b - a >= LABEL_GAP - 1e-9 for a, b in itertools.pairwise(ys))
    assert min(placed) >= 10.0
    assert placed[5] == 300.0  # a label with room stays where its line ends
    assert sum(placed[:3]) / 3 == pytest.approx(100.0)  # a crowd centred on its lines


def test_a_chart_with_more_labels_than_room_grows_to_hold_them() -> None:
    svg = str(lines([(f"n{k}", [(0.0, 1.0), (1.0, 1.0)]) for k in range(30)], "x", "y"))
    height = float(re.search(r'viewBox="0 0 \d+ (\d+)"', svg).group(1))  # type: ignore[union-attr]
    label_ys = [float(y) for y in re.findall(r'class="label" x="\d+" y="([\d.]+)"', svg)]
    assert len(label_ys) == 30 and max(label_ys) < height
