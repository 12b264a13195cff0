"""What a competition hands the running package: entrants, and one job per match to play.

A job says everything its match needs, so any worker — here or on a Dask cluster — plays the
same match from it; which jobs to make is the competition's (a tournament's plan, a league's
schedule).
"""

from __future__ import annotations

from typing import Final

import msgspec

from referee.rules.deal import Stream
from referee.rules.tiles import Seat
from referee.settings import MatchSettings, SandboxSettings

DEFAULT_SANDBOX: Final = SandboxSettings()


class Entrant(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A bot in a competition: its program plays both seats of its partnership."""

    name: str
    command: str


class MatchJob(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One match to play: ``first`` holds A+C and ``second`` B+D, on deal seed ``seed``."""

    match_id: str
    first: Entrant
    second: Entrant
    seed: int
    leg: int  # 1: the pairing's first entrant holds A+C; 2: the same deals, sides swapped
    log: str
    settings: MatchSettings
    #: Its place in the plan: ratings take results in this order, whatever order they finish.
    number: int = 0
    #: How its bots are confined, and the files they must never read besides the logs.
    sandbox: SandboxSettings = DEFAULT_SANDBOX
    secrets: tuple[str, ...] = ()
    #: Play with bots kept from earlier matches where they can play many (``--fresh-bots``
    #: turns it off): see ``referee.running.seating``.
    warm: bool = True
    #: The competition it belongs to (a tournament's fingerprint, ``league:PATH``): kept bots
    #: are lent only within their own competition. Encoded under its first name, so jobs
    #: read and write as they always have.
    competition: str = msgspec.field(default="", name="tournament")
    #: Another match on these deals was played before it in this competition: what its bots
    #: left in the kernel's caches is wiped before this one's start (``worker.play``).
    after_same_deals: bool = False

    @property
    def commands(self) -> dict[Seat, str]:
        a, b = self.first.command, self.second.command
        return {"A": a, "B": b, "C": a, "D": b}

    @property
    def deals(self) -> str:
        """What decides its deals: the seed's place in the competition's list (``s07``, a
        league's pair ``p000042``), which both legs play."""
        return self.match_id.split("~")[-2]


def deal_seed(seed: int, index: int, kind: str = "tournament") -> int:
    """The ``index``-th deal seed of a tournament's (or a league's, ``kind``) seed: 64-bit,
    from the deal stream."""
    stream = Stream(f"{seed}/{kind}/{index}")
    return (stream.uniform(2**32) << 32) | stream.uniform(2**32)
