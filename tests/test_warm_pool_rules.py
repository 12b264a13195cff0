"""The warm pool's rules on their own: which kept process is lent, and which are closed."""

from __future__ import annotations

from typing import cast

from referee.process import BotProcess
from referee.seating import pool as pool_module
from referee.seating.fairness import Kept, choose
from referee.seating.pool import WarmPool


def kept(name: str, *pairs: str, idle_since: float = 0.0) -> Kept:
    return Kept(cast(BotProcess, name), set(pairs), idle_since)


def test_a_process_is_never_lent_for_a_pair_it_has_played() -> None:
    idle = [kept("p1", "a~b~s0"), kept("p2", "a~b~s0", "a~b~s1")]
    assert choose(idle, "a~b~s0") is None
    chosen = choose(idle, "a~b~s2")
    assert chosen is not None and chosen.bot == "p2"  # the one given back last
    chosen = choose(idle, "a~b~s1")
    assert chosen is not None and chosen.bot == "p1"


def test_the_pool_keeps_a_few_idle_processes_per_entrant_and_in_all() -> None:
    pool = WarmPool()
    for entrant in range(6):
        pool._idle[f"e{entrant}"] = [
            kept(f"e{entrant}-{n}", idle_since=entrant * 10 + n) for n in range(6)
        ]
    out = pool._over_bounds()
    left = {key: [k.bot for k in idle] for key, idle in pool._idle.items()}
    assert all(len(idle) <= pool_module.PER_ENTRANT for idle in left.values())
    assert sum(len(idle) for idle in left.values()) == pool_module.TOTAL
    # The least recently given back went first: entrant 0's, then entrant 1's.
    assert left["e0"] == [] and left["e5"] == ["e5-2", "e5-3", "e5-4", "e5-5"]
    assert len(out) == 36 - pool_module.TOTAL


def test_processes_idle_too_long_are_taken_out_to_be_closed() -> None:
    pool = WarmPool(idle_seconds=60)
    pool._idle["e"] = [kept("old", idle_since=0.0), kept("new", idle_since=100.0)]
    assert pool._take_expired(now=120.0) == ["old"]
    assert [k.bot for k in pool._idle["e"]] == ["new"]
