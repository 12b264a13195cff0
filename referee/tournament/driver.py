"""Playing a tournament from its configuration: the sandbox decided and the results file opened
before any match, the matches still missing played, the SPRT watched, and the end — each
told to a ``TournamentOutput``; nothing is printed here.
"""

from __future__ import annotations

import signal
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from referee.apart.pool import executor
from referee.errors import SandboxRefused
from referee.files import private_directory
from referee.running.cluster import ClusterError, check_workers
from referee.running.confinement import describe_sandbox
from referee.running.executors import Stopping, default_jobs, run_jobs
from referee.running.failures import failure_kinds, new_failures, only_first_tails
from referee.running.jobs import MatchJob
from referee.running.results import MatchResult, ResultsFile, refuse_used_logs, stderr_totals
from referee.tournament.config import TournamentConfig, TournamentError
from referee.tournament.output import Ending, SprtState, TournamentOutput
from referee.tournament.plan import plan
from referee.tournament.sprt import first_crossing
from referee.tournament.standings import pair_scores, standings

#: Writes the HTML report of the tournament's results, and returns the lines to say of it.
ReportWriter = Callable[[TournamentConfig], list[str]]


@dataclass(frozen=True)
class Outcome:
    """How a tournament ended, for its exit status."""

    #: The signal that stopped it (Ctrl-C, SIGTERM, SIGHUP), if one did.
    interrupted: signal.Signals | None = None
    #: The matches left unplayed that ``--resume`` would play (or could not, once decided).
    not_played: list[str] = field(default_factory=list)
    #: No match of the tournament was played (all void, or none finished): it failed.
    none_played: bool = False


def run(
    config: TournamentConfig, output: TournamentOutput, report: ReportWriter | None = None
) -> Outcome:
    """Play the tournament's missing matches. ``report`` (the command line's) writes the HTML
    report at the end when the configuration asks for one."""
    said = decide_sandbox(config)  # strict refuses before any file is made
    if config.dask and config.dask != "local":  # a local cluster's workers run from here
        commands = {entrant.name: entrant.command for entrant in config.settings.entrants}
        try:
            note = check_workers(config.dask, commands)
        except ClusterError as exc:
            raise TournamentError(str(exc)) from None
        if note is not None:
            said.append(note)
    results_file = _open_results(config)
    for line in said:
        output.note(line)
    if not config.dask and config.jobs > default_jobs():
        output.note(
            f"warning: --jobs {config.jobs} on {default_jobs()} cores: bots will wait for the"
            " CPU and may time out through no fault of their own"
        )
    jobs = plan(config.settings, config.logs, config.sandbox, (str(config.results),), config.warm)
    tournament = _Tournament(config, output, results_file)
    interrupted = tournament.play(jobs)
    results_file.close()
    results = tournament.results
    ending = tournament.ending(len(jobs))
    for row in ending.table.standings:
        seated = row.matches + row.void
        if seated and row.never_started >= 2 * seated:  # no bot of it ever started
            output.note(
                f"warning: entrant {row.name} never started: none of its bots became"
                " ready in any match; try its command with 'referee check-bot'"
            )
    output.standings(ending)
    if report is not None and config.report and results:
        for line in report(config):
            output.note(line)
    if interrupted is not None:
        output.note(
            f"interrupted: {len(results)} of {len(jobs)} matches recorded; run the same command"
            " with --resume to play the rest"
        )
        return Outcome(interrupted=interrupted)
    # Not played: what the referee failed on or gave up; and, unless the SPRT has decided (then
    # no more are played), every match left over, e.g. when the executor refused work.
    stopped = tournament.decided
    left = [job.match_id for job in jobs if job.match_id not in results_file.done]
    left = [match_id for match_id in left if match_id in tournament.failed or not stopped]
    if left:
        listed = ", ".join(left[:20]) + (f" and {len(left) - 20} more" if len(left) > 20 else "")
        retry = (
            "the SPRT has decided, so --resume only completes the pairs begun"
            if stopped
            else "run the same command with --resume to retry them"
        )
        output.note(f"{len(left)} of {len(jobs)} matches not played: {listed}; {retry}")
    why = none_played(results, len(jobs), bool(config.dask))
    if why:
        output.note(why)
    return Outcome(not_played=left, none_played=bool(why))


def none_played(results: list[MatchResult], planned: int, dask: bool) -> str:
    """The line that says no match was played, and why; "" when one was. Standings of void
    or missing matches alone would read like a tournament of draws."""
    if not planned or any(not result.void for result in results):
        return ""
    if not results:
        return f"no match was played: none of the {planned} planned finished (see above)"
    where = " on the Dask workers" if dask else ""
    return (
        f"no match was played: all {len(results)} were void (bots of both sides failed to"
        f" start in each) — check the bot commands and their working directory{where}"
    )


def decide_sandbox(config: TournamentConfig) -> list[str]:
    """What to say of the sandbox: one line per distinct sandbox the entrants' bots get
    (usually one). Refused here, before any file is made, when a protection is missing
    under ``--sandbox strict``, or a bot could read the logs or the results."""
    settings = config.settings
    try:
        return describe_sandbox(
            config.sandbox, settings.limits, settings.entrants, [config.logs, config.results]
        )
    except SandboxRefused as exc:
        raise TournamentError(str(exc)) from None


def _open_results(config: TournamentConfig) -> ResultsFile:
    """The results file, new or resumed, and the logs directory (the operator's alone)."""
    try:
        private_directory(config.logs)
        jobs = plan(config.settings, config.logs)
        if not config.results.exists() or config.results.stat().st_size == 0:  # a new one
            refuse_used_logs(jobs)
        planned = {job.match_id for job in jobs}
        return ResultsFile.open(config.results, config.settings, planned, config.resume)
    except OSError as exc:
        raise TournamentError(f"{exc.filename}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise TournamentError(str(exc)) from None


class _Tournament:
    """The matches of one run: each result recorded as it comes, the SPRT updated, failures
    and retries told."""

    def __init__(
        self, config: TournamentConfig, output: TournamentOutput, results_file: ResultsFile
    ) -> None:
        self.config = config
        self.output = output
        self.results_file = results_file
        self.names = [entrant.name for entrant in config.settings.entrants]
        self.results = list(results_file.done.values())
        self.failed: set[str] = set()
        #: (entrant, reason) of the bot failures told so far: each kind is told once.
        self.told: set[tuple[str, str]] = set()
        self.sprt: SprtState | None = None
        #: Legs of each duplicate pair begun (recorded, started or about to start) and ended
        #: (recorded or failed): once the test has decided, only begun pairs are completed.
        self.begun: Counter[str] = Counter(pair_of(result.match_id) for result in self.results)
        self.ended: Counter[str] = Counter(self.begun)
        sprt = config.sprt
        crossing = None if sprt is None else first_crossing(sprt, self._pair_scores())
        if sprt is not None and crossing is not None:  # resumed: decided where it crossed
            self.sprt = SprtState(sprt, crossing[1], sprt.verdict(crossing[1]), crossing[0])
        self._update_sprt()

    @property
    def decided(self) -> bool:
        return self.sprt is not None and self.sprt.verdict != "continue"

    def _update_sprt(self) -> None:
        """The test over the results so far, until it has decided: the verdict reported stays
        the one that stopped the tournament, whatever the matches in flight then do."""
        sprt = self.config.sprt
        if sprt is None or self.decided:
            return
        scores = self._pair_scores()
        llr = sprt.llr(scores)
        self.sprt = SprtState(sprt, llr, sprt.verdict(llr), len(scores))

    def _pair_scores(self) -> list[float]:
        return pair_scores(self.results, self.names[0])

    def to_play(self, missing: list[MatchJob]) -> Iterator[MatchJob]:
        """The missing matches in plan order, read as they start: once the test has decided,
        only the legs that complete a pair begun. The SPRT's unit is the pair, so a run it
        stops ends with whole pairs (never half of one: that leg's deals would count for one
        side only)."""
        for job in missing:
            pair = pair_of(job.match_id)
            if self.decided and not self.begun[pair]:
                continue
            self.begun[pair] += 1
            yield job

    def _open_pairs(self) -> bool:
        """Whether a pair begun still has a leg to end."""
        return any(self.ended[pair] < 2 for pair in self.begun)

    def play(self, jobs: list[MatchJob]) -> signal.Signals | None:
        """Play the planned matches not in the results file yet; the signal that stopped
        them, if one did."""
        # A resumed tournament the test has already decided only completes its pairs.
        missing = [job for job in jobs if job.match_id not in self.results_file.done]
        config = self.config
        # SIGTERM and SIGHUP end the tournament as Ctrl-C does: standings, how to resume.
        with Stopping() as stopping:
            self.output.started(self.names, len(jobs), self.results)
            try:
                with executor(config.dask, config.jobs, config.seats_apart, self.output.note) as (
                    pool,
                    slots,
                ):
                    run_jobs(
                        pool,
                        self.to_play(missing),
                        window=2 * slots,
                        on_result=self._on_result,
                        on_error=self._on_error,
                        on_retry=self._on_retry,
                    )
            except KeyboardInterrupt:
                return stopping.signal
            except ClusterError as exc:  # the cluster cannot seat a match apart
                raise TournamentError(str(exc)) from None
            finally:
                self.output.stopped()
        return None

    def _on_result(self, result: MatchResult) -> bool:
        fresh = new_failures(result, self.told)
        result = only_first_tails(result, {seat for seat, _ in fresh})
        self.results_file.append(result)
        self.results.append(result)
        for seat, entrant in fresh:
            failure = result.failures[seat]
            detail = failure.detail if len(failure.detail) <= 160 else failure.detail[:160] + "…"
            where = failure.stderr.where
            self.output.note(
                f"{entrant} failed in {result.match_id} (seat {seat}): {failure.reason}:"
                f" {detail}; its stderr: {where} (the end of it is shown at the end)"
            )
        self.output.match_done(self.results)
        self.ended[pair_of(result.match_id)] += 1
        self._update_sprt()
        return not self.decided or self._open_pairs()

    def _on_error(self, job: MatchJob, error: BaseException) -> None:
        self.failed.add(job.match_id)
        self.ended[pair_of(job.match_id)] += 1
        self.output.note(f"match {job.match_id} failed: {type(error).__name__}: {error}")

    def _on_retry(self, job: MatchJob, error: BaseException, attempt: int) -> None:
        self.output.note(f"match {job.match_id}: {error}; playing it again (attempt {attempt})")

    def ending(self, planned: int) -> Ending:
        return Ending(
            names=self.names,
            table=standings(self.names, self.results),
            results=self.results,
            planned=planned,
            results_path=self.config.results,
            logs=self.config.logs,
            sprt=self.sprt,
            failures=failure_kinds(self.results, self._commands()),
            sandbox=self.config.sandbox,
            stderr=stderr_totals(self.results),
        )

    def _commands(self) -> dict[str, str]:
        return {entrant.name: entrant.command for entrant in self.config.settings.entrants}


def pair_of(match_id: str) -> str:
    """The duplicate pair a match is a leg of: its id without the leg (``a~b~s07``)."""
    return match_id.rsplit("~", 1)[0]
