"""The fairness rule of warm pools, on its own so that it can be read and tested alone.

A kept process remembers everything it was shown. So a process never plays both legs of one
duplicate pair — the same deals with the sides swapped, where it would know the opponents'
hands from the other leg — and never two seats of one match (it would see its partner's
hand, or both sides'). The second holds because a lent process is not idle until the match
that borrowed it is over; the first is checked here, against every pair it has played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from referee.process import BotProcess


@dataclass(eq=False)
class Kept:
    """A process a warm pool owns, and what it has played."""

    bot: BotProcess
    #: The duplicate pairs (``MatchJob.pair``) of every match it was lent for.
    pairs: set[str] = field(default_factory=set)
    #: When it was last given back (``time.monotonic``), for the idle timeout.
    idle_since: float = 0.0


def choose(idle: Sequence[Kept], pair: str) -> Kept | None:
    """The idle process to lend for a match of duplicate pair ``pair``: the one given back
    last (the fewest processes stay busy) among those that never played the pair."""
    for kept in reversed(idle):
        if pair not in kept.pairs:
            return kept
    return None
