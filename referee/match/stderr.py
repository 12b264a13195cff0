"""A bot's stderr: copied beside the log up to a bound, its last lines kept in memory to say
why it failed (``StderrTail``), and read a line at a time for what it wrote that is not a
fault (``stderr_lines``)."""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path
from typing import BinaryIO, Final

import msgspec

from referee.files import private_file
from referee.match.stderr_lines import StderrScan


class StderrTail(msgspec.Struct, frozen=True):
    """The end of what a bot wrote on stderr, to say why it failed: its last lines (each cut
    to ``TAIL_LINE_CHARS``, the bot's exact characters: escape them to print) and where the
    whole copy is kept."""

    #: The stderr copy beside the log (None when the bot wrote nothing, or none is kept).
    path: str | None
    #: The last lines with any text in them, at most ``TAIL_LINES``.
    lines: list[str]
    #: Lines the bot wrote in all (how many ``lines`` leaves out).
    total: int

    @property
    def where(self) -> str:
        """Where the whole of it is, in words: the copy's path, or why there is none."""
        if self.path is not None:
            return self.path
        return "no copy kept" if self.total else "nothing written"


#: Lines of a bot's stderr kept in memory to say why it failed, the longest kept of each,
#: and the bytes kept to find them.
TAIL_LINES: Final = 20
TAIL_LINE_CHARS: Final = 300
_TAIL_BYTES: Final = 8192
#: Lines of a bot's last words looked through for a bound's name (node's report is 20 long).
_LAST_WORDS: Final = 64


class StderrSink:
    """Copies a bot's stderr to a file, up to ``limit`` bytes (the rest is counted and
    dropped), and keeps its last lines in memory whatever the limit: a crash's cause is at
    the end, past the copy's bound if need be."""

    def __init__(self, path: Path | None, limit: int) -> None:
        self.path = path
        self.limit = limit
        self.written = 0
        self.dropped = 0
        self._tail = b""  # the last bytes, for the fault's detail and the failure's lines
        self._newlines = 0
        self._marked = 0  # lines written before the bot's last accepted answer
        self._ends_line = True
        self._file: BinaryIO | None = None  # opened at the first byte: most bots write none
        self._copied = False
        #: Its lines, and the error-like ones in the copy's bytes.
        self.scan = StderrScan()

    def write(self, data: bytes | bytearray) -> None:
        self._tail = (self._tail + bytes(data[-_TAIL_BYTES:]))[-_TAIL_BYTES:]
        self._newlines += data.count(b"\n")
        self._ends_line = data.endswith(b"\n")
        room = self.limit - self.written
        kept = data[: max(room, 0)]
        if kept and self.path is not None:
            try:
                if self._file is None:  # after a bot restarted in its match: below its crash
                    self._file = private_file(self.path, append=True)
                self._file.write(kept)
                self._file.flush()
                self._copied = True
            except OSError:
                # A stderr copy that cannot be written must not stop the match: drop it.
                self.path = None
                kept = b""
        self.written += len(kept)
        self.dropped += len(data) - len(kept)
        self.scan.feed(bytes(data[: max(room, 0)]))
        self.scan.count(bytes(data[max(room, 0) :]))

    def last_lines(self, count: int = TAIL_LINES) -> list[str]:
        """The last ``count`` lines the bot wrote with any text in them, each cut to
        ``TAIL_LINE_CHARS`` (a line cut at the front of what is kept starts with ``…``)."""
        data = self._tail
        clipped = len(data) == _TAIL_BYTES and b"\n" in data
        lines = data.splitlines()
        text: list[str] = []
        for index, raw in enumerate(lines):
            if not raw.strip():
                continue
            line = raw.decode("utf-8", "replace").rstrip()
            if index == 0 and clipped:
                line = "…" + line[-TAIL_LINE_CHARS:]
            elif len(line) > TAIL_LINE_CHARS:
                line = line[:TAIL_LINE_CHARS] + "…"
            text.append(line)
        return text[-count:]

    def mark(self) -> None:
        """The bot's answer was accepted: what it wrote so far is about what came before."""
        self._marked = self._newlines + (0 if self._ends_line else 1)

    def since_mark(self) -> list[str]:
        """The lines written since the bot's last accepted answer (cut as ``last_lines``)."""
        written = self._newlines + (0 if self._ends_line else 1) - self._marked
        return self.last_lines(min(written, _LAST_WORDS)) if written > 0 else []

    def last_line(self) -> str:
        """The last line the bot wrote with any text in it, cut to 200 characters."""
        lines = self.last_lines(1)
        return lines[0][-200:] if lines else ""

    def tail(self) -> StderrTail:
        """What the bot wrote on stderr, for a report of why it failed."""
        total = self._newlines + (0 if self._ends_line else 1)
        path = str(self.path) if self.path is not None and self._copied else None
        return StderrTail(path=path, lines=self.last_lines(), total=total)

    def close(self) -> None:
        if self._file is None:
            return
        with suppress(OSError):
            if self.dropped and self.path is not None:
                self._file.write(
                    f"\n[referee: stderr capped at {self.limit} bytes;"
                    f" {self.dropped} more bytes dropped]\n".encode()
                )
            self._file.close()
        self._file = None
