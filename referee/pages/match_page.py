"""The viewer page of one match: verified first, then drawn from the steps the rules engine
rebuilds (``steps``), for the perspectives asked for."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from referee.pages.page import embedded_json, page
from referee.pages.steps import build
from referee.record.log import LogFile
from referee.record.verify import verify
from referee.record.visibility import PERSPECTIVES, Perspective


def match_page(log: LogFile, perspectives: Iterable[Perspective] = PERSPECTIVES) -> str:
    """The page; raises ``VerificationError`` for a log that does not verify (no page is
    drawn from a log whose every record was not re-simulated and found right)."""
    steps = build(log, verify(log), perspectives)
    seed = f"seed {steps.seed}: " if steps.seed is not None else ""  # only with every hand
    return page("viewer", title=f"Texas 42 — {seed}{steps.end}", data=embedded_json(steps))


def page_path(log: Path, only: str | None = None) -> Path:
    """Where a log's page goes unless told: beside it, ``LOG.html`` (every perspective) or
    ``LOG.X.html`` for one (``LOG.B.html``, ``LOG.public.html``)."""
    return log.with_name(log.stem + (f".{only}" if only else "") + ".html")
