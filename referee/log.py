"""Writing the replay log: one JSON line per record.

The table calls ``flush`` before every wait on a bot and after the last record, so whatever
the referee is doing when it is killed (even with ``kill -9``), the log on disk holds every
record up to the last wait — at most the few records of the step in progress are lost — and
``referee replay`` reports a log that stops early as truncated.
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

    def flush(self) -> None:
        self._stream.flush()
