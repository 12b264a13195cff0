"""The league's database: one SQLite file (WAL mode, so readers never block the runner and
the runner never blocks them), its schema brought up to date by numbered migrations, and
every change one transaction.

A file is the league's only if SQLite's ``application_id`` says so; ``user_version`` is the
schema's version, so a database from a newer referee is refused rather than misread. One
runner writes at a time: it holds a lock on ``DB.lock`` (the kernel drops it however the
runner ends, ``kill -9`` included). A result is written with the ratings it moves and the
ratings' history in the same transaction: a result is either wholly recorded or not at all.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import msgspec
from openskill.models import PlackettLuce

from referee.errors import LeagueError
from referee.files import Held, writer_lock
from referee.league import schema
from referee.running.rating import rate
from referee.running.results import MatchResult

#: The league's rating model: a tournament's (openskill Plackett-Luce), without the drift
#: (tau 0) that lets a player's skill change between games — a version's program never
#: changes (a new program is a new version), so its uncertainty only falls as it plays.
MODEL: Final = PlackettLuce(tau=0.0)
#: A new version's rating: openskill's prior.
FRESH: Final = MODEL.rating()
_RESULT = msgspec.json.Encoder()
#: An ``Entrant``'s fields, in order, from the table.
_ENTRANTS: Final = "SELECT id, name, version, command, added, retired, mu, sigma FROM entrants"


@dataclass(frozen=True)
class Entrant:
    """One version of an entrant: its own rating and history."""

    id: int
    name: str
    version: str
    command: str
    added: str
    retired: str | None
    mu: float
    sigma: float

    @property
    def label(self) -> str:
        """``name@version``: how standings, logs and match ids name it."""
        return f"{self.name}@{self.version}"

    @property
    def ordinal(self) -> float:
        """The conservative rating standings sort by (openskill's mu - 3 sigma)."""
        return self.mu - 3 * self.sigma


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class League:
    """An open league database (``League.open``/``League.create``); ``close`` it, or use it
    in a ``with`` block."""

    def __init__(self, path: Path, connection: sqlite3.Connection, lock: int = -1) -> None:
        self.path = path
        self.db = connection
        self._lock = lock

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def create(cls, path: Path, seed: int, logs: Path, limits: str) -> League:
        """A new league at ``path`` (refused if anything is there)."""
        if path.exists() or path.is_symlink():
            raise LeagueError(f"{path} already exists: choose another file, or use it as it is")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            os.close(fd)
        except OSError as exc:
            raise LeagueError(f"cannot create {path}: {exc.strerror or exc}") from None
        league = cls(path, schema.connect(path, readonly=False))
        schema.write_ahead(league.db)
        with league.transaction():
            league.db.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
            schema.migrate(league.db, 0)
            league.db.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [
                    ("seed", str(seed)),
                    ("logs", str(logs)),
                    ("limits", limits),
                    ("created", now()),
                ],
            )
        return league

    @classmethod
    def open(cls, path: Path, write: bool = False, runner: bool = False) -> League:
        """The league at ``path``: checked to be one, of a schema this referee knows (an
        older one is migrated when writing). ``runner`` takes the one runner's lock."""
        if not path.is_file():
            raise LeagueError(
                f"{path} is not there: create the league with 'referee league init {path}'"
            )
        db = schema.connect(path, readonly=not write)
        try:
            schema.check(db, path, write)
            # The lock beside it only once the file is known to be a league's.
            lock = _runner_lock(path) if runner else -1
        except BaseException:
            db.close()
            raise
        return cls(path, db, lock)

    def close(self) -> None:
        self.db.close()
        if self._lock >= 0:
            os.close(self._lock)
            self._lock = -1

    def __enter__(self) -> League:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction, taken for writing at its start (``BEGIN IMMEDIATE``)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- settings --------------------------------------------------------------------------

    def meta(self, key: str) -> str:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise LeagueError(f"{self.path} has no {key!r} setting: a damaged league database")
        return str(row[0])

    @property
    def seed(self) -> int:
        return int(self.meta("seed"))

    @property
    def logs(self) -> Path:
        """The logs' folder: as given at ``init``, relative to the database's."""
        logs = Path(self.meta("logs"))
        return logs if logs.is_absolute() else self.path.parent / logs

    # -- entrants --------------------------------------------------------------------------

    def entrants(self, active_only: bool = False) -> list[Entrant]:
        where = " WHERE retired IS NULL" if active_only else ""
        rows = self.db.execute(_ENTRANTS + where + " ORDER BY id")
        return [Entrant(*row) for row in rows]

    def entrant(self, entrant_id: int) -> Entrant:
        row = self.db.execute(_ENTRANTS + " WHERE id = ?", (entrant_id,)).fetchone()
        return Entrant(*row)

    def add(self, name: str, command: str, version: str | None = None) -> tuple[Entrant, list[str]]:
        """A new entrant, or a new version of one (the versions before it are retired from
        play and keep their history). Returns it and the labels it retired."""
        with self.transaction():
            versions = [e for e in self.entrants() if e.name == name]
            if version is None:  # the next free vN
                number = len(versions) + 1
                while any(e.version == f"v{number}" for e in versions):
                    number += 1
                version = f"v{number}"
            if any(e.version == version for e in versions):
                raise LeagueError(
                    f"{name}@{version} is already in the league: give the new version"
                    " another label (--version)"
                )
            retired = [e.label for e in versions if e.retired is None]
            stamp = now()
            self.db.execute(
                "UPDATE entrants SET retired = ? WHERE name = ? AND retired IS NULL",
                (stamp, name),
            )
            rating = FRESH
            cursor = self.db.execute(
                "INSERT INTO entrants (name, version, command, added, mu, sigma)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (name, version, command, stamp, rating.mu, rating.sigma),
            )
            assert cursor.lastrowid is not None
            return self.entrant(cursor.lastrowid), retired

    def retire(self, name: str, version: str | None = None) -> list[str]:
        """Retire an entrant's active version (or the version named): it plays no more."""
        with self.transaction():
            found = [
                e
                for e in self.entrants()
                if e.name == name and (version is None or e.version == version)
            ]
            if not found:
                what = name if version is None else f"{name}@{version}"
                raise LeagueError(f"no entrant {what} in the league ('referee league standings')")
            active = [e for e in found if e.retired is None]
            self.db.executemany(
                "UPDATE entrants SET retired = ? WHERE id = ?", [(now(), e.id) for e in active]
            )
            return [e.label for e in active]

    # -- results ---------------------------------------------------------------------------

    def record(
        self,
        result: MatchResult,
        first: Entrant,
        second: Entrant,
        pair: int | None,
        source: str,
    ) -> None:
        """Write one result, the two ratings it moves and their history: one transaction.
        A result already recorded (its match id) is refused."""
        with self.transaction():
            self.record_in_transaction(result, first, second, pair, source)

    def record_in_transaction(
        self,
        result: MatchResult,
        first: Entrant,
        second: Entrant,
        pair: int | None,
        source: str,
        key: str | None = None,
    ) -> None:
        """``record`` inside the caller's transaction; ``key`` is the match's id in the
        league when it is not the result's own (an imported tournament's)."""
        a, b = self.entrant(first.id), self.entrant(second.id)  # the current ratings
        winner = None
        if result.winner is not None:
            winner = a.id if result.winner == result.first else b.id
        first_faults, second_faults, side = schema.fault_columns(result.faults, result.forfeit)
        forfeit = {"AC": a.id, "BD": b.id}.get(side or "")
        try:
            cursor = self.db.execute(
                "INSERT INTO matches (match_id, pair, leg, first, second, winner, void,"
                " mark_difference, log, log_digest, source, recorded, result, first_faults,"
                " second_faults, forfeit, stderr)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key or result.match_id,
                    pair,
                    result.leg,
                    a.id,
                    b.id,
                    winner,
                    result.void,
                    0 if result.void else result.mark_difference_of(result.first),
                    result.log,
                    result.log_digest,
                    source,
                    now(),
                    _RESULT.encode(result),
                    first_faults,
                    second_faults,
                    forfeit,
                    schema.stderr_column(result.stderr),
                ),
            )
        except sqlite3.IntegrityError:
            raise LeagueError(f"match {key or result.match_id} is already recorded") from None
        if result.void:
            return  # not a match played: it moves no rating
        won = None if winner is None else winner == a.id
        for entrant, (mu, sigma) in zip(
            (a, b), rate((a.mu, a.sigma), (b.mu, b.sigma), won, MODEL), strict=True
        ):
            self.db.execute(
                "UPDATE entrants SET mu = ?, sigma = ? WHERE id = ?", (mu, sigma, entrant.id)
            )
            self.db.execute(
                "INSERT INTO ratings (match, entrant, mu, sigma) VALUES (?, ?, ?, ?)",
                (cursor.lastrowid, entrant.id, mu, sigma),
            )

    def recorded(self, match_id: str) -> bool:
        row = self.db.execute("SELECT 1 FROM matches WHERE match_id = ?", (match_id,))
        return row.fetchone() is not None

    def results(self) -> Iterator[tuple[int, str, MatchResult]]:
        """(row id, source, result) of every recorded match, in the order recorded."""
        decoder = msgspec.json.Decoder(MatchResult)
        for row_id, source, blob in self.db.execute(
            "SELECT id, source, result FROM matches ORDER BY id"
        ):
            yield row_id, source, decoder.decode(blob)

    def match_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM matches").fetchone()[0])


def _runner_lock(path: Path) -> int:
    """The one runner's lock on ``DB.lock`` (``writer_lock``), beside the file itself (a
    link to the database takes the same lock)."""
    path = path.resolve()
    try:
        return writer_lock(path.with_name(path.name + ".lock"))
    except Held as exc:
        raise LeagueError(
            f"{path} is being run by another 'referee league run' (pid {exc.holder}): one"
            " runner at a time; let it finish or stop it"
        ) from None
    except OSError as exc:
        raise LeagueError(f"cannot lock {path}: {exc.strerror or exc}") from None
