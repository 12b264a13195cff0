"""The warm pool's rules on their own: which kept process is lent, and which are closed."""

from __future__ import annotations

from typing import cast

from referee.match.process import BotProcess
from referee.running.seating import pool as pool_module
from referee.running.seating.fairness import Kept, choose
from referee.running.seating.pool import WarmPool


def kept(name: str, *pairs: str, idle_since: float = 0.0) -> Kept:
    return Kept(cast(BotProcess, name), set(pairs), idle_since)


def test_a_process_is_never_lent_for_deals_it_has_played() -> None:
    idle = [kept("p1", "s0"), kept("p2", "s0", "s1")]
    assert choose(idle, "s0") is None
    chosen = choose(idle, "s2")
    assert chosen is not None and chosen.bot == "p2"  # the one given back last
    chosen = choose(idle, "s1")
    assert chosen is not None and chosen.bot == "p1"


def test_the_pool_keeps_a_few_idle_processes_per_entrant_and_in_all() -> None:
    pool = WarmPool()
    per, total = pool_module.PER_ENTRANT, pool_module.TOTAL
    entrants = total // per + 3
    for entrant in range(entrants):
        pool._idle[f"e{entrant}"] = [
            kept(f"e{entrant}-{n}", idle_since=entrant * 100 + n) for n in range(per + 2)
        ]
    out = pool._over_bounds()
    left = {key: [k.bot for k in idle] for key, idle in pool._idle.items()}
    assert sum(len(idle) for idle in left.values()) == total
    assert len(out) == entrants * (per + 2) - total
    # The least recently given back went first: each entrant's two oldest, then whole entrants.
    last = entrants - 1
    assert left[f"e{last}"] == [f"e{last}-{n}" for n in range(2, per + 2)]
    assert left["e0"] == []


def test_processes_idle_too_long_are_taken_out_to_be_closed() -> None:
    pool = WarmPool(idle_seconds=60)
    pool._idle["e"] = [kept("old", idle_since=0.0), kept("new", idle_since=100.0)]
    assert pool._take_expired(now=120.0) == ["old"]
    assert [k.bot for k in pool._idle["e"]] == ["new"]
