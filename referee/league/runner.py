"""``league run``: duplicate pairs chosen where the ratings are least sure, played as a
tournament's matches are (``referee.running``: the same worker, sandbox, warm bots and fault
policy), each result written with its ratings in one transaction.

A run is recorded before its first pair, and each pair before its first match: killed at
any moment (``kill -9`` included) and started again with the same request, the run goes on —
the legs of pairs already begun first, then new pairs — so nothing recorded is lost and no
match is played twice. A match the kill cut short was never recorded; it is played again, on
the same deals, its log written afresh.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import msgspec

from referee.apart.placement import Apart
from referee.apart.pool import executor
from referee.errors import LeagueError, SandboxRefused
from referee.files import private_directory
from referee.league.schedule import Rated, next_pair, stable
from referee.league.store import Entrant, League, now
from referee.match.commands import problem
from referee.running import jobs as running
from referee.running.cluster import ClusterError, check_workers
from referee.running.confinement import describe_sandbox
from referee.running.executors import Stopping, run_jobs
from referee.running.jobs import MatchJob, deal_seed
from referee.running.results import MatchResult
from referee.settings import MatchLimits, SandboxSettings
from referee.terminal.progress import Progress, unwatched


@dataclass(frozen=True)
class Request:
    """What ``league run`` was asked: a count of matches, until stable, or both (the count
    then caps it); neither continues an interrupted run."""

    matches: int | None = None
    until_stable: bool = False
    jobs: int = 1
    dask: str | None = None
    #: Each seat of a match on a Dask worker of its own (``hosts`` or ``workers``).
    seats_apart: Apart | None = None
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    warm: bool = True


@dataclass
class Played:
    """How a run ended."""

    run: int
    recorded: int = 0
    target: int | None = None
    stable: bool = False
    failed: list[str] = field(default_factory=list)
    interrupted: signal.Signals | None = None
    said: list[str] = field(default_factory=list)


def limits_of(league: League) -> MatchLimits:
    return msgspec.json.decode(league.meta("limits"), type=MatchLimits)


def rated(entrants: list[Entrant]) -> list[Rated]:
    return [Rated(e.id, e.mu, e.sigma) for e in entrants]


class LeagueRun:
    """One run's bookkeeping over an open league (the runner's lock held)."""

    def __init__(self, league: League, request: Request) -> None:
        self.league = league
        self.request = request
        self.limits = limits_of(league)
        self.logs = league.logs.resolve()  # recorded whole: readable from anywhere
        self.run, self.target, self.until_stable = self._run()
        #: Jobs handed out and not yet recorded, by match id: (pair, first, second).
        self.pending: dict[str, tuple[int, Entrant, Entrant]] = {}
        self.stable = False

    def _run(self) -> tuple[int, int | None, bool]:
        """The run to play: the interrupted one, or a new one as requested."""
        db = self.league.db
        request = self.request
        row = stopped_run(self.league)
        if row is not None:
            run, target, until = row
            asked = request.matches is not None or request.until_stable
            if asked and (request.matches != target or request.until_stable != until):
                raise LeagueError(
                    f"run {run} was stopped before its end ({_asked(target, until)}): run"
                    f" 'referee league run {self.league.path}' to finish it first, or end it"
                    " with --abandon"
                )
            return run, target, until
        if request.matches is None and not request.until_stable:
            raise LeagueError("say how much to play: --matches N, --until-stable, or both")
        with self.league.transaction():
            cursor = db.execute(
                "INSERT INTO runs (target, until_stable, started) VALUES (?, ?, ?)",
                (request.matches, int(request.until_stable), now()),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid, request.matches, request.until_stable

    def recorded_in_run(self) -> int:
        return recorded_in(self.league, self.run)

    def jobs(self) -> Iterator[MatchJob]:
        """The legs of this run's pairs still missing, then new pairs, each chosen when it is
        started (so from every result recorded before it)."""
        db = self.league.db
        planned = self.recorded_in_run()
        for pair, first, second, seed in db.execute(
            "SELECT id, first, second, seed FROM pairs WHERE run = ? ORDER BY id", (self.run,)
        ).fetchall():
            a, b = self.league.entrant(first), self.league.entrant(second)
            if a.retired is not None or b.retired is not None:
                continue  # retired since: its missing legs are dropped, not played
            for job in self._legs(pair, a, b, int(seed)):
                if not self.league.recorded(job.match_id):
                    planned += 1
                    yield self._handed_out(job, pair, a, b)
        while self.target is None or planned < self.target:
            active = self.league.entrants(active_only=True)
            if len(active) < 2:
                raise LeagueError(
                    "the league needs two active entrants to play: 'referee league add'"
                )
            if self.until_stable and stable(rated(active)):
                self.stable = True
                return
            a, b = self._schedule(active)
            with self.league.transaction():
                cursor = db.execute(
                    "INSERT INTO pairs (run, first, second, seed, scheduled)"
                    " VALUES (?, ?, ?, '', ?)",
                    (self.run, a.id, b.id, now()),
                )
                pair = cursor.lastrowid
                assert pair is not None
                seed = deal_seed(self.league.seed, pair, "league")
                db.execute("UPDATE pairs SET seed = ? WHERE id = ?", (str(seed), pair))
            for job in self._legs(pair, a, b, seed):
                planned += 1
                yield self._handed_out(job, pair, a, b)

    def _schedule(self, active: list[Entrant]) -> tuple[Entrant, Entrant]:
        """The next pair, from the pairs played (an imported match counts as half a pair)
        and those in flight (their results are not in the ratings yet)."""
        counts: dict[frozenset[int], float] = {}
        for first, second, count in self.league.db.execute(
            "SELECT first, second, count(*) FROM pairs GROUP BY first, second"
            " UNION ALL SELECT first, second, count(*) / 2.0 FROM matches"
            " WHERE pair IS NULL AND void = 0 GROUP BY first, second"
        ):
            key = frozenset((first, second))
            counts[key] = counts.get(key, 0) + count
        flying: dict[frozenset[int], float] = {}
        for first, second in {pair: (a, b) for pair, a, b in self.pending.values()}.values():
            key = frozenset((first.id, second.id))
            flying[key] = flying.get(key, 0) + 1
        by_id = {e.id: e for e in active}
        a, b = next_pair(rated(active), counts, flying)
        return by_id[a.id], by_id[b.id]

    def _legs(self, pair: int, a: Entrant, b: Entrant, seed: int) -> Iterator[MatchJob]:
        for leg, (first, second) in ((1, (a, b)), (2, (b, a))):
            # As a tournament's: the pair's deals second to last (``MatchJob.deals``), so
            # the two legs never run at once; the pair's number, never its seed.
            match_id = f"{a.label}~{b.label}~p{pair:06d}~{leg}"
            log = self.logs / f"{match_id}.jsonl"
            yield MatchJob(
                match_id,
                running.Entrant(name=first.label, command=first.command),
                running.Entrant(name=second.label, command=second.command),
                seed,
                leg,
                str(log),
                self.limits.for_seed(seed),
                pair * 2 + leg,
                self.request.sandbox,
                self._secrets(),
                self.request.warm,
                f"league:{self.league.path.resolve()}",
            )

    def _handed_out(self, job: MatchJob, pair: int, a: Entrant, b: Entrant) -> MatchJob:
        """A job about to be played, its result awaited (what a kill left of it before is
        overwritten: a match's log and stderr copies start afresh)."""
        first, second = (a, b) if job.leg == 1 else (b, a)
        self.pending[job.match_id] = (pair, first, second)
        return job

    def _secrets(self) -> tuple[str, ...]:
        path = self.league.path.resolve()
        return tuple(str(path) + suffix for suffix in ("", "-wal", "-shm", ".lock"))

    def record(self, result: MatchResult) -> None:
        pair, first, second = self.pending.pop(result.match_id)
        self.league.record(result, first, second, pair, "run")

    def finish(self) -> None:
        with self.league.transaction():
            self.league.db.execute("UPDATE runs SET finished = ? WHERE id = ?", (now(), self.run))


def stopped_run(league: League) -> tuple[int, int | None, bool] | None:
    """The run stopped before its end, if one was: (its id, its count, until stable)."""
    row = league.db.execute(
        "SELECT id, target, until_stable FROM runs WHERE finished IS NULL ORDER BY id DESC"
    ).fetchone()
    return None if row is None else (row[0], row[1], bool(row[2]))


def recorded_in(league: League, run: int) -> int:
    """The matches a run has recorded."""
    return int(
        league.db.execute(
            "SELECT count(*) FROM matches JOIN pairs ON matches.pair = pairs.id"
            " WHERE pairs.run = ?",
            (run,),
        ).fetchone()[0]
    )


def abandon_run(league: League) -> tuple[int, int, int]:
    """End the stopped run where it is: (its id, matches it recorded, matches it planned and
    did not play). Its pairs' missing legs are never played."""
    row = stopped_run(league)
    if row is None:
        raise LeagueError("no run was stopped before its end: nothing to abandon")
    run, target, _ = row
    done = recorded_in(league, run)
    pairs = league.db.execute("SELECT count(*) FROM pairs WHERE run = ?", (run,)).fetchone()[0]
    with league.transaction():
        league.db.execute("UPDATE runs SET finished = ? WHERE id = ?", (now(), run))
    return run, done, max(2 * pairs, target or 0) - done


def _asked(target: int | None, until: bool) -> str:
    parts = ([f"--matches {target}"] if target is not None else []) + (
        ["--until-stable"] if until else []
    )
    return " ".join(parts)


def run_league(
    league: League,
    request: Request,
    say: Callable[[str], None],
    progress: Progress = unwatched,
) -> Played:
    """Play the run ``request`` asks for (or the interrupted one) on ``league``."""
    active = league.entrants(active_only=True)
    if len(active) < 2:
        raise LeagueError("the league needs two active entrants to play: 'referee league add'")
    for entrant in active:  # checked here, where 'league run' runs: commands are relative to it
        why = problem(entrant.command)
        if why is not None:
            raise LeagueError(
                f"{entrant.label} cannot start: {why}; give it a new version with a command"
                f" that starts ('referee league add'), or retire it ('referee league retire')"
            )
    if request.dask and request.dask != "local":
        try:
            note = check_workers(request.dask, {e.label: e.command for e in active})
        except ClusterError as exc:
            raise LeagueError(str(exc)) from None
        if note is not None:
            say(note)
    try:
        said = describe_sandbox(
            request.sandbox,
            limits_of(league),
            [running.Entrant(name=e.label, command=e.command) for e in active],
            [league.logs, league.path.resolve()],
        )
    except SandboxRefused as exc:
        raise LeagueError(str(exc)) from None
    try:
        private_directory(league.logs)
    except OSError as exc:
        raise LeagueError(
            f"the league's logs folder {league.logs}: {exc.strerror or exc}"
        ) from None
    if not league.logs.is_dir():
        raise LeagueError(f"the league's logs folder {league.logs} is not a folder")
    run = LeagueRun(league, request)  # only now, once nothing refuses the run
    played = Played(run.run, target=run.target, said=said)
    for line in played.said:
        say(line)
    done = run.recorded_in_run()
    if done:
        say(f"run {run.run} goes on: {done} of its matches were recorded before")
    progress(done, run.target or done)

    def on_result(result: MatchResult) -> bool:
        nonlocal done
        run.record(result)
        done += 1
        progress(done, run.target or done)
        return True

    def on_error(job: MatchJob, error: BaseException) -> None:
        played.failed.append(f"{job.match_id}: {error}")
        run.pending.pop(job.match_id, None)

    def on_retry(job: MatchJob, error: BaseException, attempt: int) -> None:
        say(f"match {job.match_id}: {error}; playing it again (attempt {attempt})")

    with Stopping() as stopping:  # SIGTERM and SIGHUP stop it as Ctrl-C does
        try:
            with executor(request.dask, request.jobs, request.seats_apart, say) as (pool, slots):
                run_jobs(pool, run.jobs(), 2 * slots, on_result, on_error, on_retry)
        except KeyboardInterrupt:
            played.interrupted = stopping.signal
        except ClusterError as exc:  # the cluster cannot seat a match apart
            raise LeagueError(str(exc)) from None
    played.recorded = done
    played.stable = run.stable
    if played.interrupted is None and not played.failed:
        run.finish()
    return played
