"""How verify's checks say a record disagrees: ``expect`` or ``Disagreement``, with no line
number (the walk knows which line it is at and adds it)."""

from __future__ import annotations

import msgspec

from referee.errors import TooManyRejections, reason_code
from referee.wire.answers import MAX_IGNORED


class Disagreement(Exception):
    """A record that does not follow from the rules; verify turns it into a
    ``VerificationError`` at the record's line."""


def show(value: object) -> str:
    """A value as the log writes it (JSON), for the messages."""
    return msgspec.json.encode(value).decode()


def expect(what: str, expected: object, found: object) -> None:
    if expected != found:
        raise Disagreement(f"{what}: expected {show(expected)}, found {show(found)}")


def check_rejection_count(reason: str, max_rejections: int, refused: int, ignored: int) -> None:
    """A ``too_many_rejections`` fault comes at the ``max_rejections``-th refused answer to one
    decision, or at the ``MAX_IGNORED``-th ignored one (a stale or wrong id) while one answer
    is awaited. Judged from the records' counts, never from the fault's free-text detail."""
    if reason == reason_code(TooManyRejections) and ignored != MAX_IGNORED:
        expect("rejections before the fault", max_rejections, refused)
