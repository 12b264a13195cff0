"""The fairness rule of warm pools, on its own so that it can be read and tested alone.

A kept process remembers everything it was shown. So a process never plays the same deals
twice — both legs of a duplicate pair are the same deals with the sides swapped, and every
pairing of a tournament plays the same deal seeds: it would know the opponents' hands — and
never two seats of one match (it would see its partner's hand, or both sides'). The second
holds because a lent process is not idle until the match that borrowed it is over; the first
is checked here, against the deals of every match it has played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from referee.match.process import BotProcess


@dataclass(eq=False)
class Kept:
    """A process a warm pool owns, and what it has played."""

    bot: BotProcess
    #: The deals (``MatchJob.deals``) of every match it was lent for.
    deals: set[str] = field(default_factory=set)
    #: When it was last given back (``time.monotonic``), for the idle timeout.
    idle_since: float = 0.0


def choose(idle: Sequence[Kept], deals: str) -> Kept | None:
    """The idle process to lend for a match on ``deals``: the one given back last (the
    fewest processes stay busy) among those that never played them."""
    for kept in reversed(idle):
        if deals not in kept.deals:
            return kept
    return None
