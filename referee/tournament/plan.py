"""What a tournament plays: entrants, pairings, deal seeds in duplicate, and match ids.

Everything here follows from the settings alone, so a tournament can be planned again after
an interruption and ``--resume`` knows exactly which matches are missing.
"""

from __future__ import annotations

import re
from itertools import combinations
from pathlib import Path
from typing import Final

from referee.rules.deal import check_seed
from referee.running.jobs import DEFAULT_SANDBOX, Entrant, MatchJob, deal_seed
from referee.running.results import Format, TournamentSettings
from referee.settings import SandboxSettings

_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}$")


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
