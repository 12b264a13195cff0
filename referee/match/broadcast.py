"""What the table makes of each step of the game: the log's records, the game record, and
the news every seat is owed.

Public events wait in each seat's ``pending`` and go out with its next message; a
``hand_end`` waits in its outbox, to share the write of that message. Engine events become
records through ``referee.record.events``, as verify expects them.
"""

from __future__ import annotations

from referee.match.outcome import MatchOver
from referee.match.seat import SeatState
from referee.record.events import deal_record, event_record
from referee.record.log import LogWriter
from referee.record.records import DealRecord, GameHand, GameMove, GameRecord, MoveRecord, Timing
from referee.rules import Action, HandEnded, HandStarted, Match, MatchEnded
from referee.rules.tiles import Seat
from referee.wire.messages import Forced, HandEnd, PublicEvent, encode_line


class Broadcast:
    """Logs the match's moves and events, keeps its game record and queues every seat's news."""

    def __init__(
        self, log: LogWriter, seats: dict[Seat, SeatState], seed: int, max_hands: int
    ) -> None:
        self.log = log
        self._seats = list(seats.values())
        self.max_hands = max_hands
        #: The canonical game record: deals, moves, results (its digest ends the log).
        self.record = GameRecord(seed=seed)

    def first_deal(self, match: Match) -> None:
        """The first hand's deal to the log, and its start to every seat."""
        deal = deal_record(match.hand)
        self.log.write(deal)
        self._game_hand(deal)
        first = HandStarted(hand_number=1, dealer=match.hand.dealer)
        for seat in self._seats:
            seat.pending.append(first)  # as for every later hand

    def forced(self, seat: Seat, reason: str) -> None:
        """Every seat learns the referee played for this one, and why."""
        for other in self._seats:
            other.pending.append(Forced(seat=seat, reason=reason))

    def move(
        self, seat: Seat, action: Action, answer_id: int | None, forced: bool, timing: Timing
    ) -> None:
        self.log.write(
            MoveRecord(seat=seat, action=action, id=answer_id, forced=forced, timing=timing)
        )
        self.record.hands[-1].moves.append(GameMove(seat=seat, action=action, forced=forced))

    def event(self, event: object, match: Match) -> None:
        """Log an engine event and queue it for every seat; ``MatchOver`` past ``max_hands``."""
        if type(event) is MatchEnded:
            self.record.winner = event.winner
            return
        if type(event) is HandStarted and event.hand_number > self.max_hands:
            raise MatchOver(
                "max_hands", f"no partnership reached 7 marks in {self.max_hands} hands"
            )
        # match.hand may be the next one already
        record = event_record(event, match, self.record.hands[-1].hand)
        if record is not None:
            self.log.write(record)
        if type(event) is HandEnded:
            self.record.hands[-1].result = event.review.result
            self.record.marks = dict(match.marks)
            for seat in self._seats:
                message = HandEnd(
                    events=seat.take_events(), review=event.review, marks=dict(match.marks)
                )
                seat.outbox += encode_line(message)
            return
        assert isinstance(event, PublicEvent)
        if type(event) is HandStarted:
            assert type(record) is DealRecord
            self._game_hand(record)
        for seat in self._seats:
            seat.pending.append(event)

    def _game_hand(self, deal: DealRecord) -> None:
        self.record.hands.append(GameHand(hand=deal.hand, dealer=deal.dealer, deal=deal.hands))
