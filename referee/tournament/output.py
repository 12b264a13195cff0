"""What a tournament tells as it runs, and how it ends: the driver talks to a
``TournamentOutput`` and never prints, so the terminal's display (``referee.tournament.
terminal_output``) and a test's recorder are alike to it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgspec

from referee.match.stderr_lines import StderrTotals
from referee.running.failures import FailureKind
from referee.running.results import MatchResult
from referee.settings import SandboxSettings
from referee.tournament.sprt import Sprt, SprtReport, sprt_report
from referee.tournament.standings import Standings, played


@dataclass(frozen=True)
class SprtState:
    """The sequential test and where it stands: ``verdict`` is ``continue``, ``H0`` or
    ``H1``; once decided it is kept, even as matches in flight still finish."""

    sprt: Sprt
    llr: float
    verdict: str
    #: The whole pairs ``llr`` is over: the pairs after which it decided, once it has.
    pairs: int = 0


@dataclass(frozen=True)
class Ending:
    """The end of a tournament, as its output shows it."""

    names: list[str]
    table: Standings
    results: list[MatchResult]
    planned: int
    results_path: Path
    logs: Path
    sprt: SprtState | None = None
    #: Each entrant's faults by reason, with the first of each and its bot's stderr.
    failures: list[FailureKind] = field(default_factory=list)
    #: What the bots ran under (for the advice on a bot that failed sandboxed).
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    #: Each entrant's stderr, faults or not (entrants whose bots wrote nothing left out).
    stderr: dict[str, StderrTotals] = field(default_factory=dict)

    def document(self) -> dict[str, Any]:
        """The standings as ``--json`` prints them: ``matches`` recorded, of them ``played``
        and ``void`` (bots of both sides failed to start)."""
        document: dict[str, Any] = {
            "results": str(self.results_path),
            "matches": len(self.results),
            "played": len(played(self.results)),
            "void": sum(result.void for result in self.results),
            "planned": self.planned,
            **msgspec.to_builtins(self.table),
            "failures": [
                {
                    "entrant": kind.entrant,
                    "reason": kind.reason,
                    "matches": kind.matches,
                    "first": {
                        "match_id": kind.match_id,
                        "seat": kind.seat,
                        **msgspec.to_builtins(kind.first),
                    },
                }
                for kind in self.failures
            ],
            "stderr": msgspec.to_builtins(self.stderr),
        }
        report = self.sprt_report()
        if report is not None:
            document["sprt"] = msgspec.to_builtins(report)
        return document

    def sprt_report(self) -> SprtReport | None:
        """The SPRT over every whole pair played, with the verdict that stopped the run."""
        if self.sprt is None:
            return None
        state = self.sprt
        decided = None if state.verdict == "continue" else (state.pairs, state.llr)
        names = self.names
        return sprt_report(state.sprt, self.results, names[0], names[1], decided, run=True)


class TournamentOutput(Protocol):
    """Where a tournament's progress goes."""

    def note(self, line: str) -> None:
        """A line for the operator: the sandbox, a warning, a match failed or played again,
        how to resume. Plain text: it may quote a bot's words."""

    def started(self, names: list[str], planned: int, results: Sequence[MatchResult]) -> None:
        """Matches are about to be played; ``results`` are those already in the file."""

    def match_done(self, results: Sequence[MatchResult]) -> None:
        """A match ended: ``results`` are all so far, the newest last."""

    def stopped(self) -> None:
        """No more matches are played (all done, the test decided, or interrupted)."""

    def standings(self, ending: Ending) -> None:
        """The final standings."""
