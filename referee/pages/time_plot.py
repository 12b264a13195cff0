"""The decision-time chart of a report: per entrant, how long its bot took to decide, as a
strip on a log scale — the whole range (fastest to slowest), the middle half as a box, the
median as a mark, the 99th percentile as a diamond — with the median, p99 and maximum
written beside it. A log scale, since a bot's times span orders of magnitude and one slow
answer would flatten the rest.

The times are the ones ``referee stats`` counts (``tally``): each decision's
``timing.latency_ms`` in the logs, bids, trump declarations and plays; start-up is apart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

import msgspec
from markupsafe import Markup, escape

from referee.pages.palette import colour_of
from referee.stats import percentile
from referee.tally.counting import PHASES
from referee.tally.tally import Tally

#: The phases that are decisions at the table (start-up is the time to say ready).
DECIDING: Final = tuple(phase for phase in PHASES if phase != "start-up")
#: The shortest time the scale shows: faster answers are drawn at it (a clock's grain).
FLOOR_MS: Final = 0.01


class Spread(msgspec.Struct, frozen=True):
    """One entrant's decision times, in milliseconds."""

    name: str
    decisions: int
    low_ms: float
    p25_ms: float
    median_ms: float
    p75_ms: float
    p99_ms: float
    max_ms: float


def decision_times(tally: Tally) -> dict[str, list[float]]:
    """Each entrant's decision times in the logs the tally counted."""
    return {
        name: [ms for phase in DECIDING for ms in counts.times[phase]]
        for name, counts in tally.entrants.items()
    }


def spreads(times: Mapping[str, Sequence[float]], names: Sequence[str]) -> list[Spread]:
    """The spread of each of ``names`` that made a decision, in that order."""
    out = []
    for name in names:
        values = sorted(times.get(name, ()))
        if values:
            p25, median, p75, p99 = (percentile(values, s) for s in (0.25, 0.5, 0.75, 0.99))
            out.append(Spread(name, len(values), values[0], p25, median, p75, p99, values[-1]))
    return out


def _ms(value: float) -> str:
    """A time as people read it: 0.04 ms, 3.2 ms, 140 ms, 2.5 s."""
    if value >= 1000:
        return f"{value / 1000:.3g} s"
    return f"{value:.2g} ms" if value < 10 else f"{value:.0f} ms"


def time_chart(rows: Sequence[Spread], palette: dict[str, str]) -> Markup:
    """The chart of ``rows``: one strip per entrant, each in its colour in ``palette``."""
    left, width, right, row_height = 160, 380, 290, 26
    height = row_height * len(rows) + 44
    top_ms = max([row.max_ms for row in rows] + [1.0])
    low_exp = math.floor(math.log10(max(FLOOR_MS, min([r.low_ms for r in rows] + [top_ms]))))
    high_exp = max(low_exp + 1, math.ceil(math.log10(top_ms)))

    def x(ms: float) -> float:
        exponent = math.log10(max(ms, 10.0**low_exp))
        return left + width * (exponent - low_exp) / (high_exp - low_exp)

    parts = [
        f'<svg class="plot times" viewBox="0 0 {left + width + right} {height}" role="img"'
        ' aria-label="decision times per entrant, on a log scale">'
    ]
    for exponent in range(low_exp, high_exp + 1):
        at = x(10.0**exponent)
        parts.append(
            f'<line class="grid" x1="{at:.1f}" y1="10" x2="{at:.1f}" y2="{height - 25}"/>'
            f'<text class="tick" x="{at:.1f}" y="{height - 8}" text-anchor="middle">'
            f"{_ms(10.0**exponent)}</text>"
        )
    for i, row in enumerate(rows):
        y = 20 + row_height * i + row_height / 2
        hue = colour_of(palette, row.name, i)
        said = f"median {_ms(row.median_ms)} · p99 {_ms(row.p99_ms)} · max {_ms(row.max_ms)}"
        p99 = x(row.p99_ms)
        parts.append(
            f'<g class="row" data-name="{escape(row.name)}" data-median="{row.median_ms!r}"'
            f' data-p99="{row.p99_ms!r}" data-max="{row.max_ms!r}">'
            f'<text class="label" x="{left - 8}" y="{y + 4:g}" text-anchor="end">'
            f"{escape(row.name)}</text>"
            f'<line class="range" x1="{x(row.low_ms):.1f}" y1="{y:g}" x2="{x(row.max_ms):.1f}"'
            f' y2="{y:g}" stroke="{hue}"/>'
            f'<rect class="middle" x="{x(row.p25_ms):.1f}" y="{y - 6:g}"'
            f' width="{max(1.5, x(row.p75_ms) - x(row.p25_ms)):.1f}" height="12" fill="{hue}"/>'
            f'<line class="median" x1="{x(row.median_ms):.1f}" y1="{y - 8:g}"'
            f' x2="{x(row.median_ms):.1f}" y2="{y + 8:g}"/>'
            f'<path class="p99" d="M{p99:.1f} {y - 5:g} l5 5 l-5 5 l-5 -5 z" fill="{hue}"/>'
            f'<text class="figures" x="{left + width + 10}" y="{y + 4:g}">{said}</text>'
            f"<title>{escape(row.name)}: {row.decisions} decisions; fastest"
            f" {_ms(row.low_ms)}, middle half {_ms(row.p25_ms)} to {_ms(row.p75_ms)},"
            f" {said}</title></g>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))
