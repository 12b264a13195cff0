"""A match: hands dealt from the seed, the deal rotating, marks kept until one side has 7."""

from __future__ import annotations

from referee.errors import GameOver
from referee.rules.actions import Action
from referee.rules.contract import HandResult
from referee.rules.deal import check_seed, deal, first_dealer
from referee.rules.events import Event, HandEnded, HandStarted, MatchEnded
from referee.rules.hand import Hand
from referee.rules.tiles import LEFT_OF, MARKS_TO_WIN, Partnership, Seat, Tile
from referee.rules.views import View


class Match:
    """The state of a whole match, driven exactly like a ``Hand``.

    ``hand`` is the hand in progress (the last one once the match is over), ``results`` the
    results of every finished hand, ``marks`` the score, ``winner`` the partnership with 7 or
    more marks (None until then). After a hand ends, ``apply`` deals the next one at once.
    """

    __slots__ = ("_next_deal", "hand", "marks", "results", "seed", "winner")

    def __init__(self, seed: int) -> None:
        self.seed = check_seed(seed)
        self.marks: dict[Partnership, int] = {"AC": 0, "BD": 0}
        self.results: list[HandResult] = []
        self.winner: Partnership | None = None
        #: The next hand's tiles, shuffled ahead: (its number, its dealer, the tiles).
        self._next_deal: tuple[int, Seat, dict[Seat, list[Tile]]] | None = None
        self.hand = self._deal(1, first_dealer(seed))

    def deal_ahead(self) -> None:
        """Shuffle the next hand now, when there is time to spare: a deal depends on nothing but
        the seed, so ``apply`` at the end of this hand then has one slow step fewer."""
        if self._next_deal is None and self.winner is None:
            number, dealer = self.hand.hand_number + 1, LEFT_OF[self.hand.dealer]
            self._next_deal = (number, dealer, deal(self.seed, number, dealer))

    def _deal(self, number: int, dealer: Seat) -> Hand:
        ahead, self._next_deal = self._next_deal, None
        if ahead is not None and ahead[:2] == (number, dealer):
            tiles = ahead[2]
        else:
            tiles = deal(self.seed, number, dealer)
        return Hand(dealer, tiles, hand_number=number, marks=self.marks)

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def turn(self) -> Seat | None:
        return self.hand.turn

    def legal_actions(self) -> list[Action]:
        return self.hand.legal_actions()

    def view(self, seat: Seat) -> View:
        return self.hand.view(seat)

    def apply(self, seat: Seat, action: Action) -> list[Event]:
        """Apply to the current hand; when it ends, score it and deal the next (or end)."""
        if self.winner is not None:
            raise GameOver(f"the match is over: {self.winner} won")
        events = self.hand.apply(seat, action)
        last = events[-1]
        if type(last) is HandEnded:
            result = last.review.result
            self.results.append(result)
            if result.winner is not None:
                self.marks[result.winner] += result.marks
                if self.marks[result.winner] >= MARKS_TO_WIN:
                    self.winner = result.winner
                    events.append(MatchEnded(winner=result.winner, marks=dict(self.marks)))
                    return events
            number, dealer = self.hand.hand_number + 1, LEFT_OF[self.hand.dealer]
            self.hand = self._deal(number, dealer)
            events.append(HandStarted(hand_number=number, dealer=dealer))
        return events

    def clone(self) -> Match:
        """An independent copy (the hand cloned, the score and results copied), for search."""
        other = Match.__new__(Match)
        other.seed, other.winner, other._next_deal = self.seed, self.winner, self._next_deal
        other.marks, other.results = dict(self.marks), list(self.results)
        other.hand = self.hand.clone()
        return other
