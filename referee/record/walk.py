"""One walk through a replay log: each record with the match as the rules engine has it there.

Every reader that re-simulates a log — verify, the seat's and the public renderings, the
viewer's steps, the tests — walks it here, so the engine is driven from a log one way: only a
``move`` record changes the match (deals follow from the seed, and the walk does not judge
any record: that is verify's work, layered on top).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from referee.record.records import Header, LogRecord, MoveRecord
from referee.rules import Event, Hand, HandStarted, Match


class Moment:
    """One record of the log, and the match where the record stands.

    ``match`` is the state before the record takes effect; ``play()`` applies a move (once)
    and returns the engine's events, so a reader can check the move before it changes
    anything. A move its reader did not play is played before the walk goes on.
    """

    __slots__ = ("_events", "hand", "line", "match", "record")

    def __init__(self, line: int, record: LogRecord, match: Match) -> None:
        #: The record's 1-based line in the log.
        self.line = line
        self.record = record
        self.match = match
        #: The hand in progress at the record: a move's own hand, even once the move ended it
        #: (``match.hand`` is the next one by then).
        self.hand: Hand = match.hand
        self._events: list[Event] | None = None

    @property
    def hand_number(self) -> int:
        return self.hand.hand_number

    def play(self) -> list[Event]:
        """Apply the move record to the match: the engine's events (``IllegalAction`` for a
        move the rules refuse, as ``Match.apply`` raises it)."""
        if self._events is None:
            record = self.record
            assert type(record) is MoveRecord, "only a move changes the match"
            self._events = self.match.apply(record.seat, record.action)
        return self._events


class LogWalk:
    """A log's records in order, each as a ``Moment`` of one ``Match`` dealt from the header's
    seed (``match``: the state the walk has reached)."""

    def __init__(self, records: Sequence[LogRecord]) -> None:
        header = records[0]
        assert isinstance(header, Header), "a log starts with its header"
        self.records = records
        self.match = Match(header.seed)
        #: The first hand's start, as the engine would announce it: it is dealt with the
        #: match, so no ``apply`` reports it.
        self.first_hand = HandStarted(hand_number=1, dealer=self.match.hand.dealer)

    def __iter__(self) -> Iterator[Moment]:
        # The records are iterated, never sliced: a reader of the walk may track how far it got.
        for line, record in enumerate(self.records, start=1):
            moment = Moment(line, record, self.match)
            yield moment
            if type(record) is MoveRecord:
                moment.play()
