"""A Dask cluster's workers checked before the first match: each runs the bot commands from
its own working directory and its own PATH, so a relative path that works here can be
missing there — and then every match would be void, every bot "crashed". Each worker is
asked why any entrant's command could not start where it is (``match.commands.problem``,
the check ``referee match`` makes here), and the first that cannot is a usage mistake
naming the worker, the entrant, the command and the worker's directory.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

from referee.match.commands import problem

#: Seconds to reach the scheduler before giving up.
CONNECT_TIMEOUT: Final = 10


class ClusterError(ValueError):
    """The Dask cluster cannot play the competition's matches; the message says what to fix."""


def commands_here(commands: dict[str, str]) -> tuple[str, str, dict[str, str]]:
    """Run on a worker: its host name, its working directory, and why each entrant's command
    (by entrant name) could not start there."""
    problems = {name: why for name, command in commands.items() if (why := problem(command))}
    return socket.gethostname(), os.getcwd(), problems


def check_workers(address: str, commands: dict[str, str]) -> str | None:
    """``ClusterError`` when a worker of the cluster at ``address`` cannot start an
    entrant's command; a note to say when the cluster has no worker yet (nothing checked)."""
    from distributed import Client

    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as exc:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address}: {exc}; start it with 'dask"
            " scheduler' and give the address it prints"
        ) from None
    try:
        answers = client.run(commands_here, commands, on_error="return")
    except Exception as exc:  # the scheduler went away, a message could not be sent...
        raise ClusterError(
            f"cannot ask the Dask workers at {address} whether they can start the bots:"
            f" {type(exc).__name__}: {exc}"
        ) from None
    finally:
        client.close()  # type: ignore[no-untyped-call]
    broken = [(w, answer) for w, answer in answers.items() if isinstance(answer, BaseException)]
    if broken:
        worker, error = broken[0]
        raise ClusterError(
            f"Dask worker {worker} could not check the bot commands ({type(error).__name__}:"
            f" {error}): is this referee installed there, in the same version?"
        )
    if not answers:
        return (
            f"warning: the Dask cluster at {address} has no worker yet: the bot commands were"
            " not checked on the workers"
        )
    failing = [(worker, answer) for worker, answer in sorted(answers.items()) if answer[2]]
    if failing:
        worker, (host, directory, problems) = failing[0]
        name, why = next(iter(problems.items()))
        more = f" (and {len(failing) - 1} more workers)" if len(failing) > 1 else ""
        raise ClusterError(
            f"Dask worker {worker} (host {host}, working directory {directory}) cannot start"
            f" entrant {name}: {why}{more}; give the workers the bots at the same paths"
            " (absolute paths are safest), or start each worker in the directory the"
            " commands are relative to"
        )
    return None


@contextmanager
def connected(address: str, local_workers: int) -> Iterator[Any]:
    """A Dask client of the cluster at ``address`` (its comm and security as Dask's
    configuration says: TLS certificates, for one), or of a ``LocalCluster`` of
    ``local_workers`` worker processes when ``address`` is ``"local"``; ``ClusterError``
    when the scheduler cannot be reached."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(
            "--dask needs Dask's distributed package: pip install -e '.[dask]' (or"
            " 'distributed' into the referee's environment)"
        ) from None
    cluster = None
    try:
        if address == "local":
            # Its workers' own logs stay quiet below CRITICAL: a worker the cluster restarts
            # logs a traceback when its heartbeat meets the closing scheduler, on the
            # referee's stderr; the referee says what failed, once, itself.
            cluster = LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=local_workers, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=logging.CRITICAL,
            )  # fmt: skip
            client = Client(cluster)  # type: ignore[no-untyped-call]
        else:
            client = Client(address, timeout=CONNECT_TIMEOUT)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as exc:
        if cluster is not None:
            cluster.close()
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address}: {exc}; start it with 'dask"
            " scheduler' and give the address it prints"
        ) from None
    except (TypeError, ValueError) as exc:  # e.g. a tls:// address and no TLS configured
        raise ClusterError(
            f"cannot connect to the Dask scheduler at {address}: {exc}; for a tls:// address"
            " give this machine Dask's TLS configuration (its CA, certificate and key: see"
            " docs/competitions/dask.md)"
        ) from None
    try:
        yield client
    finally:
        client.close()  # type: ignore[no-untyped-call]
        if cluster is not None:
            cluster.close()
