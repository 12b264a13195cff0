"""The numbers, computed once from a ``Tally``: what ``referee stats --json`` prints, what its
tables show, and what the tournament report draws.

Rates carry Wilson's 95% interval (``referee.stats``); a rate of nothing is null, never 0.
Decision times are in milliseconds: mean, nearest-rank p50 and p99, and the maximum.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from statistics import fmean
from typing import Final

import msgspec

from referee.match.stderr_lines import StderrTotals
from referee.rules import TRUMPS, AllTricksBid, Bid, Trump
from referee.rules.actions import counted, trump_name
from referee.stats import percentile, wilson_interval
from referee.tally.counting import PHASES, ContractKey, Phase, WinningBid
from referee.tally.tally import EntrantCounts, PairOutcome, Skipped, Tally


class ContractLine(msgspec.Struct, frozen=True):
    """Contracts of one kind (a bid, a trump, both, or all of them): how many were played, made
    and set, and the make rate with its 95% interval (null when there were none)."""

    label: str
    contracts: int
    made: int
    set: int
    make_rate: float | None
    low: float | None
    high: float | None
    #: The winning bid as the protocol writes it, and the trump: where the line is of one.
    bid: Bid | AllTricksBid | None = None
    trump: Trump | None = None


class Defence(msgspec.Struct, frozen=True):
    """The opponents' contracts an entrant defended, and set, with the set rate."""

    defended: int
    set: int
    set_rate: float | None
    low: float | None
    high: float | None


class PhaseTimes(msgspec.Struct, frozen=True):
    """Decision times in one phase, in milliseconds (null where there was no decision)."""

    phase: Phase
    decisions: int
    mean_ms: float | None
    p50_ms: float | None
    p99_ms: float | None
    max_ms: float | None


class Pairs(msgspec.Struct, frozen=True):
    """Duplicate pairs from one entrant's side: ``pairs`` complete ones (won both, split, lost
    both, or with a leg nobody won), and the ``incomplete`` (a leg void or not played)."""

    pairs: int
    won_both: int
    split: int
    lost_both: int
    unfinished: int
    incomplete: int
    #: The opponent, for the pairs against one; null for all of an entrant's pairs.
    opponent: str | None = None


class Pairing(msgspec.Struct, frozen=True):
    """One pairing's duplicate pairs; ``first`` held A+C in each pair's first leg."""

    first: str
    second: str
    pairs: int
    first_won_both: int
    split: int
    second_won_both: int
    unfinished: int
    incomplete: int


class EntrantSummary(msgspec.Struct, frozen=True):
    """Everything about one entrant."""

    name: str
    #: Matches counted from logs (void ones apart), forfeits among them.
    matches: int
    void: int
    forfeits: int
    hands: int
    passed_hands: int
    marks_won: int
    marks_conceded: int
    marks_won_per_hand: float | None
    marks_conceded_per_hand: float | None
    #: As declarer (the winning bid): every contract, then by bid, by trump, by both.
    contracts: ContractLine
    all_tricks: ContractLine
    by_bid: list[ContractLine]
    by_trump: list[ContractLine]
    by_bid_and_trump: list[ContractLine]
    defence: Defence
    times: list[PhaseTimes]
    faults: dict[str, int]
    refused: dict[str, int]
    pairs: Pairs
    against: list[Pairs]
    #: What its bots wrote on stderr, faults or not.
    stderr: StderrTotals


class Inputs(msgspec.Struct, frozen=True):
    """What was counted: results files, matches they list, logs counted (copies of a log
    counted once), and the logs that could not be."""

    results: list[str]
    results_matches: int
    logs: int
    duplicates: int
    verified: bool
    skipped: list[Skipped]


class Summary(msgspec.Struct, frozen=True):
    inputs: Inputs
    entrants: list[EntrantSummary]
    pairings: list[Pairing]


def bid_label(bid: Bid | AllTricksBid) -> str:
    """``30``; ``2 marks`` for all tricks (as players say it: a point bid is a number)."""
    if isinstance(bid, Bid):
        return str(bid.points)
    return counted(bid.marks, "mark")


def bid_order(bid: Bid | AllTricksBid) -> tuple[int, int]:
    """Point bids by points, then all-tricks bids by marks."""
    return (0, bid.points) if isinstance(bid, Bid) else (1, bid.marks)


_TRUMP_ORDER: Final = {trump: index for index, trump in enumerate(TRUMPS)}


def _line(
    label: str,
    made: int,
    contracts: int,
    bid: Bid | AllTricksBid | None = None,
    trump: Trump | None = None,
) -> ContractLine:
    low, high = wilson_interval(made, contracts) if contracts else (None, None)
    rate = made / contracts if contracts else None
    return ContractLine(label, contracts, made, contracts - made, rate, low, high, bid, trump)


def _made_of(
    contracts: Counter[ContractKey], keep: Callable[[ContractKey], bool]
) -> tuple[int, int]:
    """(made, played) of the contracts ``keep`` picks."""
    made = sum(n for key, n in contracts.items() if keep(key) and key[2])
    return made, sum(n for key, n in contracts.items() if keep(key))


def _contract_lines(contracts: Counter[ContractKey]) -> dict[str, list[ContractLine]]:
    """The contracts by bid, by trump, and by both, in the rules' order."""
    played: tuple[Counter[WinningBid], Counter[Trump], Counter[tuple[WinningBid, Trump]]] = (
        Counter(),
        Counter(),
        Counter(),
    )
    made: tuple[Counter[WinningBid], Counter[Trump], Counter[tuple[WinningBid, Trump]]] = (
        Counter(),
        Counter(),
        Counter(),
    )
    for (bid, trump, won), n in contracts.items():
        played[0][bid] += n
        played[1][trump] += n
        played[2][bid, trump] += n
        if won:
            made[0][bid] += n
            made[1][trump] += n
            made[2][bid, trump] += n
    bids = sorted(played[0], key=bid_order)
    trumps = sorted(played[1], key=_TRUMP_ORDER.__getitem__)
    both = sorted(played[2], key=lambda k: (bid_order(k[0]), _TRUMP_ORDER[k[1]]))
    return {
        "by_bid": [_line(bid_label(b), made[0][b], played[0][b], bid=b) for b in bids],
        "by_trump": [_line(trump_name(t), made[1][t], played[1][t], trump=t) for t in trumps],
        "by_bid_and_trump": [
            _line(f"{bid_label(b)}, {trump_name(t)}", made[2][b, t], played[2][b, t], b, t)
            for b, t in both
        ],
    }


def _times(phase: Phase, values: list[float]) -> PhaseTimes:
    if not values:
        return PhaseTimes(phase, 0, None, None, None, None)
    return PhaseTimes(
        phase,
        len(values),
        fmean(values),
        percentile(values, 0.5),
        percentile(values, 0.99),
        max(values),
    )


def _pairs(outcomes: Counter[PairOutcome], mine: bool, opponent: str | None = None) -> Pairs:
    """``outcomes`` from the pairing's first entrant's side, turned to the entrant's own."""
    won: PairOutcome = "first_won_both" if mine else "second_won_both"
    lost: PairOutcome = "second_won_both" if mine else "first_won_both"
    complete = sum(n for outcome, n in outcomes.items() if outcome != "incomplete")
    return Pairs(
        complete,
        outcomes[won],
        outcomes["split"],
        outcomes[lost],
        outcomes["unfinished"],
        outcomes["incomplete"],
        opponent,
    )


def _entrant(name: str, counts: EntrantCounts, tally: Tally) -> EntrantSummary:
    lines = _contract_lines(counts.contracts)
    low, high = wilson_interval(counts.set, counts.defended) if counts.defended else (None, None)
    against = [
        _pairs(outcomes, first == name, second if first == name else first)
        for (first, second), outcomes in tally.pairings.items()
        if name in (first, second)
    ]
    fields = ("pairs", "won_both", "split", "lost_both", "unfinished", "incomplete")
    total = Pairs(*(sum(getattr(line, f) for line in against) for f in fields))
    hands = counts.hands
    return EntrantSummary(
        name=name,
        matches=counts.matches,
        void=counts.void,
        forfeits=counts.forfeits,
        hands=hands,
        passed_hands=counts.passed,
        marks_won=counts.marks_won,
        marks_conceded=counts.marks_conceded,
        marks_won_per_hand=counts.marks_won / hands if hands else None,
        marks_conceded_per_hand=counts.marks_conceded / hands if hands else None,
        contracts=_line("every contract", *_made_of(counts.contracts, lambda key: True)),
        all_tricks=_line(
            "all tricks",
            *_made_of(counts.contracts, lambda key: isinstance(key[0], AllTricksBid)),
        ),
        by_bid=lines["by_bid"],
        by_trump=lines["by_trump"],
        by_bid_and_trump=lines["by_bid_and_trump"],
        defence=Defence(
            counts.defended,
            counts.set,
            counts.set / counts.defended if counts.defended else None,
            low,
            high,
        ),
        times=[_times(phase, counts.times[phase]) for phase in PHASES],
        faults=dict(sorted(counts.faults.items())),
        refused=dict(sorted(counts.refused.items())),
        pairs=total,
        against=against,
        stderr=counts.stderr,
    )


def summarize(tally: Tally, only: Iterable[str] | None = None) -> Summary:
    """The numbers of ``tally``, for every entrant or ``only`` those named."""
    names = list(tally.entrants) if only is None else [n for n in only if n in tally.entrants]
    keep = set(names)
    return Summary(
        inputs=Inputs(
            results=list(tally.results_files),
            results_matches=tally.results_matches,
            logs=tally.logs,
            duplicates=tally.duplicates,
            verified=tally.verified,
            skipped=list(tally.skipped),
        ),
        entrants=[_entrant(name, tally.entrants[name], tally) for name in names],
        pairings=[
            Pairing(first, second, _pairs(outcomes, True).pairs, *_counts(outcomes))
            for (first, second), outcomes in tally.pairings.items()
            if keep & {first, second}
        ],
    )


def _counts(outcomes: Counter[PairOutcome]) -> tuple[int, int, int, int, int]:
    return (
        outcomes["first_won_both"],
        outcomes["split"],
        outcomes["second_won_both"],
        outcomes["unfinished"],
        outcomes["incomplete"],
    )
