"""What a tournament plays: entrants, pairings, deal seeds in duplicate, and match ids.

Everything here follows from the settings alone, so a tournament can be planned again after
an interruption and ``--resume`` knows exactly which matches are missing.
"""

from __future__ import annotations

import hashlib
import re
from itertools import combinations
from pathlib import Path
from typing import Final, Literal

import msgspec

from referee.rules.deal import Stream, check_seed
from referee.rules.tiles import Seat
from referee.settings import MatchLimits, MatchSettings, SandboxSettings

Format = Literal["round-robin", "gauntlet"]
DEFAULT_SANDBOX: Final = SandboxSettings()
_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}$")


class Entrant(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A bot in the tournament: its program plays both seats of its partnership."""

    name: str
    command: str


class TournamentSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Everything that decides which matches are played and how: the results file's header."""

    entrants: list[Entrant]
    seeds: int
    seed: int
    format: Format = "round-robin"
    limits: MatchLimits = MatchLimits()

    def fingerprint(self) -> str:
        """Stands for these settings: a results file only resumes the tournament it belongs to."""
        return hashlib.sha256(msgspec.json.encode(self, order="sorted")).hexdigest()[:16]


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
    #: turns it off): see ``referee.seating``.
    warm: bool = True
    #: The tournament's fingerprint: kept bots are lent only within their own tournament.
    tournament: str = ""
    #: Another match on these deals was played before it in this tournament: what its bots
    #: left in the kernel's caches is wiped before this one's start (``worker.play``).
    after_same_deals: bool = False

    @property
    def commands(self) -> dict[Seat, str]:
        a, b = self.first.command, self.second.command
        return {"A": a, "B": b, "C": a, "D": b}

    @property
    def deals(self) -> str:
        """What decides its deals: the seed's place in the tournament's list (``s07``), which
        every pairing plays, in both legs."""
        return self.match_id.split("~")[-2]


def check_entrants(entrants: list[Entrant]) -> None:
    """Raise ``ValueError`` with what to fix when the entrants cannot make a tournament."""
    if len(entrants) < 2:
        raise ValueError("a tournament needs at least two entrants (--bot NAME=COMMAND)")
    names = [entrant.name for entrant in entrants]
    for name in names:
        if not _NAME.match(name):
            raise ValueError(
                f"entrant name {name!r}: use 1-40 letters, digits, '_', '.', '+' or '-'"
            )
    if len(set(names)) != len(names):
        raise ValueError("entrant names must be different")


def deal_seed(seed: int, index: int, kind: str = "tournament") -> int:
    """The ``index``-th deal seed of a tournament's (or a league's, ``kind``) seed: 64-bit,
    from the deal stream."""
    stream = Stream(f"{seed}/{kind}/{index}")
    return (stream.uniform(2**32) << 32) | stream.uniform(2**32)


def deal_seeds(tournament_seed: int, count: int) -> list[int]:
    """The tournament's deal seeds: 64-bit, derived from its seed with the deal stream."""
    check_seed(tournament_seed)
    return [deal_seed(tournament_seed, index) for index in range(count)]


def pairings(entrants: list[Entrant], format: Format) -> list[tuple[Entrant, Entrant]]:
    """Round robin: every pair of entrants. Gauntlet: the first entrant against each other."""
    if format == "gauntlet":
        return [(entrants[0], other) for other in entrants[1:]]
    return list(combinations(entrants, 2))


def plan(
    settings: TournamentSettings,
    logs: Path,
    sandbox: SandboxSettings = DEFAULT_SANDBOX,
    secrets: tuple[str, ...] = (),
    warm: bool = True,
) -> list[MatchJob]:
    """Every match, in the order they are started: seed by seed, pairing by pairing, both
    legs of a duplicate pair one after the other (so a stopped tournament has whole pairs).

    A match id — and its log's name — holds the deal seed's place in the tournament's list
    (``a~b~s07~1``), never the seed: anyone who can list the logs directory would learn every
    deal."""
    limits = settings.limits
    fingerprint = settings.fingerprint()
    width = len(str(settings.seeds))
    jobs: list[MatchJob] = []
    for index, seed in enumerate(deal_seeds(settings.seed, settings.seeds)):
        for a, b in pairings(settings.entrants, settings.format):
            for leg, (first, second) in ((1, (a, b)), (2, (b, a))):
                match_id = f"{a.name}~{b.name}~s{index:0{width}d}~{leg}"
                match_settings = limits.for_seed(seed)
                log = str(logs / f"{match_id}.jsonl")
                jobs.append(
                    MatchJob(
                        match_id,
                        first,
                        second,
                        seed,
                        leg,
                        log,
                        match_settings,
                        len(jobs),
                        sandbox,
                        secrets,
                        warm,
                        fingerprint,
                    )
                )
    return jobs
