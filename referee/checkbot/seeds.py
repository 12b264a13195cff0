"""The seeds and seats of check-bot's matches, chosen so that between them the checked bot
meets every situation (``situations.SITUATIONS``).

Match ``i`` (from 0) seats the checked bot in seat A, B, C, D in turn, and the opponents
(``--opponent``, by default the bundled heuristic bot and then the random bot) clockwise from
its left, the list taken up where match ``i`` points: with the two bundled bots, an even
match puts the heuristic bot on both sides of it and the random bot opposite, an odd one the
other way round — so trump leads by a heuristic declarer, follows and overcalls occur.

``SEEDS`` were found by ``choose``: each candidate seed is played in this process with the
bundled bots' own strategies (``opponents.rehearse``), once with the random bot and once with
the heuristic bot in the checked seat, and a seed counts for a situation only as often as
both of them met it; each match then takes the seed that adds most to the situations met
least. A checked bot that plays otherwise sees other hands: check-bot counts what it met in
the real matches, and says what did not come up. ``tests/checkbot`` plays them again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final, TypeVar

import trio

from referee.rules import LEFT_OF, SEATS, Seat
from referee.settings import MatchLimits

from .opponents import bundled_strategy, rehearse
from .situations import DEALT, faced

T = TypeVar("T")

#: The bundled bots the checked bot plays by default, in the order they are seated.
DEFAULT_OPPONENTS: Final = ("heuristic", "random")
#: The bundled bots that stand in for the checked bot when seeds are chosen.
STAND_INS: Final = ("random", "heuristic")
#: How many times the stand-ins must both meet a situation before it counts as met enough:
#: the trump led on a low-half trump most (issue 30's bug: a bot may pass it many times and
#: fail on the one hand where it holds no other trump).
ENOUGH: Final = {"trump_led_low_half": 12} | dict.fromkeys(
    [name for name in DEALT if name != "trump_led_low_half"], 3
)
#: The matches ``check-bot`` plays by default.
DEFAULT_MATCHES: Final = 8
#: The seeds of matches 1, 2, ...: ``choose(16, range(1, 121))``. Beyond them, the seeds
#: above the highest of them, in order.
SEEDS: Final[tuple[int, ...]] = (92, 93, 40, 31, 54, 16, 1, 48, 8, 7, 80, 21, 62, 51, 2, 33)


def seat_of(number: int) -> Seat:
    """The checked bot's seat in match ``number`` (from 0)."""
    return SEATS[number % len(SEATS)]


def seating(number: int, checked: T, opponents: Sequence[T]) -> dict[Seat, T]:
    """Who sits where in match ``number`` (from 0): ``checked`` in ``seat_of(number)``, the
    ``opponents`` clockwise from its left, starting at the ``number``-th (cyclically)."""
    seat = seat_of(number)
    table = {seat: checked}
    for step in range(1, len(SEATS)):
        seat = LEFT_OF[seat]
        table[seat] = opponents[(number + step - 1) % len(opponents)]
    return table


def seed_of(number: int) -> int:
    """The seed of match ``number`` (from 0)."""
    if number < len(SEEDS):
        return SEEDS[number]
    return max(SEEDS) + number - len(SEEDS) + 1


def met(seed: int, number: int, limits: MatchLimits | None = None) -> Counter[str]:
    """The situations the checked seat met in match ``number`` on ``seed`` with the default
    opponents: for each, the fewer times of the two stand-ins."""
    settings = (limits or MatchLimits()).for_seed(seed)
    opponents = [bundled_strategy(name) for name in DEFAULT_OPPONENTS]
    found: Counter[str] | None = None
    for stand_in in STAND_INS:
        table = seating(number, bundled_strategy(stand_in), opponents)
        counts = faced(trio.run(rehearse, settings, table), seat_of(number))
        found = counts if found is None else found & counts
    assert found is not None
    return found


def _gain(total: Counter[str], counts: Counter[str]) -> tuple[int, int]:
    """What a match adds: first to the situations met fewer than ``ENOUGH`` times (the
    rarest most), then in all."""
    short = sum(
        min(counts[name], ENOUGH[name] - total[name]) * (ENOUGH[name] - total[name])
        for name in DEALT
        if total[name] < ENOUGH[name]
    )
    return short, sum(counts[name] for name in DEALT)


def choose(
    count: int, candidates: Iterable[int], table: dict[tuple[int, int], Counter[str]] | None = None
) -> list[int]:
    """``count`` seeds from ``candidates``, one match after another, each the one that adds
    most (``_gain``; the lowest seed of equals). Each candidate is played once per seating
    (match ``i`` and ``i + 4`` seat the bot alike) into ``table`` (given: what it holds is
    not played again)."""
    pool = list(candidates)
    cycle = len(SEATS)  # a multiple of any opponents' count that seats differently: 1 or 2
    table = {} if table is None else table
    for seed in pool:
        for slot in range(cycle):
            if (seed, slot) not in table:
                table[seed, slot] = met(seed, slot)
    chosen: list[int] = []
    total: Counter[str] = Counter()
    for number in range(count):
        left = [seed for seed in pool if seed not in chosen]
        best = max(left, key=lambda seed: (_gain(total, table[seed, number % cycle]), -seed))
        chosen.append(best)
        total += table[best, number % cycle]
    return chosen
