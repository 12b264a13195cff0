"""Many logs into one dataset file: the logs a results file names and the logs given, each
verified, their decisions made rows on every core, the file written whole or not at all.

Any log that cannot give its rows — missing, not a log, cut short, another match's, one that
does not verify — stops the export with one line naming it (``DatasetError``), and nothing is
left at the output: rows go to a hidden file beside it, renamed into place at the end.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from referee.dataset.columns import schema
from referee.dataset.decisions import Rows, add_log
from referee.dataset.labels import MAX_NODES
from referee.errors import DatasetError, LogError, VerificationError
from referee.record.log import read_log
from referee.record.verify import verify
from referee.rules.tiles import Seat
from referee.running.logs import own_log
from referee.running.results import ResultsError, in_plan_order, read_results
from referee.tally.sources import InputError, find_inputs

#: Logs a worker turns into rows at a time (a chunk of the output's rows).
CHUNK = 8


@dataclass(frozen=True)
class Source:
    """One log to read: its path, the match's name, and each seat's bot (a tournament's
    entrants; None for a log given alone: the names the bots gave)."""

    path: Path
    match: str
    bots: dict[Seat, str] | None = None


@dataclass
class Summary:
    """What an export wrote."""

    output: str
    logs: int = 0
    decisions: int = 0
    hands: int = 0
    phases: Counter[str] = field(default_factory=Counter)
    labels: bool = False
    labels_given_up: int = 0
    seconds: float = 0.0
    bytes: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "output": self.output,
            "logs": self.logs,
            "decisions": self.decisions,
            "hands": self.hands,
            "phases": dict(self.phases),
            "labels": self.labels,
            "labels_given_up": self.labels_given_up,
            "seconds": round(self.seconds, 3),
            "decisions_per_second": round(self.decisions / self.seconds) if self.seconds else 0,
            "bytes": self.bytes,
        }


def sources(paths: Sequence[Path]) -> list[Source]:
    """The logs the paths name, each once: every results file's first, each in its plan order
    (found at the paths its lines record, or beside it, and only the log whose digest is the
    line's), then the logs given alone, in the order given."""
    try:
        found = find_inputs(paths)
    except InputError as exc:
        raise DatasetError(str(exc)) from None
    if found.unreadable:
        path, why = found.unreadable[0]
        raise DatasetError(f"{path}: {why}")
    out: list[Source] = []
    seen: set[Path] = set()
    for results_file in found.results:
        try:
            _, results = read_results(results_file)
        except (ResultsError, OSError) as exc:
            raise DatasetError(f"{results_file}: {exc}") from None
        for result in in_plan_order(results):
            try:
                path, _ = own_log(result, results_file)
            except (OSError, LogError, ValueError) as exc:
                raise DatasetError(f"match {result.match_id} of {results_file}: {exc}") from None
            if path.resolve() not in seen:
                seen.add(path.resolve())
                out.append(Source(path, result.match_id, dict(result.seats)))
    for path in found.logs:
        if path.resolve() not in seen:
            seen.add(path.resolve())
            out.append(Source(path, path.stem))
    return out


def rows_of(chunk: list[Source], labels: bool, max_nodes: int) -> tuple[pa.Table, int, int]:
    """The rows of a chunk of logs, each verified first: the table, its hands and the labels
    given up. ``DatasetError`` for a log that cannot give them."""
    rows = Rows(with_labels=labels)
    for source in chunk:
        try:
            log = read_log(source.path)
            verify(log)
        except (LogError, OSError) as exc:
            raise DatasetError(f"{source.path}: cannot be read: {exc}") from None
        except VerificationError as exc:
            raise DatasetError(f"{source.path}: does not verify: {exc}") from None
        try:
            add_log(rows, log, source.match, source.bots, max_nodes)
        except Exception as exc:  # a bug here: named with its log, and it crosses the pool
            raise DatasetError(f"{source.path}: {type(exc).__name__}: {exc}") from None
    return rows.table(), rows.hands, rows.given_up


def _rows_task(task: tuple[list[Source], bool, int]) -> tuple[pa.Table, int, int]:
    return rows_of(*task)


def _chunks(found: list[Source], labels: bool, max_nodes: int) -> list[Any]:
    return [(found[at : at + CHUNK], labels, max_nodes) for at in range(0, len(found), CHUNK)]


def _tables(tasks: list[Any], jobs: int) -> Iterator[tuple[pa.Table, int, int]]:
    """Each chunk's rows, in order: here, or in ``jobs`` forked workers."""
    if jobs <= 1 or len(tasks) <= 1:
        yield from map(_rows_task, tasks)
        return
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield from pool.imap(_rows_task, tasks)


def export(
    paths: Sequence[Path],
    output: Path,
    *,
    labels: bool = False,
    jobs: int = 0,
    max_nodes: int = MAX_NODES,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> Summary:
    """Write the decisions of every log the paths hold to ``output`` (Parquet, zstd).
    ``jobs``: worker processes (0: one a core)."""
    started = time.perf_counter()
    found = sources(paths)
    if not found:
        raise DatasetError("the paths hold no replay log")
    jobs = jobs or os.cpu_count() or 1
    summary = Summary(str(output), labels=labels)
    partial = output.with_name(f".{output.name}.partial-{os.getpid()}")
    try:
        with pq.ParquetWriter(partial, schema(labels), compression="zstd") as writer:
            progress(0, len(found))
            for table, hands, given_up in _tables(_chunks(found, labels, max_nodes), jobs):
                writer.write_table(table)
                summary.decisions += table.num_rows
                summary.hands += hands
                summary.labels_given_up += given_up
                summary.phases.update(table["phase"].to_pylist())
                summary.logs = min(summary.logs + CHUNK, len(found))
                progress(summary.logs, len(found))
        os.replace(partial, output)
    finally:
        with suppress(FileNotFoundError):
            partial.unlink()
    summary.bytes = output.stat().st_size
    summary.seconds = time.perf_counter() - started
    return summary
