"""The results file: a header naming the tournament, then one line per finished match.

Each line is appended and flushed the moment its match ends, so after Ctrl-C or ``kill -9``
the file holds every finished match and at most a cut-off last line, which ``--resume``
drops before running exactly the matches that are missing.

The file holds every deal seed, so it is the operator's alone: mode 0600, whatever the umask.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import IO, Literal

import msgspec

from referee.files import Held, writer_lock
from referee.match.outcome import BotFailure
from referee.match.stderr_lines import StderrSummary, StderrTotals
from referee.record.records import Forfeit
from referee.record.sandbox import SandboxReport
from referee.rules.tiles import Partnership, Seat
from referee.running.jobs import Entrant, MatchJob
from referee.settings import MatchLimits

Format = Literal["round-robin", "gauntlet"]


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


class ResultsHeader(msgspec.Struct, frozen=True, tag_field="type", tag="tournament"):
    """First line: the settings, and their fingerprint that ``--resume`` checks."""

    fingerprint: str
    settings: TournamentSettings


class MatchResult(msgspec.Struct, frozen=True, tag_field="type", tag="match"):
    """One finished match: who sat where, and what came of it."""

    match_id: str
    #: The entrant holding A+C, and the one holding B+D.
    first: str
    second: str
    seed: int
    leg: int
    #: The winning partnership ("AC" or "BD") and entrant; null for an unfinished match.
    winner_side: Partnership | None
    winner: str | None
    marks: dict[Partnership, int]
    hands: int
    end: str
    forfeit: Forfeit | None
    faults: dict[Seat, dict[str, int]]
    game_digest: str
    log_digest: str
    log: str
    #: The match's place in the tournament's plan.
    number: int = 0
    #: The sandbox layers its bots ran under, per seat, and why any was off.
    sandbox: SandboxReport | None = None
    #: The names the bots gave in ``ready``; empty for a seat whose bot never became ready.
    names: dict[Seat, str] = msgspec.field(default_factory=dict)
    #: Decisions asked of the bots (0 in files written before it was recorded).
    decisions: int = 0
    #: Each seat charged with a fault: the first one and the end of its bot's stderr (the
    #: whole copy beside the log); empty in files written before it was recorded.
    failures: dict[Seat, BotFailure] = msgspec.field(default_factory=dict)
    #: What each seat's bot wrote on stderr, faults or not (seats that wrote nothing left
    #: out); empty in files written before it was recorded.
    stderr: dict[Seat, StderrSummary] = msgspec.field(default_factory=dict)

    @property
    def seats(self) -> dict[Seat, str]:
        """The entrant in each seat: the first holds A+C, the second B+D."""
        return {"A": self.first, "B": self.second, "C": self.first, "D": self.second}

    @property
    def void(self) -> bool:
        """No match was played: bots of both sides failed to start. Not a draw: it counts in
        no score, rate, interval or rating."""
        return self.end == "void"

    def score_of(self, name: str) -> float:
        """1 for a win, 0 for a loss, 0.5 for a match nobody won (never asked of a void one)."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == name else 0.0

    def stderr_of(self, name: str) -> list[StderrSummary]:
        """What the entrant's bots wrote on stderr in this match (both of its seats)."""
        return [summary for seat, summary in self.stderr.items() if self.seats[seat] == name]

    def mark_difference_of(self, name: str) -> int:
        own, other = ("AC", "BD") if name == self.first else ("BD", "AC")
        return self.marks[own] - self.marks[other]  # type: ignore[index]


_DECODER = msgspec.json.Decoder(ResultsHeader | MatchResult)


class ResultsError(ValueError):
    """The results file cannot be used as asked (exists without --resume, or another tournament)."""


class ResultsFile:
    """Appends results, one flushed line each."""

    def __init__(self, path: Path, stream: IO[bytes], done: dict[str, MatchResult]) -> None:
        self.path = path
        self._stream = stream
        #: Results already in the file (from an earlier run, when resuming), by match id.
        self.done = done
        self._lock = -1

    @classmethod
    def open(
        cls, path: Path, settings: TournamentSettings, planned: Collection[str], resume: bool
    ) -> ResultsFile:
        """The file for the tournament of ``settings``, whose plan holds the match ids
        ``planned``: new, or (``resume``) the one it began, checked to be its own."""
        if path.is_dir():
            raise ResultsError(
                f"{path} is a directory: name the results file, e.g. {path / 'results.jsonl'}"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = _lock(path)
        try:
            return cls._open(path, settings, planned, resume, lock)
        except BaseException:
            os.close(lock)
            raise

    @classmethod
    def _open(
        cls,
        path: Path,
        settings: TournamentSettings,
        planned: Collection[str],
        resume: bool,
        lock: int,
    ) -> ResultsFile:
        done: dict[str, MatchResult] = {}
        fingerprint = settings.fingerprint()
        exists = path.exists() and path.stat().st_size > 0
        if exists and not resume:
            raise ResultsError(f"{path} exists: add --resume to complete it, or choose another")
        if exists:
            done = _read(path, settings, planned)
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        # The umask may have taken bits from 0o600 (or, resuming, an older file may give more):
        # set exactly owner read and write. Only another user's file refuses (and is kept).
        with contextlib.suppress(PermissionError):
            os.fchmod(descriptor, 0o600)
        stream = os.fdopen(descriptor, "ab")
        if not exists:
            header = ResultsHeader(fingerprint=fingerprint, settings=settings)
            stream.write(msgspec.json.encode(header) + b"\n")
            stream.flush()
        results = cls(path, stream, done)
        results._lock = lock
        return results

    def append(self, result: MatchResult) -> None:
        self._stream.write(msgspec.json.encode(result) + b"\n")
        self._stream.flush()
        self.done[result.match_id] = result

    def close(self) -> None:
        self._stream.close()
        if self._lock >= 0:
            os.close(self._lock)  # the lock goes with it
            self._lock = -1


def _lock(path: Path) -> int:
    """An exclusive lock on ``<results>.lock`` for as long as this process writes the results
    (``writer_lock``: a second run can say whose it is)."""
    try:
        return writer_lock(path.with_name(path.name + ".lock"))
    except Held as exc:
        raise ResultsError(
            f"{path} is being written by another tournament (pid {exc.holder}): let it finish"
            " or stop it, then run this again"
        ) from None


def read_results(path: Path) -> tuple[ResultsHeader, list[MatchResult]]:
    """A results file's header and results (a cut-off last line is left out)."""
    lines = path.read_bytes().split(b"\n")[:-1]  # the last piece is "" or a cut-off line
    if not lines:
        raise ResultsError(f"{path} is empty: not a results file")
    try:
        header = _DECODER.decode(lines[0])
        results = [_DECODER.decode(line) for line in lines[1:]]
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ResultsError(f"{path} is not a results file: {exc}") from None
    if not isinstance(header, ResultsHeader) or not all(
        isinstance(result, MatchResult) for result in results
    ):
        raise ResultsError(f"{path} is not a results file: a header, then match lines")
    return header, results  # type: ignore[return-value]


def refuse_used_logs(jobs: list[MatchJob]) -> None:
    """A new tournament must not overwrite another's logs: match ids (and so log names) hold
    the deal seed's index, not the seed, so two tournaments of the same entrants share them."""
    used = next((Path(job.log) for job in jobs if Path(job.log).exists()), None)
    if used is not None:
        raise ResultsError(
            f"{used.parent} already holds {used.name} (another tournament's log?):"
            " choose another --logs"
        )


def _read(
    path: Path, settings: TournamentSettings, planned: Collection[str]
) -> dict[str, MatchResult]:
    header, results = read_results(path)
    if header.fingerprint != settings.fingerprint():
        raise ResultsError(
            f"{path} belongs to another tournament (other entrants, seeds or limits):"
            " resume with the same settings, or choose another --results"
        )
    stale = next((result.match_id for result in results if result.match_id not in planned), None)
    if stale is not None:  # e.g. the seed-bearing match ids of an older referee
        raise ResultsError(
            f"{path} holds a match this tournament does not plan ({stale}): written by an"
            " older referee? choose another --results"
        )
    data = path.read_bytes()
    if not data.endswith(b"\n"):  # a line cut off by kill -9: drop it before appending
        with path.open("r+b") as stream:
            stream.truncate(data.rfind(b"\n") + 1)
            os.fsync(stream.fileno())
    return {result.match_id: result for result in results}


def in_plan_order(results: list[MatchResult]) -> list[MatchResult]:
    """Results in the plan's order (seed by seed, pairing by pairing), never in the order
    parallel matches happened to finish."""
    return sorted(results, key=lambda result: (result.number, result.match_id))


def result_of(job: MatchJob, outcome: object) -> MatchResult:
    """The results line for a finished match."""
    from referee.match.outcome import MatchOutcome

    assert isinstance(outcome, MatchOutcome)
    side = outcome.winner
    winner = None if side is None else (job.first.name if side == "AC" else job.second.name)
    return MatchResult(
        match_id=job.match_id,
        first=job.first.name,
        second=job.second.name,
        seed=job.seed,
        leg=job.leg,
        winner_side=side,
        winner=winner,
        marks=outcome.marks,
        hands=outcome.hands,
        end=outcome.end,
        forfeit=outcome.forfeit,
        faults=outcome.faults,
        game_digest=outcome.game_digest,
        log_digest=outcome.log_digest,
        log=job.log,
        number=job.number,
        sandbox=outcome.sandbox,
        names=outcome.names,
        decisions=outcome.decisions,
        failures=outcome.failures,
        stderr=outcome.stderr,
    )


def stderr_totals(results: Iterable[MatchResult]) -> dict[str, StderrTotals]:
    """Each entrant's stderr over the matches played (void ones too: a bot that wrote an
    error before the match was voided wrote it), for the entrants that wrote any."""
    totals: dict[str, StderrTotals] = {}
    for result in results:
        for name in (result.first, result.second):
            totals.setdefault(name, StderrTotals()).add(result.stderr_of(name))
    return {name: total for name, total in totals.items() if total.matches}
