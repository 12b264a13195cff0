"""The Texas 42 rules engine: a pure state machine with no I/O.

Typical use, for a referee or a bot's own simulations::

    from referee.rules import Match
    match = Match(seed=7)
    while not match.is_over:
        seat = match.turn
        action = choose(match.view(seat), match.legal_actions())
        events = match.apply(seat, action)

``Hand`` is the same interface for a single hand from any deal (``Hand(dealer, hands)``),
with ``clone()`` for search. Illegal actions raise ``referee.errors.IllegalAction``
subclasses and change nothing.
"""

from referee.rules.actions import (
    DOUBLES,
    NO_TRUMP,
    TRUMPS,
    Action,
    AllTricksBid,
    Bid,
    DeclareTrump,
    Pass,
    Play,
    Trump,
)
from referee.rules.contract import Contract, HandResult
from referee.rules.deal import deal, first_dealer, shuffled_tiles
from referee.rules.events import Acted, Event, HandEnded, HandStarted, MatchEnded, TrickTaken
from referee.rules.hand import Hand
from referee.rules.match import Match
from referee.rules.tiles import (
    COUNT,
    LEFT_OF,
    PARTNER_OF,
    PARTNERSHIP_OF,
    PARTNERSHIPS,
    SEATS,
    TILES,
    Partnership,
    Seat,
    Tile,
    tile,
)
from referee.rules.views import Move, Pile, PlayedTile, Review, View

__all__ = [
    "COUNT",
    "DOUBLES",
    "LEFT_OF",
    "NO_TRUMP",
    "PARTNERSHIPS",
    "PARTNERSHIP_OF",
    "PARTNER_OF",
    "SEATS",
    "TILES",
    "TRUMPS",
    "Acted",
    "Action",
    "AllTricksBid",
    "Bid",
    "Contract",
    "DeclareTrump",
    "Event",
    "Hand",
    "HandEnded",
    "HandResult",
    "HandStarted",
    "Match",
    "MatchEnded",
    "Move",
    "Partnership",
    "Pass",
    "Pile",
    "Play",
    "PlayedTile",
    "Review",
    "Seat",
    "Tile",
    "TrickTaken",
    "Trump",
    "View",
    "deal",
    "first_dealer",
    "shuffled_tiles",
    "tile",
]
