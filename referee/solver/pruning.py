"""What the pruned search (``search``, ``pruned=True``) orders a follower's tiles by, as
plain functions of the rule tables' rows (``search.Tables``): the same in both cores, the C
one's ``follow_order`` its copy."""

from __future__ import annotations

from collections.abc import Sequence

Trick = list[tuple[int, int]] | tuple[tuple[int, int], ...]


def trick_best(trick: Trick, suit: int, strength: Sequence[Sequence[int]]) -> tuple[int, int]:
    """The seat winning ``trick`` (of ``suit``) so far and its tile's strength (-1, -1 before
    the lead)."""
    if not trick:
        return -1, -1
    row = strength[suit]
    seat, tile = max(trick, key=lambda down: row[down[1]])
    return seat, row[tile]


def follow_order(
    choices: tuple[int, ...],
    suit: int,
    best: int,
    ahead: bool,
    strength: Sequence[Sequence[int]],
    points: Sequence[int],
) -> tuple[int, ...]:
    """The order a pruned search tries the tiles ``choices`` (strongest first) to a trick of
    ``suit`` whose best strength is ``best``: with the trick ``ahead`` (the seat's side is
    winning it), count first and the weakest; else the tiles that win it, count first and
    the weakest, then the rest, the least count first. A make (or a set) most often comes
    from the cheap play, and the cut with it."""
    row = strength[suit]

    def rank(tile: int) -> int:
        if ahead:
            return points[tile] * 64 - row[tile]
        if row[tile] > best:
            return 4096 + points[tile] * 64 - row[tile]
        return -points[tile] * 64 - row[tile]

    return tuple(sorted(choices, key=lambda tile: -rank(tile)))
