"""What a bot wrote on stderr that is not a fault: how many lines, and those that look like
errors — a bot that catches its own ``NullPointerException`` and plays on is charged nothing,
yet its author wants to know, and an organiser wants to see which entrants are limping.

A line *looks like an error* by its shape, whatever the language: an exception's or error's
name (``java.lang.NullPointerException``, ``ValueError: …``, ``Error:``), a traceback's first
line, a Rust ``panicked at``, a Go ``panic:``, ``Segmentation fault``, a stack frame
(``at Bot.play(Bot.java:42)``, ``at play (/bot/bot.js:12:5)``). Lines the referee's own
settings cause are left out: a runtime's notice that it picked up options
(``Picked up JAVA_TOOL_OPTIONS: …``) and onnxruntime's telemetry line, which a seat that may
not write ``~/.cache`` makes (see the runtimes page).

Only the bytes kept in the stderr copy beside the log are read for shapes (the copy's bound
is the referee's work bound: a bot that floods stderr buys nothing); every line is counted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Final

import msgspec

#: The shapes of an error-like line found anywhere in it, each starting with a word of its
#: own (so that the search skips to those words: a bot's line, written to be slow to read,
#: costs one pass over it): an exception's or error's name (``NullPointerException``,
#: ``KeyError``, ``Error:``), a traceback, a Rust panic, a crash.
ERROR_WORDS: Final = re.compile(
    r"Traceback \(most recent call last\)|(?:Exception|Error)\b|panicked at\b"
    r"|Segmentation fault|core dumped\b|Aborted\b|terminate called"
)
#: The shapes of an error-like line that starts with them (after blanks): a stack frame of
#: the JVM's or node's, a Go panic, a compiler's or a logger's error.
ERROR_STARTS: Final = re.compile(
    r"""\s*(?:
      at\ [\w$.<>/-]+\([\w$.-]+\.(?:java|kt|scala|groovy|clj):\d+\)   # a JVM frame
    | at\ [^\n]*?\.(?:js|mjs|cjs|ts):\d+:\d+\)?$                   # a node frame
    | panic: | goroutine\ \d+\ \[                                  # Go
    | (?:error|ERROR|FATAL|fatal)(?:\ error)?(?:\[\w+\])?:           # rustc, gcc, Go, loggers
    )""",
    re.VERBOSE,
)
#: A word every shape above holds: only a line with one of them is read for its shape.
#: Each is looked for in a whole piece of stderr at once (``bytes.find``), so most pieces are
#: passed over in C and most lines never looked at one by one.
_HINTS: Final = (
    b"Traceback", b"Exception", b"Error", b"panic", b"goroutine ", b"Segmentation fault",
    b"core dumped", b"Aborted", b"terminate called", b"\tat ", b"  at ", b"error:",
    b"error[", b"ERROR", b"FATAL", b"fatal", b"Assertion",
)  # fmt: skip
#: Lines the referee's own settings make a runtime write: not the bot's errors.
CAUSED_BY_THE_REFEREE: Final = re.compile(
    r"^Picked up (?:JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS):"
    r"|Failed to persist telemetry device ID"
    r"|^\[referee: "
)
#: Characters of a line read for its shape and kept as its text.
LINE_CHARS: Final = 200
#: Different error-like lines kept per seat and match, and shown per entrant.
ERRORS_KEPT: Final = 10
ERRORS_SHOWN: Final = 3
#: Bytes of an unfinished line held before it counts as a line of its own.
_LONGEST: Final = 4096
#: Hexadecimal addresses differ from run to run: one shape for all.
_ADDRESS: Final = re.compile(r"0x[0-9a-fA-F]{4,}")


def error_like(line: str) -> bool:
    """Whether ``line`` (one line, no newline) has an error's shape and is the bot's own."""
    cut = line[:LINE_CHARS]
    shaped = (
        ERROR_WORDS.search(cut) is not None
        or ERROR_STARTS.match(cut) is not None
        or "failed" in cut.partition("Assertion")[2]  # C's assert(): "Assertion `…' failed."
    )
    return shaped and not CAUSED_BY_THE_REFEREE.search(cut)


class StderrSummary(msgspec.Struct, frozen=True, omit_defaults=True):
    """One seat's stderr in one match: its lines, and the error-like ones among them."""

    #: Lines written (an unfinished last line counts).
    lines: int
    #: Error-like lines in all.
    error_lines: int = 0
    #: The most frequent error-like lines (``ERRORS_KEPT`` at most), each with its count.
    errors: dict[str, int] = msgspec.field(default_factory=dict)

    def __add__(self, other: StderrSummary) -> StderrSummary:
        """Two stderrs as one (a kept bot replaced in its match wrote both)."""
        errors = Counter(self.errors) + Counter(other.errors)
        return StderrSummary(
            self.lines + other.lines,
            self.error_lines + other.error_lines,
            dict(errors.most_common(ERRORS_KEPT)),
        )


class StderrScan:
    """Reads stderr as it comes, a line at a time: counts the lines, keeps the error-like."""

    def __init__(self) -> None:
        self._newlines = 0
        self._open = False  # the last byte written did not end a line
        self.error_lines = 0
        self._errors: Counter[str] = Counter()
        self._unfinished = b""
        self._overlong = False  # in a line whose start was read: the rest is not read again

    def count(self, data: bytes) -> None:
        """Bytes past the copy's bound: their lines counted, not read."""
        if data:
            self._newlines += data.count(b"\n")
            self._open = not data.endswith(b"\n")

    def feed(self, data: bytes) -> None:
        """Bytes to read for error-like lines (and count)."""
        self.count(data)
        if self._overlong:
            end = data.find(b"\n")
            if end < 0:
                return
            data, self._overlong = data[end + 1 :], False
        text = self._unfinished + data
        whole = text.rfind(b"\n") + 1
        self._unfinished = text[whole:]
        if len(self._unfinished) > _LONGEST:  # read its start as a line; the rest is not
            text = text[:whole] + self._unfinished[:_LONGEST] + b"\n"
            whole, self._unfinished, self._overlong = len(text), b"", True
        self._read_lines(text[:whole])

    def _read_lines(self, text: bytes) -> None:
        """Each line of ``text`` (whole lines) that holds a hint of an error, read once."""
        lines: dict[int, int] = {}  # where each line with a hint starts: where it ends
        for hint in _HINTS:
            at = text.find(hint)
            while at >= 0:
                start = text.rfind(b"\n", 0, at) + 1
                end = text.find(b"\n", at)  # ``text`` ends with one
                lines[start] = end
                at = text.find(hint, end)
        for start in sorted(lines):
            self._read(text[start : lines[start]])

    def _read(self, raw: bytes) -> None:
        if (key := _error_key(raw)) is not None:
            self.error_lines += 1
            if key in self._errors or len(self._errors) < 4 * ERRORS_KEPT:
                self._errors[key] += 1

    def summary(self) -> StderrSummary:
        """What was written so far, an unfinished last line read as a line."""
        errors, error_lines = Counter(self._errors), self.error_lines
        if any(h in self._unfinished for h in _HINTS) and (key := _error_key(self._unfinished)):
            errors[key] += 1
            error_lines += 1
        lines = self._newlines + self._open
        return StderrSummary(lines, error_lines, dict(errors.most_common(ERRORS_KEPT)))


def _error_key(raw: bytes) -> str | None:
    """How an error-like line is counted (stripped, cut, its addresses made one); None for
    a line of any other shape."""
    line = raw[: LINE_CHARS * 4].decode("utf-8", "replace").rstrip()
    if not error_like(line):
        return None
    return _ADDRESS.sub("0x…", line.strip())[:LINE_CHARS]


#: Lines that only frame an error (a traceback's first line, a stack frame): shown after the
#: error's own line when as frequent.
_FRAMING: Final = re.compile(r"^\s*(?:Traceback \(|at )")


def most_frequent(errors: dict[str, int], count: int = ERRORS_SHOWN) -> list[tuple[str, int]]:
    """The ``count`` most frequent error-like lines, an error's own line before the lines
    that frame it (``Traceback (most recent call last):``, ``at Bot.play(Bot.java:42)``)."""
    ranked = sorted(errors.items(), key=lambda item: (-item[1], bool(_FRAMING.match(item[0]))))
    return ranked[:count]


def read_summary(path: Path) -> StderrSummary | None:
    """The summary of a stderr copy (a log's ``<log>.<seat>.stderr``); None if there is none."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    scan = StderrScan()
    scan.feed(data)
    return scan.summary()


class StderrTotals(msgspec.Struct):
    """An entrant's stderr over many matches: in how many it wrote, how many lines, and its
    most frequent error-like lines (with the matches that wrote each)."""

    #: Matches in which its bots wrote anything on stderr.
    matches: int = 0
    #: Matches in which they wrote an error-like line.
    error_matches: int = 0
    lines: int = 0
    error_lines: int = 0
    #: Error-like lines, each with how many times it was written.
    errors: dict[str, int] = msgspec.field(default_factory=dict)

    def add(self, summaries: Iterable[StderrSummary]) -> None:
        """One match's stderr of the entrant's seats (both seats of a partnership)."""
        wrote = [summary for summary in summaries if summary.lines]
        if not wrote:
            return
        self.matches += 1
        self.error_matches += any(summary.error_lines for summary in wrote)
        errors = Counter(self.errors)
        for summary in wrote:
            self.lines += summary.lines
            self.error_lines += summary.error_lines
            errors.update(summary.errors)
        self.errors = dict(errors.most_common(4 * ERRORS_KEPT))

    def most_frequent(self, count: int = ERRORS_SHOWN) -> list[tuple[str, int]]:
        return most_frequent(self.errors, count)
