"""The league database's schema and how a file is opened as one: SQLite's ``application_id``
marks a league's file, ``user_version`` is its schema's version, and numbered migrations bring
an older one up to date (a newer one is refused rather than misread)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final

import msgspec

from referee.errors import LeagueError
from referee.match.stderr_lines import StderrSummary
from referee.record.records import Forfeit, split_counts
from referee.rules.tiles import Seat

#: "42LG": the league's mark in the SQLite header (``PRAGMA application_id``).
APPLICATION_ID: Final = 0x34324C47

#: Each migration brings the schema from its index to the next version; never edit one that
#: shipped, add another.
MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE entrants (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        version TEXT NOT NULL,
        command TEXT NOT NULL,
        added TEXT NOT NULL,
        retired TEXT,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        UNIQUE (name, version)
    );
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        target INTEGER,
        until_stable INTEGER NOT NULL,
        started TEXT NOT NULL,
        finished TEXT
    );
    CREATE TABLE pairs (
        id INTEGER PRIMARY KEY,
        run INTEGER REFERENCES runs,
        first INTEGER NOT NULL REFERENCES entrants,
        second INTEGER NOT NULL REFERENCES entrants,
        seed TEXT NOT NULL,  -- 64-bit unsigned: more than SQLite's INTEGER holds
        scheduled TEXT NOT NULL
    );
    CREATE TABLE matches (
        id INTEGER PRIMARY KEY,
        match_id TEXT NOT NULL UNIQUE,
        pair INTEGER REFERENCES pairs,
        leg INTEGER NOT NULL,
        first INTEGER NOT NULL REFERENCES entrants,
        second INTEGER NOT NULL REFERENCES entrants,
        winner INTEGER REFERENCES entrants,
        void INTEGER NOT NULL,
        mark_difference INTEGER NOT NULL,
        log TEXT NOT NULL,
        log_digest TEXT NOT NULL,
        source TEXT NOT NULL,
        recorded TEXT NOT NULL,
        result BLOB NOT NULL
    );
    CREATE INDEX matches_first ON matches (first);
    CREATE INDEX matches_second ON matches (second);
    CREATE INDEX matches_pair ON matches (pair);
    CREATE TABLE ratings (
        match INTEGER NOT NULL REFERENCES matches,
        entrant INTEGER NOT NULL REFERENCES entrants,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        PRIMARY KEY (entrant, match)
    ) WITHOUT ROWID;
    """,
    # 2: each match's faults by side and who forfeited, and what its bots wrote on stderr
    # (the result's ``stderr``, null when they wrote nothing), for the standings (filled in
    # from the results recorded by ``backfill_faults``); and the standings' columns in
    # indexes of their own, so reading them never reads the results' blobs (the new
    # columns sit after them in a row).
    """
    ALTER TABLE matches ADD COLUMN first_faults INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE matches ADD COLUMN second_faults INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE matches ADD COLUMN forfeit INTEGER REFERENCES entrants;
    ALTER TABLE matches ADD COLUMN stderr BLOB;
    CREATE INDEX matches_standings ON matches (
        first, second, winner, void, mark_difference, first_faults, second_faults, forfeit
    );
    CREATE INDEX matches_stderr ON matches (first, second, stderr) WHERE stderr IS NOT NULL;
    """,
)
SCHEMA_VERSION: Final = len(MIGRATIONS)
#: The tables the current schema has.
TABLES: Final = frozenset({"meta", "entrants", "runs", "pairs", "matches", "ratings"})


def connect(path: Path, readonly: bool) -> sqlite3.Connection:
    """A connection to ``path`` (autocommit: transactions are the caller's); nothing about
    the file is changed yet."""
    uri = f"{path.resolve().as_uri()}?mode={'ro' if readonly else 'rw'}"
    try:
        db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30.0)
        db.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise LeagueError(f"{path} is not a league database ({exc})") from None
    return db


def check(db: sqlite3.Connection, path: Path, write: bool) -> None:
    """Refuse a file that is not a league's or is of a newer schema; a writer migrates an
    older one (a reader is told to let a writer do it)."""
    try:
        application = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        if "readonly" in str(exc):
            raise LeagueError(
                f"cannot read {path}: SQLite needs to write beside it ({path.parent}) to read a"
                " league being written; run as a user who can, or read a copy"
            ) from None
        raise LeagueError(f"{path} is not a league database ({exc})") from None
    if application != APPLICATION_ID:
        raise LeagueError(
            f"{path} is not a league database (another program's SQLite file?): create one"
            " with 'referee league init'"
        )
    if version > SCHEMA_VERSION:
        raise LeagueError(
            f"{path} was written by a newer referee (schema {version}, this one knows"
            f" {SCHEMA_VERSION}): upgrade the referee to use it"
        )
    if version == SCHEMA_VERSION:
        listed = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        tables = {row[0] for row in listed}
        missing = sorted(TABLES - tables)
        if missing:
            raise LeagueError(
                f"{path} is a damaged league database (no {', '.join(missing)} table): restore"
                " it from a copy"
            )
    if write:  # only once it is known to be ours: this changes the file's header
        write_ahead(db)
    if version < SCHEMA_VERSION:
        if not write:
            raise LeagueError(
                f"{path} has an older schema ({version}): any writing command ('referee"
                " league run', 'add') brings it up to date"
            )
        db.execute("BEGIN IMMEDIATE")
        try:
            migrate(db, version)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


def write_ahead(db: sqlite3.Connection) -> None:
    """WAL: readers never block the writer, nor it them."""
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")  # a commit survives the process, kill -9 too


def migrate(db: sqlite3.Connection, version: int) -> None:
    """Apply the migrations after ``version`` (inside the caller's transaction)."""
    for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
        for statement in script.split(";"):
            if statement.strip():
                db.execute(statement)
        if number == 2:
            backfill_faults(db)
        db.execute(f"PRAGMA user_version = {number}")


class _Faults(msgspec.Struct):
    """What of a recorded result the fault columns hold (the rest of it is not decoded)."""

    faults: dict[Seat, dict[str, int]] = {}
    forfeit: Forfeit | None = None
    stderr: dict[Seat, StderrSummary] = {}


def stderr_column(stderr: dict[Seat, StderrSummary]) -> bytes | None:
    """What a match's bots wrote on stderr, as its column holds it (null: nothing)."""
    return msgspec.json.encode(stderr) if stderr else None


def fault_columns(
    faults: dict[Seat, dict[str, int]], forfeit: Forfeit | None
) -> tuple[int, int, str | None]:
    """A match's faults of the first entrant's seats (A, C) and the second's (B, D) —
    refused answers are not faults, as in a tournament's standings — and the side that
    forfeited (``AC``, ``BD``), if one did."""
    counted, _ = split_counts(faults)
    first = sum(sum(counted.get(seat, {}).values()) for seat in ("A", "C"))
    second = sum(sum(counted.get(seat, {}).values()) for seat in ("B", "D"))
    side = None if forfeit is None else ("AC" if forfeit.seat in ("A", "C") else "BD")
    return first, second, side


def backfill_faults(db: sqlite3.Connection) -> None:
    """Fill migration 2's columns from the results recorded before it."""
    decoder = msgspec.json.Decoder(_Faults)
    rows = db.execute("SELECT id, result FROM matches").fetchall()
    for row_id, blob in rows:
        result = decoder.decode(blob)
        first, second, side = fault_columns(result.faults, result.forfeit)
        db.execute(
            "UPDATE matches SET first_faults = ?, second_faults = ?, forfeit = CASE ?"
            " WHEN 'AC' THEN first WHEN 'BD' THEN second END, stderr = ? WHERE id = ?",
            (first, second, side, stderr_column(result.stderr), row_id),
        )
