"""Writing and reading the replay log: one JSON line per record, chained by SHA-256.

Every line ends with a ``"chain"`` member: the SHA-256 (hex) of the previous line's chain
(the empty string for the first line) followed by this line's bytes without the
``,"chain":"…"`` member. Editing, removing, duplicating or reordering any record changes every
chain after it, and the last chain — ``log_digest``, printed with the match outcome — stands
for the whole log: anyone holding a published ``log_digest`` can tell whether a log is the one
that was written.

The table calls ``flush`` before every wait on a bot and after the last record, so whatever
the referee is doing when it is killed (even with ``kill -9``), the log on disk holds every
record up to the last wait; a log that stops before ``match_end`` reads as truncated. Records
are only queued until then and encoded, chained and written at ``flush``: the table flushes
after sending each ``act``, so the log's work is done while the bot thinks, not between its
answer and the next ``act``.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final

import msgspec

from referee.errors import LogError
from referee.record.records import LOG_VERSION, Header, LogRecord, MatchEndRecord

_ENCODER: Final = msgspec.json.Encoder()
_DECODER: Final = msgspec.json.Decoder(LogRecord)
_CHAIN: Final = re.compile(rb',"chain":"([0-9a-f]{64})"\}$')


def next_chain(previous: str, body: bytes) -> str:
    """The chain of a line whose bytes without the chain member are ``body``."""
    return hashlib.sha256(previous.encode("ascii") + body).hexdigest()


class LogWriter:
    """Appends chained records to a binary stream (a file for real matches, BytesIO in tests).

    Records are immutable, so a queued one is encoded as it was written.
    """

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._queued: list[LogRecord] = []
        self._chain = b""  # ASCII hex, as it is hashed and written

    def write(self, record: LogRecord) -> None:
        """Queue ``record``; ``flush`` (or reading ``chain``) writes it."""
        self._queued.append(record)

    def flush(self) -> None:
        """Write every queued record in one write, and flush the stream to the OS."""
        self._write_queued()
        self._stream.flush()

    @property
    def chain(self) -> str:
        """The chain of the last record written: the log's digest so far."""
        self._write_queued()
        return self._chain.decode("ascii")

    def _write_queued(self) -> None:
        """``next_chain`` over each queued record, on the chain's ASCII bytes."""
        if not self._queued:
            return
        chain = self._chain
        pieces: list[bytes] = []
        for record in self._queued:
            body = _ENCODER.encode(record)
            chain = hashlib.sha256(chain + body).hexdigest().encode("ascii")
            pieces += (body[:-1], b',"chain":"', chain, b'"}\n')
        self._queued.clear()
        self._chain = chain
        self._stream.write(b"".join(pieces))


@dataclass
class LogFile:
    """A replay log as read: its records, and where its chain or its end fall short."""

    path: Path
    records: list[LogRecord] = field(default_factory=list)
    #: 1-based line number of the first record whose chain does not match, if any.
    broken_at: int | None = None
    #: The chain of the last record read.
    head: str = ""
    #: Why the log ends early: a cut-off last line, or no ``match_end`` record.
    truncated: str | None = None

    @property
    def header(self) -> Header:
        header = self.records[0]
        assert isinstance(header, Header)
        return header


#: Larger than any log a match can write (200 hands are a few MiB): a file this big is
#: not one, and is not read into memory.
MAX_LOG_BYTES: Final = 1 << 30


def read_log(path: Path) -> LogFile:
    """Read a replay log; a file that is not one raises ``LogError`` with one clear line
    (a pipe or a device is never read: it might never end)."""
    try:
        # Opened without waiting: opening a pipe would otherwise wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise LogError(f"{path} is not a regular file: not a replay log")
        if info.st_size > MAX_LOG_BYTES:
            raise LogError(f"{path} is {info.st_size >> 20} MiB: too big for a replay log")
        with open(fd, "rb", closefd=False) as file:
            data = file.read(MAX_LOG_BYTES + 1)
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)  # on every path: a test process that reads many files keeps none open
    return parse_log(data, path)


def parse_log(data: bytes, path: Path = Path("<log>")) -> LogFile:
    """The records of a replay log's bytes, with its chain checked (``path`` names it)."""
    if not data.strip():
        raise LogError(f"{path} is empty: not a replay log")
    log = LogFile(path)
    lines = data.split(b"\n")
    if lines[-1]:
        log.truncated = f"line {len(lines)} is cut off (no line end): the log was not finished"
    lines = lines[:-1]
    chain = ""
    for number, line in enumerate(lines, start=1):
        match = _CHAIN.search(line)
        if match is None:
            if number == 1:
                raise LogError(f"{path} is not a replay log: its first line is not a log record")
            raise LogError(f"{path}: line {number} has no chain: not written by the referee")
        body = line[: match.start()] + b"}"
        if number == 1:
            _check_header(path, body)
        try:
            record = _DECODER.decode(body)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            if number == 1:
                raise LogError(f"{path} is not a replay log: {exc}") from None
            raise LogError(f"{path}: line {number} is not a log record: {exc}") from None
        chain = next_chain(chain, body)
        recorded = match.group(1).decode("ascii")
        if log.broken_at is None and chain != recorded:
            log.broken_at = number
        chain = recorded
        log.records.append(record)
    if not log.records:
        raise LogError(f"{path} is not a replay log: no complete record")
    log.head = chain
    if log.truncated is None and not isinstance(log.records[-1], MatchEndRecord):
        log.truncated = f"it stops after line {len(lines)}, before the match_end record"
    return log


def _check_header(path: Path, body: bytes) -> None:
    """The first line must be a header of a version this referee reads."""
    try:
        first = msgspec.json.decode(body)
    except msgspec.DecodeError:
        raise LogError(f"{path} is not a replay log: its first line is not JSON") from None
    if not isinstance(first, dict) or first.get("type") != "header":
        raise LogError(f"{path} is not a replay log: it does not start with a header record")
    version = first.get("log_version")
    if not isinstance(version, int) or not 1 <= version <= LOG_VERSION:
        raise LogError(
            f"{path} is a log of version {version!r}; this referee reads version {LOG_VERSION}:"
            " use a newer referee"
        )
