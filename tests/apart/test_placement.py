"""Placing a match's seats on a cluster: a worker of its own for each seat, partners on
different hosts (a host being a running kernel), refused in one line where it cannot be."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.apart.placement import (
    LOCAL_IS_ONE_HOST,
    PARTNERS,
    PlacementError,
    Worker,
    misuse,
    place,
)


def workers(*per_host: int) -> list[Worker]:
    """``per_host[i]`` workers on host ``i`` (kernel ``k<i>``)."""
    return [
        Worker(f"tcp://10.0.0.{h}:{9000 + n}", f"host{h}", f"k{h}")
        for h, count in enumerate(per_host)
        for n in range(count)
    ]


def test_two_hosts_put_each_partnership_across_both() -> None:
    placement = place(workers(2, 2), "hosts")
    seats = placement.seats
    assert len({p.worker for p in seats.values()}) == 4
    for one, other in PARTNERS:
        assert seats[one].kernel != seats[other].kernel
    assert placement.apart == "hosts"


def test_four_hosts_give_every_seat_a_host_of_its_own() -> None:
    seats = place(workers(1, 1, 1, 1, 1), "hosts").seats
    assert len({p.kernel for p in seats.values()}) == 4


def test_one_host_is_refused_with_the_way_out() -> None:
    with pytest.raises(PlacementError, match=r"one host.*--seats-apart=workers"):
        place(workers(6), "hosts")


def test_one_host_is_allowed_for_a_trial() -> None:
    placement = place(workers(4), "workers")
    assert placement.apart == "workers"
    assert len({p.worker for p in placement.seats.values()}) == 4


def test_hosts_that_cannot_split_both_partnerships_are_refused() -> None:
    with pytest.raises(PlacementError, match="cannot give each partnership two"):
        place(workers(3, 1), "hosts")


def test_fewer_than_four_workers_are_refused() -> None:
    with pytest.raises(PlacementError, match=r"four Dask workers.*has 3"):
        place(workers(2, 1), "workers")


def test_busy_workers_are_left_for_others() -> None:
    cluster = workers(3, 3)
    first = place(cluster, "hosts")
    busy = {p.worker: 1 for p in first.seats.values()}
    with pytest.raises(PlacementError, match="only 2 workers are free"):
        place(cluster, "hosts", busy)
    more = workers(4, 4)
    second = place(more, "hosts", {p.worker: 1 for p in place(more, "hosts").seats.values()})
    assert not {p.worker for p in second.seats.values()} & set(busy)


@given(st.lists(st.integers(min_value=1, max_value=4), min_size=1, max_size=5))
def test_partners_never_share_a_host(per_host: list[int]) -> None:
    try:
        seats = place(workers(*per_host), "hosts").seats
    except PlacementError:
        # Refused only where no placement exists: fewer than four workers, or hosts that
        # cannot give each partnership two.
        assert sum(per_host) < 4 or len(per_host) < 2 or sum(min(2, n) for n in per_host) < 4
        return
    assert len({p.worker for p in seats.values()}) == 4
    for one, other in PARTNERS:
        assert seats[one].kernel != seats[other].kernel


def test_options_given_together_wrongly_are_named() -> None:
    assert misuse(None, "hosts") is not None and "--dask" in (misuse(None, "hosts") or "")
    assert misuse("local", "hosts") == LOCAL_IS_ONE_HOST
    assert misuse("tcp://s:8786", None, needs_apart=True) is not None
    assert misuse("tcp://s:8786", None) is None
    assert misuse("local", "workers") is None
