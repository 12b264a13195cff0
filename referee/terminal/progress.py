"""The one progress of long work: ``Progress``, how the work says how far it has gone, and
``LongWork``, which shows it — a bar on a terminal, and off one (where rich draws no progress
at all) a line every ``PROGRESS_EVERY`` seconds, so that a log or a pipe still shows the work
moving.
"""

from __future__ import annotations

import os
import time
from typing import Final, Protocol

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
from rich.progress import Progress as RichProgress


class Progress(Protocol):
    """How long work says how far it has gone: ``done`` of ``total`` things, after each (a
    total found as the work goes may grow). ``LongWork.update`` is one; so is ``unwatched``."""

    def __call__(self, done: int, total: int, /) -> None: ...


def unwatched(done: int, total: int, /) -> None:
    """The progress of work nobody watches."""


#: Seconds between progress lines when stderr is not a terminal (``REFEREE_PROGRESS_EVERY``
#: overrides it, e.g. for a CI log that wants fewer).
PROGRESS_EVERY: Final = 5.0


class LongWork:
    """The one progress display of long work: a rich bar on a terminal (``bar``, which a
    caller may show inside a live view of its own), and off a terminal a plain line every
    ``every`` seconds — ``matches: 12 of 40 (30%), 0:12 elapsed, about 0:28 left`` — and
    one at the end, so that a log or a pipe still shows the work moving."""

    def __init__(
        self,
        what: str,
        total: int,
        console: Console,
        *,
        done: int = 0,
        transient: bool = False,
        every: float | None = None,
    ) -> None:
        self.what = what
        self.total = total
        self.done = done
        self.console = console
        self.every = progress_every() if every is None else every
        self.bar: RichProgress | None = None
        self._task = None
        if console.is_terminal:
            self.bar = progress_bar(what, console, transient)
            self._task = self.bar.add_task(what, total=total, completed=done)
        self._started = time.monotonic()
        self._first = done
        self._said = self._started
        self._printed = False  # off a terminal: whether a progress line has been printed
        self._finished = False

    def __enter__(self) -> LongWork:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()

    def advance(self, count: int = 1) -> None:
        self.update(self.done + count, self.total)

    def update(self, done: int, total: int) -> None:
        """``done`` of ``total`` (a total found as the work goes)."""
        self.done, self.total = done, total
        if self.bar is not None:
            assert self._task is not None
            self.bar.update(self._task, completed=done, total=total)
            return
        now = time.monotonic()
        if now - self._said >= self.every:
            self._said = now
            self._printed = True
            self.console.print(self.line(now), markup=False, highlight=False)

    def finish(self) -> None:
        """The bar stops; off a terminal, work that printed progress lines ends with one that
        says how far it went (work shorter than an interval prints nothing)."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
        elif not self._finished and self._printed:
            self.console.print(self.line(time.monotonic(), end=True), markup=False, highlight=False)
        self._finished = True

    def line(self, now: float, end: bool = False) -> str:
        """The progress line at ``now``."""
        elapsed = now - self._started
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        text = f"{self.what}: {self.done} of {self.total}{share}, {_clock(elapsed)} elapsed"
        made = self.done - self._first
        if not end and made > 0 and self.done < self.total:
            left = elapsed / made * (self.total - self.done)
            text += f", about {_clock(left)} left"
        return text


def progress_every() -> float:
    """``PROGRESS_EVERY``, or the seconds ``REFEREE_PROGRESS_EVERY`` gives."""
    try:
        every = float(os.environ.get("REFEREE_PROGRESS_EVERY", PROGRESS_EVERY))
    except ValueError:
        return PROGRESS_EVERY
    return every if every >= 0 else PROGRESS_EVERY


def _clock(seconds: float) -> str:
    """``0:12``, ``12:05``, ``1:02:03``."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def progress_bar(what: str, console: Console, transient: bool = False) -> RichProgress:
    """The one progress bar of long work: what it counts, a bar, done of total, time left."""
    return RichProgress(
        TextColumn(f"[bold]{escape(what)}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=transient,
    )
