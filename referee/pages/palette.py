"""One colour per entrant for every chart of a page: the win rates, the ratings over time, the
decision times and the make rates all draw an entrant in the colour ``colours`` gives it, so
a reader who found an entrant in one chart finds it in the next by its colour alone."""

from __future__ import annotations

from collections.abc import Iterable

#: Okabe and Ito's colours first (told apart by most readers, colour-blind ones included),
#: then Paul Tol's muted ones, dark enough on white: sixteen before any repeats. Yellow,
#: the hardest to read on white, comes last.
PALETTE = (
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#882255",
    "#44AA99", "#999933", "#332288", "#AA4499", "#117733", "#661100", "#888888", "#DDCC77",
)  # fmt: skip


def colours(names: Iterable[str]) -> dict[str, str]:
    """Each of ``names`` (in the page's own order of entrants, so the same on every chart) to
    its colour; past sixteen entrants the colours repeat."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(dict.fromkeys(names))}


def colour_of(palette: dict[str, str], name: str, fallback: int = 0) -> str:
    """``name``'s colour; one not in ``palette`` (a series of no entrant) the ``fallback``'th."""
    return palette.get(name, PALETTE[fallback % len(PALETTE)])
