"""What the paths given hold: tournament results files, replay logs, or folders of them — told
apart by their first line (a results file starts with its ``tournament`` line, a log with its
``header`` record), never by their names — and the tally of all of them.

A results file's logs are found as the report finds them (``running.logs.own_log``): at
the path each line records, else beside the results file or in its ``logs/``, and only a log
whose digest is the line's. A log that is missing, unreadable, another match's, cut short,
whose chain breaks, that says otherwise than its results line or whose moves the rules refuse
is not counted, and is listed with the reason; the rest is counted. Every log is read once
and walked once (``--verify`` walks it a second time, in ``record.verify``). A log given
twice, or a copy of one (the same digest), is counted once.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

import msgspec

from referee.errors import LogError, VerificationError
from referee.match.runner import stderr_path
from referee.match.stderr_lines import StderrSummary, read_summary
from referee.record.log import LogFile, read_log
from referee.record.verify import verify
from referee.rules.tiles import SEATS, Seat
from referee.running.logs import disagreement, own_log
from referee.running.results import (
    MatchResult,
    ResultsError,
    ResultsHeader,
    in_plan_order,
    read_results,
)
from referee.tally.counting import Uncountable
from referee.tally.tally import Tally
from referee.terminal.progress import Progress, unwatched

Kind = Literal["results", "log"]

#: Enough for the first line of any results file or log (a header is a few KiB).
_FIRST_LINE_BYTES: Final = 1 << 20
_KINDS: Final[dict[str, Kind]] = {"tournament": "results", "header": "log"}


class InputError(ValueError):
    """A path that cannot be tallied: the message says which and why, in one line."""


def kind_of(path: Path) -> Kind | None:
    """``results`` or ``log`` by the file's first line; None for anything else (a pipe or a
    device is never read: it might never end)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with open(fd, "rb", closefd=False) as file:
            first = file.readline(_FIRST_LINE_BYTES)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    try:
        value = msgspec.json.decode(first)
    except msgspec.DecodeError:
        return None
    kind = value.get("type") if isinstance(value, dict) else None
    return _KINDS.get(kind) if isinstance(kind, str) else None


@dataclass
class Found:
    """The results files and the logs to count, each once, in the order given."""

    results: list[Path] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)
    #: Files found in a folder that could not be read, and why (listed, not counted).
    unreadable: list[tuple[Path, str]] = field(default_factory=list)


def find_inputs(paths: Sequence[Path]) -> Found:
    """Sort the paths into results files and logs; a folder gives every ``*.jsonl`` in it and
    below that is one or the other (the rest — a bot's stderr copy, a page — is not read as
    data). ``InputError`` for a path that is none of these."""
    inputs = Found()
    seen: set[Path] = set()
    for path in paths:
        if path.is_dir():
            found, unread = [], len(inputs.unreadable)
            for member in sorted(path.rglob("*.jsonl")):
                try:
                    kind = kind_of(member) if member.is_file() else None
                except InputError as exc:
                    inputs.unreadable.append((member, str(exc)))
                    continue
                if kind is not None:
                    found.append((member, kind))
            if not found and len(inputs.unreadable) == unread:
                raise InputError(f"{path} holds no results file and no replay log (*.jsonl)")
        elif path.exists():
            kind = kind_of(path)
            if kind is None:
                raise InputError(f"{path} is neither a tournament's results file nor a replay log")
            found = [(path, kind)]
        else:
            raise InputError(f"{path}: no such file or folder")
        for member, kind in found:
            if member.resolve() not in seen:
                seen.add(member.resolve())
                (inputs.results if kind == "results" else inputs.logs).append(member)
    return inputs


def tally_paths(
    paths: Sequence[Path], verify_logs: bool = False, progress: Progress = unwatched
) -> Tally:
    """Count everything the paths hold (``verify_logs``: verify each log before counting it)."""
    return tally_inputs(find_inputs(paths), verify_logs, progress)


def tally_inputs(inputs: Found, verify_logs: bool = False, progress: Progress = unwatched) -> Tally:
    """Count the results files and logs found (``find_inputs``): every results file read
    first, so that the progress knows how many logs there are."""
    files: list[tuple[Path, ResultsHeader, list[MatchResult]]] = []
    for path in inputs.results:
        try:
            header, results = read_results(path)
        except ResultsError as exc:
            raise InputError(str(exc)) from None
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
        files.append((path, header, results))
    tally = Tally()
    tally.verified = verify_logs
    for path, why in inputs.unreadable:
        tally.skip(str(path), why)
    total = sum(len(results) for _, _, results in files) + len(inputs.logs)
    done = 0

    def advance() -> None:
        nonlocal done
        done += 1
        progress(done, total)

    counted: set[Path] = set()
    for path, header, results in files:
        tally.add_results(header, results, path)
        commands = {entrant.name: entrant.command for entrant in header.settings.entrants}
        for result in in_plan_order(results):
            found = _tournament_log(tally, result, path, commands, verify_logs)
            if found is not None:
                counted.add(found.resolve())
            advance()
    for path in inputs.logs:
        if path.resolve() not in counted:  # a tournament's own log, given again
            _plain_log(tally, path, verify_logs)
        advance()
    return tally


def _tournament_log(
    tally: Tally, result: MatchResult, results: Path, commands: dict[str, str], verify_logs: bool
) -> Path | None:
    """Count a result's log; where it is, when it was found."""
    try:
        path, log = own_log(result, results)
    except (OSError, LogError, ValueError) as exc:
        tally.skip(result.log, f"cannot be read: {exc}", result.match_id)
        return None
    why = _problem(log, verify_logs) or _differs(result, log, commands)
    if why:
        tally.skip(str(path), why, result.match_id)
    else:
        stderr = result.stderr or written_beside(path)  # a line from before it was recorded
        _count(tally, log, str(path), result.seats, result.match_id, stderr)
    return path


def _differs(result: MatchResult, log: LogFile, commands: dict[str, str]) -> str:
    differs = disagreement(result, log, commands)
    return f"its results line says otherwise than the log: {differs}" if differs else ""


def _plain_log(tally: Tally, path: Path, verify_logs: bool) -> None:
    try:
        log = read_log(path)
    except LogError as exc:
        tally.skip(str(path), f"cannot be read: {exc}")
        return
    why = _problem(log, verify_logs)
    if why:
        tally.skip(str(path), why)
    else:
        _count(tally, log, str(path), None, None, written_beside(path))


def written_beside(log: Path) -> dict[Seat, StderrSummary]:
    """What each seat's bot wrote on stderr, read from the copies beside its log."""
    copies = {seat: read_summary(stderr_path(log, seat)) for seat in SEATS}
    return {seat: summary for seat, summary in copies.items() if summary is not None}


def _count(
    tally: Tally,
    log: LogFile,
    path: str,
    seats: dict[Seat, str] | None,
    match: str | None,
    stderr: dict[Seat, StderrSummary],
) -> None:
    if tally.known(log):
        tally.duplicates += 1
        return
    try:
        tally.add_log(log, seats, stderr)
    except Uncountable as exc:
        tally.skip(path, str(exc), match)


def _problem(log: LogFile, verify_logs: bool) -> str:
    """Why a log read whole cannot be counted, or ""."""
    if log.broken_at is not None:
        return f"its chain breaks at line {log.broken_at}: a record was edited, removed or moved"
    if log.truncated is not None:
        return f"it is truncated: {log.truncated}"
    if verify_logs:
        try:
            verify(log)
        except VerificationError as exc:
            return f"it does not verify: {exc}"
    return ""
