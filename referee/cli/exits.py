"""The exit statuses of the commands, named once: scripts and CI read them, so a command says
which one it means instead of a bare number."""

from __future__ import annotations

from typing import Final

#: All went well: the match was played (forfeits included), every check passed.
OK: Final = 0
#: The work was done and the answer is no: a check failed, a replay does not verify, a re-run
#: differs, a sandbox layer is missing; or the referee itself failed.
FAILED: Final = 1
#: A usage mistake, said in one line before anything starts (click's own status for its
#: usage errors too).
USAGE: Final = 2


def by_signal(signum: int) -> int:
    """The status of a command ended by signal ``signum``, as a shell reports it: 130 for
    Ctrl-C, 143 for SIGTERM, 129 for SIGHUP."""
    return 128 + signum
