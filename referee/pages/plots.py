"""The report's three kinds of plot, as inline SVG: intervals (a rate with its 95% interval
per entrant), lines over the course of a tournament (ratings, the SPRT's statistic against
its bounds), and rates by category (each entrant's make rate by bid, with its interval).

Our own small code rather than a plotting library: the plots are two shapes, the page must
be static and offline, and SVG written here is text the browser draws at any size, with every
label escaped. Nothing here reads a file or a clock.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

from referee.pages.palette import colour_of

#: Vertical room an end label of a line takes, in the plot's units: closer ones are spread.
LABEL_GAP = 15.0


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def spread_labels(ys: Sequence[float], low: float, gap: float = LABEL_GAP) -> list[float]:
    """Where to put labels wanted at ``ys`` so that no two are closer than ``gap``: in the
    same order, none above ``low`` (the plot's top), each block of labels that had to move
    centred on where its labels wanted to be. Labels can go below the plot's bottom: the
    caller makes room."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    blocks: list[tuple[list[int], float]] = []  # the labels of a block, and its first's y

    def start(members: list[int]) -> float:
        return max(low, sum(ys[i] - k * gap for k, i in enumerate(members)) / len(members))

    for i in order:
        members, first = [i], start([i])
        while blocks and first < blocks[-1][1] + len(blocks[-1][0]) * gap:
            members = blocks.pop()[0] + members
            first = start(members)
        blocks.append((members, first))
    placed = [0.0] * len(ys)
    for members, first in blocks:
        for k, i in enumerate(members):
            placed[i] = first + k * gap
    return placed


def intervals(
    rows: Sequence[tuple[str, float, float, float]],
    palette: dict[str, str],
    reference: float = 0.5,
) -> Markup:
    """One line per ``(name, low, value, high)`` on a 0-1 scale: the interval as a bar, the
    value as a dot, ``reference`` as a dashed line; each entrant in its colour in
    ``palette``."""
    left, width, row_height = 160, 420, 28
    height = row_height * len(rows) + 40
    parts = [
        f'<svg class="plot intervals" viewBox="0 0 {left + width + 20} {height}" role="img"'
        ' aria-label="win rate with its 95% interval, per entrant">'
    ]
    for tick in range(0, 11, 2):
        x = left + width * tick / 10
        parts.append(
            f'<line class="grid" x1="{x:g}" y1="10" x2="{x:g}" y2="{height - 25}"/>'
            f'<text class="tick" x="{x:g}" y="{height - 8}" text-anchor="middle">'
            f"{tick * 10}%</text>"
        )
    x = left + width * reference
    parts.append(f'<line class="reference" x1="{x:g}" y1="10" x2="{x:g}" y2="{height - 25}"/>')
    for i, (name, low, value, high) in enumerate(rows):
        y = 20 + row_height * i + row_height / 2
        x0, x1, xv = (left + width * v for v in (low, high, value))
        hue = colour_of(palette, name, i)
        parts.append(
            f'<g class="row" data-name="{escape(name)}">'
            f'<text class="label" x="{left - 8}" y="{y + 4:g}" text-anchor="end">'
            f"{escape(name)}</text>"
            f'<line class="interval" x1="{x0:g}" y1="{y:g}" x2="{x1:g}" y2="{y:g}"'
            f' stroke="{hue}"/>'
            f'<circle cx="{xv:g}" cy="{y:g}" r="5" fill="{hue}"/>'
            f"<title>{escape(name)}: {value:.1%} ({low:.1%} to {high:.1%})</title></g>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def lines(
    series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    x_label: str,
    y_label: str,
    bounds: Sequence[tuple[float, str]] = (),
    palette: dict[str, str] | None = None,
) -> Markup:
    """A line per ``(name, points)`` against ``x_label``, each in its colour in ``palette``
    and named at its end (names spread apart where the ends are close, each joined to its
    line's end); ``bounds`` are horizontal dashed lines with labels (the SPRT's)."""
    left, top, width, height = 60, 15, 520, 220
    xs = [x for _, points in series for x, _ in points] or [0.0, 1.0]
    ys = [y for _, points in series for _, y in points] + [y for y, _ in bounds] or [0.0, 1.0]
    x_min, x_max = min(xs), max(xs)
    y_min, y_max = min(ys), max(ys)
    if x_max == x_min:
        x_max = x_min + 1
    if y_max == y_min:
        y_min, y_max = y_min - 1, y_max + 1
    margin = (y_max - y_min) * 0.05
    y_min, y_max = y_min - margin, y_max + margin

    def at(x: float, y: float) -> str:
        px = left + width * (x - x_min) / (x_max - x_min)
        py = top + height * (1 - (y - y_min) / (y_max - y_min))
        return f"{px:.1f},{py:.1f}"

    drawn = [(i, name, points) for i, (name, points) in enumerate(series) if points]
    ends = [tuple(map(float, at(*points[-1]).split(","))) for _, _, points in drawn]
    label_ys = spread_labels([y for _, y in ends], top + 4)
    bottom = max([top + height + 40, *(y + 8 for y in label_ys)])
    label_x = left + width + 22
    parts = [
        f'<svg class="plot lines" viewBox="0 0 {left + width + 170} {bottom:.0f}"'
        f' role="img" aria-label="{escape(y_label)} by {escape(x_label)}">'
        f'<rect class="frame" x="{left}" y="{top}" width="{width}" height="{height}"/>'
    ]
    for k in range(5):
        y = y_min + (y_max - y_min) * k / 4
        parts.append(
            f'<text class="tick" x="{left - 6}" y="{at(x_min, y).split(",")[1]}"'
            f' text-anchor="end">{_number(y)}</text>'
        )
    whole = all(float(x).is_integer() for x in xs)  # counts: ticks on whole numbers
    ticks = [x_min + (x_max - x_min) * k / 4 for k in range(5)]
    for x in sorted({round(t) for t in ticks}) if whole else ticks:
        parts.append(
            f'<text class="tick" x="{at(x, y_min).split(",")[0]}" y="{top + height + 16}"'
            f' text-anchor="middle">{_number(x)}</text>'
        )
    parts.append(
        f'<text class="axis" x="{left + width / 2}" y="{top + height + 34}"'
        f' text-anchor="middle">{escape(x_label)}</text>'
    )
    for y, label in bounds:
        a, b = at(x_min, y), at(x_max, y)
        parts.append(
            f'<line class="bound" x1="{a.split(",")[0]}" y1="{a.split(",")[1]}"'
            f' x2="{b.split(",")[0]}" y2="{b.split(",")[1]}"/>'
            f'<text class="bound-label" x="{left + width + 6}" y="{b.split(",")[1]}">'
            f"{escape(label)}</text>"
        )
    for (i, name, points), (end_x, end_y), label_y in zip(drawn, ends, label_ys, strict=True):
        path = " ".join(at(x, y) for x, y in points)
        hue = colour_of(palette or {}, name, i)
        parts.append(
            f'<g class="series" data-name="{escape(name)}">'
            f'<polyline points="{path}" fill="none" stroke="{hue}" stroke-width="2"/>'
            f'<polyline class="leader" points="{end_x:.1f},{end_y:.1f}'
            f' {left + width + 8},{end_y:.1f} {label_x - 3},{label_y:.1f}" fill="none"'
            f' stroke="{hue}"/>'
            f'<text class="label" x="{label_x}" y="{label_y + 4:.1f}" fill="{hue}">'
            f"{escape(name)}</text></g>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def rates_by_category(
    categories: Sequence[str],
    series: Sequence[tuple[str, Sequence[tuple[str, int, int, float, float]]]],
    x_label: str,
    y_label: str,
    palette: dict[str, str],
) -> Markup:
    """A rate per category and series, with its 95% interval: for each ``(name, points)``,
    each point ``(category, count, of, low, high)`` is drawn in its category's band as a dot
    at ``count / of`` on a vertical bar from ``low`` to ``high`` (the make rate by bid of each
    entrant). Categories no series has a point in are left out by the caller."""
    left, top, height = 50, 15, 220
    band = max(24, 520 // max(1, len(categories)))
    width = band * len(categories)
    bottom = max(top + height + 70, top + 22 * len(series) + 10)  # room for every key
    parts = [
        f'<svg class="plot rates" viewBox="0 0 {left + width + 150} {bottom}"'
        f' role="img" aria-label="{escape(y_label)} by {escape(x_label)}, with 95% intervals">'
        f'<rect class="frame" x="{left}" y="{top}" width="{width}" height="{height}"/>'
    ]

    def y_of(rate: float) -> float:
        return top + height * (1 - rate)

    for tick in range(0, 11, 2):
        y = y_of(tick / 10)
        parts.append(
            f'<line class="grid" x1="{left}" y1="{y:g}" x2="{left + width}" y2="{y:g}"/>'
            f'<text class="tick" x="{left - 6}" y="{y + 4:g}" text-anchor="end">'
            f"{tick * 10}%</text>"
        )
    place = {category: i for i, category in enumerate(categories)}
    for category, i in place.items():
        x = left + band * (i + 0.5)
        parts.append(
            f'<text class="tick" x="{x:g}" y="{top + height + 14}" text-anchor="end"'
            f' transform="rotate(-40 {x:g} {top + height + 14})">{escape(category)}</text>'
        )
    parts.append(
        f'<text class="axis" x="{left + width / 2:g}" y="{top + height + 66}"'
        f' text-anchor="middle">{escape(x_label)}</text>'
    )
    step = band * 0.7 / max(1, len(series))
    for s, (name, points) in enumerate(series):
        offset = band * 0.15 + step * (s + 0.5)
        hue = colour_of(palette, name, s)
        group = [f'<g class="series" data-name="{escape(name)}">']
        for category, count, of, low, high in points:
            if not of or category not in place:
                continue
            x = left + band * place[category] + offset
            group.append(
                f'<line class="interval" x1="{x:.1f}" y1="{y_of(low):.1f}" x2="{x:.1f}"'
                f' y2="{y_of(high):.1f}" stroke="{hue}"/>'
                f'<circle cx="{x:.1f}" cy="{y_of(count / of):.1f}" r="4" fill="{hue}">'
                f"<title>{escape(name)}, {escape(category)}: {count} of {of},"
                f" {count / of:.1%} ({low:.1%} to {high:.1%})</title></circle>"
            )
        y = top + 10 + 22 * s
        group.append(
            f'<circle cx="{left + width + 14}" cy="{y}" r="5" fill="{hue}"/>'
            f'<text class="label" x="{left + width + 24}" y="{y + 4}">{escape(name)}</text></g>'
        )
        parts += group
    parts.append("</svg>")
    return Markup("".join(parts))
