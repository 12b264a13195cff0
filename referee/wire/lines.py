"""Splitting a bot's byte stream into bounded lines, with no I/O (in the manner of h11).

The buffer never rescans bytes it has already searched for a newline, and never holds more
than ``max_bytes`` of an unfinished line: as soon as a line is known to be too long it is
reported and the rest of it is dropped as it arrives, so a bot cannot make the referee
buffer a 10 MiB line.
"""

from __future__ import annotations

from typing import Final


class _TooLong:
    def __repr__(self) -> str:
        return "LINE_TOO_LONG"


#: Returned once for each line longer than the bound; its bytes are never kept.
LINE_TOO_LONG: Final = _TooLong()


class LineBuffer:
    """Feed bytes in with ``feed``; take complete lines out with ``next_line``."""

    __slots__ = ("_buffer", "_discarding", "_max_bytes", "_scanned")

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._buffer = bytearray()
        self._scanned = 0  # bytes of _buffer already known to hold no newline
        self._discarding = False  # inside a too-long line, dropping bytes up to its newline

    def feed(self, data: bytes | bytearray) -> None:
        if self._discarding:
            newline = data.find(b"\n")
            if newline < 0:
                return
            self._discarding = False
            data = data[newline + 1 :]
        self._buffer += data

    def next_line(self) -> bytes | _TooLong | None:
        """The next line without its line end, ``LINE_TOO_LONG``, or None (none complete yet)."""
        if self._discarding:
            return None
        newline = self._buffer.find(b"\n", self._scanned)
        if newline < 0:
            # A trailing \r may be the first half of a \r\n line end: not content yet.
            pending = len(self._buffer) - (1 if self._buffer.endswith(b"\r") else 0)
            if pending > self._max_bytes:
                self._buffer.clear()
                self._scanned = 0
                self._discarding = True
                return LINE_TOO_LONG
            self._scanned = len(self._buffer)
            return None
        end = newline - 1 if newline > 0 and self._buffer[newline - 1] == 13 else newline
        if end > self._max_bytes:
            del self._buffer[: newline + 1]
            self._scanned = 0
            return LINE_TOO_LONG
        line = bytes(self._buffer[:end])
        del self._buffer[: newline + 1]
        self._scanned = 0
        return line

    def held(self, count: int) -> list[bytes]:
        """Up to ``count`` complete lines held unread, oldest first, without taking them."""
        if self._discarding:
            return []
        complete = self._buffer[: self._buffer.rfind(b"\n") + 1]
        return [bytes(line) for line in complete.splitlines()[:count]]

    @property
    def max_bytes(self) -> int:
        return self._max_bytes

    @property
    def pending(self) -> int:
        """Bytes of an unfinished line held now."""
        return len(self._buffer)
