"""Ratings: openskill's Plackett-Luce, never maths of our own, for tournaments and leagues
alike (a tournament rates its results in plan order; a league each result as it records it).
"""

from __future__ import annotations

from openskill.models import PlackettLuce


def rate(
    first: tuple[float, float],
    second: tuple[float, float],
    first_won: bool | None,
    model: PlackettLuce | None = None,
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Two (mu, sigma) ratings after one match between them (None: nobody won, a draw):
    openskill's Plackett-Luce, for tournaments and leagues alike."""
    model = model or _MODEL
    ranks: list[float] = [1, 1] if first_won is None else ([1, 2] if first_won else [2, 1])
    [[a], [b]] = model.rate(
        [
            [model.rating(mu=first[0], sigma=first[1])],
            [model.rating(mu=second[0], sigma=second[1])],
        ],
        ranks=ranks,
    )
    return (a.mu, a.sigma), (b.mu, b.sigma)


_MODEL = PlackettLuce()
