"""Adding up: each counted log's seats given to the entrants that sat in them, each results
file's duplicate pairs, and every log that could not be counted with the reason.

Who sat where: in a tournament, the results line says (its ``first`` entrant holds A+C, its
``second`` B+D); in a log given alone, each seat's bot by the name it gave in ``ready``, or by
its command when it never did. An entrant seated on both sides of one match (a bot against
itself) counts each side's hands and marks.

A void match — bots of both sides failed to start — was not played: it counts in ``void``
and in the faults (its bots' failures to start), never in the matches, as the standings keep
it. A duplicate pair is complete when both its legs were played (a void or missing leg
leaves it incomplete, as the SPRT counts pairs).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

import msgspec

from referee.match.stderr_lines import StderrSummary, StderrTotals
from referee.record.log import LogFile
from referee.rules.tiles import OPPONENTS_OF, PARTNERSHIP_OF, SEATS, Partnership, Seat
from referee.running.results import MatchResult, ResultsHeader
from referee.tally.counting import PHASES, ContractKey, LogCounts, Phase, count_log

#: How a complete duplicate pair went, for the pairing's first entrant; or ``incomplete``.
PairOutcome = Literal["first_won_both", "split", "second_won_both", "unfinished", "incomplete"]
PAIR_OUTCOMES: Final[tuple[PairOutcome, ...]] = (
    "first_won_both",
    "split",
    "second_won_both",
    "unfinished",
    "incomplete",
)


@dataclass
class EntrantCounts:
    """Everything counted for one entrant, over every log and results file."""

    matches: int = 0
    void: int = 0
    forfeits: int = 0
    #: Hands finished with the entrant at the table (per side it held), passed ones among them.
    hands: int = 0
    passed: int = 0
    marks_won: int = 0
    marks_conceded: int = 0
    #: The opponents' contracts it defended, and set.
    defended: int = 0
    set: int = 0
    contracts: Counter[ContractKey] = field(default_factory=Counter)
    times: dict[Phase, list[float]] = field(default_factory=lambda: {p: [] for p in PHASES})
    faults: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    #: What its bots wrote on stderr, faults or not.
    stderr: StderrTotals = field(default_factory=StderrTotals)


class Skipped(msgspec.Struct, frozen=True):
    """A log that was not counted: where, the match it belongs to (in a tournament), and why."""

    log: str
    why: str
    match: str | None = None


class Tally:
    """The counts so far. Entrants keep the order they were first seen in (a results file's
    own order first)."""

    def __init__(self) -> None:
        self.entrants: dict[str, EntrantCounts] = {}
        #: Per pairing (the first entrant of leg 1, the other): its pairs by outcome.
        self.pairings: dict[tuple[str, str], Counter[PairOutcome]] = {}
        self.results_files: list[str] = []
        #: Matches the results files list (void ones included).
        self.results_matches = 0
        self.logs = 0
        self.duplicates = 0
        self.skipped: list[Skipped] = []
        #: Every log counted was verified first (``replay --verify``'s checks), not only its
        #: chain, its end and the legality of its moves.
        self.verified = False
        self._digests: set[str] = set()

    def entrant(self, name: str) -> EntrantCounts:
        counts = self.entrants.get(name)
        if counts is None:
            counts = self.entrants[name] = EntrantCounts()
        return counts

    def add_results(self, header: ResultsHeader, results: list[MatchResult], path: Path) -> None:
        """A results file's entrants and duplicate pairs (its logs are added one by one)."""
        self.results_files.append(str(path))
        self.results_matches += len(results)
        for entrant in header.settings.entrants:
            self.entrant(entrant.name)
        legs: dict[tuple[int, frozenset[str]], list[MatchResult]] = defaultdict(list)
        for result in results:
            self.entrant(result.first)
            self.entrant(result.second)
            legs[result.seed, frozenset((result.first, result.second))].append(result)
        place = {entrant.name: index for index, entrant in enumerate(header.settings.entrants)}
        for (_, names), pair in legs.items():
            # The plan's order (leg 1's A+C first), whichever legs are there; a pairing
            # already known the other way round (from another results file) keeps its order.
            first, second = sorted(names, key=lambda name: (place.get(name, len(place)), name))
            if (second, first) in self.pairings:
                first, second = second, first
            self.pairings.setdefault((first, second), Counter())[_outcome(pair, first)] += 1

    def skip(self, log: str, why: str, match: str | None = None) -> None:
        self.skipped.append(Skipped(log, why, match))

    def known(self, log: LogFile) -> bool:
        """Whether this log (by its digest) was counted already: a copy is counted once."""
        return log.head in self._digests

    def add_log(
        self,
        log: LogFile,
        seats: Mapping[Seat, str] | None = None,
        stderr: Mapping[Seat, StderrSummary] | None = None,
    ) -> None:
        """Count ``log`` (``seats``: the entrant in each seat; by default the bots' names;
        ``stderr``: what each seat's bot wrote there). Raises ``Uncountable`` and adds nothing
        when the rules refuse one of its moves."""
        counts = count_log(log)
        self._digests.add(log.head)
        self.logs += 1
        seated = dict(seats) if seats is not None else counts.names
        self._merge(counts, seated)
        written = (stderr or {}).items()
        for name in set(seated.values()):
            self.entrant(name).stderr.add(s for seat, s in written if seated[seat] == name)

    def _merge(self, counts: LogCounts, seats: dict[Seat, str]) -> None:
        held: dict[str, set[Partnership]] = defaultdict(set)
        for seat in SEATS:
            held[seats[seat]].add(PARTNERSHIP_OF[seat])
            entrant, done = self.entrant(seats[seat]), counts.seats[seat]
            entrant.contracts.update(done.contracts)
            entrant.faults.update(done.faults)
            entrant.refused.update(done.refused)
            for phase, times in done.times.items():
                entrant.times[phase].extend(times)
        for name, sides in held.items():
            entrant = self.entrant(name)
            if counts.void:
                entrant.void += 1
            else:
                entrant.matches += 1
            for side in sides:
                got, other = counts.sides[side], counts.sides[OPPONENTS_OF[side]]
                entrant.hands += got.hands
                entrant.passed += got.passed
                entrant.marks_won += got.marks
                entrant.marks_conceded += other.marks
                entrant.defended += got.defended
                entrant.set += got.set
        if counts.forfeit is not None:
            self.entrant(seats[counts.forfeit]).forfeits += 1


def _outcome(pair: list[MatchResult], first: str) -> PairOutcome:
    """How a duplicate pair went for ``first``: both legs must have been played."""
    if len(pair) != 2 or {leg.leg for leg in pair} != {1, 2} or any(leg.void for leg in pair):
        return "incomplete"
    if any(leg.winner is None for leg in pair):
        return "unfinished"
    won = sum(leg.winner == first for leg in pair)
    return ("second_won_both", "split", "first_won_both")[won]
