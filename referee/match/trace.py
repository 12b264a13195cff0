"""``--debug``: every line to and from each bot as it happens, with its seat and the time,
as cutechess's ``-debug`` prints an engine's conversation.

One line of the trace per protocol line, written the moment the referee has written it to
the bot (``>>``) or read it from the bot (``<<``), and each line the bot writes on its stderr
(``2>``); notes (``--``) say what has no line of its own: a line discarded for its length, the
end of the bot's output, a new process. Everything from a bot is escaped
(``referee.terminal.escapes.shown``) and a line is cut at ``MAX_SHOWN`` characters, so that
neither a hostile bot nor a megabyte line can take the terminal over. The trace goes to
stderr: a ``--json`` document on stdout stays whole.
"""

from __future__ import annotations

import sys
import time
from typing import Final, Literal, TextIO

from referee.rules.tiles import Seat
from referee.terminal.escapes import shown

#: Characters of a line shown in the trace; the rest is counted.
MAX_SHOWN: Final = 1000

Direction = Literal[">>", "<<", "2>", "--"]


class WireTrace:
    """Where a match's (or a check's) trace goes, and since when its times count.

    ``only`` keeps one seat's lines (check-bot traces the bot it checks, not its opponents).
    """

    def __init__(self, out: TextIO | None = None, only: Seat | None = None) -> None:
        self.out = out if out is not None else sys.stderr
        self.only = only
        self.started = time.monotonic()
        #: Set when the output could not be written (``| head`` closed it): the trace stops,
        #: the match never notices.
        self.broken = False

    def for_seat(self, seat: Seat) -> WireTrace:
        """The same trace (same output, same clock), keeping only ``seat``'s lines."""
        kept = WireTrace(self.out, only=seat)
        kept.started = self.started
        kept.broken = self.broken
        return kept

    def line(self, seat: Seat, direction: Direction, data: bytes | str) -> None:
        """One line of the conversation (``data`` without its line end)."""
        if self.broken or (self.only is not None and seat != self.only):
            return
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        if len(text) > MAX_SHOWN:
            text = f"{text[:MAX_SHOWN]}… ({len(data)} in all)"
        elapsed = time.monotonic() - self.started
        self._write(f"{elapsed:9.3f} {seat} {direction} {shown(text)}\n")

    def note(self, seat: Seat, what: str) -> None:
        """What happened to the seat's bot that is no line of its own."""
        self.line(seat, "--", what)

    def heading(self, what: str) -> None:
        """A line that starts a part of the trace (check-bot: each check's conversation)."""
        self._write(f"{'':9} {what}\n")

    def _write(self, text: str) -> None:
        """Write, and stop at the first failure: a trace must never stop a match."""
        if self.broken:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except (OSError, ValueError):  # a closed pipe or file
            self.broken = True


#: Bytes of an unfinished line kept before it is told as it is (a bot's stderr may never
#: end its line).
_LONGEST: Final = 1 << 16


class LineSplitter:
    """Bytes written or read in pieces, told to a trace a whole line at a time."""

    __slots__ = ("_direction", "_seat", "_trace", "_unfinished")

    def __init__(self, trace: WireTrace, seat: Seat, direction: Direction) -> None:
        self._trace = trace
        self._seat = seat
        self._direction = direction
        self._unfinished = b""

    def feed(self, data: bytes) -> None:
        *lines, self._unfinished = (self._unfinished + data).split(b"\n")
        if len(self._unfinished) > _LONGEST:
            lines.append(self._unfinished)
            self._unfinished = b""
        for line in lines:
            self._trace.line(self._seat, self._direction, line.rstrip(b"\r"))
