"""Where a match's seats go on a cluster: each on a worker of its own, partners on different
hosts — "host" meaning a running kernel (its boot id), since two workers on one machine, or
in two containers of one machine, share every kernel-wide counter whatever their addresses.
"""

from __future__ import annotations

import socket
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from referee.record.records import Placement, SeatPlace
from referee.rules.tiles import Seat

Apart = Literal["hosts", "workers"]

#: The order seats take the workers dealt round the hosts: partners (A, C) and (B, D) get
#: neighbours, which are on different hosts whenever two hosts have a free worker each.
_DEALING_ORDER: tuple[Seat, ...] = ("A", "C", "B", "D")


#: The two partnerships, seat by seat.
PARTNERS: tuple[tuple[Seat, Seat], ...] = (("A", "C"), ("B", "D"))


#: Why ``--dask local`` cannot put partners on different hosts.
LOCAL_IS_ONE_HOST = (
    "--dask local starts its workers on this one machine: partners cannot be on different"
    " hosts there; give --seats-apart=workers for a trial, or the address of a cluster of"
    " several machines"
)


def misuse(dask: str | None, apart: Apart | None, needs_apart: bool = False) -> str | None:
    """What is wrong with ``--dask`` and ``--seats-apart`` as given together, if anything
    (``needs_apart``: ``--dask`` means nothing without it, as for one match)."""
    if apart is not None and dask is None:
        return (
            "--seats-apart needs a Dask cluster: give --dask ADDRESS, or --dask local for a"
            " trial on this machine (with --seats-apart=workers)"
        )
    if apart == "hosts" and dask == "local":
        return LOCAL_IS_ONE_HOST
    if needs_apart and dask is not None and apart is None:
        return (
            "--dask plays a match with its seats apart: add --seats-apart (partners on"
            " different hosts), or --seats-apart=workers for a trial on one host"
        )
    return None


class PlacementError(ValueError):
    """The cluster cannot seat a match apart as asked; the message says why and what to do."""


@dataclass(frozen=True)
class Worker:
    """A Dask worker as placement sees it: how many seats it may run at once (its threads)."""

    address: str
    host: str
    kernel: str
    slots: int = 1


def kernel_id() -> str:
    """This machine's running kernel (its boot id): two workers with the same one share every
    kernel-wide counter, whatever their addresses say."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return f"unknown:{socket.gethostname()}"


def whereabouts() -> tuple[str, str]:
    """Run on a worker: its host name and its kernel."""
    return socket.gethostname(), kernel_id()


def survey(client: Any) -> list[Worker]:
    """The cluster's workers, each with its host name and kernel (asked of the worker)."""
    info = client.scheduler_info(n_workers=-1)["workers"]
    return workers_of(info, where(client, list(info)))


def where(client: Any, addresses: list[str]) -> dict[str, tuple[str, str]]:
    """Each worker's host name and kernel, as it says (a worker without this referee, or
    that cannot say, is left out)."""
    answers = client.run(whereabouts, workers=addresses, on_error="return")
    return {
        address: (str(answer[0]), str(answer[1]))
        for address, answer in answers.items()
        if isinstance(answer, tuple | list)
    }


def workers_of(info: dict[str, Any], known: dict[str, tuple[str, str]]) -> list[Worker]:
    """The workers of the scheduler's ``info`` whose whereabouts are ``known``."""
    return [
        Worker(address, *known[address], max(1, int(worker.get("nthreads", 1))))
        for address, worker in sorted(info.items())
        if address in known
    ]


def place(
    workers: Iterable[Worker], apart: Apart, busy: Mapping[str, int] | None = None
) -> Placement:
    """A worker of its own for each seat, partners on different hosts unless ``apart`` is
    ``workers``; ``busy``: seats each worker runs already. ``PlacementError`` says why not."""
    busy = busy or {}
    everyone = list(workers)
    free = [w for w in everyone if w.slots > busy.get(w.address, 0)]
    if len(everyone) < 4:
        raise PlacementError(
            f"seats apart need four Dask workers, one a seat; the cluster has {len(everyone)}:"
            " start more workers ('dask worker ADDRESS' on each machine)"
        )
    if apart == "hosts":
        _check_hosts(everyone)
    if len(free) < 4:
        raise PlacementError(f"only {len(free)} workers are free now; four are needed")
    by_kernel: dict[str, list[Worker]] = {}
    for worker in sorted(free, key=lambda w: (busy.get(w.address, 0), w.address)):
        by_kernel.setdefault(worker.kernel, []).append(worker)
    hosts = sorted(by_kernel.values(), key=lambda ws: (-len(ws), ws[0].address))
    dealt = [ws[i] for i in range(max(map(len, hosts))) for ws in hosts if i < len(ws)]
    chosen = dict(zip(_DEALING_ORDER, dealt[:4], strict=True))
    if apart == "hosts":
        for one, other in PARTNERS:
            if chosen[one].kernel == chosen[other].kernel:
                raise PlacementError(
                    "partners must run on different hosts, and the free workers' hosts cannot"
                    f" give each partnership two ({_hosts_said(free)})"
                )
    seats = {
        seat: SeatPlace(worker=w.address, host=w.host, kernel=w.kernel)
        for seat, w in sorted(chosen.items())
    }
    return Placement(apart=apart, seats=seats)


def _check_hosts(workers: list[Worker]) -> None:
    """Refuse a cluster whose workers cannot put partners on different hosts at all."""
    kernels = Counter(w.kernel for w in workers)
    if len(kernels) < 2:
        host = workers[0].host
        raise PlacementError(
            f"all {len(workers)} Dask workers run on one host ({host}): partners must be on"
            " different hosts — start workers on a second machine, or give"
            " --seats-apart=workers for a trial on one host"
        )
    # Each partnership needs two hosts: at most one seat of it per host.
    if sum(min(2, n) for n in kernels.values()) < 4:
        raise PlacementError(
            "partners must run on different hosts, and the workers' hosts cannot give each"
            f" partnership two ({_hosts_said(workers)}): start a worker on another host"
        )


def _hosts_said(workers: list[Worker]) -> str:
    names = Counter(f"{w.host} ({w.kernel[:8]})" for w in workers)
    return ", ".join(f"{host}: {n} worker{'s' if n > 1 else ''}" for host, n in names.items())


def seats_of(placement: Placement) -> dict[Seat, str]:
    """Each seat's worker address."""
    return {seat: place.worker for seat, place in placement.seats.items()}
