"""The tables of a ``Summary``, laid out once — titles, columns, rows of text — and drawn
twice: with rich on the terminal (``terminal``) and as HTML in the tournament report.

Cells are plain text as the numbers and names are: each drawing escapes them for its medium
(names come from bots and results files). Each entrant's rows form a group: its name on the
first row only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import msgspec

from referee.rules.actions import counted
from referee.tally.summary import ContractLine, EntrantSummary, Pairs, Summary

#: A cell that reads as a number, or a dash for none (or an empty cell under a name).
_NUMERIC: Final = re.compile(r"^(?:[-+]?\d|—$|$)")


@dataclass(frozen=True)
class TableView:
    """One table: ``key`` names it (the HTML id), ``groups`` are its rows, an entrant each."""

    key: str
    title: str
    columns: list[str]
    groups: list[list[list[str]]]
    note: str = ""

    @property
    def numeric(self) -> list[bool]:
        """Which columns hold numbers (a dash where there is none): drawn aligned right."""
        rows = [row for group in self.groups for row in group]
        return [
            index > 0 and all(_NUMERIC.match(row[index]) for row in rows)
            for index in range(len(self.columns))
        ]


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def interval(low: float | None, high: float | None) -> str:
    """``51.0% to 72.8%``, as the standings write it; a dash where there is no rate."""
    if low is None or high is None:
        return "—"
    return f"{low:.1%} to {high:.1%}"


def _number(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in counts.items()) or "none"


def _grouped(rows: list[list[str]], name: str) -> list[list[str]]:
    """An entrant's rows with its name on the first one only (a row saying none if empty)."""
    return [[name if i == 0 else "", *row] for i, row in enumerate(rows)]


def _contract_cells(line: ContractLine) -> list[str]:
    return [
        line.label,
        str(line.contracts),
        str(line.made),
        str(line.set),
        percent(line.make_rate),
        interval(line.low, line.high),
    ]


def _matches(entrant: EntrantSummary) -> list[list[str]]:
    return [
        [
            str(entrant.matches),
            str(entrant.void),
            str(entrant.forfeits),
            str(entrant.hands),
            str(entrant.passed_hands),
            _number(entrant.marks_won_per_hand),
            _number(entrant.marks_conceded_per_hand),
        ]
    ]


def _contracts(entrant: EntrantSummary) -> list[list[str]]:
    """Declaring, all tricks among it, and defending: the opponents' contracts, whose make
    rate is one less the set rate (and Wilson's interval turns over with it)."""
    defence = entrant.defence
    made = defence.defended - defence.set
    rate = None if defence.set_rate is None else 1 - defence.set_rate
    low = None if defence.high is None else 1 - defence.high
    high = None if defence.low is None else 1 - defence.low
    return [
        _contract_cells(msgspec.structs.replace(entrant.contracts, label="declaring")),
        _contract_cells(msgspec.structs.replace(entrant.all_tricks, label="all tricks")),
        [
            "defending",
            str(defence.defended),
            str(made),
            str(defence.set),
            percent(rate),
            interval(low, high),
        ],
    ]


Rows = Callable[[EntrantSummary], list[list[str]]]


def _by(lines: Callable[[EntrantSummary], list[ContractLine]]) -> Rows:
    def rows(entrant: EntrantSummary) -> list[list[str]]:
        return [_contract_cells(line) for line in lines(entrant)] or [["none", *[""] * 5]]

    return rows


def _times(entrant: EntrantSummary) -> list[list[str]]:
    return [
        [
            times.phase,
            str(times.decisions),
            _number(times.mean_ms, 1),
            _number(times.p50_ms, 1),
            _number(times.p99_ms, 1),
            _number(times.max_ms, 1),
        ]
        for times in entrant.times
    ]


def _faults(entrant: EntrantSummary) -> list[list[str]]:
    return [[_counts(entrant.faults), _counts(entrant.refused)]]


def _stderr(entrant: EntrantSummary) -> list[list[str]]:
    """Its stderr: in how many matches, how many lines, and its most frequent error-like
    lines, a row each (a cell holds one line: a bot's text is escaped, never broken)."""
    written = entrant.stderr
    if not written.matches:
        return []
    frequent = written.most_frequent() or [("—", 0)]
    return [
        [
            *(
                (f"{written.matches} of {entrant.matches + entrant.void}",
                 str(written.lines), str(written.error_lines))
                if index == 0 else ("", "", "")
            ),
            str(count) if count else "",
            line,
        ]
        for index, (line, count) in enumerate(frequent)
    ]  # fmt: skip


def _pair_cells(pairs: Pairs, against: str) -> list[str]:
    return [
        against,
        str(pairs.pairs),
        str(pairs.won_both),
        str(pairs.split),
        str(pairs.lost_both),
        str(pairs.unfinished),
        str(pairs.incomplete),
    ]


def _pairs(entrant: EntrantSummary) -> list[list[str]]:
    rows = [_pair_cells(pairs, pairs.opponent or "") for pairs in entrant.against]
    if len(rows) > 1:
        rows.append(_pair_cells(entrant.pairs, "all"))
    return rows


def tables(summary: Summary) -> list[TableView]:
    """Every table of the summary, in the order they are shown."""
    entrants = summary.entrants

    def table(
        key: str,
        title: str,
        columns: list[str],
        rows: Rows,
        note: str = "",
    ) -> TableView:
        groups = [_grouped(rows(entrant), entrant.name) for entrant in entrants]
        return TableView(key, title, ["entrant", *columns], [g for g in groups if g], note)

    views = [
        table(
            "marks",
            "Matches and marks",
            [
                "matches",
                "void",
                "forfeits",
                "hands",
                "passed",
                "marks won per hand",
                "marks conceded per hand",
            ],
            _matches,
            "A void match (bots of both sides failed to start) is not a match played. Hands:"
            " every hand finished with the entrant at the table, passed ones among them.",
        ),
        table(
            "contracts",
            "Contracts",
            ["as", "contracts", "made", "set", "make rate", "95% interval"],
            _contracts,
            "Declaring: the contracts the entrant won the bidding for (all tricks among them);"
            " defending: its opponents', where every set is the entrant's.",
        ),
        table(
            "by-bid",
            "Contracts by bid",
            ["bid", "contracts", "made", "set", "make rate", "95% interval"],
            _by(lambda entrant: entrant.by_bid),
        ),
        table(
            "by-trump",
            "Contracts by trump",
            ["trump", "contracts", "made", "set", "make rate", "95% interval"],
            _by(lambda entrant: entrant.by_trump),
        ),
        table(
            "times",
            "Decision times (ms)",
            ["phase", "decisions", "mean", "p50", "p99", "max"],
            _times,
            "Each decision's time as the log records it: the accepted answer's, or the"
            " fault's (a timeout counts at the time it took); start-up is hello to ready.",
        ),
        table(
            "faults",
            "Faults and refused answers",
            ["faults", "refused answers (not faults)"],
            _faults,
        ),
        table(
            "stderr",
            "What bots wrote on stderr (not faults)",
            ["matches", "lines", "error-like", "times", "most frequent error-like lines"],
            _stderr,
            "Lines a bot wrote on stderr are no fault; those shaped like errors (an"
            " exception, a traceback, a panic, a crash, a stack frame) may be bugs it"
            " caught. The copies are beside each log (<log>.<seat>.stderr).",
        ),
    ]
    if summary.pairings:
        views.append(
            table(
                "pairs",
                "Duplicate pairs",
                ["against", "pairs", "won both", "split", "lost both", "unfinished", "incomplete"],
                _pairs,
                "Both legs of a deal seed, the sides swapped. Unfinished: a leg nobody won;"
                " incomplete: a leg void or not played (not among the pairs).",
            )
        )
    return views


def inputs_lines(summary: Summary) -> list[str]:
    """What was counted, and each log that was not, with why."""
    inputs = summary.inputs
    said = [
        f"{counted(inputs.logs, 'log')} counted"
        + (", each verified first" if inputs.verified else "")
        + (f" ({inputs.duplicates} copies counted once)" if inputs.duplicates else "")
        + (
            f"; {counted(len(inputs.results), 'results file')} of"
            f" {inputs.results_matches} match{'' if inputs.results_matches == 1 else 'es'}"
            if inputs.results
            else ""
        )
    ]
    if inputs.skipped:
        said.append(f"{counted(len(inputs.skipped), 'log')} not counted:")
        said += [
            f"  {skip.match + ': ' if skip.match else ''}{skip.log}: {skip.why}"
            for skip in inputs.skipped
        ]
    return said
