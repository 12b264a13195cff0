"""Writing the replay log: one JSON line per record, flushed as it is written.

Flushing every record means a crash or a ``kill -9`` of the referee loses at most the record
being written; ``referee replay`` reports a log that stops early as truncated.
"""

from __future__ import annotations

from typing import IO, Final

import msgspec

from referee.records import LogRecord

_ENCODER: Final = msgspec.json.Encoder()


class LogWriter:
    """Appends records to a binary stream (a file for real matches, BytesIO in tests)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream

    def write(self, record: LogRecord) -> None:
        self._stream.write(_ENCODER.encode(record) + b"\n")
        self._stream.flush()
