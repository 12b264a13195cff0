"""Seats on machines of their own: each bot of a match runs on a Dask worker of its own,
sandboxed there, while the referee — the table, the clock, the pace, the log — stays here.

Partners on different hosts share no kernel, so nothing a kernel keeps for a whole machine
(its pipe inode counter, its CPU caches, its per-user counters) can carry a message between
them. ``placement`` chooses the workers, ``host`` is the seat on its worker (a Dask actor)
and ``relay`` its bot's pipes there, ``calls`` what the two sides say, ``link`` carries the
calls over Dask's own communication (its TLS and authentication when the cluster has them),
``bot`` is the seat as the table sees it, ``seating`` opens a match's four seats and plays
it, and ``pool`` plays a competition's matches so.
"""
