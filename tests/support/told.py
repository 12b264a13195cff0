"""What a seat was told, as bytes to compare: the table's lines to a fake bot and the lines
``referee ask`` rebuilds from the log (``tests/ask``)."""

from __future__ import annotations

import re
from typing import Final

from referee.ask.transcript import Question

_TIME: Final = re.compile(rb'"time_ms":\d+')


def normal(data: bytes) -> bytes:
    """The bytes with every act's ``time_ms`` as 0 (the one field the clock decides)."""
    return _TIME.sub(b'"time_ms":0', data)


def sent(questions: list[Question]) -> bytes:
    """What the questions send, every ``time_ms`` 0."""
    return b"".join(question.line(0) for question in questions)
