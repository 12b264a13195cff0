"""How verify's checks say a record disagrees: ``expect`` or ``Disagreement``, with no line
number (the walk knows which line it is at and adds it)."""

from __future__ import annotations

import msgspec


class Disagreement(Exception):
    """A record that does not follow from the rules; verify turns it into a
    ``VerificationError`` at the record's line."""


def show(value: object) -> str:
    """A value as the log writes it (JSON), for the messages."""
    return msgspec.json.encode(value).decode()


def expect(what: str, expected: object, found: object) -> None:
    if expected != found:
        raise Disagreement(f"{what}: expected {show(expected)}, found {show(found)}")


def check_rejection_count(
    reason: str, max_rejections: int, refused: int, after_ignored: bool
) -> None:
    """A ``too_many_rejections`` fault comes right after the ``max_rejections``-th refused
    answer, or right after an ignored one (a stale or wrong id: the table bounds those on its
    own). Judged from the records, never from the fault's free-text detail."""
    if reason == "too_many_rejections" and not after_ignored:
        expect("rejections before the fault", max_rejections, refused)
